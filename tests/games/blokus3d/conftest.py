"""Fixtures for the Blokus 3D rules tests: the reference legal-move generator (``reference.py``).

``tests`` has no ``__init__.py`` files, so the reference module is loaded from its path under a name
of its own (``blokus3d_reference``) rather than as a top-level ``reference`` that another test
directory could shadow.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

_NAME = "blokus3d_reference"


def _load_reference() -> ModuleType:
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("reference.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def ref() -> ModuleType:
    """The whole reference module (orientations, action ids, the generator)."""
    return _load_reference()


@pytest.fixture(scope="session")
def reference_legal_actions() -> Callable[..., list[int]]:
    """``reference_legal_actions(state, colour=None)``: the sorted legal ids, computed from the spec."""
    function: Callable[..., Any] = _load_reference().reference_legal_actions
    return function
