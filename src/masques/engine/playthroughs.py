"""Which golden playthroughs exist (game, options, seed) and where their files live.

Each game lists its own in ``Game.playthrough_configurations``; this module names their files.
"""

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


def playthroughs(games: list[str] | None = None) -> list[Playthrough]:
    """Every registered game's golden playthroughs (``Game.playthrough_configurations``), by game name."""
    from .registry import game_class, game_names

    return [
        Playthrough(name, seed, dict(options), tag)
        for name in (game_names() if games is None else games)
        for tag, seed, options in game_class(name).playthrough_configurations()
    ]


def playthrough_path(root: PurePath, entry: Playthrough) -> PurePath:
    """``root`` is the repository checkout: files live in ``tests/playthroughs/``."""
    return root / "tests" / "playthroughs" / entry.filename
