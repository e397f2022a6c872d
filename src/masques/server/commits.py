"""The writes of a server process: moves grouped into one commit, the lobby's writes between them.

Two writers answer the same calls.  :class:`GroupCommit` writes on a thread of the server's own
process; :class:`WriterProcess` in a process of its own, the default on a SQLite file.  A thread's
every statement gives up the interpreter lock and then waits to take it back behind a busy event
loop, so under load its commits took ten times what the disk did; a process of its own never waits
for that lock, and the event loop only sends it the writes and reads back their outcomes.

Either way, moves that arrive while a transaction is being written go together in the next one, so
one disk flush acknowledges many matches' moves, and each waits for its own commit.  Other writes (a
match's last move first, then the lobby's: a match created, seats claimed, the start) run one at a
time, taking turns with the batches of moves while both wait: a player's move queues behind at most
one of them, and under a stream of moves the lobby still moves on.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from functools import partial
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

from sqlalchemy.exc import IntegrityError, OperationalError

from .errors import ServerError, WriterLostError
from .storage import Append, MatchEndedError, Storage, Turn, sqlite_file

T = TypeVar("T")
M = TypeVar("M")
W = TypeVar("W")

log = logging.getLogger("masques.server")

WRITERS = ("process", "thread")
"""Where a server process writes: ``process`` (a process of its own) or ``thread``."""

RESTART_SECONDS = 1.0
"""The least time between two starts of the writing process, should it keep dying."""
CLOSE_SECONDS = 30.0
"""How long closing waits for the writing process to finish what was sent to it."""
STALLED_SECONDS = 60.0
"""How long the writing process (or thread) may leave the writes sent to it unanswered before it is
taken for stuck (a disk or database server that stopped answering, a stopped process) and replaced:
twice as long as SQLite waits for another process's lock before it fails a write by itself, six
times PostgreSQL's lock timeout."""
WATCH_SECONDS = 5.0
"""How often a writer looks for a stuck writing process or thread."""

_HEADER = struct.Struct("!i")  # the frames of multiprocessing.connection: a signed length, then pickle
_MOVE, _URGENT, _WRITE = "move", "urgent", "write"

Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]
_Job = tuple[Callable[[], Any], "asyncio.Future[Any]"]
_Reply = tuple[int, Any, BaseException | None]


def default_writer(url: str) -> str:
    """A SQLite file is written from a process of its own; other databases from a thread."""
    return "process" if sqlite_file(url) is not None else "thread"


def make_writer(storage: Storage, writer: str | None = None) -> GroupCommit | WriterProcess:
    """The writer named (one of :data:`WRITERS`), or the database's default."""
    writer = writer or default_writer(storage.url)
    if writer == "process":
        return WriterProcess(storage)
    if writer == "thread":
        return GroupCommit(storage)
    raise ValueError(f"the writer is one of {', '.join(WRITERS)}, not {writer!r}")


def commit_moves(storage: Storage, moves: list[Append]) -> list[Exception | None]:
    """Commit moves of running matches in one transaction, each move's outcome in order.  If one of
    them fails it (a version already taken, a match ended), each is tried alone, so only that one
    is refused.

    A transaction whose connection failed may have been committed all the same, its
    acknowledgement lost: a move then finds its version taken by itself (the same seat and
    action), and counts as committed.  Refused, its sender would take it for another process's
    move, and a server process's bots would stand aside as if another process played them."""
    try:
        storage.append_actions(moves)
    except (IntegrityError, MatchEndedError, OperationalError) as failed:
        unacknowledged = isinstance(failed, OperationalError)
        outcomes: list[Exception | None] = []
        for move in moves:
            try:
                storage.append_actions([move])
            except IntegrityError as exc:
                outcomes.append(None if unacknowledged and _already_made(storage, move) else exc)
            except Exception as exc:
                outcomes.append(exc)
            else:
                outcomes.append(None)
        return outcomes
    except Exception as exc:
        return [exc] * len(moves)
    return [None] * len(moves)


def _already_made(storage: Storage, move: Append) -> bool:
    """Whether ``move``'s version holds this very move (false if that cannot be read now)."""
    try:
        return storage.action_at(move.match_id, move.number) == (move.seat, move.action)
    except Exception:
        return False


class _Queues(Generic[M, W]):
    """What waits to be written: moves (taken all at once), urgent writes and the others."""

    def __init__(self) -> None:
        self.moves: list[M] = []
        self.urgent: collections.deque[W] = collections.deque()
        self.writes: collections.deque[W] = collections.deque()
        self._moved = False  # whether the last thing taken was a batch of moves

    def __bool__(self) -> bool:
        return bool(self.moves or self.urgent or self.writes)

    def take(self) -> tuple[list[M], W | None] | None:
        """The next batch of moves, or the next other write when moves went last; None if empty."""
        others = self.urgent or self.writes
        if self.moves and not (self._moved and others):
            batch, self.moves = self.moves, []
            self._moved = True
            return batch, None
        if others:
            self._moved = False
            return [], others.popleft()
        return None


_Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def _call(write: Callable[[], Any]) -> _Call:
    """A write as a call of one of the storage's methods by name, to be made in another process."""
    if not (isinstance(write, partial) and isinstance(getattr(write.func, "__self__", None), Storage)):
        raise TypeError("a write is a functools.partial of a Storage method")
    return write.func.__name__, write.args, write.keywords


class GroupCommit:
    """The process's writes, on one thread of its own.  In the shared pool of ``to_thread`` a
    move's commit would queue behind joins, reads and lobby queries whenever the pool was busy.

    A write that has not returned after ``STALLED_SECONDS`` (a database server that stopped
    answering: a connection's keepalives only find a dead peer, not a stuck one) fails, as a
    database that cannot be reached, and a new thread takes the writes queued behind it.  The stuck
    thread is left to finish its write (a thread cannot be killed); it then takes no more."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._ready = threading.Condition()
        self._queues: _Queues[
            tuple[Append, asyncio.Future[None]], tuple[Callable[[], Any], asyncio.Future[Any]]
        ]
        self._queues = _Queues()
        self._closed = False
        self._generation = 0  # the writing thread's; a thread replaced as stuck stops at its next turn
        self._busy_since: float | None = None  # when the write under way started
        self._in_flight: list[asyncio.Future[Any]] = []  # its waiters
        self._thread = self._start()
        self._stop_watching = threading.Event()
        self._watchdog = threading.Thread(target=self._watch, name="masques-commits-watch", daemon=True)
        self._watchdog.start()

    def close(self) -> None:
        """Stop once what is queued is written."""
        with self._ready:
            self._closed = True
            self._ready.notify()
        self._stop_watching.set()

    def _start(self) -> threading.Thread:
        thread = threading.Thread(
            target=self._work, args=(self._generation,), name="masques-commits", daemon=True
        )
        thread.start()
        return thread

    def _watch(self) -> None:
        while not self._stop_watching.wait(WATCH_SECONDS):
            if not self._stalled():  # read without the lock: the writes never wait for a look
                continue
            with self._ready:
                since = self._busy_since
                if since is None or not self._stalled():
                    continue
                held, self._in_flight, self._busy_since = self._in_flight, [], None
                self._generation += 1
                self._thread = self._start()
            log.error(
                "a database write has not returned for %.0f s: %d waiter(s) failed, writing on a new thread",
                time.monotonic() - since,
                len(held),
            )
            lost = WriterLostError("the database did not answer the write")
            _settle_soon([(done, None, lost) for done in held])

    async def run(self, write: Callable[[], T], *, urgent: bool = False) -> T:
        """Run a write (a ``partial`` of a storage method): ``urgent`` ones (a match's last move,
        with its result and ratings) before the others, and both after the moves waiting."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        with self._ready:
            self._refuse_if_closed()
            (self._queues.urgent if urgent else self._queues.writes).append((write, done))
            self._ready.notify()
        return await done

    async def append(self, move: Append) -> None:
        """Return once ``move`` is committed; IntegrityError if its version was taken."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        with self._ready:
            self._refuse_if_closed()
            self._queues.moves.append((move, done))
            self._ready.notify()
        await done

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise ServerError(503, "stopping", "the server is stopping; try again in a moment")

    def _stalled(self) -> bool:
        since = self._busy_since
        return since is not None and time.monotonic() - since > STALLED_SECONDS

    def _work(self, generation: int) -> None:
        while True:
            with self._ready:
                if generation != self._generation:
                    return  # replaced while stuck in its last write
                while not (self._queues or self._closed):
                    self._ready.wait()
                taken = self._queues.take()
                if taken is None:
                    return  # closed, and everything queued is written
                batch, job = taken
                self._in_flight = [done for _, done in batch] if job is None else [job[1]]
                self._busy_since = time.monotonic()
            if job is not None:
                _run_write(*job)
            else:
                self._write_moves(batch)
            with self._ready:
                if generation == self._generation:
                    self._in_flight, self._busy_since = [], None

    def _write_moves(self, batch: list[tuple[Append, asyncio.Future[None]]]) -> None:
        """Commit a batch, then settle its waiters in one call on their loop: one wake-up of the
        event loop for the whole batch, not one per move.  A waiter cancelled before the batch was
        taken (its server stopping) has its move left out."""
        batch = [(move, done) for move, done in batch if not done.cancelled()]
        if batch:
            errors = commit_moves(self.storage, [move for move, _ in batch])
            _settle_soon([(done, None, error) for (_, done), error in zip(batch, errors, strict=True)])


def _run_write(write: Callable[[], Any], done: asyncio.Future[Any]) -> None:
    if done.cancelled():
        return
    try:
        result = write()
    except BaseException as exc:
        _settle_soon([(done, None, exc)])
    else:
        _settle_soon([(done, result, None)])


def _settle_soon(outcomes: list[Outcome]) -> None:
    """From the writer thread: hand each waiter its result or error on its event loop."""
    by_loop: dict[asyncio.AbstractEventLoop, list[Outcome]] = {}
    for outcome in outcomes:
        by_loop.setdefault(outcome[0].get_loop(), []).append(outcome)
    for loop, theirs in by_loop.items():
        with contextlib.suppress(RuntimeError):  # a loop closed: nobody waits on it any more
            loop.call_soon_threadsafe(_settle, theirs)


def _settle(outcomes: list[Outcome]) -> None:
    for done, result, error in outcomes:
        if done.done():  # cancelled meanwhile
            continue
        if error is None:
            done.set_result(result)
        else:
            done.set_exception(error)


class WriterProcess:
    """The process's writes, in a process of its own (started from a fork server that has already
    imported the storage, so a start takes milliseconds).

    The event loop sends each of its turns' writes in one frame over a socket pair, never blocking
    on it, and reads the outcomes when they come, each frame settling a batch of moves at once.  A
    writing process that dies fails the writes it held (as a database that cannot be reached: the
    caller does not know whether they were committed) and another is started; so does one that
    leaves what it was sent unanswered for ``STALLED_SECONDS``, which is killed first: the moves
    waiting on it are refused rather than left hanging."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._ids = itertools.count()
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._unsent: list[tuple[int, str, Any]] = []
        self._out = bytearray()
        self._in = bytearray()
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop watching the socket
        self._flush_due = False
        self._closed = False
        self._started = 0.0
        self._restart: asyncio.TimerHandle | None = None
        self._outstanding = 0  # requests sent and not answered yet
        self._progress_at = 0.0  # when the last answer came, or the first of the outstanding was sent
        self._watchdog: asyncio.TimerHandle | None = None
        self._socket: socket.socket | None = None
        self._process: Any = None
        self._start()

    # -- the event loop's side --------------------------------------------------------------
    async def run(self, write: Callable[[], T], *, urgent: bool = False) -> T:
        """Run a write (a ``partial`` of a storage method, made by name in the writing process)."""
        result: T = await self._request(_URGENT if urgent else _WRITE, _call(write))
        return result

    async def append(self, move: Append) -> None:
        """Return once ``move`` is committed; IntegrityError if its version was taken."""
        await self._request(_MOVE, _plain(move))

    def close(self) -> None:
        """Send what is queued, let the writing process write it all and stop, and wait for it."""
        if self._closed:
            return
        self._closed = True
        if self._restart is not None:
            self._restart.cancel()
        self._unwatch()
        connection = self._socket
        if connection is None:
            self._fail_pending(ServerError(503, "stopping", "the server stopped before this was written"))
            return
        self._frame_unsent()
        self._out += _frame(None)
        try:
            connection.setblocking(True)
            connection.settimeout(CLOSE_SECONDS)
            connection.sendall(self._out)
            while chunk := connection.recv(1 << 16):
                self._in += chunk
                self._settle_frames()
        except OSError:
            log.warning("the writing process did not finish its writes in %s s", CLOSE_SECONDS)
        finally:
            connection.close()
            self._socket = None
            self._fail_pending(ServerError(503, "stopping", "the server stopped before this was written"))
            self._process.join(CLOSE_SECONDS)
            if self._process.is_alive():
                self._process.kill()

    def _request(self, kind: str, payload: Any) -> asyncio.Future[Any]:
        if self._closed:
            raise ServerError(503, "stopping", "the server is stopping; try again in a moment")
        loop = asyncio.get_running_loop()
        self._watch(loop)
        done = loop.create_future()
        ident = next(self._ids)
        self._pending[ident] = done
        self._unsent.append((ident, kind, payload))
        if not self._flush_due:
            self._flush_due = True
            loop.call_soon(self._flush)  # the rest of this turn's writes go in the same frame
        return done

    def _frame_unsent(self) -> None:
        sent = [(ident, kind, payload) for ident, kind, payload in self._unsent if not self._gone(ident)]
        self._unsent = []
        if sent:
            if not self._outstanding:
                self._progress_at = time.monotonic()
            self._outstanding += len(sent)
            self._out += _frame(sent)

    def _gone(self, ident: int) -> bool:
        """Whether a request's waiter stopped waiting before it was sent: then it is not."""
        done = self._pending.get(ident)
        if done is None or done.cancelled():
            self._pending.pop(ident, None)
            return True
        return False

    def _flush(self) -> None:
        self._flush_due = False
        if self._socket is None:  # between two writing processes: sent once the next one runs
            return
        self._frame_unsent()
        self._send()

    def _send(self) -> None:
        connection, loop = self._socket, self._loop
        if connection is None or loop is None:
            return
        try:
            while self._out:
                sent = connection.send(self._out)
                del self._out[:sent]
        except BlockingIOError:
            loop.add_writer(connection.fileno(), self._send)
            return
        except OSError:
            self._lost()
            return
        loop.remove_writer(connection.fileno())

    def _readable(self) -> None:
        connection = self._socket
        if connection is None:
            return
        try:
            while chunk := connection.recv(1 << 16):
                self._in += chunk
        except BlockingIOError:
            self._settle_frames()
            return
        except OSError:
            pass
        self._settle_frames()
        self._lost()  # the end of the stream: the writing process is gone

    def _settle_frames(self) -> None:
        taken = 0
        while len(self._in) - taken >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._in, taken)
            if len(self._in) - taken - _HEADER.size < size:
                break
            start = taken + _HEADER.size
            replies: list[_Reply] = pickle.loads(self._in[start : start + size])
            taken = start + size
            self._outstanding -= len(replies)
            self._progress_at = time.monotonic()
            for ident, result, error in replies:
                done = self._pending.pop(ident, None)
                if done is None or done.done():
                    continue
                with contextlib.suppress(RuntimeError):  # its loop closed: nobody waits any more
                    if error is None:
                        done.set_result(result)
                    else:
                        done.set_exception(error)
        del self._in[:taken]

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop or self._socket is None:
            return
        self._unwatch()
        self._loop = loop
        loop.add_reader(self._socket.fileno(), self._readable)
        self._watchdog = loop.call_later(WATCH_SECONDS, self._look_for_a_stall)
        if self._out:
            self._send()

    def _unwatch(self) -> None:
        loop, connection = self._loop, self._socket
        self._loop = None
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if loop is not None and connection is not None and not loop.is_closed():
            loop.remove_reader(connection.fileno())
            loop.remove_writer(connection.fileno())

    def _look_for_a_stall(self) -> None:
        """Kill a writing process that has left writes unanswered for ``STALLED_SECONDS``: its end
        of the socket closes, and :meth:`_lost` fails what it held and starts another."""
        loop = self._loop
        self._watchdog = None
        if loop is None or self._socket is None:
            return
        stalled = time.monotonic() - self._progress_at
        if self._outstanding > 0 and stalled > STALLED_SECONDS:
            log.error(
                "the database writing process left %d write(s) unanswered for %.0f s: replacing it",
                self._outstanding,
                stalled,
            )
            self._process.kill()
        self._watchdog = loop.call_later(WATCH_SECONDS, self._look_for_a_stall)

    def _lost(self) -> None:
        """The writing process stopped: fail what it held, and start another."""
        loop = self._loop
        self._unwatch()
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        self._process.join(0.5)
        if self._process.is_alive():  # its socket failed, not the process: it must not write on
            self._process.kill()
            self._process.join(1.0)
        code = self._process.exitcode
        log.warning("the database writing process stopped (exit code %s): starting another", code)
        self._fail_pending(WriterLostError("the database writing process stopped before answering"))
        if self._closed or loop is None or loop.is_closed():
            return
        wait = max(0.0, self._started + RESTART_SECONDS - time.monotonic())
        self._restart = loop.call_later(wait, self._start_again, loop)

    def _start_again(self, loop: asyncio.AbstractEventLoop) -> None:
        self._restart = None
        if self._closed:
            return
        self._start()
        self._watch(loop)
        self._flush()

    def _fail_pending(self, error: Exception) -> None:
        """Fail the requests already sent; those not yet sent wait for the next writing process."""
        unsent = {ident for ident, _, _ in self._unsent}
        sent = [self._pending.pop(ident) for ident in list(self._pending) if ident not in unsent]
        for done in sent:
            if not done.done():
                with contextlib.suppress(RuntimeError):
                    done.set_exception(error)
        self._outstanding = 0
        self._out.clear()
        self._in.clear()

    def _start(self) -> None:
        context = _fork_server()
        here, there = context.Pipe()
        self._process = context.Process(
            target=serve_writes,
            args=(self.storage.url, there, os.getcwd()),
            name="masques-writer",
            daemon=True,
        )
        self._process.start()
        there.close()
        self._started = time.monotonic()
        self._socket = socket.socket(fileno=os.dup(here.fileno()))
        here.close()
        self._socket.setblocking(False)


def _fork_server() -> Any:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


_PlainMove = tuple[str, int, int, int, tuple[int | None, dict[str, Any] | None, float | None] | None]


def _plain(move: Append) -> _PlainMove:
    """A move as builtins only: pickled in a twentieth of a dataclass's time, on the event loop."""
    turn = move.turn
    plain_turn = None if turn is None else (turn.to_move, turn.clock, turn.deadline)
    return move.match_id, move.number, move.seat, move.action, plain_turn


def _move(plain: _PlainMove) -> Append:
    match_id, number, seat, action, turn = plain
    return Append(match_id, number, seat, action, None if turn is None else Turn(*turn))


def _frame(value: Any) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


# -- the writing process's side ---------------------------------------------------------------
def serve_writes(url: str, connection: Connection, folder: str) -> None:
    """The writing process: write what the server sends, in its order of turns, and answer each
    request with its outcome, until the server sends ``None`` (then finish what was sent) or is
    gone (then stop: nobody waits for the rest)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C stops the server, which stops this
    os.chdir(folder)  # a relative SQLite path names the server's file
    storage = Storage(url)
    queues: _Queues[tuple[int, Append], tuple[int, _Call]] = _Queues()
    closing = False
    try:
        while True:
            while not closing and (not queues or connection.poll()):
                frame = connection.recv()
                if frame is None:
                    closing = True
                    break
                for ident, kind, payload in frame:
                    if kind == _MOVE:
                        queues.moves.append((ident, _move(payload)))
                    else:
                        (queues.urgent if kind == _URGENT else queues.writes).append((ident, payload))
            taken = queues.take()
            if taken is None:
                return
            batch, job = taken
            replies: list[_Reply]
            if job is None:
                errors = commit_moves(storage, [move for _, move in batch])
                replies = [(ident, None, error) for (ident, _), error in zip(batch, errors, strict=True)]
            else:
                ident, (name, args, kwargs) = job
                try:
                    replies = [(ident, getattr(storage, name)(*args, **kwargs), None)]
                except Exception as exc:
                    replies = [(ident, None, exc)]
            connection.send_bytes(_portable(replies))
    except (EOFError, OSError):
        return  # the server's process is gone
    finally:
        storage.dispose()


def _portable(replies: list[_Reply]) -> bytes:
    """The replies, pickled; one whose result or error cannot be is answered with an error that
    names the type only."""
    try:
        return pickle.dumps(replies, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        kept: list[_Reply] = []
        for ident, result, error in replies:
            try:
                pickle.dumps((result, error))
            except Exception:
                what = type(error if error is not None else result).__name__
                kept.append((ident, None, RuntimeError(f"the writing process could not answer ({what})")))
            else:
                kept.append((ident, result, error))
        return pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL)
