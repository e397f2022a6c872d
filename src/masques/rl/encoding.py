"""What every observation encoder shares: a flat float32 vector laid out in named blocks.

An encoder turns one seat's observation — the JSON dict of ``State.observation(seat)``, nothing else —
into a fixed-shape array, so a policy can never see what the seat may not.  Every value lies in
[0, 1]: one-hot blocks, flags, and counts divided by the most they can be (or clipped where the rules
set no maximum, which the block says), so ``Box(0, 1)`` is the exact space.  Seats and colours are
written relative to the viewer (its own first), so one policy serves every seat.

Encoders collect the indices of the ones (``hot``) and of the scaled values (``at``, ``values``) and
write them in two numpy calls: per-element writes into an array cost more than a whole game step.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from ..engine import JSON, Game, State

Array = npt.NDArray[np.float32]
G = TypeVar("G", bound=Game)


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


def legal_mask(state: State, size: int) -> npt.NDArray[np.int8]:
    """1 at every legal action id of the current decision (all zeros once the game is over)."""
    mask = np.zeros(size, dtype=np.int8)
    if not state.is_terminal():
        mask[state.legal_actions()] = 1
    return mask


RENDER_MODES = ("ansi", "human")


def check_render_mode(mode: str | None) -> str | None:
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} (got {mode!r})")
    return mode


class Encoder(ABC, Generic[G]):
    """One game's encoder: ``encode(observation)`` gives a float32 vector of ``size`` values in [0, 1],
    and ``mask(state)`` the legal-action mask of the current decision."""

    game: G
    layout: Layout
    template: Array | None = None
    """Values that never change during a game (e.g. Blokus 3D's height limits); zeros elsewhere."""

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

    def mask(self, state: State) -> npt.NDArray[np.int8]:
        """The legal actions of ``state`` as an int8 mask (games with long lists build it faster)."""
        return legal_mask(state, self.game.num_distinct_actions)

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


def relative_seats(seat: int, players: int) -> list[int]:
    """``[seat, seat + 1, ...]`` round the table: index k of the result is the viewer's k-th neighbour."""
    return [(seat + k) % players for k in range(players)]


def rank_of(seat: int, players: int) -> list[int]:
    """``rank[s]``: where seat ``s`` sits counting from the viewer (the viewer is 0)."""
    return [(s - seat) % players for s in range(players)]
