"""The Mascarade figures of the rules page (MC-1, MC-2, MC-5), drawn as SVG from the game's own data.

``figures()`` returns ``{filename: svg_text}``:

* ``mascarade-features.svg``: every value of the five features (from the feature table), one row per
  feature in the table's order, so a reader can tell the values apart on the cards;
* ``mascarade-layout.svg``: the board of a seeded game after a few placements, each card drawn from
  its features, the start square marked, and each card numbered in the order it was laid.

Cards are drawn as the web client draws them (each value its own shape; face shapes and hair styles
their own colour).  The sample game is played by a fixed rule (the placement sharing the most
features, then the lowest action id), so rerunning gives the same bytes.
"""

from __future__ import annotations

import math
from html import escape

from .game import CARDS, FEATURE_TABLE, FEATURES, PASS, SIZE, SQUARES, START, Card, MascaradeGame

SAMPLE_SEED = 18
"""The seed of the sample layout's deal."""
SAMPLE_PLACEMENTS = 20
"""How many cards the sample layout shows."""
CELL = 48
"""A square of the board on screen."""

_SKIN = {"round": "#f6c89f", "oval": "#a9d3ee", "square": "#c6b4e8", "heart": "#f5a9b8"}
_SKIN_EDGE = {"round": "#b77b4b", "oval": "#4d86ab", "square": "#7b63ad", "heart": "#c0586f"}
_HAIR = {"curly": "#7b4a21", "straight": "#1f1f1f", "spiky": "#e0742b", "bald": "none", "braids": "#d9a81e"}
_INK = "#2b2420"
_RED = "#b03a3a"


def _face(face: str) -> str:
    attrs = f'fill="{_SKIN[face]}" stroke="{_SKIN_EDGE[face]}" stroke-width="3"'
    if face == "round":
        return f'<circle cx="50" cy="55" r="34" {attrs}/>'
    if face == "oval":
        return f'<ellipse cx="50" cy="55" rx="27" ry="38" {attrs}/>'
    if face == "square":
        return f'<rect x="17" y="22" width="66" height="66" rx="9" {attrs}/>'
    return (  # heart: wide at the brow, pointed chin
        '<path d="M50 92 C 24 74, 12 58, 14 40 C 16 22, 40 18, 50 32 C 60 18, 84 22, 86 40 '
        f'C 88 58, 76 74, 50 92 Z" {attrs}/>'
    )


def _hair(style: str) -> str:
    colour = _HAIR[style]
    parts: list[str] = []
    if style == "curly":
        parts = [
            f'<circle cx="{22 + i * 9.3:.1f}" cy="{22 + abs(3 - i) * 2.4:.1f}" r="7.5" fill="{colour}"/>'
            for i in range(7)
        ]
    elif style == "straight":
        parts = [
            f'<path d="M18 36 Q18 12 50 12 Q82 12 82 36 L74 36 L72 24 L60 34 L58 24 L44 34 L42 24 '
            f'L30 34 L28 24 L26 36 Z" fill="{colour}"/>'
        ]
    elif style == "spiky":
        parts = [
            f'<path d="M20 32 L24 10 L33 27 L40 6 L47 26 L54 5 L60 26 L68 8 L72 28 L82 12 L80 34 Z" '
            f'fill="{colour}"/>'
        ]
    elif style == "braids":
        parts = [f'<path d="M20 36 Q22 14 50 14 Q78 14 80 36 Q66 24 50 26 Q34 24 20 36 Z" fill="{colour}"/>']
        parts += [
            f'<ellipse cx="{x}" cy="{40 + k * 11}" rx="5.5" ry="6.5" fill="{colour}" stroke="#9a7410" '
            'stroke-width="1.2"/>'
            for x in (13, 87)
            for k in range(4)
        ]
    else:  # bald: a shine on the head
        parts = [
            '<path d="M36 26 Q44 20 54 22" fill="none" stroke="#ffffff" stroke-opacity="0.8" '
            'stroke-width="3" stroke-linecap="round"/>'
        ]
    return f'<g class="hair-{style}">' + "".join(parts) + "</g>"


def _star(cx: float, cy: float, r: float) -> str:
    points = []
    for i in range(10):
        a = math.pi / 5 * i - math.pi / 2
        rr = r if i % 2 == 0 else r * 0.45
        points.append(f"{cx + rr * math.cos(a):.1f},{cy + rr * math.sin(a):.1f}")
    return f'<polygon points="{" ".join(points)}" fill="#f2c230" stroke="{_INK}" stroke-width="1.2"/>'


def _eyes(style: str) -> str:
    parts = []
    y = 48
    for i, x in enumerate((36, 64)):
        if style == "round" or (style == "winking" and i == 0):
            parts.append(
                f'<circle cx="{x}" cy="{y}" r="6.5" fill="#fff" stroke="{_INK}" stroke-width="2"/>'
                f'<circle cx="{x}" cy="{y}" r="3" fill="{_INK}"/>'
            )
        elif style == "almond":
            parts.append(
                f'<path d="M{x - 9} {y} Q{x} {y - 8} {x + 9} {y} Q{x} {y + 8} {x - 9} {y} Z" fill="#fff" '
                f'stroke="{_INK}" stroke-width="2"/><circle cx="{x}" cy="{y}" r="2.8" fill="#3c7d4a"/>'
            )
        elif style == "sleepy":
            parts.append(
                f'<path d="M{x - 8} {y} Q{x} {y + 6} {x + 8} {y}" fill="none" stroke="{_INK}" '
                f'stroke-width="2.5" stroke-linecap="round"/>'
                f'<path d="M{x - 8} {y - 1} L{x + 8} {y - 1}" stroke="{_INK}" stroke-width="1.5"/>'
            )
        elif style == "starry":
            parts.append(_star(x, y, 8))
        else:  # winking: the right eye shut
            parts.append(
                f'<path d="M{x - 8} {y + 2} L{x} {y - 3} L{x + 8} {y + 2}" fill="none" stroke="{_INK}" '
                'stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"/>'
            )
    return f'<g class="eyes-{style}">' + "".join(parts) + "</g>"


def _nose(style: str) -> str:
    colour = "#c26a4a"
    if style == "button":
        shape = f'<circle cx="50" cy="60" r="3.5" fill="{colour}"/>'
    elif style == "long":
        shape = (
            f'<path d="M50 50 L50 70 L45 70" fill="none" stroke="{colour}" stroke-width="3" '
            'stroke-linecap="round" stroke-linejoin="round"/>'
        )
    elif style == "hooked":
        shape = (
            f'<path d="M48 50 Q62 58 54 68 Q50 70 46 66" fill="none" stroke="{colour}" stroke-width="3" '
            'stroke-linecap="round"/>'
        )
    elif style == "round":
        shape = '<circle cx="50" cy="61" r="7" fill="#e06c5a" stroke="#9c3b2e" stroke-width="1.5"/>'
    else:  # pointed
        shape = f'<path d="M50 50 L57 67 L45 67 Z" fill="{colour}"/>'
    return f'<g class="nose-{style}">{shape}</g>'


def _mouth(style: str) -> str:
    if style == "smile":
        shape = (
            f'<path d="M37 74 Q50 85 63 74" fill="none" stroke="{_RED}" stroke-width="3.2" '
            'stroke-linecap="round"/>'
        )
    elif style == "frown":
        shape = (
            f'<path d="M38 81 Q50 71 62 81" fill="none" stroke="{_RED}" stroke-width="3.2" '
            'stroke-linecap="round"/>'
        )
    elif style == "open":
        shape = f'<ellipse cx="50" cy="78" rx="7" ry="6" fill="#5a1f1f" stroke="{_RED}" stroke-width="2"/>'
    elif style == "teeth":
        shape = (
            '<rect x="38" y="72" width="24" height="10" rx="3" fill="#fff" '
            f'stroke="{_RED}" stroke-width="2"/>'
            '<path d="M44 72 V82 M50 72 V82 M56 72 V82 M38 77 H62" stroke="#999" stroke-width="1"/>'
        )
    else:  # moustache, with a small mouth under it
        shape = (
            '<path d="M50 71 Q40 66 33 72 Q30 76 26 73 Q30 81 40 77 Q46 75 50 73 Q54 75 60 77 Q70 81 74 73 '
            'Q70 76 67 72 Q60 66 50 71 Z" fill="#3a2a1d"/>'
            f'<path d="M44 82 Q50 85 56 82" fill="none" stroke="{_RED}" stroke-width="2" '
            'stroke-linecap="round"/>'
        )
    return f'<g class="mouth-{style}">{shape}</g>'


_DRAW = {"hair": _hair, "eyes": _eyes, "nose": _nose, "mouth": _mouth}


def card_svg(card: Card, x: float, y: float, size: float) -> str:
    """Card ``card`` drawn from its five features in a ``size`` square at (x, y)."""
    return (
        f'<g class="card" data-card="{card.id}" transform="translate({x:g} {y:g}) scale({size / 100:g})">'
        f'<rect x="2" y="2" width="96" height="96" rx="10" fill="#fffaf0" stroke="#8c7b66" stroke-width="2"/>'
        + _face(card.face)
        + _hair(card.hair)
        + _eyes(card.eyes)
        + _nose(card.nose)
        + _mouth(card.mouth)
        + "</g>"
    )


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" font-family="sans-serif">\n'
        f"<title>{escape(title)}</title>\n" + "\n".join(body) + "\n</svg>\n"
    )


def features_figure() -> str:
    """One row per feature, each of its values left to right in the feature table's order."""
    size, gap = 64, 8
    values = {f: [v["key"] for v in FEATURE_TABLE[f]["values"]] for f in FEATURES}
    columns = max(len(v) for v in values.values())
    body: list[str] = []
    for row, feature in enumerate(FEATURES):
        body.append(f'<g class="feature" data-feature="{feature}">')
        for col, key in enumerate(values[feature]):
            x, y = gap + col * (size + gap), gap + row * (size + gap)
            body.append(
                f'<g class="value" data-value="{key}" transform="translate({x} {y}) scale({size / 100:g})">'
            )
            body.append(
                '<rect x="2" y="2" width="96" height="96" rx="10" fill="#fffaf0" stroke="#8c7b66" '
                'stroke-width="2"/>'
            )
            if feature == "face":
                body.append(_face(key))
            else:  # the value alone on a plain outline
                body.append(
                    '<circle cx="50" cy="55" r="34" fill="#f4efe6" stroke="#c8bfb2" stroke-width="2"/>'
                )
                body.append(_DRAW[feature](key))
            body.append("</g>")
        body.append("</g>")
    width = gap + columns * (size + gap)
    height = gap + len(FEATURES) * (size + gap)
    return _svg(width, height, "Mascarade: the values of the five features", body)


def sample_layout() -> list[tuple[int, int, int]]:
    """The placements ``(card, square, seat)`` of the sample game, in order."""
    state = MascaradeGame().new_initial_state(SAMPLE_SEED)
    placed: list[tuple[int, int, int]] = []
    for _ in range(SAMPLE_PLACEMENTS * 4):  # a pass takes a turn; 4 turns a card is ample
        if len(placed) == SAMPLE_PLACEMENTS or state.is_terminal():
            break
        seat = state.current_player
        actions = state.legal_actions()
        if actions == [PASS]:
            state.apply(PASS)
            continue

        board = {q: c for c, q, _ in placed}
        best = max(actions, key=lambda a: (_shared(board, a), -a))
        placed.append((best // SQUARES, best % SQUARES, seat))
        state.apply(best)
    return placed


def _shared(board: dict[int, int], action: int) -> int:
    """The features the placed card shares with its laid neighbours (what MC-9 would score)."""
    card, square = divmod(action, SQUARES)
    r, c = divmod(square, SIZE)
    total = 0
    for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        other = board.get(nr * SIZE + nc) if 0 <= nr < SIZE and 0 <= nc < SIZE else None
        if other is not None:
            total += sum(a == b for a, b in zip(CARDS[card].features(), CARDS[other].features(), strict=True))
    return total


def layout_figure() -> str:
    """The 10x10 board with the sample layout: files a-j across, ranks 1-10 down, start square ringed."""
    margin = 22
    body: list[str] = ['<g class="board">']
    body.append(
        f'<rect x="{margin}" y="{margin}" width="{SIZE * CELL}" height="{SIZE * CELL}" fill="#2f5d50"/>'
    )
    for i in range(SIZE + 1):
        p = margin + i * CELL
        body.append(f'<line x1="{p}" y1="{margin}" x2="{p}" y2="{margin + SIZE * CELL}" stroke="#6f978b"/>')
        body.append(f'<line x1="{margin}" y1="{p}" x2="{margin + SIZE * CELL}" y2="{p}" stroke="#6f978b"/>')
    for i in range(SIZE):
        c = margin + i * CELL + CELL / 2
        body.append(
            f'<text x="{c:g}" y="{margin - 7}" font-size="12" text-anchor="middle" fill="{_INK}">'
            f"{'abcdefghij'[i]}</text>"
        )
        body.append(
            f'<text x="{margin - 6}" y="{c + 4:g}" font-size="12" text-anchor="end" fill="{_INK}">'
            f"{i + 1}</text>"
        )
    sr, sc = divmod(START, SIZE)
    body.append(
        f'<rect class="start" x="{margin + sc * CELL + 2}" y="{margin + sr * CELL + 2}" '
        f'width="{CELL - 4}" height="{CELL - 4}" fill="none" stroke="#f2c230" stroke-width="4"/>'
    )
    body.append("</g>")
    for order, (card, square, seat) in enumerate(sample_layout(), start=1):
        r, c = divmod(square, SIZE)
        x, y = margin + c * CELL + 3, margin + r * CELL + 3
        body.append(f'<g class="placed" data-square="{square}" data-order="{order}" data-seat="{seat}">')
        body.append(card_svg(CARDS[card], x, y, CELL - 6))
        body.append(
            f'<circle cx="{x + CELL - 12:g}" cy="{y + 6:g}" r="7" fill="{_INK}"/>'
            f'<text x="{x + CELL - 12:g}" y="{y + 9.5:g}" font-size="9" text-anchor="middle" '
            f'fill="#fff">{order}</text>'
        )
        body.append("</g>")
    side = 2 * margin + SIZE * CELL
    return _svg(side - margin + 6, side - margin + 6, "Mascarade: a sample layout", body)


def figures() -> dict[str, str]:
    """Every Mascarade figure of the rules page, by file name."""
    return {"mascarade-features.svg": features_figure(), "mascarade-layout.svg": layout_figure()}
