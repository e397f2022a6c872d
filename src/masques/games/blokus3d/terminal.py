"""Blokus 3D in the terminal (its "terminal" part): a height map and a layer-by-layer view, the move
notation, ``show PIECE`` at the move prompt, and the solitaire commands (``masques solve cube``).

The drawing reads the observation dict only (what a seat may see), never the engine state.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ...cli.output import console, fail, progress_bar
from ...cli.parts import Command, TerminalPart
from .pieces import ORIENTATIONS_BY_PIECE, PIECE_IDS, PIECE_NAMES

FILES = "abcdefghij"
STYLE = {
    "b": "bold white on blue",
    "y": "bold black on yellow",
    "r": "bold white on red",
    "g": "bold black on green",
}
TEXT_STYLE = {"blue": "bold blue", "yellow": "bold yellow", "red": "bold red", "green": "bold green"}


def _footprint_box(obs: dict[str, Any]) -> tuple[range, range]:
    """The x and y ranges worth drawing: the structure's bounding box (the board is 10x10)."""
    limits = obs["structure"]["max_heights"]
    cells = [(x, y) for y in range(10) for x in range(10) if limits[y][x] > 0]
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    return range(min(xs), max(xs) + 1), range(min(ys), max(ys) + 1)


def height_map(obs: dict[str, Any]) -> Table:
    """Each column as ``height/limit`` on the colour of its top cube (``·`` outside the frame)."""
    limits = obs["structure"]["max_heights"]
    stacks = obs["stacks"]
    xs, ys = _footprint_box(obs)
    table = Table(show_header=True, box=None, padding=(0, 1), title="height / limit, top colour")
    table.add_column("", justify="right")
    for x in xs:
        table.add_column(FILES[x], justify="center")
    for y in reversed(ys):
        row: list[Text] = [Text(f"{y + 1:>2} ")]
        for x in xs:
            limit = limits[y][x]
            stack = stacks[y][x]
            if limit == 0:
                row.append(Text(" · ", style="dim"))
            elif stack:
                row.append(Text(f"{len(stack)}/{limit}", style=STYLE[stack[-1]]))
            else:
                row.append(Text(f"0/{limit}", style="dim"))
        table.add_row(*row)
    return table


def layers(obs: dict[str, Any]) -> Columns:
    """One small grid per level z (bottom first): the colour of the cube at that level."""
    limits = obs["structure"]["max_heights"]
    stacks = obs["stacks"]
    xs, ys = _footprint_box(obs)
    top = max(limits[y][x] for y in ys for x in xs)
    panels = []
    for z in range(top):
        lines = Text()
        lines.append("   " + "".join(f"{FILES[x]} " for x in xs) + "\n", style="dim")
        for y in reversed(ys):
            lines.append(f"{y + 1:>2} ", style="dim")
            for x in xs:
                stack = stacks[y][x]
                if z < len(stack):
                    lines.append(stack[z].upper() + " ", style=STYLE[stack[z]])
                elif z < limits[y][x]:
                    lines.append(". ", style="dim")
                else:
                    lines.append("  ")
            lines.append("\n")
        panels.append(Panel(lines, title=f"z = {z}", expand=False))
    return Columns(panels)


def status(obs: dict[str, Any]) -> Table:
    """Colours, their seats, pieces left and current score (B3-6)."""
    # the name of a custom structure is the player's text: drawn as it is, not as markup
    table = Table(
        title=Text(f"Blokus 3D · {obs['structure']['name']} ({obs['structure']['key']})", style="table.title")
    )
    for col in ("colour", "seat", "status", "score", "pieces left"):
        table.add_column(col)
    mover = obs["to_move"]["colour"] if obs["to_move"] else None
    for c in obs["colours"]:
        name = Text(("▶ " if c["colour"] == mover else "  ") + c["colour"], style=TEXT_STYLE[c["colour"]])
        table.add_row(
            name,
            Text(str(c["seat"])),
            Text(str(c["status"])),
            Text(str(c["score"])),
            Text(" ".join(c["pieces_left"]) or "—"),
        )
    return table


def board(obs: dict[str, Any], *, show_layers: bool = True) -> RenderableType:
    parts: list[RenderableType] = [status(obs), height_map(obs)]
    if show_layers:
        parts.append(layers(obs))
    if obs.get("last_move"):
        parts.append(Text(f"last move: {obs['last_move']}"))
    if obs["terminal"]:
        winners = ", ".join(c["colour"] for c in obs["colours"] if c["seat"] in obs["winners"])
        parts.append(Text(f"Game over. Scores by seat: {obs['scores']}. Winner(s): {winners}", style="bold"))
    return Group(*parts)


def orientation_drawing(piece: str) -> Columns:
    """Every orientation of a piece, drawn layer by layer (``#`` = cube), numbered as in moves."""
    panels = []
    for o in ORIENTATIONS_BY_PIECE[piece]:
        sx, sy, sz = o.size
        cubes = set(o.cubes)
        text = Text()
        for z in range(sz):
            text.append(f"z+{z}\n", style="dim")
            for y in reversed(range(sy)):
                text.append("".join("#" if (x, y, z) in cubes else "." for x in range(sx)) + "\n")
        panels.append(Panel(text, title=o.label, expand=False))
    return Columns(panels)


def pieces_help() -> str:
    return ", ".join(
        f"{p} ({PIECE_NAMES[p]}, {len(ORIENTATIONS_BY_PIECE[p])} orientations)" for p in PIECE_IDS
    )


def show_piece(argument: str, obs: dict[str, Any]) -> RenderableType:
    """``show PIECE``: the piece's numbered orientations, or the list of pieces."""
    piece = argument.strip().upper()
    if not piece:
        return Text(f"show which piece? Type 'show PIECE', one of: {pieces_help()}")
    if piece not in ORIENTATIONS_BY_PIECE:
        return Text(f"unknown piece {argument.strip()!r}: {pieces_help()}")
    return orientation_drawing(piece)


# -- solitaire (B3-10) -------------------------------------------------------------------------------
solve_app = typer.Typer(name="solve", help="Blokus 3D solitaire puzzles (B3-10).", no_args_is_help=True)


@solve_app.command("cube")
def solve_cube(
    size: Annotated[int, typer.Option(help="Edge of the cube: 3, 4 or 5.")] = 3,
    single_colour: Annotated[
        bool,
        typer.Option(
            "--single-colour/--multi-colour",
            help="Count every single-colour 3x3x3 cube (size 3 only), or find one multi-colour packing.",
        ),
    ] = False,
) -> None:
    """Count single-colour 3x3x3 cubes per piece set, or print one multi-colour packing."""
    from . import solitaire

    if size not in solitaire.PACKING_SIZES:
        fail(f"--size must be one of 3, 4, 5 (got {size})")
    if single_colour and size != 3:
        fail("--single-colour needs --size 3: one colour's 40 cubes cannot fill a larger cube")
    with progress_bar() as progress:
        task = progress.add_task("piece sets" if single_colour else "searching", total=None)

        def report(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        if single_colour:
            result = solitaire.count_single_colour_cube(progress=report)
        else:
            packing = solitaire.find_packing(size, progress=report)
    if single_colour:
        _print_single_colour(result)
        return
    console.print(
        f"One {size}x{size}x{size} packing with {len(packing.pieces)} pieces "
        f"(letter = colour b/y/r/g, then the piece), layers from the bottom:"
    )
    for z, layer in enumerate(solitaire.render_packing_layers(packing, size)):
        console.print(f"z = {z}", style="bold")
        console.print(layer, highlight=False)


def _print_single_colour(result: Any) -> None:
    table = Table(title="Single-colour 3x3x3 cubes (B3-10): distinct solutions per piece set")
    table.add_column("pieces", no_wrap=True)
    table.add_column("up to rotation", justify="right")
    table.add_column("up to rotation + reflection", justify="right")
    table.add_column("note")
    for r in result.sets:
        if not r.possible:
            continue
        note = f"mirror of {' '.join(r.mirror_of)}" if r.mirror_of else ""
        if set(r.pieces) == {"V3", "L4", "T4", "S4", "SR", "SL", "Y4"}:
            note = "the Soma cube"
        table.add_row(" ".join(r.pieces), str(r.rotation_count), str(r.rotation_reflection_count), note)
    console.print(table)
    console.print(
        f"{len(result.possible)} of {len(result.sets)} piece sets are possible. "
        f"Total: {result.total_rotation} distinct cubes up to rotation, "
        f"{result.total_rotation_reflection} up to rotation and reflection (mirror pairs counted once)."
    )
    with_i4 = [p for p in result.impossible if "I4" in p]
    others = [p for p in result.impossible if "I4" not in p]
    console.print(
        f"Impossible piece sets ({len(result.impossible)}): the {len(with_i4)} sets with I4 "
        "(4 cubes long, it cannot lie in a 3-cube edge)" + (", and:" if others else ".")
    )
    for pieces in others:
        console.print("  " + " ".join(pieces), highlight=False)


TERMINAL = TerminalPart(
    board=board,
    move_help=(
        "Enter a move in notation (e.g. L4:5@c3 = piece L4, orientation 5, anchor on c3),",
        "or the number of a move from the last listing.",
    ),
    moves_help="moves [PIECE]   list legal moves (of one piece)",
    notes=(
        "Pieces: " + pieces_help(),
        "The anchor is the corner of the piece's bounding box with the smallest file and"
        " rank; the height follows from the structure.",
    ),
    commands={"show": Command("show PIECE", "draw a piece's numbered orientations", show_piece)},
    app=solve_app,
)
"""Blokus 3D's terminal part (``Blokus3DGame.parts["terminal"]``)."""
