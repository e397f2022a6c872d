"""The rules pages (docs/rules/) hold every decision id that the code and tests cite, and their figures.

An id such as MC-5 or B3-4 names a rule; code, tests and error messages cite it.  Each must appear,
as a ``<sup>`` tag at the rule it names, in the English page ``docs/rules/<game>.md`` and the French
page ``docs/rules/<game>.fr.md`` of its game.  The failure message lists every missing id with a file
that cites it, so a missing rule is found at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"
ID = re.compile(r"\b(MK|MS|MC|B3)-\d+[a-z]?\b")
GAME_OF_PREFIX = {"MK": "masker", "MS": "maske", "MC": "mascarade", "B3": "blokus3d"}
LANGUAGES = ("", ".fr")
"""The page suffixes: English ``<game>.md`` and French ``<game>.fr.md``."""
SKIPPED_DIRS = {"__pycache__", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
BUILT = ROOT / "src" / "masques" / "server" / "static"
"""The built web client: a copy of web/, not a source."""
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<img\b[^>]*\bsrc=\"([^\"]+)\"")


def _source_files(tops: tuple[Path, ...]) -> Iterator[Path]:
    for top in tops:
        for path in sorted(top.rglob("*")):
            if path.is_file() and not SKIPPED_DIRS & set(path.parts) and BUILT not in path.parents:
                yield path


def cited_ids(tops: tuple[Path, ...] = (ROOT / "src", ROOT / "tests")) -> dict[str, list[Path]]:
    """Every id cited under src/ and tests/, with the files citing it."""
    out: dict[str, list[Path]] = {}
    for path in _source_files(tops):
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        for match in ID.finditer(text):
            files = out.setdefault(match.group(0), [])
            if path not in files:
                files.append(path)
    return out


def documented_ids(page: Path) -> set[str]:
    """The ids tagged on a page: every id inside a ``<sup>...</sup>`` element."""
    text = page.read_text("utf-8")
    return {
        m.group(0) for sup in re.findall(r"<sup>(.*?)</sup>", text, flags=re.DOTALL) for m in ID.finditer(sup)
    }


def missing_ids(game: str, cited: dict[str, list[Path]]) -> list[str]:
    """One line per (page, id) that the code cites and the page lacks; the page itself if absent."""
    prefixes = [p for p, g in GAME_OF_PREFIX.items() if g == game]
    wanted = sorted((i for i in cited if i.split("-")[0] in prefixes), key=_id_order)
    problems = []
    for suffix in LANGUAGES:
        page = RULES / f"{game}{suffix}.md"
        if not page.exists():
            problems.append(f"{page.relative_to(ROOT)} is missing (cited: {', '.join(wanted)})")
            continue
        have = documented_ids(page)
        for rule in wanted:
            if rule not in have:
                where = cited[rule][0].relative_to(ROOT)
                problems.append(f"{page.relative_to(ROOT)}: no <sup>{rule}</sup> (cited in {where})")
    return problems


def _id_order(rule: str) -> tuple[str, int, str]:
    prefix, _, rest = rule.partition("-")
    number = re.match(r"\d+", rest)
    assert number is not None
    return prefix, int(number.group(0)), rest[number.end() :]


@pytest.mark.parametrize("game", sorted(set(GAME_OF_PREFIX.values())))
def test_every_cited_id_is_on_both_rules_pages(game: str) -> None:
    problems = missing_ids(game, cited_ids())
    assert not problems, f"{len(problems)} rule id(s) missing from the {game} pages:\n" + "\n".join(problems)


def test_the_id_scan_finds_ids_and_reports_what_is_missing(tmp_path: Path) -> None:
    """The scan itself, on a small tree: sub-letters count, built and cached files do not, and a page
    without the tag is reported with a file citing the id.  (The ids here are made up, and built at
    run time so that this file cites none of them.)"""
    one, two, three, four = (f"MC-{n}" for n in ("91", "92", "93a", "94"))
    (tmp_path / "src" / "__pycache__").mkdir(parents=True)
    (tmp_path / "src" / "rules.py").write_text(f"# {one}, {three}: and {two}\n", "utf-8")
    (tmp_path / "src" / "__pycache__" / "rules.txt").write_text(four, "utf-8")
    (tmp_path / "src" / "blob.bin").write_bytes(b"\xff\xfe" + four.encode())
    cited = cited_ids((tmp_path / "src",))
    assert set(cited) == {one, two, three}
    page = tmp_path / "p.md"
    page.write_text(f"Rule.<sup>{one}</sup> Two rules.<sup>{two}, {three}</sup> {four} untagged.\n", "utf-8")
    assert documented_ids(page) == {one, two, three}


@pytest.mark.parametrize("page", sorted(RULES.glob("*.md")), ids=lambda p: p.name)
def test_every_linked_figure_exists(page: Path) -> None:
    text = page.read_text("utf-8")
    targets = [a or b for a, b in LINK.findall(text)]
    local = [t for t in targets if not re.match(r"^[a-z]+:", t) and not t.startswith("#")]
    missing = [t for t in local if not (page.parent / t.split("#")[0]).exists()]
    assert not missing, f"{page.name} links to missing files: {', '.join(missing)}"


@pytest.mark.parametrize("game", sorted(set(GAME_OF_PREFIX.values())))
def test_every_figure_of_a_game_is_shown_on_its_pages(game: str) -> None:
    """A figure the script draws for a game (``<game>-*.svg``) is linked from both pages of that game."""
    figures = sorted(p.name for p in (RULES / "figures").glob(f"{game}-*.svg"))
    problems = []
    for suffix in LANGUAGES:
        page = RULES / f"{game}{suffix}.md"
        linked = (
            {Path(a or b).name for a, b in LINK.findall(page.read_text("utf-8"))} if page.exists() else set()
        )
        problems += [
            f"{page.relative_to(ROOT)} does not show figures/{f}" for f in figures if f not in linked
        ]
    assert not problems, "\n".join(problems)
