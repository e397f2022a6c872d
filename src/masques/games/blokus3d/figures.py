"""The Blokus 3D figures of the rules page (B3-1, B3-2), drawn as SVG from the game's own data.

``figures()`` returns ``{filename: svg_text}``: one drawing per shipped structure (its height limits
for 2, 3 and 4 players, side by side) and one of the 11 pieces.  Drawings are isometric, seen from
the corner of square a1 (x = 0, y = 0), so rerunning gives the same bytes.  Every column and cube
carries its coordinates as ``data-`` attributes, which lets the tests compare a drawing with the data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from .pieces import COLOURS, PIECE_CUBES, PIECE_IDS, Cube
from .structures import BOARD_SIZE, STRUCTURE_KEYS, Structure, builtin_structure

UNIT = 12.0
"""The length of one cube edge on screen."""
_C = math.cos(math.pi / 6)
_S = 0.5
PLAYER_COUNTS = (2, 3, 4)
"""The structure drawings show these grids, left to right (B3-2; B3-3 uses the 4-player grid)."""

_STRUCTURE_FACES = ("#efe3c8", "#d6c29a", "#b9a276")  # top, left, right
_PIECE_FACES = {
    "blue": ("#5b93f0", "#2f6fde", "#1f4fa6"),
    "yellow": ("#ffe07a", "#f2c230", "#c49512"),
    "red": ("#f07a73", "#d9413a", "#a52a25"),
    "green": ("#5fca80", "#2e9e4f", "#1f7237"),
}
_INK = "#2b2a28"


def _project(u: float, v: float, z: float, unit: float = UNIT) -> tuple[float, float]:
    """Isometric projection: x grows to the right-back, y to the left-back, z up."""
    return ((u - v) * _C * unit, (-(u + v) * _S - z) * unit)


Offset = tuple[float, float]
"""Where a drawing's origin lies on the page."""


def _points(corners: Sequence[tuple[float, float, float]], at: Offset, unit: float = UNIT) -> str:
    out = []
    for u, v, z in corners:
        px, py = _project(u, v, z, unit)
        out.append(f"{px + at[0]:.1f},{py + at[1]:.1f}")
    return " ".join(out)


def _shape(
    tag: str, corners: Sequence[tuple[float, float, float]], at: Offset, attrs: str, unit: float = UNIT
) -> str:
    """A polygon or polyline through projected corners."""
    return f'<{tag} points="{_points(corners, at, unit)}" {attrs}/>'


def _prism(
    x: int, y: int, z: tuple[int, int], faces: tuple[str, str, str], at: Offset, *, unit: float = UNIT
) -> list[str]:
    """The three visible faces of the box over square (x, y) from height z[0] to z[1]."""
    (top, left, right), (z0, z1) = faces, z
    stroke = f'stroke="{_INK}" stroke-width="0.6" stroke-linejoin="round"'
    return [
        _shape(
            "polygon",
            [(x, y, z1), (x + 1, y, z1), (x + 1, y + 1, z1), (x, y + 1, z1)],
            at,
            f'fill="{top}" {stroke}',
            unit,
        ),
        _shape(
            "polygon",
            [(x, y, z0), (x, y + 1, z0), (x, y + 1, z1), (x, y, z1)],
            at,
            f'fill="{left}" {stroke}',
            unit,
        ),
        _shape(
            "polygon",
            [(x, y, z0), (x + 1, y, z0), (x + 1, y, z1), (x, y, z1)],
            at,
            f'fill="{right}" {stroke}',
            unit,
        ),
    ]


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">\n'
        f"<title>{escape(title)}</title>\n" + "\n".join(body) + "\n</svg>\n"
    )


def structure_panel(structure: Structure, at: Offset) -> list[str]:
    """The board's 100 squares and, on them, one column per footprint square up to its limit."""
    n = BOARD_SIZE
    grid = 'stroke="#c9c9c2" stroke-width="0.5"'
    out = [
        '<g class="board">',
        _shape("polygon", [(0, 0, 0), (n, 0, 0), (n, n, 0), (0, n, 0)], at, f'fill="#f7f7f4" {grid}'),
    ]
    for i in range(1, n):
        out.append(_shape("polyline", [(i, 0, 0), (i, n, 0)], at, grid))
        out.append(_shape("polyline", [(0, i, 0), (n, i, 0)], at, grid))
    # The square a1 (x = 0, y = 0) is the nearest corner: mark it so the drawing can be oriented.
    cx, cy = _project(0.5, 0.5, 0)
    out.append(
        f'<text x="{cx + at[0]:.1f}" y="{cy + at[1] + 3:.1f}" font-size="7" text-anchor="middle" '
        f'fill="#8a8a80">a1</text>'
    )
    out.append("</g>")
    heights = structure.max_heights
    # Far columns first: a column hides only columns with a larger x + y, never one with the same sum.
    for x, y in sorted(structure.footprint, key=lambda c: (-(c[0] + c[1]), c[0])):
        h = heights[x][y]
        out.append(f'<g class="column" data-x="{x}" data-y="{y}" data-height="{h}">')
        out.extend(_prism(x, y, (0, h), _STRUCTURE_FACES, at))
        for level in range(1, h):  # one line per cube level on the two visible sides
            level_line = [(x, y + 1, level), (x, y, level), (x + 1, y, level)]
            out.append(
                _shape("polyline", level_line, at, f'fill="none" stroke="{_INK}" stroke-opacity="0.25"')
            )
        tx, ty = _project(x + 0.5, y + 0.5, h)
        out.append(
            f'<text x="{tx + at[0]:.1f}" y="{ty + at[1] + 2.5:.1f}" font-size="7" text-anchor="middle" '
            f'fill="{_INK}">{h}</text>'
        )
        out.append("</g>")
    return out


def _person(x: float, baseline: float) -> str:
    """A small player icon (head and shoulders), so that the panel titles need no words."""
    return (
        f'<g class="player-icon" fill="{_INK}"><circle cx="{x + 5:.1f}" cy="{baseline - 10:.1f}" r="3.2"/>'
        f'<path d="M{x:.1f} {baseline:.1f} Q{x:.1f} {baseline - 6:.1f} {x + 5:.1f} {baseline - 6:.1f} '
        f'Q{x + 10:.1f} {baseline - 6:.1f} {x + 10:.1f} {baseline:.1f} Z"/></g>'
    )


def structure_figure(key: str) -> str:
    """Structure ``key`` for 2, 3 and 4 players, left to right, each panel headed by its count."""
    board_w = 2 * BOARD_SIZE * _C * UNIT
    panels = [builtin_structure(key, p) for p in PLAYER_COUNTS]
    top = max(max(max(col) for col in s.max_heights) for s in panels)
    panel_w = board_w + 24
    height = 26 + (top + BOARD_SIZE) * UNIT + 10
    body: list[str] = []
    for i, (players, structure) in enumerate(zip(PLAYER_COUNTS, panels, strict=True)):
        dx = i * panel_w + 12 + BOARD_SIZE * _C * UNIT
        dy = 26 + (top + 2 * BOARD_SIZE * _S) * UNIT
        body.append(f'<g class="panel" data-players="{players}">')
        body.append(
            f'<text x="{dx - 4:.1f}" y="18" font-size="14" font-weight="bold" text-anchor="end" '
            f'fill="{_INK}">{players}</text>'
        )
        body.append(_person(dx + 4, 18))
        body.extend(structure_panel(structure, (dx, dy)))
        body.append("</g>")
    name = panels[0].name
    return _svg(panel_w * len(panels), height, f"Blokus 3D structure {key} ({name})", body)


def _cubes_sorted(cubes: tuple[Cube, ...]) -> list[Cube]:
    """Far to near for unit cubes: larger x + y - z first (equal keys never overlap)."""
    return sorted(cubes, key=lambda c: (-(c[0] + c[1] - c[2]), c))


def pieces_figure(colour: str = COLOURS[0]) -> str:
    """The 11 pieces of one colour as the piece table gives them, each under its id."""
    unit = 16.0
    cell_w, cell_h = 120.0, 112.0
    per_row = 6
    faces = _PIECE_FACES[colour]
    body: list[str] = []
    for i, pid in enumerate(PIECE_IDS):
        col, row = i % per_row, i // per_row
        cubes = PIECE_CUBES[pid]
        xs, ys = [], []
        for x, y, z in cubes:
            for u, v, w in ((x, y + 1, z), (x + 1, y, z), (x, y, z + 1), (x + 1, y + 1, z + 1)):
                px, py = _project(u, v, w, unit)
                xs.append(px)
                ys.append(py)
        # centre the piece in its cell, above the label
        dx = col * cell_w + cell_w / 2 - (min(xs) + max(xs)) / 2
        dy = row * cell_h + (cell_h - 22) / 2 - (min(ys) + max(ys)) / 2 + 4
        body.append(f'<g class="piece" data-piece="{pid}">')
        for x, y, z in _cubes_sorted(cubes):
            body.append(f'<g class="cube" data-x="{x}" data-y="{y}" data-z="{z}">')
            body.extend(_prism(x, y, (z, z + 1), faces, (dx, dy), unit=unit))
            body.append("</g>")
        body.append(
            f'<text x="{col * cell_w + cell_w / 2:.1f}" y="{(row + 1) * cell_h - 8:.1f}" font-size="14" '
            f'font-weight="bold" text-anchor="middle" fill="{_INK}">{pid}</text>'
        )
        body.append("</g>")
    rows = -(-len(PIECE_IDS) // per_row)
    return _svg(per_row * cell_w, rows * cell_h, "Blokus 3D: the 11 pieces of a colour", body)


def figures() -> dict[str, str]:
    """Every Blokus 3D figure of the rules page, by file name."""
    out = {f"blokus3d-structure-{key}.svg": structure_figure(key) for key in STRUCTURE_KEYS}
    out["blokus3d-pieces.svg"] = pieces_figure()
    return out
