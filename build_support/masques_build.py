"""The package's build backend: setuptools', after the browser client is built into the package.

A wheel or an sdist made from a checkout then carries ``masques/server/static`` (the client is
git-ignored build output), so an installed server serves it without Node.js.  Building from an sdist,
which has no ``web/`` sources but the built client, needs no Node.js either.  Editable installs
(development) are setuptools' own: the checkout builds its client with ``scripts/build_web.sh``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every other hook is setuptools' own

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "src" / "masques" / "server" / "static" / "index.html"


def _build_client() -> None:
    if (ROOT / "web" / "package.json").is_file():
        subprocess.run(["bash", str(ROOT / "scripts" / "build_web.sh")], check=True)
    if not BUILT.is_file():
        raise RuntimeError(
            "the web client is not built and its sources are missing: build the package from a checkout"
        )


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    _build_client()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    _build_client()
    return _setuptools.build_sdist(sdist_directory, config_settings)
