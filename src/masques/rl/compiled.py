"""What the compiled twins of the games share.

An environment step should cost at most two engine actions, and PettingZoo's loop with the numpy
arrays of an observation already costs about one of Masker's or Maske's 5 µs actions.  So their
environments run on a *twin* (a ``Core``): the game's rules again, compiled with numba, over a flat
``int32`` array that holds the whole position.  One call applies an action, one call writes a seat's
observation vector and mask.  The Python engine stays the reference: it makes every initial state
(so chance is the engine's own), the twin is loaded from it, and parity tests check, action by
action over every configuration, that the twin's masks, vectors, terminal flag and returns are the
engine's and its encoder's.

numba is a dependency of masques (the Mascarade endgame solver uses it too); an install without it
still works: the environments then take the Python path (engine and tracker).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast

import numpy as np
import numpy.typing as npt

from ..engine import Game, State

try:
    import numba

    AVAILABLE = True
except ImportError:  # pragma: no cover - a dependency
    AVAILABLE = False

Words = npt.NDArray[np.int32]
"""A core's position: one flat array of small integers."""
Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]
F = TypeVar("F", bound=Callable[..., Any])
G = TypeVar("G", bound=Game)
S = TypeVar("S", bound=State)

ILLEGAL = -2
"""What a core's ``apply`` returns for an action it refuses (it then changes nothing)."""
OVER = -1
"""What a core's ``apply`` returns when the action ended the game."""


def jit(fn: F) -> F:
    """Compile ``fn`` in nopython mode, cached on disk so a new process only loads it."""
    if not AVAILABLE:  # pragma: no cover
        return fn
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


ApplyFn = Callable[[Words, int], int]
WriteFn = Callable[[Words, int, Vector, Mask], None]
ReturnsFn = Callable[[Words, npt.NDArray[np.float64]], None]


class Core(ABC, Generic[G, S]):
    """One game's compiled twin, following one position.

    ``words`` is the position; ``apply(words, action)`` plays a legal action and returns the next
    seat to act, :data:`OVER`, or :data:`ILLEGAL` (nothing changed); ``write(words, seat, vector,
    mask)`` fills a seat's observation vector and its legal-action mask (zeros unless it is the
    seat's turn).  Environments call the two functions directly: a method call in between costs a
    measurable part of a step."""

    def __init__(self, game: G, size: int, apply: ApplyFn, write: WriteFn, returns: ReturnsFn) -> None:
        self.game = game
        self.size = size
        self.apply = apply  # instance attributes: a compiled function is no method
        self.write = write
        self.returns_fn = returns
        self.words: Words = np.zeros(self.words_size(), dtype=np.int32)

    @abstractmethod
    def words_size(self) -> int:
        """How many integers the position takes."""

    @abstractmethod
    def load(self, state: S) -> None:
        """Write ``state`` (any position of this game, hidden parts included) into ``words``."""

    def warm_up(self) -> None:
        """Load the compiled functions now (compile them, the first time on a machine), so that the
        first step of an episode costs what the others do."""
        self.load(cast(S, self.game.new_initial_state(0)))
        self.observe(0)
        self.apply(self.words, -1)
        self.returns()

    def returns(self) -> list[float]:
        """The game's returns (winners share 1; zeros before the end), as the engine computes them."""
        out = np.zeros(self.game.num_players, dtype=np.float64)
        self.returns_fn(self.words, out)
        return [float(v) for v in out]

    def observe(self, seat: int) -> tuple[Vector, Mask]:
        """``seat``'s vector and mask, new arrays."""
        vector = np.empty(self.size, dtype=np.float32)
        mask = np.empty(self.game.num_distinct_actions, dtype=np.int8)
        self.write(self.words, seat, vector, mask)
        return vector, mask
