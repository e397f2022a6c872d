"""The engine layer: the game contract, records and the registry (pure rules, no I/O)."""

from .core import (
    JSON,
    SPECTATOR,
    TERMINAL,
    ActionError,
    EngineError,
    Game,
    HiddenField,
    IllegalActionError,
    InvalidOptionError,
    MalformedActionError,
    OptionSpec,
    RecordError,
    State,
)
from .records import GameRecord, redacted_record
from .registry import UnknownGameError, game_catalogue, game_class, game_names, load_game, register

__all__ = [
    "JSON",
    "SPECTATOR",
    "TERMINAL",
    "ActionError",
    "EngineError",
    "Game",
    "GameRecord",
    "HiddenField",
    "IllegalActionError",
    "InvalidOptionError",
    "MalformedActionError",
    "OptionSpec",
    "RecordError",
    "State",
    "UnknownGameError",
    "game_catalogue",
    "game_class",
    "game_names",
    "load_game",
    "redacted_record",
    "register",
]
