"""The arena: seatings, reproducible results, OpenSkill ratings and the written table and plot."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from masques.ai import arena
from masques.cli.main import app


def test_seatings_rotate_every_choice_of_bots() -> None:
    two = arena.seatings(["a", "b", "c"], 2)
    assert sorted(two) == sorted([("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")])
    four = arena.seatings(["hard", "greedy"], 4)
    assert len(four) == 4 and all(s.count("hard") == 2 for s in four)


def test_games_are_reproducible_and_greedy_beats_random_in_masker() -> None:
    specs = arena.schedule("masker", {"players": 2}, ["greedy", "random"], 40, seed=7)
    results = arena.run(specs, workers=1)
    again = arena.run(specs[:5], workers=1)
    assert [r.returns for r in results[:5]] == [r.returns for r in again]
    stats = arena.rate(results)
    assert stats["greedy"].mu > stats["random"].mu
    assert stats["greedy"].win_rate > 0.6
    assert stats["greedy"].games == stats["random"].games == 40


def test_arena_command_writes_json_csv_and_png(tmp_path: Path) -> None:
    out = tmp_path / "ratings" / "masker"
    result = CliRunner().invoke(
        app,
        ["arena", "masker", "--bots", "greedy,random", "--games", "6", "--workers", "1", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.with_suffix(".json").read_text("utf-8"))
    assert data["command"].startswith("masques arena masker")
    assert {row["bot"] for row in data["table"]} == {"greedy", "random"}
    assert len(data["results"]) == 6
    assert out.with_suffix(".csv").read_text("utf-8").startswith("bot,mu,sigma")
    assert out.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_arena_refuses_unknown_bots_and_options() -> None:
    runner = CliRunner()
    bad_bot = runner.invoke(app, ["arena", "masker", "--bots", "greedy,genius"])
    assert bad_bot.exit_code == 2 and "unknown bot 'genius'" in bad_bot.stderr
    bad_option = runner.invoke(app, ["arena", "masker", "--players", "9"])
    assert bad_option.exit_code == 2 and "must be one of 2, 3, 4" in bad_option.stderr
