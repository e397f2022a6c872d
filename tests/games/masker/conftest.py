"""Fixtures for the Masker rules tests: the literal reference model (``reference.py``).

``tests`` has no ``__init__.py`` files, so the reference module is loaded from its path under a name
of its own (``masker_reference``) rather than as a top-level ``reference`` that another test
directory could shadow.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from local_modules import load_beside

_NAME = "masker_reference"


def _load_reference() -> ModuleType:
    return load_beside(__file__, "reference.py", _NAME)


@pytest.fixture(scope="session")
def ref() -> ModuleType:
    """The reference module (``ref.RefState.from_serialized(state.serialize())``)."""
    return _load_reference()
