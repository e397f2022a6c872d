"""Turning ``--name value`` command-line words into a game's validated options."""

from __future__ import annotations

from pathlib import Path

from ..engine import JSON, Game, InvalidOptionError, game_class
from .files import parse_json, parse_toml, read_text, reason


def _load_json_value(game: str, name: str, text: str) -> JSON:
    """A ``json`` option's value: inline JSON (text that starts with ``{``), or a path to a .json or
    .toml file, or other inline JSON.  Whatever is wrong with it is an InvalidOptionError."""
    if text.lstrip().startswith("{"):
        return _parse(game, name, text, toml=False)
    path = Path(text)
    try:
        exists, is_file = path.exists(), path.is_file()
    except (OSError, ValueError):  # e.g. longer than a file name may be, or a NUL in it
        exists = is_file = False
    if not (exists or path.suffix.lower() in (".json", ".toml")):
        return _parse(game, name, text, toml=False)
    if not is_file:
        raise InvalidOptionError(game, name, f"file {text!r} does not exist")
    try:
        raw = read_text(path)
    except OSError as exc:
        raise InvalidOptionError(game, name, f"cannot read {text!r}: {reason(exc)}") from None
    except ValueError as exc:
        raise InvalidOptionError(game, name, f"file {text!r} is {exc}") from None
    return _parse(game, name, raw, toml=path.suffix.lower() == ".toml", source=f"file {text!r}")


def _parse(game: str, name: str, text: str, *, toml: bool, source: str = "") -> JSON:
    try:
        value: JSON = parse_toml(text) if toml else parse_json(text)
    except ValueError as exc:
        raise InvalidOptionError(game, name, f"{source} is {exc}" if source else f"is {exc}") from None
    return value


def parse_game_options(game: str, words: list[str]) -> dict[str, JSON]:
    """Parse ``--players 3 --two-player-scoring best --random-first`` against the game's options."""
    cls = game_class(game)
    options: dict[str, JSON] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--") or len(word) < 3:
            raise InvalidOptionError(game, word, "is not an option (options look like --name value)")
        key, eq, inline = word[2:].partition("=")
        name = key.replace("-", "_")
        spec = cls.option_spec(name)
        if name in options:  # the last one winning would hide a typo in the first
            raise InvalidOptionError(game, name, "is given twice")
        if eq:
            value_text = inline
        elif spec.kind == "bool" and (i + 1 >= len(words) or words[i + 1].startswith("--")):
            value_text = "true"
        else:
            if i + 1 >= len(words):
                raise InvalidOptionError(game, name, f"needs a value: one of {spec.describe_allowed()}")
            i += 1
            value_text = words[i]
        options[name] = (
            _load_json_value(game, name, value_text)
            if spec.kind == "json"
            else spec.parse_text(game, value_text)
        )
        i += 1
    return options


def load_with_words(game: str, words: list[str]) -> Game:
    """The game ``game`` with options parsed from command-line words."""
    return game_class(game)(parse_game_options(game, words))
