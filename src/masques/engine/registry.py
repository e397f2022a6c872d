"""The game registry: every game known to Masques, by name.

Games register themselves here (``masques.games`` imports each game package), so the CLI, the
conformance kit, records and later layers find games by name without knowing their modules.
"""

from __future__ import annotations

from collections.abc import Mapping

from .core import JSON, EngineError, Game

_GAMES: dict[str, type[Game]] = {}


class UnknownGameError(EngineError, KeyError):
    """No game is registered under that name."""

    def __str__(self) -> str:
        return str(self.args[0])


def register(game_class: type[Game]) -> type[Game]:
    """Add a game class to the registry (usable as a decorator)."""
    if game_class.name in _GAMES and _GAMES[game_class.name] is not game_class:
        raise ValueError(f"a different game is already registered as {game_class.name!r}")
    _GAMES[game_class.name] = game_class
    return game_class


def _ensure_loaded() -> None:
    import masques.games  # noqa: F401  (registers the shipped games)


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
            }
            for s in cls.option_specs
        ]
        out.append({"name": name, "title": cls.title, "rules_version": cls.rules_version, "options": options})
    return out
