"""Masker in the terminal (its "terminal" part): the grid (2D) or the stacks (3D) and a status, drawn
with rich, and the move notation's help.

Everything here reads the observation dict only (what a seat may see), never the engine state.  The
viewer's secret colour comes from ``obs["your_colour"]`` alone (None for a spectator, MK-15); the other
tokens are shown only once the observation reveals them (``obs["tokens"]`` at the end).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ...cli.parts import TerminalPart

FILES = "abcdef"
LETTER = {
    "red": "R",
    "yellow": "Y",
    "green": "G",
    "blue": "B",
    "black": "K",
    "white": "W",
    "runner": "@",
}
CELL_STYLE = {
    "red": "bold white on red",
    "yellow": "bold black on yellow",
    "green": "bold black on green",
    "blue": "bold white on blue",
    "black": "bold white on grey23",  # visible on a dark terminal
    "white": "bold black on bright_white",
    "runner": "bold bright_white on magenta",
}
TEXT_STYLE = {
    "red": "bold red",
    "yellow": "bold yellow",
    "green": "bold green",
    "blue": "bold blue",
    "black": "bold white on grey23",
    "white": "bold bright_white",
    "runner": "bold magenta",
}
HOLE_STYLE = "dim"
PLAYER_COLOURS = ("red", "yellow", "green", "blue", "black")


def square(obs: dict[str, Any], cell: int) -> str:
    """The name of a cell as the engine writes it: files a.. along a row, ranks 1.. down the rows."""
    cols = int(obs["cols"])
    return f"{FILES[cell % cols]}{cell // cols + 1}"


def team_of(obs: dict[str, Any], seat: int) -> int:
    """MK-3: with 4 players, seats 0+2 and 1+3 are partners (one token per team)."""
    return seat % 2 if int(obs["players"]) == 4 else seat


def cross(name: str, *, text: bool = False) -> Text:
    """One cross as its letter in its colour (``text``: for prose, no cell padding)."""
    if text:
        return Text(LETTER[name], style=TEXT_STYLE[name])
    return Text(f" {LETTER[name]} ", style=CELL_STYLE[name])


def step_targets(obs: dict[str, Any]) -> list[int]:
    """Where the runner may step now (MK-5, MK-7, MK-8), derived from the public position."""
    if obs["terminal"] or obs["phase"] != "step":
        return []
    stacks = obs["stacks"]
    if obs["free_step"]:
        return [i for i, s in enumerate(stacks) if s and s[-1] != "runner"]
    rows, cols, runner = int(obs["rows"]), int(obs["cols"]), int(obs["runner"])
    r, c = divmod(runner, cols)
    out = []
    for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= r2 < rows and 0 <= c2 < cols and stacks[r2 * cols + c2]:
            out.append(r2 * cols + c2)
    return sorted(out)


def grid(obs: dict[str, Any]) -> Text:
    """The board seen from above.  2D: one letter per cell.  3D: the top cross and the stack height."""
    rows, cols = int(obs["rows"]), int(obs["cols"])
    stacks = obs["stacks"]
    is_3d = obs["variant"] == "3d"
    width = 4 if is_3d else 3
    out = Text()
    out.append("    " + " ".join(f"{FILES[c]:^{width}}" for c in range(cols)) + "\n", style="dim")
    for r in range(rows):
        out.append(f"{r + 1:>2}  ", style="dim")
        for c in range(cols):
            stack = stacks[r * cols + c]
            if not stack:
                out.append(" ·  " if is_3d else " · ", style=HOLE_STYLE)
            elif is_3d:
                top = stack[-1]
                out.append(f" {LETTER[top]}{len(stack)} ", style=CELL_STYLE[top])
            else:
                out.append_text(cross(stack[-1]))
            if c < cols - 1:
                out.append(" ")
        out.append(f"  {r + 1}\n" if r < rows - 1 else f"  {r + 1}", style="dim")
    return out


def stack_listing(obs: dict[str, Any]) -> Text:
    """3D: every stack from the bottom to the top (MK-13, MK-14: only the top is in play)."""
    out = Text("stack bottom → top\n", style="dim")
    stacks = obs["stacks"]
    for cell, stack in enumerate(stacks):
        out.append(f"{square(obs, cell):<5}  ", style="bold")
        if not stack:
            out.append(" (empty)", style=HOLE_STYLE)
        for k, name in enumerate(stack):
            out.append_text(cross(name))
            if k < len(stack) - 1:
                out.append(" ")
        if cell < len(stacks) - 1:
            out.append("\n")
    return out


def layers(obs: dict[str, Any]) -> Table:
    """3D: one small grid per level, bottom (z = 0) first."""
    rows, cols = int(obs["rows"]), int(obs["cols"])
    stacks = obs["stacks"]
    table = Table.grid(padding=(0, 2))
    panels: list[Panel] = []
    for z in range(4):
        text = Text()
        text.append("   " + " ".join(f" {FILES[c]} " for c in range(cols)) + "\n", style="dim")
        for r in range(rows):
            text.append(f"{r + 1:>2} ", style="dim")
            for c in range(cols):
                stack = stacks[r * cols + c]
                if z < len(stack):
                    text.append_text(cross(stack[z]))
                else:
                    text.append(" · ", style=HOLE_STYLE)
                if c < cols - 1:
                    text.append(" ")
            if r < rows - 1:
                text.append("\n")
        panels.append(Panel(text, title=f"z = {z}", expand=False))
    for _ in panels:
        table.add_column()
    table.add_row(*panels)
    return table


def piles(names: list[str]) -> Text:
    """Captured crosses in piles of 3 (MK-9), each cross a coloured letter."""
    out = Text()
    for i in range(0, len(names), 3):
        if i:
            out.append(" ")
        for name in names[i : i + 3]:
            out.append_text(cross(name, text=True))
    if not names:
        out.append("—", style="dim")
    return out


def seat_colour(obs: dict[str, Any], seat: int) -> str | None:
    """A seat's colour if this observation shows it: revealed tokens, an announced elimination
    (MK-10), or the viewer's own team (MK-15).  None when it is hidden from this viewer."""
    tokens = obs.get("tokens")
    if tokens is not None:
        return str(tokens[team_of(obs, seat)])
    for e in obs["eliminations"]:
        if int(e["seat"]) == seat:
            return str(e["colour"])
    viewer = obs.get("seat")
    if (
        viewer is not None
        and obs.get("your_colour") is not None
        and team_of(obs, seat) == team_of(obs, viewer)
    ):
        return str(obs["your_colour"])
    return None


def status(obs: dict[str, Any]) -> Table:
    """Seats, their colour when known to the viewer, captured piles and capacity, who is out."""
    players = int(obs["players"])
    capacity = int(obs["capacity"])
    mover = obs["to_move"]
    viewer = obs.get("seat")
    lost = {int(e["seat"]): str(e["colour"]) for e in obs["eliminations"]}
    title = f"Masker · {str(obs['variant']).upper()} · {players} players · move {len(obs['moves']) + 1}"
    if obs["terminal"]:
        title = f"Masker · {str(obs['variant']).upper()} · {players} players · game over"
    table = Table(title=Text(title, style="table.title"), title_justify="left")
    for col in ("seat", "colour", "held", "piles (of 3)", "status"):
        table.add_column(col, justify="right" if col == "held" else "left")
    for seat in range(players):
        name = Text("▶ " if seat == mover else "  ", style="bold")
        name.append(f"seat {seat}")
        if players == 4:
            name.append(f" (partner {(seat + 2) % 4})", style="dim")
        if seat == viewer:
            name.append(" you", style="bold cyan")
        colour = seat_colour(obs, seat)
        shown = Text(colour, style=TEXT_STYLE[colour]) if colour else Text("?", style="dim")
        held = len(obs["piles"][seat])
        states: list[str] = []
        if seat in lost:
            states.append(f"out: lost {lost[seat]}")
        elif held >= capacity:
            states.append("full: passes (MK-9)")
        if obs["terminal"] and seat in obs.get("winners", []):
            states.append("WINNER")
        table.add_row(
            name,
            shown,
            Text(f"{held}/{capacity}", style="bold" if held >= capacity else ""),
            piles(obs["piles"][seat]),
            Text(", ".join(states) or ("to move" if seat == mover else "")),
        )
    return table


def turn_lines(obs: dict[str, Any]) -> Text:
    """Whose turn, which step (MK-6), a pending free step (MK-7/MK-8), the completion (MK-11)."""
    out = Text()
    on_board = obs["colours_on_board"]
    out.append("on the board: ")
    for name in (*PLAYER_COLOURS, "white"):
        out.append_text(cross(name, text=True))
        out.append(f"{on_board.get(name, 0)} ")
    out.append(f"· runner @ {square(obs, int(obs['runner']))}")
    if obs.get("last_move"):
        out.append(f" · last move {obs['last_move']}")
    if obs["terminal"]:
        return out
    mover = int(obs["to_move"])
    you = " (you)" if mover == obs.get("seat") else ""
    out.append("\n")
    if obs["phase"] == "complete":
        out.append(f"seat {mover}{you} completes their piles (MK-11): ", style="bold")
        out.append(f"{obs['to_fill']} more to take; 'take N' takes the next cross from seat N's piles")
        return out
    done = int(obs["steps_this_turn"])
    out.append(f"seat {mover}{you} to move: step {done + 1} of 3", style="bold")
    out.append(" (compulsory)" if done == 0 else " (or 'stop')")
    if obs["free_step"]:
        out.append("\nfree step pending: ", style="bold magenta")
        out.append("the runner may move onto any cross on the board (after a white cross, MK-8, or an")
        out.append(" isolated runner, MK-7)")
    targets = step_targets(obs)
    if targets and not obs["free_step"]:
        out.append("\nsteps: " + " ".join(square(obs, t) for t in targets))
    return out


def secret_line(obs: dict[str, Any]) -> Text | None:
    """The viewer's own (team's) colour, from ``obs["your_colour"]`` only (MK-15)."""
    colour = obs.get("your_colour")
    if colour is None:
        return None
    line = Text("your colour: ", style="bold")
    line.append(str(colour), style=TEXT_STYLE[str(colour)])
    if obs.get("partner") is not None:
        line.append(f" (shared with your partner, seat {obs['partner']})")
    if not obs["terminal"]:
        line.append(" — keep it secret")
    return line


def end_lines(obs: dict[str, Any]) -> Text:
    """MK-12 and MK-15: every token revealed and the winners."""
    players = int(obs["players"])
    tokens = obs.get("tokens") or []
    out = Text("tokens: ", style="bold")
    for seat in range(players):
        colour = str(tokens[team_of(obs, seat)]) if tokens else "?"
        out.append(f"seat {seat} ")
        out.append(colour, style=TEXT_STYLE.get(colour, ""))
        if seat < players - 1:
            out.append(", ")
    winners = [int(w) for w in obs.get("winners", [])]
    out.append("\nGame over. ", style="bold")
    if obs.get("stuck_end"):
        out.append("Nobody can step any more: most crosses of their colour on the board wins (MK-12). ")
    names = ", ".join(f"seat {w}" for w in winners) or "nobody"
    out.append(("Winners: " if len(winners) > 1 else "Winner: ") + names, style="bold")
    if obs.get("scores") is not None:
        left = ", ".join(str(int(n)) for n in obs["scores"])
        out.append(f"\nown colour left on the board, by seat: {left}")
    return out


def legend(obs: dict[str, Any]) -> Text:
    out = Text("legend: ", style="dim")
    for name in (*PLAYER_COLOURS, "white", "runner"):
        out.append(LETTER[name], style=CELL_STYLE[name])
        out.append(f" {name}  ", style="dim")
    out.append("·", style=HOLE_STYLE)
    out.append(" hole", style="dim")
    if obs["variant"] == "3d":
        out.append("\n        3D cells: top cross and stack height; stacks listed bottom → top", style="dim")
    return out


def board(obs: dict[str, Any], *, show_layers: bool = True) -> RenderableType:
    """The whole view: status, secret colour, the board (and the stacks in 3D), turn state, legend."""
    parts: list[RenderableType] = [status(obs)]
    secret = secret_line(obs)
    if secret is not None:
        parts.append(secret)
    if obs["variant"] == "3d":
        side = Table.grid(padding=(0, 4))
        side.add_column()
        side.add_column()
        side.add_row(Panel(grid(obs), title="stacks from above", expand=False), stack_listing(obs))
        parts.append(side)
        if show_layers:
            parts.append(layers(obs))
    else:
        parts.append(Panel(grid(obs), title="board", expand=False))
    parts.append(turn_lines(obs))
    if obs["terminal"]:
        parts.append(end_lines(obs))
    parts.append(legend(obs))
    return Group(*parts)


TERMINAL = TerminalPart(
    board=board,
    move_help=(
        "Enter the square the runner steps to (e.g. c4), 'stop' to end your turn",
        "after a step, 'take N' to take the next cross from seat N's piles (MK-11),",
        "or the number of a move from the last listing.",
    ),
    moves_help="moves           list legal moves",
)
"""Masker's terminal part (``MaskerGame.parts["terminal"]``)."""
