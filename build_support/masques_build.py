"""The package's build backend: setuptools', after the browser client is built into the package.

A wheel or an sdist made from a checkout then carries ``masques/server/static`` (the client is
git-ignored build output), so an installed server serves it without Node.js, and a copy of the
rules pages (``docs/rules/*.md`` into ``masques/server/rules``) that it renders.  Building from an
sdist, which has no ``web/`` sources but the built client, needs no Node.js either.  Editable
installs (development) are setuptools' own: the checkout builds its client with
``scripts/build_web.sh``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every other hook is setuptools' own

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "src" / "masques" / "server" / "static" / "index.html"
RULES = ROOT / "src" / "masques" / "server" / "rules"


def _build_client() -> None:
    if (ROOT / "web" / "package.json").is_file():
        subprocess.run(["bash", str(ROOT / "scripts" / "build_web.sh")], check=True)
    if not BUILT.is_file():
        raise RuntimeError(
            "the web client is not built and its sources are missing: build the package from a checkout"
        )
    # The rules pages the server renders (docs/rules/ in a checkout) travel in the package too.
    pages = ROOT / "docs" / "rules"
    if pages.is_dir():
        RULES.mkdir(exist_ok=True)
        for old in RULES.glob("*.md"):
            old.unlink()
        for page in pages.glob("*.md"):
            shutil.copyfile(page, RULES / page.name)


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    _build_client()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    _build_client()
    return _setuptools.build_sdist(sdist_directory, config_settings)
