"""The encoder a game gets when it brings no ``"rl"`` part: its observation's numeric fields, flattened.

A fixed-shape vector needs the observation's shape, which the engine contract does not declare; so
the encoder learns it from the game itself: it plays :data:`PROBE_GAMES` random games from their
initial states (fixed seeds, so the layout is the same in every process) and reads every seat's
observation at every position, :data:`PROBE_POSITIONS` at most per game.  From what it saw it lays
out, keys in sorted order, recursively:

* a number or a bool: its value (bools as 0/1, numbers as they are: nothing bounds them);
* a string among at most :data:`MAX_CHOICES` values: one-hot over the values seen, sorted (a value
  never seen writes zeros; a field with more values, such as free text, is left out);
* a dict: its keys' slots, in sorted key order;
* a list that always had the same length: each item's slots in turn;
* a list whose length varied: its length, then the slots of its first ``min(longest seen,``
  :data:`LIST_BOUND` ``)`` items (an item beyond the list's end writes zeros, beyond the bound is cut);
* a field that was sometimes missing or None (or of another kind) gets a flag, 1 when present, in
  front of its slots; a field that was never anything else than None takes no slot.

What the probe never saw takes no slot, so the shape stays fixed whatever a later observation holds.
The vector reads only the seat's own observation dict: it cannot show what the seat may not see.
Values are not scaled, so the space is ``Box(-inf, inf)``.
"""

from __future__ import annotations

import json
import math
import random
from abc import ABC, abstractmethod
from collections import Counter
from typing import Any, ClassVar

import numpy as np

from ..engine import JSON, Game, State
from .encoding import Array, Encoder, Layout, Tracker

PROBE_GAMES = 3
"""Random games the layout is learned from."""
PROBE_POSITIONS = 300
"""Positions read at most per probe game (every seat's observation at each)."""
LIST_BOUND = 16
"""At most this many items of a list whose length varies are written."""
MAX_CHOICES = 32
"""A string field with more distinct values than this (free text) is left out."""


class Slot(ABC):
    """The layout of one field: how many values it takes and how to write them."""

    def __init__(self, optional: bool) -> None:
        self.optional = optional

    @property
    def size(self) -> int:
        return self.width() + self.optional

    @abstractmethod
    def width(self) -> int:
        """Values written for a present field (the presence flag aside)."""

    @abstractmethod
    def accepts(self, value: Any) -> bool:
        """Whether ``value`` has this slot's kind (else it counts as missing)."""

    @abstractmethod
    def put(self, value: Any, out: list[float]) -> None:
        """Append exactly ``width()`` values for a value this slot accepts."""

    def write(self, value: Any, out: list[float]) -> None:
        """Append exactly ``size`` values for any value (missing or of another kind: zeros)."""
        if value is not None and self.accepts(value):
            if self.optional:
                out.append(1.0)
            self.put(value, out)
        else:
            out.extend([0.0] * self.size)


class Number(Slot):
    def width(self) -> int:
        return 1

    def accepts(self, value: Any) -> bool:
        return isinstance(value, int | float)

    def put(self, value: Any, out: list[float]) -> None:
        out.append(float(value))


class Choice(Slot):
    def __init__(self, optional: bool, choices: list[str]) -> None:
        super().__init__(optional)
        self.index = {c: i for i, c in enumerate(choices)}

    def width(self) -> int:
        return len(self.index)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str)

    def put(self, value: Any, out: list[float]) -> None:
        start = len(out)
        out.extend([0.0] * len(self.index))
        k = self.index.get(value)
        if k is not None:
            out[start + k] = 1.0


class Record(Slot):
    def __init__(self, optional: bool, fields: dict[str, Slot]) -> None:
        super().__init__(optional)
        self.fields = fields
        self._width = sum(s.size for s in fields.values())

    def width(self) -> int:
        return self._width

    def accepts(self, value: Any) -> bool:
        return isinstance(value, dict)

    def put(self, value: Any, out: list[float]) -> None:
        for key, slot in self.fields.items():
            slot.write(value.get(key), out)


class Row(Slot):
    """A list that always had the same length: one slot per item."""

    def __init__(self, optional: bool, items: list[Slot | None]) -> None:
        super().__init__(optional)
        self.items = items
        self._width = sum(s.size for s in items if s is not None)

    def width(self) -> int:
        return self._width

    def accepts(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) == len(self.items)

    def put(self, value: Any, out: list[float]) -> None:
        for item, slot in zip(value, self.items, strict=True):
            if slot is not None:
                slot.write(item, out)


class Sequence(Slot):
    """A list whose length varies: its length, then its first ``bound`` items."""

    def __init__(self, optional: bool, item: Slot | None, bound: int) -> None:
        super().__init__(optional)
        self.item = item
        self.bound = bound if item is not None else 0

    def width(self) -> int:
        return 1 + (self.bound * self.item.size if self.item is not None else 0)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, list)

    def put(self, value: Any, out: list[float]) -> None:
        out.append(float(len(value)))
        if self.item is None:
            return
        for item in value[: self.bound]:
            self.item.write(item, out)
        out.extend([0.0] * (self.item.size * max(0, self.bound - len(value))))


def kind(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool | int | float):
        return "number"
    if isinstance(value, str | dict | list):
        return type(value).__name__
    return None  # anything else a JSON observation should not hold is ignored


def learn(values: list[Any]) -> Slot | None:
    """The slot of a field from every value it took in the probe (None where it was missing), or
    None if it carries nothing."""
    kinds = Counter(k for k in map(kind, values) if k is not None)
    if not kinds:
        return None
    main = min(kinds, key=lambda k: (-kinds[k], k))  # the most common kind; ties by name
    present = [v for v in values if kind(v) == main]
    optional = len(present) < len(values)
    if main == "number":
        return Number(optional)
    if main == "str":
        choices = sorted(set(present))
        return Choice(optional, choices) if len(choices) <= MAX_CHOICES else None
    if main == "dict":
        keys = sorted({k for d in present for k in d if isinstance(k, str)})
        fields = {k: s for k in keys if (s := learn([d.get(k) for d in present])) is not None}
        return Record(optional, fields) if fields or optional else None
    lengths = {len(v) for v in present}
    if len(lengths) == 1:
        (length,) = lengths
        items = [learn([v[i] for v in present]) for i in range(length)]
        if not any(items) and not optional:
            return None
        return Row(optional, items)
    bound = min(max(lengths), LIST_BOUND)
    return Sequence(optional, learn([x for v in present for x in v[:bound]]), bound)


def probe(game: Game) -> list[JSON]:
    """Every seat's observations along :data:`PROBE_GAMES` random games (fixed seeds)."""
    seen: list[JSON] = []
    for seed in range(PROBE_GAMES):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        for _ in range(PROBE_POSITIONS):
            seen += [state.observation(seat) for seat in range(game.num_players)]
            if state.is_terminal():
                break
            state.apply(state.random_legal_action(rng))
    return seen


_LAYOUTS: dict[tuple[str, str], Record] = {}


def layout_of(game: Game) -> Record:
    """The learned layout of ``game``'s observations (learned once per game and options)."""
    key = (game.name, json.dumps(game.options, sort_keys=True))
    if key not in _LAYOUTS:
        slot = learn(probe(game))
        _LAYOUTS[key] = slot if isinstance(slot, Record) else Record(False, {})
    return _LAYOUTS[key]


class GenericEncoder(Encoder[Game]):
    """The default encoder: the numeric fields of a seat's observation (see the module docstring).
    Its layout has one block per top-level field, named after it."""

    low: ClassVar[float] = -math.inf
    high: ClassVar[float] = math.inf

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.record = layout_of(game)
        layout = Layout()
        for name, slot in self.record.fields.items():
            layout.add(name, slot.size)
        self.layout = layout

    def encode(self, obs: JSON) -> Array:
        out: list[float] = []
        self.record.put(obs, out)
        return np.array(out, dtype=np.float32)

    def render(self, obs: JSON) -> str:
        return json.dumps(obs, sort_keys=True, indent=1)

    def show(self, state: State, mode: str | None) -> str | None:
        """The spectator's observation as JSON under a line saying whose turn it is (or who won)."""
        if state.is_terminal():
            head = f"{state.game.title}: game over, won by seat(s) {', '.join(map(str, state.winners()))}"
        else:
            head = f"{state.game.title}: seat {state.current_player} to move"
        text = head + "\n" + self.render(state.observation(None))
        if mode == "human":
            print(text)
            return None
        return text

    def tracker(self) -> ObservationTracker:
        return ObservationTracker(self)


class ObservationTracker(Tracker[State]):
    """The fast path of an encoder that has none: the observation dict, encoded."""

    def __init__(self, encoder: Encoder[Any]) -> None:
        super().__init__(0)
        self.encoder = encoder

    def rebuild(self, state: State) -> None:
        """Nothing is kept between calls."""

    def advance(self, state: State, action: int) -> bool:
        return True

    def view(self, state: State, seat: int) -> Array:
        return self.encoder.encode(state.observation(seat))
