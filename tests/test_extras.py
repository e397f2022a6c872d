"""Optional features name the extra to install when its package is missing."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from masques import extras
from masques.ai import arena
from masques.extras import MissingExtraError, require
from masques.server.matches import Registry
from masques.server.storage import Storage


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Modules to pretend are not installed."""
    missing: set[str] = set()
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name in missing else real(name, *args, **kwargs)

    monkeypatch.setattr(extras.importlib.util, "find_spec", find_spec)
    return missing


def test_each_optional_package_names_its_extra(without: set[str]) -> None:
    without.update(extras.EXTRAS)
    for module, extra in extras.EXTRAS.items():
        with pytest.raises(MissingExtraError, match=rf"pip install 'masques\[{extra}\]'"):
            require(module, "this")
    without.clear()
    require("numba", "this")  # installed here: nothing to say


def test_postgresql_redis_and_plots_say_which_extra_they_need(without: set[str], tmp_path: Path) -> None:
    without.update({"psycopg", "redis", "matplotlib"})
    with pytest.raises(MissingExtraError, match=r"masques\[postgres\]"):
        Storage("postgresql+psycopg://someone@127.0.0.1:5432/masques")
    storage = Storage(f"sqlite:///{tmp_path / 'site.sqlite3'}")  # SQLite needs no extra
    with pytest.raises(MissingExtraError, match=r"masques\[redis\]"):
        Registry(storage, redis_url="redis://127.0.0.1:6379/0")
    with pytest.raises(MissingExtraError, match=r"masques\[plots\]"):
        arena._plot([], "title", tmp_path / "plot.png")
    storage.engine.dispose()


def test_an_arena_table_is_written_without_the_plot_extra(without: set[str], tmp_path: Path) -> None:
    without.add("matplotlib")
    rows = arena.table(arena.rate([]))
    written = arena.write_outputs(rows, {"title": "t"}, tmp_path / "table")
    assert [path.suffix for path in written] == [".json", ".csv"]
    assert not (tmp_path / "table.png").exists()


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["worker", "--redis", "redis://127.0.0.1:1/0"], "workers"),
        (["serve", "--bot-queue", "redis", "--redis", "redis://127.0.0.1:1/0", "--port", "1"], "workers"),
        (["arena", "masker", "--bots", "random,greedy", "--games", "2", "--ray", "127.0.0.1:1"], "ray"),
    ],
)
def test_commands_name_the_extra_they_miss_before_doing_anything(
    without: set[str], args: list[str], extra: str, tmp_path: Path
) -> None:
    """One line naming the extra, exit 2, and no game played nor server started first."""
    from typer.testing import CliRunner

    from masques.cli.main import app

    without.update({"arq", "ray"})
    result = CliRunner().invoke(app, args, env={"MASQUES_DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"})
    assert result.exit_code == 2, result.output
    assert f"pip install 'masques[{extra}]'" in result.output and "Traceback" not in result.output
