"""The terminal part a game may bring (part kind ``"terminal"``), and the default for one that brings none.

A game names its part in ``Game.parts`` (``"terminal": "package.module:TERMINAL"``, a
:class:`TerminalPart`); the CLI finds it only through :func:`terminal_part`, so it never imports a
game package by name.  The default draws any observation dict as tables, and the move prompt lists
legal moves in the game's own notation (``State.action_to_str``), so every game that follows the
engine contract plays in ``masques play`` with no part at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import typer
from rich.console import Group, RenderableType
from rich.pretty import Pretty
from rich.table import Table
from rich.text import Text

from ..engine import UnknownGameError, game_part

MAX_DEPTH = 3
"""Nesting drawn as tables; deeper values are printed as data."""
MAX_RECORDS = 12
"""A list of records (e.g. a game's log) longer than this is drawn as its latest rows."""


class Board(Protocol):
    """Draws one seat's observation (``show_layers``: also the game's optional detail views)."""

    def __call__(self, obs: dict[str, Any], *, show_layers: bool = True) -> RenderableType: ...


@dataclass(frozen=True)
class Command:
    """An extra word at the move prompt (e.g. Blokus 3D's ``show PIECE``)."""

    usage: str
    """How to type it, as the help lists it: ``show PIECE``."""
    help: str
    run: Callable[[str, dict[str, Any]], RenderableType]
    """``run(argument, observation)``: what to print; the argument is the text after the word."""


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _scalar_text(value: Any) -> Text:
    if value is None:
        return Text("—", style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    return Text(str(value))


def _render(value: Any, depth: int) -> RenderableType:
    """A JSON value as rich tables: mappings as key/value rows, grids as grids, records as columns."""
    if _scalar(value):
        return _scalar_text(value)
    if depth >= MAX_DEPTH:
        return Pretty(value)
    if isinstance(value, dict):
        return _mapping(value, depth)
    if isinstance(value, list):
        if not value:
            return Text("(none)", style="dim")
        if all(_scalar(v) for v in value):
            return Text(", ").join(_scalar_text(v) for v in value)
        if all(isinstance(v, list) for v in value):
            return _grid(value, depth)
        if all(isinstance(v, dict) for v in value):
            return _records(value, depth)
    return Pretty(value)


def _mapping(value: dict[str, Any], depth: int, title: str | None = None) -> Table:
    # keys and title are the observation's text, shown as they are (Text: no markup)
    table = Table(
        show_header=False,
        title=Text(title, style="table.title") if title else None,
        title_justify="left",
        box=None,
        padding=(0, 1),
    )
    table.add_column(style="bold")
    table.add_column()
    for key, item in value.items():
        table.add_row(Text(str(key)), _render(item, depth + 1))
    return table


def _grid(rows: list[list[Any]], depth: int) -> Table:
    """Rows of a grid with their indices (from 0, as the observation counts them)."""
    width = max(len(row) for row in rows)
    table = Table(box=None, padding=(0, 1), show_header=True, header_style="dim")
    table.add_column("", style="dim", justify="right")
    for c in range(width):
        table.add_column(str(c), justify="center")
    for r, row in enumerate(rows):
        table.add_row(str(r), *(_render(v, depth + 1) for v in row))
    return table


def _records(rows: list[dict[str, Any]], depth: int) -> RenderableType:
    """A list of dicts as one table, a column per key (the latest rows of a long list)."""
    if len(rows) > MAX_RECORDS:
        return Group(
            Text(f"the latest {MAX_RECORDS} of {len(rows)}:", style="dim"),
            _records(rows[-MAX_RECORDS:], depth),
        )
    keys: list[str] = []
    for row in rows:
        keys.extend(k for k in row if k not in keys)
    table = Table(box=None, padding=(0, 1), header_style="bold")
    for key in keys:
        table.add_column(Text(str(key)))
    for row in rows:
        table.add_row(*(_render(row.get(k), depth + 1) if k in row else Text("") for k in keys))
    return table


def default_board(obs: dict[str, Any], *, show_layers: bool = True) -> RenderableType:
    """Any observation, readably: each field on its own row, lists of lists as grids, lists of
    records as tables (``show_layers`` has no meaning here)."""
    if not isinstance(obs, dict):
        return Pretty(obs)
    seat = obs.get("seat")
    title = f"{obs.get('game', 'game')} · " + ("spectator" if seat is None else f"seat {seat}'s view")
    return Group(_mapping(obs, 0, title=title))


@dataclass(frozen=True)
class TerminalPart:
    """What a game brings to the terminal; every field has a working default."""

    board: Board = default_board
    """Draws an observation (``masques play`` and ``masques replay``)."""
    move_help: tuple[str, ...] = ()
    """How to type a move, first in the help; empty: a generic sentence with an example from the
    legal moves."""
    moves_help: str = "moves [WORD]    list legal moves (only those whose notation starts with WORD)"
    """The help line of the ``moves`` command (it filters on the first word of a move's notation)."""
    notes: tuple[str, ...] = ()
    """Lines shown last in the help (e.g. the pieces and what an anchor is)."""
    commands: Mapping[str, Command] = field(default_factory=dict)
    """Extra words at the move prompt, by word."""
    app: typer.Typer | None = None
    """Extra ``masques`` commands: a named typer group mounted at the top level (e.g. ``solve``)."""


DEFAULT = TerminalPart()
"""The terminal part of a game that brings none."""


def terminal_part(game: str) -> TerminalPart:
    """The game's terminal part, or :data:`DEFAULT` (also for a name no game is registered under,
    e.g. a redacted record of a game not installed here)."""
    try:
        part = game_part(game, "terminal")
    except UnknownGameError:
        return DEFAULT
    if part is None:
        return DEFAULT
    if not isinstance(part, TerminalPart):
        raise TypeError(f"the terminal part of {game!r} is a {type(part).__name__}, not a TerminalPart")
    return part


def render_observation(game: str, obs: dict[str, Any], *, show_layers: bool = True) -> RenderableType:
    """The game's own drawing of an observation, or the default one."""
    return terminal_part(game).board(obs, show_layers=show_layers)
