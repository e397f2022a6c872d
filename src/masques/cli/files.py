"""Reading the files a command is given (records, option files) without trusting them.

A file is read up to a size limit, decoded as UTF-8 and parsed; whatever is wrong with it (too big,
not UTF-8, not JSON, nested too deeply, a number too long) is a :class:`ValueError` whose message
says so in a few words, so that the command can refuse it in one line.  Writing checks a path
before a long task needs it (:func:`check_writable`).
"""

from __future__ import annotations

import errno
import json
import os
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 64 * 2**20
"""The largest file read (64 MiB): far above any record or option file, far below a memory problem."""
MAX_NESTING = 64
"""The deepest nesting of lists and objects accepted; records and options need fewer than ten."""


def read_text(path: Path, limit: int | None = None) -> str:
    """The file's text; OSError if it cannot be read, ValueError if it is bigger than ``limit``
    bytes (default :data:`MAX_FILE_BYTES`) or not UTF-8.  No more than that is ever read."""
    limit = MAX_FILE_BYTES if limit is None else limit
    with path.open("rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        size = f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit:,} bytes"
        raise ValueError(f"larger than {size}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None


def nesting(value: Any) -> int:
    """How deeply lists and objects nest in a parsed value (a scalar: 0), without recursion."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            depth += 1
            deepest = max(deepest, depth)
            if depth > MAX_NESTING:
                break
            todo.extend((v, depth) for v in item)
    return deepest


def _checked(value: Any) -> Any:
    if nesting(value) > MAX_NESTING:
        raise ValueError(f"nested more than {MAX_NESTING} levels deep")
    return value


def _too_long(exc: ValueError, kind: str) -> str:
    if "digits" in str(exc):
        return f"not usable {kind}: it holds a number of more than {sys.get_int_max_str_digits()} digits"
    return f"not usable {kind}: {exc}"


def parse_json(text: str) -> Any:
    """Parse JSON text; ValueError with a short reason for anything that is not usable JSON."""
    return _parse(text, json.loads, json.JSONDecodeError, "JSON")


def parse_toml(text: str) -> Any:
    """Parse TOML text, as :func:`parse_json` parses JSON."""
    return _parse(text, tomllib.loads, tomllib.TOMLDecodeError, "TOML")


def _parse(text: str, loads: Callable[[str], Any], malformed: type[ValueError], kind: str) -> Any:
    try:
        return _checked(loads(text))
    except malformed as exc:
        raise ValueError(f"not valid {kind}: {exc}") from None
    except RecursionError:
        raise ValueError(f"nested more than {MAX_NESTING} levels deep") from None
    except ValueError as exc:  # an integer longer than Python converts (4,300 digits)
        raise ValueError(_too_long(exc, kind)) from None


def reason(exc: OSError) -> str:
    """An OSError in a few words, without repeating the path (``Is a directory``)."""
    return exc.strerror or str(exc)


def make_parent(path: Path) -> None:
    """Make the folders ``path`` goes in (OSError naming the file in the way if one is)."""
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(ancestor))
    path.parent.mkdir(parents=True, exist_ok=True)


def check_writable(path: Path) -> None:
    """OSError unless a file can be written at ``path`` (its folders are made; nothing else stays)."""
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    make_parent(path)
    existed = path.exists()
    with path.open("a", encoding="utf-8"):
        pass
    if not existed:
        path.unlink(missing_ok=True)
