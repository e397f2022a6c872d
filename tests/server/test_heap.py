"""The served process's cycle collector: frozen start-up objects, a larger young generation, and
cycles made afterwards still collected."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from masques.server import heap
from masques.server.app import create_app


@pytest.fixture
def restored_collector() -> Iterator[None]:
    """Whatever a test does to the collector is undone (this process runs many apps)."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_settle_freezes_what_exists_and_still_collects_new_cycles(restored_collector: None) -> None:
    tracked = len(gc.get_objects())
    heap.settle()
    assert gc.get_freeze_count() >= tracked // 2  # start-up's objects are out of the walks
    assert len(gc.get_objects()) < tracked // 2  # what the walks still see
    assert gc.get_threshold() == heap.GC_THRESHOLDS

    class Node:
        other: object = None

    first, second = Node(), Node()
    first.other, second.other = second, first  # a cycle only the collector frees
    del first, second
    assert gc.collect() >= 2


def test_only_an_app_asked_to_settles_its_heap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    settled: list[bool] = []
    monkeypatch.setattr(heap, "settle", lambda: settled.append(True))
    for ask, database in ((False, "plain"), (True, "served")):
        app = create_app(f"sqlite:///{tmp_path / database}.sqlite3", bot_workers=1, settle_heap=ask)
        with TestClient(app) as client:
            assert client.get("/healthz").status_code == 200
        assert settled == ([True] if ask else [])


@pytest.fixture
def collector_off() -> Iterator[list[int]]:
    """The automatic collections stopped: the generations collected meanwhile, in order."""
    collected: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            collected.append(info["generation"])

    gc.disable()
    gc.callbacks.append(record)
    yield collected
    gc.callbacks.remove(record)
    gc.enable()


def test_keep_young_collects_on_its_timer_the_middle_generation_every_few_times(
    collector_off: list[int],
) -> None:
    class Node:
        other: object = None

    first, second = Node(), Node()
    first.other, second.other = second, first
    freed = weakref.ref(first)
    del first, second

    async def run_a_while() -> None:
        task = asyncio.get_running_loop().create_task(heap.keep_young(0.01, middle_every=3))
        for _ in range(1000):  # ten seconds at most
            if len(collector_off) >= 6:
                break
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(run_a_while())
    assert collector_off[:6] == [0, 0, 1, 0, 0, 1]
    assert freed() is None  # a cycle, with no automatic collection to free it


def test_a_settled_app_collects_on_a_timer_until_it_stops(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    running: list[str] = []

    async def keep_young() -> None:
        running.append("started")
        try:
            await asyncio.Event().wait()
        finally:
            running.append("stopped")

    monkeypatch.setattr(heap, "settle", lambda: None)
    monkeypatch.setattr(heap, "keep_young", keep_young)
    app = create_app(f"sqlite:///{tmp_path / 'served'}.sqlite3", bot_workers=1, settle_heap=True)
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        assert running == ["started"]
    assert running == ["started", "stopped"]
