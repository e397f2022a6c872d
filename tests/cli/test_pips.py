"""Pips, the test-only game (``tests/extra_games``), in the terminal: ``masques games`` lists it and
``masques play`` plays it whole with the generic view, since it brings no terminal part."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from masques.cli.main import app

runner = CliRunner()


def test_games_lists_pips_with_its_options() -> None:
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0, result.output
    pips = next(g for g in json.loads(result.stdout) if g["name"] == "pips")
    assert [o["name"] for o in pips["options"]] == ["players", "hand", "top"]
    assert pips["options"][0]["allowed"] == [2, 3]
    table = runner.invoke(app, ["games"])
    assert "Pips" in table.stdout


def test_a_human_plays_pips_to_the_end_in_the_terminal(tmp_path: Path) -> None:
    """The human asks for help and the moves, types junk and cards it does not hold (each refused
    with a reason), then plays cards until the game is over; the record replays."""
    record = tmp_path / "pips.json"
    attempts = [str(card) for _ in range(3) for card in range(7, 0, -1)]
    commands = ["help", "moves", "garbage", "12", *attempts]
    result = runner.invoke(
        app,
        [
            "play", "pips", "--players", "3", "--hand", "2", "--top", "7",
            "--seats", "human,random,greedy", "--seed", "3", "--save", str(record),
        ],
        input="\n".join(commands) + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Game over" in out
    assert "garbage" in out  # the refusal names what it could not read
    assert "is not in the hand of the player to move" in out  # a card the human does not hold
    saved = json.loads(record.read_text("utf-8"))
    assert saved["game"] == "pips" and len(saved["actions"]) == 6
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    assert "game finished" in replayed.stdout
