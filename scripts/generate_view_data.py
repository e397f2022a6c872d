"""Write the data the web views draw from the engines' own tables, into the game packages.

The browser client imports these files at build time (as it does Maske's ``masks.json``), so the
views never compute a rule again and cannot drift from the engine:

* ``blokus3d/orientations.json``: every orientation of every piece (B3-1) in the engine's numbering,
  with its cubes and its columns seen from above, from ``pieces.ORIENTATIONS``;
* ``maske/mask_values.json``: what each of the 49 positions pays under each mask turned 0 to 3
  quarter turns clockwise (MS-3), from ``data.MASK_VALUES``.

Rerunning writes the same bytes; ``--check`` verifies the files (a test does the same).
Usage: python scripts/generate_view_data.py [--check]
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

from masques.games.blokus3d.pieces import ORIENTATIONS, PIECE_IDS, PIECE_NAMES
from masques.games.maske.data import MASK_VALUES, MASKS

GAMES = Path(__file__).resolve().parents[1] / "src" / "masques" / "games"


def _lines(head: str, items: list[str], tail: str) -> str:
    """A JSON list written one item a line, so a diff names the orientation or mask that changed."""
    return head + "\n" + ",\n".join(items) + "\n" + tail


def blokus3d_orientations() -> str:
    """``orientations.json``: orientations in global index order (an action's ``index // 100``)."""
    header = {
        "source": "masques.games.blokus3d.pieces.ORIENTATIONS, written by scripts/generate_view_data.py",
        "pieces": {pid: PIECE_NAMES[pid] for pid in PIECE_IDS},
        "columns": "[dx, dy, zlow, height]: each column seen from above, its lowest cube, its cubes",
    }
    items = [
        "  "
        + json.dumps(
            {
                "index": o.index,
                "piece": o.piece,
                "number": o.number,
                "cubes": [list(c) for c in o.cubes],
                "columns": [list(c) for c in o.columns],
            },
            separators=(", ", ": "),
        )
        for o in ORIENTATIONS
    ]
    head = json.dumps(header, indent=1)[:-2] + ',\n "orientations": ['
    return _lines(head, items, " ]\n}\n")


def maske_mask_values() -> str:
    """``mask_values.json``: ``masks[id].values[turns][position]`` as the engine's ``MASK_VALUES``."""
    header = {
        "source": "masques.games.maske.data.MASK_VALUES, written by scripts/generate_view_data.py",
        "positions": "row * 7 + column, a1 (top left) = 0; the centre (24) pays 0",
    }
    items = []
    for mask, turns in zip(MASKS, MASK_VALUES, strict=True):
        rows = ",\n".join("    " + json.dumps(list(values), separators=(",", ":")) for values in turns)
        items.append(f'  {{"id": {mask.id}, "name": {json.dumps(mask.name)}, "values": [\n{rows}\n  ]}}')
    head = json.dumps(header, indent=1)[:-2] + ',\n "masks": ['
    return _lines(head, items, " ]\n}\n")


def files() -> dict[Path, str]:
    """Each data file's path and the text the engine's tables give it."""
    return {
        GAMES / "blokus3d" / "orientations.json": blokus3d_orientations(),
        GAMES / "maske" / "mask_values.json": maske_mask_values(),
    }


def stale() -> list[str]:
    """Names of the shipped files (as the installed package reads them) that differ from ``files()``."""
    out = []
    for path, text in files().items():
        shipped = resources.files(f"masques.games.{path.parent.name}").joinpath(path.name)
        if not shipped.is_file() or shipped.read_text("utf-8") != text:
            out.append(f"{path.parent.name}/{path.name}")
    return out


def main() -> None:
    if "--check" in sys.argv:
        if bad := stale():
            sys.exit(f"stale, rerun scripts/generate_view_data.py: {', '.join(bad)}")
        print("view data is up to date")
        return
    for path, text in files().items():
        path.write_text(text, "utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
