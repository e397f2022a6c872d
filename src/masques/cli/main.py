"""``masques``: play, list games, replay records, measure speed, and each game's own commands.

Bad input (an unknown game, a bad option value, an unreadable record) is one line on stderr naming
what is allowed, and exit code 2.  A game's terminal part may add commands (a named typer group,
e.g. Blokus 3D's ``masques solve``); they are mounted here, at the top level, from the registry.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import signal
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console, RenderableType
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ..engine import EngineError, GameRecord, game_catalogue, game_class, game_names
from ..engine.chance import CHANCE_VERSION, CHANCE_VERSIONS, check_seed, new_secret
from ..extras import available
from . import bench as bench_mod
from .chat import app as chat_app
from .files import check_writable, reason
from .options import load_with_words
from .output import console, err_console, fail, printable, printable_json, progress_bar, warn
from .parts import DEFAULT as DEFAULT_PART
from .parts import render_observation, terminal_part
from .play import TerminalGame, load_record_file, parse_seats, save_record
from .users import Database
from .users import app as users_app

app = typer.Typer(
    name="masques",
    help="Masques: mask board games ('masques games' lists them), with bots and a game server.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

GAME_OPTIONS = {"allow_extra_args": True, "ignore_unknown_options": True}


@app.command()
def games(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List every game with its options, defaults and allowed values."""
    data: list[dict[str, Any]] = game_catalogue(open_options_as_text=True)
    if as_json:
        print(json.dumps(data, indent=2))
        return
    for entry in data:
        table = Table(title=f"{entry['title']} ({entry['name']}, rules v{entry['rules_version']})")
        for col in ("option", "default", "allowed", "meaning"):
            table.add_column(col)
        for opt in entry["options"]:
            allowed = opt["allowed"]
            table.add_row(
                "--" + opt["name"].replace("_", "-"),
                json.dumps(opt["default"]),
                ", ".join(map(str, allowed)) if isinstance(allowed, list) else str(allowed),
                Text(opt["help"]),
            )
        console.print(table)


def _load_game(game: str, words: list[str]) -> Any:
    try:
        return load_with_words(game, words)
    except EngineError as exc:
        fail(str(exc))


@app.command(context_settings=GAME_OPTIONS)
def play(  # noqa: PLR0917 - typer maps parameters to options
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game name (see 'masques games').")],
    seats: Annotated[
        str,
        typer.Option(
            help="Comma-separated seat kinds: human, random, greedy, easy, medium, hard, expert, openspiel"
            " (default: you, then random bots)."
        ),
    ] = "",
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the deal and of the bots, 0 to 2**256 - 1 (default: 256 random bits, "
            "drawn with the secrets module; the record keeps it)."
        ),
    ] = None,
    save: Annotated[
        Path | None, typer.Option(help="Where to save the record (default: user data dir).")
    ] = None,
    layers: Annotated[bool, typer.Option(help="Also draw the layer-by-layer view.")] = True,
) -> None:
    """Play a game in the terminal.  Game options follow as --name value (e.g. --players 4)."""
    loaded = _load_game(game, list(ctx.args))
    try:
        seat_kinds = parse_seats(seats, loaded.num_players)
        deal = new_secret() if seed is None else check_seed(seed)
    except ValueError as exc:
        fail(str(exc))
    people = seat_kinds.count("human")
    if seed is not None and people > 1 and loaded.hidden_information and not _any_seed():
        fail(
            f"--seed: a chosen deal is for practice with at most one person at the table ({people} "
            "here): whoever chose it would know the others' secrets"
        )
    if save is not None:
        try:
            check_writable(save)
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
            fail(f"--save {save}: cannot write a file there ({_why(exc)})")
    session = TerminalGame(
        loaded, seat_kinds, deal, console, console.input, show_layers=layers, save_path=save
    )
    with _stops_like_ctrl_c() as signals:
        finished = session.run() or session.state.is_terminal()
    path, trouble = _save_at_end(session, save)
    with contextlib.suppress(OSError):  # the terminal may be gone (closed window): the file is written
        console.print(
            Text(
                ("Game over." if finished else "Game stopped.") + f" Record saved to {printable(str(path))}"
            ),
            soft_wrap=True,
        )
    if trouble:
        raise typer.Exit(1)
    if session.interrupted and not finished:  # as a shell reports a program a signal stopped
        raise typer.Exit(128 + (signals[0] if signals else signal.SIGINT))


@contextlib.contextmanager
def _stops_like_ctrl_c() -> Iterator[list[int]]:
    """A closed terminal window, a dropped SSH session (SIGHUP) or a kill (SIGTERM) stops the game
    as Ctrl-C does, so that its record is saved; the signals that came are listed."""
    signals: list[int] = []

    def interrupt(signum: int, frame: Any) -> None:
        signals.append(signum)
        raise KeyboardInterrupt

    stops = [getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name)]
    before = {sig: signal.signal(sig, interrupt) for sig in stops}
    try:
        yield signals
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _any_seed() -> bool:
    """``MASQUES_ANY_SEED=1``: a chosen deal for any table, as the server allows it (an event whose
    tables all play the same cards, a test that replays a hot-seat game)."""
    return os.environ.get("MASQUES_ANY_SEED", "").strip().lower() in ("1", "true", "yes")


def _why(exc: Exception) -> str:
    return reason(exc) if isinstance(exc, OSError) else str(exc)


def _save_at_end(session: TerminalGame, save: Path | None) -> tuple[Path, bool]:
    """Save the game's record to ``save``, or else to the records folder; whether ``save`` failed.
    It fails in one line if neither can be written."""
    record = session.record()
    if save is not None:
        try:
            return save_record(record, save), False
        except (OSError, ValueError) as exc:
            warn(f"cannot save the record to {save} ({_why(exc)}): saving it in the records folder instead")
    try:
        return save_record(record, session.record_path()), save is not None
    except OSError as exc:
        sys.stderr.write(record.dumps() + "\n")  # the game is not lost: it can be copied from here
        fail(f"cannot save the record in the records folder either ({_why(exc)}); it is printed above")


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A record saved by 'masques play' or the server.")],
    every: Annotated[bool, typer.Option(help="Draw the position after every move.")] = False,
    step: Annotated[bool, typer.Option(help="Wait for Enter between moves.")] = False,
) -> None:
    """Replay a game record (full, or redacted for one seat) move by move."""
    try:
        data = load_record_file(file)
    except (OSError, ValueError) as exc:
        fail(f"cannot read {file}: {_why(exc)}")
    if data.get("format") == "masques-redacted-record":
        _replay_redacted(file, printable_json(data), every=every, step=step)
        return
    try:
        record = GameRecord.from_json(data)
    except EngineError as exc:
        fail(f"{file}: {exc}")
    except RecursionError:
        fail(f"{file}: not a game record (nested too deeply)")
    moves: list[str] = []

    def each(state: Any) -> None:
        if state.history:
            moves.append(
                f"{len(state.history)}. seat {previous[0]}: {state.action_to_str(state.history[-1])}"
            )
            console.print(Text(moves[-1]))
        previous[0] = state.current_player
        if every or step:
            console.print(render_observation(record.game, state.observation(None)))
            if step and not state.is_terminal():
                console.input("Enter for the next move ")

    previous: list[Any] = [None]
    try:
        final = record.replay(each)
    except EngineError as exc:
        fail(f"{file}: {exc}")
    except EOFError:  # --step and the input ended: stop there
        console.print()
        return
    if not (every or step):
        console.print(render_observation(record.game, final.observation(None)))
    status = "finished" if final.is_terminal() else "unfinished"
    # Scores mid-game can give away what the board hides (a Masker seat's score is its colour's
    # crosses): shown only once the game is over, or for a game that hides nothing.
    scores = f"; scores {final.scores()}" if final.is_terminal() or not final.game.hidden_information else ""
    console.print(Text(f"{record.game}: {len(record.actions)} moves replayed, game {status}{scores}"))


def _replay_redacted(file: Path, data: dict[str, Any], *, every: bool, step: bool) -> None:
    """Draw a redacted record's observations (all, or the last), each checked before any is shown:
    the file is not trusted (its text has been through ``printable_json``)."""
    observations = data.get("observations")
    if not isinstance(observations, list) or not observations:
        fail(f"{file}: redacted record has no observations")
    game = data.get("game")
    if not isinstance(game, str) or game not in game_names():
        named = "names no game" if game is None else f"names an unknown game {printable(str(game)[:40])!r}"
        fail(f"{file}: redacted record {named}; games are: {', '.join(sorted(game_names()))}")
    first = 0 if (every or step) else len(observations) - 1
    drawings = [_checked_drawing(file, game, observations, n) for n in range(first, len(observations))]
    for drawing in drawings:
        console.print(drawing)
        if step:
            try:
                console.input("Enter for the next move ")
            except EOFError:
                console.print()
                return


def _checked_drawing(file: Path, game: str, observations: list[Any], number: int) -> RenderableType:
    """The drawing of ``observations[number]``, drawn once off screen: an observation the game's
    board cannot draw (fields missing or of the wrong type) is refused in one line."""
    obs = observations[number]
    try:
        if not isinstance(obs, dict) and terminal_part(game) is not DEFAULT_PART:
            raise TypeError("not an object")
        drawing = render_observation(game, obs)
        scratch = Console(file=io.StringIO(), width=console.width, markup=False, emoji=False)
        scratch.print(drawing)
    except Exception:  # whatever the board trips on: the file is at fault, not the program
        fail(f"{file}: observation {number + 1} of {len(observations)} is not a {game} observation")
    return drawing


@app.command()
def migrate(database: Database = None) -> None:
    """Upgrade the database's schema to this release's (an empty database gets it whole).

    `masques serve` does this as it starts; the other commands on the database refuse an older
    schema rather than change it under servers of the release before.  Back the database up first
    (`sqlite3 FILE ".backup COPY"`, `pg_dump`)."""
    from .users import _storage

    storage = _storage(database, existing=True, upgrade=True)
    try:
        current, _head, _older = storage.schema()
    finally:
        storage.dispose()
    console.print(f"the database's schema is at revision {current}, this release's")


@app.command()
def export(
    match_id: Annotated[str, typer.Argument(help="The match's id (as in its address).")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the record to this file (default: standard output).")
    ] = None,
    database: Database = None,
) -> None:
    """Write a stored match's full record (seed and every action) from the server's database.

    The operator's copy, for a dispute or a study: it shows all that the game keeps hidden, where
    the site gives out only what a seat or a spectator saw (and full records only of games that
    hide nothing after the end).  `masques replay` plays it back."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from .users import _storage, database_failed

    storage = _storage(database, existing=True)
    try:
        record = storage.record(match_id)
    except SQLAlchemyError as exc:
        database_failed(make_url(storage.url), exc)
    if record is None:
        fail(f"no match {match_id!r}")
    if out is None:
        sys.stdout.write(record.dumps() + "\n")
        return
    try:
        out.write_text(record.dumps() + "\n", "utf-8")
    except (OSError, ValueError) as exc:
        fail(f"cannot write {out}: {_why(exc)}")
    console.print(
        Text(f"{record.game}: {len(record.actions)} actions written to {printable(str(out))}"), soft_wrap=True
    )


MAX_BENCH_SECONDS = 3600
"""The longest ``bench --seconds`` (per configuration)."""


@app.command(context_settings=GAME_OPTIONS)
def bench(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game name.")],
    seconds: Annotated[float, typer.Option(help="Seconds per configuration.")] = 3.0,
    seed: Annotated[int, typer.Option(help="Seed of the playouts.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Random playouts/s, legal-move generations/s and mean legal moves per turn, on one core."""
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_BENCH_SECONDS):
        fail(
            f"--seconds must be a number of seconds above 0 and at most {MAX_BENCH_SECONDS} (got {seconds:g})"
        )
    try:
        from .options import parse_game_options

        base = parse_game_options(game, list(ctx.args))
        cls = game_class(game)
        configs = [(label, cls(opts)) for label, opts in cls.bench_configurations(base)]
    except EngineError as exc:
        fail(str(exc))
    results = []
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    ) as progress:
        for label, loaded in configs:
            task = progress.add_task(label, total=1.0)
            results.append(
                bench_mod.run_playouts(
                    loaded,
                    seconds=seconds,
                    seed=seed,
                    label=label,
                    progress=partial(_advance, progress, task),
                )
            )
    if as_json:
        print(json.dumps([r.as_dict() for r in results], indent=2))
        return
    table = Table(title=f"{game}: random playouts on one core ({seconds:g} s each)")
    for col in ("configuration", "playouts/s", "generations/s", "mean legal moves", "moves/game"):
        table.add_column(col, justify="right")
    for r in results:
        table.add_row(
            r.label,
            f"{r.playouts_per_second:,.0f}",
            f"{r.generations_per_second:,.0f}",
            f"{r.mean_legal_moves:,.1f}",
            f"{r.mean_length:.1f}",
        )
    console.print(table)


@app.command(context_settings=GAME_OPTIONS)
def arena(  # noqa: PLR0917 - typer maps parameters to options
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game name.")],
    bots: Annotated[
        str, typer.Option(help="Comma-separated bots: random, greedy, easy, medium, hard, expert, openspiel.")
    ] = ("hard,medium,greedy,random"),
    games: Annotated[
        int, typer.Option(help="Number of games (at least one per seating; 0 with --group: only those).")
    ] = 40,
    per_pairing: Annotated[
        int | None,
        typer.Option(help="Instead of --games: this many games for every choice of distinct bots."),
    ] = None,
    group: Annotated[
        list[str] | None,
        typer.Option(
            help="Extra games for one table of bots, e.g. 'expert:hard=40' (repeatable); a bot named only "
            "here plays only these games."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the first game; game i uses seed + i.")] = 0,
    chance: Annotated[
        int,
        typer.Option(help="Version of the chance generator (1: the one of tables written before version 2)."),
    ] = CHANCE_VERSION,
    workers: Annotated[int, typer.Option(help="Local processes (default: one per core).")] = 0,
    out: Annotated[Path | None, typer.Option(help="Write OUT.json, OUT.csv and OUT.png.")] = None,
    ray: Annotated[str | None, typer.Option(help="Run the games on the Ray cluster at ADDRESS.")] = None,
    resume: Annotated[
        bool, typer.Option(help="Go on from OUT.games.jsonl, the games a stopped run with --out finished.")
    ] = False,
) -> None:
    """Bots play each other in every seating; OpenSkill (Plackett-Luce) rates them.

    With --out, each finished game is also appended to OUT.games.jsonl at once, so a long run that
    is stopped loses nothing: the same command with --resume plays only the games still missing
    (with unchanged bots, the same games give the same results).  The journal is removed once the
    table is written."""
    from ..ai import arena as arena_mod
    from ..ai import make_bot
    from .options import parse_game_options

    try:
        options = parse_game_options(game, list(ctx.args))
        loaded = game_class(game)(options)
    except EngineError as exc:
        fail(str(exc))
    kinds = [b.strip() for b in bots.split(",") if b.strip()]
    groups = [_parse_group(text) for text in group or []]
    if not kinds or games < (0 if groups else 1) or (per_pairing is not None and per_pairing < 1):
        fail("--bots needs a bot, --games at least 1 (0 with --group) and --per-pairing at least 1")
    games_given = getattr(ctx.get_parameter_source("games"), "name", None) == "COMMANDLINE"
    if per_pairing is not None and games_given:
        fail("--per-pairing replaces --games: give one of them")
    if workers < 0:
        fail("--workers is at least 1 (0: one per core)")
    try:
        for kind in {*kinds, *(k for g, _ in groups for k in g)}:
            make_bot(kind, game)
    except ValueError as exc:
        fail(str(exc))
    if chance not in CHANCE_VERSIONS:
        fail(f"--chance must be one of {', '.join(map(str, CHANCE_VERSIONS))} (got {chance})")
    if resume and out is None:
        fail("--resume goes on from the journal of --out: give the same --out as the stopped run")
    for names, _count in groups:
        if len(names) > loaded.num_players:
            fail(
                f"--group {':'.join(names)} names {len(names)} bots; {game} has {loaded.num_players} "
                f"seats (with these options): name at most {loaded.num_players}"
            )
    try:
        specs = arena_mod.schedule(
            game, loaded.options, kinds, games, seed, per_pairing=per_pairing, groups=groups, chance=chance
        )
    except ValueError as exc:
        fail(f"too many games: {exc}")
    if specs:  # games are seeded --seed, --seed + 1, ...: the last one's must be a seed too
        try:
            check_seed(specs[0].seed)
        except ValueError as exc:
            fail(f"--seed: {exc}")
        try:
            check_seed(specs[-1].seed)
        except ValueError:
            fail(
                f"--seed: game k is dealt --seed + k, and the last of these {len(specs)} games would "
                f"pass 2**256 - 1: take a --seed at most {2**256 - len(specs)}"
            )
    if ray is not None:
        needs_extra("ray", "--ray")
    journal: arena_mod.Journal | None = None
    kept: list[arena_mod.GameResult] = []
    if out is not None:
        try:  # before any game: the table's files must be writable at the end
            journal = arena_mod.Journal(out.with_suffix(".games.jsonl"))
            for suffix in (".json", ".csv", ".png"):
                check_writable(out.with_suffix(suffix))
        except (OSError, ValueError) as exc:
            fail(f"--out {out}: cannot write {_path_of(exc, out)} ({_why(exc)})")
    if journal is not None:
        if resume:
            try:
                kept = journal.load(specs)
            except (OSError, ValueError) as exc:
                fail(str(exc))
            err_console.print(f"resuming: {len(kept)} of {len(specs)} games already played ({journal.path})")
        elif journal.path.exists():
            err_console.print(f"starting again: {journal.path} is replaced (--resume goes on from it)")
        try:
            journal.start(kept)
        except (OSError, ValueError) as exc:
            fail(f"--out {out}: cannot write the journal {journal.path} ({_why(exc)})")
    done = {arena_mod.journal_key(r.spec) for r in kept}
    todo = [spec for spec in specs if arena_mod.journal_key(spec) not in done]
    report = _progress_reporter(len(specs), len(kept))
    with progress_bar() as progress:
        task = progress.add_task(f"{game} games", total=len(specs), completed=len(kept))

        def show(finished: int, _total: int) -> None:
            progress.update(task, completed=len(kept) + finished)
            report(len(kept) + finished)

        try:
            results = kept + arena_mod.run(
                todo,
                workers=workers or None,
                progress=show,
                ray_address=ray,
                on_result=journal.add if journal is not None else None,
            )
        except arena_mod.RayUnreachableError as exc:
            fail(str(exc))
    rows = arena_mod.table(arena_mod.rate(results))
    table = Table(title=f"{game} arena: {len(results)} games, OpenSkill Plackett-Luce")
    for col in ("bot", "mu", "sigma", "ordinal", "games", "win rate"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(
            str(r["bot"]),
            f"{r['mu']:.2f}",
            f"{r['sigma']:.2f}",
            f"{r['ordinal']:.2f}",
            str(r["games"]),
            f"{float(r['win_rate']):.1%}",
        )
    console.print(table)
    if out is not None:
        size = [f"--per-pairing {per_pairing}"] if per_pairing is not None else [f"--games {games}"]
        extras = [f"--group {g}" for g in group or []]
        command = "masques arena " + " ".join(
            [game, *ctx.args, f"--bots {bots}", *size, *extras, f"--seed {seed}", f"--chance {chance}"]
        )
        meta = {
            "title": f"{game} {loaded.options}",
            "game": game,
            "options": loaded.options,
            "command": command,
            "chance": chance,
            "games": len(results),
            "results": arena_mod.results_json(results),
        }
        try:
            written = arena_mod.write_outputs(rows, meta, out)
        except OSError as exc:
            kept_in = f"; the games are kept in {journal.path} (--resume)" if journal is not None else ""
            fail(f"cannot write {_path_of(exc, out)} ({_why(exc)}){kept_in}")
        for path in written:
            console.print(Text(f"wrote {printable(str(path))}"), soft_wrap=True)
        if not available("matplotlib"):
            err_console.print("no rating plot (.png): it needs matplotlib: pip install 'masques[plots]'")
        if journal is not None:
            journal.remove()


def _path_of(exc: Exception, default: Path) -> str:
    """The file an OSError is about, or ``default``."""
    name = getattr(exc, "filename", None)
    return str(name) if name else str(default)


def _progress_reporter(total: int, start: int) -> Callable[[int], None]:
    """Where the bar cannot be drawn (output to a file or a pipe), a line every 5% of the games."""
    if err_console.is_terminal:
        return lambda _done: None
    step = max(1, total // 20)
    last = [start]

    def report(done: int) -> None:
        if done - last[0] >= step or done == total:
            last[0] = done
            err_console.print(f"{done}/{total} games", highlight=False)

    return report


def _parse_group(text: str) -> tuple[tuple[str, ...], int]:
    """'expert:hard=40' -> (('expert', 'hard'), 40); a clear error otherwise."""
    names, sep, count = text.partition("=")
    bots = tuple(b.strip() for b in names.split(":") if b.strip())
    if not sep or not count.strip().isdigit() or int(count) < 1 or not bots:
        fail(f"--group takes BOT:BOT...=GAMES, e.g. expert:hard=40 (got {text!r})")
    return bots, int(count)


def default_database_url() -> str:
    """A SQLite file in the user's data directory."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("masques"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'masques.sqlite3'}"


LogLevel = Annotated[
    str,
    typer.Option(
        envvar="MASQUES_LOG_LEVEL", help="Least severe log lines written: debug, info, warning, error."
    ),
]
LogFormat = Annotated[
    str,
    typer.Option(envvar="MASQUES_LOG_FORMAT", help="Log lines as 'json' (one object per line) or 'text'."),
]


def start_logs(level: str, fmt: str) -> None:
    """Check the log options and set the process's logging up (the server's and the workers')."""
    from ..server.logs import configure

    if fmt not in ("json", "text") or level.lower() not in ("debug", "info", "warning", "error"):
        fail("--log-format is json or text; --log-level is debug, info, warning or error")
    configure(level, fmt)


SERVE_ENVIRONMENT_ONLY = (
    "Set in the environment only: MASQUES_ABANDONED_BOT, the bot level that takes over an abandoned "
    "seat or a seat out of time (random, greedy, easy, medium, hard, expert; default medium); "
    "MASQUES_ANY_SEED=1, a chosen seed accepted for any match (an event dealing the same cards at "
    "every table; default: only where at most one seat is a person; the end of one such table shows "
    "its hands, and so those of every table dealt alike; draw the seed at random, 128 bits or more, "
    "since a small one can be found by trying seeds)."
)


@app.command(epilog=SERVE_ENVIRONMENT_ONLY)
def serve(  # noqa: PLR0917 - one parameter per command-line option
    host: Annotated[str, typer.Option(envvar="MASQUES_HOST", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(envvar="MASQUES_PORT", help="TCP port (1 to 65535).")] = 8000,
    database: Annotated[
        str | None,
        typer.Option(
            envvar="MASQUES_DATABASE_URL", help="SQLAlchemy URL (default: SQLite in the user data dir)."
        ),
    ] = None,
    bot_workers: Annotated[
        int,
        typer.Option(
            envvar="MASQUES_BOT_WORKERS",
            help="Processes for bots (default: one per core but one, at least two); with --bot-queue "
            "redis, the bots run in `masques worker` processes instead.",
        ),
    ] = 0,
    bot_queue: Annotated[
        str,
        typer.Option(
            envvar="MASQUES_BOT_QUEUE",
            help="Where bots think: 'embedded' (this server's own processes) or 'redis' (`masques "
            "worker` processes on any machine, fed through the Redis of --redis).",
        ),
    ] = "embedded",
    redis: Annotated[
        str | None,
        typer.Option(
            envvar="MASQUES_REDIS_URL", help="Redis URL: several servers on one database share matches."
        ),
    ] = None,
    db_writer: Annotated[
        str | None,
        typer.Option(
            envvar="MASQUES_DB_WRITER",
            help="Where this server writes to its database: 'process' (a process of its own, the "
            "default on a SQLite file) or 'thread' (a thread of the server's process, the default "
            "on PostgreSQL).",
        ),
    ] = None,
    rate_limits: Annotated[
        str | None,
        typer.Option(
            envvar="MASQUES_RATE_LIMITS",
            help="Per-client rate limits: 'off', or kind=limit pairs over the defaults, e.g. "
            "'create=5/minute,read=120/minute' (kinds: api, create, join, read, connect, message, "
            "login, signup, chat, analysis).",
        ),
    ] = None,
    max_bot_matches: Annotated[
        int | None,
        typer.Option(
            envvar="MASQUES_MAX_BOT_MATCHES", help="Matches with bots one client may have at once (3)."
        ),
    ] = None,
    max_spectators: Annotated[
        int | None,
        typer.Option(envvar="MASQUES_MAX_SPECTATORS", help="Spectators one match accepts (200)."),
    ] = None,
    bot_timeout: Annotated[
        float | None,
        typer.Option(
            envvar="MASQUES_BOT_TIMEOUT",
            help="Seconds a bot decision may take before it is retried, then played a level lower (60).",
        ),
    ] = None,
    grace_seconds: Annotated[
        float | None,
        typer.Option(
            envvar="MASQUES_GRACE_SECONDS",
            help="Seconds a player may be away from a running match before the others may give the seat "
            "to a bot or claim the match; alone, a bot takes it by itself (120).",
        ),
    ] = None,
    open_expiry_seconds: Annotated[
        float | None,
        typer.Option(
            envvar="MASQUES_OPEN_EXPIRY_SECONDS",
            help="Seconds an open match waits for players before it expires and leaves the lobby (86400).",
        ),
    ] = None,
    leaderboard_min_games: Annotated[
        int | None,
        typer.Option(
            envvar="MASQUES_LEADERBOARD_MIN_GAMES",
            help="Rated games an account needs to appear on the leaderboards (5).",
        ),
    ] = None,
    analysis_level: Annotated[
        str | None,
        typer.Option(
            envvar="MASQUES_ANALYSIS_LEVEL",
            help="The bot level that analyses finished matches: easy, medium, hard or expert (expert).",
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            envvar="MASQUES_FORWARDED_ALLOW_IPS",
            help="Addresses of the reverse proxies whose X-Forwarded-For names the client (comma "
            "separated, '*' for any): behind a proxy, limits and the bots' queue count each client.",
        ),
    ] = "127.0.0.1",
    ws_compression: Annotated[
        bool,
        typer.Option(
            envvar="MASQUES_WS_COMPRESSION",
            help="Compress WebSocket messages (permessage-deflate): views of a few kilobytes shrink "
            "to a fraction, at a CPU cost per message that outweighs everything else a move costs the "
            "server; for sites whose players' bandwidth is scarcer than the server's CPU.",
        ),
    ] = False,
    log_level: LogLevel = "info",
    log_format: LogFormat = "json",
) -> None:
    """Run the game server: lobby, live matches over WebSocket, bots, durable storage."""
    import uvicorn

    from ..extras import MissingExtraError
    from ..server.app import MAX_MESSAGE, create_app
    from ..server.commits import WRITERS
    from ..server.limits import Limits
    from ..server.matches import BOT_QUEUES
    from ..server.protocol import http_protocol, ws_protocol
    from ..server.storage import DatabaseInUseError, FileOwner

    url = database or default_database_url()
    if not 1 <= port <= 65535:
        fail(f"--port is a TCP port, 1 to 65535, not {port}")
    can_listen(host, port)  # before the start-up's work, not after it
    if bot_workers < 0:
        fail("--bot-workers is a number of processes, at least 1 (0: the default)")
    # Checked before the database is touched: a typo must not upgrade the schema and then stop.
    if bot_queue not in BOT_QUEUES:
        fail(f"--bot-queue is one of {', '.join(BOT_QUEUES)}, not {bot_queue!r}")
    if bot_queue == "redis" and not redis:
        fail("--bot-queue redis needs a Redis URL (--redis or MASQUES_REDIS_URL)")
    if db_writer is not None and db_writer not in WRITERS:
        fail(f"--db-writer is one of {', '.join(WRITERS)}, not {db_writer!r}")
    try:
        limits = Limits.from_env(
            rates=rate_limits,
            max_bot_matches=max_bot_matches,
            max_spectators=max_spectators,
            bot_timeout=bot_timeout,
            grace_seconds=grace_seconds,
            open_expiry_seconds=open_expiry_seconds,
            leaderboard_min_games=leaderboard_min_games,
            analysis_level=analysis_level,
        )
    except ValueError as exc:
        fail(str(exc))
    from .users import _storage, database_url

    database_url(url)  # a URL that does not parse: one line, before anything uses it
    start_logs(log_level, log_format)
    probe = FileOwner(url)  # the app holds it for its life; this only turns a refusal into one clear line
    try:
        probe.acquire()
    except DatabaseInUseError as exc:
        err_console.print(f"masques: error: {exc}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(1) from None
    probe.release()
    # The database and Redis answer, or one line says why (not a traceback from the start-up).
    if bot_queue == "redis":
        needs_extra("arq", "--bot-queue redis")  # its extra brings Redis's client too
    if redis:
        reachable_redis(redis, "--redis")
    _storage(url, upgrade=True).dispose()
    try:
        server = create_app(
            url,
            bot_workers=bot_workers or None,
            redis_url=redis,
            limits=limits,
            bot_queue=bot_queue,
            writer=db_writer,
            settle_heap=True,  # this process is the server's alone
        )
    except (MissingExtraError, ValueError) as exc:
        fail(str(exc))
    from sqlalchemy.engine import make_url

    shown = make_url(url).render_as_string(hide_password=True)
    announce(f"Masques server on http://{host}:{port}  (database: {shown})")
    uvicorn.run(
        server,
        host=host,
        port=port,
        http=http_protocol(),
        ws=ws_protocol(),
        ws_max_size=MAX_MESSAGE * 4,
        ws_per_message_deflate=ws_compression,
        proxy_headers=True,
        forwarded_allow_ips=forwarded_allow_ips,
        log_config=None,  # logs.configure's handlers, for uvicorn's lines too
        access_log=False,  # the server writes its own, without query strings
    )


def can_listen(host: str, port: int) -> None:
    """One clear line, and no start-up, when the address cannot be listened on: a host that does
    not resolve, a port another server holds, one this user may not open.  (The server binds it
    again as it starts, with the same options.)"""
    import socket

    try:
        family, kind, protocol, _, address = socket.getaddrinfo(  # the family the server binds
            host,
            port,
            family=socket.AF_INET6 if ":" in host else socket.AF_INET,
            type=socket.SOCK_STREAM,
            flags=socket.AI_PASSIVE,
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        fail(f"--host {host!r} cannot be listened on: {getattr(exc, 'strerror', None) or exc}")
    with socket.socket(family, kind, protocol) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            shown = f"[{host}]" if ":" in host else host
            fail(f"cannot listen on {shown}:{port}: {exc.strerror or exc}")


@app.command()
def worker(
    redis: Annotated[
        str | None,
        typer.Option(envvar="MASQUES_REDIS_URL", help="Redis URL of the servers' bot queue (required)."),
    ] = None,
    processes: Annotated[
        int,
        typer.Option(
            envvar="MASQUES_BOT_PROCESSES",
            help="Bot decisions thought at once, one process each (default: one per core); a process "
            "that dies is replaced.",
        ),
    ] = 0,
    log_level: LogLevel = "info",
    log_format: LogFormat = "json",
) -> None:
    """Think for the bots of servers started with --bot-queue redis: run as many as you like, on any
    machine that reaches their Redis; each adds bot capacity."""
    import os

    from ..extras import MissingExtraError
    from ..server.bot_queue import run_workers

    if not redis:
        fail("masques worker needs the servers' Redis: --redis URL (or MASQUES_REDIS_URL)")
    if processes < 0:
        fail("--processes is a number of processes, at least 1")
    start_logs(log_level, log_format)
    count = processes or os.cpu_count() or 1
    needs_extra("arq", "masques worker")  # its extra brings Redis's client too
    reachable_redis(redis, "--redis")
    try:
        announce(f"Masques bot workers: {count} on {redis_location(redis)}")
        run_workers(redis, count, logs=(log_level, log_format))
    except MissingExtraError as exc:
        fail(str(exc))


def announce(text: str) -> None:
    """What a server or worker says as it starts: a log line like all the others (JSON where the
    logs are, so a log collector reads every line), and on a terminal also plain for the eye."""
    import logging

    logging.getLogger("masques.cli").info(text)
    if sys.stdout.isatty():
        console.print(Text(text), soft_wrap=True)


def needs_extra(module: str, purpose: str) -> None:
    """Fail with one line naming the extra to install unless ``module`` is installed."""
    from ..extras import MissingExtraError, require

    try:
        require(module, purpose)
    except MissingExtraError as exc:
        fail(str(exc))


def reachable_redis(url: str, option: str) -> None:
    """Fail with one line unless Redis answers at ``url`` (its password never shown)."""
    needs_extra("redis", option)
    import redis as redis_client

    try:
        client = redis_client.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        client.ping()
        client.close()
    except (redis_client.RedisError, ValueError, OSError) as exc:
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        fail(f"cannot use Redis at {redis_location(url)}: {why}")


def redis_location(url: str) -> str:
    """Host, port and database of a Redis URL, without its password."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}:{parts.port or 6379}{parts.path or ''}"


def _advance(progress: Progress, task: TaskID, fraction: float) -> None:
    progress.update(task, completed=fraction)


def command_names(typer_app: typer.Typer) -> set[str]:
    """The names a typer app's commands and groups answer to."""
    names = {
        info.name if isinstance(info.name, str) else info.callback.__name__.lower().replace("_", "-")
        for info in typer_app.registered_commands
        if info.callback is not None
    }
    for group in typer_app.registered_groups:
        name = group.name
        if not isinstance(name, str) and group.typer_instance is not None:
            name = group.typer_instance.info.name
        if isinstance(name, str):
            names.add(name)
    return names


def add_game_commands(typer_app: typer.Typer) -> None:
    """Mount each game's extra commands (its terminal part's ``app``) at the top level; a name that
    is already taken is refused, naming the game."""
    for name in game_names():
        extra = terminal_part(name).app
        if extra is None:
            continue
        group = extra.info.name
        if not isinstance(group, str):
            raise ValueError(f"game {name!r}: the terminal part's app needs a name (typer.Typer(name=...))")
        if group in command_names(typer_app):
            raise ValueError(f"game {name!r}: the command name {group!r} is already taken")
        typer_app.add_typer(extra)


app.add_typer(users_app)
app.add_typer(chat_app)
add_game_commands(app)


def _tolerate_narrow_encodings() -> None:
    """A terminal whose encoding lacks the boards' characters (``PYTHONIOENCODING=ascii``) shows
    them as ``?`` rather than ending the game on the first one."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")


def main() -> None:
    """Console entry point."""
    _tolerate_narrow_encodings()
    try:
        app()
    except EngineError as exc:  # anything the engine refuses that a command did not catch
        err_console.print(f"masques: error: {exc}", highlight=False, markup=False)
        sys.exit(2)


if __name__ == "__main__":
    main()
