"""Helpers for the server tests: servers (in a thread or a subprocess), WebSocket clients, a game
driver and the leak checker.

``tests`` has no ``__init__.py`` files, so ``conftest.py`` loads this module from its path under the
name ``masques_server_support`` (a name no other test directory can shadow).

Every receive has a timeout (:data:`TIMEOUT`); every loop is bounded in steps and in time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from contextlib import ExitStack, asynccontextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import httpx
import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from masques.engine import ActionError, GameRecord, State, load_game
from masques.games.mascarade.game import cards_of
from masques.games.masker.game import COLOURS as MASKER_COLOURS
from masques.server.app import MAX_MESSAGE, create_app
from masques.server.limits import Limits
from masques.server.matches import Registry
from masques.server.protocol import http_protocol, ws_protocol
from masques.server.storage import Storage

TIMEOUT = 20.0
"""Seconds any single receive or wait may take (bots run in worker processes that spawn lazily)."""

GAME_TIMEOUT = 120.0
"""Seconds a whole game may take through the server."""

HOST = "127.0.0.1"

STATE_KEYS = {
    "type",
    "match",
    "version",
    "seat",
    "to_move",
    "your_turn",
    "observation",
    "legal",
    "log",
    "result",
}
SUMMARY_KEYS = {
    "id",
    "game",
    "title",
    "options",
    "status",
    "version",
    "rematch_of",
    "turn_seconds",
    "turn_deadline",
    "seeded",
    "seats",
    "spectators",
    "private",
    "created",
    "finished",
    "end",
    "rematch",
    "can_abort",
    "grace_seconds",
    "rated",
    "hints",
    "clock",
    "ratings",
}
SEAT_KEYS = {
    "seat",
    "kind",
    "name",
    "taken",
    "connected",
    "player",
    "away_since",
    "abandoned",
    "person",
    "team",
    "out",
}
ERROR_KEYS = {"type", "code", "message", "version"}
CHAT_KEYS = {"type", "channel", "history", "lines"}
LINE_KEYS = {"id", "seat", "name", "player", "text", "at", "version"}

RELAXED = Limits(rates={}, max_bot_matches=10_000, max_spectators=10_000, any_seed=True)
"""The limits of the servers most tests share: every test talks from 127.0.0.1, so the per-client
limits would count all of them as one client, and the tests deal known seeds to people's matches to
check every view against a replay (the limits and the seed rule have their own tests)."""


@asynccontextmanager
async def sqlite_registry(
    folder: Path,
    *,
    limits: Limits = RELAXED,
    clock: Callable[[], float] = time.time,
    writer: str | None = None,
) -> AsyncIterator[Registry]:
    """One server process's live matches (a registry) on a fresh SQLite file, closed after.
    ``writer="thread"`` for a test that replaces a storage method in this process."""
    storage = Storage(f"sqlite:///{folder / 'matches.db'}")
    storage.migrate()
    registry = Registry(storage, limits=limits, bot_workers=1, clock=clock, writer=writer)
    try:
        yield registry
    finally:
        registry.close()
        storage.engine.dispose()


SELF_ELIMINATION = [14, 20, 26, 25, 24, 36, 18, 19, 36, 13, 12, 6, 7, 1, 36, 2, 36, 3, 4, 5, 11, 15]
SELF_ELIMINATION += [16, 22, 21, 34, 35, 36, 29, 28]
"""Three-player Masker, seed 9: the 30th action is seat 2's, which takes its own last colour off the
board (MK-10) and leaves it to choose the crosses that fill its piles (MK-11): out, yet to move."""


RELAXED_ENV = {
    "MASQUES_RATE_LIMITS": "off",
    "MASQUES_MAX_BOT_MATCHES": "10000",
    "MASQUES_MAX_SPECTATORS": "10000",
    "MASQUES_ANY_SEED": "1",
}


# -- servers ------------------------------------------------------------------------------------


T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: a browser test run before on the same worker may
    leave this thread's event loop running."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class ThreadServer:
    """The app under uvicorn in a background thread of the test process (a real socket on loopback).

    Configured as ``masques serve`` configures it (the same WebSocket frame limit).
    """

    def __init__(
        self,
        database_url: str,
        *,
        bot_workers: int = 2,
        limits: Limits = RELAXED,
        bot_pool: Any = None,
        clock: Callable[[], float] = time.time,
        writer: str | None = None,
    ) -> None:
        self.database_url = database_url
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((HOST, 0))
        self.port = int(self.sock.getsockname()[1])
        self.app = create_app(
            database_url,
            bot_workers=bot_workers,
            limits=limits,
            bot_pool=bot_pool,
            clock=clock,
            writer=writer,
        )
        config = uvicorn.Config(
            self.app,
            http=http_protocol(),
            ws=ws_protocol(),
            ws_max_size=MAX_MESSAGE * 4,
            log_level="warning",
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.exit_code: int | str | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self.sock])
        except SystemExit as exc:  # uvicorn exits when the application fails to start
            self.exit_code = exc.code

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.port}"

    def start(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the in-process server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()


class ServerProcess:
    """``masques serve`` as a subprocess (its own process group, so its bot workers can be reaped)."""

    def __init__(
        self,
        database_url: str,
        port: int,
        log_path: Path,
        *,
        bot_workers: int = 1,
        redis_url: str | None = None,
        env: dict[str, str] | None = None,
        program: list[str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.program = program or [sys.executable, "-m", "masques.cli.main"]
        """How to run ``masques`` (default: this interpreter's, from the checkout)."""
        self.cwd = cwd
        self.database_url = database_url
        self.port = port
        self.log_path = log_path
        self.bot_workers = bot_workers
        self.redis_url = redis_url
        self.env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.port}"

    def log(self) -> str:
        try:
            return self.log_path.read_text("utf-8", errors="replace")[-4000:]
        except OSError:
            return ""

    def start(self, timeout: float = 60.0) -> ServerProcess:
        """Start and wait for the first answer.  A port that something else took since
        :func:`free_port` chose it (an outgoing connection's port, another test's server) is
        replaced by another, twice at most: read ``port`` and the URLs after this."""
        for attempt in range(3):
            start = self.log_path.stat().st_size if self.log_path.exists() else 0
            try:
                return self._start(timeout)
            except RuntimeError:
                taken = "address already in use" in self.log_path.read_text("utf-8", errors="replace")[start:]
                if not taken or attempt == 2:
                    raise
                self.port = free_port()
        raise AssertionError("unreachable")

    def _start(self, timeout: float) -> ServerProcess:
        command = [
            *self.program,
            "serve",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--database",
            self.database_url,
            "--bot-workers",
            str(self.bot_workers),
            *(["--redis", self.redis_url] if self.redis_url else []),
        ]
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env={**os.environ, **RELAXED_ENV, **self.env},
                cwd=self.cwd,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"masques serve exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.base_url}/api/games", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"masques serve did not answer within {timeout} s:\n{self.log()}")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL the server (a crash), then reap what is left of its process group (bot workers)."""
        if self.proc is None:
            return
        pid = self.proc.pid
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        self.proc.wait(timeout=15)
        with suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)  # the group was created for this server alone
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        with suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        self.kill()


# -- lobby --------------------------------------------------------------------------------------


def create_match(
    api: httpx.Client, game: str, options: dict[str, Any], seats: list[str], seed: int | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"game": game, "options": options, "seats": [{"kind": k} for k in seats]}
    if seed is not None:
        body["seed"] = seed
    response = api.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def join(api: httpx.Client, match_id: str, name: str, seat: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    response = api.post(f"/api/matches/{match_id}/join", json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def summary(api: httpx.Client, match_id: str) -> dict[str, Any]:
    response = api.get(f"/api/matches/{match_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


# -- WebSocket clients --------------------------------------------------------------------------


class Conn:
    """One WebSocket connection (a seat, or a spectator when ``token`` is None), recording all it gets.

    ``via`` says how the token is given: ``"query"`` in the URL (``?token=``; a spectator sends a
    tokenless hello), ``"hello"`` in the first message ``{"type": "hello", "token": ...}`` as the
    browser does, or ``"nothing"``: no token and no hello, as clients from before the hello.
    """

    def __init__(
        self,
        ws_url: str,
        match_id: str,
        token: str | None = None,
        seat: int | None = None,
        *,
        via: str = "query",
        headers: dict[str, str] | None = None,
    ) -> None:
        """``headers``: sent with the WebSocket handshake (a browser's ``Cookie`` and ``Origin``)."""
        assert via in ("query", "hello", "nothing"), via
        url = f"{ws_url}/ws/matches/{match_id}"
        if token is not None and via == "query":
            url += f"?token={token}"
        self.seat = seat
        self.token = token
        self._stack = ExitStack()
        self.ws: ClientConnection = self._stack.enter_context(
            connect(url, open_timeout=TIMEOUT, close_timeout=5, max_size=2**24, additional_headers=headers)
        )
        if via == "hello" or (via == "query" and token is None):
            hello = {"type": "hello"} if token is None else {"type": "hello", "token": token}
            self.ws.send(json.dumps(hello))
        self.messages: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.sent: list[tuple[Any, dict[str, Any]]] = []  # (what was sent, the error it got)

    # receiving
    def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        raw = self.ws.recv(timeout=timeout)
        assert isinstance(raw, str), f"the server sent a binary frame: {raw!r}"
        message = json.loads(raw)
        assert isinstance(message, dict), raw
        self.messages.append(message)
        if message.get("type") == "state":
            self.state = message
        return message

    def recv_type(self, kind: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind!r} message within {timeout} s (seat {self.seat})")
            message = self.recv(timeout=left)
            if message.get("type") == kind:
                return message

    def first_state(self) -> dict[str, Any]:
        """The state message sent on connect (the first message of a connection)."""
        message = self.recv()
        assert message["type"] == "state", message
        return message

    def wait_version(self, version: int, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while self.state is None or self.state["version"] < version:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"seat {self.seat} did not reach version {version} within {timeout} s")
            self.recv(timeout=left)
        return self.state

    def wait_turn(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Receive until this seat's latest view says it is its turn (or the game is over)."""
        deadline = time.monotonic() + timeout
        while self.state is None or not (self.state["your_turn"] or self.state["to_move"] is None):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"seat {self.seat}: no turn within {timeout} s")
            self.recv(timeout=left)
        return self.state

    def drain(self, quiet: float = 0.2) -> list[dict[str, Any]]:
        """Everything that arrives until the connection has been quiet for ``quiet`` seconds."""
        out = []
        for _ in range(10_000):
            try:
                out.append(self.recv(timeout=quiet))
            except TimeoutError:
                return out
        raise AssertionError("the server keeps sending")

    # sending
    def send(self, payload: Any) -> None:
        self.ws.send(payload if isinstance(payload, str | bytes) else json.dumps(payload))

    def act(self, action: Any, version: Any) -> None:
        self.send({"type": "action", "action": action, "version": version})

    def refused(self, payload: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Send something bad and return the error it gets (recording both)."""
        self.send(payload)
        error = self.recv_type("error", timeout)
        self.sent.append((payload, error))
        return error

    def close(self) -> None:
        self._stack.close()

    def closed_code(self, timeout: float = TIMEOUT) -> int | None:
        """Receive until the server closes; the close code it sent."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.recv(timeout=max(0.01, deadline - time.monotonic()))
        except ConnectionClosed as exc:
            return None if exc.rcvd is None else exc.rcvd.code
        raise TimeoutError("the server did not close the connection")


def seat_conns(ws_url: str, match_id: str, tokens: dict[int, str]) -> list[Conn]:
    conns = []
    for seat, token in sorted(tokens.items()):
        conn = Conn(ws_url, match_id, token, seat)
        conn.first_state()
        conns.append(conn)
    return conns


# -- playing ------------------------------------------------------------------------------------

TurnHook = Callable[[Conn, list[Conn]], None]


def play_to_end(
    conns: list[Conn],
    rng: random.Random,
    *,
    on_turn: TurnHook | None = None,
    stop_after: int | None = None,
    timeout: float = GAME_TIMEOUT,
) -> list[tuple[int, int]]:
    """Drive every human seat in ``conns`` (spectators just watch) until the game ends.

    A seat to move picks a legal action from its own ``state`` message and sends it with the
    message's version; it is acknowledged when a ``state`` with a higher version arrives.  Returns
    the acknowledged (version, action) pairs.  ``stop_after``: stop after that many human actions.
    """
    deadline = time.monotonic() + timeout
    acked: list[tuple[int, int]] = []
    for _ in range(5000):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the game did not end within {timeout} s")
        top = max(c.state["version"] for c in conns if c.state is not None)
        for conn in conns:
            conn.wait_version(top)
        if conns[0].state is not None and conns[0].state["to_move"] is None:
            return acked
        if stop_after is not None and len(acked) >= stop_after:
            return acked
        movers = [c for c in conns if c.seat is not None and c.state and c.state["your_turn"]]
        movers = [c for c in movers if c.state is not None and c.state["version"] == top]
        if movers:
            mover = movers[0]
            if on_turn is not None:
                on_turn(mover, conns)
            assert mover.state is not None
            action = rng.choice(mover.state["legal"])["id"]
            mover.act(action, top)
            for conn in conns:
                conn.wait_version(top + 1)
            acked.append((top, action))
        else:
            # Nobody here may move at ``top``: a bot moves, or the seat to move has not yet heard that
            # the match started (a join served by another process reaches it through Redis).
            to_move = conns[0].state["to_move"] if conns[0].state is not None else None
            seat = next((c for c in conns if c.seat is not None and c.seat == to_move), None)
            if seat is not None:
                seat.recv_type("state")
            else:
                conns[0].wait_version(top + 1)
    raise AssertionError("the game did not end in 5000 steps")


# -- the truth, and the leak check --------------------------------------------------------------


class Replay:
    """The full record replayed: the true state after every version, and each seat's observations."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = GameRecord.from_json(record)
        self.game = load_game(self.record.game, self.record.options)
        self.states: list[State] = []
        self.record.replay(lambda s: self.states.append(s.clone()))
        self._obs: dict[tuple[int, int | None], Any] = {}

    @property
    def final(self) -> State:
        return self.states[-1]

    def observation(self, version: int, seat: int | None) -> Any:
        key = (version, seat)
        if key not in self._obs:
            self._obs[key] = self.states[version].observation(seat)
        return self._obs[key]

    def history(self, version: int, seat: int | None) -> list[Any]:
        return [self.observation(v, seat) for v in range(version + 1)]


def hidden_field_problems(game: str, state: State, seat: int | None, obs: dict[str, Any]) -> list[str]:
    """The specific hidden fields of each game, checked against the true state ``state``."""
    problems = []
    n = state.game.num_players
    if game == "masker":
        if not state.is_terminal() and obs.get("tokens") is not None:
            problems.append("masker: tokens shown before the end")
        colour = None if seat is None else MASKER_COLOURS[state.team_colour(seat)]  # type: ignore[attr-defined]
        if obs.get("your_colour") != colour:
            problems.append(
                f"masker: your_colour {obs.get('your_colour')!r} is not the seat's own ({colour!r})"
            )
    elif game == "mascarade":
        hand = None if seat is None else cards_of(state.hands[seat])  # type: ignore[attr-defined]
        if obs.get("hand") != hand:
            problems.append("mascarade: 'hand' is not the seat's own hand")
        if not state.is_terminal() and obs.get("hands") is not None:
            problems.append("mascarade: hands shown before the end")
        if "pool" in obs:
            problems.append("mascarade: the pool is shown")
    elif game == "maske":
        auction = obs.get("auction")
        truth = state.auction  # type: ignore[attr-defined]
        if (
            auction is not None
            and truth is not None
            and seat != truth["drawer"]
            and auction["card"] is not None
        ):
            problems.append("maske: the drawn card shown to a seat that did not draw it")
        everyone = (1 << n) - 1
        mine = 0 if seat is None else 1 << seat
        for position, (shown_card, known) in enumerate(
            zip(obs["deck"], state.known, strict=True)  # type: ignore[attr-defined]
        ):
            if not (known & mine or known == everyone) and shown_card is not None:
                problems.append(f"maske: deck position {position} shown to a seat that does not know it")
    return problems


def all_messages(conns: Iterable[Conn]) -> list[tuple[Conn, dict[str, Any]]]:
    return [(c, m) for c in conns for m in c.messages]


def check_messages(
    replay: Replay,
    conns: Iterable[Conn],
    seat_kinds: list[str],
    tokens: Iterable[str],
    *,
    samples: int = 4,
) -> int:
    """Everything each connection received shows only what its seat may see.  Returns messages checked.

    * a ``state`` at version v carries exactly ``observation(seat)`` of the replayed state at v, the
      legal actions (with their labels) only when that seat is to move and is human;
    * the specific hidden fields of each game are checked against the truth;
    * ``presence`` carries the lobby summary only; ``error`` carries a code, a reason and the version;
      an illegal action's reason is the same in every state the seat cannot tell from the true one
      (determinizations built from its own observations);
    * ``chat`` carries lines of the channels the connection may read: the spectators' chat never
      reaches a player's connection before that connection was told the match is over;
    * no message contains any seat token.
    """
    secrets_ = [t for t in tokens if t]
    game = replay.record.game
    checked = 0
    over: dict[int, bool] = {}  # per connection: it has been told the match is over
    for conn, message in all_messages(conns):
        seat = conn.seat
        text = json.dumps(message)
        for token in secrets_:
            assert token not in text, f"a seat token was sent to seat {seat}"
        kind = message.get("type")
        assert kind in ("state", "presence", "error", "chat"), message
        if kind in ("state", "presence") and message["match"]["status"] not in ("open", "running"):
            over[id(conn)] = True
        if kind == "chat":
            _check_chat(message, seat, over.get(id(conn), False))
        elif kind == "state":
            _check_state(replay, game, seat, seat_kinds, message)
        elif kind == "presence":
            assert set(message) == {"type", "match"}, message
            _check_summary(message["match"], seat_kinds)
        else:
            assert set(message) == ERROR_KEYS, message
            assert isinstance(message["code"], str) and message["code"], message
            assert isinstance(message["message"], str) and message["message"], message
            assert isinstance(message["version"], int), message
            assert 0 <= message["version"] < len(replay.states), message
        checked += 1
    for conn in conns:
        for payload, error in conn.sent:
            if error["code"] == "illegal_action" and conn.seat is not None and isinstance(payload, dict):
                _check_illegal_reason(replay, conn.seat, payload, error, samples)
    return checked


def _check_chat(message: dict[str, Any], seat: int | None, over: bool) -> None:
    assert set(message) == CHAT_KEYS, message
    assert message["channel"] in ("players", "spectators"), message
    if message["channel"] == "spectators" and seat is not None:
        assert over, f"the spectators' chat reached seat {seat} while the match was played: {message}"
    assert isinstance(message["history"], bool) and message["lines"], message
    for line in message["lines"]:
        assert set(line) == LINE_KEYS, line
        assert (line["seat"] is None) == (message["channel"] == "spectators"), line


def _check_summary(summary: dict[str, Any], seat_kinds: list[str]) -> None:
    assert set(summary) == SUMMARY_KEYS, summary
    assert [s["kind"] for s in summary["seats"]] == seat_kinds
    for seat in summary["seats"]:
        assert set(seat) == SEAT_KEYS, seat


def _check_state(
    replay: Replay, game: str, seat: int | None, seat_kinds: list[str], message: dict[str, Any]
) -> None:
    assert set(message) == STATE_KEYS, sorted(message)
    version = message["version"]
    assert 0 <= version < len(replay.states), f"version {version} is not in the record"
    assert message["seat"] == seat
    truth = replay.states[version]
    assert message["observation"] == replay.observation(version, seat), (
        f"seat {seat} at version {version}: the observation is not the engine's observation({seat})"
    )
    problems = hidden_field_problems(game, truth, seat, message["observation"])
    assert not problems, problems
    if truth.is_terminal():
        assert message["result"] == {"scores": truth.scores(), "winners": truth.winners(), "reason": "played"}
    else:
        assert message["result"] is None, "a result before the end"
    _check_summary(message["match"], seat_kinds)
    assert message["match"]["version"] == version
    to_move = None if truth.is_terminal() else truth.current_player
    assert message["to_move"] == to_move
    running = message["match"]["status"] == "running"
    mine = running and seat is not None and to_move == seat and seat_kinds[seat] == "human"
    assert message["your_turn"] == mine, message
    if mine:
        expected = [
            {"id": a, "label": truth.action_to_str(a), "move": truth.action_to_json(a)}
            for a in truth.legal_actions()
        ]
        assert message["legal"] == expected
    else:
        assert message["legal"] == [], f"seat {seat} got a legal list when it is not its turn"
    check_log(replay, version, message)


def check_log(replay: Replay, version: int, message: dict[str, Any]) -> None:
    """The event log: the last moves in words with who made them, exactly what the record says, and
    only when the seat's observation shows every move anyway."""
    truth = replay.states[version]
    if message["observation"].get("moves") == truth.history:
        expected_log = [
            {"version": i + 1, "seat": replay.states[i].current_player, "move": truth.action_to_str(a)}
            for i, a in enumerate(truth.history)
        ][-20:]
        assert message["log"] == expected_log
    else:
        assert message["log"] == []


def reason_of(state: State, action: Any) -> str | None:
    try:
        state.clone().check_action(action)
    except ActionError as exc:
        return exc.reason
    return None


def _check_illegal_reason(
    replay: Replay, seat: int, payload: Any, error: dict[str, Any], samples: int
) -> None:
    """An illegal action's reason must not depend on anything hidden from the seat."""
    version = error["version"]
    action = payload["action"]
    truth = replay.states[version]
    assert error["message"] == reason_of(truth, action)
    history = replay.history(version, seat)
    for k in range(samples):
        sampled = replay.game.sample_state(seat, history, random.Random(k))
        assert sampled.observation(seat) == history[-1]  # a state the seat cannot tell from the truth
        assert reason_of(sampled, action) == error["message"], (
            f"the reason given to seat {seat} for action {action} depends on hidden information"
        )


def check_records(api: httpx.Client, match_id: str, replay: Replay, tokens: dict[int, str]) -> None:
    """The record endpoint: each seat's redacted record, the spectator's, and the full one."""
    viewers: list[tuple[int | None, dict[str, Any]]] = [(None, {})]
    viewers += [(seat, {"token": token}) for seat, token in sorted(tokens.items())]
    for seat, params in viewers:
        response = api.get(f"/api/matches/{match_id}/record", params=params)
        assert response.status_code == 200, response.text
        record = response.json()
        assert record["format"] == "masques-redacted-record"
        assert record["seat"] == seat
        assert record["game"] == replay.record.game
        assert record["options"] == replay.record.options
        assert "seed" not in record and "actions" not in record
        assert record["observations"] == replay.history(len(replay.states) - 1, seat)


BACKENDS = ("sqlite", "postgresql")


def fresh_database_url(backend: str, folder: Path) -> str:
    """A new, empty database on the backend: a SQLite file in ``folder``, or a new PostgreSQL
    database on the server that scripts/services.sh starts (its URL in MASQUES_TEST_POSTGRES_URL)."""
    if backend == "sqlite":
        return f"sqlite:///{folder / f'db-{secrets.token_hex(4)}.sqlite3'}"
    base = os.environ.get("MASQUES_TEST_POSTGRES_URL")
    if not base:
        raise RuntimeError(
            "MASQUES_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh (it starts PostgreSQL)"
        )
    from sqlalchemy import create_engine, text

    name = f"masques_test_{secrets.token_hex(6)}"
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return base.rsplit("/", 1)[0] + "/" + name


def committed_actions(url: str, match_id: str) -> list[int]:
    """The action log as stored, read straight from the database (any backend)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT action FROM actions WHERE match_id = :m ORDER BY number"), {"m": match_id}
        )
        actions = [int(r[0]) for r in rows]
    engine.dispose()
    return actions


def full_record(url: str, match_id: str) -> dict[str, Any]:
    """A match's full record (seed and every action), read from the database as ``masques export``
    reads it: the site shares it only for games that hide nothing after the end."""
    storage = Storage(url)
    try:
        record = storage.record(match_id)
    finally:
        storage.engine.dispose()
    assert record is not None, match_id
    return record.to_json()


def set_match_status(url: str, match_id: str, status: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE matches SET status = :s WHERE id = :m"), {"s": status, "m": match_id})
    engine.dispose()


def all_match_ids(url: str) -> list[str]:
    """Every match id stored, oldest first, read straight from the database (any backend)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as connection:
        ids = [str(r[0]) for r in connection.execute(text("SELECT id FROM matches ORDER BY created"))]
    engine.dispose()
    return ids


# -- players ------------------------------------------------------------------------------------

PASSWORD = "violet-Harbour-42"


def browser(server: Any) -> httpx.Client:
    """A client with its own cookie jar, as one browser."""
    return httpx.Client(base_url=server.base_url, timeout=TIMEOUT)


def signed(client: httpx.Client, response: httpx.Response, status: int = 200) -> dict[str, Any]:
    """Check a sign-in answer and keep its CSRF token for the next changes, as the web client does."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"player", "csrf"}
    client.headers["x-csrf-token"] = body["csrf"]
    return body


def signup(client: httpx.Client, username: str, password: str = PASSWORD) -> dict[str, Any]:
    return signed(client, client.post("/api/signup", json={"username": username, "password": password}), 201)


def login(client: httpx.Client, username: str, password: str = PASSWORD) -> dict[str, Any]:
    return signed(client, client.post("/api/login", json={"username": username, "password": password}))


def error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.json()["code"] == code, response.text


def unique(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(4)}"


def play_out(conn: Conn, api: httpx.Client, match_id: str, max_moves: int = 2000) -> None:
    """Play the connection's turns (random legal moves) until the match is over."""
    rng = random.Random(0)
    for _ in range(max_moves):
        conn.drain(0.05)  # everything sent so far: the latest view
        if summary(api, match_id)["status"] != "running":
            return
        state = conn.state
        if state is not None and state["your_turn"]:
            conn.act(rng.choice(state["legal"])["id"], state["version"])
    raise AssertionError(f"match {match_id} did not end within {max_moves} moves")


def finished_match(
    api: httpx.Client, ws_url: str, game: str, options: dict[str, Any], seats: list[str], *, seed: int = 77
) -> tuple[str, str]:
    """A match played to its end by random moves for the human seat 0 (the others bots): its id and
    seat 0's token."""
    match_id = create_match(api, game, options, seats, seed=seed)["id"]
    token = join(api, match_id, "Ann", 0)["token"]
    conns = seat_conns(ws_url, match_id, {0: token})
    play_to_end(conns, random.Random(5))
    for conn in conns:
        conn.close()
    assert summary(api, match_id)["status"] == "finished"
    return match_id, token
