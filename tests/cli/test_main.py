"""The command line: options errors (exit 2, one line), games listing, play, replay, bench."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from masques.cli import main as cli_main
from masques.cli.main import app
from masques.engine import GameRecord

runner = CliRunner()


def test_games_lists_blokus3d_with_options_defaults_and_allowed_values() -> None:
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0
    data = {g["name"]: g for g in json.loads(result.stdout)}
    options = {o["name"]: o for o in data["blokus3d"]["options"]}
    assert options["players"]["default"] == 4
    assert options["players"]["allowed"] == [2, 3, 4]
    assert options["structure"]["allowed"] == ["A", "B", "C", "D", "custom"]
    table = runner.invoke(app, ["games"])
    assert table.exit_code == 0 and "--players" in table.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["play", "blokus3d", "--players", "5"], "must be one of 2, 3, 4"),
        (["play", "blokus3d", "--structure", "E"], "must be one of A, B, C, D, custom"),
        (["play", "blokus3d", "--players", "four"], "must be one of 2, 3, 4"),
        (["play", "nope"], "unknown game 'nope'"),
        (["play", "blokus3d", "--seats", "human,robot"], "unknown bot 'robot'"),
        (["play", "blokus3d", "--seats", "human,random"], "lists 2 seats; this game has 4"),
        (["bench", "blokus3d", "--players", "1"], "must be one of 2, 3, 4"),
        (["play", "blokus3d", "--structure", "custom"], "custom_structure' is required"),
        (["play", "masker", "--seed", "-1"], "a seed is an integer from 0 to 2**256 - 1"),
        (["play", "masker", "--seed", str(2**256)], "a seed is an integer from 0 to 2**256 - 1"),
        (["arena", "masker", "--seed", str(2**256 - 1), "--bots", "random", "--games", "2"], "--seed"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(args: list[str], fragment: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert fragment in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_custom_structure_from_a_toml_file(tmp_path: Path) -> None:
    grid = tmp_path / "hill.toml"
    grid.write_text('name = "Hill"\nheights = ["0120", "1331", "0120"]\n', "utf-8")
    record = tmp_path / "game.json"
    result = runner.invoke(
        app,
        [
            "play",
            "blokus3d",
            "--structure",
            "custom",
            "--custom-structure",
            str(grid),
            "--players",
            "2",
            "--seats",
            "random",
            "--save",
            str(record),
            "--no-layers",
        ],
    )
    assert result.exit_code == 0, result.output
    saved = json.loads(record.read_text("utf-8"))
    assert saved["options"]["custom_structure"]["name"] == "Hill"
    bad = tmp_path / "bad.json"
    bad.write_text('{"heights": ["01x"]}', "utf-8")
    result = runner.invoke(app, ["play", "blokus3d", "--structure", "custom", "--custom-structure", str(bad)])
    assert result.exit_code == 2
    assert "'x' is not a digit" in result.stderr


def test_bots_play_a_whole_game_and_the_record_replays(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    result = runner.invoke(
        app,
        [
            "play",
            "blokus3d",
            "--players",
            "3",
            "--structure",
            "C",
            "--seats",
            "random",
            "--seed",
            "5",
            "--save",
            str(record),
            "--no-layers",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Game over" in result.stdout
    data = json.loads(record.read_text("utf-8"))
    assert data["game"] == "blokus3d" and data["seed"] == 5 and data["actions"]
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    assert "game finished" in replayed.stdout


def test_a_human_lists_moves_makes_errors_and_plays(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    commands = "\n".join(
        ["help", "moves", "moves I2", "1", "L4:0@a1", "garbage", "show V3", "moves XX", "quit"]
    )
    result = runner.invoke(
        app,
        ["play", "blokus3d", "--seats", "human,random,random,random", "--save", str(record)],
        input=commands + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "2265 legal moves" in out  # empty pyramid D, 4 players
    assert "I2:0@c3" in out
    assert "outside the structure" in out
    assert "cannot read 'garbage'" in out
    assert "V3:11" in out
    assert "Game stopped" in out
    saved = json.loads(record.read_text("utf-8"))
    assert len(saved["actions"]) >= 4  # the human's I2 and three bot moves


def test_replay_refuses_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"game": "blokus3d"}', "utf-8")
    result = runner.invoke(app, ["replay", str(broken)])
    assert result.exit_code == 2
    assert "lacks" in result.stderr
    missing = runner.invoke(app, ["replay", str(tmp_path / "missing.json")])
    assert missing.exit_code == 2


def test_bench_prints_a_table_per_structure() -> None:
    result = runner.invoke(app, ["bench", "blokus3d", "--seconds", "0.2", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["label"] for r in rows] == ["structure A", "structure B", "structure C", "structure D"]
    assert all(r["playouts"] >= 1 and r["mean_legal_moves"] > 0 for r in rows)


def test_play_without_a_seed_draws_256_bits_and_the_record_keeps_them(tmp_path: Path) -> None:
    """No --seed: a fresh 256-bit seed from the secrets module, written so that it round-trips."""
    seeds = []
    for i in range(4):
        record = tmp_path / f"game{i}.json"
        args = ["play", "masker", "--seats", "random", "--save", str(record)]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        data = json.loads(record.read_text("utf-8"))
        seeds.append(int(data["seed"]))
        assert data["chance"] == 2
        assert isinstance(data["seed"], str) == (seeds[-1] >= 2**53)
        assert GameRecord.loads(record.read_text("utf-8")).replay().is_terminal()
    assert len(set(seeds)) == 4 and all(0 <= s < 2**256 for s in seeds)
    # four draws all below 2**200 happen with probability 2**-224
    assert max(seeds).bit_length() > 200
    big = tmp_path / "big.json"
    result = runner.invoke(
        app, ["play", "masker", "--seats", "random", "--seed", str(2**256 - 1), "--save", str(big)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(big.read_text("utf-8"))["seed"] == str(2**256 - 1)


def test_serve_is_configured_from_the_environment_and_flags_win(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every setting of ``masques serve`` has an environment variable (the flag wins over it)."""
    import uvicorn

    from masques.server import app as server_app
    from masques.server import logs

    made: dict[str, object] = {}

    def create_app(url: str, **kwargs: object) -> str:
        made.update(url=url, **kwargs)
        return "app"

    def run(app: object, **kwargs: object) -> None:
        made.update(app=app, **kwargs)

    monkeypatch.setattr(server_app, "create_app", create_app)
    monkeypatch.setattr(uvicorn, "run", run)
    monkeypatch.setattr(cli_main, "reachable_redis", lambda url, option: made.update(reached=url))
    monkeypatch.setattr(logs, "configure", lambda level, fmt: made.update(logs=(level, fmt)))
    database = f"sqlite:///{tmp_path / 'site.sqlite3'}"
    env = {
        "MASQUES_HOST": "127.0.0.2",
        "MASQUES_PORT": "8123",
        "MASQUES_DATABASE_URL": database,
        "MASQUES_BOT_WORKERS": "3",
        "MASQUES_REDIS_URL": "redis://127.0.0.1:1/0",
        "MASQUES_MAX_SPECTATORS": "9",
        "MASQUES_ANALYSIS_LEVEL": "hard",
        "MASQUES_LOG_FORMAT": "text",
        "MASQUES_BOT_QUEUE": "redis",
        "MASQUES_FORWARDED_ALLOW_IPS": "10.0.0.2",
        "MASQUES_DB_WRITER": "thread",
    }
    result = runner.invoke(app, ["serve", "--port", "8124"], env=env)
    assert result.exit_code == 0, result.output
    limits = made["limits"]
    assert (made["url"], made["bot_workers"], made["redis_url"]) == (database, 3, "redis://127.0.0.1:1/0")
    assert made["bot_queue"] == "redis"
    assert made["writer"] == "thread"
    assert made["settle_heap"] is True  # the served process tunes its collector once started
    assert made["ws_per_message_deflate"] is False  # off unless asked for
    assert made["forwarded_allow_ips"] == "10.0.0.2"
    assert (made["host"], made["port"], made["logs"]) == ("127.0.0.2", 8124, ("info", "text"))
    assert (limits.max_spectators, limits.analysis_level) == (9, "hard")  # type: ignore[attr-defined]
    help_text = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).stdout
    for variable in [
        *env,
        "MASQUES_LOG_LEVEL",
        "MASQUES_RATE_LIMITS",
        "MASQUES_BOT_TIMEOUT",
        "MASQUES_LEADERBOARD_MIN_GAMES",
    ]:
        assert variable in help_text, variable
    bad = runner.invoke(app, ["serve"], env={**env, "MASQUES_ANALYSIS_LEVEL": "random"})
    assert bad.exit_code != 0 and "analysis level" in bad.output
    bad = runner.invoke(app, ["serve"], env={**env, "MASQUES_LOG_FORMAT": "xml"})
    assert bad.exit_code != 0 and "--log-format is json or text" in bad.output
    assert runner.invoke(app, ["serve"], env={**env, "MASQUES_WS_COMPRESSION": "1"}).exit_code == 0
    assert made["ws_per_message_deflate"] is True


def test_worker_is_configured_from_the_environment_and_flags_win(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from masques.server import bot_queue, logs

    caplog.set_level(logging.INFO, logger="masques.cli")

    made: dict[str, object] = {}
    monkeypatch.setattr(
        bot_queue, "run_workers", lambda url, count, logs=None: made.update(url=url, count=count)
    )
    reached: list[str] = []
    monkeypatch.setattr(cli_main, "reachable_redis", lambda url, option: reached.append(url))
    monkeypatch.setattr(logs, "configure", lambda level, fmt: made.update(logs=(level, fmt)))
    env = {
        "MASQUES_REDIS_URL": "redis://:secret@10.0.0.5:6380/2",
        "MASQUES_BOT_PROCESSES": "3",
        "MASQUES_LOG_LEVEL": "warning",
    }
    result = runner.invoke(app, ["worker", "--processes", "4"], env=env)
    assert result.exit_code == 0, result.output
    assert made == {"url": env["MASQUES_REDIS_URL"], "count": 4, "logs": ("warning", "json")}
    said = caplog.text + result.output  # the start is a log line (and plain text on a terminal)
    assert "10.0.0.5:6380/2" in said and "secret" not in said
    help_text = runner.invoke(app, ["worker", "--help"], env={"COLUMNS": "200"}).stdout
    for variable in [*env, "MASQUES_LOG_FORMAT"]:
        assert variable in help_text, variable


def test_export_writes_a_stored_matchs_full_record(tmp_path: Path) -> None:
    """The operator's copy of a match, seed and every action, read from the server's database; it
    replays to the same position as the match."""
    from masques.engine import load_game
    from masques.engine.chance import CHANCE_VERSION
    from masques.server.storage import Append, NewMatch, NewSeat, Storage

    url = f"sqlite:///{tmp_path / 'site.sqlite3'}"
    storage = Storage(url)
    storage.migrate()
    game = load_game("maske", {"players": 3})
    seed = 2**200 + 7
    state = game.new_initial_state(seed)
    storage.create_match(
        NewMatch(
            "00000000000000aa",
            "maske",
            game.rules_version,
            dict(game.options),
            seed,
            [NewSeat("random")] * 3,
            chance=CHANCE_VERSION,
        )
    )
    for number in range(12):
        action = state.legal_actions()[number % len(state.legal_actions())]
        storage.append_actions([Append("00000000000000aa", number, state.current_player, action)])
        state.apply(action)
    storage.engine.dispose()

    out = tmp_path / "full.json"
    result = runner.invoke(app, ["export", "00000000000000aa", "--database", url, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "maske: 12 actions written" in result.output
    record = GameRecord.from_json(json.loads(out.read_text("utf-8")))
    assert (record.seed, record.actions) == (seed, state.history)
    assert record.replay().observation(None) == state.observation(None)
    printed = runner.invoke(app, ["export", "00000000000000aa"], env={"MASQUES_DATABASE_URL": url})
    assert printed.exit_code == 0 and json.loads(printed.stdout) == json.loads(out.read_text("utf-8"))
    missing = runner.invoke(app, ["export", "ffffffffffffffff", "--database", url])
    assert missing.exit_code == 2 and "no match 'ffffffffffffffff'" in missing.output
