"""Engine speed: random playouts per second, legal-move generations per second, moves per turn.

A playout starts from a new game and, at every turn, generates every legal action and applies one
drawn uniformly (``State.random_legal_action`` then the validating ``apply``).  Each decision needs
one complete legal-move generation; a game that counts its generations (Blokus 3D also generates for
each colour that drops out) reports that count, others their decisions.  What is measured for a game
comes from its ``Game.bench_configurations``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..engine import JSON, Game
from ..engine.chance import CHANCE_VERSION


@dataclass(frozen=True)
class BenchResult:
    label: str
    playouts: int
    seconds: float
    decisions: int
    legal_total: int
    generations: int = 0

    @property
    def playouts_per_second(self) -> float:
        return self.playouts / self.seconds

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def generations_per_second(self) -> float:
        return (self.generations or self.decisions) / self.seconds

    @property
    def mean_legal_moves(self) -> float:
        return self.legal_total / max(1, self.decisions)

    @property
    def mean_length(self) -> float:
        return self.decisions / max(1, self.playouts)

    def as_dict(self) -> dict[str, JSON]:
        d: dict[str, JSON] = asdict(self)
        d.update(
            playouts_per_second=round(self.playouts_per_second, 1),
            decisions_per_second=round(self.decisions_per_second, 1),
            generations_per_second=round(self.generations_per_second, 1),
            mean_legal_moves=round(self.mean_legal_moves, 1),
            mean_length=round(self.mean_length, 1),
        )
        return d


def run_playouts(
    game: Game,
    *,
    seconds: float = 3.0,
    max_playouts: int | None = None,
    seed: int = 0,
    label: str = "",
    progress: Callable[[float], None] | None = None,
    chance: int = CHANCE_VERSION,
) -> BenchResult:
    """Random playouts for about ``seconds`` (or ``max_playouts``), timed with perf_counter; each
    game is dealt by the chance generator ``chance`` (the actions' rng is the same either way)."""
    if max_playouts is None and not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a finite number above 0 (got {seconds})")
    rng = random.Random(seed)
    playouts = decisions = legal_total = generations = 0
    start = time.perf_counter()
    elapsed = 0.0
    while True:
        state = game.new_initial_state(seed + playouts, chance=chance)
        while not state.is_terminal():
            legal_total += state.num_legal_actions()
            state.apply(state.random_legal_action(rng))
            decisions += 1
        generations += int(getattr(state, "generations", 0))
        playouts += 1
        elapsed = time.perf_counter() - start
        if progress:
            progress(min(1.0, elapsed / seconds) if seconds > 0 else 1.0)
        if max_playouts is not None and playouts >= max_playouts:
            break
        if max_playouts is None and elapsed >= seconds:
            break
    return BenchResult(label or repr(game.options), playouts, elapsed, decisions, legal_total, generations)
