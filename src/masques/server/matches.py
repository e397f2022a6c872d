"""Live matches: the authoritative state, action validation and commit, views, and bots.

Every change goes through :meth:`Registry.submit`: under the match's lock it checks the version
and the action against the engine, commits the action to storage, and only then applies it in
memory and sends each connected seat and spectator its own view.  A view is built from the seat's
observation alone (the engine's one place that decides what a seat may see).  Bots run in a process
pool so they never block the event loop, and they receive only their seat's observation.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import random
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sqlalchemy.exc import IntegrityError

from ..ai import make_bot
from ..engine import ActionError, EngineError, Game, State, game_class, load_game
from .fanout import Fanout
from .storage import Storage, hash_token
from .workers import stop_pool

HUMAN = "human"
LOG_LENGTH = 20
MATCH_ID = re.compile(r"[0-9a-f]{16}")
"""Match ids are 16 hex digits (secrets.token_hex(8)); anything else is unknown without a query."""


class ServerError(Exception):
    """A refused request: an HTTP-like status, a stable code and a reason for the client."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def payload(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "message": self.message}


Send = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(eq=False)
class Client:
    """One WebSocket connection: a seat (or None for a spectator) and how to send to it."""

    seat: int | None
    send: Send


@dataclass
class Seat:
    kind: str
    name: str | None
    token_hash: str | None

    @property
    def taken(self) -> bool:
        return self.kind != HUMAN or self.token_hash is not None


@dataclass
class LiveMatch:
    id: str
    game: Game
    seed: int
    status: str
    seats: list[Seat]
    state: State
    rematch_of: str | None = None
    turn_seconds: int = 0  # per-turn clock for humans; 0 = none
    turn_deadline: float | None = None  # wall-clock time (epoch s) the current human turn ends
    actors: list[int] = field(default_factory=list)  # the seat that made each action
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clients: set[Client] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None

    @property
    def version(self) -> int:
        return len(self.state.history)

    def seat_of_token(self, token: str | None) -> int | None:
        if not token:
            return None
        digest = hash_token(token)
        for number, seat in enumerate(self.seats):
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, digest):
                return number
        raise ServerError(403, "bad_token", "this token does not hold a seat in this match")

    def summary(self) -> dict[str, Any]:
        """What the lobby shows: no hidden information, no tokens."""
        connected = {c.seat for c in self.clients}
        return {
            "id": self.id,
            "game": self.game.name,
            "title": type(self.game).title,
            "options": self.game.options,
            "status": self.status,
            "version": self.version,
            "rematch_of": self.rematch_of,
            "turn_seconds": self.turn_seconds,
            "turn_deadline": self.turn_deadline,
            "seats": [
                {"seat": i, "kind": s.kind, "name": s.name, "taken": s.taken, "connected": i in connected}
                for i, s in enumerate(self.seats)
            ],
            "spectators": sum(1 for c in self.clients if c.seat is None),
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """A seat's (or a spectator's) whole picture of the match, from its observation only."""
        state = self.state
        your_turn = (
            self.status == "running"
            and seat is not None
            and not state.is_terminal()
            and state.current_player == seat
            and self.seats[seat].kind == HUMAN
        )
        return state_view(state, seat, self.summary(), self.actors, your_turn=your_turn)

    def replay(self, seat: int | None) -> Callable[[], list[dict[str, Any]]]:
        """The view a seat (or a spectator) had after every step, from the first position to now,
        as a job to run off the event loop (it works on a snapshot of the log).

        Each step's view is built exactly as a live view is, from that step's observation alone, so a
        replay shows nothing the seat could not see while playing; nobody can act in it."""
        game, seed = self.game, self.seed
        actions, actors = list(self.state.history), list(self.actors)
        summary = self.summary()

        def views() -> list[dict[str, Any]]:
            state = game.new_initial_state(seed)
            out = []
            for version in range(len(actions) + 1):
                if version:
                    state.apply(actions[version - 1])
                step = {
                    **summary,
                    "version": version,
                    "status": "finished" if state.is_terminal() else "running",
                    "turn_deadline": None,
                    "spectators": 0,
                    "seats": [{**info, "connected": False} for info in summary["seats"]],
                }
                out.append(state_view(state, seat, step, actors[:version], your_turn=False))
            return out

        return views


def state_view(
    state: State, seat: int | None, summary: dict[str, Any], actors: list[int], *, your_turn: bool
) -> dict[str, Any]:
    """The ``state`` message for one seat: the observation, the legal moves when it is that seat's
    turn (each with its text and the engine's structured form), and the recent moves in words."""
    legal: list[dict[str, Any]] = []
    if your_turn:
        legal = [
            {"id": a, "label": state.action_to_str(a), "move": state.action_to_json(a)}
            for a in state.legal_actions()
        ]
    observation = state.observation(seat)
    return {
        "type": "state",
        "match": summary,
        "version": len(state.history),
        "seat": seat,
        "to_move": None if state.is_terminal() else state.current_player,
        "your_turn": your_turn,
        "observation": observation,
        "legal": legal,
        "log": recent_log(state, actors, observation),
    }


def recent_log(
    state: State, actors: list[int], observation: Any, length: int = LOG_LENGTH
) -> list[dict[str, Any]]:
    """The last moves in words, with who made them — only when the seat's observation already
    shows every move (``moves``), so the log can never tell a seat more than it sees."""
    if not isinstance(observation, dict) or observation.get("moves") != state.history:
        return []
    start = max(0, len(state.history) - length)
    return [
        {"version": i + 1, "seat": actors[i], "move": state.action_to_str(a)}
        for i, a in enumerate(state.history[start:], start=start)
    ]


def bot_move(
    game_name: str,
    options: dict[str, Any],
    kind: str,
    seat: int,
    *,
    observation: Any,
    legal: list[int],
    seed: int,
) -> int:
    """Runs in a worker process: one bot decision from the seat's observation."""
    game = load_game(game_name, options)
    bot = make_bot(kind, game_name)
    return bot.act(game, seat, [observation], legal, random.Random(seed))


class Registry:
    """All live matches of this process, backed by storage."""

    def __init__(
        self, storage: Storage, *, bot_workers: int | None = None, redis_url: str | None = None
    ) -> None:
        self.storage = storage
        self.fanout = Fanout(redis_url, self._on_remote_change) if redis_url else None
        self.matches: dict[str, LiveMatch] = {}
        self.pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=bot_workers or max(1, multiprocessing.cpu_count() - 1),  # a core for the event loop
            mp_context=multiprocessing.get_context("spawn"),
        )
        self._load_lock = asyncio.Lock()

    async def start(self) -> None:
        if self.fanout is not None:
            await self.fanout.start()
        await self.resume_all()

    async def stop(self) -> None:
        if self.fanout is not None:
            await self.fanout.stop()
        self.close()

    def close(self) -> None:
        for match in self.matches.values():
            if match.bot_task is not None:
                match.bot_task.cancel()
        stop_pool(self.pool)

    # -- lobby --------------------------------------------------------------------------------
    async def create(
        self,
        game_name: str,
        options: dict[str, Any],
        seats: list[str],
        *,
        seed: int | None = None,
        rematch_of: str | None = None,
        turn_seconds: int = 0,
    ) -> LiveMatch:
        try:
            game = game_class(game_name)(options)
        except EngineError as exc:
            raise ServerError(400, "bad_options", str(exc)) from None
        if len(seats) != game.num_players:
            raise ServerError(
                400, "bad_seats", f"{game_name} with these options has {game.num_players} seats"
            )
        for kind in seats:
            if kind != HUMAN:
                try:
                    make_bot(kind, game_name)
                except ValueError as exc:
                    raise ServerError(400, "bad_seats", str(exc)) from None
        match_id = secrets.token_hex(8)
        seed = secrets.randbelow(2**31) if seed is None else seed
        rows = [(kind, None if kind == HUMAN else kind) for kind in seats]
        create = partial(
            self.storage.create_match,
            match_id,
            game.name,
            game.rules_version,
            game.options,
            seed=seed,
            seats=rows,
            rematch_of=rematch_of,
            turn_seconds=turn_seconds,
        )
        await asyncio.to_thread(create)
        match = LiveMatch(
            match_id,
            game,
            seed,
            "open",
            [Seat(kind, None if kind == HUMAN else kind, None) for kind in seats],
            game.new_initial_state(seed),
            rematch_of,
            turn_seconds,
        )
        self.matches[match_id] = match
        await self._maybe_start(match)
        return match

    async def get(self, match_id: str) -> LiveMatch:
        if not isinstance(match_id, str) or not MATCH_ID.fullmatch(match_id):
            raise ServerError(404, "no_match", "no such match")
        match = self.matches.get(match_id)
        if match is not None:
            return match
        async with self._load_lock:
            match = self.matches.get(match_id)
            if match is None:
                match = await asyncio.to_thread(self._load, match_id)
                self.matches[match_id] = match
        await self._maybe_start(match)  # a crash between the last join and the start
        if match.status == "running":
            self._schedule_bots(match)
        return match

    def _load(self, match_id: str) -> LiveMatch:
        """Rebuild a match from storage by replaying its action log."""
        row = self.storage.match(match_id)
        if row is None:
            raise ServerError(404, "no_match", "no such match")
        game = load_game(row.game, row.options)
        state = game.new_initial_state(row.seed)
        log = self.storage.log(match_id)
        for _, action in log:
            state.apply(action)
        seats = [Seat(s.kind, s.name, s.token_hash) for s in self.storage.seats(match_id)]
        match = LiveMatch(
            match_id, game, row.seed, row.status, seats, state, row.rematch_of, row.turn_seconds or 0
        )
        match.actors = [seat for seat, _ in log]
        return match

    async def resume_all(self) -> None:
        """After a restart: reload running matches so their bots carry on."""
        rows = await asyncio.to_thread(self.storage.matches, ("running",))
        for row in rows:
            await self.get(row.id)

    async def listing(self, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
        rows = await asyncio.to_thread(self.storage.matches, statuses)
        return [(await self.get(row.id)).summary() for row in rows]

    async def join(self, match: LiveMatch, name: str, seat: int | None) -> tuple[int, str]:
        async with match.lock:
            free = [i for i, s in enumerate(match.seats) if s.kind == HUMAN and s.token_hash is None]
            if seat is None:
                if not free:
                    raise ServerError(409, "no_free_seat", "every human seat is taken")
                seat = free[0]
            if not 0 <= seat < len(match.seats):
                raise ServerError(404, "no_seat", f"seats are 0..{len(match.seats) - 1}")
            if seat not in free:
                raise ServerError(409, "seat_taken", f"seat {seat} is not free")
            token = secrets.token_urlsafe(32)
            if not await asyncio.to_thread(self.storage.claim_seat, match.id, seat, name, token):
                raise ServerError(409, "seat_taken", f"seat {seat} is not free")
            match.seats[seat] = Seat(HUMAN, name, hash_token(token))
        await self._maybe_start(match)
        await self.broadcast(match)
        if self.fanout is not None:
            await self.fanout.publish(match.id)
        return seat, token

    async def leave(self, match: LiveMatch, token: str) -> None:
        async with match.lock:
            seat = match.seat_of_token(token)
            assert seat is not None
            if match.status != "open":
                raise ServerError(409, "started", "the match has started: your seat stays yours")
            await asyncio.to_thread(self.storage.release_seat, match.id, seat)
            match.seats[seat] = Seat(HUMAN, None, None)
        await self.broadcast(match)
        if self.fanout is not None:
            await self.fanout.publish(match.id)

    async def _maybe_start(self, match: LiveMatch) -> None:
        if match.status == "open" and all(s.taken for s in match.seats):
            match.status = "running"
            await asyncio.to_thread(self.storage.set_status, match.id, "running")
            self._schedule_bots(match)

    # -- play ---------------------------------------------------------------------------------
    async def submit(self, match: LiveMatch, seat: int | None, action: Any, version: Any) -> None:
        """Validate, commit, apply, broadcast.  Raises ServerError and changes nothing if refused."""
        if seat is None:
            raise ServerError(403, "spectator", "spectators cannot act")
        if isinstance(action, bool) or not isinstance(action, int):
            raise ServerError(400, "bad_action", "'action' must be an integer action id")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ServerError(400, "bad_version", "'version' must be an integer")
        async with match.lock:
            await self._commit(match, seat, action, version)
        await self.broadcast(match)
        self._schedule_bots(match)

    async def _commit(self, match: LiveMatch, seat: int, action: int, version: int) -> None:
        state = match.state
        if match.status != "running":
            raise ServerError(409, "not_running", f"the match is {match.status}")
        if version != match.version:
            raise ServerError(409, "stale_version", f"the match is at version {match.version}, not {version}")
        if state.current_player != seat:
            raise ServerError(409, "not_your_turn", "it is not your turn")
        trial = state.clone()
        try:
            trial.apply(action)
        except ActionError as exc:
            raise ServerError(422, "illegal_action", exc.reason) from None
        status = "finished" if trial.is_terminal() else None
        try:
            await asyncio.to_thread(self.storage.append_action, match.id, match.version, seat, action, status)
        except IntegrityError:
            # Another server process committed this version first (scale-out): catch up and refuse.
            await self._catch_up(match)
            raise ServerError(
                409, "stale_version", f"the match is at version {match.version}, not {version}"
            ) from None
        match.state = trial
        match.actors.append(seat)
        if status:
            match.status = status
        if self.fanout is not None:
            await self.fanout.publish(match.id)

    async def _catch_up(self, match: LiveMatch) -> bool:
        """Apply the actions other processes committed, and reload seats and status.  True if anything
        changed.  Called with the match's lock held."""
        log = await asyncio.to_thread(self.storage.log, match.id)
        rows = await asyncio.to_thread(self.storage.seats, match.id)
        row = await asyncio.to_thread(self.storage.match, match.id)
        changed = False
        for seat, action in log[match.version :]:
            match.state.apply(action)
            match.actors.append(seat)
            changed = True
        seats = [Seat(r.kind, r.name, r.token_hash) for r in rows]
        if seats != match.seats:
            match.seats = seats
            changed = True
        if row is not None and row.status != match.status:
            match.status = row.status
            changed = True
        return changed

    async def _on_remote_change(self, match_id: str) -> None:
        """Another process changed a match: if this process serves it, catch up and tell its clients."""
        match = self.matches.get(match_id)
        if match is None:
            return
        async with match.lock:
            changed = await self._catch_up(match)
        if changed:
            await self.broadcast(match)

    def _schedule_bots(self, match: LiveMatch) -> None:
        if match.bot_task is None or match.bot_task.done():
            match.bot_task = asyncio.get_running_loop().create_task(self._run_bots(match))

    def _start_clock(self, match: LiveMatch) -> None:
        """If the match has a per-turn clock and a human is to move, the greedy bot moves for them
        when their time runs out (the view shows the deadline)."""
        if not match.turn_seconds or match.status != "running" or match.state.is_terminal():
            match.turn_deadline = None
            return
        seat = match.state.current_player
        if match.seats[seat].kind != HUMAN:
            match.turn_deadline = None
            return
        match.turn_deadline = time.time() + match.turn_seconds
        asyncio.get_running_loop().create_task(self._clock(match, match.version, seat))

    async def _clock(self, match: LiveMatch, version: int, seat: int) -> None:
        await asyncio.sleep(match.turn_seconds)
        if match.version != version or match.status != "running":
            return  # the player moved in time
        state = match.state
        job = partial(
            bot_move,
            match.game.name,
            match.game.options,
            "greedy",
            seat,
            observation=state.observation(seat),
            legal=state.legal_actions(),
            seed=(match.seed * 7919 + version) % (2**31),
        )
        action = await asyncio.get_running_loop().run_in_executor(self.pool, job)
        async with match.lock:
            if match.version != version:
                return
            try:
                await self._commit(match, seat, action, version)
            except ServerError:
                return
        await self.broadcast(match)
        self._schedule_bots(match)

    async def _run_bots(self, match: LiveMatch) -> None:
        loop = asyncio.get_running_loop()
        while match.status == "running" and not match.state.is_terminal():
            state = match.state
            seat = state.current_player
            kind = match.seats[seat].kind
            if kind == HUMAN:
                if match.turn_seconds:
                    self._start_clock(match)
                    await self.broadcast(match)  # with the new deadline
                return
            version = match.version
            seed = (match.seed * 1_000_003 + version) % (2**31)
            job = partial(
                bot_move,
                match.game.name,
                match.game.options,
                kind,
                seat,
                observation=state.observation(seat),
                legal=state.legal_actions(),
                seed=seed,
            )
            action = await loop.run_in_executor(self.pool, job)
            async with match.lock:
                if match.version != version:
                    continue
                try:
                    await self._commit(match, seat, action, version)
                except ServerError:
                    continue  # another process moved first; look again
            await self.broadcast(match)

    # -- views --------------------------------------------------------------------------------
    async def broadcast(self, match: LiveMatch) -> None:
        views: dict[int | None, dict[str, Any]] = {}
        for client in list(match.clients):
            if client.seat not in views:
                views[client.seat] = match.view(client.seat)
            try:
                await client.send(views[client.seat])
            except Exception:  # a dead connection; its handler removes it
                match.clients.discard(client)

    async def connect(self, match: LiveMatch, client: Client) -> None:
        match.clients.add(client)
        await client.send(match.view(client.seat))
        await self.broadcast_presence(match)

    async def disconnect(self, match: LiveMatch, client: Client) -> None:
        match.clients.discard(client)
        await self.broadcast_presence(match)

    async def broadcast_presence(self, match: LiveMatch) -> None:
        message = {"type": "presence", "match": match.summary()}
        for client in list(match.clients):
            try:
                await client.send(message)
            except Exception:
                match.clients.discard(client)
