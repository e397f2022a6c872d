"""What a game's ``lessons`` module defines: the example positions drawn as figures on its rules page,
and its guided first game.

A position is a seeded game and the moves played from its start, in the engine's own notation, so the
engine is the source of truth: a rule change that makes a move illegal breaks a test, not a page.
A lesson step names the move(s) to find by a function of the real state, not by a hand-written list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .core import JSON, State
from .registry import load_game

LANGS = ("en", "fr")
Text = Mapping[str, str]
"""A text in each of :data:`LANGS`."""


@dataclass(frozen=True)
class Position:
    """A seeded game with ``moves`` played from its start, seen by ``seat``."""

    game: str
    seed: int
    moves: tuple[str, ...] = ()
    options: Mapping[str, JSON] = field(default_factory=dict)
    seat: int = 0

    def state(self) -> State:
        """The position, played by the engine (an illegal move raises)."""
        state = load_game(self.game, dict(self.options)).new_initial_state(self.seed)
        for move in self.moves:
            state.apply(state.action_from_str(move))
        return state

    def then(self, *moves: str) -> Position:
        """The same game, a few moves later."""
        return Position(self.game, self.seed, self.moves + moves, self.options, self.seat)


@dataclass(frozen=True)
class Step:
    """One position of a lesson: what to read, which moves are right, what a wrong one is told."""

    text: Text
    position: Position
    right: Callable[[State], list[int]]
    """The moves to find among the position's legal moves (computed from the state)."""
    wrong: Text
    done: Text
    """Said once the right move is played."""


@dataclass(frozen=True)
class Lesson:
    title: Text
    intro: Text
    steps: tuple[Step, ...]
    outro: Text


def best(state: State, value: Callable[[State, int], float]) -> list[int]:
    """The legal moves of highest ``value``."""
    legal = state.legal_actions()
    values = {a: value(state, a) for a in legal}
    top = max(values.values())
    return [a for a in legal if values[a] == top]


def after(state: State, action: int) -> State:
    """A copy of ``state`` with ``action`` played."""
    copy = state.clone()
    copy.apply(action)
    return copy
