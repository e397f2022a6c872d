"""Game records: ``{game, rules_version, options, seed, actions}`` as JSON, and exact replay.

The same record format serves the CLI, the server's storage and replays.  A seat or a spectator
downloads a *redacted* record instead: the observations that viewer had after each action, so it
holds nothing that viewer could not see.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .core import JSON, ActionError, EngineError, RecordError, State
from .registry import game_class

RECORD_FORMAT = "masques-record"
MAX_RECORD_BYTES = 5_000_000


@dataclass
class GameRecord:
    """A whole game, replayable: the game, its options and seed, and the actions in order."""

    game: str
    rules_version: str
    options: dict[str, JSON]
    seed: int
    actions: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, state: State) -> GameRecord:
        g = state.game
        return cls(g.name, g.rules_version, dict(g.options), state.seed, list(state.history))

    def to_json(self) -> dict[str, JSON]:
        return {
            "format": RECORD_FORMAT,
            "game": self.game,
            "rules_version": self.rules_version,
            "options": self.options,
            "seed": self.seed,
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
        missing = [k for k in ("game", "rules_version", "options", "seed", "actions") if k not in obj]
        if missing:
            raise RecordError(f"record lacks {', '.join(missing)}")
        game, version, options = obj["game"], obj["rules_version"], obj["options"]
        seed, actions = obj["seed"], obj["actions"]
        if not isinstance(game, str) or not isinstance(version, str):
            raise RecordError("'game' and 'rules_version' must be strings")
        if not isinstance(options, dict):
            raise RecordError("'options' must be an object")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RecordError("'seed' must be an integer")
        if not isinstance(actions, list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in actions
        ):
            raise RecordError("'actions' must be a list of integer action ids")
        return cls(game, version, options, seed, list(actions))

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError(f"record is larger than {MAX_RECORD_BYTES} bytes")
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"record is not valid JSON: {exc}") from None
        return cls.from_json(obj)

    def replay(self, each: Callable[[State], None] | None = None) -> State:
        """Rebuild the game; ``each`` sees the initial state and the state after every action."""
        try:
            cls = game_class(self.game)
        except EngineError as exc:
            raise RecordError(str(exc)) from None
        if cls.rules_version != self.rules_version:
            raise RecordError(
                f"record is for {self.game} rules version {self.rules_version}; "
                f"this build has version {cls.rules_version}"
            )
        try:
            state = cls(self.options).new_initial_state(self.seed)
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
