"""Fixtures for the Masker rules tests: the literal reference model (``reference.py``).

``tests`` has no ``__init__.py`` files, so the reference module is loaded from its path under a name
of its own (``masker_reference``) rather than as a top-level ``reference`` that another test
directory could shadow.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

_NAME = "masker_reference"


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
    """The reference module (``ref.RefState.from_serialized(state.serialize())``)."""
    return _load_reference()
