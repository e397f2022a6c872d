"""Blokus 3D structures: height-limit grids on the 10x10 board (B3-2, B3-3).

A structure is ``max_heights[x][y]`` on the board (0 = outside the frame).  The four shipped
structures are data in ``structures.json`` beside this module, one grid per player count.  Custom
structures come from a small JSON or TOML document; :func:`parse_custom_grid` validates one and says
exactly what is wrong.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from importlib import resources
from typing import Any

BOARD_SIZE = 10
MAX_CUSTOM_HEIGHT = 10
DIGITS = "0123456789"
UNSHOWN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
"""Unicode categories a structure's name may not hold: they hide, reorder or break the text."""

Grid = tuple[tuple[int, ...], ...]
"""``grid[x][y]``: the height limit of column (x, y) on the 10x10 board."""


class StructureError(ValueError):
    """A custom structure is malformed; the message says where."""


@dataclass(frozen=True)
class Structure:
    """A named height-limit grid for one player count."""

    key: str
    name: str
    max_heights: Grid

    @property
    def volume(self) -> int:
        return sum(sum(col) for col in self.max_heights)

    @property
    def footprint(self) -> list[tuple[int, int]]:
        return [(x, y) for x in range(BOARD_SIZE) for y in range(BOARD_SIZE) if self.max_heights[x][y] > 0]


def _grid_from_rows(rows: list[str]) -> Grid:
    """Rows are drawn top (y = 9) to bottom (y = 0), one digit per x, as in the data file."""
    height = len(rows)
    return tuple(tuple(int(rows[height - 1 - y][x]) for y in range(height)) for x in range(len(rows[0])))


def _load_builtin() -> dict[str, dict[str, Any]]:
    text = resources.files(__package__).joinpath("structures.json").read_text("utf-8")
    data: dict[str, dict[str, Any]] = json.loads(text)
    return data


_BUILTIN = _load_builtin()

STRUCTURE_KEYS: tuple[str, ...] = tuple(sorted(_BUILTIN))
"""The shipped structures: A Tower, B Wall, C Stairs, D Pyramid (B3-2)."""


def builtin_structure(key: str, grid_players: int) -> Structure:
    """A shipped structure for a player count's grid (2, 3 or 4; B3-3 picks 4 for 2x2 colours)."""
    entry = _BUILTIN[key]
    rows = entry["grids"][str(grid_players)]
    return Structure(key, entry["name"], _grid_from_rows(rows))


def parse_custom_grid(doc: Any) -> Structure:
    """Validate a custom structure document and centre it on the board.

    Accepted form (JSON, or the same keys in TOML)::

        {"name": "Hill", "heights": ["0120", "1331", "0120"]}

    ``heights`` is a list of rows, drawn as seen from above with the first row farthest away
    (largest y); each row is a string of digits or a list of integers 0..10.  At most 10 rows of at
    most 10 cells, all rows the same length, at least two cells of room in all.  A smaller grid is
    centred on the 10x10 board (rounding towards the origin).  A row of digits may have spaces
    around it (not other blanks): :func:`custom_grid_as_kept` drops them from what is stored.
    """
    if not isinstance(doc, dict):
        raise StructureError("a custom structure is an object with 'heights' (and optional 'name')")
    unknown = sorted(map(str, set(doc) - {"name", "heights"}))
    if unknown:
        raise StructureError(f"unknown key(s) {', '.join(unknown)}: allowed are name, heights")
    name = doc.get("name", "Custom")
    if not isinstance(name, str) or not name.strip() or len(name) > 40:
        raise StructureError("'name' must be a non-empty string of at most 40 characters")
    for position, char in enumerate(name, start=1):  # every seat is shown the name as it is
        if unicodedata.category(char) in UNSHOWN:
            raise StructureError(
                f"'name' must be plain text: character {position} (U+{ord(char):04X}) is a control, "
                "format, separator, surrogate, private-use or unassigned character"
            )
    rows_in = doc.get("heights")
    if not isinstance(rows_in, list) or not rows_in:
        raise StructureError("'heights' must be a non-empty list of rows")
    if len(rows_in) > BOARD_SIZE:
        raise StructureError(f"'heights' has {len(rows_in)} rows; at most {BOARD_SIZE}")
    rows: list[list[int]] = []
    for r, row in enumerate(rows_in, start=1):
        cells: list[int] = []
        if isinstance(row, str):
            for ch in row.strip(" "):
                # ASCII digits only: str.isdigit() also accepts "²" or "٣", which int() refuses
                if ch not in DIGITS:
                    raise StructureError(f"row {r}: {ch!r} is not a digit 0-9")
                cells.append(DIGITS.index(ch))
        elif isinstance(row, list):
            for c, value in enumerate(row, start=1):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise StructureError(f"row {r}, cell {c}: {value!r} is not an integer")
                if not 0 <= value <= MAX_CUSTOM_HEIGHT:
                    raise StructureError(f"row {r}, cell {c}: height {value} outside 0..{MAX_CUSTOM_HEIGHT}")
                cells.append(value)
        else:
            raise StructureError(f"row {r} must be a string of digits or a list of integers")
        if not cells:
            raise StructureError(f"row {r} is empty")
        if len(cells) > BOARD_SIZE:
            raise StructureError(f"row {r} has {len(cells)} cells; at most {BOARD_SIZE}")
        rows.append(cells)
    width = len(rows[0])
    for r, cells in enumerate(rows, start=1):
        if len(cells) != width:
            raise StructureError(f"row {r} has {len(cells)} cells; row 1 has {width}")
    if sum(map(sum, rows)) < 2:
        raise StructureError("the structure holds fewer than 2 cubes: no piece fits")
    depth = len(rows)
    ox = (BOARD_SIZE - width) // 2
    oy = (BOARD_SIZE - depth) // 2
    grid = [[0] * BOARD_SIZE for _ in range(BOARD_SIZE)]
    for r, cells in enumerate(rows):
        y = oy + depth - 1 - r
        for x, value in enumerate(cells):
            grid[ox + x][y] = value
    return Structure("custom", name.strip(), tuple(tuple(col) for col in grid))


def custom_grid_as_kept(doc: dict[str, Any]) -> dict[str, Any]:
    """A valid custom structure document as the game keeps it, in its options and so in every
    record and view: rows of digits without the spaces around them (which would otherwise be
    repeated, however many, in every message about the match)."""
    heights = [row.strip(" ") if isinstance(row, str) else row for row in doc["heights"]]
    return {**doc, "heights": heights}


def grid_rows(grid: Grid) -> list[str]:
    """The inverse drawing of a grid: rows from y = 9 down to y = 0 (for records and display)."""
    return [
        "".join(str(grid[x][y]) if grid[x][y] < 10 else "X" for x in range(BOARD_SIZE))
        for y in reversed(range(BOARD_SIZE))
    ]
