"""The consoles and the error convention every command shares, game parts' commands included.

Bad input is one line on stderr naming what is allowed, and exit code 2 (:func:`fail`).
"""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

console = Console()
err_console = Console(stderr=True)


def fail(message: str) -> NoReturn:
    """One line on stderr, exit code 2 (bad input)."""
    err_console.print(f"masques: error: {message}", highlight=False, markup=False, soft_wrap=True)
    raise typer.Exit(2)


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
