"""Time the Blokus 3D solitaire solver (B3-10): the single-colour count and the three packings.

Run with ``python benchmarks/solitaire.py`` (the package must be importable, e.g. installed with
``pip install -e .``).  A script, not a test: it prints wall-clock times that vary by machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from masques.games.blokus3d.solitaire import (
    PACKING_SIZES,
    count_single_colour_cube,
    find_packing,
)

T = TypeVar("T")


def timed(task: Callable[[], T]) -> tuple[T, float]:
    """Run ``task`` once and return its result with the elapsed seconds."""
    start = time.perf_counter()
    result = task()
    return result, time.perf_counter() - start


def main() -> None:
    rows: list[tuple[str, str, float]] = []

    report, seconds = timed(count_single_colour_cube)
    rows.append(
        (
            "single-colour 3x3x3 count",
            f"{len(report.sets)} sets, {len(report.possible)} possible, "
            f"{report.total_rotation} up to rotation, "
            f"{report.total_rotation_reflection} up to rotation+reflection",
            seconds,
        )
    )
    for size in PACKING_SIZES:
        packing, seconds = timed(partial(find_packing, size))
        colours = len({pp.colour for pp in packing.pieces})
        rows.append(
            (
                f"packing {size}x{size}x{size}",
                f"{len(packing.pieces)} pieces, {colours} colours",
                seconds,
            )
        )

    width_task = max(len(r[0]) for r in rows)
    width_result = max(len(r[1]) for r in rows)
    print(f"{'task':<{width_task}}  {'result':<{width_result}}  {'seconds':>8}")
    print(f"{'-' * width_task}  {'-' * width_result}  {'-' * 8}")
    for task, result, secs in rows:
        print(f"{task:<{width_task}}  {result:<{width_result}}  {secs:>8.3f}")


if __name__ == "__main__":
    main()
