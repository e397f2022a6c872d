"""Which golden playthroughs exist (game, options, seed) and where their files live."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import PurePath

from .core import JSON


@dataclass(frozen=True)
class Playthrough:
    game: str
    seed: int
    options: dict[str, JSON] = field(default_factory=dict)
    tag: str = "default"

    @property
    def filename(self) -> str:
        return f"{self.game}-{self.tag}-seed{self.seed}.txt"

    def key(self) -> str:
        return json.dumps([self.game, self.options, self.seed], sort_keys=True)


PLAYTHROUGHS: tuple[Playthrough, ...] = (
    Playthrough("blokus3d", 1, {"structure": "D", "players": 4}, "D-4p"),
    Playthrough("blokus3d", 2, {"structure": "A", "players": 2}, "A-2p"),
    Playthrough("blokus3d", 3, {"structure": "B", "players": 3}, "B-3p"),
    Playthrough(
        "blokus3d",
        4,
        {"structure": "C", "players": 2, "colours_per_player": 2, "two_player_scoring": "best"},
        "C-2x2-best",
    ),
    Playthrough("masker", 1, {"players": 2, "variant": "2d"}, "2p-2d"),
    Playthrough("masker", 2, {"players": 3, "variant": "2d"}, "3p-2d"),
    Playthrough("masker", 3, {"players": 4, "variant": "3d"}, "4p-3d"),
    Playthrough("masker", 4, {"players": 3, "variant": "3d"}, "3p-3d"),
    Playthrough("mascarade", 1, {"players": 3, "scoring": False}, "3p"),
    Playthrough("mascarade", 2, {"players": 4, "scoring": True}, "4p-scoring"),
    Playthrough("mascarade", 3, {"players": 3, "matching": "one"}, "3p-one-match"),
    Playthrough("maske", 1, {"players": 4, "masks": 4}, "4p-4masks"),
    Playthrough("maske", 2, {"players": 3, "masks": 3, "unmasking": True}, "3p-3masks-unmasking"),
    Playthrough("maske", 6, {"players": 4, "masks": 3, "auction": "open"}, "4p-3masks-open-auction"),
)


def playthrough_path(root: PurePath, entry: Playthrough) -> PurePath:
    """``root`` is the repository checkout: files live in ``tests/playthroughs/``."""
    return root / "tests" / "playthroughs" / entry.filename
