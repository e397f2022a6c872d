"""Loading a test helper module that sits beside a conftest, under a name of its own.

``tests`` has no ``__init__.py`` files, so a helper like ``reference.py`` is loaded from its path as,
say, ``masker_reference``: a plain top-level ``reference`` would clash across test folders.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_beside(anchor: str, filename: str, name: str) -> ModuleType:
    """The module ``filename`` in the folder of ``anchor`` (a ``__file__``), registered as ``name``."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(anchor).with_name(filename))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
