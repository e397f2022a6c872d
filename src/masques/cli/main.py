"""``masques``: play, list games, replay records, measure speed and solve Blokus 3D puzzles.

Bad input (an unknown game, a bad option value, an unreadable record) is one line on stderr naming
what is allowed, and exit code 2.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..engine import EngineError, GameRecord, game_class, game_names
from . import bench as bench_mod
from .options import load_with_words
from .play import (
    TerminalGame,
    default_record_path,
    load_record_file,
    parse_seats,
    render_observation,
    save_record,
)

app = typer.Typer(
    name="masques",
    help="Masques: Masker, Maske, Mascarade and Blokus 3D, with bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)

GAME_OPTIONS = {"allow_extra_args": True, "ignore_unknown_options": True}


def fail(message: str) -> NoReturn:
    """One line on stderr, exit code 2 (bad input)."""
    err_console.print(f"masques: error: {message}", highlight=False, markup=False, soft_wrap=True)
    raise typer.Exit(2)


@app.command()
def games(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List every game with its options, defaults and allowed values."""
    data: list[dict[str, Any]] = []
    for name in game_names():
        cls = game_class(name)
        data.append(
            {
                "name": name,
                "title": cls.title,
                "rules_version": cls.rules_version,
                "options": [
                    {
                        "name": s.name,
                        "type": s.kind,
                        "default": s.default,
                        "allowed": list(s.choices) if s.choices else s.describe_allowed(),
                        "help": s.help,
                    }
                    for s in cls.option_specs
                ],
            }
        )
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
                escape(opt["help"]),
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
        str, typer.Option(help="Comma-separated seat kinds: human or a bot (random).")
    ] = "human,random",
    seed: Annotated[int, typer.Option(help="Seed of the deal and of the bots.")] = 0,
    save: Annotated[
        Path | None, typer.Option(help="Where to save the record (default: user data dir).")
    ] = None,
    layers: Annotated[bool, typer.Option(help="Also draw the layer-by-layer view.")] = True,
) -> None:
    """Play a game in the terminal.  Game options follow as --name value (e.g. --players 4)."""
    loaded = _load_game(game, list(ctx.args))
    try:
        seat_kinds = parse_seats(seats, loaded.num_players)
    except ValueError as exc:
        fail(str(exc))
    session = TerminalGame(loaded, seat_kinds, seed, console, console.input, show_layers=layers)
    finished = session.run()
    path = save_record(session.record(), save or default_record_path(loaded))
    console.print(("Game over." if finished else "Game stopped.") + f" Record saved to {path}")


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
        fail(f"cannot read {file}: {exc}")
    if data.get("format") == "masques-redacted-record":
        observations = data.get("observations")
        if not isinstance(observations, list) or not observations:
            fail(f"{file}: redacted record has no observations")
        shown = observations if (every or step) else observations[-1:]
        for obs in shown:
            console.print(render_observation(str(data.get("game")), obs))
            if step:
                console.input("Enter for the next move ")
        return
    try:
        record = GameRecord.from_json(data)
    except EngineError as exc:
        fail(f"{file}: {exc}")
    moves: list[str] = []

    def each(state: Any) -> None:
        if state.history:
            moves.append(
                f"{len(state.history)}. seat {previous[0]}: {state.action_to_str(state.history[-1])}"
            )
            console.print(moves[-1])
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
    if not (every or step):
        console.print(render_observation(record.game, final.observation(None)))
    status = "finished" if final.is_terminal() else "unfinished"
    console.print(
        f"{record.game}: {len(record.actions)} moves replayed, game {status}; scores {final.scores()}"
    )


@app.command(context_settings=GAME_OPTIONS)
def bench(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game name.")],
    seconds: Annotated[float, typer.Option(help="Seconds per configuration.")] = 3.0,
    seed: Annotated[int, typer.Option(help="Seed of the playouts.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Random playouts/s, legal-move generations/s and mean legal moves per turn, on one core."""
    try:
        from .options import parse_game_options

        base = parse_game_options(game, list(ctx.args))
        configs = [(label, game_class(game)(opts)) for label, opts in bench_mod.configurations(game, base)]
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


def _advance(progress: Progress, task: TaskID, fraction: float) -> None:
    progress.update(task, completed=fraction)


def main() -> None:
    """Console entry point."""
    try:
        app()
    except EngineError as exc:  # anything the engine refuses that a command did not catch
        err_console.print(f"masques: error: {exc}", highlight=False, markup=False)
        sys.exit(2)


if __name__ == "__main__":
    main()
