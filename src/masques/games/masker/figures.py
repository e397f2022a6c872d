"""The Masker figures of the rules page (MK-1, MK-2, MK-13), drawn as SVG from a seeded deal.

``figures()`` returns ``{filename: svg_text}``: ``masker-grid.svg``, the starting 6x6 grid of a
seeded 2D game, and ``masker-stacks.svg``, the starting 3x3 stacks of a seeded 3D game (each stack
drawn bottom to top).  Crosses take their colours from the game's colour table; the runner is the
uncoloured cross with a ring.  Cells are named as in the game's notation (files a.., ranks 1.. down).
"""

from __future__ import annotations

from html import escape

from .game import CODE_NAMES, RUNNER, WHITE, MaskerGame

SAMPLE_SEED = 18
"""The seed of both sample deals."""
CELL = 52
_INK = "#2b2420"
_FILL = {
    "red": "#d9413a",
    "yellow": "#f2c230",
    "green": "#2e9e4f",
    "blue": "#2f6fde",
    "black": "#222222",
    "white": "#ffffff",
    "runner": "none",
}


def cross_svg(code: int, cx: float, cy: float, arm: float) -> str:
    """One cross centred at (cx, cy), its arms ``arm`` long from the centre."""
    w = arm * 0.42
    d = (
        f"M{cx - w:g} {cy - arm:g} H{cx + w:g} V{cy - w:g} H{cx + arm:g} V{cy + w:g} H{cx + w:g} "
        f"V{cy + arm:g} H{cx - w:g} V{cy + w:g} H{cx - arm:g} V{cy - w:g} H{cx - w:g} Z"
    )
    name = CODE_NAMES[code]
    stroke = "#8a8a80" if code == WHITE else _INK
    out = (
        f'<path class="cross" data-cross="{name}" d="{d}" fill="{_FILL[name]}" '
        f'stroke="{stroke}" stroke-width="1.5"/>'
    )
    if code == RUNNER:
        out += (
            f'<circle cx="{cx:g}" cy="{cy:g}" r="{arm * 1.15:g}" fill="none" stroke="{_INK}" '
            'stroke-width="1.5" stroke-dasharray="3 2"/>'
        )
    return out


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" font-family="sans-serif">\n'
        f"<title>{escape(title)}</title>\n" + "\n".join(body) + "\n</svg>\n"
    )


def _frame(cols: int, rows: int, cell_w: float, cell_h: float, margin: float) -> list[str]:
    out = [
        f'<rect x="{margin}" y="{margin}" width="{cols * cell_w:g}" height="{rows * cell_h:g}" '
        'fill="#e9e2d0" stroke="#8c7b66" stroke-width="1.5"/>'
    ]
    for c in range(1, cols):
        x = margin + c * cell_w
        out.append(
            f'<line x1="{x:g}" y1="{margin}" x2="{x:g}" y2="{margin + rows * cell_h:g}" stroke="#c9bfa8"/>'
        )
    for r in range(1, rows):
        y = margin + r * cell_h
        out.append(
            f'<line x1="{margin}" y1="{y:g}" x2="{margin + cols * cell_w:g}" y2="{y:g}" stroke="#c9bfa8"/>'
        )
    for c in range(cols):
        out.append(
            f'<text x="{margin + (c + 0.5) * cell_w:g}" y="{margin - 7}" font-size="12" text-anchor="middle" '
            f'fill="{_INK}">{"abcdef"[c]}</text>'
        )
    for r in range(rows):
        out.append(
            f'<text x="{margin - 7}" y="{margin + (r + 0.5) * cell_h + 4:g}" font-size="12" '
            f'text-anchor="end" fill="{_INK}">{r + 1}</text>'
        )
    return out


def grid_figure() -> str:
    """The 36 crosses of a seeded 2D deal on the 6x6 grid."""
    state = MaskerGame({"variant": "2d"}).new_initial_state(SAMPLE_SEED)
    margin = 22
    body = _frame(6, 6, CELL, CELL, margin)
    for cell, stack in enumerate(state.stacks):
        r, c = divmod(cell, 6)
        body.append(f'<g class="cell" data-cell="{cell}">')
        body.append(cross_svg(stack[-1], margin + (c + 0.5) * CELL, margin + (r + 0.5) * CELL, CELL * 0.32))
        body.append("</g>")
    side = margin + 6 * CELL + 8
    return _svg(side, side, "Masker: a starting grid (2D)", body)


def stacks_figure() -> str:
    """The 3x3 stacks of four of a seeded 3D deal, each drawn from its bottom cross up to its top."""
    state = MaskerGame({"variant": "3d"}).new_initial_state(SAMPLE_SEED)
    margin, cell_w, cell_h = 22, 64.0, 150.0
    body = _frame(3, 3, cell_w, cell_h, margin)
    step = 32.0
    for cell, stack in enumerate(state.stacks):
        r, c = divmod(cell, 3)
        cx = margin + (c + 0.5) * cell_w
        bottom = margin + (r + 1) * cell_h - 22
        body.append(f'<g class="cell" data-cell="{cell}">')
        for level, code in enumerate(stack):
            body.append(
                f'<g class="level" data-level="{level}">{cross_svg(code, cx, bottom - level * step, 12)}</g>'
            )
        body.append("</g>")
    return _svg(margin + 3 * cell_w + 8, margin + 3 * cell_h + 8, "Masker: starting stacks (3D)", body)


def figures() -> dict[str, str]:
    """Every Masker figure of the rules page, by file name."""
    return {"masker-grid.svg": grid_figure(), "masker-stacks.svg": stacks_figure()}
