"""Game records: ``{game, rules_version, options, seed, chance, actions}`` as JSON, and exact replay.

The same record format serves the CLI, the server's storage and replays.  A seat or a spectator
downloads a *redacted* record instead: the observations that viewer had after each action, so it
holds nothing that viewer could not see.

``chance`` is the version of the chance generator the game was dealt with (``engine/chance.py``); a
record without it predates version 2 and is version 1.  A seed below 2**53 is written as a JSON
integer and a larger one as a decimal string, so that it survives JavaScript's numbers; both are read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .chance import CHANCE_VERSION, CHANCE_VERSIONS, LEGACY_CHANCE, SEED_LIMIT
from .core import JSON, ActionError, EngineError, RecordError, State
from .registry import game_class

RECORD_FORMAT = "masques-record"
MAX_RECORD_BYTES = 5_000_000
JSON_SAFE_INTEGER = 2**53
"""Integers below this are exact in JavaScript's numbers; larger seeds are written as strings."""

_DECIMAL = re.compile(r"0|[1-9][0-9]{0,77}")
RECORD_FIELDS = ("format", "game", "rules_version", "options", "seed", "chance", "actions")
"""What a record may hold.  Any other field is refused: a misspelt ``chance`` would otherwise replay
the game silently with the first chance version's deal."""


def seed_to_json(seed: int) -> int | str:
    """A seed as a record writes it: an integer if JavaScript holds it exactly, else its decimal string."""
    return seed if seed < JSON_SAFE_INTEGER else str(seed)


def seed_from_json(value: object) -> int:
    """A record's seed, written either way; :class:`RecordError` unless ``0 <= seed < 2**256``."""
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        seed = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        seed = value
    else:
        raise RecordError("'seed' must be an integer or its decimal string")
    if not 0 <= seed < SEED_LIMIT:
        raise RecordError("'seed' must be from 0 to 2**256 - 1")
    return seed


@dataclass
class GameRecord:
    """A whole game, replayable: the game, its options, seed and chance version, and the actions."""

    game: str
    rules_version: str
    options: dict[str, JSON]
    seed: int
    actions: list[int] = field(default_factory=list)
    chance: int = CHANCE_VERSION

    @classmethod
    def of(cls, state: State) -> GameRecord:
        g = state.game
        return cls(g.name, g.rules_in_force, dict(g.options), state.seed, list(state.history), state.chance)

    def to_json(self) -> dict[str, JSON]:
        return {
            "format": RECORD_FORMAT,
            "game": self.game,
            "rules_version": self.rules_version,
            "options": self.options,
            "seed": seed_to_json(self.seed),
            "chance": self.chance,
            "actions": self.actions,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, sort_keys=True, allow_nan=False)

    @classmethod
    def from_json(cls, obj: Any) -> GameRecord:
        """Validate a parsed record; :class:`RecordError` says what is wrong."""
        if not isinstance(obj, dict):
            raise RecordError("a record is a JSON object")
        if obj.get("format", RECORD_FORMAT) != RECORD_FORMAT:
            raise RecordError(f"not a {RECORD_FORMAT} (format is {obj.get('format')!r})")
        unknown = [repr(k) for k in obj if k not in RECORD_FIELDS]
        if unknown:
            raise RecordError(
                f"record has unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown[:5])}"
                f" (a record holds {', '.join(RECORD_FIELDS)})"
            )
        missing = [k for k in ("game", "rules_version", "options", "seed", "actions") if k not in obj]
        if missing:
            raise RecordError(f"record lacks {', '.join(missing)}")
        game, version, options = obj["game"], obj["rules_version"], obj["options"]
        seed, actions = obj["seed"], obj["actions"]
        if not isinstance(game, str) or not isinstance(version, str):
            raise RecordError("'game' and 'rules_version' must be strings")
        if not isinstance(options, dict):
            raise RecordError("'options' must be an object")
        seed = seed_from_json(seed)
        chance = obj.get("chance", LEGACY_CHANCE)
        if isinstance(chance, bool) or not isinstance(chance, int) or chance not in CHANCE_VERSIONS:
            known = ", ".join(map(str, CHANCE_VERSIONS))
            raise RecordError(f"'chance' must be one of {known} (got {chance!r})")
        if not isinstance(actions, list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in actions
        ):
            raise RecordError("'actions' must be a list of integer action ids")
        return cls(game, version, options, seed, list(actions), chance)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError(f"record is larger than {MAX_RECORD_BYTES} bytes")
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"record is not valid JSON: {exc}") from None
        except RecursionError:
            raise RecordError("record is not valid JSON: it is nested too deeply") from None
        except ValueError as exc:  # e.g. an integer of more digits than Python converts
            raise RecordError(f"record is not valid JSON: {exc}") from None
        return cls.from_json(obj)

    def replay(self, each: Callable[[State], None] | None = None) -> State:
        """Rebuild the game; ``each`` sees the initial state and the state after every action."""
        try:
            cls = game_class(self.game)
        except EngineError as exc:
            raise RecordError(str(exc)) from None
        try:
            game = cls.for_rules_version(self.rules_version, self.options)
            state = game.new_initial_state(self.seed, chance=self.chance)
        except RecordError:
            raise  # a rules version this build cannot replay: its own words
        except EngineError as exc:
            raise RecordError(f"record options are invalid: {exc}") from None
        if each:
            each(state)
        for i, action in enumerate(self.actions):
            try:
                state.apply(action)
            except ActionError as exc:
                raise RecordError(f"action {i} ({action}) does not replay: {exc}") from None
            if each:
                each(state)
        return state


def redacted_record(record: GameRecord, seat: int | None) -> dict[str, JSON]:
    """What ``seat`` (None = spectator) may download: its observation after each action."""
    observations: list[JSON] = []
    record.replay(lambda s: observations.append(s.observation(seat)))
    return {
        "format": "masques-redacted-record",
        "game": record.game,
        "rules_version": record.rules_version,
        "options": record.options,
        "seat": seat,
        "observations": observations,
    }
