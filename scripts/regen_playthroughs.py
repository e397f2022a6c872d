"""Regenerate the golden playthrough files in tests/playthroughs/ (review the diff afterwards)."""

from __future__ import annotations

from pathlib import Path

from masques.engine import conformance, load_game
from masques.engine.playthroughs import playthrough_path, playthroughs

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    for entry in playthroughs():
        path = Path(playthrough_path(ROOT, entry))
        path.parent.mkdir(parents=True, exist_ok=True)
        text = conformance.playthrough(load_game(entry.game, entry.options), entry.seed)
        old = path.read_text("utf-8") if path.exists() else None
        path.write_text(text, "utf-8")
        state = "unchanged" if old == text else ("written" if old is None else "CHANGED")
        print(f"{state:9} {path.relative_to(ROOT)} ({len(text.splitlines())} lines)")


if __name__ == "__main__":
    main()
