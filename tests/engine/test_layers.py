"""Layers import downward only (architecture.md): the engine and the games' rules import no upper
layer, the upper layers reach a game only through the registry, and a game's part modules import the
layer they serve and what lies below it.  Read from the source with ``ast``, imports inside
functions included, so a lazy import cannot hide an upward one."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from masques.engine import game_class, game_names

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "masques"

LAYERS = {"engine": 0, "games": 0, "extras": 0, "ai": 1, "server": 2, "rl": 2, "cli": 2}
"""How high each top-level package sits; a module may import its own height and below."""

PART_LAYERS = {"bot": "ai", "terminal": "cli", "rl": "rl", "figures": "engine"}
"""The layer each kind of game part serves."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def imported(path: Path) -> frozenset[str]:
    """Every ``masques`` module ``path`` imports, relative imports resolved."""
    tree = ast.parse(path.read_text("utf-8"))
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return frozenset(name for name in found if name == "masques" or name.startswith("masques."))


def module_file(module: str) -> Path | None:
    base = SRC.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.exists():
            return path
    return None


def closure(start: set[str], within: str) -> set[str]:
    """``start`` and every module under ``within`` they import, transitively."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        module = todo.pop()
        path = module_file(module)
        if module in seen or path is None:
            continue
        seen.add(module)
        todo.extend(t for t in imported(path) if t.startswith(within + ".") or t == within)
    return seen


@cache  # read once for all the modules' tests
def part_modules() -> dict[str, str]:
    """Module -> the layer it serves, for every part a shipped game names and the modules of its
    package that only parts use (e.g. a solver its bot part calls)."""
    out: dict[str, str] = {}
    for name in game_names():
        cls = game_class(name)
        if not cls.__module__.startswith("masques.games."):
            continue
        package = cls.__module__.rsplit(".", 1)[0]
        rules = closure({cls.__module__, package}, package)
        for kind, where in sorted(cls.parts.items(), key=lambda kv: LAYERS[PART_LAYERS.get(kv[0], "cli")]):
            for module in closure({where.partition(":")[0]}, package) - rules:
                out.setdefault(module, PART_LAYERS.get(kind, "cli"))
    return out


def game_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "games" else None


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_imports_go_downward_only(path: Path) -> None:
    module = module_name(path)
    if ".migrations" in module or module in ("masques", "masques.games"):
        return  # the root, and the package that imports the shipped games to register them
    parts = part_modules()
    top = module.split(".")[1] if "." in module else ""
    height = LAYERS[PART_LAYERS.get(top, top)] if module not in parts else LAYERS[parts[module]]
    own_game = game_of(module)
    problems = []
    for target in imported(path):
        pieces = target.split(".")
        if len(pieces) < 2 or pieces[1] not in LAYERS:
            continue
        if LAYERS[pieces[1]] > height:
            problems.append(f"{target} (an upper layer)")
        target_game = game_of(target)
        if pieces[1] == "games" and module != "masques.engine.registry":
            if own_game is None and target != "masques.games":
                problems.append(f"{target} (a game reached by name, not through the registry)")
            elif own_game is not None and target_game not in (None, own_game):
                problems.append(f"{target} (another game)")
        if own_game is not None and module not in parts and target in parts and target_game == own_game:
            problems.append(f"{target} (a rules module importing one of its game's parts)")
    assert not problems, f"{module} imports " + ", ".join(sorted(problems))
