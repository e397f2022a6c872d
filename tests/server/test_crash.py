"""A crash: ``masques serve`` is killed with SIGKILL in the middle of two matches and restarted on the
same SQLite database.  Every acknowledged action (a ``state`` message with the new version arrived) is
still there, the same tokens reconnect to the current view, the bots resume on their own, and both
games finish; every view sent before and after the crash agrees with the final record."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import masques_server_support as support
import pytest

from masques.server.matches import Registry
from masques.server.storage import Storage

T = TypeVar("T")

MASKER_SEATS = ["human", "hard"]  # hard: a bot move takes long enough to be cut by the kill
BLOKUS_SEATS = ["human", "human"]


def _committed(url: str, match_id: str) -> list[int]:
    """The action log as it is in the database (read with plain SQL, not the server's code)."""
    return support.committed_actions(url, match_id)


def _max_seen(conns: list[support.Conn]) -> int:
    return max(m["version"] for c in conns for m in c.messages if m["type"] == "state")


@pytest.mark.slow
@pytest.mark.parametrize("backend", support.BACKENDS)
def test_kill_9_loses_no_acknowledged_action_and_bots_resume(tmp_path: Path, backend: str) -> None:
    url = support.fresh_database_url(backend, tmp_path)
    port = support.free_port()
    server = support.ServerProcess(url, port, tmp_path / "server.log", bot_workers=1).start()
    try:
        _crash_and_recover(server, url)
    finally:
        server.stop()


def _crash_and_recover(server: support.ServerProcess, url: str) -> None:
    rng = random.Random(31)
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        masker = support.create_match(api, "masker", {"players": 2}, MASKER_SEATS, seed=31)
        masker_tokens = {0: support.join(api, masker["id"], "alice", 0)["token"]}
        blokus = support.create_match(
            api, "blokus3d", {"players": 2, "structure": "A"}, BLOKUS_SEATS, seed=32
        )
        blokus_tokens = {s: support.join(api, blokus["id"], f"p{s}", s)["token"] for s in (0, 1)}

    before_masker = support.seat_conns(server.ws_url, masker["id"], masker_tokens)
    before_blokus = support.seat_conns(server.ws_url, blokus["id"], blokus_tokens)
    acked_blokus = support.play_to_end(before_blokus, rng, stop_after=5)
    assert len(acked_blokus) == 5

    # Masker: play until an acknowledged human action hands the turn to the bot, then kill at once.
    alice = before_masker[0]
    acked_masker: list[tuple[int, int]] = []
    for _ in range(100):
        state = alice.wait_turn()
        assert state["to_move"] is not None, "the game ended before the crash; pick another seed"
        action = rng.choice(state["legal"])["id"]
        alice.act(action, state["version"])
        after = alice.wait_version(state["version"] + 1)
        acked_masker.append((state["version"], action))
        if after["to_move"] == 1 and len(acked_masker) >= 3:
            break
    else:
        raise AssertionError("the bot never got the turn")
    server.kill()

    # on disk: every acknowledged action (every version any client saw), and the bot had not moved yet
    masker_log = _committed(url, masker["id"])
    blokus_log = _committed(url, blokus["id"])
    for log, acked, conns in (
        (masker_log, acked_masker, before_masker),
        (blokus_log, acked_blokus, before_blokus),
    ):
        assert len(log) >= _max_seen(conns), "a client saw a version that was not committed"
        for version, action in acked:
            assert log[version] == action, "an acknowledged action is missing or changed"
    assert len(blokus_log) == acked_blokus[-1][0] + 1
    assert len(masker_log) == acked_masker[-1][0] + 1, "the bot moved before the kill: nothing to resume"
    for conn in (*before_masker, *before_blokus):
        conn.close()

    server.start()
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        listed = {m["id"]: m for m in api.get("/api/matches", params={"status": "running"}).json()}
        assert {masker["id"], blokus["id"]} <= set(listed)
        assert listed[blokus["id"]]["version"] == len(blokus_log)

        # the same tokens reconnect to the current view
        after_masker = [support.Conn(server.ws_url, masker["id"], masker_tokens[0], 0)]
        view = after_masker[0].first_state()
        assert view["version"] >= len(masker_log)
        after_blokus = support.seat_conns(server.ws_url, blokus["id"], blokus_tokens)
        for conn in after_blokus:
            assert conn.state is not None and conn.state["version"] == len(blokus_log)
        assert after_blokus[0].state is not None and before_blokus[0].state is not None
        assert after_blokus[0].state["observation"] == before_blokus[0].state["observation"]

        # the bot resumes by itself: seat 0 gets its turn back without sending anything
        resumed = after_masker[0].wait_turn(timeout=60)
        assert resumed["version"] > len(masker_log), "the bot did not move after the restart"

        # a token of one match still does not open the other
        stray = support.Conn(server.ws_url, blokus["id"], masker_tokens[0])
        assert stray.recv()["code"] == "bad_token"
        assert stray.closed_code() == 4403

        support.play_to_end(after_masker, rng)
        support.play_to_end(after_blokus, rng)
        for match, seats, tokens, conns, log in (
            (masker, MASKER_SEATS, masker_tokens, [*before_masker, *after_masker], masker_log),
            (blokus, BLOKUS_SEATS, blokus_tokens, [*before_blokus, *after_blokus], blokus_log),
        ):
            _check_finished(api, match=match, seats=seats, tokens=tokens, conns=conns, log=log)
        for conn in (*after_masker, *after_blokus):
            conn.close()


def _check_finished(
    api: httpx.Client,
    *,
    match: dict[str, Any],
    seats: list[str],
    tokens: dict[int, str],
    conns: list[support.Conn],
    log: list[int],
) -> None:
    assert support.summary(api, match["id"])["status"] == "finished"
    full = api.get(f"/api/matches/{match['id']}/record", params={"full": "true"}).json()
    assert full["actions"][: len(log)] == log, "the log before the crash was rewritten"
    replay = support.Replay(full)
    assert replay.final.is_terminal()
    # every view sent before and after the crash is the engine's view of the final record
    support.check_messages(replay, conns, seats, tokens.values())
    support.check_records(api, match["id"], replay, tokens)


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_crash_between_the_last_join_and_the_start_does_not_leave_the_match_stuck(
    tmp_path: Path, backend: str
) -> None:
    """``join`` commits the seat, then sets the match running in a second transaction (``create`` does
    the same for a match of bots only).  A crash between the two leaves every seat taken and the
    status ``open``; after the restart such a match must start (today it stays open for ever: nobody
    can join it, and every action is refused as ``not_running``).  The crash window is reproduced by
    putting the status back to ``open`` on disk while the server is down."""
    url = support.fresh_database_url(backend, tmp_path)
    first = support.ThreadServer(url, bot_workers=1).start()
    try:
        with httpx.Client(base_url=first.base_url, timeout=support.TIMEOUT) as api:
            created = support.create_match(api, "masker", {"players": 2}, ["human", "human"], seed=5)
            tokens = {s: support.join(api, created["id"], f"p{s}", s)["token"] for s in (0, 1)}
            assert support.summary(api, created["id"])["status"] == "running"
    finally:
        first.stop()
    support.set_match_status(url, created["id"], "open")
    second = support.ThreadServer(url, bot_workers=1).start()
    try:
        with httpx.Client(base_url=second.base_url, timeout=support.TIMEOUT) as api:
            view = support.summary(api, created["id"])
            assert all(s["taken"] for s in view["seats"])
            conns = support.seat_conns(second.ws_url, created["id"], tokens)
            mover = next(c for c in conns if c.state is not None and c.state["to_move"] == c.seat)
            assert mover.state is not None
            assert view["status"] == "running", "every seat is taken but the match never starts"
            assert mover.state["your_turn"] and mover.state["legal"]
            for conn in conns:
                conn.close()
    finally:
        second.stop()


def _across_a_restart(
    tmp_path: Path,
    first_life: Callable[[Registry], Awaitable[T]],
    second_life: Callable[[Registry, Storage, T], Awaitable[None]],
) -> None:
    """``first_life`` on a registry that then stops, writing nothing more (as a killed process);
    ``second_life`` on the next one, on the same database, once it has started."""
    storage = Storage(support.fresh_database_url("sqlite", tmp_path))
    storage.migrate()

    async def scenario() -> None:
        before = Registry(storage, limits=support.RELAXED, bot_workers=1)
        try:
            made = await first_life(before)
        finally:
            before.close()
        after = Registry(storage, limits=support.RELAXED, bot_workers=1)
        await after.start()
        try:
            await second_life(after, storage, made)
        finally:
            await after.stop()

    try:
        support.run_async(scenario())
    finally:
        storage.dispose()


def test_a_restart_takes_up_every_running_match_not_only_the_newest(tmp_path: Path) -> None:
    """Each running match is loaded again after a restart, so that its bots play on and its absent
    seats' grace runs: a match left out would wait for ever for someone to ask for it.  More
    running matches than the lobby lists at once (200), the oldest first to be checked."""

    async def first_life(before: Registry) -> list[str]:
        before._schedule_bots = lambda match: None  # type: ignore[method-assign]  # nothing moves
        return [(await before.create("masker", {"players": 2}, ["random", "random"])).id for _ in range(205)]

    async def second_life(after: Registry, storage: Storage, made: list[str]) -> None:
        assert after._resumer is not None and await after._resumer == len(made)
        assert set(made) <= set(after.matches)
        oldest = after.matches[made[0]]
        deadline = time.monotonic() + support.TIMEOUT
        while oldest.version == 0:
            assert time.monotonic() < deadline, "the oldest match's bots did not move"
            await asyncio.sleep(0.05)

    _across_a_restart(tmp_path, first_life, second_life)


def test_a_restart_starts_an_open_match_whose_seats_are_all_taken(tmp_path: Path) -> None:
    """A stop between the last seat's write and the start left a full match open: nobody could
    join it, and nothing would start it.  The restart starts it; one with a free seat stays open."""

    def statuses(storage: Storage, ids: list[str]) -> list[str]:
        return [row.status for row in map(storage.match, ids) if row is not None]

    async def first_life(before: Registry) -> list[str]:
        async def stopped_before_the_start(match: Any) -> None:
            return None

        before._maybe_start = stopped_before_the_start  # type: ignore[method-assign]
        full = await before.create("masker", {"players": 2}, ["human", "human"])
        waiting = await before.create("masker", {"players": 2}, ["human", "human"])
        for seat in (0, 1):
            await before.join(full, f"p{seat}", seat)
        await before.join(waiting, "p0", 0)
        assert statuses(before.storage, [full.id, waiting.id]) == ["open", "open"]
        return [full.id, waiting.id]

    async def second_life(after: Registry, storage: Storage, made: list[str]) -> None:
        assert after._resumer is not None and await after._resumer == 1
        assert statuses(storage, made) == ["running", "open"]

    _across_a_restart(tmp_path, first_life, second_life)
