"""Fixtures for the Blokus 3D rules tests: the reference legal-move generator (``reference.py``).

``tests`` has no ``__init__.py`` files, so the reference module is loaded from its path under a name
of its own (``blokus3d_reference``) rather than as a top-level ``reference`` that another test
directory could shadow.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from local_modules import load_beside

_NAME = "blokus3d_reference"


def _load_reference() -> ModuleType:
    return load_beside(__file__, "reference.py", _NAME)


@pytest.fixture(scope="session")
def ref() -> ModuleType:
    """The whole reference module (orientations, action ids, the generator)."""
    return _load_reference()


@pytest.fixture(scope="session")
def reference_legal_actions() -> Callable[..., list[int]]:
    """``reference_legal_actions(state, colour=None)``: the sorted legal ids, computed from the spec."""
    function: Callable[..., Any] = _load_reference().reference_legal_actions
    return function
