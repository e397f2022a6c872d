"""The consoles and the error convention every command shares, game parts' commands included.

Bad input is one line on stderr naming what is allowed, and exit code 2 (:func:`fail`).

The consoles interpret no markup and no emoji codes: what they print may hold text a person typed
or a file brought (a path, a structure's name, a chat line), and ``[/]`` or ``:smile:`` in it is
shown as typed.  Styles come from ``rich.text.Text`` objects.  Text read from a file also goes
through :func:`printable` (or :func:`printable_json`), which replaces the control characters a
terminal would obey (escape sequences, title changes) before it is drawn.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

console = Console(markup=False, emoji=False)
err_console = Console(stderr=True, markup=False, emoji=False)

REPLACEMENT = "\ufffd"
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides."""
_CONTROL_OR_BREAK = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def printable(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character a terminal would act on replaced by U+FFFD (with
    ``one_line``, also tabs and line breaks, by a space)."""
    if one_line:
        return _CONTROL_OR_BREAK.sub(
            lambda m: " " if m.group() in "\t\n\r\u2028\u2029" else REPLACEMENT, text
        )
    return _CONTROL.sub(REPLACEMENT, text)


def printable_json(value: Any) -> Any:
    """A parsed JSON value with :func:`printable` applied to every string in it (keys too)."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [printable_json(v) for v in value]
    if isinstance(value, dict):
        return {printable(str(k)): printable_json(v) for k, v in value.items()}
    return value


def fail(message: str) -> NoReturn:
    """One line on stderr, exit code 2 (bad input)."""
    err_console.print(
        f"masques: error: {printable(message, one_line=True)}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    raise typer.Exit(2)


def warn(message: str) -> None:
    """One line on stderr that does not end the command."""
    err_console.print(
        f"masques: {printable(message, one_line=True)}", highlight=False, markup=False, soft_wrap=True
    )


def progress_bar() -> Progress:
    """A transient bar on stderr: done/total and the time taken."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
