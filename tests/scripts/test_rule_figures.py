"""scripts/rule_figures.py: every registered game's figures, written to docs/rules/figures and checked."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from masques.engine import game_names, game_part

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rule_figures", ROOT / "scripts" / "rule_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_figures_are_in_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert _script().main(["--check"]) == 0, capsys.readouterr().out


def test_collect_gathers_every_game_part() -> None:
    collected = _script().collect()
    expected: dict[str, str] = {}
    for name in game_names():
        part = game_part(name, "figures")
        if part is not None:
            expected.update(part())
    assert collected == expected
    assert {"blokus3d-structure-A.svg", "mascarade-layout.svg", "maske-masks.svg", "masker-grid.svg"} <= set(
        expected
    )


def test_check_names_missing_changed_and_stale_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    figures = {"one.svg": "<svg>1</svg>\n", "two.svg": "<svg>2</svg>\n"}
    assert script.main(["--out", str(tmp_path)], collect_figures=lambda: figures) == 0
    assert script.main(["--out", str(tmp_path), "--check"], collect_figures=lambda: figures) == 0
    (tmp_path / "one.svg").write_text("<svg>changed</svg>\n", "utf-8")
    (tmp_path / "two.svg").unlink()
    (tmp_path / "old.svg").write_text("<svg/>\n", "utf-8")
    capsys.readouterr()
    assert script.main(["--out", str(tmp_path), "--check"], collect_figures=lambda: figures) == 1
    out = capsys.readouterr().out
    assert "differs:" in out and "one.svg" in out
    assert "missing:" in out and "two.svg" in out
    assert "stale:" in out and "old.svg" in out
    assert script.main(["--out", str(tmp_path)], collect_figures=lambda: figures) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.svg", "two.svg"]
    assert (tmp_path / "one.svg").read_text("utf-8") == figures["one.svg"]


def test_collect_rejects_clashing_or_unsafe_names(monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script()
    monkeypatch.setattr(script, "game_names", lambda: ["g1", "g2"])
    parts = {"g1": {"a.svg": "<svg/>"}, "g2": {"a.svg": "<svg/>"}}
    monkeypatch.setattr(script, "game_part", lambda name, kind: parts[name])
    with pytest.raises(ValueError, match="drawn by both g1 and g2"):
        script.collect()
    parts["g2"] = {"../b.svg": "<svg/>"}
    with pytest.raises(ValueError, match=r"not a plain \.svg file name"):
        script.collect()
