"""Terminal play of Mascarade: whole games, a human's commands, the hand shown only to its owner."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from masques.cli.main import app
from masques.engine import load_game
from masques.games.mascarade import terminal
from masques.games.mascarade.game import CARDS

runner = CliRunner()


@pytest.mark.parametrize(("players", "scoring"), [(2, False), (3, True), (4, False)])
def test_bots_play_to_the_end_and_the_record_replays(tmp_path: Path, players: int, scoring: bool) -> None:
    record = tmp_path / "game.json"
    args = ["play", "mascarade", "--players", str(players), "--seats", "random", "--save", str(record)]
    if scoring:
        args.append("--scoring")
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Game over. Winner: seat" in result.stdout
    assert "your hand" not in result.stdout  # bots only: the spectator's view
    saved = json.loads(record.read_text("utf-8"))
    assert saved["options"] == {"players": players, "scoring": scoring, "matching": "every"}
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    assert "game finished" in replayed.stdout


def test_a_human_places_on_the_start_square_and_sees_clear_errors(tmp_path: Path) -> None:
    """MC-4: the first card goes on the start square e5; a bad square is refused with the reason."""
    game = load_game("mascarade", {"players": 3, "scoring": True})
    hand = game.new_initial_state(0).observation(0)["hand"]
    commands = [f"{hand[0]}@a1", "99@e5", "nonsense", "moves", "1", "quit"]
    result = runner.invoke(
        app,
        [
            "play",
            "mascarade",
            "--players",
            "3",
            "--scoring",
            "--seats",
            "human,random,random",
            "--seed",
            "0",
            "--save",
            str(tmp_path / "g.json"),
        ],
        input="\n".join(commands) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "the first card goes on the start square e5 (MC-4)" in out
    assert "card 99 is not in your hand" in out or hand[0] == 99
    assert "cannot read 'nonsense'" in out
    assert f"1. {hand[0]}@e5" in out
    assert "Game stopped" in out
    saved = json.loads((tmp_path / "g.json").read_text("utf-8"))
    assert saved["actions"][0] == hand[0] * 100 + 44


@pytest.mark.parametrize("args", [["--players", "5"], ["--players", "1"], ["--scoring", "maybe"]])
def test_bad_options_exit_2_with_one_line(args: list[str]) -> None:
    result = runner.invoke(app, ["play", "mascarade", *args])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "mascarade: option" in result.stderr


def render(obs: dict[str, object]) -> str:
    console = Console(record=True, width=120, color_system=None)
    console.print(terminal.board(obs))
    return console.export_text()


def test_view_shows_the_hand_to_its_owner_only() -> None:
    """MC-3: each seat sees its own hand spelled out; the spectator sees none."""
    game = load_game("mascarade", {"players": 3})
    state = game.new_initial_state(4)
    rng = random.Random(4)
    for _ in range(6):
        state.apply(state.random_legal_action(rng))
    views = {seat: render(state.observation(seat)) for seat in (0, 1, 2, None)}
    for seat in (0, 1, 2):
        for card in state.observation(seat)["hand"]:
            words = terminal.card_words(card)
            assert words in views[seat]
            for other in (0, 1, 2, None):
                if other != seat and card not in (state.observation(other)["hand"] or []):
                    assert words not in views[other]
    assert "spectator: hands are hidden" in views[None]


def test_view_draws_every_placed_card_with_its_features() -> None:
    """MC-2: a placed card shows its number and five feature letters; the legend names them."""
    game = load_game("mascarade", {"players": 2})
    state = game.new_initial_state(1)
    rng = random.Random(1)
    for _ in range(10):
        state.apply(state.random_legal_action(rng))
    text = render(state.observation(None))
    for card, _square, _seat in state.placed:
        code = terminal.card_code(card).plain
        assert f"#{card}" in text and code in text
        assert len(code) == 5
    for value in (CARDS[0].face, CARDS[0].hair):
        assert f"={value}" in text
