"""Optional parts of masques and the extras that install them.

The engine, the command line and the server on SQLite need only the required dependencies; a
feature that needs more names the extra to install when it is missing, instead of failing with an
import error deep inside a library.
"""

from __future__ import annotations

import importlib.util

EXTRAS = {
    "numba": "fast",  # the compiled Mascarade endgame solver (without it: the same solver in Python)
    "matplotlib": "plots",  # the arena's rating plots
    "psycopg": "postgres",  # PostgreSQL databases
    "redis": "redis",  # several server processes sharing matches, rate limits in Redis
    "arq": "workers",  # bot workers on other processes and machines, fed through Redis
    "ray": "ray",  # the arena's games on a Ray cluster
}


class MissingExtraError(ImportError):
    """A feature needs a package that is not installed; the message names the extra."""


def available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def require(module: str, purpose: str) -> None:
    """Raise :class:`MissingExtraError` naming the extra for ``module`` when it is not installed."""
    if not available(module):
        extra = EXTRAS.get(module, module)
        raise MissingExtraError(f"{purpose} needs {module}: pip install 'masques[{extra}]'")
