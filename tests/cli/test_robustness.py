"""Hostile input to the command line: one line on stderr and exit code 2, never a traceback; and a game
in progress is never lost (every way a session stops saves its record)."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from masques.ai import arena
from masques.cli import bench as cli_bench
from masques.cli import main as cli_main
from masques.cli import parts
from masques.cli import play as cli_play
from masques.cli.main import app
from masques.cli.play import TerminalGame, default_record_path
from masques.engine import GameRecord, load_game, redacted_record

runner = CliRunner()


def one_line_error(result: Any, *fragments: str) -> None:
    """Exit code 2, one line on stderr holding every fragment, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("masques: error: ")
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in result.output


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user data directory (records, the default database) inside the test's folder."""
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def records_in(home: Path) -> list[Path]:
    folder = home / "masques" / "records"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def played_record(game: str, options: dict[str, Any], moves: int, seed: int = 1) -> GameRecord:
    """A record of ``moves`` random moves."""
    state = load_game(game, options).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        state.apply(rng.choice(state.legal_actions()))
    return GameRecord.of(state)


# -- replay: files of any size, depth and content -------------------------------------------------
def test_replay_refuses_deeply_nested_json(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    one_line_error(runner.invoke(app, ["replay", str(deep)]), str(deep), "nested")
    deep_object = tmp_path / "deep_object.json"
    deep_object.write_text('{"a":' * 200 + "1" + "}" * 200, "utf-8")
    one_line_error(runner.invoke(app, ["replay", str(deep_object)]), "nested")


def test_replay_reads_no_more_than_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from masques.cli import files

    monkeypatch.setattr(files, "MAX_FILE_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"game": "masker", "padding": "x" * 2000}), "utf-8")
    one_line_error(runner.invoke(app, ["replay", str(big)]), str(big), "larger than 1,000 bytes")
    if Path("/dev/zero").exists():  # endless: read up to the limit, then refused
        one_line_error(runner.invoke(app, ["replay", "/dev/zero"]), "larger than")
    assert files.MAX_FILE_BYTES == 1000
    monkeypatch.undo()
    assert files.MAX_FILE_BYTES == 64 * 2**20


def test_replay_refuses_a_number_too_long_and_bad_utf8(tmp_path: Path) -> None:
    digits = tmp_path / "digits.json"
    digits.write_text('{"seed": ' + "9" * 5000 + "}", "utf-8")
    one_line_error(runner.invoke(app, ["replay", str(digits)]), "digits")
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"game": "\xe9"}')
    one_line_error(runner.invoke(app, ["replay", str(latin)]), "UTF-8")


@pytest.mark.parametrize(
    ("game", "observation"),
    [
        ("masker", {"foo": 1}),
        ("masker", 5),
        ("masker", [1, "x", None]),
        ("maske", {"players": 3}),
        ("mascarade", {"seat": 0}),
        ("blokus3d", {"structure": {"name": "x"}}),
        ("blokus3d", "text"),
    ],
)
def test_replay_refuses_a_redacted_record_whose_observation_the_board_cannot_draw(
    tmp_path: Path, game: str, observation: Any
) -> None:
    path = tmp_path / "red.json"
    path.write_text(
        json.dumps({"format": "masques-redacted-record", "game": game, "observations": [observation]}),
        "utf-8",
    )
    result = runner.invoke(app, ["replay", str(path)])
    one_line_error(result, str(path), f"observation 1 of 1 is not a {game} observation")


def test_replay_every_checks_each_observation_before_drawing_any(tmp_path: Path) -> None:
    red = redacted_record(played_record("masker", {}, 4), 0)
    observations = red["observations"]
    assert isinstance(observations, list) and len(observations) == 5
    observations[2] = {"players": 2}
    path = tmp_path / "red.json"
    path.write_text(json.dumps(red), "utf-8")
    result = runner.invoke(app, ["replay", "--every", str(path)])
    one_line_error(result, "observation 3 of 5 is not a masker observation")
    assert result.stdout == ""
    # only the last one is drawn without --every: the junk in the middle is not looked at
    assert runner.invoke(app, ["replay", str(path)]).exit_code == 0


def test_replay_of_a_redacted_record_prints_no_terminal_control_sequence(tmp_path: Path) -> None:
    hostile = "\x1b[2J\x1b[31mFAKE\x1b]0;owned\x07\x9b1m\x7f"
    red = redacted_record(played_record("blokus3d", {"players": 2}, 3), 0)
    observations = red["observations"]
    assert isinstance(observations, list)
    last = observations[-1]
    assert isinstance(last, dict) and "last_move" in last
    last["last_move"] = hostile
    path = tmp_path / "red.json"
    path.write_text(json.dumps(red), "utf-8")
    unknown = tmp_path / "unknown.json"
    unknown.write_text(
        json.dumps(
            {
                "format": "masques-redacted-record",
                "game": "nosuchgame" + hostile,
                "observations": [{"note" + hostile: hostile, "list": [hostile], "nested": {"k": hostile}}],
            }
        ),
        "utf-8",
    )
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "FAKE" in result.stdout
    refused = runner.invoke(app, ["replay", str(unknown)])  # its name is said, harmless
    one_line_error(refused, "unknown game 'nosuchgame")
    for control in ("\x1b", "\x07", "\x9b", "\x7f"):
        assert control not in result.stdout and control not in refused.stderr


def test_printable_replaces_control_characters_but_keeps_lines() -> None:
    from masques.cli.output import printable, printable_json

    assert printable("a\x1b[31mb\tc\nd\x9b\x7f\u202e") == "a\ufffd[31mb\tc\nd\ufffd\ufffd\ufffd"
    assert printable("a\nb\tc\x00", one_line=True) == "a b c\ufffd"
    assert printable_json({"k\x1b": ["\x1b", 1, None, {"x": "\x07"}]}) == {
        "k\ufffd": ["\ufffd", 1, None, {"x": "\ufffd"}]
    }


def test_replay_step_stops_quietly_at_the_end_of_input(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(played_record("masker", {}, 6).dumps(), "utf-8")
    result = runner.invoke(app, ["replay", "--step", str(path)], input="\n")
    assert result.exit_code == 0, result.output


# -- markup: what a person typed or a file brought is shown as it is -----------------------------
def test_play_prompt_text_is_not_markup(tmp_path: Path, data_home: Path) -> None:
    monkey_dir = tmp_path / "x[b]"
    commands = ["moves [/]", "moves [red]X[/red]", f"save {monkey_dir}/[bold]y", "quit"]
    result = runner.invoke(app, ["play", "masker", "--seed", "1", "--no-layers"], input="\n".join(commands))
    assert result.exit_code == 0, result.output
    assert "No legal move uses '[/]'." in result.stdout
    assert "No legal move uses '[red]X[/red]'." in result.stdout
    assert (monkey_dir / "[bold]y").is_file()
    assert f"saved to {monkey_dir}/[bold]y" in result.stdout
    assert "Game stopped. Record saved to" in result.stdout
    assert len(records_in(data_home)) == 1


@pytest.mark.parametrize("name", ["[/]", "[red]X[/red]", "[bold]"])
def test_a_custom_structure_name_is_shown_as_it_is(tmp_path: Path, name: str) -> None:
    structure = json.dumps({"name": name, "heights": ["333", "333", "333"]})
    record = tmp_path / f"game {name}.json"
    args = ["play", "blokus3d", "--structure", "custom", "--custom-structure", structure, "--players", "2"]
    result = runner.invoke(app, [*args, "--seats", "random", "--seed", "3", "--save", str(record)])
    assert result.exit_code == 0, result.output
    assert f"Blokus 3D · {name} (custom)" in result.stdout
    assert f"Record saved to {record}" in result.stdout
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    assert f"Blokus 3D · {name} (custom)" in replayed.stdout
    helped = runner.invoke(app, [*args, "--seed", "3"], input="help\nquit\n")
    assert helped.exit_code == 0, helped.output
    assert json.dumps(name) in helped.stdout


def test_the_default_board_shows_keys_and_titles_as_they_are() -> None:
    out = io.StringIO()
    console = Console(file=out, width=120)  # markup on: the drawing must not depend on the console
    console.print(parts.default_board({"game": "[/]", "[red]k[/red]": [{"[/]": "[bold]v"}], "[/b]": 1}))
    text = out.getvalue()
    assert "[/]" in text and "[red]k[/red]" in text and "[bold]v" in text and "[/b]" in text


# -- play: the record is never lost ---------------------------------------------------------------
def test_play_checks_the_save_path_before_the_game(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "masker", "--seats", "random", "--save", str(tmp_path)])
    one_line_error(result, "--save", "Is a directory")
    assert "seat" not in result.stdout  # no game was played
    blocker = tmp_path / "file"
    blocker.write_text("", "utf-8")
    result = runner.invoke(app, ["play", "masker", "--seats", "random", "--save", str(blocker / "x.json")])
    one_line_error(result, "--save", "Not a directory")
    assert blocker.read_text("utf-8") == ""


def test_a_save_that_fails_at_the_prompt_is_said_and_the_game_goes_on(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    blocker = tmp_path / "file"
    blocker.write_text("", "utf-8")
    commands = [f"save {tmp_path}", f"save {blocker}/x.json", "moves", "1", "quit"]
    result = runner.invoke(
        app,
        ["play", "masker", "--seed", "1", "--save", str(record), "--no-layers"],
        input="\n".join(commands),
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.count("the game goes on") == 2
    assert "Game stopped. Record saved to" in result.stdout
    assert len(json.loads(record.read_text("utf-8"))["actions"]) >= 1


def test_a_final_save_that_fails_falls_back_to_the_records_folder(
    tmp_path: Path, data_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wanted = tmp_path / "game.json"
    real_save = cli_play.save_record

    def save_record(record: GameRecord, path: Path) -> Path:
        if path == wanted:
            raise OSError(28, "No space left on device", str(path))
        return real_save(record, path)

    monkeypatch.setattr(cli_main, "save_record", save_record)
    result = runner.invoke(app, ["play", "masker", "--seats", "random", "--seed", "2", "--save", str(wanted)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert "No space left on device" in result.stderr and "records folder" in result.stderr
    saved = records_in(data_home)
    assert len(saved) == 1 and f"Record saved to {saved[0]}" in result.stdout
    assert GameRecord.loads(saved[0].read_text("utf-8")).replay().is_terminal()


def test_end_of_input_at_the_hot_seat_hand_over_saves_the_record(data_home: Path) -> None:
    result = runner.invoke(
        app,
        ["play", "masker", "--seats", "human,human", "--seed", "1"],
        input="",
        env={"MASQUES_ANY_SEED": "1"},
    )
    assert result.exit_code == 0, result.output
    assert "Game stopped. Record saved to" in result.stdout
    assert len(records_in(data_home)) == 1


def test_every_interruption_stops_the_session_with_its_moves() -> None:
    """End of input at the hand-over, Ctrl-C there or while a bot thinks: run() returns False and
    the record holds every move played."""
    game = load_game("masker")

    def session_until(limit: int, error: type[BaseException], seats: list[str]) -> TerminalGame:
        prompts: list[str] = []

        def ask(prompt: str) -> str:
            prompts.append(prompt)
            if prompt.startswith("Seat"):  # the hand-over
                if len(session.state.history) >= limit:
                    raise error
                return ""
            return "moves" if not session.listed else "1"

        session = TerminalGame(game, seats, 1, Console(file=io.StringIO()), ask)
        assert session.run() is False
        return session

    for error in (EOFError, KeyboardInterrupt):
        session = session_until(3, error, ["human", "human"])
        assert session.interrupted is (error is KeyboardInterrupt)
        assert len(session.record().actions) >= 3
        assert session.record().replay().observation(None) == session.state.observation(None)

    class Interrupted:
        def act(self, *_args: Any) -> int:
            raise KeyboardInterrupt

    session = TerminalGame(game, ["random", "random"], 1, Console(file=io.StringIO()), input)
    session.bots = {0: Interrupted(), 1: Interrupted()}  # type: ignore[dict-item]
    assert session.run() is False
    assert session.record().actions == []


def test_default_record_paths_are_never_shared(data_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game("masker")
    first, second = default_record_path(game), default_record_path(game)
    assert first != second and first.exists() and second.exists()

    class Frozen:  # two games in the same microsecond
        @staticmethod
        def now(_tz: object) -> Any:
            from datetime import UTC, datetime

            return datetime(2030, 1, 2, 3, 4, 5, 6, tzinfo=UTC)

    monkeypatch.setattr(cli_play, "datetime", Frozen)
    paths = {default_record_path(game) for _ in range(3)}
    assert len(paths) == 3 and all(p.exists() for p in paths)
    # two whole games saved to the default place keep two records
    for seed in (1, 2):
        assert runner.invoke(app, ["play", "masker", "--seats", "random", "--seed", str(seed)]).exit_code == 0
    seeds = {
        GameRecord.loads(p.read_text("utf-8")).seed for p in records_in(data_home) if p.read_text("utf-8")
    }
    assert seeds == {1, 2}


# -- bench, options ------------------------------------------------------------------------------
@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf", "-inf", "1e308", "3601"])
def test_bench_refuses_seconds_that_are_not_a_sensible_duration(
    seconds: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a playout ran")

    monkeypatch.setattr(cli_bench, "run_playouts", never)
    one_line_error(runner.invoke(app, ["bench", "masker", "--seconds", seconds]), "--seconds")


def test_long_inline_json_is_json_not_a_file_name(tmp_path: Path) -> None:
    structure = json.dumps({"name": "Big", "heights": [[1, 2, 3, 2, 1, 1, 2, 3, 2, 1]] * 10})
    assert len(structure) > 255
    record = tmp_path / "game.json"
    args = ["play", "blokus3d", "--structure", "custom", "--custom-structure", "  " + structure]
    result = runner.invoke(app, [*args, "--players", "2", "--seats", "random", "--save", str(record)])
    assert result.exit_code == 0, result.output
    assert json.loads(record.read_text("utf-8"))["options"]["custom_structure"]["name"] == "Big"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b'{"name": "\xff", "heights": ["333"]}', "not UTF-8"),
        (b'{"name": "x", "heights": ' + b"[" * 20_000 + b"]" * 20_000 + b"}", "nested"),
        (b'{"name": "x", "heights": [[' + b"9" * 5000 + b"]]}", "digits"),
    ],
)
def test_a_structure_file_that_cannot_be_used_is_one_line(
    tmp_path: Path, content: bytes, fragment: str
) -> None:
    path = tmp_path / "structure.json"
    path.write_bytes(content)
    args = ["play", "blokus3d", "--structure", "custom", "--custom-structure", str(path), "--seats", "random"]
    one_line_error(runner.invoke(app, args), "custom_structure", fragment)
    toml = tmp_path / "structure.toml"
    toml.write_text("heights = " + "[" * 5000 + "]" * 5000 + "\n", "utf-8")
    one_line_error(runner.invoke(app, [*args[:-3], str(toml)]), "custom_structure")


# -- export, users: the database -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("notaurl", "not a database URL"),
        ("foo://bar", "cannot use the database foo://bar"),
        ("sqlite:////nonexistent-folder/x.db", "no such database file: /nonexistent-folder/x.db"),
    ],
)
def test_export_refuses_a_database_it_cannot_use(url: str, fragment: str) -> None:
    one_line_error(runner.invoke(app, ["export", "abc", "--database", url]), fragment)


def test_export_neither_creates_a_missing_sqlite_file_nor_opens_a_non_database(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite3"
    result = runner.invoke(app, ["export", "abc", "--database", f"sqlite:///{missing}"])
    one_line_error(result, f"no such database file: {missing}")
    assert not missing.exists()
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, but long enough to have a header\n" * 20, "utf-8")
    one_line_error(runner.invoke(app, ["export", "abc", "--database", f"sqlite:///{text}"]), "not a database")
    one_line_error(runner.invoke(app, ["users", "list", "--database", f"sqlite:///{text}"]), "not a database")
    one_line_error(runner.invoke(app, ["chat", "list", "abc", "--database", "foo://bar"]), "foo://bar")


def test_database_errors_do_not_show_the_password() -> None:
    pytest.importorskip("psycopg")
    url = "postgresql+psycopg://user:hunter2@127.0.0.1:1/site"
    result = runner.invoke(app, ["export", "abc", "--database", url])
    one_line_error(result, "postgresql+psycopg://user:***@127.0.0.1:1/site")
    assert "hunter2" not in result.output


def test_a_missing_driver_is_one_line() -> None:
    import importlib.util

    if importlib.util.find_spec("MySQLdb") is not None:
        pytest.skip("the MySQL driver is installed")
    one_line_error(runner.invoke(app, ["export", "abc", "--database", "mysql://u@127.0.0.1:1/x"]), "driver")


def test_export_to_a_file_it_cannot_write_is_one_line(tmp_path: Path) -> None:
    from masques.server.storage import NewMatch, NewSeat, Storage

    url = f"sqlite:///{tmp_path / 'site.sqlite3'}"
    storage = Storage(url)
    storage.migrate()
    game = load_game("masker")
    storage.create_match(
        NewMatch(
            "00000000000000aa", "masker", game.rules_version, dict(game.options), 3, [NewSeat("random")] * 2
        )
    )
    storage.engine.dispose()
    for out in (tmp_path, tmp_path / "missing" / "x.json"):
        result = runner.invoke(app, ["export", "00000000000000aa", "--database", url, "--out", str(out)])
        one_line_error(result, f"cannot write {out}")
    out = tmp_path / "[bold]x.json"
    result = runner.invoke(app, ["export", "00000000000000aa", "--database", url, "--out", str(out)])
    assert result.exit_code == 0 and f"written to {out}" in result.stdout


# -- arena -----------------------------------------------------------------------------------------
def test_arena_out_that_cannot_be_written_is_refused_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr(arena, "run", never)
    blocker = tmp_path / "file"
    blocker.write_text("", "utf-8")
    base = ["arena", "masker", "--bots", "random", "--games", "1", "--workers", "1"]
    one_line_error(runner.invoke(app, [*base, "--out", str(blocker / "x" / "y")]), "--out", "Not a directory")
    (tmp_path / "t.json").mkdir()
    one_line_error(runner.invoke(app, [*base, "--out", str(tmp_path / "t")]), "Is a directory")


def test_arena_group_with_more_bots_than_seats_is_refused() -> None:
    args = ["arena", "masker", "--bots", "random", "--games", "0", "--group", "greedy:random:easy=3"]
    one_line_error(runner.invoke(app, [*args, "--workers", "1"]), "greedy:random:easy", "2 seats")
    with pytest.raises(ValueError, match="2 seats"):
        arena.schedule("masker", {}, ["random"], 0, groups=[(("greedy", "random", "easy"), 3)])


@pytest.mark.parametrize(
    "broken",
    [
        '{"moves": 1e400}',
        '{"returns": []}',
        '{"returns": [NaN, 1.0]}',
        '{"returns": "ab"}',
        '{"returns": [1.0, 0.0, 0.0]}',
        '{"moves": 4.5}',
        "DEEP",
    ],
)
def test_arena_resume_refuses_a_journal_line_with_impossible_values(tmp_path: Path, broken: str) -> None:
    specs = arena.schedule("masker", {"players": 2}, ["random", "greedy"], 2, seed=0)
    good = [
        json.dumps({**_result_json(spec), "moves": 10, "returns": [1.0, 0.0], "scores": [1.0, 0.0]})
        for spec in specs
    ]
    # a later key wins: the broken value replaces the good one
    first = "[" * 100_000 + "]" * 100_000 if broken == "DEEP" else good[0][:-1] + ", " + broken[1:]
    journal = tmp_path / "t.games.jsonl"
    journal.write_text("\n".join([first, *good[1:]]) + "\n", "utf-8")
    args = ["arena", "masker", "--bots", "random,greedy", "--games", "2", "--workers", "1"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "t"), "--resume"])
    one_line_error(result, f"{journal}:1: not a game result")


def _result_json(spec: arena.GameSpec) -> dict[str, Any]:
    return {
        "spec": {
            "game": spec.game,
            "options": spec.options,
            "seats": list(spec.seats),
            "seed": spec.seed,
            "chance": spec.chance,
        }
    }


def test_result_from_json_checks_every_field() -> None:
    spec = _result_json(arena.GameSpec("masker", {}, ("random", "greedy"), 5))
    good = {**spec, "returns": [1, 0], "scores": [1.5, 0], "moves": 7}
    assert arena.result_from_json(good).returns == (1.0, 0.0)
    bad: Any
    for bad in (
        {**good, "returns": [1.0]},
        {**good, "returns": [float("inf"), 0.0]},
        {**good, "scores": [True, 0.0]},
        {**good, "moves": -1},
        {**good, "moves": 1e300},
        {**good, "spec": {**spec["spec"], "seats": "random"}},
        {**good, "spec": {**spec["spec"], "options": []}},
        [],
        None,
    ):
        with pytest.raises(ValueError, match="not a game result"):
            arena.result_from_json(bad)


def test_the_games_listing_shows_the_help_text_as_written() -> None:
    """The consoles interpret no markup, so nothing is escaped either: no stray backslash."""
    result = runner.invoke(app, ["games"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert '"heights": [' in result.stdout and "\\[" not in result.stdout


def test_a_chosen_deal_is_for_one_person_at_most(data_home: Path) -> None:
    """Whoever chose the seed of a game with secrets would know the other people's."""
    refused = runner.invoke(app, ["play", "masker", "--seats", "human,human", "--seed", "1"], input="")
    assert refused.exit_code == 2 and "at most one person" in refused.output
    assert records_in(data_home) == []
    alone = runner.invoke(app, ["play", "masker", "--seats", "human,random", "--seed", "1"], input="quit\n")
    assert alone.exit_code == 0, alone.output
    open_board = runner.invoke(
        app, ["play", "blokus3d", "--players", "2", "--seats", "human,human", "--seed", "1"], input="quit\n"
    )
    assert open_board.exit_code == 0, open_board.output  # nothing hidden: nothing to know


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["serve", "--port", "99999"], "--port is a TCP port, 1 to 65535"),
        (["serve", "--port", "-1"], "--port is a TCP port"),
        (["serve", "--bot-workers", "-3"], "--bot-workers is a number of processes"),
        (["serve", "--port", "8697", "--redis", "redis://127.0.0.1:1/0"], "cannot use Redis at 127.0.0.1:1"),
        (
            ["worker", "--redis", "redis://:hunter2@127.0.0.1:1/0", "--processes", "1"],
            "cannot use Redis at 127.0.0.1:1",
        ),
    ],
)
@pytest.mark.usefixtures("data_home")  # not the user's own database, which a server may be using
def test_serve_and_worker_refuse_what_cannot_work_in_one_line(args: list[str], fragment: str) -> None:
    result = runner.invoke(app, args)
    one_line_error(result, fragment)
    assert "hunter2" not in result.output


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--bot-queue", "foo"], "--bot-queue is one of embedded, redis, not 'foo'"),
        (["--bot-queue", "redis"], "--bot-queue redis needs a Redis URL"),
        (["--db-writer", "fibre"], "--db-writer is one of process, thread, not 'fibre'"),
    ],
)
def test_serve_refuses_a_bad_bot_queue_before_touching_the_database(
    tmp_path: Path, args: list[str], fragment: str
) -> None:
    """A typo in a roll-out stops the server before its database is made or upgraded."""
    database = tmp_path / "site.db"
    refused = runner.invoke(app, ["serve", "--port", "8697", "--database", f"sqlite:///{database}", *args])
    one_line_error(refused, fragment)
    assert list(tmp_path.iterdir()) == []


def test_serve_on_a_port_another_holds_or_an_unknown_host_is_one_line_before_the_start_up(
    tmp_path: Path,
) -> None:
    """Not the whole start-up (migrations, bot workers, resumed matches) and then an exit code with
    the reason in a log line: one line, and no database made."""
    import socket

    database = tmp_path / "site.db"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        refused = runner.invoke(app, ["serve", "--port", str(port), "--database", f"sqlite:///{database}"])
        one_line_error(refused, f"cannot listen on 127.0.0.1:{port}")
    unknown = runner.invoke(
        app, ["serve", "--host", "no-such-host.invalid", "--database", f"sqlite:///{database}"]
    )
    one_line_error(unknown, "--host 'no-such-host.invalid' cannot be listened on")
    assert list(tmp_path.iterdir()) == []


def test_serve_names_an_unreachable_database_without_its_password() -> None:
    pytest.importorskip("psycopg")
    result = runner.invoke(
        app, ["serve", "--port", "8698", "--database", "postgresql+psycopg://al:hunter2@127.0.0.1:1/x"]
    )
    one_line_error(result, "cannot use the database postgresql+psycopg://al:***@127.0.0.1:1/x")
    assert "hunter2" not in result.output


@pytest.mark.parametrize("command", [["users", "list"], ["users", "disable", "bob"], ["chat", "list", "abc"]])
def test_the_operators_tools_do_not_make_a_database_for_a_mistyped_path(
    tmp_path: Path, command: list[str]
) -> None:
    typo = tmp_path / "sitee.db"
    one_line_error(runner.invoke(app, [*command, "--database", f"sqlite:///{typo}"]), "no such database file")
    assert not typo.exists()


def test_serve_help_names_every_kind_of_rate_limit() -> None:
    from masques.server.limits import RATE_DEFAULTS

    text = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "400"}).output
    assert all(kind in text for kind in RATE_DEFAULTS), text


def test_serve_help_names_every_setting_the_server_reads_from_the_environment() -> None:
    """An operator configures by the environment: each variable the server's code reads is in
    ``masques serve --help``, with its flag or in the notes of the settings without one."""
    import re

    import masques.server

    folder = Path(masques.server.__file__).parent
    read = {
        name
        for path in folder.rglob("*.py")
        for name in re.findall(r"MASQUES_[A-Z_]+", path.read_text("utf-8"))
    }
    text = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "400"}).output
    assert read and not {name for name in read if name not in text}, text


@pytest.mark.parametrize("typed", ["²", "9" * 5000, "٣"])
def test_a_number_python_cannot_read_at_the_prompt_is_refused_and_the_game_goes_on(
    typed: str, tmp_path: Path, data_home: Path
) -> None:
    """'²' passes str.isdigit() but not int(), and int() refuses thousands of digits: the prompt says
    no and asks again, and the game is saved when it stops."""
    record = tmp_path / "game.json"
    result = runner.invoke(
        app,
        ["play", "masker", "--seed", "1", "--no-layers", "--save", str(record)],
        input=f"moves\n{typed}\nquit\n",
    )
    assert result.exit_code == 0, (result.output, result.exception)
    assert "Traceback" not in result.output and "Game stopped. Record saved to" in result.stdout
    assert record.is_file()


def test_save_at_the_prompt_writes_where_save_was_given_and_reads_a_home_path(
    tmp_path: Path, data_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    chosen = tmp_path / "chosen.json"
    result = runner.invoke(
        app,
        ["play", "masker", "--seed", "1", "--no-layers", "--save", str(chosen)],
        input="save\nsave ~/mine.json\nsave ~nosuchuser_q7/x.json\nquit\n",
    )
    assert result.exit_code == 0, result.output
    assert f"saved to {chosen}" in result.stdout
    assert (tmp_path / "home" / "mine.json").is_file() and not (Path.cwd() / "~").exists()
    assert "cannot save to '~nosuchuser_q7/x.json'" in result.stdout  # said, and the game went on
    assert records_in(data_home) == []  # nothing written in the records folder besides


def test_an_unfinished_replay_of_a_game_with_secrets_shows_no_scores(tmp_path: Path) -> None:
    """A Masker seat's score counts its colour's crosses: beside the public counts by colour, it
    would tell every seat's colour."""
    path = tmp_path / "half.json"
    path.write_text(played_record("masker", {}, 6).dumps(), "utf-8")
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "game unfinished" in result.stdout and "scores" not in result.stdout
    state, rng = load_game("masker", {}).new_initial_state(1), random.Random(1)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    done = tmp_path / "done.json"
    done.write_text(GameRecord.of(state).dumps(), "utf-8")
    assert "scores [" in runner.invoke(app, ["replay", str(done)]).stdout


# A game started from a terminal's shell gets Ctrl-C: SIGINT neither ignored nor blocked, whatever the
# test process inherited or set for itself (a child inherits both); the game then replaces this.
AS_FROM_A_SHELL = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def _signal_state(pid: int) -> str:
    """The signals a process blocks and ignores, as the kernel says (to explain a failure)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "unknown"
    return " ".join(line for line in lines if line.startswith(("SigBlk", "SigIgn")))


def test_a_terminal_that_hangs_up_stops_the_game_and_saves_it(tmp_path: Path) -> None:
    """Closing the window (SIGHUP) or a kill (SIGTERM) stops a game as Ctrl-C (SIGINT) does: saved,
    and the exit status says which signal stopped it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
        record = tmp_path / f"game-{sig.name}.json"
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
        process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                AS_FROM_A_SHELL,
                "-m",
                "masques.cli.main",
                "play",
                "masker",
                "--seed",
                "1",
                "--save",
                str(record),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b"moves\n")
        process.stdin.flush()
        deadline = time.monotonic() + 60
        seen = b""
        prompt = b"move (help for commands):"
        # the listing, then the prompt again: it waits for a move now
        while not (b"1. " in seen and seen.rstrip().endswith(prompt)) and time.monotonic() < deadline:
            seen += os.read(process.stdout.fileno(), 65536)
        signals = _signal_state(process.pid)
        process.send_signal(sig)
        out, err = process.communicate(timeout=60)
        assert b"Traceback" not in err, err
        assert process.returncode == 128 + sig, (sig.name, process.returncode, signals)  # as a shell says
        assert record.is_file(), (sig.name, out[-500:], err)
        assert json.loads(record.read_text("utf-8"))["game"] == "masker"


def test_a_line_longer_than_any_command_is_refused_without_being_echoed(data_home: Path) -> None:
    """A paste gone wrong gets one short line, whatever its size, and the game goes on."""
    pasted = "a" * 100_000
    result = runner.invoke(
        app, ["play", "masker", "--seed", "1", "--no-layers"], input=f"{pasted}\nmoves {pasted}\nquit\n"
    )
    assert result.exit_code == 0, (result.output, result.exception)
    assert result.stdout.count("characters long") == 2
    assert max(len(line) for line in result.stdout.splitlines()) < 300
    assert "Game stopped. Record saved to" in result.stdout


@pytest.mark.parametrize(("game", "said"), [("nosuch", "unknown game 'nosuch'"), (None, "names no game")])
def test_replay_refuses_a_redacted_record_of_a_game_it_does_not_know(
    tmp_path: Path, game: str | None, said: str
) -> None:
    path = tmp_path / "red.json"
    record: dict[str, Any] = {"format": "masques-redacted-record", "observations": [{"a": 1}]}
    if game is not None:
        record["game"] = game
    path.write_text(json.dumps(record), "utf-8")
    one_line_error(runner.invoke(app, ["replay", str(path)]), str(path), said, "games are: blokus3d")


def test_a_game_option_given_twice_is_refused() -> None:
    """The last value winning would hide a typo in the first."""
    result = runner.invoke(app, ["play", "masker", "--players", "2", "--players", "3"], input="quit\n")
    one_line_error(result, "option 'players' is given twice")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--games", "2", "--workers", "-3"], "--workers is at least 1"),
        (["--games", "2", "--per-pairing", "2"], "--per-pairing replaces --games"),
    ],
)
def test_arena_refuses_counts_that_cannot_both_hold(args: list[str], said: str) -> None:
    one_line_error(runner.invoke(app, ["arena", "masker", "--bots", "random,greedy", *args]), said)


def test_a_terminal_that_cannot_show_the_boards_characters_still_plays(tmp_path: Path) -> None:
    """With an ASCII-only output the board's characters show as '?', not as a traceback."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONIOENCODING": "ascii"}
    done = subprocess.run(
        [sys.executable, "-m", "masques.cli.main", "play", "masker", "--seed", "1"],
        input="help\nquit\n",
        capture_output=True,
        text=True,
        encoding="ascii",
        errors="replace",
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "seat 0 move" in done.stdout and "Game stopped. Record saved to" in done.stdout


def test_a_password_on_standard_input_that_is_not_utf8_is_one_clear_error(tmp_path: Path) -> None:
    """Bytes that are no UTF-8 text reach Python as escapes, which no hash takes: one line, no trace."""
    import subprocess
    import sys

    database = f"sqlite:///{tmp_path / 'site.db'}"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "masques.cli.main",
            "users",
            "create",
            "Xyzzy",
            "--password-stdin",
            "--database",
            database,
        ],
        input=b"\xff\xfeabcdefgh-Pass-77\n",
        check=False,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode().strip() == "masques: error: the password on standard input is not UTF-8 text"


@pytest.mark.parametrize("line_id", ["9223372036854775808", "0", "-5"])
def test_a_chat_line_id_out_of_range_is_a_usage_error(tmp_path: Path, line_id: str) -> None:
    from masques.server.storage import Storage

    storage = Storage(f"sqlite:///{tmp_path / 'site.db'}")
    storage.migrate()
    storage.dispose()
    result = runner.invoke(
        app, ["chat", "delete", "--database", f"sqlite:///{tmp_path / 'site.db'}", "--", line_id]
    )
    assert result.exit_code == 2, (result.output, result.exception)
    assert "Traceback" not in result.output and "line_id" in result.output


def test_a_hot_seat_game_with_hidden_information_is_not_saved_before_its_end(
    tmp_path: Path, data_home: Path
) -> None:
    """A record holds the deal's seed: saved mid-game at a table of several people, it would show
    whoever saved it every other seat's secrets (MK-15), as a chosen --seed would.  It is saved once
    the game has ended or stopped."""
    record = tmp_path / "mid-game.json"
    result = runner.invoke(
        app, ["play", "masker", "--seats", "human,human"], input=f"\nsave {record}\nquit\n"
    )
    assert result.exit_code == 0, result.output
    assert not record.exists()
    assert "not saved before the game ends" in result.stdout
    assert "Game stopped. Record saved to" in result.stdout
    assert len(records_in(data_home)) == 1


def test_only_several_people_in_a_game_that_hides_something_wait_for_the_end_to_save() -> None:
    """One person at the table: the secrets a record holds are the bots' (the same as a chosen
    seed's, which practice allows)."""
    game = load_game("masker")
    out = io.StringIO()
    session = TerminalGame(game, ["human", "random"], 1, Console(file=out), lambda _: "")
    assert not session.hidden_from_a_person()
    both = TerminalGame(game, ["human", "human"], 1, Console(file=out), lambda _: "")
    assert both.hidden_from_a_person()
    assert not TerminalGame(
        load_game("blokus3d"), ["human"] * 4, 1, Console(file=out), str
    ).hidden_from_a_person()
