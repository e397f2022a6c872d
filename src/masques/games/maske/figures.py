"""The Maske figure of the rules page (MS-1, MS-2): the 18 masks, drawn as SVG from the game's data.

``figures()`` returns ``{"maske-masks.svg": svg_text}``: each mask on the 7x7 plate in orientation 0,
numbered by its id, with its single rings (pay 3), double rings (pay 5), the plain holes (pay 0) and
the centre, which is no hole.  The values come from ``MASK_VALUES``, the table the game pays from.
"""

from __future__ import annotations

from html import escape

from .data import CENTRE, MASK_VALUES, MASKS, SIZE

PITCH = 14
"""The distance between two holes on screen."""
_INK = "#2b2420"
_RING = "#b8412e"


def mask_svg(mask_id: int, x: float, y: float) -> str:
    """Mask ``mask_id`` (orientation 0) on the plate, its top-left corner at (x, y)."""
    values = MASK_VALUES[mask_id][0]
    side = SIZE * PITCH
    out = [
        f'<g class="mask" data-mask="{mask_id}" transform="translate({x:g} {y:g})">',
        f'<rect x="0" y="0" width="{side}" height="{side}" rx="{PITCH}" fill="#f3ead6" stroke="#8c7b66" '
        'stroke-width="1.5"/>',
    ]
    for position, value in enumerate(values):
        row, col = divmod(position, SIZE)
        cx, cy = col * PITCH + PITCH / 2, row * PITCH + PITCH / 2
        if position == CENTRE:
            out.append(
                f'<path class="centre" d="M{cx - 3:g} {cy - 3:g} L{cx + 3:g} {cy + 3:g} M{cx + 3:g} '
                f'{cy - 3:g} L{cx - 3:g} {cy + 3:g}" stroke="{_INK}" stroke-width="1.5"/>'
            )
            continue
        out.append(
            f'<circle class="hole" data-position="{position}" data-value="{value}" cx="{cx:g}" cy="{cy:g}" '
            f'r="1.6" fill="{_INK}"/>'
        )
        if value >= 3:
            out.append(
                f'<circle cx="{cx:g}" cy="{cy:g}" r="4.2" fill="none" stroke="{_RING}" stroke-width="1.6"/>'
            )
        if value >= 5:
            out.append(
                f'<circle cx="{cx:g}" cy="{cy:g}" r="6.3" fill="none" stroke="{_RING}" stroke-width="1.6"/>'
            )
    out.append(
        f'<text x="{side / 2:g}" y="{side + 14:g}" font-size="11" text-anchor="middle" fill="{_INK}">'
        f"{mask_id}</text>"
    )
    out.append("</g>")
    return "".join(out)


def masks_figure() -> str:
    """All masks, six to a row, in id order."""
    per_row, gap = 6, 14
    side = SIZE * PITCH
    rows = -(-len(MASKS) // per_row)
    body = [
        mask_svg(m.id, gap + (i % per_row) * (side + gap), gap + (i // per_row) * (side + gap + 14))
        for i, m in enumerate(MASKS)
    ]
    width = gap + per_row * (side + gap)
    height = gap + rows * (side + gap + 14)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">\n'
        f"<title>{escape('Maske: the 18 masks')}</title>\n" + "\n".join(body) + "\n</svg>\n"
    )


def figures() -> dict[str, str]:
    """Every Maske figure of the rules page, by file name."""
    return {"maske-masks.svg": masks_figure()}
