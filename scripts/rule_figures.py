"""Write the figures of the rules pages (docs/rules/figures/) from every registered game's own data.

A game brings its figures as its ``"figures"`` part (see ``masques.engine.game_part``): a function
returning ``{filename: svg_text}``, or such a mapping itself.  A game without one has no figures.
The directory belongs to this script: an SVG there that no game draws any more is removed, so a
renamed figure cannot linger.  ``--check`` writes nothing and exits 1, naming each file that differs,
is missing or is stale (the tests run it, so committed figures cannot drift from the data).

Usage: python scripts/rule_figures.py [--out DIR] [--check]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from masques.engine import game_names, game_part

OUT = Path(__file__).resolve().parents[1] / "docs" / "rules" / "figures"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.svg$")


def collect() -> dict[str, str]:
    """Every registered game's figures by file name; a name drawn by two games is an error."""
    out: dict[str, str] = {}
    owner: dict[str, str] = {}
    for game in game_names():
        part = game_part(game, "figures")
        if part is None:
            continue
        drawn = part() if callable(part) else part
        if not isinstance(drawn, Mapping):
            raise TypeError(f"the figures part of {game} gave {type(drawn).__name__}, not a mapping")
        for name, svg in drawn.items():
            if not isinstance(name, str) or not _NAME.match(name):
                raise ValueError(f"{game}: figure name {name!r} is not a plain .svg file name")
            if not isinstance(svg, str) or not svg.lstrip().startswith("<svg"):
                raise ValueError(f"{game}: figure {name} is not SVG text")
            if name in owner:
                raise ValueError(f"figure {name} is drawn by both {owner[name]} and {game}")
            owner[name] = game
            out[name] = svg
    return out


def differences(figures: Mapping[str, str], directory: Path) -> list[str]:
    """What is wrong with ``directory`` against ``figures``, one line per file (empty when in step)."""
    problems = []
    for name, svg in sorted(figures.items()):
        path = directory / name
        if not path.exists():
            problems.append(f"missing: {path}")
        elif path.read_text("utf-8") != svg:
            problems.append(f"differs: {path}")
    if directory.is_dir():
        for path in sorted(directory.glob("*.svg")):
            if path.name not in figures:
                problems.append(f"stale: {path} (no game draws it)")
    return problems


def write(figures: Mapping[str, str], directory: Path) -> list[str]:
    """Bring ``directory`` in step with ``figures``; the names of the files written or removed."""
    directory.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, svg in sorted(figures.items()):
        path = directory / name
        if not path.exists() or path.read_text("utf-8") != svg:
            path.write_text(svg, "utf-8", newline="\n")
            changed.append(name)
    for path in sorted(directory.glob("*.svg")):
        if path.name not in figures:
            path.unlink()
            changed.append(path.name)
    return changed


def main(argv: list[str] | None = None, *, collect_figures: Callable[[], dict[str, str]] = collect) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"the figures directory (default {OUT})")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the directory is stale"
    )
    args = parser.parse_args(argv)
    figures = collect_figures()
    if args.check:
        problems = differences(figures, args.out)
        for line in problems:
            print(line)
        if problems:
            print("run: python scripts/rule_figures.py")
            return 1
        print(f"{len(figures)} figures in step in {args.out}")
        return 0
    changed = write(figures, args.out)
    print(
        f"{len(figures)} figures in {args.out}; {len(changed)} written or removed:",
        ", ".join(changed) or "-",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
