"""Scale-out: two server processes on one PostgreSQL database share matches through Redis."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from masques_server_support import (  # type: ignore[import-not-found]
    RELAXED,
    TIMEOUT,
    Conn,
    ServerProcess,
    committed_actions,
    create_match,
    free_port,
    fresh_database_url,
    join,
    play_to_end,
    run_async,
    seat_conns,
    sqlite_registry,
)
from sqlalchemy import create_engine, text

from masques.engine import GameRecord
from masques.server import fanout as fanout_module
from masques.server import matches as matches_module
from masques.server.errors import ServerError
from masques.server.fanout import Fanout, Moved
from masques.server.matches import Client, LiveMatch, Registry
from masques.server.storage import Storage, hash_token


@pytest.fixture
def two_processes(tmp_path: Path) -> Iterator[tuple[str, ServerProcess, ServerProcess]]:
    """Two server processes on one fresh PostgreSQL database and the tests' Redis."""
    redis_url = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert redis_url, (
        "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh (it starts Redis)"
    )
    url = fresh_database_url("postgresql", tmp_path)
    first = ServerProcess(url, free_port(), tmp_path / "a.log", redis_url=redis_url).start()
    second = ServerProcess(url, free_port(), tmp_path / "b.log", redis_url=redis_url).start()
    try:
        yield url, first, second
    finally:
        first.stop()
        second.stop()


def test_two_processes_play_one_match_through_redis(
    two_processes: tuple[str, ServerProcess, ServerProcess],
) -> None:
    url, first, second = two_processes
    with (
        httpx.Client(base_url=first.base_url, timeout=TIMEOUT) as api_a,
        httpx.Client(base_url=second.base_url, timeout=TIMEOUT) as api_b,
    ):
        match = create_match(api_a, "masker", {"players": 3}, ["human", "human", "greedy"], seed=11)
        token_a = join(api_a, match["id"], "ann", 0)["token"]
        token_b = join(api_b, match["id"], "bob", 1)["token"]  # the other process, same match
        conns = seat_conns(first.ws_url, match["id"], {0: token_a}) + seat_conns(
            second.ws_url, match["id"], {1: token_b}
        )
        acked = play_to_end(conns, random.Random(11))
        assert acked, "the humans made no move"
        for conn in conns:
            assert conn.state is not None and conn.state["to_move"] is None
        log = committed_actions(url, match["id"])
        assert [version for version, _ in acked] == sorted(version for version, _ in acked)
        for version, action in acked:
            assert log[version] == action
        final_a = api_a.get(f"/api/matches/{match['id']}/record", params={"full": "true"}).json()
        final_b = api_b.get(f"/api/matches/{match['id']}/record", params={"full": "true"}).json()
        assert final_a == final_b
        assert final_a["actions"] == log
        assert GameRecord.from_json(final_a).replay().is_terminal()
        for conn in conns:
            conn.close()


def test_a_seat_taken_through_one_process_is_known_at_once_to_the_other(
    two_processes: tuple[str, ServerProcess, ServerProcess],
) -> None:
    """Behind a proxy a join and the WebSocket that follows it may reach two processes; the second
    must not refuse the fresh token while the news of the join is still on its way through Redis."""
    _, first, second = two_processes
    with (
        httpx.Client(base_url=first.base_url, timeout=TIMEOUT) as api_a,
        httpx.Client(base_url=second.base_url, timeout=TIMEOUT) as api_b,
    ):
        for round_ in range(5):
            match = create_match(api_a, "masker", {"players": 2}, ["human", "human"], seed=round_)
            assert api_b.get(f"/api/matches/{match['id']}").status_code == 200  # B holds it too
            tokens = {seat: join(api_a, match["id"], f"p{seat}", seat)["token"] for seat in (0, 1)}
            for seat, token in tokens.items():
                conn = Conn(second.ws_url, match["id"], token, seat)
                state = conn.first_state()
                assert state["seat"] == seat, state
                conn.close()
            moved = api_b.post(f"/api/matches/{match['id']}/resign", headers={"X-Seat-Token": tokens[1]})
            assert moved.status_code == 200, moved.text


class CountedStorage(Storage):
    """Storage that counts the reads a process makes to catch up with another's changes."""

    reads = 0

    def log(self, match_id: str) -> Any:
        CountedStorage.reads += 1
        return super().log(match_id)


@contextlib.asynccontextmanager
async def two_registries(
    url: str, second: type[Storage] = Storage
) -> AsyncIterator[tuple[Registry, Registry]]:
    """Two registries (two server processes' worth) on one database and the tests' Redis."""
    redis_url = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert redis_url, "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh"
    storages = [Storage(url), second(url)]
    storages[0].migrate()
    registries = [Registry(s, limits=RELAXED, bot_workers=1, redis_url=redis_url) for s in storages]
    try:
        for registry in registries:
            await registry.start()
        for registry in registries:  # each took up the running matches it found at its start
            if registry._resumer is not None:  # (none yet): a match made now is A's alone
                await registry._resumer
        yield registries[0], registries[1]
    finally:
        for registry in registries:
            await registry.stop()
        for storage in storages:
            storage.engine.dispose()


async def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"waited {TIMEOUT} s for {what}"
        await asyncio.sleep(0.01)


def test_a_move_from_another_process_is_applied_as_published_without_reading_storage(
    tmp_path: Path,
) -> None:
    """The commonest change, a move that does not end the match, comes with its version, action and
    clock: the other process applies it without reading the log, seats and row again, its clients see
    it, and its state and clock are the committing process's."""
    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url, CountedStorage) as (a, b):
            clock = {"kind": "fischer", "base": 60, "increment": 5}
            match = await a.create("masker", {"players": 2}, ["human", "human"], clock=clock)
            tokens = [(await a.join(match, f"p{seat}", seat))[1] for seat in (0, 1)]
            there = await b.get(match.id)
            seen: list[str] = []

            async def send(text: str) -> None:
                seen.append(text)

            watcher = Client(1, send, seat_token=hash_token(tokens[1]))
            await b.connect(there, watcher)
            pump = asyncio.get_running_loop().create_task(watcher.pump())
            CountedStorage.reads = 0
            rng = random.Random(5)
            for _ in range(6):
                state = match.state
                action = rng.choice(state.legal_actions())
                await a.submit(match, state.current_player, action, match.version)
                await _until(lambda: there.version == match.version, "the other process to follow")
            assert CountedStorage.reads == 0
            assert there.state.history == match.state.history and there.actors == match.actors
            assert (there.clock, there.deadline) == (match.clock, match.deadline)
            assert there.deadline is not None
            await _until(lambda: any(f'"version":{match.version}' in t for t in seen), "the view")

            # A malformed note (from a process of another version, say) changes nothing.
            assert a.fanout is not None and a.fanout.client is not None
            channel = f"{fanout_module.CHANNEL}{match.id}"
            for junk in ("move:{", 'move:{"version": "x"}', "move:[]", "chat:x"):
                await a.fanout.client.publish(channel, f"{a.fanout.origin}x:{junk}")
            await asyncio.sleep(0.3)
            assert there.state.history == match.state.history and CountedStorage.reads == 0

            # A note for a version this process is already past changes nothing; one ahead of it
            # (a note lost on the way) makes it read the match again.
            before = list(there.state.history)
            await b._on_remote_move(match.id, Moved(0, 0, before[0], None, None))
            assert there.state.history == before and CountedStorage.reads == 0
            assert a.fanout is not None
            publish = a.fanout.moved

            async def lost(match_id: str, move: Moved) -> None:
                return None

            a.fanout.moved = lost  # type: ignore[method-assign]
            await a.submit(match, match.state.current_player, match.state.legal_actions()[0], match.version)
            a.fanout.moved = publish  # type: ignore[method-assign]
            await a.submit(match, match.state.current_player, match.state.legal_actions()[0], match.version)
            await _until(lambda: there.version == match.version, "the other process to catch up")
            assert there.state.history == match.state.history and CountedStorage.reads == 1
            pump.cancel()

    run_async(scenario())


async def _made_by_one_seated_by_the_other(a: Registry, b: Registry) -> tuple[LiveMatch, LiveMatch]:
    """A two-person match created through ``a`` whose seats are taken through ``b`` (a proxy sends
    a match's requests to one process, the lobby's to any): ``a``'s copy and ``b``'s."""
    made = await a.create("masker", {"players": 2}, ["human", "human"])
    match = await b.get(made.id)
    for seat in (0, 1):
        await b.join(match, f"p{seat}", seat)
    return made, match


def test_a_match_held_here_only_in_passing_leaves_memory_at_the_next_remote_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that created a match its players then play through another (a proxy sends them
    by match) stops following it once it has not used it for a while."""
    url = fresh_database_url("postgresql", tmp_path)
    monkeypatch.setattr(matches_module, "PASSING_SECONDS", 0.0)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            made, match = await _made_by_one_seated_by_the_other(a, b)
            await _until(lambda: made.id not in a.matches, "the creator to let the match go")
            state = match.state
            await b.submit(match, state.current_player, state.legal_actions()[0], match.version)
            again = await a.get(made.id)  # asked again, it comes back whole from storage
            assert again.state.history == match.state.history

    run_async(scenario())


def test_following_a_match_played_elsewhere_is_no_use_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The creator follows the moves a while, but they do not keep it: it lets the match go once it
    has not itself used it for PASSING_SECONDS, however often moves came meanwhile; and a change
    other than a move (a seat taken) after that time lets it go too, without reading the match."""
    url = fresh_database_url("postgresql", tmp_path)
    monkeypatch.setattr(matches_module, "PASSING_SECONDS", 1.0)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            made, match = await _made_by_one_seated_by_the_other(a, b)
            await _until(lambda: made.status == "running", "the creator to hear of the start")
            # Its last use here is now: a slow start (a loaded machine) takes none of the moves' time.
            a.matches[made.id].last_used = time.monotonic()
            followed = 0
            deadline = time.monotonic() + TIMEOUT
            while made.id in a.matches:
                assert time.monotonic() < deadline, "the creator kept following the match"
                state = match.state
                await b.submit(match, state.current_player, state.legal_actions()[0], match.version)
                await _until(
                    lambda: made.version == match.version or made.id not in a.matches,
                    "the creator to follow the move or let the match go",
                )
                followed += made.id in a.matches
                await asyncio.sleep(0.15)  # at most 8 moves in the second: a Masker game has 12 or more
            assert followed >= 2  # it did follow the first moves

            waiting = await a.create("masker", {"players": 2}, ["human", "human"])
            a.matches[waiting.id].last_used -= matches_module.PASSING_SECONDS
            there = await b.get(waiting.id)
            await b.join(there, "p0", 0)
            await _until(lambda: waiting.id not in a.matches, "the creator to let the open match go")
            assert waiting.seats[0].name is None  # let go, not caught up

    run_async(scenario())


def test_failed_log_ins_count_across_the_processes(tmp_path: Path) -> None:
    """Guesses spread over two processes back off as if they reached one: the count is in Redis.
    The processes use a Redis database of their own, emptied first: the address's count (every
    test's client is 127.0.0.1) must start at zero."""
    import redis as redis_client
    from masques_server_support import PASSWORD, browser, signup, unique  # type: ignore[import-not-found]

    shared = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert shared, "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh"
    own_redis = shared.rsplit("/", 1)[0] + "/10"  # 11 to 15 are other tests' (the bot queue's: 12 to 15)
    redis_client.Redis.from_url(own_redis).flushdb()
    url = fresh_database_url("postgresql", tmp_path)
    name = unique("Eve")
    with contextlib.ExitStack() as running:
        first = ServerProcess(url, free_port(), tmp_path / "a.log", redis_url=own_redis).start()
        running.callback(first.stop)
        second = ServerProcess(url, free_port(), tmp_path / "b.log", redis_url=own_redis).start()
        running.callback(second.stop)
        owner, at_first, at_second = (running.enter_context(browser(s)) for s in (first, first, second))
        signup(owner, name)
        answers = [
            (at_first if i % 2 == 0 else at_second).post(
                "/api/login", json={"username": name, "password": f"guess-{i}-xyz"}
            )
            for i in range(6)  # with the sign-up and the two tries below, within the log-in rate limit
        ]
        codes = [a.status_code for a in answers]
        assert codes[:4] == [401] * 4 and 429 in codes[4:], codes
        assert all(a.json()["code"] == "too_many_attempts" for a in answers if a.status_code == 429)
        for client in (at_first, at_second):  # both processes refuse, even the right password
            refused = client.post("/api/login", json={"username": name, "password": PASSWORD})
            assert refused.status_code == 429 and refused.json()["code"] == "too_many_attempts", refused.text


def test_a_process_whose_redis_subscription_dropped_subscribes_again_and_catches_up(tmp_path: Path) -> None:
    """Redis restarts (here: this process's subscription is cut): the process subscribes again and
    reads the matches it serves, so a move whose note it missed still reaches it."""
    import redis.asyncio as redis

    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            match = await a.create("masker", {"players": 2}, ["human", "human"])
            for seat in (0, 1):
                await a.join(match, f"p{seat}", seat)
            there = await b.get(match.id)
            assert b.fanout is not None
            admin = redis.Redis.from_url(os.environ["MASQUES_TEST_REDIS_URL"])
            try:
                name = f"masques-fanout-{b.fanout.origin}"
                listed = await admin.client_list()
                cut = [c["id"] for c in listed if c.get("name") == name and int(c.get("psub", 0)) > 0]
                assert cut, listed
                for client_id in cut:
                    await admin.client_kill_filter(_id=client_id)
            finally:
                await admin.aclose()
            state = match.state
            await a.submit(
                match, state.current_player, state.legal_actions()[0], match.version
            )  # its note is lost
            await _until(lambda: there.version == match.version, "the cut process to catch up")

    run_async(scenario())


def test_a_move_is_shown_and_the_bots_go_on_when_redis_cannot_be_told(tmp_path: Path) -> None:
    """Telling the other processes is best effort: a Redis that does not answer after the commit
    neither fails the move nor stops the bots' replies; what could not be told is told again once
    Redis answers, and the other process catches up."""
    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            # Only this process thinks for the bot: had the other one made a bot move first, this
            # one would leave the bot to it, and it never hears of the moves that follow here.
            b._schedule_bots = lambda match: None  # type: ignore[method-assign]
            match = await a.create("masker", {"players": 2}, ["human", "random"])
            await a.join(match, "p0", 0)
            there = await b.get(match.id)
            assert a.fanout is not None
            publish, connected_line = a.fanout.client.publish, a.fanout._connected_line

            async def refuse(*args: Any, **kwargs: Any) -> None:
                raise ConnectionError("Redis is away")

            a.fanout.client.publish = refuse
            a.fanout._connected_line = refuse  # type: ignore[method-assign]
            if a.fanout.line is not None:
                await a.fanout.line.disconnect()
                a.fanout.line = None
            await _until(lambda: match.to_move == 0 or match.status != "running", "the human's turn")
            while match.to_move == 0 and match.status == "running":  # the human's turn, to its end
                await a.submit(match, 0, match.state.legal_actions()[0], match.version)
            await _until(lambda: match.to_move == 0 or match.status != "running", "the bot's reply")
            await a.fanout.drain()
            assert match.id in a.fanout.unsent and there.version < match.version
            # Redis is back: the sweep tells it again
            a.fanout.client.publish = publish
            a.fanout._connected_line = connected_line  # type: ignore[method-assign]
            await a.fanout.resend()
            assert not a.fanout.unsent
            await _until(lambda: there.version == match.version, "the other process to catch up")

    run_async(scenario())


class _QuietFanout:
    """A fanout that publishes nowhere: this process's notes go unheard (the test plays the other
    process by hand)."""

    async def _nothing(self, *args: Any, **kwargs: Any) -> None:
        return None

    publish = moved = here = arrived = gone = said = start = stop = resend = _nothing

    async def present(self, match_id: str, seat: int) -> bool:
        return False

    async def elsewhere(self, match_id: str) -> set[int] | None:
        return set()

    async def refresh(self, seats: dict[str, list[int]]) -> dict[str, set[int]] | None:
        return {match_id: set() for match_id in seats}

    async def anyone(self, match_id: str) -> bool:
        return False


@contextlib.asynccontextmanager
async def _among_others(folder: Path) -> AsyncIterator[Registry]:
    """A registry that takes other processes to share its matches (their notes go unheard), whose
    bots move only when the test runs them."""
    async with sqlite_registry(folder) as here:
        here.fanout = _QuietFanout()  # type: ignore[assignment]
        here._schedule_bots = lambda match: None  # type: ignore[method-assign]
        try:
            yield here
        finally:
            here.fanout = None


@contextlib.asynccontextmanager
async def _here_and_there(
    folder: Path, *, among_others: bool = True
) -> AsyncIterator[tuple[Registry, Registry]]:
    """Two registries on one SQLite file, as two processes: ``here`` takes others to share its
    matches (unless ``among_others`` is false), whose notes go unheard; the test plays ``there``
    by hand."""
    storage = Storage(fresh_database_url("sqlite", folder))
    storage.migrate()
    here = Registry(storage, limits=RELAXED, bot_workers=1)
    there = Registry(storage, limits=RELAXED, bot_workers=1)
    if among_others:
        here.fanout = _QuietFanout()  # type: ignore[assignment]
    try:
        yield here, there
    finally:
        here.fanout = None
        for registry in (here, there):
            registry.close()
        storage.engine.dispose()


@pytest.mark.parametrize("other_processes", [True, False])
def test_bots_whose_move_another_process_made_first_are_left_to_it(
    tmp_path: Path, other_processes: bool
) -> None:
    """After a restart two processes may hold one match of bots: the one whose bot move is made
    first by the other leaves the bots to it (with nobody connected here), instead of both thinking
    every move to commit half.  Alone (no other process), a move found taken is looked at again."""

    async def scenario() -> None:
        async with _here_and_there(tmp_path, among_others=other_processes) as (here, there):
            for registry in (here, there):
                registry._schedule_bots = lambda match: None  # type: ignore[method-assign]
            match = await here.create("masker", {"players": 2}, ["random", "random"])
            theirs = await there.get(match.id)
            await there._commit(theirs, theirs.state.current_player, theirs.state.legal_actions()[0], 0)
            await asyncio.wait_for(here._run_bots(match), TIMEOUT)  # finds version 0 taken
            if other_processes:
                assert match.status == "running" and match.version == 1  # caught up, then stopped
            else:
                assert match.status == "finished"  # played on to the end

    run_async(scenario())


def test_bots_whose_server_is_stopping_stop_with_it_and_let_the_event_loop_run(tmp_path: Path) -> None:
    """A bot's move refused before anything is awaited (the writer stopping) ended in a loop that
    tried again at once, for ever: it held the event loop, so nothing else ran and the loop's task
    could not even be cancelled."""

    async def scenario() -> None:
        async with _here_and_there(tmp_path, among_others=False) as (here, _):
            here._schedule_bots = lambda match: None  # type: ignore[method-assign]
            match = await here.create("masker", {"players": 2}, ["random", "random"])
            here.commits.close()
            decide, decisions = here._decide, 0

            async def counted(*args: Any, **kwargs: Any) -> int:
                nonlocal decisions
                decisions += 1
                assert decisions < 100, "the bot loop tries again and again without a pause"
                return await decide(*args, **kwargs)

            here._decide = counted  # type: ignore[method-assign]
            ticks = 0

            async def ticking() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0)

            ticker = asyncio.ensure_future(ticking())
            try:
                await asyncio.wait_for(here._run_bots(match), TIMEOUT)
            finally:
                ticker.cancel()
            assert match.version == 0 and decisions == 1 and ticks > 0

    run_async(scenario())


def test_bots_left_to_another_process_stay_left_until_it_falls_quiet(tmp_path: Path) -> None:
    """Once another process has moved first for a match's bots, its later moves reach this one and
    are shown here, but do not start the bots here again (both processes would think every move,
    for the rest of the match); if that process stops moving for them, the sweep takes them back."""

    async def scenario() -> None:
        async with _here_and_there(tmp_path) as (here, there):
            for registry in (here, there):
                registry._schedule_bots = lambda match: None  # type: ignore[method-assign]
            match = await here.create("masker", {"players": 2}, ["random", "random"])
            del here._schedule_bots  # from now on, the real one
            theirs = await there.get(match.id)

            async def there_moves() -> None:
                seat, version = theirs.state.current_player, theirs.version
                action = theirs.state.legal_actions()[0]
                await there._commit(theirs, seat, action, version)
                await here._on_remote_move(match.id, Moved(version, seat, action, None, None))

            await there._commit(theirs, theirs.state.current_player, theirs.state.legal_actions()[0], 0)
            await asyncio.wait_for(here._run_bots(match), TIMEOUT)  # finds version 0 taken: stands down
            assert match.version == 1 and match.bots_elsewhere_since is not None
            for _ in range(3):
                await there_moves()
                assert match.version == theirs.version  # shown here
                assert match.bot_task is None or match.bot_task.done()  # but not thought here
            assert here.take_back_bots() == 0  # that process moved lately
            match.bots_elsewhere_since = time.monotonic() - here._bots_quiet()  # then nothing since
            assert here.take_back_bots() == 1 and match.bots_elsewhere_since is None
            assert match.bot_task is not None
            await asyncio.wait_for(match.bot_task, TIMEOUT)
            assert match.status == "finished"  # played on to the end here

    run_async(scenario())


def test_a_rematch_asked_here_right_after_the_end_elsewhere_is_not_refused(tmp_path: Path) -> None:
    """A match resigned through another process is over here too, even before that process's note
    arrives: the rematch answered here is taken, not refused as asked of a running match."""

    async def scenario() -> None:
        async with _here_and_there(tmp_path) as (here, there):
            match = await here.create("masker", {"players": 2}, ["human", "human"])
            for seat in (0, 1):
                await here.join(match, f"p{seat}", seat, None)
            assert match.status == "running"
            theirs = await there.get(match.id)
            await there.resign(theirs, 0)  # its note never comes here
            await here.answer_rematch(match, 1, True)
            assert match.status == "finished" and match.rematch is not None

    run_async(scenario())


def test_a_bot_move_whose_write_failed_is_tried_again_even_with_other_processes(tmp_path: Path) -> None:
    """Only a move another process made first stands the bots down: a write that failed (the
    version still free) is tried again, and the game goes on here."""

    async def scenario() -> None:
        async with _among_others(tmp_path) as here:
            committing = here._commit
            failed: list[int] = []

            async def fails_once(match: LiveMatch, seat: int, action: int, version: int) -> None:
                if not failed:
                    failed.append(version)
                    raise ServerError(503, "storage_busy", "the database did not answer")
                await committing(match, seat, action, version)

            here._commit = fails_once  # type: ignore[method-assign]
            match = await here.create("masker", {"players": 2}, ["random", "random"])
            await asyncio.wait_for(here._run_bots(match), TIMEOUT)
            assert failed == [0] and match.status == "finished"

    run_async(scenario())


def _long_ago(url: str) -> None:
    """Every match of the database made long ago, nothing played since."""
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("update matches set created = :t"), {"t": datetime(2026, 1, 1, tzinfo=UTC)})
    engine.dispose()


def test_a_bots_match_whose_process_is_gone_is_taken_up_by_another(tmp_path: Path) -> None:
    """A match of bots nobody watches, left by a process that died: once its bot has been due to
    move for a while, another process's sweep takes it up and its bots go on."""
    url = fresh_database_url("sqlite", tmp_path)

    async def scenario() -> None:
        storage = Storage(url)
        storage.migrate()
        registry = Registry(storage, limits=RELAXED, bot_workers=1)
        try:
            held = registry._schedule_bots
            registry._schedule_bots = lambda match: None  # type: ignore[method-assign]
            match = await registry.create("masker", {"players": 2}, ["random", "random"])
            del registry.matches[match.id]  # as if the process that held it had died
            registry._schedule_bots = held  # type: ignore[method-assign]
            assert await registry.adopt_stalled() == 0  # not quiet for long yet
            _long_ago(url)
            assert await registry.adopt_stalled() == 1
            taken = registry.matches[match.id]
            await _until(lambda: taken.version > 0, "the bots to move again")
            assert await registry.adopt_stalled() == 0  # held now
        finally:
            registry.close()
            storage.engine.dispose()

    run_async(scenario())


def test_one_process_alone_takes_up_a_running_match_it_does_not_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without Redis too, the sweep looks for running matches left out of memory (one that could
    not be loaded as it was made): their bots go on, without any request for them."""
    url = fresh_database_url("sqlite", tmp_path)
    monkeypatch.setattr(matches_module, "SWEEP_SECONDS", 0.05)
    monkeypatch.setattr(matches_module, "EXPIRY_ROUNDS", 1)

    async def scenario() -> None:
        storage = Storage(url)
        storage.migrate()
        registry = Registry(storage, limits=RELAXED, bot_workers=1)
        try:
            assert registry.fanout is None
            await registry.start()  # its resumption at the start has nothing to resume
            held = registry._schedule_bots
            registry._schedule_bots = lambda match: None  # type: ignore[method-assign]
            match = await registry.create("masker", {"players": 2}, ["random", "random"])
            del registry.matches[match.id]  # never loaded
            registry._schedule_bots = held  # type: ignore[method-assign]
            _long_ago(url)
            await _until(lambda: match.id in registry.matches, "the sweep to take the match up")
            await _until(lambda: registry.matches[match.id].version > 0, "the bots to move")
        finally:
            registry.close()
            storage.engine.dispose()

    run_async(scenario())


def _as_if_its_process_died(registry: Registry, match_id: str) -> None:
    """Forget a match as a process that died would: out of memory, and nothing of it running on
    (its absent seats' grace would give them to bots that play on beside the match taken up)."""
    match = registry.matches.pop(match_id)
    for task in (match.bot_task, match.clock_task, match.presence_task, match.away_task):
        if task is not None:
            task.cancel()


def test_a_peoples_match_whose_process_is_gone_is_taken_up_by_another(tmp_path: Path) -> None:
    """A match whose people were connected to a process that died, and did not come back: once its
    turn has been quiet for a grace period, with none of its seats connected anywhere, another
    process's sweep takes it up; the absent seats' grace runs there and bots finish the game.  One
    whose seat is connected to some process is left to that process."""
    url = fresh_database_url("sqlite", tmp_path)

    class Presence:
        """The other processes' notes of connected seats, as the fanout reads them from Redis."""

        def __init__(self, connected: set[str]) -> None:
            self.connected = connected

        async def anyone(self, match_id: str) -> bool:
            return match_id in self.connected

        async def present(self, match_id: str, seat: int) -> bool:
            return match_id in self.connected

        async def elsewhere(self, match_id: str) -> set[int] | None:
            return {0, 1} if match_id in self.connected else set()

    async def scenario() -> None:
        storage = Storage(url)
        storage.migrate()
        limits = replace(RELAXED, grace_seconds=0.2, abandoned_bot="random")
        registry = Registry(storage, limits=limits, bot_workers=1)
        try:
            made = []
            for _ in range(2):
                match = await registry.create("masker", {"players": 2}, ["human", "human"])
                for seat in (0, 1):
                    await registry.join(match, f"p{seat}", seat)
                made.append(match.id)
                _as_if_its_process_died(registry, match.id)
            # the second match's people are connected to a process still alive
            registry.fanout = Presence({made[1]})  # type: ignore[assignment]
            assert await registry.adopt_stalled() == 0  # not quiet for long yet
            _long_ago(url)
            assert await registry.adopt_stalled() == 1
            assert made[0] in registry.matches and made[1] not in registry.matches
            registry.fanout = None
            taken = registry.matches[made[0]]
            await _until(lambda: taken.status == "finished", "the absent seats' bots to finish the game")
        finally:
            registry.fanout = None
            registry.close()
            storage.engine.dispose()

    run_async(scenario())


def test_the_last_seats_taken_through_two_processes_at_once_start_the_match(tmp_path: Path) -> None:
    """Each process sees only the seat it gave: the one that hears of the other's (or reads it
    after its own) starts the match, once."""
    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            made = await a.create("masker", {"players": 2}, ["human", "human"])
            there = await b.get(made.id)
            await asyncio.gather(a.join(made, "p0", 0), b.join(there, "p1", 1))
            await _until(lambda: made.status == there.status == "running", "both to see the start")
            row = a.storage.match(made.id)
            assert row is not None and row.status == "running"

    run_async(scenario())


def test_a_join_reads_the_whole_match_only_when_a_seat_changed_hands_elsewhere(tmp_path: Path) -> None:
    """After its claim a process asks storage which seats are free: the same as it knows, nothing
    more is read; another process's claim whose note has not come is read at once, and the last
    seat taken here starts the match without waiting for that note."""
    url = fresh_database_url("postgresql", tmp_path)

    async def ignore(*args: Any) -> None:
        return None

    async def scenario() -> None:
        async with two_registries(url, second=CountedStorage) as (a, b):
            made = await a.create("masker", {"players": 3}, ["human", "human", "human"])
            there = await b.get(made.id)
            assert b.fanout is not None  # B hears nothing from A from now on: its notes are late
            b.fanout.on_change = b.fanout.on_move = b.fanout.on_presence = ignore  # type: ignore[method-assign]
            CountedStorage.reads = 0
            await b.join(there, "p0", 0)
            assert CountedStorage.reads == 0  # nobody took a seat elsewhere: the match is not read
            await _until(lambda: made.seats[0].taken, "A to hear of seat 0")
            await a.join(made, "p1", 1)
            assert not there.seats[1].taken  # (its note never reaches B)
            await b.join(there, "p2", 2)
            assert CountedStorage.reads == 1 and there.seats[1].taken and there.status == "running"

    run_async(scenario())


def test_an_end_decided_in_one_process_counts_a_move_just_made_in_the_other(tmp_path: Path) -> None:
    """Seat 2's move through B puts it out of the game (MK-10); seat 0 resigns through A before A has
    heard of the move: A reads it first, so seat 2 loses with seat 0 and seat 1 alone wins."""
    from masques_server_support import SELF_ELIMINATION  # type: ignore[import-not-found]

    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            here = await a.create("masker", {"players": 3}, ["human"] * 3, seed=9)
            for seat in range(3):
                await a.join(here, f"p{seat}", seat)
            there = await b.get(here.id)
            for action in SELF_ELIMINATION[:-1]:
                await a.submit(here, here.state.current_player, action, here.version)
            await _until(lambda: there.version == here.version, "B to follow")

            async def deaf(*_args: Any) -> None:  # A hears nothing more of B for now
                return None

            a._on_remote_move = deaf  # type: ignore[method-assign]
            a._on_remote_change = deaf  # type: ignore[method-assign]
            await b.submit(there, 2, SELF_ELIMINATION[-1], there.version)
            assert there.state.is_out(2) and not here.state.is_out(2)
            await a.resign(here, 0)
            assert here.end == {"reason": "resigned", "seats": [0, 2], "winners": [1]}
            row = a.storage.match(here.id)
            assert row is not None and row.end == here.end

    run_async(scenario())


def test_an_expiry_and_a_departure_reach_the_other_process(tmp_path: Path) -> None:
    """An open match A expires though only B holds it: B hears of it, and a join through B is
    refused.  A seat's last connection closing in A takes back A's note that it is connected."""
    url = fresh_database_url("postgresql", tmp_path)

    async def send(_text: str) -> None:
        return None

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            waiting = await b.create("masker", {"players": 2}, ["human", "human"])
            a.storage.stale_open_matches = lambda _older_than: [waiting.id]  # type: ignore[method-assign]
            assert await a.expire_open() == 1 and waiting.id not in a.matches
            await _until(lambda: waiting.status == "expired", "B to hear of the expiry")
            with pytest.raises(ServerError) as refused:
                await b.join(waiting, "late", 0)
            assert refused.value.code == "expired"

            played = await a.create("masker", {"players": 2}, ["human", "human"])
            tokens = [(await a.join(played, f"p{seat}", seat))[1] for seat in (0, 1)]
            client = Client(1, send, seat_token=hash_token(tokens[1]))
            await a.connect(played, client)
            assert b.fanout is not None
            await _until_async(lambda: b.fanout.present(played.id, 1), True, "B to see seat 1 connected")  # type: ignore[union-attr]
            await a.disconnect(played, client)
            assert not await b.fanout.present(played.id, 1)

    run_async(scenario())


async def _until_async(ask: Any, wanted: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while await ask() != wanted:
        assert time.monotonic() < deadline, f"waited {TIMEOUT} s for {what}"
        await asyncio.sleep(0.05)


def test_a_move_made_here_while_a_bot_thinks_does_not_stand_the_bots_down(tmp_path: Path) -> None:
    """Only another process's move leaves the bots to it: one this process made itself while its
    bot thought (a person's clock running out, say) is looked at again, and the game goes on."""

    async def scenario() -> None:
        async with _among_others(tmp_path) as here:
            deciding = here._decide
            made_meanwhile: list[int] = []

            async def meanwhile(match: LiveMatch, seat: int, kind: str, purpose: str) -> int:
                action = await deciding(match, seat, kind, purpose)
                if not made_meanwhile:  # this process moves first, as a clock running out would
                    made_meanwhile.append(match.version)
                    await here._commit(match, seat, match.state.legal_actions()[0], match.version)
                return int(action)

            here._decide = meanwhile  # type: ignore[method-assign]
            match = await here.create("masker", {"players": 2}, ["random", "random"])
            await asyncio.wait_for(here._run_bots(match), TIMEOUT)
            assert made_meanwhile == [0] and match.status == "finished"

    run_async(scenario())


@contextlib.asynccontextmanager
async def _listening_by_hand(folder: Path) -> AsyncIterator[tuple[Registry, Fanout, Registry]]:
    """``here`` as a process among others, with its listener's note handlers (the test hands them
    the notes of ``there``, played by hand, as its Redis subscription would) and nothing published."""
    redis_url = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert redis_url, "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh"
    storage = Storage(fresh_database_url("sqlite", folder))
    storage.migrate()
    here = Registry(storage, limits=RELAXED, bot_workers=1, redis_url=redis_url)
    there = Registry(storage, limits=RELAXED, bot_workers=1)
    listener, here.fanout = here.fanout, _QuietFanout()  # type: ignore[assignment]
    assert listener is not None
    try:
        yield here, listener, there
    finally:
        here.fanout = None
        for registry in (here, there):
            registry.close()
        storage.engine.dispose()


def test_a_move_made_elsewhere_while_a_match_is_being_loaded_here_is_not_missed(tmp_path: Path) -> None:
    """The note of a move made through another process can come while this one reads the match's
    log: the match is read again once loaded, so its players here see the move and their turn."""

    async def scenario() -> None:
        async with _listening_by_hand(tmp_path) as (here, listener, there):
            match = await there.create("masker", {"players": 2}, ["human", "human"])
            for seat in (0, 1):
                await there.join(match, f"p{seat}", seat)
            loop = asyncio.get_running_loop()

            async def moved_there() -> None:
                seat, version = match.state.current_player, match.version
                action = match.state.legal_actions()[0]
                await there.submit(match, seat, action, version)
                assert listener.on_move is not None
                await listener.on_move(match.id, Moved(version, seat, action, match.clock, match.deadline))

            load = here._load

            def load_while_moved_there(match_id: str) -> LiveMatch:
                loaded = load(match_id)  # the log is read: the move comes now
                asyncio.run_coroutine_threadsafe(moved_there(), loop).result(TIMEOUT)
                return loaded

            here._load = load_while_moved_there  # type: ignore[method-assign]
            held = await here.get(match.id)
            assert held.version == match.version == 1
            assert held.state.current_player == match.state.current_player

    run_async(scenario())


def test_a_note_from_elsewhere_that_cannot_be_followed_now_is_followed_by_the_sweep(tmp_path: Path) -> None:
    """A note whose reading fails (storage away a moment) leaves the match in doubt rather than
    behind for good: the next sweep reads it again."""

    async def scenario() -> None:
        async with _listening_by_hand(tmp_path) as (here, listener, there):
            match = await here.create("masker", {"players": 2}, ["human", "human"])
            await here.join(match, "p0", 0)
            theirs = await there.get(match.id)
            await there.join(theirs, "p1", 1)  # the last seat, through the other process
            catch_up = here._catch_up
            failures = [OSError("the database is restarting")]

            async def catch_up_once_failing(live: LiveMatch) -> bool:
                if failures:
                    raise failures.pop()
                return await catch_up(live)

            here._catch_up = catch_up_once_failing  # type: ignore[method-assign]
            await listener.on_change(match.id)  # as the listener calls it: the failure stays here
            assert match.status == "open"
            await here._read_doubtful()  # the sweep's round
            assert match.status == "running" and all(seat.taken for seat in match.seats)

    run_async(scenario())


@pytest.mark.parametrize("refused", ["claim", "join"])
def test_a_request_refused_after_reading_a_change_made_elsewhere_shows_that_change_here(
    tmp_path: Path, refused: str
) -> None:
    """A request that reads the match again before it is refused (a claim while the opponent is
    here after all, a seat just taken elsewhere) shows this process's connections what it read:
    the change's own note, coming after, finds it known, and they would be left on the old
    position, one of them waiting for a turn it already has."""

    async def scenario() -> None:
        async with _here_and_there(tmp_path) as (here, there):
            people = ["human", "human"] if refused == "claim" else ["human", "human", "human"]
            theirs = await there.create("masker", {"players": len(people)}, people)
            await there.join(theirs, "p0", 0)
            match = await here.get(theirs.id)
            seen: list[dict[str, Any]] = []

            async def taken(text: str) -> None:
                seen.append(orjson.loads(text))

            watcher = Client(0, taken, seat_token=match.seats[0].token_hash)
            await here.connect(match, watcher)
            pump = asyncio.get_running_loop().create_task(watcher.pump())
            try:
                if refused == "claim":
                    await there.join(theirs, "p1", 1)
                    await here._read_again(match)  # as the start's note does
                    mover = theirs.state.current_player
                    await there.submit(theirs, mover, theirs.state.legal_actions()[0], theirs.version)
                    with pytest.raises(ServerError):  # the opponent is here: nothing to claim
                        await here.claim(match, 1 - mover)
                    expected = theirs.version
                else:
                    await there.join(theirs, "p1", 1)
                    with pytest.raises(ServerError) as taken_elsewhere:
                        await here.join(match, "someone", 1)
                    assert taken_elsewhere.value.code == "seat_taken"
                    expected = None
                await asyncio.sleep(0.1)
                last = seen[-1]
                if expected is not None:
                    assert last["version"] == expected
                else:
                    assert [s["taken"] for s in last["match"]["seats"]] == [True, True, False]
            finally:
                pump.cancel()

    run_async(scenario())


def test_a_rematch_asked_here_of_a_match_started_and_ended_elsewhere_is_not_refused(tmp_path: Path) -> None:
    """The match was still open here (its start and its end, through another process, not heard
    of yet): a rematch asked for here reads it again rather than answer that it is not over."""

    async def scenario() -> None:
        async with _here_and_there(tmp_path) as (here, there):
            match = await here.create("masker", {"players": 2}, ["human", "human"])
            await here.join(match, "p0", 0)
            theirs = await there.get(match.id)
            await there.join(theirs, "p1", 1)
            await there.resign(theirs, 1)
            assert match.status == "open"
            await here.answer_rematch(match, 0, True)
            assert match.status == "finished"

    run_async(scenario())


class _ConnectedElsewhere(_QuietFanout):
    """Another process has every seat connected (as its notes in Redis say)."""

    async def present(self, match_id: str, seat: int) -> bool:
        return True


def test_a_seat_connected_to_another_process_is_neither_claimed_nor_handed_to_a_bot(tmp_path: Path) -> None:
    """Away from this process for longer than the grace period, but connected to another: a claim
    or a request to hand the seat to a bot asks Redis first, and is refused."""

    async def scenario() -> None:
        async with _here_and_there(tmp_path) as (here, _there):
            here.fanout = _ConnectedElsewhere()  # type: ignore[assignment]
            match = await here.create("masker", {"players": 2}, ["human", "human"])
            tokens = [(await here.join(match, f"p{seat}", seat))[1] for seat in (0, 1)]
            await here.connect(match, Client(0, _nothing, seat_token=hash_token(tokens[0])))
            if match.away_task is not None:  # the watch of the absent seats would ask Redis too
                match.away_task.cancel()
            match.seats[1].away_since = here.now() - match.grace_seconds - 5  # its grace long past here
            assert match.abandoned(1)
            for refused in (here.claim(match, 0), here.hand_to_bot(match, 0, 1)):
                with pytest.raises(ServerError) as answer:
                    await refused
                assert answer.value.code == "not_abandoned"
            assert match.status == "running" and match.seats[1].kind == "human"
            assert not match.abandoned(1)  # its grace starts over

    run_async(scenario())


def test_a_seat_taken_through_another_process_and_never_connected_is_away_here(tmp_path: Path) -> None:
    """A seat this process learns was taken elsewhere, with no connection here, counts as away (the
    watch asks Redis whether the other process has it): else its grace never ran here, and a
    player here could never claim the match from a person who took the seat and left."""

    async def scenario() -> None:
        async with _here_and_there(tmp_path) as (here, there):
            match = await here.create("masker", {"players": 2}, ["human", "human"])
            token = (await here.join(match, "p0", 0))[1]
            await here.connect(match, Client(0, _nothing, seat_token=hash_token(token)))
            theirs = await there.get(match.id)
            await there.join(theirs, "p1", 1)
            await here._read_again(match)  # as the note of the join does
            away = match.seats[1].away_since
            assert match.status == "running" and away is not None and match.seats[0].away_since is None
            assert match.abandoned(1, now=away + match.grace_seconds + 1)

    run_async(scenario())


async def _nothing(_text: str) -> None:
    return None


class _Watcher:
    """A client of one process whose messages the test reads."""

    def __init__(self, seat: int | None, token: str | None) -> None:
        self.seen: list[dict[str, Any]] = []
        self.client = Client(seat, self._send, seat_token=None if token is None else hash_token(token))
        self.pump: asyncio.Task[None] | None = None

    async def _send(self, text: str) -> None:
        self.seen.append(orjson.loads(text))

    async def connect(self, registry: Registry, match: LiveMatch) -> None:
        await registry.connect(match, self.client)
        self.pump = asyncio.get_running_loop().create_task(self.client.pump())

    def seat_seen(self, seat: int) -> dict[str, Any] | None:
        """The seat as the last view or presence message shows it (None: none yet)."""
        shown = [m for m in self.seen if m.get("type") in ("presence", "state")]
        return None if not shown else dict(shown[-1]["match"]["seats"][seat])

    def stop(self) -> None:
        if self.pump is not None:
            self.pump.cancel()


async def _played_through_a(a: Registry) -> tuple[LiveMatch, list[str]]:
    match = await a.create("masker", {"players": 2}, ["human", "human"])
    tokens = [(await a.join(match, f"p{seat}", seat))[1] for seat in (0, 1)]
    return match, tokens


async def _watched_from_b(a: Registry, b: Registry) -> tuple[LiveMatch, list[str], LiveMatch, _Watcher]:
    """A match of two people made through A, and seat 1 connected to B (B's copy of the match)."""
    match, tokens = await _played_through_a(a)
    there = await b.get(match.id)
    watcher = _Watcher(1, tokens[1])
    await watcher.connect(b, there)
    return match, tokens, there, watcher


def test_a_seat_connected_to_one_process_is_connected_for_the_clients_of_the_other(tmp_path: Path) -> None:
    """Seat 0 plays through A, seat 1 through B: B's clients see seat 0 connected as soon as it
    connects (no absence, not abandoned, though B's clock of its absence had run past the grace
    period), and away from the moment it leaves A, its grace period starting then and watched by B."""
    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            match, tokens, there, watcher = await _watched_from_b(a, b)
            try:
                await _until(lambda: watcher.seat_seen(0) is not None, "B's client to be told who is here")
                assert not (watcher.seat_seen(0) or {}).get("connected")
                there.seats[0].away_since = b.now() - there.grace_seconds - 5  # long gone, as B saw it
                player = Client(0, _nothing, seat_token=hash_token(tokens[0]))
                await a.connect(match, player)
                await _until(lambda: (watcher.seat_seen(0) or {}).get("connected"), "B's clients to see it")
                seen = watcher.seat_seen(0)
                assert seen is not None and seen["away_since"] is None and not seen["abandoned"]
                assert there.summary()["seats"][0] == seen  # the lobby and the views say the same
                assert there.view(1)["match"]["seats"][0]["connected"]
                assert not there.abandoned(0)

                left_at = b.now()
                await a.disconnect(match, player)
                await _until(
                    lambda: not (watcher.seat_seen(0) or {}).get("connected"), "B's clients to see it go"
                )
                seen = watcher.seat_seen(0)
                assert seen is not None and seen["away_since"] is not None and not seen["abandoned"]
                assert left_at <= seen["away_since"] <= b.now()  # its grace starts when it leaves
                assert there.away_task is not None and not there.away_task.done()
            finally:
                watcher.stop()

    run_async(scenario())


def test_a_match_loaded_while_a_seat_is_connected_to_another_process_shows_it_connected(
    tmp_path: Path,
) -> None:
    """A process that takes up a match (a request, a spectator) reads which of its seats other
    processes have connected: those are present from the start, not away since the load."""
    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            match, tokens = await _played_through_a(a)
            await a.connect(match, Client(0, _nothing, seat_token=hash_token(tokens[0])))
            there = await b.get(match.id)
            seats = there.summary()["seats"]
            assert seats[0]["connected"] and seats[0]["away_since"] is None
            assert not seats[1]["connected"] and seats[1]["away_since"] is not None

    run_async(scenario())


def test_the_lobby_of_a_process_that_does_not_serve_a_match_shows_who_is_connected_elsewhere(
    tmp_path: Path,
) -> None:
    """Behind a proxy, the lobby's requests go to either process: B lists a match only A serves
    with A's connected seat connected, as A lists it (not every seat away)."""
    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            match, tokens = await _played_through_a(a)
            await a.connect(match, Client(0, _nothing, seat_token=hash_token(tokens[0])))
            assert match.id not in b.matches
            for registry in (a, b):
                listed = {m["id"]: m for m in await registry.listing(("open", "running"))}
                seats = listed[match.id]["seats"]
                assert [s["connected"] for s in seats] == [True, False], registry is a
            assert match.id not in b.matches  # read from Redis, not by taking the match up

    run_async(scenario())


def test_a_connection_made_while_redis_is_down_stands_and_the_sweep_tells_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis refuses A's commands as seat 0 connects: the connection is made all the same (its view
    sent, in time), and once Redis is back A's sweep notes the seat and B's sweep shows it connected."""
    import redis.asyncio as redis

    url = fresh_database_url("postgresql", tmp_path)
    monkeypatch.setattr(matches_module, "SWEEP_SECONDS", 0.2)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            match, tokens, _there, watcher = await _watched_from_b(a, b)
            assert a.fanout is not None
            working, a.fanout.client = (
                a.fanout.client,
                redis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=1),
            )
            if a.fanout.line is not None:  # (its notes' own connection goes down with Redis too)
                await a.fanout.line.disconnect()
                a.fanout.line = None
            player = _Watcher(0, tokens[0])
            try:
                started = time.monotonic()
                await asyncio.wait_for(player.connect(a, match), fanout_module.COMMAND_SECONDS + 2)
                assert time.monotonic() - started < fanout_module.COMMAND_SECONDS + 1
                assert player.client in match.clients and match.seats[0].away_since is None
                await _until(lambda: any(m.get("type") == "state" for m in player.seen), "its view")
                await asyncio.sleep(0.5)  # sweeps with Redis away: nothing breaks, nothing is told
                assert not (watcher.seat_seen(0) or {}).get("connected")
                await a.fanout.client.aclose()
                a.fanout.client = working
                await _until(
                    lambda: (watcher.seat_seen(0) or {}).get("connected"), "B to see it by the sweep"
                )
            finally:
                watcher.stop()
                player.stop()

    run_async(scenario())


def test_a_bots_move_committed_though_its_acknowledgement_was_lost_does_not_stop_the_bots(
    tmp_path: Path,
) -> None:
    """A bot's move committed without its acknowledgement is the process's own move: its bots go
    on at once.  Taken for another process's move, it made them stand aside for as long as the
    sweep waits before taking a stalled match back (a minute)."""
    from sqlalchemy.exc import OperationalError

    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, _b):
            write = a.storage.append_actions
            lost: list[int] = []

            def committed_unacknowledged(appends: list[Any]) -> None:
                write(appends)
                if not lost and appends[0].number >= 2:
                    lost.append(appends[0].number)
                    raise OperationalError("COMMIT", {}, Exception("server closed the connection"))

            a.storage.append_actions = committed_unacknowledged  # type: ignore[method-assign]
            match = await a.create("masker", {"players": 2}, ["random", "random"])
            await _until(lambda: bool(lost), "a bot's move to lose its acknowledgement")
            deadline = time.monotonic() + 10  # well within the minute the bots stood aside
            while match.status == "running" and match.version < lost[0] + 4:
                assert time.monotonic() < deadline, f"the bots stopped at version {match.version}"
                await asyncio.sleep(0.01)
            assert match.bots_elsewhere_since is None and match.moves_from_elsewhere == 0
            actors = list(match.actors)
            stored = a.storage.log(match.id)  # the bots may have moved on since: a longer log
            assert [seat for seat, _ in stored][: len(actors)] == actors  # each move stored once

    run_async(scenario())


def test_a_move_committed_though_its_acknowledgement_was_lost_reaches_the_other_process(
    tmp_path: Path,
) -> None:
    """The database commits a move but the connection is lost before it says so: the write is
    tried again and finds its version taken by this very move, which therefore counts as made
    (its player is not refused a move that stands).  The other processes are told of it as of any
    move: the player to move there sees it, rather than waiting on the old position for ever."""
    from sqlalchemy.exc import OperationalError

    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            match = await a.create("masker", {"players": 2}, ["human", "human"])
            tokens = [(await a.join(match, f"p{seat}", seat))[1] for seat in (0, 1)]
            there = await b.get(match.id)
            seen: list[str] = []

            async def send(text: str) -> None:
                seen.append(text)

            mover = match.state.current_player
            watcher = Client(1 - mover, send, seat_token=hash_token(tokens[1 - mover]))
            await b.connect(there, watcher)
            pump = asyncio.get_running_loop().create_task(watcher.pump())
            write = a.storage.append_actions
            lost: list[int] = []

            def committed_unacknowledged(appends: list[Any]) -> None:
                write(appends)
                if not lost:
                    lost.append(appends[0].number)
                    raise OperationalError("COMMIT", {}, Exception("server closed the connection"))

            a.storage.append_actions = committed_unacknowledged  # type: ignore[method-assign]
            version = match.version
            await a.submit(match, mover, match.state.legal_actions()[0], version)
            assert lost == [version] and match.version == version + 1
            assert match.moves_from_elsewhere == 0  # its own move, not another process's
            await _until(lambda: there.version == match.version, "the other process to see the move")
            await _until(lambda: any(f'"version":{match.version}' in t for t in seen), "the view there")
            pump.cancel()

    run_async(scenario())


def test_a_last_move_committed_though_its_acknowledgement_was_lost_ends_the_match_everywhere(
    tmp_path: Path,
) -> None:
    """The same for a match's last move: its player is not refused the move that ended the
    match, and the other process sees the match end."""
    from sqlalchemy.exc import OperationalError

    url = fresh_database_url("postgresql", tmp_path)

    async def scenario() -> None:
        async with two_registries(url) as (a, b):
            match = await a.create("masker", {"players": 2}, ["human", "human"])
            for seat in (0, 1):
                await a.join(match, f"p{seat}", seat)
            there = await b.get(match.id)

            def ends(action: int) -> bool:
                trial = match.state.clone()
                trial.apply(action)
                return trial.is_terminal()

            while not any(ends(action) for action in match.state.legal_actions()):
                first = match.state.legal_actions()[0]
                await a.submit(match, match.state.current_player, first, match.version)
            last = next(action for action in match.state.legal_actions() if ends(action))
            write = a.storage._write_action
            lost: list[int] = []

            def committed_unacknowledged(*args: Any, **kwargs: Any) -> Any:
                write(*args, **kwargs)
                lost.append(args[1])
                raise OperationalError("COMMIT", {}, Exception("server closed the connection"))

            a.storage._write_action = committed_unacknowledged  # type: ignore[method-assign]
            version = match.version
            await a.submit(match, match.state.current_player, last, version)
            assert lost == [version] and match.status == "finished" and match.version == version + 1
            await _until(lambda: there.status == "finished", "the other process to see the end")
            assert there.version == match.version and a.storage.log(match.id)[-1][1] == last

    run_async(scenario())
