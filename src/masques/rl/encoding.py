"""What every observation encoder shares: a flat float32 vector laid out in named blocks.

An encoder turns one seat's observation — the JSON dict of ``State.observation(seat)``, nothing else —
into a fixed-shape array, so a policy can never see what the seat may not.  Every value lies in
[0, 1]: one-hot blocks, flags, and counts divided by the most they can be (or clipped where the rules
set no maximum, which the block says), so ``Box(0, 1)`` is the exact space.  Seats and colours are
written relative to the viewer (its own first), so one policy serves every seat.

Encoders collect the indices of the ones (``hot``) and of the scaled values (``at``, ``values``) and
write them in two numpy calls: per-element writes into an array cost more than a whole game step.

That dict path is the reference.  Environments take the fast path, a :class:`Tracker`: it reads the
same facts straight from the state, keeps them up to date action by action, and must give exactly the
reference's vector for every seat (the tests compare the two on random games of every configuration).
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from math import prod
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

import numpy as np
import numpy.typing as npt
from gymnasium.spaces import Box

from ..engine import JSON, Game, MalformedActionError, State

SEED_BITS = 128
"""The size of the game seeds an environment draws for itself: a seed is the whole deal, and a
smaller space could be searched for the one that fits the public position (an agent would then read
the others' hidden information)."""

Array = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]
Index = npt.NDArray[np.intp]
G = TypeVar("G", bound=Game)
S = TypeVar("S", bound=State)


@dataclass(frozen=True)
class Block:
    """A named slice of the observation vector."""

    name: str
    start: int
    size: int

    @property
    def stop(self) -> int:
        return self.start + self.size


class Layout:
    """Blocks laid end to end; ``add`` returns the block's first index."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.size = 0

    def add(self, name: str, size: int) -> int:
        block = Block(name, self.size, size)
        self.blocks.append(block)
        self.size += size
        return block.start

    def block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)


def legal_mask(state: State, size: int) -> Mask:
    """1 at every legal action id of the current decision (all zeros once the game is over)."""
    mask = np.zeros(size, dtype=np.int8)
    if not state.is_terminal():
        mask[state.legal_actions()] = 1
    return mask


SMALL_ACTION_SPACE = 1024
"""Up to this many action ids, an encoder keeps each distinct mask it builds and hands out copies."""
KEPT_MASKS = 8192
"""How many distinct masks an encoder keeps at most (it starts afresh when full)."""
FEW_IDS = 16
"""Up to this many legal ids, a new mask is written id by id (fewer than numpy's index costs)."""


RENDER_MODES = ("ansi", "human")


def action_id(action: object) -> int:
    """An agent's action as the engine's integer id: an int or a NumPy integer.  Anything else (a
    float such as 25.5 would quietly become 25) is a malformed action."""
    if isinstance(action, bool):  # True is an int to Python, but no action id (as in the engine)
        raise MalformedActionError(f"an action is an integer id, not {action!r}", action)
    try:
        return operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        raise MalformedActionError(f"an action is an integer id, not {action!r}", action) from None


def check_render_mode(mode: str | None) -> str | None:
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} (got {mode!r})")
    return mode


class Encoder(ABC, Generic[G]):
    """One game's encoder: ``encode(observation)`` gives a float32 vector of ``size`` values in
    [``low``, ``high``] ([0, 1] for the games' own encoders), and ``mask(state)`` the legal-action
    mask of the current decision."""

    game: G
    layout: Layout
    low: ClassVar[float] = 0.0
    high: ClassVar[float] = 1.0
    """The bounds of every value (the observation space's ``Box``)."""
    template: Array | None = None
    """Values that never change during a game (e.g. Blokus 3D's height limits); zeros elsewhere."""

    def __init__(self, game: G) -> None:
        self.game = game
        self.actions = game.num_distinct_actions
        self.built_masks: dict[tuple[int, ...], Mask] = {}

    @property
    def size(self) -> int:
        return self.layout.size

    @abstractmethod
    def encode(self, obs: JSON) -> Array:
        """The seat's observation as a vector; ``obs["seat"]`` must be a seat, not a spectator."""

    @abstractmethod
    def render(self, obs: JSON) -> str:
        """A plain-text picture of a (spectator's) observation."""

    def show(self, state: State, mode: str | None) -> str | None:
        """The position as a spectator sees it, in text; ``human`` mode prints it and returns None."""
        text = self.render(state.observation(None))
        if mode == "human":
            print(text)
            return None
        return text

    def mask(self, state: State) -> Mask:
        """The legal actions of ``state`` as a new int8 mask.  Small action spaces repeat the same
        few legal sets, so a copy of the mask built the first time costs less than building it;
        games with large ones override this with a builder that skips the sorted list."""
        size = self.actions
        if size > SMALL_ACTION_SPACE:
            return legal_mask(state, size)
        return self.kept_mask(tuple(state.legal_actions()))  # empty once the game is over

    def kept_mask(self, legal: tuple[int, ...]) -> Mask:
        """A new mask of these legal ids (sorted, as the engine lists them), copied from the one
        built the first time they were asked for."""
        mask = self.built_masks.get(legal)
        if mask is None:
            if len(self.built_masks) >= KEPT_MASKS:
                self.built_masks.clear()
            mask = self.built_masks[legal] = np.zeros(self.actions, dtype=np.int8)
            if len(legal) <= FEW_IDS:
                ones = cast(Cells, mask.data)  # item by item costs less than numpy's index for a few
                for i in legal:
                    ones[i] = 1
            else:
                mask[list(legal)] = 1
        return mask.copy()

    @abstractmethod
    def tracker(self) -> Tracker[Any]:
        """A new fast path for this game (one per environment: it follows one state at a time)."""

    def _array(self, hot: list[int], at: list[int] | None = None, values: list[float] | None = None) -> Array:
        """Ones at ``hot``, and ``values[k]`` at ``at[k]``; the template's values or zeros elsewhere."""
        if self.template is not None:
            out = self.template.copy()
        else:
            out = np.zeros(self.layout.size, dtype=np.float32)
        out[hot] = 1.0
        if at:
            out[at] = values
        return out


def vector_space(encoder: Encoder[Any]) -> Box[np.float32]:
    """The space of the encoder's vectors."""
    return Box(encoder.low, encoder.high, (encoder.size,), np.float32)


def relative_seats(seat: int, players: int) -> list[int]:
    """``[seat, seat + 1, ...]`` round the table: index k of the result is the viewer's k-th neighbour."""
    return [(seat + k) % players for k in range(players)]


def rank_of(seat: int, players: int) -> list[int]:
    """``rank[s]``: where seat ``s`` sits counting from the viewer (the viewer is 0)."""
    return [(s - seat) % players for s in range(players)]


def remap(index: Index, start: int, shape: tuple[int, ...], axis: int, order: Sequence[int]) -> None:
    """Make the block at ``start`` (of ``shape``) read position ``order[j]`` of ``axis`` where it read
    position ``j``: how a block written for absolute seats or colours is turned to a viewer's order."""
    stop = start + prod(shape)
    index[start:stop] = np.take(index[start:stop].reshape(shape), list(order), axis=axis).ravel()


class Cells(Protocol):
    """A float32 array's items as Python floats (a memoryview of it, as the type checker should see it)."""

    def __getitem__(self, index: int, /) -> float: ...

    def __setitem__(self, index: int, value: float, /) -> None: ...


class Tracker(ABC, Generic[S]):
    """The fast path: one state's encoding kept up to date between actions, read for any seat.

    ``vector(state, seat)`` is exactly ``encoder.encode(state.observation(seat))``, without the dict.
    The tracker holds a *base* vector of public facts with seats and colours written absolutely.  After
    one action it updates only what that action changed (``advance``); a state it has not followed, or
    more than one action since its last call, makes it write the base afresh (``rebuild``).  A seat's
    vector is the base turned to the seat's point of view — permuted, or with the few per-seat values
    written in the seat's order — plus what only that seat may see (``view``).  Subclasses read from
    the state exactly the fields ``observation(seat)`` shows that seat, and nothing hidden from it.

    The state must change only through ``apply`` between calls (``forget`` after anything else).
    Writes go through ``cells``, a memoryview of the base: it stores a Python number as float32 with
    the same rounding as numpy, at half the cost.
    """

    gather: list[Index] | None = None
    """When each seat's view is one gather of the base, its index per seat (kept up to date by the
    subclass): ``vector`` then takes it without calling ``view``, a call less on every step."""

    def __init__(self, size: int) -> None:
        self.base: Array = np.zeros(size, dtype=np.float32)
        self.cells = cast(Cells, self.base.data)  # a memoryview of the base
        self.state: S | None = None
        self.version = -1

    def forget(self) -> None:
        """Start afresh on the next call (the state was replaced or changed by other means)."""
        self.state = None

    def vector(self, state: S, seat: int) -> Array:
        """The encoding of ``state`` for ``seat``: a new array the caller owns."""
        history = state.history
        version = len(history)
        if state is self.state and version == self.version + 1:  # sync's cheap path, inlined
            self.version = -2  # until the update is complete
            if self.advance(state, history[-1]):
                self.version = version
            else:
                self.sync(state)
        elif version != self.version or state is not self.state:
            self.sync(state)
        gather = self.gather
        if gather is not None:
            return self.base.take(gather[seat])  # the default mode: "wrap" and "clip" cost more here
        return self.view(state, seat)

    def sync(self, state: S) -> None:
        """Bring the base up to date with ``state`` (after each action, to stay on the cheap path)."""
        version = len(state.history)
        if state is self.state:
            if version == self.version:
                return
            if version == self.version + 1:
                self.version = -2  # until the update is complete
                if self.advance(state, state.history[-1]):
                    self.version = version
                    return
        self.state = None
        self.base.fill(0.0)
        self.rebuild(state)
        self.state = state
        self.version = version

    @abstractmethod
    def rebuild(self, state: S) -> None:
        """Write the base of ``state`` into zeros, and reset what the tracker remembers."""

    @abstractmethod
    def advance(self, state: S, action: int) -> bool:
        """Update the base for ``action``, just applied; False (having written nothing) to rebuild."""

    @abstractmethod
    def view(self, state: S, seat: int) -> Array:
        """The base turned to ``seat``'s point of view, with the seat's own private facts."""
