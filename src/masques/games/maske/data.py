"""Maske's data: the plate (MS-1), the 18 masks (MS-2, MS-3) and the 55 action cards (MS-4).

``masks.json`` and ``cards.json`` are written once by ``scripts/generate_maske_data.py`` and frozen.
A mask is a 7x7 drawing: ``o`` a single ring (pays 3), ``O`` a double ring (pays 5), ``.`` nothing,
``+`` the centre, which is no hole.  A card is an id, an effect (a list of primitives with
parameters, see ``game.py``) and its text in German, French and English.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

SIZE = 7
CENTRE = 3 * SIZE + 3
"""MS-1: the centre of the plate is not a hole."""
HOLES: tuple[int, ...] = tuple(h for h in range(SIZE * SIZE) if h != CENTRE)
RING_VALUE = {"o": 3, "O": 5, ".": 0, "+": 0}


@dataclass(frozen=True)
class Mask:
    id: int
    name: str
    rows: tuple[str, ...]

    def values(self, orientation: int) -> tuple[int, ...]:
        """What each of the 49 positions pays with the mask turned ``orientation`` quarter turns
        clockwise (MS-3)."""
        rows = list(self.rows)
        for _ in range(orientation % 4):
            rows = ["".join(rows[SIZE - 1 - c][r] for c in range(SIZE)) for r in range(SIZE)]
        return tuple(RING_VALUE[ch] for row in rows for ch in row)


@dataclass(frozen=True)
class Card:
    id: int
    effect: tuple[dict[str, Any], ...]
    text: dict[str, str]


def _read(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath(name).read_text("utf-8"))


MASKS: tuple[Mask, ...] = tuple(
    Mask(m["id"], m["name"], tuple(m["rows"])) for m in _read("masks.json")["masks"]
)
CARDS: tuple[Card, ...] = tuple(
    Card(c["id"], tuple(c["effect"]), c["text"]) for c in _read("cards.json")["cards"]
)
MASK_VALUES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(m.values(o) for o in range(4)) for m in MASKS
)
"""``MASK_VALUES[mask][orientation][position]``: the payday value of a stick there (MS-13)."""
