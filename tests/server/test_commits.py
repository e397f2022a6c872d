"""The database writers: moves committed in batches, the lobby's writes taking turns with them, on a
thread of the server's process or in a process of its own (the default on a SQLite file)."""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import masques_server_support as support
import pytest
from sqlalchemy.exc import IntegrityError, NoResultFound

from masques.server import commits
from masques.server.commits import (
    GroupCommit,
    WriterProcess,
    _move,
    _plain,
    _Queues,
    commit_moves,
    default_writer,
    make_writer,
)
from masques.server.errors import DATABASE_AWAY, ServerError, WriterLostError
from masques.server.storage import Append, ChatRow, NewMatch, NewSeat, Storage, Turn


# -- the order of writes, whichever writer -------------------------------------------------------
def test_moves_go_in_one_batch_and_other_writes_take_turns_with_the_batches() -> None:
    queues: _Queues[str, str] = _Queues()
    assert not queues and queues.take() is None
    queues.writes.extend(["created", "joined"])
    queues.moves.extend(["m1", "m2"])
    queues.urgent.append("last move")
    assert queues.take() == (["m1", "m2"], None)  # moves first, all at once
    queues.moves.append("m3")
    assert queues.take() == ([], "last move")  # then one other write, an urgent one first
    assert queues.take() == (["m3"], None)
    assert queues.take() == ([], "created")
    assert queues.take() == ([], "joined")  # no moves waiting: the writes go on
    assert queues.take() is None


def test_moves_that_arrive_together_are_committed_together_and_a_taken_version_fails_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import threading

    from sqlalchemy.exc import IntegrityError

    from masques.server.commits import GroupCommit
    from masques.server.storage import Append, NewMatch, Turn

    storage = Storage(f"sqlite:///{tmp_path / 'group.sqlite3'}")
    storage.migrate()
    ids = [f"{n:016x}" for n in range(6)]
    for match_id in ids:
        storage.create_match(NewMatch(match_id, "masker", "1", {}, 5, [], status="running"))
    storage.append_actions([Append(ids[5], 0, 0, 7)])  # version 0 of the last match is taken
    transactions: list[int] = []
    first = threading.Event()
    write = storage.append_actions

    def counted(moves: list[Append]) -> None:
        transactions.append(len(moves))
        if len(transactions) == 1:
            first.wait(5)  # the first transaction is slow: the others queue behind it
        write(moves)

    monkeypatch.setattr(storage, "append_actions", counted)

    async def play() -> list[BaseException | None]:
        commits = GroupCommit(storage)
        opening = asyncio.ensure_future(commits.append(Append(ids[0], 0, 0, 1, Turn(1))))
        await asyncio.sleep(0.05)
        rest = [asyncio.ensure_future(commits.append(Append(m, 0, 0, 2, Turn(1)))) for m in ids[1:]]
        await asyncio.sleep(0.05)
        first.set()
        return await asyncio.gather(opening, *rest, return_exceptions=True)

    outcomes = support.run_async(play())
    assert outcomes[:5] == [None] * 5
    assert isinstance(outcomes[5], IntegrityError)  # the taken version, and only it
    assert transactions[:2] == [1, 5]  # the five that came during the first write: one transaction
    assert [storage.log(m) for m in ids] == [[(0, 1)]] + [[(0, 2)]] * 4 + [[(0, 7)]]


def test_a_move_put_while_the_writer_takes_the_waiting_moves_is_still_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move is handed to its queue, then the queue's lock is taken: if the writer took the waiting
    moves in between, the move must land in the queue the writer reads next.  It once went into the
    list the writer had taken, was never written, and its sender (holding its match) waited for ever."""
    import asyncio
    import threading

    from masques.server.commits import GroupCommit
    from masques.server.storage import Append, NewMatch, Turn

    storage = Storage(f"sqlite:///{tmp_path / 'race.sqlite3'}")
    storage.migrate()
    ids = [f"{n:016x}" for n in range(3)]
    for match_id in ids:
        storage.create_match(NewMatch(match_id, "masker", "1", {}, 5, [], status="running"))
    write = storage.append_actions
    first_may_end, second_taken = threading.Event(), threading.Event()
    transactions: list[list[str]] = []

    def gated(moves: list[Append]) -> None:
        transactions.append([move.match_id for move in moves])
        if len(transactions) == 1:
            first_may_end.wait(5)
        elif len(transactions) == 2:
            second_taken.set()
        write(moves)

    monkeypatch.setattr(storage, "append_actions", gated)

    class LateLock:
        """The queues' condition, but the event loop's next entry first lets the writer take the
        waiting moves: the interleaving that lost a move, made certain."""

        def __init__(self, real: threading.Condition, writer: threading.Thread) -> None:
            self.real, self.writer, self.armed = real, writer, True

        def __enter__(self) -> bool:
            if self.armed and threading.current_thread() is not self.writer:
                self.armed = False
                first_may_end.set()
                assert second_taken.wait(5)
            return self.real.__enter__()

        def __exit__(self, *exc: object) -> None:
            self.real.__exit__(*exc)

        def wait(self, timeout: float | None = None) -> bool:
            return self.real.wait(timeout)

        def notify(self) -> None:
            self.real.notify()

    async def play() -> list[None]:
        commits = GroupCommit(storage)
        try:
            first = asyncio.ensure_future(commits.append(Append(ids[0], 0, 0, 1, Turn(1))))
            while not transactions:  # the writer is inside the first transaction
                await asyncio.sleep(0.01)
            second = asyncio.ensure_future(commits.append(Append(ids[1], 0, 0, 2, Turn(1))))
            await asyncio.sleep(0.05)
            commits._ready = LateLock(commits._ready, commits._thread)  # type: ignore[assignment]
            third = asyncio.ensure_future(commits.append(Append(ids[2], 0, 0, 3, Turn(1))))
            return await asyncio.wait_for(asyncio.gather(first, second, third), 10)
        finally:
            commits.close()

    assert support.run_async(play()) == [None] * 3
    assert transactions == [[ids[0]], [ids[1]], [ids[2]]]
    assert [storage.log(m) for m in ids] == [[(0, 1)], [(0, 2)], [(0, 3)]]


class WriterLog:
    """What the writer thread wrote, in order: batches of moves (by match) and named writes; a named
    write made with ``hold`` waits for ``gate``, and so does the first batch when ``hold_moves``."""

    def __init__(
        self, storage: Storage, monkeypatch: pytest.MonkeyPatch, *, hold_moves: bool = False
    ) -> None:
        import threading

        self.order: list[str] = []
        self.gate = threading.Event()
        write = storage.append_actions

        def logged(moves: list[Any]) -> None:
            if hold_moves and not any(entry.startswith("moves") for entry in self.order):
                self.gate.wait(5)
            self.order.append("moves " + " ".join(move.match_id[-1] for move in moves))
            write(moves)

        monkeypatch.setattr(storage, "append_actions", logged)

    def write(self, name: str, *, hold: bool = False) -> Callable[[], str]:
        def named() -> str:
            if hold:
                self.gate.wait(5)
            self.order.append(name)
            return name

        return named


def running_matches(tmp_path: Path, count: int, backend: str = "sqlite") -> tuple[Storage, list[str]]:
    from masques.server.storage import NewMatch

    storage = Storage(support.fresh_database_url(backend, tmp_path))
    storage.migrate()
    ids = [f"{n:016x}" for n in range(count)]
    for match_id in ids:
        storage.create_match(NewMatch(match_id, "masker", "1", {}, 5, [], status="running"))
    return storage, ids


def test_moves_committed_though_the_connection_failed_count_as_made_and_others_moves_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch committed whose acknowledgement was lost: tried again one by one, each move finds
    its version holding itself and counts as made (stored once).  After a connection that failed
    before its commit, a version holding another process's move is still refused."""
    from sqlalchemy.exc import OperationalError

    storage, ids = running_matches(tmp_path, 3)
    storage.append_actions([Append(ids[2], 0, 1, 9, Turn(0))])  # another process's move
    write = storage.append_actions
    # the first batch's connection fails after its commit, the third's before it; the rest work
    plan = ["after the commit", "works", "works", "before the commit", "works"]
    failures: list[str] = []

    def failing_connection(appends: list[Append]) -> None:
        step = plan.pop(0)
        if step != "before the commit":
            write(appends)
        if step != "works":
            failures.append(step)
            raise OperationalError("COMMIT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(storage, "append_actions", failing_connection)
    committed = commit_moves(storage, [Append(m, 0, 0, 4, Turn(1)) for m in ids[:2]])
    refused = commit_moves(storage, [Append(ids[2], 0, 0, 4, Turn(1))])
    assert failures == ["after the commit", "before the commit"] and plan == []
    assert committed == [None, None]
    assert len(refused) == 1 and isinstance(refused[0], IntegrityError)
    assert [storage.log(m) for m in ids] == [[(0, 4)], [(0, 4)], [(1, 9)]]


def test_moves_overtake_the_lobby_writes_queued_before_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On SQLite the lobby's writes share the moves' thread: a move waits for the write under way,
    not for every match created and seat claimed before it; a match's last move goes before the
    lobby's writes too."""
    import asyncio

    from masques.server.commits import GroupCommit
    from masques.server.storage import Append, Turn

    storage, ids = running_matches(tmp_path, 3)
    log = WriterLog(storage, monkeypatch)

    async def play() -> None:
        commits = GroupCommit(storage)
        try:
            under_way = asyncio.ensure_future(commits.run(log.write("created", hold=True)))
            await asyncio.sleep(0.05)
            queued = [asyncio.ensure_future(commits.run(log.write(f"joined {n}"))) for n in range(3)]
            last = asyncio.ensure_future(commits.run(log.write("last move"), urgent=True))
            await asyncio.sleep(0.05)
            moves = [asyncio.ensure_future(commits.append(Append(m, 0, 0, 1, Turn(1)))) for m in ids]
            await asyncio.sleep(0.05)
            log.gate.set()
            assert await asyncio.gather(under_way, *queued, last) == [
                "created",
                "joined 0",
                "joined 1",
                "joined 2",
                "last move",
            ]
            await asyncio.gather(*moves)
        finally:
            commits.close()

    support.run_async(play())
    assert log.order == ["created", "moves 0 1 2", "last move", "joined 0", "joined 1", "joined 2"]
    assert [storage.log(m) for m in ids] == [[(0, 1)]] * 3


def test_under_a_stream_of_moves_the_lobby_writes_take_turns_with_the_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moves first, but not moves only: while both wait, a lobby write goes between two batches of
    moves, so a busy site still creates and starts matches."""
    import asyncio

    from masques.server.commits import GroupCommit
    from masques.server.storage import Append, Turn

    storage, ids = running_matches(tmp_path, 3)
    log = WriterLog(storage, monkeypatch, hold_moves=True)

    async def play() -> None:
        commits = GroupCommit(storage)
        try:
            first = asyncio.ensure_future(commits.append(Append(ids[0], 0, 0, 1, Turn(1))))
            await asyncio.sleep(0.05)
            lobby = [asyncio.ensure_future(commits.run(log.write(f"created {n}"))) for n in range(2)]
            await asyncio.sleep(0.05)
            more = [asyncio.ensure_future(commits.append(Append(m, 0, 0, 2, Turn(1)))) for m in ids[1:]]
            await asyncio.sleep(0.05)
            log.gate.set()
            await asyncio.gather(first, *lobby, *more)
        finally:
            commits.close()

    support.run_async(play())
    assert log.order == ["moves 0", "created 0", "moves 1 2", "created 1"]


def test_a_stopped_writer_refuses_new_writes_and_finishes_those_queued(tmp_path: Path) -> None:
    import asyncio

    from masques.server.commits import GroupCommit
    from masques.server.errors import ServerError
    from masques.server.storage import Append, Turn

    storage, ids = running_matches(tmp_path, 1)

    async def play() -> str:
        commits = GroupCommit(storage)
        queued = asyncio.ensure_future(commits.append(Append(ids[0], 0, 0, 4, Turn(1))))
        await asyncio.sleep(0)  # the move is queued
        commits.close()
        await queued
        with pytest.raises(ServerError) as refused:
            await commits.append(Append(ids[0], 1, 1, 5, Turn(0)))
        return refused.value.code

    assert support.run_async(play()) == "stopping"
    assert storage.log(ids[0]) == [(0, 4)]


def test_a_move_is_committed_while_the_shared_thread_pool_is_busy(tmp_path: Path) -> None:
    """Moves are written on a thread of their own: a move's commit does not queue behind the joins,
    reads and lobby queries that fill the event loop's shared pool."""
    import asyncio
    import threading

    from masques.server.commits import GroupCommit
    from masques.server.storage import Append, NewMatch, Turn

    storage = Storage(f"sqlite:///{tmp_path / 'busy.sqlite3'}")
    storage.migrate()
    storage.create_match(NewMatch("00000000000000aa", "masker", "1", {}, 5, [], status="running"))
    release = threading.Event()

    async def play() -> bool:
        commits = GroupCommit(storage)
        blockers = [asyncio.ensure_future(asyncio.to_thread(release.wait, 30)) for _ in range(64)]
        try:
            await asyncio.wait_for(commits.append(Append("00000000000000aa", 0, 0, 3, Turn(1))), 20)
            return not release.is_set() and not any(b.done() for b in blockers)
        finally:
            release.set()
            await asyncio.gather(*blockers)
            commits.close()

    assert support.run_async(play()), "the commit waited for the shared pool"
    assert storage.log("00000000000000aa") == [(0, 3)]


# -- the writing process ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "move",
    [
        Append("00000000000000ab", 3, 1, 40),
        Append("00000000000000ab", 4, 0, 7, Turn(None)),
        Append("00000000000000ab", 5, 2, 9, Turn(1, {"left": [1.5, 2.0]}, 1_000_000.25)),
    ],
)
def test_a_move_reaches_the_writing_process_unchanged(move: Append) -> None:
    assert _move(pickle.loads(pickle.dumps(_plain(move)))) == move


def test_a_sqlite_file_is_written_from_a_process_of_its_own_and_other_databases_from_a_thread(
    tmp_path: Path,
) -> None:
    assert default_writer(f"sqlite:///{tmp_path / 'site.db'}") == "process"
    assert default_writer("sqlite://") == "thread"  # a database in memory is the process's alone
    assert default_writer("postgresql+psycopg://masques@db/masques") == "thread"
    storage = Storage("sqlite://")
    with pytest.raises(ValueError, match="the writer is one of process, thread, not 'fibre'"):
        make_writer(storage, "fibre")


@pytest.mark.parametrize("backend", support.BACKENDS)  # on PostgreSQL, by choice (MASQUES_DB_WRITER)
def test_the_writing_process_commits_moves_together_and_a_taken_version_fails_alone(
    tmp_path: Path, backend: str
) -> None:
    storage, ids = running_matches(tmp_path, 6, backend)
    storage.append_actions([Append(ids[5], 0, 0, 7)])  # version 0 of the last match is taken

    async def play() -> list[BaseException | None]:
        commits = WriterProcess(storage)
        try:
            moves = [commits.append(Append(m, 0, 0, 2, Turn(1))) for m in ids]
            return await asyncio.wait_for(asyncio.gather(*moves, return_exceptions=True), 20)
        finally:
            commits.close()

    outcomes = support.run_async(play())
    assert outcomes[:5] == [None] * 5
    assert isinstance(outcomes[5], IntegrityError)  # the taken version, and only it
    assert [storage.log(m) for m in ids] == [[(0, 2)]] * 5 + [[(0, 7)]]
    assert [storage.match(m).to_move for m in ids[:5]] == [1] * 5  # type: ignore[union-attr]


def test_the_writing_process_answers_each_write_with_its_result_or_its_error(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'lobby.sqlite3'}")
    storage.migrate()
    match_id = "00000000000000ab"
    spec = NewMatch(match_id, "masker", "1", {"players": 2}, 5, [NewSeat("human"), NewSeat("human")])

    async def play() -> tuple[Any, ...]:
        commits = WriterProcess(storage)
        try:
            created = await commits.run(partial(storage.create_match, spec))
            claim = partial(storage.claim_seat, match_id, 0, "ann", "token-a")
            first, again = await commits.run(claim), await commits.run(claim)
            with pytest.raises(NoResultFound):  # no such seat: the error comes back as itself
                await commits.run(partial(storage.claim_seat, match_id, 5, "bob", "token-b"))
            line = ChatRow(match_id=match_id, channel="players", seat=0, name="ann", text="hello", version=0)
            said = await commits.run(partial(storage.add_chat, line))
            with pytest.raises(TypeError, match=r"a functools\.partial of a Storage method"):
                await commits.run(lambda: storage.create_match(spec))
            return created, first, again, said
        finally:
            commits.close()

    created, first, again, said = support.run_async(play())
    assert (created, first, again) == (None, True, False)  # a seat taken once
    assert isinstance(said.id, int) and [r.id for r in storage.chat(match_id)] == [said.id]
    assert [r.name for r in storage.seats(match_id)] == ["ann", None]


def test_a_stopped_writing_process_finishes_the_writes_sent_and_refuses_new_ones(tmp_path: Path) -> None:
    storage, ids = running_matches(tmp_path, 3)

    async def play() -> str:
        commits = WriterProcess(storage)
        queued = [asyncio.ensure_future(commits.append(Append(m, 0, 0, 4, Turn(1)))) for m in ids]
        await asyncio.sleep(0)  # asked for, not yet sent: closing sends them and waits for them
        commits.close()
        assert not commits._process.is_alive()
        await asyncio.gather(*queued)
        with pytest.raises(ServerError) as refused:
            await commits.append(Append(ids[0], 1, 1, 5, Turn(0)))
        return refused.value.code

    assert support.run_async(play()) == "stopping"
    assert [storage.log(m) for m in ids] == [[(0, 4)]] * 3


def test_a_killed_writing_process_fails_what_it_held_and_another_one_writes_what_comes_next(
    tmp_path: Path,
) -> None:
    """kill -9 of the writing process while it holds a move: that move fails as a database that
    cannot be reached (its sender may try again), and the next ones are written by a new process."""
    storage, ids = running_matches(tmp_path, 2)

    async def play() -> tuple[BaseException | None, int, int]:
        commits = WriterProcess(storage)
        try:
            await commits.append(Append(ids[0], 0, 0, 1, Turn(1)))
            first = commits._process.pid
            os.kill(first, signal.SIGSTOP)  # it cannot answer: the next move is held there
            held = asyncio.ensure_future(commits.append(Append(ids[0], 1, 1, 2, Turn(0))))
            await asyncio.sleep(0.2)
            assert not held.done()
            os.kill(first, signal.SIGKILL)
            outcome = (await asyncio.wait_for(asyncio.gather(held, return_exceptions=True), 10))[0]
            await asyncio.wait_for(commits.append(Append(ids[1], 0, 0, 3, Turn(1))), 20)
            return outcome, first, commits._process.pid
        finally:
            commits.close()

    outcome, first, second = support.run_async(play())
    assert isinstance(outcome, WriterLostError) and isinstance(outcome, DATABASE_AWAY)
    assert second != first
    assert storage.log(ids[0]) == [(0, 1)]  # the held move never reached the database
    assert storage.log(ids[1]) == [(0, 3)]


def test_a_writing_process_that_stops_answering_is_replaced_and_what_it_held_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writing process alive but stuck (stopped here; a disk that stopped answering, in life):
    past ``STALLED_SECONDS`` without an answer it is killed, the move it held is refused as a
    database that cannot be reached, and a new process writes the next ones.  A pause shorter than
    that is waited out."""
    monkeypatch.setattr(commits, "STALLED_SECONDS", 1.0)
    monkeypatch.setattr(commits, "WATCH_SECONDS", 0.1)
    storage, ids = running_matches(tmp_path, 2)

    async def play() -> tuple[int, int, BaseException | None, int]:
        writer = WriterProcess(storage)
        try:
            await writer.append(Append(ids[0], 0, 0, 1, Turn(1)))
            first = writer._process.pid
            os.kill(first, signal.SIGSTOP)
            short = asyncio.ensure_future(writer.append(Append(ids[0], 1, 1, 2, Turn(0))))
            await asyncio.sleep(0.5)
            os.kill(first, signal.SIGCONT)  # back before the bound: the move goes through
            await asyncio.wait_for(short, 10)
            kept = writer._process.pid

            os.kill(first, signal.SIGSTOP)  # for good this time
            held = writer.append(Append(ids[0], 2, 0, 3, Turn(1)))
            outcome = (await asyncio.wait_for(asyncio.gather(held, return_exceptions=True), 20))[0]
            await asyncio.wait_for(writer.append(Append(ids[1], 0, 0, 4, Turn(1))), 20)
            return first, kept, outcome, writer._process.pid
        finally:
            writer.close()

    first, kept, outcome, second = support.run_async(play())
    assert kept == first
    assert isinstance(outcome, WriterLostError) and isinstance(outcome, DATABASE_AWAY)
    assert second != first
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # the stuck process is gone, not left beside its successor
    assert storage.log(ids[0]) == [(0, 1), (1, 2)]  # the held move never reached the database
    assert storage.log(ids[1]) == [(0, 4)]


def test_a_writing_thread_stuck_in_a_write_is_replaced_and_what_it_held_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread writer's database stops answering mid-write (a stopped server, in life; a write
    that blocks, here): past ``STALLED_SECONDS`` its moves are refused as a database that cannot
    be reached, and a new thread writes the moves queued behind it.  The stuck thread, once its
    write returns, takes nothing more.  A slow write shorter than that is waited out."""
    import threading

    monkeypatch.setattr(commits, "STALLED_SECONDS", 1.0)
    monkeypatch.setattr(commits, "WATCH_SECONDS", 0.1)
    storage, ids = running_matches(tmp_path, 3)
    write = storage.append_actions
    release = {ids[0]: threading.Event(), ids[1]: threading.Event()}
    writers: dict[str, threading.Thread] = {}

    def blocking(appends: list[Append]) -> None:
        first = appends[0].match_id
        writers.setdefault(first, threading.current_thread())
        if first in release:
            release[first].wait(30)
        write(appends)

    monkeypatch.setattr(storage, "append_actions", blocking)

    async def play() -> BaseException | None:
        writer = GroupCommit(storage)
        try:
            short = asyncio.ensure_future(writer.append(Append(ids[0], 0, 0, 1, Turn(1))))
            await asyncio.sleep(0.5)
            release[ids[0]].set()  # back before the bound: the move goes through
            await asyncio.wait_for(short, 10)

            held = asyncio.ensure_future(writer.append(Append(ids[1], 0, 0, 2, Turn(1))))
            await asyncio.sleep(0.1)
            behind = asyncio.ensure_future(writer.append(Append(ids[2], 0, 0, 3, Turn(1))))
            outcome = (await asyncio.wait_for(asyncio.gather(held, return_exceptions=True), 20))[0]
            await asyncio.wait_for(behind, 10)
            release[ids[1]].set()
            writers[ids[1]].join(10)  # the stuck thread ends once its write returns
            await asyncio.wait_for(writer.append(Append(ids[2], 1, 1, 4, Turn(0))), 10)
            return outcome
        finally:
            writer.close()

    outcome = support.run_async(play())
    assert isinstance(outcome, WriterLostError) and isinstance(outcome, DATABASE_AWAY)
    assert writers[ids[0]] is writers[ids[1]] is not writers[ids[2]]  # the move behind: a new thread
    assert not writers[ids[1]].is_alive()  # it took nothing more
    assert storage.log(ids[2]) == [(0, 3), (1, 4)]
    # the stuck write came back late: like a write whose acknowledgement was lost, it stands
    assert storage.log(ids[1]) == [(0, 2)]


WRITER_OF_A_SERVER = """
import asyncio, sys
from masques.server.commits import WriterProcess
from masques.server.storage import Storage
storage = Storage(sys.argv[1])
storage.migrate()
async def main():
    writer = WriterProcess(storage)
    print(writer._process.pid, flush=True)
    await asyncio.sleep(60)
asyncio.run(main())
"""


def test_the_writing_process_stops_when_its_server_process_dies(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", WRITER_OF_A_SERVER, f"sqlite:///{tmp_path / 'orphan.sqlite3'}"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        writer = int(server.stdout.readline())
        assert alive(writer)
    finally:
        server.kill()
        server.wait()
    deadline = time.monotonic() + 20
    while alive(writer) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(writer), "the writing process outlived its server"


def alive(pid: int) -> bool:
    """Whether a process runs (not a zombie waiting for its parent)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
