"""The engine contract every Masques game implements (see ``architecture.md``).

A :class:`Game` holds validated options and the facts that do not change during play (players, size of
the action space).  A :class:`State` is one position: it knows whose turn it is, which integer actions are
legal, and how to apply one.  Every action is an integer id in ``range(game.num_distinct_actions)`` so that
records stay compact and RL action masks have a fixed size.

Rules code lives in each game's package; this module holds only what all games share: option
validation, the typed errors, and the checks that make ``apply`` safe (a bad action raises and leaves the
state exactly as it was, because validation happens before any mutation).
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

JSON: TypeAlias = Any
"""A JSON-safe value (dict/list/str/int/float/bool/None)."""

TERMINAL = -4
"""``State.current_player`` once the game is over (the value OpenSpiel uses)."""

SPECTATOR = None
"""Pass as the seat to :meth:`State.observation` to get what a spectator may see."""


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


KIND_WORDS = {"int": "an integer", "str": "a string", "bool": "true or false", "json": "JSON"}
"""An option's kind, in the words of an error message."""
MAX_OPTION_DEPTH = 32
"""How deeply a game's options may nest lists and objects: far more than any option needs, and few
enough that copying them can never exhaust Python's recursion limit."""


class InvalidOptionError(EngineError, ValueError):
    """A game option has an unknown name, a wrong type or a value outside its allowed set."""

    def __init__(self, game: str, option: str, message: str) -> None:
        self.game = game
        self.option = option
        super().__init__(f"{game}: option {option!r} {message}")


class ActionError(EngineError):
    """An action was refused; the state is unchanged."""

    def __init__(self, reason: str, action: object = None) -> None:
        self.reason = reason
        self.action = action
        super().__init__(reason)


class MalformedActionError(ActionError, ValueError):
    """The action is not an action at all: wrong type, out of range, unparseable text or JSON."""


class IllegalActionError(ActionError):
    """A well-formed action that the rules forbid in this position (or the game is over)."""


class RecordError(EngineError, ValueError):
    """A game record is malformed, names an unknown game, or does not replay."""


class ViewerError(EngineError, ValueError):
    """An observation was asked for a seat the game does not have (None is the spectator)."""


def bad_viewer(seat: object, players: int) -> ViewerError:
    """The error of :meth:`State.observation` for a ``seat`` that is no seat of the game: a seat
    such as -1 must not quietly read as another seat's eyes."""
    return ViewerError(f"a viewer is a seat from 0 to {players - 1}, or None for a spectator; not {seat!r}")


def is_viewer(seat: object, players: int) -> bool:
    """Whether ``seat`` may be asked for an observation: None, or a seat number of the game."""
    return seat is None or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < players)


@dataclass(frozen=True)
class OptionSpec:
    """One game option: its name, type, default and allowed values.

    ``choices`` lists every allowed value when the set is small (it is what error messages and
    ``masques games`` show); ``kind`` is ``"int"``, ``"str"``, ``"bool"`` or ``"json"`` (a free JSON value
    checked by the game itself, e.g. a custom structure grid).  ``only_with`` names another option and
    the value it must have for this one to mean anything (a form shows the field only then).
    """

    name: str
    kind: str
    default: JSON
    help: str
    choices: tuple[JSON, ...] = ()
    only_with: tuple[str, JSON] | None = None

    def describe_allowed(self) -> str:
        if self.choices:
            return ", ".join(_show(c) for c in self.choices)
        if self.kind == "bool":
            return "true, false"
        return f"any {self.kind}"

    def parse_text(self, game: str, text: str) -> JSON:
        """Turn a command-line string into a typed value (validation proper happens in the Game)."""
        if self.kind == "int":
            try:
                return int(text)
            except ValueError:
                raise InvalidOptionError(
                    game, self.name, f"must be one of {self.describe_allowed()} (got {text!r})"
                ) from None
        if self.kind == "bool":
            low = text.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise InvalidOptionError(game, self.name, f"must be true or false (got {text!r})")
        return text


def _nesting(value: object) -> int:
    """How deeply lists and objects nest in ``value`` (0 for a scalar), counted without recursion
    and stopping once past the limit, so that no depth can overflow the stack."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Mapping):
            children: Sequence[object] = list(item.values())
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_OPTION_DEPTH:
            return deepest
        pending.extend((child, depth + 1) for child in children)
    return deepest


def _show(value: JSON) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class HiddenField:
    """Declares one piece of hidden information once, for the whole game.

    ``field`` names the part of the true state.  ``visible_to`` says who may see it: ``"nobody"`` (no
    seat, e.g. a deck's order), ``"owner"`` (the seat or seats holding that piece, e.g. a hand, a card a
    seat has drawn) or ``"team"`` (every seat of the holding team).  ``until`` says when it becomes
    public: ``"end"`` (revealed once the game is over), ``"never"``, or the name of an event after
    which the game's hook no longer varies it.

    What reads it: the conformance kit's mutation leak check
    (:func:`masques.engine.conformance.check_hidden_information`) varies every declared part through
    :meth:`Game.vary_hidden` and checks that only the seats allowed to see it notice; bots and the
    server only ask whether a game declares any (then they determinize).  Observations are written by
    each game's :meth:`State.observation`; the kit is what holds them to this declaration.
    """

    field: str
    visible_to: str
    until: str
    note: str = ""


VISIBLE_TO: tuple[str, ...] = ("nobody", "owner", "team")
"""The values :attr:`HiddenField.visible_to` may take."""


@dataclass(frozen=True)
class HiddenVariation:
    """What :meth:`Game.vary_hidden` returns: a copy of a true state with one declared hidden part
    changed, and the seats allowed to see that change (the holders of what changed; empty for a part
    visible to nobody).  Every other seat, and the spectator, must observe exactly what they did."""

    state: State
    seen_by: frozenset[int] = frozenset()


class Game(ABC):
    """A game with fixed, validated options.  Subclasses declare their facts as class variables."""

    name: ClassVar[str]
    title: ClassVar[str]
    rules_version: ClassVar[str]
    option_specs: ClassVar[tuple[OptionSpec, ...]]
    hidden_information: ClassVar[tuple[HiddenField, ...]] = ()
    replays_rules_versions: ClassVar[tuple[str, ...]] = ()
    """Earlier rules versions whose records this build still replays exactly: a game made by
    :meth:`for_rules_version` plays by that version's rules (``rules_in_force``)."""
    parts: ClassVar[Mapping[str, str]] = {}
    """The game's parts for the upper layers, by kind: ``{"bot": "package.module:ATTRIBUTE"}`` (see
    :func:`masques.engine.registry.game_part`; a kind left out gets that layer's default)."""

    @classmethod
    def hidden_after_the_end(cls) -> tuple[HiddenField, ...]:
        """The hidden parts still hidden once the game is over (``until`` other than ``"end"``).  A
        full record (its seed) shows every part, so such a game's finished matches are shared only
        as seats' redacted records."""
        return tuple(part for part in cls.hidden_information if part.until != "end")

    def __init__(self, options: Mapping[str, JSON] | None = None) -> None:
        if options is not None and not isinstance(options, Mapping):
            raise InvalidOptionError(
                self.name, "options", f"must be an object of option names and values (got {_show(options)})"
            )
        for name, value in (options or {}).items():
            if _nesting(value) > MAX_OPTION_DEPTH:
                raise InvalidOptionError(
                    self.name, str(name), f"nests lists and objects more than {MAX_OPTION_DEPTH} deep"
                )
        # A copy of its own: a caller changing its dict later must not change the game (nor its records).
        self.options: dict[str, JSON] = self._validate(copy.deepcopy(dict(options or {})))
        self.rules_in_force: str = self.rules_version
        """The rules version this game plays: the build's, or an earlier one for replaying records."""

    @classmethod
    def for_rules_version(cls, version: str, options: Mapping[str, JSON] | None = None) -> Game:
        """The game with ``options`` playing by rules version ``version`` (the build's own, or one of
        :attr:`replays_rules_versions`); :class:`RecordError` for any other."""
        if version != cls.rules_version and version not in cls.replays_rules_versions:
            older = (
                f" and replays {', '.join(cls.replays_rules_versions)}" if cls.replays_rules_versions else ""
            )
            raise RecordError(
                f"record is for {cls.name} rules version {version}; this build plays version "
                f"{cls.rules_version}{older}"
            )
        game = cls(options)
        game.rules_in_force = version
        return game

    # -- options ---------------------------------------------------------------------------------
    @classmethod
    def option_spec(cls, name: str) -> OptionSpec:
        for spec in cls.option_specs:
            if spec.name == name:
                return spec
        known = ", ".join(s.name for s in cls.option_specs)
        raise InvalidOptionError(cls.name, name, f"is unknown; options are: {known}")

    @classmethod
    def default_options(cls) -> dict[str, JSON]:
        return {spec.name: spec.default for spec in cls.option_specs}

    def _validate(self, given: dict[str, JSON]) -> dict[str, JSON]:
        options = self.default_options()
        for key, value in given.items():
            spec = self.option_spec(key)
            self._check_type(spec, value)
            if spec.choices and value not in spec.choices:
                raise InvalidOptionError(
                    self.name,
                    key,
                    f"must be one of {spec.describe_allowed()} (got {_show(value)})",
                )
            options[key] = value
        self.check_options(options)
        return options

    def _check_type(self, spec: OptionSpec, value: JSON) -> None:
        ok = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "str": isinstance(value, str),
            "bool": isinstance(value, bool),
            "json": True,
        }[spec.kind]
        if not ok:
            kind = KIND_WORDS.get(spec.kind, spec.kind)
            raise InvalidOptionError(
                self.name, spec.name, f"must be {kind}: one of {spec.describe_allowed()} (got {value!r})"
            )

    def check_options(self, options: dict[str, JSON]) -> None:  # noqa: B027 - optional hook
        """Cross-option checks (e.g. "2 colours per player needs 2 players"); raise InvalidOptionError."""

    # -- facts -----------------------------------------------------------------------------------
    @property
    @abstractmethod
    def num_players(self) -> int: ...

    def team_of(self, seat: int) -> int:
        """The team a seat plays for: seats of one team win and lose together (a resignation is the
        team's).  By default every seat is a team of its own."""
        return seat

    @property
    @abstractmethod
    def num_distinct_actions(self) -> int: ...

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of actions in one game."""

    @abstractmethod
    def new_initial_state(self, seed: int = 0, *, chance: int = 2) -> State:
        """The start of a game: every draw comes from ``stream(seed, "<game>/...", version=chance)``
        of ``engine/chance.py`` (the default is its ``CHANCE_VERSION``, written out here because that
        module builds on this one; 1 is the generator of records made before version 2)."""

    def sample_state(self, seat: int | None, observations: Sequence[JSON], rng: random.Random) -> State:
        """A full state consistent with everything ``seat`` has observed (determinization for bots).

        ``observations`` is the seat's observation history, oldest first, the last one being the
        current position.  The state returned gives ``seat`` exactly the observations it already has;
        hidden parts are drawn from ``rng`` by the game's :meth:`_sample_from`.
        """
        if not observations:
            raise ValueError("sample_state needs at least the current observation")
        last = observations[-1]
        owner = last.get("seat", seat) if isinstance(last, dict) else seat
        if owner != seat:  # another seat's hand would be taken for this one's
            raise ValueError(f"these are seat {owner}'s observations, not seat {seat}'s")
        return self._sample_from(seat, last, rng)

    @abstractmethod
    def _sample_from(self, seat: int | None, observation: JSON, rng: random.Random) -> State:
        """The game's sampler, from the seat's current observation (it carries the public history)."""

    def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
        """The hidden-information hook: a copy of ``state`` (left untouched) in which the declared
        ``part`` holds another value consistent with everything public, drawn from ``rng``; ``None``
        when this position allows no other value (e.g. the part is empty or already revealed).

        A game that declares hidden information must override it (in its own package); the
        conformance kit fails a game that declares a part and brings no hook.
        """
        raise NotImplementedError(
            f"{self.name} declares hidden part {part.field!r} but has no vary_hidden hook: write "
            f"{type(self).__name__}.vary_hidden(state, part, rng) returning a HiddenVariation"
        )

    @classmethod
    def conformance_configurations(cls) -> list[dict[str, JSON]]:
        """Option sets the conformance kit runs on (every variant worth checking)."""
        return [{}]

    @classmethod
    def bench_configurations(cls, options: Mapping[str, JSON]) -> list[tuple[str, dict[str, JSON]]]:
        """What ``masques bench`` and ``benchmarks/engine.py`` measure, as (label, options), given the
        options of the command line: by default those options alone (a game may spread them over its
        variants, e.g. every player count when none is given)."""
        return [(", ".join(f"{k}={v}" for k, v in options.items()) or "defaults", dict(options))]

    @classmethod
    def playthrough_configurations(cls) -> list[tuple[str, int, dict[str, JSON]]]:
        """The golden playthroughs, as (tag, seed, options): each is the file
        ``tests/playthroughs/<game>-<tag>-seed<seed>.txt`` (see ``engine/playthroughs.py``).  By
        default one game with the default options at seed 1, so every game has a golden trace."""
        return [("default", 1, {})]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"


class State(ABC):
    """One position of a game.  ``apply`` is the only mutator and is all-or-nothing."""

    game: Game
    seed: int
    chance: int
    """The chance generator's version the state was dealt with (see ``engine/chance.py``)."""
    history: list[int]

    # -- turn ------------------------------------------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int:
        """The seat to act, or :data:`TERMINAL`."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal action ids, sorted ascending; empty once the game is over."""

    @abstractmethod
    def is_legal(self, action: int) -> bool:
        """Whether an in-range action id is legal here (fast; no list is built)."""

    def num_legal_actions(self) -> int:
        """How many actions are legal (games with large action lists override this cheaply)."""
        return len(self.legal_actions())

    def random_legal_action(self, rng: random.Random) -> int:
        """One legal action drawn uniformly (random bots and playouts; games may make it cheap)."""
        return rng.choice(self.legal_actions())

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a validated legal action."""

    def apply(self, action: int) -> None:
        """Apply one action, or raise :class:`ActionError` and change nothing."""
        self.check_action(action)
        self._apply(action)
        self.history.append(action)

    def check_action(self, action: object) -> int:
        """Raise unless ``action`` is a legal action id in this state; return it."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise MalformedActionError(f"an action is an integer id, not {type(action).__name__}", action)
        if not 0 <= action < self.game.num_distinct_actions:
            raise MalformedActionError(
                f"action id {action} is out of range 0..{self.game.num_distinct_actions - 1}", action
            )
        if self.is_terminal():
            raise IllegalActionError("the game is over", action)
        if not self.is_legal(action):
            raise IllegalActionError(
                f"{self.action_to_str(action)} is not legal here: {self.why_illegal(action)}", action
            )
        return action

    def why_illegal(self, action: int) -> str:
        """A short reason a well-formed action is illegal (games may say more)."""
        return "it breaks the placement rules"

    # -- results ---------------------------------------------------------------------------------
    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def scores(self) -> list[float]:
        """Game points per seat (what the rulebook scores), meaningful at any time."""

    def returns(self) -> list[float]:
        """Per-seat result: winners share 1 equally, everyone else gets 0; all zeros before the end."""
        n = self.game.num_players
        if not self.is_terminal():
            return [0.0] * n
        winners = self.winners()
        return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(n)]

    @abstractmethod
    def winners(self) -> list[int]:
        """The seats that share the win (empty before the end)."""

    def mid_turn(self) -> bool:
        """Whether the seat to move is in the middle of a turn it has begun (a Masker turn of up to
        three steps, a Maske paid move of several steps), rather than at the start of a turn: a
        clock's increment comes once a turn.  By default every action is a whole turn."""
        return False

    def is_out(self, seat: int) -> bool:
        """Whether ``seat`` has lost already while the others play on (a Masker player whose colour
        left the board, MK-10): a match that ends early counts it among the losers, and its leaving
        or resigning decides nothing.  Public: every seat sees who is out."""
        return False

    # -- copies and views ------------------------------------------------------------------------
    @abstractmethod
    def clone(self) -> State: ...

    @abstractmethod
    def observation(self, seat: int | None) -> JSON:
        """Everything ``seat`` may know (``None`` = spectator), as a JSON-safe dict."""

    def stopped_observation(self, seat: int | None) -> JSON:
        """What ``seat`` sees once its match has stopped before the game's end (a resignation, a
        time-out, a claim): the observation with the parts declared public at the end
        (``until="end"``) shown, as the game's own end would show them.  The default shows nothing
        more: a game with such parts says how to show them."""
        return self.observation(seat)

    @abstractmethod
    def serialize(self) -> JSON:
        """The full true state as JSON, hidden parts included: for tests and storage, never for a seat."""

    # -- action notation -------------------------------------------------------------------------
    @abstractmethod
    def action_to_json(self, action: int) -> JSON: ...

    @abstractmethod
    def action_from_json(self, obj: JSON) -> int:
        """Parse a JSON action; raise :class:`MalformedActionError` on anything malformed."""

    @abstractmethod
    def action_to_str(self, action: int) -> str: ...

    @abstractmethod
    def action_from_str(self, text: str) -> int:
        """Parse the game's text notation; raise :class:`MalformedActionError` on bad text."""

    def __repr__(self) -> str:
        return f"<{self.game.name} state after {len(self.history)} actions>"
