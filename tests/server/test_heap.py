"""The served process's cycle collector: frozen start-up objects, a larger young generation, and
cycles made afterwards still collected."""

from __future__ import annotations

import gc
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
