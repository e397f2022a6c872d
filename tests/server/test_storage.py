"""Storage durability: SQLite commits with ``synchronous=FULL``, and one server process per SQLite file
(a second one refuses to start and says to use PostgreSQL); PostgreSQL takes several processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.server.storage import DatabaseInUseError, FileOwner, Storage, sqlite_file


def test_sqlite_connections_commit_with_synchronous_full_in_wal_mode(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    assert storage._single_writes is not None  # the writing thread's own connection too
    for engine in (storage.engine, storage._single_writes):
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL (NORMAL is 1)
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_batch_of_moves_without_clocks_is_written_whole_or_not_at_all(tmp_path: Path, backend: str) -> None:
    """On SQLite a batch without a turn's clock is one statement: a version taken or a match ended
    refuses all of it, as a transaction of one row at a time did; what it writes reads back the same."""
    from sqlalchemy.exc import IntegrityError

    from masques.server.storage import Append, MatchEndedError, NewMatch, Turn

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        ids = [f"00000000000000d{n}" for n in range(4)]
        for match_id in ids:
            storage.create_match(NewMatch(match_id, "masker", "1", {}, 5, [], status="running"))
        storage.append_actions([Append(ids[0], 0, 0, 7)])
        storage.end_match(ids[3], {"reason": "aborted", "seats": [], "winners": []}, "expired")
        for refused in (
            [Append(ids[1], 0, 1, 5), Append(ids[0], 0, 1, 6)],  # version 0 of the first is taken
            [Append(ids[1], 0, 1, 5), Append(ids[3], 0, 0, 2)],  # the last one has ended
        ):
            with pytest.raises((IntegrityError, MatchEndedError)):
                storage.append_actions(refused)
            assert [storage.log(m) for m in ids] == [[(0, 7)], [], [], []]
        storage.append_actions([Append(ids[1], 0, 1, 5), Append(ids[0], 1, 1, 6), Append(ids[1], 1, 0, 4)])
        storage.append_actions([Append(ids[2], 0, 0, 3, Turn(1))])  # with a clock: the other way
        logs = [[(0, 7), (1, 6)], [(1, 5), (0, 4)], [(0, 3)], []]  # each move's seat and action
        assert [storage.log(m) for m in ids] == logs
        with storage.engine.connect() as connection:
            written = connection.exec_driver_sql("SELECT created FROM actions ORDER BY id").scalars().all()
        assert len({type(at) for at in written}) == 1
        if backend == "sqlite":
            assert all(str(at).endswith("+00:00") for at in written)  # as the rows written one by one
    finally:
        storage.dispose()


def test_the_lock_file_sits_beside_the_sqlite_file_and_memory_or_postgresql_need_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert sqlite_file("sqlite:///rel.sqlite3") == tmp_path / "rel.sqlite3"
    assert FileOwner("sqlite:///rel.sqlite3").path == tmp_path / "rel.sqlite3.lock"
    assert sqlite_file(f"sqlite+pysqlite:///{tmp_path}/b.db") == tmp_path / "b.db"
    assert sqlite_file(f"sqlite:///file:{tmp_path}/c.db?uri=true") == tmp_path / "c.db"
    for url in (
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:///file:mem?mode=memory&uri=true",
        "postgresql+psycopg://u@127.0.0.1/x",
    ):
        assert sqlite_file(url) is None, url
        first, second = FileOwner(url), FileOwner(url)
        first.acquire()
        second.acquire()  # nothing to share: no lock
        assert not first.held and not second.held


def test_one_owner_per_sqlite_file_until_it_releases(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db' / 'x.sqlite3'}"
    first, second, other = FileOwner(url), FileOwner(url), FileOwner(f"sqlite:///{tmp_path / 'y.sqlite3'}")
    first.acquire()
    first.acquire()  # again by its owner: still held, no error
    other.acquire()  # another file is another lock
    with pytest.raises(DatabaseInUseError, match="use PostgreSQL"):
        second.acquire()
    assert first.held and not second.held
    first.release()
    second.acquire()
    assert second.held
    second.release()
    other.release()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_second_server_on_the_same_database_starts_only_on_postgresql(tmp_path: Path, backend: str) -> None:
    url = support.fresh_database_url(backend, tmp_path)
    first = support.ThreadServer(url, bot_workers=1).start()
    try:
        with httpx.Client(base_url=first.base_url, timeout=support.TIMEOUT) as api:
            match = support.create_match(api, "masker", {"players": 2}, ["human", "human"], seed=3)
        second = support.ThreadServer(url, bot_workers=1)
        if backend == "sqlite":
            with pytest.raises(RuntimeError, match="did not start"):
                second.start()
            second.stop()
            assert second.exit_code not in (None, 0), "uvicorn reports the failed start"
        else:
            second.start()
            try:
                with httpx.Client(base_url=second.base_url, timeout=support.TIMEOUT) as api:
                    assert support.summary(api, match["id"])["id"] == match["id"]
            finally:
                second.stop()
        with httpx.Client(base_url=first.base_url, timeout=support.TIMEOUT) as api:
            assert support.summary(api, match["id"])["status"] == "open"  # the first serves on
    finally:
        first.stop()
    # once the first has stopped, a server starts on the same file (the lock went with it)
    third = support.ThreadServer(url, bot_workers=1).start()
    try:
        with httpx.Client(base_url=third.base_url, timeout=support.TIMEOUT) as api:
            assert support.summary(api, match["id"])["id"] == match["id"]
    finally:
        third.stop()


def test_masques_serve_refuses_a_sqlite_file_another_process_serves(tmp_path: Path) -> None:
    url = support.fresh_database_url("sqlite", tmp_path)
    first = support.ServerProcess(url, support.free_port(), tmp_path / "first.log").start()
    try:
        port = support.free_port()
        command = [sys.executable, "-m", "masques.cli.main", "serve", "--port", str(port), "--database", url]
        second = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        assert second.returncode != 0
        message = second.stderr
        assert "another masques server is using the SQLite database" in message, message
        assert "PostgreSQL" in message, message
        assert "Traceback" not in message, message
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://{support.HOST}:{port}/api/games", timeout=2)
        assert httpx.get(f"{first.base_url}/api/games", timeout=support.TIMEOUT).status_code == 200
    finally:
        first.stop()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_match_is_created_joined_and_started_while_the_shared_pool_is_busy(
    tmp_path: Path, backend: str
) -> None:
    """The lobby's writes (a match created, seats claimed, the start) go to the moves' thread: on
    SQLite writers on several threads would only wait on each other's file lock, asleep in SQLite's
    growing steps, while holding the shared pool's threads; on PostgreSQL each of their round trips
    would wait for the interpreter lock against the moves' thread."""
    import asyncio
    import threading

    from masques.server.matches import Registry

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    storage.migrate()
    release = threading.Event()

    async def play() -> bool:
        registry = Registry(storage, limits=support.RELAXED, bot_workers=1)
        blockers = [asyncio.ensure_future(asyncio.to_thread(release.wait, 30)) for _ in range(64)]
        try:

            async def lobby() -> str:
                match = await registry.create("masker", {"players": 2}, ["human", "human"])
                for seat in (0, 1):
                    await registry.join(match, f"p{seat}", seat)
                return match.status

            status = await asyncio.wait_for(lobby(), 20)
            return status == "running" and not release.is_set()
        finally:
            release.set()
            await asyncio.gather(*blockers)
            registry.close()

    try:
        assert support.run_async(play()), "the lobby's writes waited for the shared pool"
        assert len(storage.resumable_ids()) == 1
    finally:
        storage.dispose()


def test_a_seat_is_claimed_only_while_it_is_a_free_human_seat(tmp_path: Path) -> None:
    from sqlalchemy.exc import NoResultFound

    from masques.server.storage import NewMatch, NewSeat, hash_token

    storage = Storage(f"sqlite:///{tmp_path / 'seats.sqlite3'}")
    storage.migrate()
    seats = [NewSeat("human"), NewSeat("easy", "Easy bot")]
    storage.create_match(NewMatch("00000000000000aa", "masker", "1", {}, 5, seats))
    assert storage.claim_seat("00000000000000aa", 0, "Ann", "t-ann", "key-ann")
    assert not storage.claim_seat("00000000000000aa", 0, "Bob", "t-bob")  # taken: Ann keeps it
    assert not storage.claim_seat("00000000000000aa", 1, "Bob", "t-bob")  # a bot's
    with pytest.raises(NoResultFound):
        storage.claim_seat("00000000000000aa", 2, "Bob", "t-bob")  # no such seat
    rows = storage.seats("00000000000000aa")
    assert (rows[0].name, rows[0].token_hash, rows[0].join_key) == ("Ann", hash_token("t-ann"), "key-ann")
    assert (rows[1].kind, rows[1].name, rows[1].token_hash) == ("easy", "Easy bot", None)


@pytest.mark.parametrize("backend", support.BACKENDS)
@pytest.mark.parametrize("rated", [False, True])
def test_a_last_move_ends_its_match_in_the_same_transaction(
    tmp_path: Path, rated: bool, backend: str
) -> None:
    """The action, the status, how it ended, the clock's end and (rated) the ratings, at once; an
    unrated match has no ratings.  (On PostgreSQL an unrated match ends in one statement.)"""
    from datetime import UTC, datetime

    from masques.server.storage import NewMatch, NewSeat, Turn

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    storage.migrate()
    if rated:
        storage.create_player("p-ann", "account", "Ann", username_key="ann", password_hash="x")
    seats = [NewSeat("human", "Ann", player_id="p-ann" if rated else None), NewSeat("easy", "Easy bot")]
    spec = NewMatch("00000000000000ab", "masker", "1", {}, 5, seats, status="running", rated=rated)
    storage.create_match(spec)
    end = {"reason": "played", "seats": [1], "winners": [0]}
    at = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
    ratings = storage.append_action(
        "00000000000000ab", 0, 0, 3, "finished", end=end, at=at, turn=Turn(None, None, None), ranks=[0.0, 1.0]
    )
    row = storage.match("00000000000000ab")
    assert row is not None
    assert (row.status, row.end, row.deadline, row.to_move) == ("finished", end, None, None)
    assert row.finished is not None and row.finished.replace(tzinfo=UTC) == at
    assert storage.log("00000000000000ab") == [(0, 3)]
    if rated:
        assert ratings is not None and len(ratings) == 2 and row.ratings == ratings
    else:
        assert ratings is None and row.ratings is None


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_last_move_at_a_version_taken_elsewhere_ends_nothing(tmp_path: Path, backend: str) -> None:
    """Another process wrote this version first: the last move fails as a whole, so the match is
    still running, with its clock and seat to move, and its log holds the other process's move."""
    from sqlalchemy.exc import IntegrityError

    from masques.server.storage import Append, NewMatch, NewSeat, Turn

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        seats = [NewSeat("human", "Ann"), NewSeat("human", "Bob")]
        storage.create_match(NewMatch("00000000000000ac", "masker", "1", {}, 5, seats, status="running"))
        storage.append_actions([Append("00000000000000ac", 0, 1, 7, Turn(0, {"kind": "x"}, 12.5))])
        end = {"reason": "played", "seats": [1], "winners": [0]}
        with pytest.raises(IntegrityError):
            storage.append_action("00000000000000ac", 0, 0, 3, "finished", end=end, turn=Turn(None))
        row = storage.match("00000000000000ac")
        assert row is not None
        assert (row.status, row.end, row.finished) == ("running", None, None)
        assert (row.clock, row.deadline, row.to_move) == ({"kind": "x"}, 12.5, 0)
        assert storage.log("00000000000000ac") == [(1, 7)]  # (seat, action)
    finally:
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
@pytest.mark.parametrize("rated", [False, True])
def test_a_last_move_committed_though_its_connection_failed_counts_as_made(
    tmp_path: Path, rated: bool, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection fails after the last move's commit: the move stands, so it counts as made
    and its ratings are read back.  Failing before the commit, or with the version holding another
    seat's action, the error stands: nothing was written by this move."""
    from sqlalchemy.exc import OperationalError

    from masques.server.storage import Append, NewMatch, NewSeat, Turn

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        if rated:
            storage.create_player("p-ann", "account", "Ann", username_key="ann", password_hash="x")
        seats = [NewSeat("human", "Ann", player_id="p-ann" if rated else None), NewSeat("easy", "Easy bot")]
        ids = ["00000000000000b1", "00000000000000b2", "00000000000000b3"]
        for match_id in ids:
            spec = NewMatch(match_id, "masker", "1", {}, 5, seats, status="running", rated=rated)
            storage.create_match(spec)
        storage.append_actions([Append(ids[2], 0, 1, 7, None)])  # another seat's action, at version 0
        write = storage._write_action
        plan = ["after the commit", "before the commit", "before the commit"]

        def failing_connection(*args: Any, **kwargs: Any) -> Any:
            step = plan.pop(0)
            if step == "after the commit":
                write(*args, **kwargs)
            raise OperationalError("COMMIT", {}, Exception("server closed the connection"))

        monkeypatch.setattr(storage, "_write_action", failing_connection)
        end = {"reason": "played", "seats": [1], "winners": [0]}
        last = {"end": end, "turn": Turn(None), "ranks": [0.0, 1.0]}
        ratings = storage.append_action(ids[0], 0, 0, 3, "finished", **last)
        with pytest.raises(OperationalError):
            storage.append_action(ids[1], 0, 0, 3, "finished", **last)
        with pytest.raises(OperationalError):  # version 0 holds the other seat's action
            storage.append_action(ids[2], 0, 0, 3, "finished", **last)
        assert plan == []
        made, failed, taken = (storage.match(match_id) for match_id in ids)
        assert made is not None and failed is not None and taken is not None
        assert (made.status, made.end, storage.log(ids[0])) == ("finished", end, [(0, 3)])
        assert (failed.status, storage.log(ids[1])) == ("running", [])
        assert (taken.status, storage.log(ids[2])) == ("running", [(1, 7)])
        if rated:
            assert ratings is not None and len(ratings) == 2 and made.ratings == ratings
        else:
            assert ratings is None
    finally:
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_batch_of_moves_sets_each_matchs_turn_and_a_taken_version_fails_the_whole_batch(
    tmp_path: Path, backend: str
) -> None:
    """The moves of several matches in one write (on PostgreSQL one statement): each action stored,
    each match's clock, deadline and seat to move set; a version already taken fails the batch and
    leaves everything as it was."""
    from sqlalchemy.exc import IntegrityError

    from masques.server.storage import Append, NewMatch, Turn

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        ids = [f"{n:016x}" for n in range(3)]
        for match_id in ids:
            storage.create_match(NewMatch(match_id, "masker", "1", {}, 5, [], status="running"))
        clock = {"kind": "fischer", "left": [30.5, 12.0]}
        storage.append_actions(
            [
                Append(ids[0], 0, 0, 7, Turn(1, clock, 1234.5)),
                Append(ids[1], 0, 0, 8, Turn(1, None, None)),
                Append(ids[2], 0, 0, 9),
            ]
        )
        first, second, third = (storage.match(i) for i in ids)
        assert first is not None and (first.clock, first.deadline, first.to_move) == (clock, 1234.5, 1)
        assert second is not None and (second.clock, second.deadline, second.to_move) == (None, None, 1)
        assert third is not None and third.to_move is None
        assert [storage.log(i) for i in ids] == [[(0, 7)], [(0, 8)], [(0, 9)]]
        with pytest.raises(IntegrityError):
            storage.append_actions([Append(ids[0], 1, 1, 3, Turn(0, None, None)), Append(ids[1], 0, 1, 4)])
        assert [storage.log(i) for i in ids] == [[(0, 7)], [(0, 8)], [(0, 9)]]
        unchanged = storage.match(ids[0])
        assert unchanged is not None and (unchanged.clock, unchanged.to_move) == (clock, 1)
    finally:
        storage.dispose()


def test_on_postgresql_the_moves_connection_is_replaced_once_the_server_dropped_it(tmp_path: Path) -> None:
    """The moves' own connection skips the check before each use (it would cost each batch a round
    trip): a connection the database dropped is replaced and the batch written, not lost."""
    from sqlalchemy import create_engine, text

    from masques.server.storage import Append, NewMatch

    url = support.fresh_database_url("postgresql", tmp_path)
    storage = Storage(url)
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        storage.migrate()
        storage.create_match(NewMatch("00000000000000c1", "masker", "1", {}, 5, [], status="running"))
        storage.append_actions([Append("00000000000000c1", 0, 0, 7)])
        with admin.connect() as connection:
            dropped = connection.execute(
                text(
                    "select pg_terminate_backend(pid) from pg_stat_activity "
                    "where datname = current_database() and pid <> pg_backend_pid()"
                )
            ).all()
        assert dropped
        storage.append_actions([Append("00000000000000c1", 1, 1, 8)])
        assert storage.log("00000000000000c1") == [(0, 7), (1, 8)]
    finally:
        admin.dispose()
        storage.dispose()


def test_on_postgresql_a_write_that_waits_on_a_held_lock_fails_instead_of_stalling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All of a process's writes go through one thread: a match row locked by someone else's long
    transaction makes a move fail after the lock timeout, and the next one is written once the
    lock is let go."""
    from concurrent.futures import ThreadPoolExecutor

    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import OperationalError

    from masques.server import storage as storage_module
    from masques.server.storage import Append, NewMatch

    monkeypatch.setattr(storage_module, "LOCK_TIMEOUT_SECONDS", 0.3)
    url = support.fresh_database_url("postgresql", tmp_path)
    storage = Storage(url)
    other = create_engine(url)
    try:
        storage.migrate()
        storage.create_match(NewMatch("00000000000000c2", "masker", "1", {}, 5, [], status="running"))
        with other.connect() as holder, ThreadPoolExecutor(1) as writer:
            holder.execute(text("select id from matches where id = '00000000000000c2' for update"))
            move = writer.submit(storage.append_actions, [Append("00000000000000c2", 0, 0, 7)])
            try:
                with pytest.raises(OperationalError, match="lock timeout"):
                    move.result(timeout=60)  # a write that still waits here would never have ended
            finally:
                holder.rollback()
        storage.append_actions([Append("00000000000000c2", 0, 0, 7)])
        assert storage.log("00000000000000c2") == [(0, 7)]
    finally:
        other.dispose()
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
@pytest.mark.parametrize("rated", [False, True])
def test_a_match_ended_elsewhere_takes_no_more_moves_and_is_rated_once(
    tmp_path: Path, rated: bool, backend: str
) -> None:
    """A resignation, a claim or a time-out writes no action, so the version cannot tell it from a
    move sent meanwhile by another process: a last move (rated or not) and a batch of moves both
    find the match ended and change nothing, and its ratings moved once."""
    from sqlalchemy import func, select
    from sqlalchemy.exc import IntegrityError

    from masques.server.storage import (
        Append,
        MatchEndedError,
        NewMatch,
        NewSeat,
        RatingEventRow,
        Turn,
    )

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        for key in ("ann", "bob"):
            storage.create_player(f"p-{key}", "account", key, username_key=key, password_hash="x")
        seats = [NewSeat("human", "ann", player_id="p-ann"), NewSeat("human", "bob", player_id="p-bob")]
        ended_id, running_id = "00000000000000e1", "00000000000000e2"
        for match_id in (ended_id, running_id):
            storage.create_match(
                NewMatch(match_id, "masker", "1", {}, 5, seats, status="running", rated=rated)
            )
        resigned = {"reason": "resigned", "seats": [0], "winners": [1]}
        assert storage.end_match(ended_id, resigned, ranks=[1.0, 0.0])[0]

        played = {"reason": "played", "seats": [1], "winners": [0]}
        with pytest.raises(MatchEndedError):
            storage.append_action(
                ended_id, 0, 0, 3, "finished", end=played, turn=Turn(None), ranks=[0.0, 1.0]
            )
        with pytest.raises((IntegrityError, MatchEndedError)):  # the whole batch, the running match's too
            storage.append_actions([Append(running_id, 0, 0, 4, Turn(1)), Append(ended_id, 0, 0, 3, Turn(1))])
        row = storage.match(ended_id)
        assert row is not None and (row.status, row.end) == ("finished", resigned)
        assert storage.log(ended_id) == [] and storage.log(running_id) == []
        with storage.session() as s:
            events = s.scalar(select(func.count()).where(RatingEventRow.match_id == ended_id))
        assert events == (2 if rated else 0)  # one per player, from the resignation alone

        storage.append_actions([Append(running_id, 0, 0, 4, Turn(1))])  # a running match goes on
        assert storage.log(running_id) == [(0, 4)]
    finally:
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_time_out_decided_before_a_move_committed_elsewhere_ends_nothing(
    tmp_path: Path, backend: str
) -> None:
    """A process that has not yet heard of another's move would flag a seat that moved in time:
    the end it writes holds the version it saw, and a match that has moved on is left running."""
    from masques.server.storage import Append, NewMatch, Turn

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        storage.create_match(NewMatch("00000000000000f1", "masker", "1", {}, 5, [], status="running"))
        storage.append_actions([Append("00000000000000f1", 0, 0, 3, Turn(1))])  # in time, elsewhere
        flagged = {"reason": "time", "seats": [0], "winners": [1]}
        assert storage.end_match("00000000000000f1", flagged, version=0) == (False, None)
        row = storage.match("00000000000000f1")
        assert row is not None and (row.status, row.end) == ("running", None)
        assert storage.end_match("00000000000000f1", flagged, version=1)[0]  # at the version it saw
    finally:
        storage.dispose()


def test_on_postgresql_a_log_in_waits_for_a_rematch_that_seats_its_guest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rematch made (not yet committed) as its guest logs in: the log-in's move of the guest's
    seats waits for it, and then hands the account the new match's seat too, not only the old one."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from masques.server import storage as storage_module
    from masques.server.storage import NewMatch, NewSeat

    storage = Storage(support.fresh_database_url("postgresql", tmp_path))
    made, logging_in = threading.Event(), threading.Event()
    add_match = storage_module._add_match

    def add_then_linger(s: Any, spec: Any) -> None:
        add_match(s, spec)
        s.flush()
        made.set()
        assert logging_in.wait(10)
        time.sleep(0.3)  # the log-in reads the guest's seats meanwhile

    try:
        storage.migrate()
        storage.create_player("p-guest", "guest", "Gus")
        storage.create_player("p-acct", "account", "gus")
        old = NewMatch(
            "00000000000000e1",
            "masker",
            "1",
            {},
            5,
            [NewSeat("human", "Gus", "h-gus", "p-guest"), NewSeat("human", "Bo", "h-bo")],
            status="finished",
        )
        storage.create_match(old)
        storage.answer_rematch(
            old.match_id, 1, True, [0, 1], NewMatch("00000000000000e2", "masker", "1", {}, 6, [])
        )
        rematch = NewMatch("00000000000000e2", "masker", "1", {}, 6, [NewSeat("human"), NewSeat("human")])
        monkeypatch.setattr(storage_module, "_add_match", add_then_linger)

        def log_in() -> list[str]:
            assert made.wait(10)
            logging_in.set()
            return storage.move_seats("p-guest", "p-acct", "gus")

        with ThreadPoolExecutor(2) as pool:
            answered = pool.submit(storage.answer_rematch, old.match_id, 0, True, [0, 1], rematch)
            moved = pool.submit(log_in)
            assert answered.result(20)["match"] == rematch.match_id
            assert moved.result(20) == [old.match_id, rematch.match_id]
        assert [s.player_id for s in storage.seats(old.match_id)] == ["p-acct", None]
        assert [s.player_id for s in storage.seats(rematch.match_id)] == [None, "p-acct"]  # turned by one
    finally:
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_guest_claims_a_seat_only_while_the_session_it_claims_in_lives(
    tmp_path: Path, backend: str
) -> None:
    """A log-in ends the guest's session, then moves the seats it finds: a claim written after the
    session ended is refused (SessionEndedError) and the seat stays free, so no seat is left to a
    guest nobody can be any more."""
    from masques.server.storage import NewMatch, NewSeat, SessionEndedError

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        storage.create_player("p-guest", "guest", "Gus")
        storage.create_auth_session("s-live", "p-guest", "csrf-1")
        storage.create_auth_session("s-ended", "p-guest", "csrf-2")
        storage.end_auth_sessions("p-guest", only="s-ended")
        seats = [NewSeat("human"), NewSeat("human"), NewSeat("human")]
        storage.create_match(NewMatch("00000000000000c1", "masker", "1", {}, 5, seats))
        with pytest.raises(SessionEndedError):
            storage.claim_seat("00000000000000c1", 0, "Gus", "t-1", player_id="p-guest", session="s-ended")
        assert [s.player_id for s in storage.seats("00000000000000c1")] == [None, None, None]
        with pytest.raises(SessionEndedError):  # another player's live session is no cover either
            storage.create_player("p-other", "guest", "Ola")
            storage.claim_seat("00000000000000c1", 0, "Ola", "t-2", player_id="p-other", session="s-live")
        assert storage.claim_seat("00000000000000c1", 1, "Gus", "t-3", player_id="p-guest", session="s-live")
        assert not storage.claim_seat(  # a seat taken is still just taken
            "00000000000000c1", 1, "Gus", "t-4", player_id="p-guest", session="s-live"
        )
        assert [s.player_id for s in storage.seats("00000000000000c1")] == [None, "p-guest", None]
    finally:
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_log_in_ends_the_guests_session_in_the_transaction_that_moves_its_seats(
    tmp_path: Path, backend: str
) -> None:
    """The guest's session ends with the move of its seats: a move that fails (here: an account
    that does not exist) leaves the session as it was, so the log-in can be tried again and still
    find the guest's seats; one that succeeds ends it, and no other session of the guest."""
    from sqlalchemy.exc import IntegrityError

    from masques.server.storage import NewMatch, NewSeat

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        storage.create_player("p-guest", "guest", "Gus")
        storage.create_player("p-acct", "account", "gus")
        for session in ("s-here", "s-elsewhere"):
            storage.create_auth_session(session, "p-guest", "csrf")
        seats = [NewSeat("human", "Gus", "h-gus", "p-guest"), NewSeat("human")]
        storage.create_match(NewMatch("00000000000000d1", "masker", "1", {}, 5, seats))
        with pytest.raises(IntegrityError):
            storage.move_seats("p-guest", "p-nobody", "nobody", end_session="s-here")
        assert storage.auth_session("s-here", 3600, 3600) is not None
        assert [s.player_id for s in storage.seats("00000000000000d1")] == ["p-guest", None]
        assert storage.move_seats("p-guest", "p-acct", "gus", end_session="s-here") == ["00000000000000d1"]
        assert storage.auth_session("s-here", 3600, 3600) is None
        assert storage.auth_session("s-elsewhere", 3600, 3600) is not None
        assert [s.player_id for s in storage.seats("00000000000000d1")] == ["p-acct", None]
    finally:
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_log_in_moves_no_seat_of_a_guest_that_signed_up_meanwhile(tmp_path: Path, backend: str) -> None:
    """A sign-up and a log-in sent at once from one guest's browser: the sign-up made the guest an
    account (its seats are that account's now); the log-in checked after it moves none of them to
    the other account, nor does one whose guest session has ended meanwhile."""
    from masques.server.storage import NewMatch, NewSeat

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        storage.create_player("p-guest", "guest", "Gus")
        storage.create_player("p-other", "account", "other")
        storage.create_auth_session("s-guest", "p-guest", "csrf")
        seats = [NewSeat("human", "Gus", "h-gus", "p-guest"), NewSeat("human")]
        storage.create_match(NewMatch("00000000000000d2", "masker", "1", {}, 5, seats))
        storage.make_account("p-guest", "Gus", "gus", "gus", "hash")  # the sign-up lands first
        assert storage.move_seats("p-guest", "p-other", "other", end_session="s-guest") == []
        assert [s.player_id for s in storage.seats("00000000000000d2")] == ["p-guest", None]

        storage.create_player("p-guest2", "guest", "Gil")
        storage.create_match(
            NewMatch("00000000000000d3", "masker", "1", {}, 5, [NewSeat("human", "Gil", "h", "p-guest2")])
        )
        assert storage.move_seats("p-guest2", "p-other", "other", end_session="s-gone") == []
        assert [s.player_id for s in storage.seats("00000000000000d3")] == ["p-guest2"]
    finally:
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_database_error_names_its_statement_but_not_its_values(tmp_path: Path, backend: str) -> None:
    """Errors are logged with their message: a failed write's values (a password's hash, a session's
    CSRF token, a seat token's hash) must not be in it, on either engine of the storage."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    secret = "csrf-5a4e7a9b8dd382613cedcedf4f699b65"
    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        engines = [e for e in (storage.engine, storage._moves_engine) if e is not None]
        assert len(engines) == (2 if backend == "postgresql" else 1)
        for engine in engines:
            with engine.connect() as connection, pytest.raises(DBAPIError) as failed:
                connection.execute(text("insert into no_such_table values (:token)"), {"token": secret})
            assert "no_such_table" in str(failed.value)
            assert secret not in str(failed.value) and secret not in repr(failed.value)
    finally:
        storage.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_seat_handed_to_a_bot_writes_its_turn_only_if_no_move_came_since(
    tmp_path: Path, backend: str
) -> None:
    """Two processes may hand one absent seat to a bot: the second, working from the match as it
    was before the other's bot moved, gives the seat to its bot but leaves the newer turn alone."""
    from masques.server.storage import NewMatch, NewSeat, Turn

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    try:
        storage.migrate()
        seats = [NewSeat("human", "Ann", "h-ann"), NewSeat("random")]
        storage.create_match(NewMatch("00000000000000e1", "masker", "1", {"players": 2}, 5, seats))
        assert storage.start_match("00000000000000e1", Turn(0, None, 1000.0))
        storage.set_seat_kind("00000000000000e1", 0, "random", "Ann", turn=Turn(0, None, None), version=0)
        row = storage.match("00000000000000e1")
        assert row is not None and row.to_move == 0 and row.deadline is None  # no move since: written
        storage.append_action("00000000000000e1", 0, 0, 1, None, turn=Turn(1, None, 2000.0))
        storage.set_seat_kind("00000000000000e1", 0, "easy", "Ann", turn=Turn(0, None, None), version=0)
        row = storage.match("00000000000000e1")
        assert row is not None and row.to_move == 1 and row.deadline == 2000.0  # the newer turn stands
        assert storage.seats("00000000000000e1")[0].kind == "easy"
    finally:
        storage.dispose()
