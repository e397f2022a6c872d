"""Terminal drawing of a Blokus 3D observation with rich: a height map and a layer-by-layer view.

Everything here reads the observation dict only (what a seat may see), never the engine state.
"""

from __future__ import annotations

from typing import Any

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..games.blokus3d.pieces import ORIENTATIONS_BY_PIECE, PIECE_IDS, PIECE_NAMES

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
    table = Table(title=f"Blokus 3D · {obs['structure']['name']} ({obs['structure']['key']})")
    for col in ("colour", "seat", "status", "score", "pieces left"):
        table.add_column(col)
    mover = obs["to_move"]["colour"] if obs["to_move"] else None
    for c in obs["colours"]:
        name = Text(("▶ " if c["colour"] == mover else "  ") + c["colour"], style=TEXT_STYLE[c["colour"]])
        table.add_row(name, str(c["seat"]), c["status"], str(c["score"]), " ".join(c["pieces_left"]) or "—")
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
