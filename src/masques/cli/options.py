"""Turning ``--name value`` command-line words into a game's validated options."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from ..engine import JSON, Game, InvalidOptionError, game_class


def _load_json_value(game: str, name: str, text: str) -> JSON:
    """A ``json`` option's value: a path to a .json/.toml file, or inline JSON."""
    path = Path(text)
    try:
        if path.suffix.lower() in (".json", ".toml") or path.exists():
            if not path.is_file():
                raise InvalidOptionError(game, name, f"file {text!r} does not exist")
            raw = path.read_text("utf-8")
            if path.suffix.lower() == ".toml":
                return tomllib.loads(raw)
            return json.loads(raw)
        return json.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidOptionError(game, name, f"is not valid JSON/TOML: {exc}") from None
    except OSError as exc:
        raise InvalidOptionError(game, name, f"cannot be read: {exc}") from None


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
