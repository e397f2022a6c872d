"""The arena: seatings, reproducible results, OpenSkill ratings and the written table and plot."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from masques.ai import arena
from masques.cli.main import app
from masques.engine.chance import CHANCE_VERSION, LEGACY_CHANCE, stream


def test_seatings_rotate_every_choice_of_bots() -> None:
    two = arena.seatings(["a", "b", "c"], 2)
    assert sorted(two) == sorted([("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")])
    four = arena.seatings(["hard", "greedy"], 4)
    assert len(four) == 4 and all(s.count("hard") == 2 for s in four)


def test_per_pairing_gives_each_pairing_its_games_with_seats_rotating() -> None:
    specs = arena.schedule("masker", {"players": 2}, ["hard", "greedy", "random"], 0, per_pairing=5)
    by_pairing: dict[frozenset[str], list[tuple[str, ...]]] = {}
    for spec in specs:
        by_pairing.setdefault(frozenset(spec.seats), []).append(spec.seats)
    assert set(by_pairing) == {
        frozenset(p) for p in [("hard", "greedy"), ("hard", "random"), ("greedy", "random")]
    }
    for seatings in by_pairing.values():
        assert len(seatings) == 5
        assert seatings[0] == seatings[2][::1] and seatings[1] == seatings[0][::-1]  # seats alternate
    assert [s.seed for s in specs] == list(range(len(specs)))  # one seed per game, in order


def test_groups_add_games_for_one_table_only() -> None:
    specs = arena.schedule(
        "maske", {"players": 4}, ["hard"], 0, groups=[(("hard", "greedy", "greedy", "greedy"), 8)]
    )
    assert len(specs) == 8
    assert all(sorted(s.seats) == ["greedy", "greedy", "greedy", "hard"] for s in specs)
    assert {s.seats.index("hard") for s in specs} == {0, 1, 2, 3}  # the hard bot sits in every seat
    two = arena.schedule(
        "masker", {"players": 2}, ["greedy", "random"], 0, per_pairing=2, groups=[(("expert", "hard"), 3)]
    )
    assert [s.seats for s in two][-3:] == [("expert", "hard"), ("hard", "expert"), ("expert", "hard")]


def test_arena_command_takes_per_pairing_and_groups(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["arena", "masker", "--players", "2", "--bots", "greedy,random", "--per-pairing", "2"]
    result = CliRunner().invoke(app, [*args, "--group", "easy:random=2", "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.with_suffix(".json").read_text("utf-8"))
    assert data["games"] == 4
    assert "--per-pairing 2 --group easy:random=2" in data["command"]
    rows = {r["bot"]: r for r in data["table"]}
    assert rows["random"]["head_to_head_games"] == {"easy": 2, "greedy": 2}
    assert rows["easy"]["head_to_head_games"] == {"random": 2}
    bad = CliRunner().invoke(app, ["arena", "masker", "--bots", "greedy", "--group", "hard:greedy=x"])
    assert bad.exit_code == 2 and "--group takes BOT:BOT...=GAMES" in bad.output


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


ARENA_ARGS = [
    "arena",
    "masker",
    "--players",
    "2",
    "--bots",
    "greedy,random",
    "--games",
    "8",
    "--workers",
    "1",
]


def test_a_stopped_run_resumes_from_its_journal_and_gives_the_same_table(tmp_path: Path) -> None:
    """The journal keeps each finished game; --resume plays only the missing ones, and the table is the
    one an uninterrupted run writes."""
    whole = tmp_path / "whole"
    assert CliRunner().invoke(app, [*ARENA_ARGS, "--out", str(whole)]).exit_code == 0
    assert not whole.with_suffix(".games.jsonl").exists()  # removed once the table is written
    expected = json.loads(whole.with_suffix(".json").read_text("utf-8"))

    stopped = tmp_path / "stopped"
    journal = arena.Journal(stopped.with_suffix(".games.jsonl"))
    specs = arena.schedule("masker", {"players": 2, "variant": "2d"}, ["greedy", "random"], 8)
    journal.start([])
    for result in arena.run(specs[:3], workers=1):
        journal.add(result)
    with journal.path.open("a", encoding="utf-8") as handle:
        handle.write('{"spec": {"game": "mas')  # the line a killed run was writing
    played: list[arena.GameSpec] = []
    original_play = arena.play

    def counting_play(spec: arena.GameSpec) -> arena.GameResult:
        played.append(spec)
        return original_play(spec)

    arena.play = counting_play  # type: ignore[assignment]
    try:
        result = CliRunner().invoke(app, [*ARENA_ARGS, "--out", str(stopped), "--resume"])
    finally:
        arena.play = original_play  # type: ignore[assignment]
    assert result.exit_code == 0, result.output
    assert "resuming: 3 of 8 games" in result.stderr
    assert sorted(s.seed for s in played) == [3, 4, 5, 6, 7]
    resumed = json.loads(stopped.with_suffix(".json").read_text("utf-8"))
    assert resumed["results"] == expected["results"]
    assert resumed["table"] == expected["table"]


def test_resume_refuses_a_journal_of_another_run_and_needs_out(tmp_path: Path) -> None:
    out = tmp_path / "t"
    other = arena.schedule("masker", {"players": 2, "variant": "2d"}, ["greedy", "random"], 2, seed=500)
    journal = arena.Journal(out.with_suffix(".games.jsonl"))
    journal.start(arena.run(other, workers=1))
    before = journal.path.read_text("utf-8")
    bad = CliRunner().invoke(app, [*ARENA_ARGS, "--out", str(out), "--resume"])
    assert bad.exit_code == 2 and "belongs to another run" in bad.stderr
    assert journal.path.read_text("utf-8") == before  # nothing changed
    no_out = CliRunner().invoke(app, [*ARENA_ARGS, "--resume"])
    assert no_out.exit_code == 2 and "--resume goes on from the journal of --out" in no_out.stderr
    journal.path.write_text('{"spec": 1}\n{"spec": 2}\n', "utf-8")
    broken = CliRunner().invoke(app, [*ARENA_ARGS, "--out", str(out), "--resume"])
    assert broken.exit_code == 2 and "not a game result" in broken.stderr


# -- the chance generator's version ----------------------------------------------------------------


def test_the_chance_version_is_written_and_read_back(tmp_path: Path) -> None:
    """Results, the journal and the table record the version; results without one are version 1."""
    out = tmp_path / "t"
    args = ["arena", "masker", "--players", "2", "--bots", "greedy,random", "--games", "2"]
    result = CliRunner().invoke(app, [*args, "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.with_suffix(".json").read_text("utf-8"))
    assert data["chance"] == CHANCE_VERSION and data["command"].endswith(f"--chance {CHANCE_VERSION}")
    assert all(r["spec"]["chance"] == CHANCE_VERSION for r in data["results"])
    read = [arena.result_from_json(r) for r in data["results"]]
    assert [arena.play(r.spec) for r in read] == read
    old = {
        **data["results"][0],
        "spec": {k: v for k, v in data["results"][0]["spec"].items() if k != "chance"},
    }
    assert arena.result_from_json(old).spec.chance == LEGACY_CHANCE
    legacy = CliRunner().invoke(app, [*args, "--workers", "1", "--chance", "1", "--out", str(out)])
    assert legacy.exit_code == 0, legacy.output
    assert json.loads(out.with_suffix(".json").read_text("utf-8"))["chance"] == LEGACY_CHANCE
    bad = CliRunner().invoke(app, [*args, "--chance", "3"])
    assert bad.exit_code == 2 and "--chance must be one of 1, 2" in bad.output


def test_journal_lines_carry_the_version_and_a_journal_of_the_other_version_is_refused(
    tmp_path: Path,
) -> None:
    specs = arena.schedule("masker", {"players": 2, "variant": "2d"}, ["greedy", "random"], 2)
    journal = arena.Journal(tmp_path / "j.games.jsonl")
    journal.start([])
    for spec in specs:
        journal.add(arena.play(spec))
    lines = [json.loads(line) for line in journal.path.read_text("utf-8").splitlines()]
    assert [line["spec"]["chance"] for line in lines] == [CHANCE_VERSION] * 2
    assert len(journal.load(specs)) == 2
    legacy = arena.schedule("masker", {"players": 2, "variant": "2d"}, ["greedy", "random"], 2, chance=1)
    with pytest.raises(ValueError, match="another run"):
        journal.load(legacy)


def test_bots_draw_from_streams_of_their_own() -> None:
    """Version 2: each seat's stream is a purpose of the game's seed, apart from the deal's; version 1
    keeps the old ``random.Random(seed * 1000 + seat)``."""
    spec = arena.GameSpec("masker", {"players": 2}, ("random", "random"), 5)
    assert spec.chance == CHANCE_VERSION
    seats = [stream(5, f"arena/seat/{s}").getrandbits(64) for s in range(2)]
    deal = stream(5, "masker/deal").getrandbits(64)
    assert len({*seats, deal}) == 3
    assert stream(5, "arena/seat/1", version=1).random() == random.Random(5001).random()
    new, old = (
        arena.play(spec),
        arena.play(arena.GameSpec("masker", {"players": 2}, ("random", "random"), 5, 1)),
    )
    assert new.spec.chance == 2 and old.spec.chance == 1


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("per_pairing", [None, 1, 3])
@pytest.mark.parametrize(
    "bots", [["random"], ["random", "greedy"], ["random", "greedy", "easy", "medium", "hard"]]
)
@pytest.mark.parametrize("games", [0, 1, 7, 40])
def test_planned_games_counts_what_schedule_plans(
    players: int, per_pairing: int | None, bots: list[str], games: int
) -> None:
    groups = [(("random", "greedy"), 3)]
    specs = arena.schedule(
        "masker", {"players": players}, bots, games, per_pairing=per_pairing, groups=groups
    )
    assert arena.planned_games(players, len(bots), games, per_pairing=per_pairing, groups=groups) == len(
        specs
    )


def test_a_schedule_too_large_to_plan_is_refused_before_it_is_built() -> None:
    with pytest.raises(ValueError, match="at most 1000000"):
        arena.schedule("masker", {"players": 2}, ["random", "greedy"], 10**12)
    with pytest.raises(ValueError, match="at most 1000000"):
        arena.schedule("masker", {"players": 2}, ["random", "greedy"], 0, per_pairing=10**7)
    result = CliRunner().invoke(app, ["arena", "masker", "--bots", "random,greedy", "--games", str(10**12)])
    assert result.exit_code == 2 and "too many games" in result.output and "1000000" in result.output


def test_a_shared_win_rates_its_winners_above_its_losers() -> None:
    """The arena's multi-player tables rate a shared win (ties in returns) as a win for each winner,
    not as a draw for all: openskill is given whole places."""
    spec = arena.GameSpec("masker", {"players": 4}, ("a", "b", "c", "d"), seed=0)
    stats = arena.rate([arena.GameResult(spec, (0.0, 0.5, 0.0, 0.5), (0.0, 1.0, 0.0, 1.0), 10)])
    assert stats["b"].mu == stats["d"].mu > stats["a"].mu == stats["c"].mu


def _closed_port() -> int:
    """A loopback port nothing listens on (bound a moment, then let go)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_ray_address_nothing_answers_at_is_refused_in_one_line() -> None:
    """Ray would try to join such a cluster for ever; the arena says so at once, and runs nothing."""
    port = _closed_port()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(arena.RayUnreachableError, match=f"cannot reach the Ray cluster at {address}: "):
            arena.check_ray_address(address)
    arena.check_ray_address("auto")  # Ray's own to find
    args = ["arena", "masker", "--bots", "random,greedy", "--games", "2", "--ray", f"127.0.0.1:{port}"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"cannot reach the Ray cluster at 127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
