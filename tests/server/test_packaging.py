"""The package as an operator installs it: a wheel built from the checkout carries the web client,
and installed in a fresh virtual environment outside the checkout, its ``masques serve`` serves the
client and plays a whole match."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import masques_server_support as support
import pytest

ROOT = Path(__file__).resolve().parents[2]
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, installed with its dependencies in a new environment: that environment's python."""
    assert UV is not None, "uv is part of the dev dependencies"
    place = tmp_path_factory.mktemp("package")
    wheels = place / "dist"
    subprocess.run([UV, "build", "--wheel", "-q", "-o", str(wheels), str(ROOT)], check=True, cwd=place)
    (wheel,) = wheels.glob("masques-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "masques/server/static/index.html" in names
    assert {"masques/server/rules/masker.md", "masques/server/rules/masker.fr.md"} <= set(names)
    assert any(re.fullmatch(r"masques/server/static/assets/[^/]+\.js", n) for n in names)
    environment = place / "venv"
    subprocess.run([UV, "venv", "-q", "--python", sys.executable, str(environment)], check=True, cwd=place)
    python = environment / "bin" / "python"
    subprocess.run([UV, "pip", "install", "-q", "--python", str(python), str(wheel)], check=True, cwd=place)
    return python


@pytest.mark.slow
def test_an_installed_wheel_serves_the_client_and_plays_a_match(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run(
        [str(installed), "-c", "import masques; print(masques.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout.strip()
    assert where.startswith(str(installed.parents[1])) and not where.startswith(str(ROOT / "src"))
    masques = installed.parent / "masques"
    server = support.ServerProcess(
        f"sqlite:///{tmp_path / 'site.sqlite3'}",
        support.free_port(),
        tmp_path / "serve.log",
        bot_workers=2,
        program=[str(masques)],
        cwd=tmp_path,
    ).start(timeout=120)
    try:
        with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
            page = api.get("/")
            assert page.status_code == 200, page.text
            script = re.search(r'src="(/assets/[^"]+\.js)"', page.text)
            assert script is not None and api.get(script.group(1)).status_code == 200
            assert api.get("/readyz").json()["status"] == "ready"
            rules = api.get("/api/rules/maske", params={"lang": "fr"})
            assert rules.status_code == 200 and rules.json()["html"], rules.text
            support.finished_match(api, server.ws_url, "masker", {"players": 2}, ["human", "easy"])
    finally:
        server.stop()
