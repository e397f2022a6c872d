"""The game registry: every game known to Masques, by name, and each game's parts.

Games register themselves here (``masques.games`` imports each shipped game package; other
distributions add games through the ``masques.games`` entry point group, each entry naming a
:class:`Game` subclass), so the CLI, the conformance kit, records and later layers find games by name
without knowing their modules.

A game's *parts* are what the upper layers need beyond the rules: the bot evaluation and level
tuning (``"bot"``), the terminal view (``"terminal"``), the RL encoder (``"rl"``), the rules
figures (``"figures"``)...  A game names them in :attr:`Game.parts` as ``"module:attribute"``
strings; :func:`game_part` imports one on first use.  The engine never imports a part itself, so
rules modules stay free of upper layers, and each layer keeps a working default for a game that
brings no part of its kind.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

from .core import JSON, EngineError, Game

ENTRY_POINT_GROUP = "masques.games"
"""Installed distributions add games here: ``name = "package.module:GameClass"``."""

_GAMES: dict[str, type[Game]] = {}
_PARTS: dict[tuple[str, str], Any] = {}


class UnknownGameError(EngineError, KeyError):
    """No game is registered under that name."""

    def __str__(self) -> str:
        return str(self.args[0])


def register(game_class: type[Game]) -> type[Game]:
    """Add a game class to the registry (usable as a decorator)."""
    if game_class.name in _GAMES and _GAMES[game_class.name] is not game_class:
        raise ValueError(f"a different game is already registered as {game_class.name!r}")
    _GAMES[game_class.name] = game_class
    for key in [k for k in _PARTS if k[0] == game_class.name]:
        del _PARTS[key]
    return game_class


@functools.cache
def _ensure_loaded() -> None:
    import masques.games  # noqa: F401  (registers the shipped games)

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        loaded = entry.load()
        if not (isinstance(loaded, type) and issubclass(loaded, Game)):
            raise TypeError(f"entry point {entry.name!r} of {ENTRY_POINT_GROUP} is not a Game subclass")
        register(loaded)


def game_part(name: str, kind: str) -> Any | None:
    """The part ``kind`` of game ``name`` (imported on first use), or None if the game brings none.

    An import error inside a part is not swallowed: a game that names a part must ship it.
    """
    cls = game_class(name)
    key = (name, kind)
    if key not in _PARTS:
        where = cls.parts.get(kind)
        if where is None:
            _PARTS[key] = None
        else:
            module_name, _, attribute = where.partition(":")
            module = importlib.import_module(module_name)
            _PARTS[key] = getattr(module, attribute) if attribute else module
    return _PARTS[key]


def game_names() -> list[str]:
    """Registered game names, sorted."""
    _ensure_loaded()
    return sorted(_GAMES)


def game_class(name: str) -> type[Game]:
    """The class registered as ``name``; :class:`UnknownGameError` names the known games."""
    _ensure_loaded()
    try:
        return _GAMES[name]
    except KeyError:
        raise UnknownGameError(f"unknown game {name!r}; games are: {', '.join(sorted(_GAMES))}") from None


def load_game(name: str, options: Mapping[str, JSON] | None = None) -> Game:
    """A game by name with validated options."""
    return game_class(name)(options)


def game_catalogue(*, open_options_as_text: bool = False) -> list[dict[str, JSON]]:
    """Every game with its options, defaults and allowed values: what ``masques games`` and
    ``GET /api/games`` show.  An option without a fixed list of values has ``allowed`` = [] or, with
    ``open_options_as_text``, a sentence saying what it accepts."""
    out: list[dict[str, JSON]] = []
    for name in game_names():
        cls = game_class(name)
        options: list[JSON] = [
            {
                "name": s.name,
                "type": s.kind,
                "default": s.default,
                "allowed": list(s.choices) if s.choices or not open_options_as_text else s.describe_allowed(),
                "help": s.help,
                "only_with": _condition(s.only_with),
            }
            for s in cls.option_specs
        ]
        out.append({"name": name, "title": cls.title, "rules_version": cls.rules_version, "options": options})
    return out


def _condition(only_with: tuple[str, JSON] | None) -> JSON:
    """An option's ``only_with`` as JSON: which option, and the value it must have."""
    return None if only_with is None else {"option": only_with[0], "value": only_with[1]}
