"""Write src/masques/server/bot_ratings.json: each bot level's rating as the arena measured it.

Usage: python scripts/bot_ratings.py [--check]

The server's rated matches start each bot level at these ratings (``masques.server.ratings``), so a
player's number is on the bots' scale.  The source is each game's main arena table in docs/ratings/
(every level at one table or in one chain of pairings); ``--check`` exits 1 if the file is not what
the tables say (the tests run it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT / "docs" / "ratings"
OUT = ROOT / "src" / "masques" / "server" / "bot_ratings.json"
SOURCES = {
    ("blokus3d", "two-player"): "blokus3d-2p",
    ("blokus3d", "multi-player"): "blokus3d-4p",
    ("mascarade", "two-player"): "mascarade-2p",
    ("masker", "two-player"): "masker-2p",
    ("maske", "multi-player"): "maske-4p",
}
"""The main table of each game and family the arena measured (the others pit one level against a
field, on their own scale)."""


def measured() -> dict[str, dict[str, dict[str, list[float]]]]:
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for (game, family), name in sorted(SOURCES.items()):
        table = json.loads((TABLES / f"{name}.json").read_text("utf-8"))
        if table["game"] != game:
            raise ValueError(f"{name}.json is a table of {table['game']}, not {game}")
        out.setdefault(game, {})[family] = {
            row["bot"]: [round(float(row["mu"]), 3), round(float(row["sigma"]), 3)]
            for row in sorted(table["table"], key=lambda r: str(r["bot"]))
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text = json.dumps(measured(), indent=2, sort_keys=True) + "\n"
    if args.check:
        if not OUT.is_file() or OUT.read_text("utf-8") != text:
            print(f"{OUT} is not what docs/ratings says: run python scripts/bot_ratings.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
