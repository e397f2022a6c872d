"""The cycle collector's settings for a long-running server process.

A full collection walks every object the collector tracks, and the event loop waits for it: each
message that arrives meanwhile waits too, so the full collections set the tail of the move latency.
What exists once the server has started (modules, routes, tables, compiled statements) lives as long
as the process, so it is frozen out of the collector's walks.  The youngest generation is made larger:
a move's short-lived objects then mostly die by reference counting before a collection could promote
them towards the full one.  ``masques serve`` settles its heap this way; apps built in tests do not
(freezing is for the life of a process).

The collector's own trigger is not enough here: it counts allocations less deallocations, and in a
server where old objects die as fast as new ones are made (tables ending as others start), the count
stays low while the young generation grows past a hundred thousand objects; the one collection that
then comes held the event loop for 100 to 250 ms.  So the server also collects on a timer
(:func:`keep_young`): each collection then walks only what was made since the last one."""

from __future__ import annotations

import asyncio
import gc

GC_THRESHOLDS = (20_000, 20, 10)
"""Allocations before a young collection, and young (then middle) collections before the next
generation's; CPython's defaults are (700, 10, 10)."""

YOUNG_EVERY_SECONDS = 0.05
"""How often :func:`keep_young` collects the young generation."""
MIDDLE_EVERY = 4
"""Every how many of those collections the middle generation is collected with it.  Each pause
walks what survived since the one before: collecting often keeps every pause short, and a move
that arrives during one waits for it (docs/deployment.md has the pauses measured)."""


def settle() -> None:
    """Collect what start-up left, freeze the rest, and enlarge the young generation."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


async def keep_young(every_seconds: float = YOUNG_EVERY_SECONDS, middle_every: int = MIDDLE_EVERY) -> None:
    """Collect the young generation on a timer, and the middle one every ``middle_every`` times,
    for as long as the server runs: short pauses, each bounded by what a fraction of a second made,
    in place of rare ones that walk everything made over seconds."""
    collections = 0
    while True:
        await asyncio.sleep(every_seconds)
        collections += 1
        gc.collect(1 if collections % middle_every == 0 else 0)
