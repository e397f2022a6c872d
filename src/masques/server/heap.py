"""The cycle collector's settings for a long-running server process.

A full collection walks every object the collector tracks, and the event loop waits for it: each
message that arrives meanwhile waits too, so the full collections set the tail of the move latency.
What exists once the server has started (modules, routes, tables, compiled statements) lives as long
as the process, so it is frozen out of the collector's walks.  The youngest generation is made larger:
a move's short-lived objects then mostly die by reference counting before a collection could promote
them towards the full one.  ``masques serve`` settles its heap this way; apps built in tests do not
(freezing is for the life of a process)."""

from __future__ import annotations

import gc

GC_THRESHOLDS = (20_000, 20, 10)
"""Allocations before a young collection, and young (then middle) collections before the next
generation's; CPython's defaults are (700, 10, 10)."""


def settle() -> None:
    """Collect what start-up left, freeze the rest, and enlarge the young generation."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
