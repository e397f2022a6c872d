"""Live matches: the authoritative state, action validation and commit, views, and bots.

Every change goes through :meth:`Registry.submit`: under the match's lock it checks the version
and the action against the engine, commits the action to storage, and only then applies it in
memory and hands each connected seat and spectator its own view.  A view is built from the seat's
observation alone (the engine's one place that decides what a seat may see).  Bots run in worker
processes behind a fair queue (``bots.py``) and receive only their seat's observation.

Memory holds only matches in use: a match with no connection, no bot thinking and no clock running
leaves memory after :data:`IDLE_SECONDS` and is rebuilt from its log when asked for again; the lobby
reads the database.  Each connection has its own bounded outbox, so a slow client never delays the
others: one that falls :data:`OUTBOX` messages behind is disconnected (it reconnects and syncs).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import multiprocessing
import random
import re
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, TypeVar

import orjson
from sqlalchemy.exc import IntegrityError

from ..ai import make_bot
from ..ai.arena import ranks_from_returns  # a site rates a game as the arena does
from ..engine import ActionError, EngineError, Game, State, game_class
from ..engine.chance import CHANCE_VERSION, LEGACY_CHANCE, Chance, derive_seed, new_secret
from ..extras import require
from . import clocks
from .accounts import SESSION_IDLE_SECONDS
from .bot_queue import RedisBotQueue
from .bots import FairQueue, Job, bot_move, decide, process_pool
from .chat import CHANNELS, PLAYERS, SPECTATORS, clean, line_json, readable
from .commits import make_writer
from .errors import DATABASE_AWAY, ServerError
from .fanout import Fanout, Moved
from .limits import Limits, RateLimiter
from .metrics import Metrics
from .ratings import ranks_from_winners
from .security import same_secret
from .storage import (
    AlreadySeatedError,
    Append,
    ChatRow,
    MatchEndedError,
    MatchRow,
    NewMatch,
    NewSeat,
    SeatRow,
    SessionEndedError,
    Storage,
    Turn,
    aware,
    hash_token,
)
from .turns import TakingTurns

T = TypeVar("T")

__all__ = ["HUMAN", "Client", "LiveMatch", "Registry", "ServerError"]

log = logging.getLogger("masques.server")
WEAK_SEED_BELOW = 2**64
"""A chosen seed below this, dealing several people (an operator's event), is warned of in the log:
trying every seed that small against the cards one sees is within a player's reach."""

BOT_QUEUES = ("embedded", "redis")
"""Where bot decisions run: this process's own worker processes, or ``masques worker`` processes
anywhere, fed through Redis."""
HUMAN = "human"
LOG_LENGTH = 20
MATCH_ID = re.compile(r"[0-9a-f]{16}")
"""Match ids are 16 hex digits (secrets.token_hex(8)); anything else is unknown without a query."""
OUTBOX = 64
"""Messages one connection may have waiting before it counts as too slow and is dropped."""
OUTBOX_BYTES = 4 * 1024 * 1024
"""Bytes of messages one connection may have waiting (beyond the one it is being sent): a client
that asks for the whole chat again and again and reads nothing must not pin megabytes each time."""
IDLE_SECONDS = 30.0
"""A match nobody uses (no connection, no bot, no clock) leaves memory after this long."""
PRESENCE_DELAY = 0.25
"""Spectators coming and going are told to the players at most this often."""
SIGNED_OUT_CLOSE = 4401
STALLED_SECONDS = 60.0
"""A bot due to move this long with nothing played: its process is gone (see adopt_stalled)."""
SEAT_CHANGED_CLOSE = 4409  # the connection's seat changed: connect again (a lost connection's retry)
SIGNED_OUT_MESSAGE = (
    "this connection's session has ended, its account is disabled, or its password changed: log in"
)
"""The close code of a connection whose session ended (a log-out, a new password, a disabled account)."""
BAD_SESSION = "this session has ended or is not valid: log in again"
ALLOWED_CACHE = 10_000
ALLOWED_SECONDS = 2.0
"""How long a connection's session and its seat's account, once found good, stay so for its actions
(a log-out or a new password in this process ends its connections at once; the sweep finds the rest)."""
SWEEP_SECONDS = 10.0
"""How often idle matches leave memory and presence is told to the other server processes."""
RESUME_REPORT = 500
"""A restart's progress is logged every so many running matches taken up."""
PASSING_SECONDS = 5.0
"""A match another process plays, unused here this long, leaves memory at its next move."""
EXPIRY_ROUNDS = 6
"""Open matches are checked for expiry every this many sweeps."""
BOT_RETRY_SECONDS = (1.0, 5.0, 30.0)
BOT_REFUSED_SECONDS = 0.5
"""The pause before a bot's move is tried again when it was refused and nothing changed: a refusal
is raised before anything is awaited, and a loop that tried again at once would never let the
event loop run (nor be cancelled)."""
CLOCK_POLL = 1.0
"""A running clock looks at the time at least this often (the registry's clock may be set, not run)."""
"""Waits before a bot loop that failed (e.g. the database was away) starts again."""

Send = Callable[[str], Awaitable[None]]


@dataclass(frozen=True)
class Player:
    """Who a cookie-authenticated request comes from."""

    id: str
    name: str
    kind: str  # guest or account


def _duration(seconds: float) -> str:
    """A while, as a person reads it: seconds, minutes or hours."""
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def live_line(line: ChatRow) -> dict[str, Any]:
    """The message that hands connections a chat line as it is said."""
    return {"type": "chat", "channel": line.channel, "history": False, "lines": [line_json(line)]}


def json_text(value: Any) -> str:
    """A message's JSON text.  Every move sends one view per seat, so this is on the hot path of a
    move: orjson encodes views many times faster than the standard library; the standard library
    takes what orjson refuses (integers beyond 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


@dataclass(eq=False)
class Client:
    """One WebSocket connection: a seat (or None for a spectator), how to send to it, and its outbox.

    Messages are queued by :meth:`deliver` (never waits) and written in order by :meth:`pump`, the
    connection's own task; a full outbox drops the connection instead of holding up anyone else.
    A connection that can be written to at once (``write_now``, from the server's protocol) gets a
    message straight away while nothing of it waits in the outbox or is being written."""

    seat: int | None
    send_text: Send
    player: Player | None = None  # the signed-in player on this connection (a spectator's chat name)
    session: str | None = None  # the hash of the session it was opened with (None: none, or a token)
    seat_token: str | None = None  # the hash of the seat token it was opened with (None: none)
    held: int | None = None  # a spectator's: the seat its person holds, which a bot plays or played
    # A message in a one-item list is one of which only the newest matters (who is connected).
    outbox: asyncio.Queue[str | list[str] | None] = field(default_factory=lambda: asyncio.Queue(OUTBOX))
    latest: list[str] | None = None  # such a message while it waits last in the outbox
    dropped: bool = False
    close_code: int = 1013  # a dropped connection's close: too slow (it may reconnect at once)
    waiting_bytes: int = 0  # the length of the messages in the outbox
    # While its chat history is read (connect, sync), the lines said meanwhile wait here: sent
    # before the history, they would be replaced by it, and the history may have been read before
    # they were stored.
    histories_reading: int = 0
    lines_held: list[ChatRow] = field(default_factory=list)
    write_now: Callable[[str], bool] | None = None  # writes a message at once if the socket takes it
    writing: bool = False  # the pump holds a message it has not finished writing

    def deliver(self, message: str | dict[str, Any], *, newest_only: bool = False) -> bool:
        """Send a message (a dict or its JSON text): written at once when the socket takes it and
        nothing of this connection waits, else queued; False once the connection is dropped.

        ``newest_only``: a message that replaces the one before it of its kind (who is connected):
        if that one still waits last in the outbox, it is replaced there.  Connections coming and
        going then never fill the outbox of a client that reads while the server is busy."""
        if self.dropped:
            return False
        text = message if isinstance(message, str) else json_text(message)
        if self.write_now is not None and not self.writing and self.outbox.empty():
            try:
                if self.write_now(text):
                    return True
            except Exception:  # the socket is gone: the queued way finds out and ends the connection
                pass
        waiting = self.latest if newest_only else None
        growth = len(text) - (len(waiting[0]) if waiting is not None else 0)
        if self.waiting_bytes and self.waiting_bytes + growth > OUTBOX_BYTES:
            self.drop()
            return False
        if waiting is not None:
            waiting[0] = text
        else:
            item: str | list[str] = [text] if newest_only else text
            try:
                self.outbox.put_nowait(item)
            except asyncio.QueueFull:
                self.drop()
                return False
            self.latest = item if isinstance(item, list) else None
        self.waiting_bytes += growth
        return True

    def holds(self, match: LiveMatch) -> bool:
        """Whether what this connection was opened with (a seat token, else the signed-in player)
        still holds its seat: a seat left since, or taken by someone else, is not its own any more.
        A spectator's connection may watch while its player holds no seat here (once they do, it
        must not read the spectators' chat: it connects again, to the seat)."""
        if self.seat is None:
            mine = match.seat_of_player(self.player)
            return mine is None or match.bot_took_over(mine)
        if match.bot_took_over(self.seat):
            return False  # its person watches from now on, after the end too (a bot had its eyes)
        seat = match.seats[self.seat]
        if self.seat_token is not None:
            return seat.token_hash is not None and secrets.compare_digest(seat.token_hash, self.seat_token)
        return self.player is not None and seat.player_id == self.player.id

    def close_after_sending(self, code: int) -> None:
        """Send what is queued, then close the connection with ``code``."""
        if self.dropped:
            return
        self.close_code = code
        self.latest = None
        try:
            self.outbox.put_nowait(None)
        except asyncio.QueueFull:
            self.drop()
            return
        self.dropped = True

    def drop(self) -> None:
        """Stop sending: the pump ends after what it is writing."""
        self.dropped = True
        while True:
            try:
                self.outbox.get_nowait()
            except asyncio.QueueEmpty:
                break
        self.waiting_bytes = 0
        self.latest = None
        self.outbox.put_nowait(None)

    async def pump(self) -> None:
        """Write queued messages until the connection is dropped or its socket fails."""
        while True:
            item = await self.outbox.get()
            if item is None:
                return
            if item is self.latest:
                self.latest = None
            text = item if isinstance(item, str) else item[0]
            self.waiting_bytes -= len(text)
            self.writing = True
            try:
                await self.send_text(text)
            except Exception:  # the socket is gone; its handler ends the connection
                self.dropped = True
                return
            finally:
                self.writing = False


@dataclass
class Seat:
    kind: str
    name: str | None
    token_hash: str | None
    player_id: str | None = None  # the player (account or guest) who holds it
    player_kind: str | None = None  # guest or account
    away_since: float | None = field(default=None, compare=False)  # epoch s: nobody connected since

    @property
    def taken(self) -> bool:
        return self.kind != HUMAN or self.token_hash is not None or self.player_id is not None

    @property
    def held(self) -> bool:
        """A person plays it (not a bot, not free)."""
        return self.kind == HUMAN and self.person

    @property
    def person(self) -> bool:
        """A person holds it, even if a bot plays it for them now (they left; they may come back for
        the rematch)."""
        return self.token_hash is not None or self.player_id is not None


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
    turn_clock_for: tuple[int, int] | None = None  # the (version, seat) whose turn that deadline ends
    secret: str | None = None  # hex; the bots' randomness and join tokens derive from it
    chance: int = 1  # the chance generator's version of the game's seed
    seeded: bool = False  # the creator chose the seed (practice matches only)
    owner: str | None = None  # the client that created the match (the bots' queue is fair between them)
    private: bool = False  # not listed; joined with the invite code only
    created: datetime = field(default_factory=lambda: datetime.now(UTC))
    finished: datetime | None = None
    end: dict[str, Any] | None = None  # how it ended: reason, losing seats, winners
    rematch: dict[str, Any] | None = None  # the one rematch offer: answers, new match, declined
    grace_seconds: float = 120.0
    rated: bool = False
    clock: dict[str, Any] | None = None  # clocks.py's: the time control, and once started each seat's time
    deadline: float | None = None  # epoch s: when the person to move runs out (stored with the match)
    ratings: list[Any] | None = None  # each seat's rating before and after, once a rated match ended
    now: Callable[[], float] = time.time  # the registry's clock (tests drive it)
    actors: list[int] = field(default_factory=list)  # the seat that made each action
    moves_from_elsewhere: int = 0  # moves another process committed, applied here (scale-out)
    bots_elsewhere_since: float | None = None  # monotonic s: its bots left to another process since
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clients: set[Client] = field(default_factory=set)
    elsewhere: set[int] = field(default_factory=set)
    """Seats connected to other server processes, as their notes in Redis say (scale-out): present,
    as a seat connected here is, though this process holds no connection of theirs."""
    bot_task: asyncio.Task[None] | None = None
    clock_task: asyncio.Task[None] | None = None
    presence_task: asyncio.Task[None] | None = None
    away_task: asyncio.Task[None] | None = None
    last_used: float = field(default_factory=time.monotonic)
    # Known to have no chat line: set when the match is made here or its chat was read empty, unset by
    # any line said here or announced by another process (a connection then reads the chat again).
    chat_empty: bool = False
    chat_news: int = 0  # lines said or announced so far: a read that began before one is not "empty"
    _words: tuple[int, list[dict[str, Any]]] | None = field(default=None, repr=False)
    """The recent moves in words at one version, written once for every seat that sees them."""

    @property
    def queue_owner(self) -> str:
        return self.owner or f"match:{self.id}"

    def busy(self) -> bool:
        """Whether anything keeps the match in memory: connections, a bot thinking, a clock, a request."""
        # A correspondence clock waits days: the sweep finds its deadline in storage instead.
        clock = self.clock_task if not self.correspondence else None
        return bool(
            self.clients
            or any(t is not None and not t.done() for t in (self.bot_task, clock, self.away_task))
            or self.lock.locked()
        )

    @property
    def hints(self) -> bool:
        return hints_allowed(self.rated, [s.kind for s in self.seats])

    @property
    def correspondence(self) -> bool:
        return self.clock is not None and self.clock["kind"] == clocks.CORRESPONDENCE

    @property
    def playing(self) -> list[bool]:
        """Which seats a person plays now (the seats whose clocks run)."""
        return [s.kind == HUMAN for s in self.seats]

    @property
    def to_move(self) -> int | None:
        return None if self.state.is_terminal() else self.state.current_player

    def turn(self) -> Turn:
        """Whose move it is and the clock, as the match row keeps them (the deadline recomputed)."""
        if self.clock is None and self.turn_seconds:
            return Turn(self.to_move, None, self.turn_clock_deadline())
        started = self.clock is not None and "remaining" in self.clock
        running = self.clock if started and self.status == "running" else None
        return Turn(self.to_move, self.clock, clocks.deadline(running, self.to_move, self.playing))

    def turn_clock_deadline(self) -> float | None:
        """When the per-turn clock of the person to move runs out: the stored deadline of this turn,
        or (none stored) a whole turn from now; None when no person is to move."""
        to_move = self.to_move
        if self.status != "running" or to_move is None or self.seats[to_move].kind != HUMAN:
            return None
        if self.deadline is not None:
            return self.deadline
        return self.now() + self.turn_seconds

    def secret_stream(self, purpose: str) -> random.Random:
        """Randomness for ``purpose`` (a bot's decision, a clock's move), keyed by the match's secret
        and the purpose: it reveals neither the secret, nor the game's seed, nor another purpose's."""
        return Chance(self._secret(), purpose)

    @property
    def invite(self) -> str:
        """The code of the invite link (a private match is joined with it only)."""
        return f"{derive_seed(self._secret(), 'invite') % 2**80:020x}"

    def join_token(self, key: str) -> str:
        """The seat token a join with this Idempotency-Key gets, the same on every retry."""
        token = derive_seed(self._secret(), f"join-token/{key}").to_bytes(32, "big")
        return base64.urlsafe_b64encode(token).decode("ascii").rstrip("=")

    def _secret(self) -> int:
        if self.secret is None:  # pragma: no cover - every match row has a secret since migration 0003
            raise RuntimeError("match has no secret")
        return int(self.secret, 16)

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

    def played_by_bot(self, seat: int) -> bool:
        """A bot plays its person's seat while the match goes on (the person left, or ran out of
        time): the person watches as a spectator does, for the bot now sees what the seat sees."""
        return self.status == "running" and self.seats[seat].kind != HUMAN

    def bot_took_over(self, seat: int) -> bool:
        """A bot plays its person's seat, or played it to the end: what the seat saw since was the
        bot's to see, not the person's, so after the end too the person reads the match (its record,
        its replay) as a spectator does, and has no analysis of the seat's decisions."""
        return self.seats[seat].kind != HUMAN

    def seat_of_player(self, player: Player | None) -> int | None:
        """The seat a player holds here (None: a spectator)."""
        if player is None:
            return None
        return next((i for i, s in enumerate(self.seats) if s.player_id == player.id), None)

    def abandoned(self, seat: int, now: float | None = None) -> bool:
        """A person's seat nobody has been connected to for longer than the grace period."""
        info = self.seats[seat]
        now = self.now() if now is None else now
        return (
            self.status == "running"
            and not self.correspondence  # its players come back days later: only its clock decides
            and info.held
            and info.away_since is not None
            and now - info.away_since >= self.grace_seconds
        )

    def can_abort(self) -> bool:
        """A running match may be called off while some person still in the game has not moved yet
        (a seat put out before its first move, MK-10, has lost: it is no reason to call off)."""
        if self.status != "running":
            return False
        moved = set(self.actors)
        return any(s.held and i not in moved and not self.state.is_out(i) for i, s in enumerate(self.seats))

    def summary(self) -> dict[str, Any]:
        """What the lobby shows: no hidden information, no tokens."""
        connected = {c.seat for c in self.clients} | self.elsewhere
        now = self.now()
        started = self.clock is not None and "remaining" in self.clock
        # a per-turn clock runs for a person only: none while a bot thinks for the seat to move
        people_to_move = self.turn_seconds and self.turn_clock_deadline() is not None
        turn_deadline = self.turn_deadline if people_to_move else None
        clock = clocks.summary(
            self.clock if started else None,
            self.to_move if self.status == "running" else None,
            self.playing,
            now,
            turn_seconds=self.turn_seconds,
            turn_deadline=turn_deadline,
        )
        if self.clock is not None and not started:  # not started yet: the control alone
            clock = {**self.clock, "remaining": None, "running": None, "deadline": None, "now": now}
        return {
            "id": self.id,
            "game": self.game.name,
            "title": type(self.game).title,
            "options": self.game.options,
            "status": self.status,
            "version": self.version,
            "rematch_of": self.rematch_of,
            "turn_seconds": self.turn_seconds,
            "turn_deadline": turn_deadline,
            "seeded": self.seeded,
            "private": self.private,
            "created": self.created.isoformat(),
            "finished": None if self.finished is None else self.finished.isoformat(),
            "end": self.end,
            "rematch": self.rematch,
            "can_abort": self.can_abort(),
            "grace_seconds": self.grace_seconds,
            "rated": self.rated,
            "hints": self.hints,
            "clock": clock,
            "ratings": self.ratings,
            "seats": [
                {
                    "seat": i,
                    "kind": s.kind,
                    "name": s.name,
                    "taken": s.taken,
                    "connected": i in connected,
                    "player": _player_info(s),
                    "away_since": s.away_since if i not in connected and self.status == "running" else None,
                    "abandoned": i not in connected and self.abandoned(i, now),
                    "person": s.person,
                    "team": self.game.team_of(i),  # partners win and lose together (MK-3)
                    "out": self.status == "running"
                    and self.state.is_out(i),  # lost already, the others play on
                }
                for i, s in enumerate(self.seats)
            ],
            "spectators": sum(1 for c in self.clients if c.seat is None),
        }

    @property
    def dealt(self) -> bool:
        """Whether the seats see their own hidden information: once the match has started.  The deal
        is made when the match is created, and until the start a player may leave a seat and take
        another, so a seat's secrets shown before then could reach the player of another seat."""
        return self.status != "open"

    def view(
        self, seat: int | None, summary: dict[str, Any] | None = None, *, held: int | None = None
    ) -> dict[str, Any]:
        """A seat's (or a spectator's) whole picture of the match, from its observation only.
        ``summary``: this version's :meth:`summary`, when the caller builds every seat's view.
        ``held``: a spectator's own seat, which a bot plays or played (``held_seat``: it sees what
        a spectator does, and may still answer the rematch offer as that seat's person)."""
        state = self.state
        your_turn = (
            self.status == "running"
            and seat is not None
            and not state.is_terminal()
            and state.current_player == seat
            and self.seats[seat].kind == HUMAN
        )
        summary = self.summary() if summary is None else summary
        if seat is not None and self.private:
            summary = {**summary, "invite": self.invite}  # the players may invite; spectators may not
        if self._words is None or self._words[0] != len(state.history):
            self._words = (len(state.history), recent_log(state, self.actors, {"moves": state.history}))
        stopped = self.end is not None and self.end.get("reason") != "played"
        view = state_view(
            state,
            seat,
            summary,
            self.actors,
            your_turn=your_turn,
            words=self._words[1],
            dealt=self.dealt,
            stopped=stopped,
        )
        if stopped and self.end is not None:
            view["result"] = {"scores": None, "winners": self.end["winners"], "reason": self.end["reason"]}
        if held is not None and seat is None:  # only then: every other view keeps its fields
            view["held_seat"] = held
        return view

    def replay(self, seat: int | None) -> Callable[[], list[dict[str, Any]]]:
        """The view a seat (or a spectator) had after every step, from the first position to now,
        as a job to run off the event loop (it works on a snapshot of the log).

        Each step's view is built exactly as a live view is, from that step's observation alone, so a
        replay shows nothing the seat could not see while playing; nobody can act in it.  (The chat
        is read apart: each line says the version it was said at.)"""
        game, seed, chance, dealt = self.game, self.seed, self.chance, self.dealt
        actions, actors = list(self.state.history), list(self.actors)
        summary = self.summary()
        end = self.end
        clock = summary["clock"] and {**summary["clock"], "running": None, "deadline": None}

        def views() -> list[dict[str, Any]]:
            state = initial_state(game, seed, chance)
            out = []
            for version in range(len(actions) + 1):
                if version:
                    state.apply(actions[version - 1])
                last = version == len(actions)
                step = {
                    **summary,
                    "version": version,
                    "status": "finished" if state.is_terminal() or (last and end) else "running",
                    "end": end if last else None,
                    "rematch": None,
                    "can_abort": False,
                    "turn_deadline": None,
                    "clock": clock,
                    "ratings": summary["ratings"] if last else None,
                    "spectators": 0,
                    "seats": [
                        {**info, "connected": False, "away_since": None, "abandoned": False}
                        for info in summary["seats"]
                    ],
                }
                stopped = bool(last and end and end.get("reason") != "played")
                view = state_view(
                    state, seat, step, actors[:version], your_turn=False, dealt=dealt, stopped=stopped
                )
                if stopped and end is not None:
                    view["result"] = {"scores": None, "winners": end["winners"], "reason": end["reason"]}
                out.append(view)
            return out

        return views


def state_view(
    state: State,
    seat: int | None,
    summary: dict[str, Any],
    actors: list[int],
    *,
    your_turn: bool,
    words: list[dict[str, Any]] | None = None,
    dealt: bool = True,
    stopped: bool = False,
) -> dict[str, Any]:
    """The ``state`` message for one seat: the observation, the legal moves when it is that seat's
    turn (each with its text and the engine's structured form), the recent moves in words, and once
    the game is over its ``result`` (every seat's score and the winners, public at the end), so a
    client can show the end of any game without knowing its observation's fields.  Not ``dealt``
    (a match not started yet): the seat observes what a spectator does; ``stopped`` (a match that
    ended before its game did): what the game shows at its end is shown, and nobody is to move."""
    legal: list[dict[str, Any]] = []
    if your_turn:
        legal = [
            {"id": a, "label": state.action_to_str(a), "move": state.action_to_json(a)}
            for a in state.legal_actions()
        ]
    if not dealt:
        observation = state.observation(None)
    elif stopped:
        observation = state.stopped_observation(seat)
    else:
        observation = state.observation(seat)
    return {
        "type": "state",
        "match": summary,
        "version": len(state.history),
        "seat": seat,
        "to_move": None if state.is_terminal() or stopped else state.current_player,
        "your_turn": your_turn,
        "observation": observation,
        "legal": legal,
        "log": recent_log(state, actors, observation, words=words),
        "result": (
            {"scores": state.scores(), "winners": state.winners(), "reason": "played"}
            if state.is_terminal()
            else None
        ),
    }


def recent_log(
    state: State,
    actors: list[int],
    observation: Any,
    length: int = LOG_LENGTH,
    *,
    words: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The last moves in words, with who made them — only when the seat's observation already
    shows every move (``moves``), so the log can never tell a seat more than it sees.  ``words``:
    the same entries, already written for this version (every seat that sees them gets the same)."""
    if not isinstance(observation, dict) or observation.get("moves") != state.history:
        return []
    if words is not None:
        return words
    start = max(0, len(state.history) - length)
    return [
        {"version": i + 1, "seat": actors[i], "move": state.action_to_str(a)}
        for i, a in enumerate(state.history[start:], start=start)
    ]


def initial_state(game: Game, seed: int, chance: int) -> State:
    """The match's first position, dealt by the chance generator its seed was drawn for."""
    return game.new_initial_state(seed, chance=chance)


def log_failure(what: str, *args: object) -> None:
    """Log a background task's failure (called in its ``except``): a database that cannot be
    reached just now is one warning line naming the error's type, anything else a full trace."""
    exc = sys.exc_info()[1]
    if isinstance(exc, DATABASE_AWAY):
        log.warning(what + " (the database cannot be reached: %s)", *args, type(exc).__name__)
    else:
        log.exception(what, *args)


class Registry:
    """The live matches of this process, backed by storage."""

    def __init__(
        self,
        storage: Storage,
        *,
        bot_workers: int | None = None,
        redis_url: str | None = None,
        limits: Limits | None = None,
        bot_pool: Callable[[], Any] | None = None,
        bot_queue: str = "embedded",
        clock: Callable[[], float] = time.time,
        writer: str | None = None,
    ) -> None:
        if bot_queue not in BOT_QUEUES:
            raise ValueError(f"the bot queue is one of {', '.join(BOT_QUEUES)}, not {bot_queue!r}")
        if bot_queue == "redis" and not redis_url:
            raise ValueError("bots on the Redis queue need a Redis URL (--redis)")
        if redis_url:
            require("redis", "sharing matches and limits through Redis")
        self.storage = storage
        self.now = clock  # epoch seconds; the tests drive it
        self.limits = limits or Limits()
        self.rates = RateLimiter(self.limits, redis_url)
        self.fanout = (
            Fanout(
                redis_url,
                lambda match_id: self._heed(match_id, self._on_remote_change(match_id)),
                lambda match_id, line: self._heed(match_id, self._on_remote_chat(match_id, line)),
                lambda match_id, moved: self._heed(match_id, self._on_remote_move(match_id, moved)),
                on_resubscribed=self._on_resubscribed,
                on_presence=self._on_remote_presence,
            )
            if redis_url
            else None
        )
        self.matches: dict[str, LiveMatch] = {}
        # Matches being read from storage, and whether another process changed one meanwhile.
        self._loading: dict[str, bool] = {}
        # Matches whose note from another process could not be followed: the sweep reads them again.
        self._doubtful: set[str] = set()
        # Two slots at least, so that one client's bots never hold the only one.
        workers = bot_workers or max(2, multiprocessing.cpu_count() - 1)
        if bot_queue == "redis" and bot_pool is None:
            assert redis_url is not None
            workers = 1  # until the queue has counted the live workers
            bot_pool = partial(RedisBotQueue, redis_url, patience=self.limits.bot_timeout)
        self.commits = make_writer(storage, writer)
        self.metrics = Metrics()
        self.bots = FairQueue(
            workers,
            self.limits.bot_timeout,
            bot_pool or process_pool(workers),
            observe=self.metrics.bot_think.observe,
        )
        self.metrics.watch(self)
        self._load_lock = asyncio.Lock()
        self._create_lock = asyncio.Lock()
        self._allowed: dict[
            tuple[str | None, str | None, str | None], float
        ] = {}  # (session, seat's player, seat token): when checked
        self._reads = TakingTurns()  # heavy reads (replays, records) run one at a time
        self._sweeper: asyncio.Task[None] | None = None
        self._resumer: asyncio.Task[int] | None = None
        self._lag_watch: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if isinstance(self.bots.pool, RedisBotQueue):
            self.bots.pool.start()
        if self.fanout is not None:
            await self.fanout.start()
        loop = asyncio.get_running_loop()
        # In the background: the server answers meanwhile (a match asked for is loaded at once).
        self._resumer = loop.create_task(self.resume_all())
        self._sweeper = loop.create_task(self._sweep_forever())
        self._lag_watch = loop.create_task(self.metrics.watch_loop())

    async def stop(self) -> None:
        if self.fanout is not None:
            await self.fanout.stop()
        self.close()

    def close(self) -> None:
        for task in (self._resumer, self._sweeper, self._lag_watch):
            if task is not None:
                task.cancel()
        for match in self.matches.values():
            for task in (match.bot_task, match.clock_task, match.presence_task, match.away_task):
                if task is not None:
                    task.cancel()
            for client in list(match.clients):
                client.drop()
        self.bots.close()
        self.commits.close()

    # -- memory -------------------------------------------------------------------------------
    async def _sweep_forever(self) -> None:
        rounds = 0
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            self.evict_idle()
            self.take_back_bots()
            try:
                await self.drop_signed_out()
            except Exception:
                log_failure("checking the connections' sessions failed; trying again later")
            if self.fanout is not None:
                await self._read_doubtful()
                with contextlib.suppress(Exception):  # Redis away a moment: the next round says it
                    await self.fanout.resend()
                try:
                    await self.refresh_presence()
                except Exception:
                    log_failure("telling and reading who is connected failed; trying again later")
            try:
                await self.check_deadlines()
            except Exception:
                log_failure("checking the clocks failed; trying again later")
            if rounds % EXPIRY_ROUNDS == 0:
                try:
                    await self.expire_open()
                except Exception:
                    log_failure("expiring open matches failed; trying again later")
                try:  # one process too: a match it could not load when it was made
                    await self.adopt_stalled()
                except Exception:
                    log_failure("looking for matches left behind failed; trying again later")
            rounds += 1

    async def adopt_stalled(self) -> int:
        """Take up the running matches this process does not hold whose turn nobody has played for
        a long while: the process that held them is gone (stopped, or killed), or (one process)
        loading one failed when it was made (a rematch as the database was away a moment), and
        with nobody watching them no request would bring them back.  A bot's turn quiet for three bot
        timeouts (at least STALLED_SECONDS) is thought here; a person's turn quiet for a grace
        period (as long at least) with none of the match's seats connected to any process starts
        its absent seats' grace here.  Should another process hold one after all, each move is
        still committed once (its version is unique).  How many were taken up."""
        now = datetime.now(UTC)
        bot_quiet = max(STALLED_SECONDS, 3 * self.limits.bot_timeout)
        person_quiet = max(STALLED_SECONDS, self.limits.grace_seconds)
        bots = partial(self.storage.stalled_turns, now - timedelta(seconds=bot_quiet), bots=True)
        people = partial(self.storage.stalled_turns, now - timedelta(seconds=person_quiet), bots=False)
        taken = [m for m in await asyncio.to_thread(bots) if m not in self.matches]
        for match_id in await asyncio.to_thread(people):
            if match_id not in self.matches and not await self._anyone_connected(match_id):
                taken.append(match_id)
        for match_id in taken:
            log.warning("taking up match %s: nobody has played its turn for a long while", match_id)
            try:
                await self.get(match_id)
            except Exception:  # one match that cannot be loaded must not keep the others behind
                log_failure("could not take up match %s", match_id)
        return len(taken)

    async def _anyone_connected(self, match_id: str) -> bool:
        """Whether a seat of the match is connected to some process (then that process watches it)."""
        if self.fanout is None:
            return False
        return await self.fanout.anyone(match_id)

    def evict_idle(self, idle: float | None = None) -> int:
        """Let go of the matches nobody has used for ``idle`` seconds (default: IDLE_SECONDS); how
        many left memory."""
        idle = IDLE_SECONDS if idle is None else idle
        now = time.monotonic()
        gone = [m for m in self.matches.values() if not m.busy() and now - m.last_used >= idle]
        for match in gone:
            if match.clock_task is not None:
                match.clock_task.cancel()  # a correspondence clock's: the sweep watches its deadline
            del self.matches[match.id]
        return len(gone)

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
        owner: str | None = None,
        private: bool = False,
        rated: bool = False,
        clock: dict[str, Any] | None = None,
        at_zero: str | None = None,
    ) -> LiveMatch:
        """A new match (``clock``: a time control as :func:`clocks.control` takes it; ``at_zero``:
        what a person's running out of time does, by default lose when rated and a bot when not)."""
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
        try:
            control = clocks.control(clock, turn_seconds=turn_seconds)
        except clocks.ClockError as exc:
            raise ServerError(400, "bad_clock", str(exc)) from None
        if at_zero is not None and at_zero not in clocks.AT_ZERO:
            raise ServerError(400, "bad_clock", "at_zero is 'lose' or 'bot'")
        if control is not None:
            control["at_zero"] = at_zero or ("lose" if rated else "bot")
        if rated and seed is not None:
            raise ServerError(400, "bad_request", "a rated match is dealt in secret: it takes no seed")
        if rated and HUMAN not in seats:
            raise ServerError(
                400, "bad_request", "a rated match needs a person: bots alone would only move their ratings"
            )
        # A practice deal is its creator's, who plays it alone: a spectator who finds a small seed
        # by trying seeds learns what the only player already knows, and no seat is harmed.
        if seed is not None and seats.count(HUMAN) > 1 and not self.limits.any_seed:
            raise ServerError(
                403,
                "seed_not_allowed",
                "a chosen seed is allowed only when at most one seat is a person (practice against "
                "bots, or bots alone): nobody may choose the cards of other people",
            )
        with_bots = any(kind != HUMAN for kind in seats)
        async with self._create_lock if with_bots and owner else contextlib.nullcontext():
            if with_bots and owner:
                await self._check_bot_cap(owner)
            match = await self._insert(
                game,
                seats=seats,
                seed=seed,
                rematch_of=rematch_of,
                turn_seconds=turn_seconds,
                owner=owner,
                private=private,
                rated=rated,
                clock=control,
            )
        self.matches[match.id] = match
        log.info(
            "match created",
            extra={"event": "match_created", "match": match.id, "game": match.game.name},
        )
        if seed is not None and seats.count(HUMAN) > 1 and seed < WEAK_SEED_BELOW:
            log.warning(
                "a seed of fewer than 64 bits deals a match several people play: any of them can find "
                "it by trying seeds against the cards they see; draw an event's seed at random, "
                "128 bits or more",
                extra={"event": "weak_event_seed", "match": match.id},
            )
        await self._maybe_start(match)
        return match

    async def _insert(
        self,
        game: Game,
        *,
        seats: list[str],
        seed: int | None,
        rematch_of: str | None,
        turn_seconds: int,
        owner: str | None,
        private: bool,
        rated: bool,
        clock: dict[str, Any] | None,
    ) -> LiveMatch:
        match_id = secrets.token_hex(8)
        secret = new_secret()
        seeded = seed is not None
        seed = derive_seed(secret, "game") if seed is None else seed
        chance = CHANCE_VERSION
        state = initial_state(game, seed, chance)
        spec = NewMatch(
            match_id,
            game.name,
            game.rules_in_force,
            game.options,
            seed=seed,
            seats=[NewSeat(kind, None if kind == HUMAN else kind) for kind in seats],
            rematch_of=rematch_of,
            turn_seconds=turn_seconds,
            secret=f"{secret:064x}",
            chance=chance,
            seeded=seeded,
            owner=owner,
            private=private,
            rated=rated,
            clock=clock,
            to_move=None if state.is_terminal() else state.current_player,
        )
        await self._write(partial(self.storage.create_match, spec))
        created = spec.created
        return LiveMatch(
            match_id,
            game,
            seed,
            "open",
            [Seat(kind, None if kind == HUMAN else kind, None) for kind in seats],
            state,
            rematch_of,
            turn_seconds,
            secret=f"{secret:064x}",
            chance=chance,
            seeded=seeded,
            owner=owner,
            private=private,
            created=created,
            grace_seconds=self.limits.grace_seconds,
            rated=rated,
            clock=clock,
            now=self.now,
            chat_empty=True,
        )

    async def get(self, match_id: str) -> LiveMatch:
        if not isinstance(match_id, str) or not MATCH_ID.fullmatch(match_id):
            raise ServerError(404, "no_match", "no such match")
        match = self.matches.get(match_id)
        if match is not None:
            match.last_used = time.monotonic()
            return match
        changed_meanwhile = loaded = False
        async with self._load_lock:
            match = self.matches.get(match_id)
            if match is None:
                self._loading[match_id] = False
                try:
                    match = await asyncio.to_thread(self._load, match_id)
                finally:
                    changed_meanwhile = self._loading.pop(match_id)
                self.matches[match_id] = match
                loaded = True
        if loaded and self.fanout is not None:  # its seats connected to other processes are present
            self._connected_elsewhere(match, await self.fanout.elsewhere(match_id))
        if changed_meanwhile:  # its note came while the log was read: nothing else would tell it
            await self._heed(match_id, self._read_again(match))
        await self._maybe_start(match)  # a crash between the last join and the start
        if match.status == "running":
            self._schedule_bots(match)
            self._watch_away(match)
            if match.clock_task is None or match.clock_task.done():
                self._arm(match)
        return match

    def _load(self, match_id: str) -> LiveMatch:
        """Rebuild a match from storage by replaying its action log."""
        row = self.storage.match(match_id)
        if row is None:
            raise ServerError(404, "no_match", "no such match")
        try:  # a match stored under an earlier rules version goes on by those rules
            game = game_class(row.game).for_rules_version(row.rules_version, row.options)
        except EngineError as exc:
            raise ServerError(409, "rules_changed", f"this match cannot be resumed: {exc}") from None
        state = initial_state(game, row.the_seed, row.chance)
        log_rows = self.storage.log(match_id)
        for _, action in log_rows:
            state.apply(action)
        match = LiveMatch(
            match_id,
            game,
            row.the_seed,
            row.status,
            self._seats_from_storage(match_id),
            state,
            row.rematch_of,
            row.turn_seconds or 0,
            secret=row.secret,
            chance=row.chance,
            seeded=bool(row.seeded),
            owner=row.owner,
            grace_seconds=self.limits.grace_seconds,
            now=self.now,
        )
        _copy_row(match, row)
        match.actors = [seat for seat, _ in log_rows]
        now = self.now()
        for seat in match.seats:
            seat.away_since = now if seat.held else None  # nobody is connected yet
        if row.status == "running" and row.to_move != match.to_move:  # a match from before 0005
            self.storage.set_clock(match_id, match.turn())
        return match

    def _seats_from_storage(self, match_id: str) -> list[Seat]:
        rows = self.storage.seats(match_id)
        kinds = self.storage.player_kinds([r.player_id for r in rows if r.player_id])
        return [Seat(r.kind, r.name, r.token_hash, r.player_id, kinds.get(r.player_id or "")) for r in rows]

    async def resume_all(self) -> int:
        """After a restart: reload every running match, newest first, so that its bots, clocks and
        absent seats carry on (a match nobody asks for would otherwise wait for ever), and start
        the open ones whose seats are all taken (the process stopped between the last seat and
        the start); how many were taken up.  One that cannot be loaded (its rules are gone) does
        not keep the others behind."""
        ids = await asyncio.to_thread(self.storage.resumable_ids)
        taken = 0
        for done, match_id in enumerate(ids, 1):
            try:
                await self.get(match_id)
                taken += 1
            except ServerError as exc:
                log.warning("match %s cannot be resumed: %s", match_id, exc.message)
            except Exception:
                log_failure("could not resume match %s", match_id)
            if done % RESUME_REPORT == 0:
                log.info("resumed %d of %d matches", done, len(ids))
        if ids:
            log.info("resumed %d matches", taken)
        return taken

    async def listing(self, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
        """The lobby, from the database: a match in memory shows who is connected, the others none."""
        rows = await asyncio.to_thread(self.storage.listing, statuses)
        return await self._summaries(rows)

    async def _summaries(self, rows: list[tuple[MatchRow, list[SeatRow], int]]) -> list[dict[str, Any]]:
        ids = [seat.player_id for _, seats, _ in rows for seat in seats if seat.player_id]
        kinds = await asyncio.to_thread(self.storage.player_kinds, ids) if ids else {}
        elsewhere: dict[str, set[int]] = {}
        if self.fanout is not None:  # the matches other processes serve: who is connected there
            served_elsewhere = [
                row.id
                for row, _, _ in rows
                if row.id not in self.matches and row.status in ("open", "running")
            ]
            if served_elsewhere:
                elsewhere = await self.fanout.connected(served_elsewhere) or {}
        out = []
        for row, seats, version in rows:
            live = self.matches.get(row.id)
            if live is not None:
                out.append(live.summary())
                continue
            summary = row_summary(row, seats, version, kinds, self.limits.grace_seconds)
            for info in summary["seats"]:
                if info["seat"] in elsewhere.get(row.id, ()):
                    info["connected"] = True
            out.append(summary)
        return out

    async def player_matches(self, player: Player) -> list[dict[str, Any]]:
        """The open and running matches a player holds a seat in, those waiting for their move
        first, each with ``my_seat`` and ``my_turn``."""
        rows = await asyncio.to_thread(self.storage.player_matches, player.id, ("open", "running"))
        out = []
        for summary, (row, seats, _) in zip(await self._summaries(rows), rows, strict=True):
            seat = next(s for s in seats if s.player_id == player.id)
            # the row keeps whose move it is: no match is loaded to answer (a correspondence player
            # may have dozens running)
            my_turn = row.status == "running" and row.to_move == seat.seat and seat.kind == HUMAN
            out.append({**summary, "my_seat": seat.seat, "my_turn": my_turn})
        out.sort(key=lambda m: not m["my_turn"])  # stable: most recent first within each group
        return out

    async def join(
        self,
        match: LiveMatch,
        name: str,
        seat: int | None,
        join_key: str | None = None,
        *,
        player: Player | None = None,
        invite: str | None = None,
        session: str | None = None,
    ) -> tuple[int, str]:
        """A free human seat and its token; with a player, the seat is theirs (on any device).
        With an Idempotency-Key, a retry of a join that went through (its answer lost) gets the
        same seat and the same token.  A private match needs its invite code.  ``session``: the
        hash of a guest's session, which must still live when the seat is written."""
        key_hash = hash_token(f"join-key/{join_key}") if join_key else None
        if match.rated and (player is None or player.kind != "account"):
            raise ServerError(
                403, "account_required", "a rated match is played by accounts: sign up or log in to join"
            )
        if match.private:
            if not invite:
                raise ServerError(
                    403, "invite_required", "this match is private: join it with its invite link"
                )
            if not same_secret(invite, match.invite):
                raise ServerError(403, "bad_invite", "this invite code is not this match's")
        retried: int | None = None
        taken: tuple[int, str] | None = None
        async with match.lock:
            if key_hash is not None:
                retried = await self._joined_with(match, key_hash, name, seat)
            if retried is None:
                taken = await self._take_free_seat(
                    match, name, seat, join_key=join_key, key_hash=key_hash, player=player, session=session
                )
        await self._maybe_start(match)  # also for a retry: its first try may have failed to start it
        if taken is None:
            assert retried is not None
            return retried, match.join_token(str(join_key))
        if match.status == "expired":  # it expired as this seat was taken
            raise ServerError(409, "expired", "this match expired before its players came")
        await self.broadcast(match)
        if self.fanout is not None:
            await self.fanout.publish(match.id)
        return taken

    async def _take_free_seat(
        self,
        match: LiveMatch,
        name: str,
        seat: int | None,
        *,
        join_key: str | None,
        key_hash: str | None,
        player: Player | None,
        session: str | None,
    ) -> tuple[int, str]:
        """Claim a free human seat in storage, then in memory (the caller holds the match's lock)."""
        if player is not None and match.seat_of_player(player) is not None:
            raise ServerError(409, "already_seated", "you already hold a seat in this match")
        if match.status == "expired":
            raise ServerError(409, "expired", "this match expired before its players came")
        free = [i for i, s in enumerate(match.seats) if s.kind == HUMAN and not s.taken]
        if seat is None:
            if not free:
                raise ServerError(409, "no_free_seat", "every human seat is taken")
            seat = free[0]
        if not 0 <= seat < len(match.seats):
            raise ServerError(404, "no_seat", f"seats are 0..{len(match.seats) - 1}")
        if seat not in free:
            raise ServerError(409, "seat_taken", f"seat {seat} is not free")
        token = match.join_token(join_key) if join_key and match.secret else secrets.token_urlsafe(32)
        player_id = None if player is None else player.id
        claim = partial(
            self.storage.claim_seat,
            match.id,
            seat,
            name,
            token,
            key_hash,
            player_id=player_id,
            session=session,
        )
        try:
            claimed = await self._write(claim)
        except AlreadySeatedError:  # a log-in handed them another seat here a moment ago
            await self._catch_up_and_show(match)
            raise ServerError(409, "already_seated", "you already hold a seat in this match") from None
        except SessionEndedError:  # logged in (or out) while joining: the seat stays free
            raise ServerError(401, "bad_session", BAD_SESSION) from None
        if not claimed:
            await self._catch_up_and_show(match)  # taken, or the match expired, through another process
            if match.status == "expired":
                raise ServerError(409, "expired", "this match expired before its players came")
            raise ServerError(409, "seat_taken", f"seat {seat} is not free")
        match.seats[seat] = Seat(
            HUMAN, name, hash_token(token), player_id, None if player is None else player.kind
        )
        if not any(c.seat == seat for c in match.clients):
            match.seats[seat].away_since = self.now()
        if self.fanout is not None and not all(s.taken for s in match.seats):
            # The other seats, some maybe taken (or freed) through another process a moment ago, their
            # notes still on the way: one read of the free seats tells, the whole match only if so.
            free_here = {i for i, s in enumerate(match.seats) if not s.taken}
            if await asyncio.to_thread(self.storage.free_seats, match.id) != free_here:
                await self._catch_up(match)
        return seat, token

    async def _joined_with(self, match: LiveMatch, key_hash: str, name: str, seat: int | None) -> int | None:
        """The seat an earlier join with this key took (it is checked to be the same request)."""
        rows: list[SeatRow] = await asyncio.to_thread(self.storage.seats, match.id)
        for row in rows:
            if row.join_key is not None and secrets.compare_digest(row.join_key, key_hash):
                if row.name != name or (seat is not None and seat != row.seat):
                    raise ServerError(409, "key_reused", "this Idempotency-Key was used for a different join")
                return row.seat
        return None

    async def leave(
        self, match: LiveMatch, seat: int, *, player: Player | None = None, token: str | None = None
    ) -> None:
        """Give ``seat`` back, if the request's token (else its player) still holds it: the seat was
        found before the lock was taken, and meanwhile it may have been left (a leave sent twice) and
        taken by someone else, whose seat this must not free."""
        async with match.lock:
            if match.status == "expired":
                raise ServerError(409, "expired", "the match expired before it started: nothing to leave")
            if match.status != "open":
                raise ServerError(409, "started", "the match has started: your seat stays yours")
            if (token or player is not None) and self._seat_now(match, player, token) != seat:
                raise ServerError(403, "not_seated", "only a player of this match may do this")
            holder = match.seats[seat].token_hash
            if not await self._write(partial(self.storage.release_seat, match.id, seat, holder)):
                await self._catch_up_and_show(match)  # taken through another process meanwhile
                raise ServerError(403, "not_seated", "only a player of this match may do this")
            match.seats[seat] = Seat(HUMAN, None, None)
        await self.broadcast(match)
        if self.fanout is not None:
            await self.fanout.publish(match.id)

    async def _maybe_start(self, match: LiveMatch) -> None:
        """Start a match whose seats are all taken.  The start is written under the match's lock: a
        move (a seat that saw its turn in a view built meanwhile) waits for it, so no move is
        stored before the start, whose turn would then undo the move's."""
        async with match.lock:
            if match.status != "open" or not all(s.taken for s in match.seats):
                return
            before = match.status, match.clock, match.deadline
            match.status = "running"
            if match.clock is not None:
                match.clock = clocks.start(match.clock, len(match.seats), match.clock["at_zero"], self.now())
            turn = match.turn()
            match.deadline = turn.deadline
            try:
                started = await self._write(partial(self.storage.start_match, match.id, turn))
            except BaseException:  # not written (the database away): still open, started next time
                match.status, match.clock, match.deadline = before
                raise
            if not started:
                await self._catch_up(match)  # started by another process, or expired meanwhile
                if match.status != "running":
                    return
        self._schedule_bots(match)
        self._watch_away(match)
        self._arm(match)

    async def reload_seats(self, match_ids: list[str]) -> None:
        """Seats changed hands in storage (a guest logged in): matches in memory read them again."""
        for match_id in match_ids:
            match = self.matches.get(match_id)
            if match is None:
                continue
            async with match.lock:
                await self._catch_up(match)
            await self._changed(match)

    async def _write(self, write: Callable[[], T]) -> T:
        """A write of the lobby or of a match's life (a ``partial`` of a storage method), by the
        moves' writer (:mod:`.commits`).  On SQLite, writers on several threads only wait for each
        other's lock, each asleep in SQLite's growing steps, holding threads of the shared pool.
        On PostgreSQL, each round trip of a writer in the shared pool came back to a wait for the
        interpreter lock, against the moves' writer too: at 75 busy matches a move's commit waited
        up to 100 ms at the 99th percentile, and 50 with the lobby's writes taking turns with the
        moves on one thread."""
        return await self.commits.run(write)

    async def heavy_read(self, job: Callable[[], Any], key: str) -> Any:
        """Run a costly read (a replay, a record) off the event loop, one at a time per process,
        the waiting callers' keys (clients) taking turns."""
        async with self._reads.turn(key):
            return await asyncio.to_thread(job)

    # -- play ---------------------------------------------------------------------------------
    async def submit(
        self, match: LiveMatch, seat: int | None, action: Any, version: Any, *, holder: Client | None = None
    ) -> None:
        """Validate, commit, apply, broadcast.  Raises ServerError and changes nothing if refused.
        ``holder``: the connection that sent it, which must still hold the seat once the match is
        locked (its seat may have changed hands while its session was being checked)."""
        if seat is None:
            raise ServerError(403, "spectator", "spectators cannot act")
        if isinstance(action, bool) or not isinstance(action, int):
            raise ServerError(400, "bad_action", "'action' must be an integer action id")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ServerError(400, "bad_version", "'version' must be an integer")
        async with match.lock:
            if holder is not None and not holder.holds(match):
                self._seat_lost(match, holder)
                raise ServerError(409, "seat_changed", "this connection's seat changed: connect again")
            if match.seats[seat].kind != HUMAN:
                raise ServerError(409, "seat_is_bot", "a bot plays this seat now")
            late = self._out_of_time(match) and match.to_move == seat
            if not late:
                await self._commit(match, seat, action, version)
        if late:
            await self.time_out(match)
            raise ServerError(409, "out_of_time", "your time ran out before this move arrived")
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
        status, end, ranks = None, None, None
        if trial.is_terminal():
            winners = trial.winners()
            status = "finished"
            end = {
                "reason": "played",
                "seats": [s for s in range(len(match.seats)) if s not in winners],
                "winners": winners,
            }
            ranks = ranks_from_returns(trial.returns())
        now = datetime.now(UTC)
        clock = match.clock
        if clock is not None:
            turn_over = trial.is_terminal() or trial.current_player != seat or not trial.mid_turn()
            clock = clocks.after_move(clock, seat, match.playing, self.now(), turn_over=turn_over)
        to_move = None if trial.is_terminal() else trial.current_player
        deadline = None if status else clocks.deadline(clock, to_move, match.playing)
        if match.turn_seconds and status is None and to_move is not None:
            person = match.seats[to_move].kind == HUMAN  # the per-turn clock: stored, like a clock's
            deadline = self.now() + match.turn_seconds if person else None
        turn = Turn(to_move, clock, deadline)
        append = partial(
            self.storage.append_action,
            match.id,
            match.version,
            seat,
            action,
            status,
            end=end,
            at=now,
            turn=turn,
            ranks=ranks,
        )
        started = time.perf_counter()
        try:
            if status is None:
                ratings = None
                await self.commits.append(Append(match.id, match.version, seat, action, turn))
            else:
                ratings = await self.commits.run(append, urgent=True)  # a last move
        except (IntegrityError, MatchEndedError):
            # Another server process committed this version first, or ended the match (scale-out):
            # catch up, show this process's connections what it committed, and refuse.
            if await self._catch_up(match):
                self.deliver_views(match)
                if self.fanout is not None and match.actors[version : version + 1] == [seat]:
                    # Perhaps this very move, committed though its acknowledgement was lost (the
                    # connection dropped at the commit): then no process told the others of it.
                    # A change they already know of costs them one read.
                    await self.fanout.publish(match.id)
            if match.status != "running":
                raise ServerError(409, "not_running", f"the match is {match.status}") from None
            raise ServerError(
                409, "stale_version", f"the match is at version {match.version}, not {version}"
            ) from None
        self.metrics.move_commit.observe(time.perf_counter() - started)
        match.state = trial
        match.actors.append(seat)
        match.last_used = time.monotonic()
        self.metrics.actions.labels(by="person" if match.seats[seat].kind == HUMAN else "bot").inc()
        match.clock, match.deadline = clock, deadline
        if match.turn_seconds:
            match.turn_deadline = deadline  # the next person's (None while a bot is to move)
        if status:
            match.status, match.end, match.finished, match.ratings = status, end, now, ratings
            self._finished(match)
        else:
            self._arm(match)
        if self.fanout is not None:
            if status is None:
                await self.fanout.moved(match.id, Moved(version, seat, action, clock, deadline))
            else:
                await self.fanout.publish(match.id)

    async def _catch_up_and_show(self, match: LiveMatch) -> bool:
        """:meth:`_catch_up`, and what another process changed is shown at once to this process's
        connections (its bots let on): a refusal follows, and the change's own note, coming after,
        finds it known and shows nothing, which left players here on the old position, some
        waiting for a turn they already had."""
        changed = await self._catch_up(match)
        if changed:
            self.deliver_views(match)
            self._schedule_bots(match)
        return changed

    async def _catch_up(self, match: LiveMatch) -> bool:
        """Apply the actions other processes committed, and reload seats and status.  True if anything
        changed.  Called with the match's lock held."""
        log_rows = await asyncio.to_thread(self.storage.log, match.id)
        rows = await asyncio.to_thread(self.storage.seats, match.id)
        row = await asyncio.to_thread(self.storage.match, match.id)
        changed = False
        for seat, action in log_rows[match.version :]:
            match.state.apply(action)
            match.actors.append(seat)
            match.moves_from_elsewhere += 1
            changed = True
        if changed and match.bots_elsewhere_since is not None:  # that process plays them still
            match.bots_elsewhere_since = time.monotonic()
        kinds = await asyncio.to_thread(self.storage.player_kinds, [r.player_id for r in rows])
        seats = [Seat(r.kind, r.name, r.token_hash, r.player_id, kinds.get(r.player_id or "")) for r in rows]
        if seats != match.seats:
            connected = {c.seat for c in match.clients}
            present = connected | match.elsewhere
            for number, (new, old) in enumerate(zip(seats, match.seats, strict=True)):
                new.away_since = old.away_since
                if new.held and not old.held and connected and number not in present:
                    # taken through another process while someone plays or watches here: away from
                    # here until the watch of the absent seats finds it connected there (else its
                    # grace never ran here, and the match could not be claimed from here)
                    new.away_since = self.now()
            match.seats = seats
            changed = True
        if row is not None and (row.status, row.end, row.rematch, row.clock, row.deadline) != (
            match.status,
            match.end,
            match.rematch,
            match.clock,
            match.deadline,
        ):
            finished = row.status != match.status and row.status == "finished"
            match.status = row.status
            _copy_row(match, row)
            changed = True
            if finished:
                self._finished(match)
            else:
                self._arm(match)
        if changed:
            self._watch_away(match)
        return changed

    async def _heed(self, match_id: str, handling: Awaitable[None]) -> None:
        """Follow a note of another process.  One that comes while the match is being loaded is
        kept for the load to read again; one that cannot be followed now (storage away a moment)
        leaves the match in doubt, and the sweep reads it again: no later note may come to repair
        it, and its players would wait on a position that is no longer the match's."""
        if match_id in self._loading:
            self._loading[match_id] = True
        try:
            await handling
        except Exception:
            self._doubtful.add(match_id)
            log_failure("match %s: following a change made elsewhere failed; reading it again soon", match_id)

    async def _read_doubtful(self) -> None:
        """Read again each match whose note could not be followed (see :meth:`_heed`)."""
        for match_id in list(self._doubtful):
            self._doubtful.discard(match_id)
            match = self.matches.get(match_id)
            if match is None:
                continue  # it left memory: the next load reads it whole
            match.chat_empty, match.chat_news = False, match.chat_news + 1  # a line may have been missed
            await self._heed(match_id, self._read_again(match))

    async def _on_remote_change(self, match_id: str) -> None:
        """Another process changed a match: if this process serves it, catch up and tell its clients
        (one it holds only in passing leaves memory instead, as at a remote move)."""
        match = self.matches.get(match_id)
        if match is None:
            return
        if self._in_passing(match):
            del self.matches[match_id]
            return
        await self._read_again(match)

    async def _read_again(self, match: LiveMatch) -> None:
        """Catch up with what other processes changed in the match and, if anything did, start it
        (its last seat taken through another process), show it to its clients and let its bots on."""
        async with match.lock:
            changed = await self._catch_up(match)
        if changed:
            await self._maybe_start(match)
            await self.broadcast(match)
            self._schedule_bots(match)

    @staticmethod
    def _in_passing(match: LiveMatch) -> bool:
        """Held here without a use for a while: no connection, nothing running, no request lately
        (a match made here whose players play it through another process, which a proxy sends them
        to).  Following it would apply each of its moves twice over the processes."""
        return not match.busy() and time.monotonic() - match.last_used >= PASSING_SECONDS

    async def caught_up(self, match: LiveMatch) -> None:
        """Before refusing what needs a match over (a rematch, an analysis): with other processes,
        one this process still sees open or running may have started and ended through another a
        moment ago, its notes still on the way; read it again first."""
        if self.fanout is not None and match.status in ("open", "running"):
            await self._read_again(match)

    async def _on_resubscribed(self) -> None:
        """The notes of other processes could not reach this one for a while: read again every
        match it serves, as if each had been told of a change."""
        for match_id, match in list(self.matches.items()):
            match.chat_empty, match.chat_news = False, match.chat_news + 1  # a line may have been missed
            await self._heed(match_id, self._on_remote_change(match_id))  # one's trouble holds no other

    async def _on_remote_move(self, match_id: str, moved: Moved) -> None:
        """Another process committed a move that does not end the match.  At that version, apply it
        as it came; a match this process holds only in passing (no connection, nothing running) leaves
        memory instead, as an idle one would; anything else is read again from storage."""
        match = self.matches.get(match_id)
        if match is None:
            return
        if self._in_passing(match):
            del self.matches[match_id]
            return
        async with match.lock:
            if moved.version < match.version:
                return  # already caught up past it; the other changes come with their own notes
            changed = False
            if moved.version == match.version and match.status == "running":
                try:
                    match.state.apply(moved.action)
                except ActionError:
                    log.warning("a published move did not apply here; reading the match again")
                else:
                    match.actors.append(moved.seat)
                    match.moves_from_elsewhere += 1
                    if match.bots_elsewhere_since is not None:  # that process plays them still
                        match.bots_elsewhere_since = time.monotonic()
                    match.clock, match.deadline = moved.clock, moved.deadline
                    if match.turn_seconds:
                        match.turn_deadline = moved.deadline
                    self._arm(match)  # (not a use: following a match played elsewhere keeps nobody's)
                    changed = True
            if not changed:
                changed = await self._catch_up(match)
        if changed:
            await self.broadcast(match)
            self._schedule_bots(match)

    async def seat_of(self, match: LiveMatch, token: str | None, player: Player | None) -> int | None:
        """The seat of a token (else of a signed-in player; None: a spectator).  With several
        processes, a seat taken through another process a moment ago may not have reached this one
        yet: a token or player it does not know makes it catch up from storage once first."""
        try:
            seat = match.seat_of_token(token) if token else match.seat_of_player(player)
        except ServerError:
            if self.fanout is None:
                raise
            seat = None
        if seat is None and self.fanout is not None and (token or player is not None):
            await self._read_again(match)
            seat = match.seat_of_token(token) if token else match.seat_of_player(player)
        return seat

    # -- the end of a match without its last move -----------------------------------------------
    def seat_for(
        self, match: LiveMatch, player: Player | None, token: str | None, *, left: bool = False
    ) -> int:
        """The person's seat a request acts for: its token's, else its player's; 403 for anyone else.
        ``left``: also a seat a bot took over from its person (who may still answer a rematch)."""
        seat = match.seat_of_token(token) if token else match.seat_of_player(player)
        return self._held(match, seat, left=left)

    async def fresh_seat_for(
        self, match: LiveMatch, player: Player | None, token: str | None, *, left: bool = False
    ) -> int:
        """:meth:`seat_for`, catching up first with a seat taken through another process."""
        return self._held(match, await self.seat_of(match, token, player), left=left)

    @staticmethod
    def _still_held(match: LiveMatch, seat: int) -> None:
        """Checked under the match's lock: the seat found for a request (before the lock) is still
        its person's, not a bot's since (a time-out, an absence) playing it in their stead."""
        if match.status == "running" and not match.seats[seat].held:
            raise ServerError(403, "not_seated", "only a player of this match may do this")

    @staticmethod
    def _seat_now(match: LiveMatch, player: Player | None, token: str | None) -> int | None:
        return match.seat_of_token(token) if token else match.seat_of_player(player)

    @staticmethod
    def _held(match: LiveMatch, seat: int | None, *, left: bool) -> int:
        if seat is None or not (match.seats[seat].held or (left and match.seats[seat].person)):
            raise ServerError(403, "not_seated", "only a player of this match may do this")
        return seat

    async def resign(self, match: LiveMatch, seat: int) -> None:
        """The seat (its team, where there are teams) gives up: the match ends and every other seat
        still in the game wins.  A seat already out (MK-10) has lost: the others play on."""

        def end() -> dict[str, Any]:
            self._still_held(match, seat)
            if match.state.is_out(seat):
                why = "you are out of this game already: it goes on without you, and you lost"
                raise ServerError(409, "already_out", why)
            return ended(match.game, "resigned", [seat], out_seats(match.state))

        await self._end(match, end, "you can resign only while the match is played")

    async def abort(self, match: LiveMatch, seat: int | None = None) -> None:
        """Call the match off (asked by ``seat``'s person: it must still be theirs once locked)."""

        def end() -> dict[str, Any]:
            if seat is not None:
                self._still_held(match, seat)
            if not match.can_abort():
                raise ServerError(
                    409,
                    "cannot_abort",
                    "a match can be aborted only while it is played and some player has not moved yet",
                )
            return ended(match.game, "aborted", [])

        end()  # refused at once if it cannot be, and again once the match is locked
        await self._end(match, end, "")

    async def claim(self, match: LiveMatch, seat: int) -> None:
        """A present player ends a match that absent opponents hold up: the absent seats lose.  A
        partner's absence is the claimant's team's (their seat may go to a bot), and a seat already
        out of the game (MK-10) neither holds anything up nor claims (it has lost either way)."""

        def end() -> dict[str, Any]:
            self._still_held(match, seat)
            if match.state.is_out(seat):
                raise ServerError(409, "already_out", "you are out of this game already: you cannot claim it")
            team = match.game.team_of(seat)
            gone = [
                i
                for i in range(len(match.seats))
                if match.game.team_of(i) != team and not match.state.is_out(i) and match.abandoned(i)
            ]
            if not gone:
                raise ServerError(
                    409,
                    "not_abandoned",
                    "no opponent still in the game has been away longer than the grace period",
                )
            return ended(match.game, "claimed", gone, out_seats(match.state))

        for other in range(len(match.seats)):  # away from here, but maybe connected to another process
            if other != seat and match.abandoned(other):
                await self._present_elsewhere(match, other)
        await self._end(match, end, "the match is not being played")

    async def hand_to_bot(self, match: LiveMatch, by: int, seat: int) -> None:
        """Give an abandoned seat to a bot (asked by another player, or by the server itself)."""
        if not 0 <= seat < len(match.seats):
            raise ServerError(404, "no_seat", f"seats are 0..{len(match.seats) - 1}")
        if seat == by:
            raise ServerError(409, "not_abandoned", "you are here: your seat is not abandoned")
        async with match.lock:
            self._still_held(match, by)  # the asker's seat may have gone to a bot meanwhile
            if not match.abandoned(seat) or await self._present_elsewhere(match, seat):
                raise ServerError(
                    409, "not_abandoned", f"seat {seat} has not been away longer than the grace period"
                )
            await self._to_bot(match, seat)
        await self._changed(match)
        self._schedule_bots(match)

    async def _to_bot(self, match: LiveMatch, seat: int, why: str = "was abandoned") -> None:
        """A bot plays the seat from now on (its clock stops: bots have no time)."""
        level = self.limits.abandoned_bot
        held = match.seats[seat]
        name = held.name or level
        before = (held.kind, held.away_since, match.deadline, match.turn_deadline)
        # The match as it will be, for the turn to store; it is put back until that is written.
        held.kind, held.away_since = level, None
        turn = None
        if match.turn_seconds and seat == match.to_move and match.deadline is not None:
            match.deadline = match.turn_deadline = None  # a bot's turn has no clock
            turn = match.turn()
        if match.clock is not None:
            turn = match.turn()
            match.deadline = turn.deadline
        after = (held.kind, held.away_since, match.deadline, match.turn_deadline)
        held.kind, held.away_since, match.deadline, match.turn_deadline = before
        # The seat and the clock in one transaction: a stop between them would leave a stale deadline.
        await asyncio.to_thread(
            self.storage.set_seat_kind, match.id, seat, level, name, turn=turn, version=match.version
        )
        held.kind, held.away_since, match.deadline, match.turn_deadline = after
        if match.clock is not None:
            self._arm(match)
        elif match.turn_seconds and seat == match.to_move:
            clock = match.clock_task  # the turn is the bot's now: no greedy move for it at the deadline
            if clock is not None and clock is not asyncio.current_task():
                clock.cancel()
        log.info("match %s: seat %s %s and goes to the %s bot", match.id, seat, why, level)

    async def _end(
        self,
        match: LiveMatch,
        decide: Callable[[], dict[str, Any]],
        not_running: str,
        *,
        if_at: int | None = None,
    ) -> None:
        """End the match without its last move; a rated match rates it (no one wins an aborted one).
        ``decide`` says how it ends (or refuses, raising ServerError) once the match is locked and
        caught up: a move made meanwhile (a seat now out, an opponent back), through this process
        or another, counts.  The end is stored only if the match is still at the version it was
        decided at; else it is decided again on the newer state.  ``if_at``: a time-out's version,
        which must not be decided again (a move in time answers it)."""
        async with match.lock:
            for _attempt in range(3):
                if self.fanout is not None:
                    await self._catch_up_and_show(match)  # a move or seat another process just committed
                if match.status != "running":
                    raise ServerError(409, "not_running", not_running or "the match is not being played")
                end = decide()
                aborted = end["reason"] == "aborted"
                ranks = None if aborted else ranks_from_winners(len(match.seats), end["winners"])
                now = datetime.now(UTC)
                charged = None
                if match.clock is not None:
                    charged = clocks.stopped(match.clock, match.to_move, match.playing, self.now())
                finish = partial(
                    self.storage.end_match,
                    match.id,
                    end,
                    "finished",
                    now,
                    ranks=ranks,
                    clock=charged,
                    version=match.version if if_at is None else if_at,
                )
                done, ratings = await self._write(finish)
                if done:
                    break
                await self._catch_up_and_show(match)
                if if_at is not None or match.status != "running":
                    raise ServerError(409, "not_running", "the match has just ended")
            else:
                raise ServerError(409, "stale_version", "the match keeps changing: try again")
            match.status, match.end, match.finished, match.ratings = "finished", end, now, ratings
            match.deadline = None
            if charged is not None:
                match.clock = charged
            self._finished(match)
        await self._changed(match)

    def _finished(self, match: LiveMatch) -> None:
        """The match has just ended: its clocks and helpers stop, and everyone may now read the
        spectators' chat."""
        match.turn_deadline = None
        reason = None if match.end is None else match.end.get("reason")
        log.info(
            "match finished",
            extra={"event": "match_finished", "match": match.id, "game": match.game.name, "code": reason},
        )
        for task in (match.clock_task, match.bot_task, match.away_task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        if any(c.seat is not None or c.player is None for c in match.clients):
            asyncio.get_running_loop().create_task(self._send_chat(match, players_only=True))

    async def _changed(self, match: LiveMatch) -> None:
        await self.broadcast(match)
        if self.fanout is not None:
            await self.fanout.publish(match.id)

    async def _check_bot_cap(self, owner: str) -> None:
        """429 if ``owner`` has as many matches with bots open or running as a client may (a new one,
        created or a rematch, would be one more); under ``_create_lock``."""
        if not self.limits.max_bot_matches:
            return
        active = await asyncio.to_thread(self.storage.active_bot_matches, owner)
        if active >= self.limits.max_bot_matches:
            raise ServerError(
                429,
                "too_many_bot_matches",
                f"one client may have {self.limits.max_bot_matches} matches with bots open or "
                "being played at once: finish, resign or leave one first (an open match nobody "
                f"joins leaves the lobby after {_duration(self.limits.open_expiry_seconds)})",
                retry_after=30,
            )

    # -- sessions that end while connected ------------------------------------------------------
    @staticmethod
    def _seat_player(match: LiveMatch, client: Client) -> str | None:
        return None if client.seat is None else match.seats[client.seat].player_id

    @staticmethod
    def _seat_token(match: LiveMatch, client: Client) -> str | None:
        """The seat token a connection to a player's seat was opened with: a new password ends it."""
        return (
            None if client.seat is None or match.seats[client.seat].player_id is None else client.seat_token
        )

    async def check_allowed(self, match: LiveMatch, client: Client) -> None:
        """Refuse (401 ``signed_out``) an action on a connection whose session has ended since it
        was opened (a log-out, a new password, an operator's reset), whose seat's account has been
        disabled since, or whose seat token was cleared by a new password: a seat token does not
        outlive its account nor its password."""
        if not client.holds(match):
            self._seat_lost(match, client)
            raise ServerError(409, "seat_changed", "this connection's seat changed: connect again")
        session, player = client.session, self._seat_player(match, client)
        token = self._seat_token(match, client)
        if session is None and player is None:
            return
        now = time.monotonic()
        if now - self._allowed.get((session, player, token), -ALLOWED_SECONDS) < ALLOWED_SECONDS:
            return
        sessions = set() if session is None else {session}
        players = set() if player is None else {player}
        tokens = set() if token is None else {token}
        live, active, kept = await asyncio.to_thread(
            self.storage.still_allowed, sessions, players, SESSION_IDLE_SECONDS, tokens
        )
        if sessions - live or players - active or tokens - kept:
            raise ServerError(401, "signed_out", SIGNED_OUT_MESSAGE)
        if len(self._allowed) > ALLOWED_CACHE:
            self._allowed.clear()
        self._allowed[(session, player, token)] = now

    async def check_seat_account(self, match: LiveMatch, seat: int, token: str | None = None) -> None:
        """403 ``account_disabled`` if the seat's person has an account that has been disabled: its
        seat token stops with it; 403 ``bad_token`` if ``token`` was the seat's before its
        account's password changed (checked in storage: another process or the operator's tool
        may have changed it)."""
        player = match.seats[seat].player_id
        if player is None:
            return
        digest = None if not token else hash_token(token)
        _, active, kept = await asyncio.to_thread(
            self.storage.still_allowed,
            set(),
            {player},
            SESSION_IDLE_SECONDS,
            () if digest is None else {digest},
        )
        if player not in active:
            raise ServerError(403, "account_disabled", "this seat's account is disabled")
        if digest is not None and digest not in kept:
            raise ServerError(
                403, "bad_token", "this seat token ended when its account's password changed: log in to play"
            )

    async def signed_out(
        self, player_id: str, *, only: str | None = None, keep: str | None = None, seat_tokens: bool = False
    ) -> None:
        """A player's sessions ended here (all but ``keep``, or only ``only``): their connections
        opened with them stop at once, as the sessions did.  With ``seat_tokens`` (their seat tokens
        were cleared), so do the connections opened with a token of one of their seats."""
        self._allowed.clear()
        for match in list(self.matches.values()):
            for client in list(match.clients):
                ended = (
                    client.session is not None and client.session != keep and only in (None, client.session)
                )
                by_token = (
                    seat_tokens
                    and client.seat_token is not None
                    and self._seat_player(match, client) == player_id
                )
                if (ended and client.player is not None and client.player.id == player_id) or by_token:
                    await self.end_connection(match, client)

    async def drop_signed_out(self) -> None:
        """Close the connections whose session has ended or whose seat's account is disabled (by
        another server process, or the operator's tool)."""
        clients = [(m, c) for m in self.matches.values() for c in m.clients]
        sessions = {c.session for _, c in clients if c.session is not None}
        players = {p for m, c in clients if (p := self._seat_player(m, c)) is not None}
        tokens = {t for m, c in clients if (t := self._seat_token(m, c)) is not None}
        if not sessions and not players:
            return
        live, active, kept = await asyncio.to_thread(
            self.storage.still_allowed, sessions, players, SESSION_IDLE_SECONDS, tokens
        )
        for match, client in clients:
            player, token = self._seat_player(match, client), self._seat_token(match, client)
            if (
                (client.session is not None and client.session not in live)
                or (player is not None and player not in active)
                or (token is not None and token not in kept)
            ):
                await self.end_connection(match, client)

    async def end_connection(self, match: LiveMatch, client: Client) -> None:
        """Tell a connection its session has ended, and close it."""
        client.deliver(
            {
                "type": "error",
                "code": "signed_out",
                "message": SIGNED_OUT_MESSAGE,
            }
        )
        client.close_after_sending(SIGNED_OUT_CLOSE)
        await self.disconnect(match, client)

    async def answer_rematch(self, match: LiveMatch, seat: int, accept: bool) -> None:
        """One player's answer to the match's one rematch offer.  When every person has accepted,
        one new match starts: the same game, options, clock, people and bots, seats turned by one."""
        await self.caught_up(match)
        if match.status != "finished":
            raise ServerError(409, "not_finished", "a rematch is offered once the match is over")
        humans = [i for i, s in enumerate(match.seats) if s.person]
        players = {s.player_id for s in match.seats if s.person and s.player_id}
        if accept and players:  # a disabled account plays no new match, nor holds its seat
            _, active, _ = await asyncio.to_thread(
                self.storage.still_allowed, set(), players, SESSION_IDLE_SECONDS, ()
            )
            if players - active:
                raise ServerError(
                    409,
                    "rematch_unavailable",
                    "a player of this match can no longer play: there is no rematch",
                )
        n = len(match.seats)
        old_rows = {r.seat: r for r in await asyncio.to_thread(self.storage.seats, match.id)}
        seats: list[NewSeat] = [NewSeat(HUMAN)] * n
        for i, info in enumerate(match.seats):
            row = old_rows[i]
            kind = HUMAN if info.person else info.kind  # a person a bot stood in for plays again
            seats[(i + 1) % n] = NewSeat(kind, info.name, row.token_hash, row.player_id)
        secret = new_secret()
        game = type(match.game)(match.game.options)  # today's rules, whatever the old match's were
        seed = derive_seed(secret, "game")
        first = initial_state(game, seed, CHANCE_VERSION)
        to_move = None if first.is_terminal() else first.current_player
        clock, deadline = None, None
        if match.clock is not None:  # the same time control, every seat's time full again
            control = {k: v for k, v in match.clock.items() if k not in ("remaining", "turn_started")}
            clock = clocks.start(control, n, control["at_zero"], self.now())
            deadline = clocks.deadline(clock, to_move, [s.kind == HUMAN for s in seats])
        elif match.turn_seconds and to_move is not None and seats[to_move].kind == HUMAN:
            deadline = self.now() + match.turn_seconds  # the per-turn clock's, stored as a move's is
        spec = NewMatch(
            secrets.token_hex(8),
            game.name,
            game.rules_in_force,
            game.options,
            seed=seed,
            seats=seats,
            rematch_of=match.id,
            turn_seconds=match.turn_seconds,
            secret=f"{secret:064x}",
            chance=CHANCE_VERSION,
            owner=match.owner,
            private=match.private,
            status="running",
            rated=match.rated,
            clock=clock,
            deadline=deadline,
            to_move=to_move,
        )
        with_bots = any(s.kind != HUMAN for s in seats)
        capped = accept and with_bots and match.owner is not None
        async with self._create_lock if capped else contextlib.nullcontext(), match.lock:
            if capped and match.owner is not None:  # the rematch is one more of its owner's
                await self._check_bot_cap(match.owner)
            try:
                offer = await asyncio.to_thread(
                    self.storage.answer_rematch, match.id, seat, accept, humans, spec
                )
            except LookupError as exc:
                code = str(exc.args[0])
                message = {
                    "already_answered": "you have answered this rematch offer already",
                    "rematch_declined": "the rematch was declined: this match has no other offer",
                }[code]
                raise ServerError(409, code, message) from None
            match.rematch = offer
        if offer.get("match"):
            try:
                await self.get(str(offer["match"]))  # start its bots now
            except Exception:  # committed: the players are told; opened, or found by the sweep, it starts
                log_failure("loading rematch %s of match %s failed", offer["match"], match.id)
        await self._changed(match)

    # -- presence, abandonment and expiry --------------------------------------------------------
    def _watch_away(self, match: LiveMatch) -> None:
        """Make sure someone wakes when an absent person's grace period runs out (not in a
        correspondence match, where only the clock decides)."""
        if match.status != "running" or match.correspondence:
            return
        if any(s.held and s.away_since is not None for s in match.seats) and (
            match.away_task is None or match.away_task.done()
        ):
            match.away_task = asyncio.get_running_loop().create_task(self._away_forever(match))

    async def _away_forever(self, match: LiveMatch) -> None:
        """Watch the absent seats, again after a failure (a write refused by a locked database): a
        watch that died would let the match leave memory, its absent seats never given to a bot."""
        await self._until_done(match, self._watch_absent, "watching the absent seats")

    async def _until_done(
        self, match: LiveMatch, work: Callable[[LiveMatch], Awaitable[None]], what: str
    ) -> None:
        """Run ``work`` for the match; an unexpected failure is logged and it starts again after a
        wait, while the match is this process's, so that the match never stalls."""
        failures = 0
        while True:
            try:
                await work(match)
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                log_failure("%s of match %s failed; trying again", what, match.id)
                await asyncio.sleep(BOT_RETRY_SECONDS[min(failures, len(BOT_RETRY_SECONDS) - 1)])
                failures += 1
                if self.matches.get(match.id) is not match:
                    return

    async def _watch_absent(self, match: LiveMatch) -> None:
        """Sleep until the next grace period ends; then tell everyone, and with no other person
        present, give the absent seats to a bot so that the match goes on."""
        told: set[int] = set()
        while match.status == "running" and not match.correspondence:  # there only the clock decides
            connected = {c.seat for c in match.clients} | match.elsewhere
            away = {
                i: s.away_since
                for i, s in enumerate(match.seats)
                if s.held and s.away_since is not None and i not in connected
            }
            if not away:
                return
            now = self.now()
            due = [i for i in away if match.abandoned(i, now)]
            if not due:
                wake = min(away.values()) + match.grace_seconds - now
                await asyncio.sleep(max(0.05, wake))
                continue
            # A seat connected through another process is present (its grace starts over there).
            elsewhere = {i for i in away if await self._present_elsewhere(match, i)}
            due = [i for i in due if i not in elsewhere]
            # Who is present to decide: a seat out of the game (MK-10) has no stake left in it,
            # and one absent past its grace goes to a bot even while others are present (nobody
            # may claim against it).
            present = [
                i
                for i, s in enumerate(match.seats)
                if s.held and (i not in away or i in elsewhere) and not match.state.is_out(i)
            ]
            to_bots = [i for i in due if not present or match.state.is_out(i)]
            if to_bots:
                async with match.lock:
                    for seat in to_bots:
                        if match.abandoned(seat):
                            await self._to_bot(match, seat)
                await self._changed(match)
                self._schedule_bots(match)
                continue
            if set(due) - told:
                told |= set(due)
                await self._changed(match)  # the others may now give the seat away or claim
            await asyncio.sleep(max(1.0, match.grace_seconds / 10))

    async def _present_elsewhere(self, match: LiveMatch, seat: int) -> bool:
        """Whether another server process has this seat connected (then its grace starts over)."""
        if self.fanout is None or not await self.fanout.present(match.id, seat):
            return False
        match.seats[seat].away_since = self.now()
        return True

    async def _on_remote_presence(self, match_id: str) -> None:
        """A seat arrived at or left another process: if this process serves the match, read again
        which seats are connected elsewhere (one read of Redis, no query)."""
        if self.fanout is None or match_id not in self.matches:
            return
        seats = await self.fanout.elsewhere(match_id)
        match = self.matches.get(match_id)
        if match is not None:
            self._connected_elsewhere(match, seats)

    async def refresh_presence(self) -> None:
        """The sweep's round: renew the notes of the seats connected here, and read which are
        connected elsewhere (a note missed, a process gone without taking its notes back)."""
        if self.fanout is None:
            return
        live = list(self.matches.values())
        here = {m.id: sorted({c.seat for c in m.clients if c.seat is not None}) for m in live}
        seen = await self.fanout.refresh(here)
        if seen is None:
            return  # Redis away: what each match knew stands until the next round
        for match in live:
            if self.matches.get(match.id) is match:
                self._connected_elsewhere(match, seen.get(match.id, set()))

    def _connected_elsewhere(self, match: LiveMatch, seats: set[int] | None) -> None:
        """These seats are connected to other processes now (None: unknown, nothing changes).  One
        that arrived there is present, its grace over; one that left everywhere is away from now
        on, watched here too; and this process's clients are told when what they see changes."""
        if seats is None:
            return
        seats = {seat for seat in seats if 0 <= seat < len(match.seats)}
        if seats == match.elsewhere:
            return
        here = {c.seat for c in match.clients if c.seat is not None}
        before = here | match.elsewhere
        arrived, left = seats - match.elsewhere, match.elsewhere - seats - here
        match.elsewhere = seats
        for seat in arrived:
            match.seats[seat].away_since = None
        now = self.now()
        for seat in left:
            if match.seats[seat].held:
                match.seats[seat].away_since = now
        if left:
            self._watch_away(match)
        if here | seats != before:
            self._send_presence(match, everyone=True)

    async def expire_open(self) -> int:
        """Open matches older than the expiry leave the lobby; how many."""
        limit = datetime.now(UTC) - timedelta(seconds=self.limits.open_expiry_seconds)
        ids = await asyncio.to_thread(self.storage.stale_open_matches, limit)
        end = {"reason": "expired", "seats": [], "winners": []}
        expire = partial(self.storage.end_match, end=end, status="expired", was="open")
        expired = 0
        for match_id in ids:
            live = self.matches.get(match_id)
            if live is None:
                done, _ = await asyncio.to_thread(expire, match_id)
                expired += done
                if done and self.fanout is not None:
                    await self.fanout.publish(match_id)  # another process may hold it
                continue
            async with live.lock:  # not while its last seat is being taken
                if live.status != "open" or not (await asyncio.to_thread(expire, match_id))[0]:
                    continue
                live.status, live.end = "expired", end
            expired += 1
            await self._changed(live)
        return expired

    # -- bots and clocks ----------------------------------------------------------------------
    def _schedule_bots(self, match: LiveMatch) -> None:
        """Start the bots' turns (and a per-turn clock's start) unless nothing is theirs to do: a
        person to move in a match without a per-turn clock, as after most people's moves; or its
        bots are left to another process, which has moved for them lately."""
        if match.status != "running" or match.state.is_terminal():
            return
        if match.bots_elsewhere_since is not None:
            if time.monotonic() - match.bots_elsewhere_since < self._bots_quiet():
                return
            match.bots_elsewhere_since = None  # nothing from there for long: that process is gone
        if match.seats[match.state.current_player].kind == HUMAN and not match.turn_seconds:
            return
        if match.bot_task is None or match.bot_task.done():
            match.bot_task = asyncio.get_running_loop().create_task(self._bots_forever(match))

    def _bot_rng(self, match: LiveMatch, purpose: str, seat: int, version: int) -> random.Random:
        """The randomness of one bot decision: from the match's secret (older matches: their seed)."""
        if match.chance == LEGACY_CHANCE:
            factor = 7919 if purpose == "clock" else 1_000_003
            return random.Random((match.seed * factor + version) % (2**31))
        if match.seeded:  # a practice deal replays whole: the same moves meet the same bot replies
            return Chance(match.seed, f"server/{purpose}/{seat}/{version}")
        return match.secret_stream(f"{purpose}/{seat}/{version}")

    async def _decide(self, match: LiveMatch, seat: int, kind: str, purpose: str) -> int:
        """One bot decision for ``seat`` at the current version (a level that fails gives way)."""
        state = match.state
        observation, legal = state.observation(seat), state.legal_actions()
        rng = self._bot_rng(match, purpose, seat, match.version)
        name, options = match.game.name, match.game.options

        def job(level: str) -> Job:
            return partial(
                bot_move, name, options, level, seat, observation=observation, legal=legal, rng=rng
            )

        where = f"match {match.id} seat {seat} version {match.version}"
        action, _level = await decide(
            self.bots,
            match.queue_owner,
            job,
            kind=kind,
            legal=legal,
            fallback_rng=rng,
            where=where,
            fields={"match": match.id, "seat": seat},
        )
        return action

    async def _bots_forever(self, match: LiveMatch) -> None:
        """Play the bots' turns; an unexpected failure (not a bot's: those give way to a lower level)
        is logged and the loop starts again after a wait, so the match never stalls."""
        await self._until_done(match, self._run_bots, "the bot loop")

    async def _run_bots(self, match: LiveMatch) -> None:
        while match.status == "running" and not match.state.is_terminal():
            seat = match.state.current_player
            kind = match.seats[seat].kind
            if kind == HUMAN:
                if match.turn_seconds:
                    self._start_clock(match)
                    await self.broadcast(match)  # with the new deadline
                return
            version, remote = match.version, match.moves_from_elsewhere
            action = await self._decide(match, seat, kind, "bot")
            async with match.lock:
                if match.version != version:
                    if self._left_to_another_process(match, remote):
                        return
                    continue
                try:
                    await self._commit(match, seat, action, version)
                except ServerError as refused:
                    if refused.code == "stopping":
                        return  # the server is stopping, and these bots with it
                    if match.version != version:
                        if self._left_to_another_process(match, remote):
                            return  # another process moved first
                        continue  # look again
                    failed = True  # nothing changed: the move is tried again after a pause
                else:
                    failed = False
            if failed:
                await asyncio.sleep(BOT_REFUSED_SECONDS)
                continue
            await self.broadcast(match)

    def _left_to_another_process(self, match: LiveMatch, remote: int) -> bool:
        """Whether this process now leaves the match's bots to another: it does once another
        process made a move while this one's bot thought (``remote``: its count of such moves
        then), since two processes both thinking for them (after a restart, or with the players of
        one match on both) would each think every move, to commit half.  Its moves still reach
        this process and its clients here, and they do not start the bots here again
        (:meth:`_schedule_bots`) until nothing has come from there for as long as the sweep waits
        before taking up a stalled match: that process is gone.  A move made here meanwhile (a
        person's clock running out) is no reason to stop."""
        if self.fanout is None or match.moves_from_elsewhere == remote:
            return False
        match.bots_elsewhere_since = time.monotonic()
        return True

    def _bots_quiet(self) -> float:
        """How long a bot's turn may go unplayed before its process counts as gone."""
        return max(STALLED_SECONDS, 3 * self.limits.bot_timeout)

    def take_back_bots(self) -> int:
        """The sweep's part: start again the bots this process left to another one that has not
        moved for them for :meth:`_bots_quiet` (it died with the match in memory here, where the
        sweep's ``adopt_stalled`` does not look); how many."""
        now, quiet = time.monotonic(), self._bots_quiet()
        due = [
            m
            for m in self.matches.values()
            if m.bots_elsewhere_since is not None and now - m.bots_elsewhere_since >= quiet
        ]
        for match in due:
            self._schedule_bots(match)
        return len(due)

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
        running = match.clock_task is not None and not match.clock_task.done()
        if running and match.turn_deadline is not None and match.turn_clock_for == (match.version, seat):
            return  # this turn's clock runs already: a bot taking another seat does not reset it
        # The deadline stored with the move that began this turn (or with the match's start), so a
        # restart or another server process gives no one a fresh turn.
        fresh = match.deadline is None  # none stored (a seat a person took back, an older row)
        deadline = match.turn_clock_deadline()
        if deadline is None:
            return
        match.turn_deadline = deadline  # and match.deadline once stored: until then, storage's
        match.turn_clock_for = (match.version, seat)
        if match.clock_task is not None:
            match.clock_task.cancel()
        match.clock_task = asyncio.get_running_loop().create_task(
            self._clock(match, match.version, seat, deadline, store=fresh)
        )

    async def _clock(
        self, match: LiveMatch, version: int, seat: int, deadline: float, *, store: bool
    ) -> None:
        if store:
            kept = await self._write(partial(self.storage.set_turn_deadline, match.id, deadline, version))
            deadline = kept if kept is not None else deadline  # another process's, if it was first
            if match.version == version:
                match.turn_deadline = match.deadline = deadline
        else:
            match.deadline = deadline
        await asyncio.sleep(max(0.0, deadline - self.now()))
        if match.version != version or match.status != "running" or match.seats[seat].kind != HUMAN:
            return  # the player moved in time, or a bot plays the seat now
        action = await self._decide(match, seat, "greedy", "clock")
        async with match.lock:
            if match.version != version or match.seats[seat].kind != HUMAN:
                return
            try:
                await self._commit(match, seat, action, version)
            except ServerError:
                return
        await self.broadcast(match)
        self._schedule_bots(match)

    def _out_of_time(self, match: LiveMatch) -> bool:
        return (
            match.status == "running"
            and match.clock is not None
            and match.deadline is not None
            and self.now() >= match.deadline
        )

    def _arm(self, match: LiveMatch) -> None:
        """Wake when the person to move runs out of time.  The deadline is in storage too: after a
        restart, or for a match that left memory, the sweep finds it (:meth:`check_deadlines`)."""
        if match.clock is None:
            return  # no clock, or the per-turn clock, which keeps its own task
        task = match.clock_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        if match.deadline is not None and match.status == "running":
            match.clock_task = asyncio.get_running_loop().create_task(
                self._time_out_at(match, match.deadline)
            )

    async def _time_out_at(self, match: LiveMatch, deadline: float) -> None:
        while match.deadline == deadline and match.status == "running":
            wait = deadline - self.now()
            if wait <= 0:
                await self.time_out(match)
                return
            await asyncio.sleep(min(wait + 0.01, CLOCK_POLL))

    async def time_out(self, match: LiveMatch) -> bool:
        """If the person to move has run out of time: they lose (the match ends, reason ``time``), or a
        bot takes their seat and plays on, as the match chose.  True if it happened."""
        async with match.lock:
            if self.fanout is not None and self._out_of_time(match):
                await self._catch_up_and_show(match)  # a move made elsewhere in time, not heard of yet
            if not self._out_of_time(match) or match.clock is None:
                return False
            seat, version = match.state.current_player, match.version
            # A seat already out (MK-10) that still has a choice to make loses nothing more: a bot
            # makes it, whatever the match chose, and the others play on.
            lose = match.clock["at_zero"] == "lose" and not match.state.is_out(seat)
            if not lose:
                await self._to_bot(match, seat, why="ran out of time")
        if lose:
            try:
                lost = partial(ended, match.game, "time", [seat], out_seats(match.state))
                await self._end(match, lost, "", if_at=version)
            except ServerError:
                return False  # another process ended it first
        else:
            await self._changed(match)
            self._schedule_bots(match)
        return True

    async def check_deadlines(self) -> int:
        """Every running match whose player to move has run out of time, in storage: how many were
        timed out now.  The sweep calls it; so do tests, which drive the registry's clock."""
        ids = await asyncio.to_thread(self.storage.due, self.now())
        done = 0
        for match_id in ids:
            try:
                match = await self.get(match_id)
            except ServerError:
                continue  # a match whose rules are gone cannot be resumed
            except Exception:  # one match that cannot be read must not stop every later one's clock
                log_failure("match %s: timing out its late player failed; trying again later", match_id)
                continue
            if match.turn_seconds:  # the per-turn clock's own task plays the late turn, once loaded
                self._schedule_bots(match)
                continue
            try:
                timed_out = await self.time_out(match)
            except ServerError:
                continue  # ended or moved meanwhile
            except Exception:
                log_failure("match %s: timing out its late player failed; trying again later", match_id)
                continue
            if timed_out:
                done += 1
        return done

    # -- chat ---------------------------------------------------------------------------------
    async def say(self, match: LiveMatch, client: Client, text: Any) -> None:
        """Store a chat line from a connection and hand it to everyone who may read its channel."""
        text = clean(text)
        seat = client.seat
        player_id: str | None
        if seat is None:
            if client.player is None:
                raise ServerError(
                    401, "sign_in_to_chat", "sign in (as a guest will do) to chat as a spectator"
                )
            channel, name, player_id = SPECTATORS, client.player.name, client.player.id
        else:
            info = match.seats[seat]
            channel, name, player_id = PLAYERS, info.name or f"seat {seat + 1}", info.player_id
        if player_id is not None:
            row = await asyncio.to_thread(self.storage.player, player_id)
            if row is None or row.disabled:
                raise ServerError(403, "account_disabled", "this account is disabled: it may not chat")
        async with match.lock:
            # The seat may have changed hands while the account was read: the line is said by the
            # connection's own person, or not at all.
            if not client.holds(match) or (seat is not None and match.seats[seat].player_id != player_id):
                self._seat_lost(match, client)
                raise ServerError(409, "seat_changed", "this connection's seat changed: connect again")
            line = ChatRow(
                match_id=match.id,
                channel=channel,
                seat=seat,
                player_id=player_id,
                name=name if seat is None else match.seats[seat].name or f"seat {seat + 1}",
                text=text,
                version=match.version,
                created=datetime.now(UTC),
            )
            match.chat_empty, match.chat_news = False, match.chat_news + 1
            line = await self._write(partial(self.storage.add_chat, line))
        self._deliver_line(match, line)
        if self.fanout is not None:
            await self.fanout.said(match.id, line.id)

    def _deliver_line(self, match: LiveMatch, line: ChatRow) -> None:
        text = json_text(live_line(line))
        for client in list(match.clients):
            signed = client.player is not None
            if not readable(line.channel, client.seat, match.status, signed=signed):
                continue
            if client.histories_reading:
                client.lines_held.append(line)
            elif not client.deliver(text):
                self._gone(match, client)

    async def _on_remote_chat(self, match_id: str, line_id: int) -> None:
        """Another process stored a chat line: this process's connections to the match get it."""
        match = self.matches.get(match_id)
        if match is None:
            return
        match.chat_empty, match.chat_news = False, match.chat_news + 1
        line = await asyncio.to_thread(self.storage.chat_line, line_id)
        if line is not None and line.match_id == match_id and not line.deleted:
            self._deliver_line(match, line)

    async def chat_lines(
        self, match: LiveMatch, seat: int | None, *, signed: bool
    ) -> dict[str, list[dict[str, Any]] | None]:
        """The chat a seat (None: a spectator; ``signed``: with a session) may read, by channel (None:
        a channel it may not)."""
        rows = await asyncio.to_thread(self.storage.chat, match.id)
        return {
            channel: [line_json(r) for r in rows if r.channel == channel]
            if readable(channel, seat, match.status, signed=signed)
            else None
            for channel in CHANNELS
        }

    async def _chat_rows(self, match: LiveMatch) -> list[ChatRow]:
        """The match's chat lines; no read of storage while the match is known to have none (each
        new table's connections would otherwise read an empty chat, one query each)."""
        if match.chat_empty:
            return []
        news = match.chat_news
        rows = await asyncio.to_thread(self.storage.chat, match.id)
        if not rows and match.chat_news == news:
            match.chat_empty = True
        return rows

    async def _send_chat(
        self, match: LiveMatch, client: Client | None = None, *, players_only: bool = False
    ) -> None:
        """The chat history: to one connection (connect, sync), or, once the match is over, the
        spectators' to those who could not read it before (players, spectators without a session)."""
        if client is not None:
            client.histories_reading += 1
            try:
                rows = await self._chat_rows(match)
            finally:
                client.histories_reading -= 1
        else:
            rows = await self._chat_rows(match)
        targets = (
            [client]
            if client is not None
            else [c for c in match.clients if c.seat is not None or c.player is None]
        )
        for target in targets:
            for channel in CHANNELS:
                if players_only and channel == PLAYERS:
                    continue
                lines = [line_json(r) for r in rows if r.channel == channel]
                signed = target.player is not None
                if lines and readable(channel, target.seat, match.status, signed=signed):  # none: no message
                    target.deliver({"type": "chat", "channel": channel, "history": True, "lines": lines})
        if client is not None and not client.histories_reading and client.lines_held:
            told = {r.id for r in rows}
            held, client.lines_held = client.lines_held, []
            for line in held:
                if line.id not in told:  # said after the history was read: it comes after it
                    client.deliver(live_line(line))

    # -- views --------------------------------------------------------------------------------
    async def broadcast(self, match: LiveMatch) -> None:
        """Hand every connection its view (see :meth:`deliver_views`)."""
        self.deliver_views(match)

    def deliver_views(self, match: LiveMatch) -> None:
        """Hand every connection its view: one JSON text per seat, queued without waiting, the
        players' first (their writers then run before a crowd of spectators' do)."""
        texts: dict[tuple[int | None, int | None], str] = {}
        summary = match.summary() if match.clients else None
        for client in sorted(match.clients, key=lambda c: c.seat is None):
            if not client.holds(match):
                self._seat_lost(match, client)
                continue
            eyes = (client.seat, client.held)
            if eyes not in texts:
                texts[eyes] = json_text(match.view(client.seat, summary, held=client.held))
            if not client.deliver(texts[eyes]):
                self._gone(match, client)

    async def connect(self, match: LiveMatch, client: Client) -> None:
        """Add a connection (a spectator only while the match has room) and send it its view."""
        if not client.holds(match):  # the seat changed hands while the connection was being checked
            raise ServerError(409, "seat_changed", "this seat changed hands as you connected: connect again")
        if client.seat is None:
            watching = sum(1 for c in match.clients if c.seat is None)
            if watching >= self.limits.max_spectators:
                raise ServerError(
                    429,
                    "too_many_spectators",
                    f"this match has its {self.limits.max_spectators} spectators; try again later",
                    retry_after=30,
                )
        match.clients.add(client)
        match.last_used = time.monotonic()
        if client.seat is not None:
            match.seats[client.seat].away_since = None
        # Its view first: while the arrival is told to the other processes, another seat's may be
        # told to every connection here, and a connection's first message is its view.
        client.deliver(match.view(client.seat, held=client.held))
        if client.seat is not None and self.fanout is not None:  # the other processes' see it arrive
            await self.fanout.arrived(match.id, client.seat)
        self._presence_changed(match, client)
        await self._send_chat(match, client)

    async def disconnect(self, match: LiveMatch, client: Client) -> None:
        self._gone(match, client)
        seat = client.seat
        if self.fanout is not None and seat is not None and not any(c.seat == seat for c in match.clients):
            await self.fanout.gone(match.id, seat)

    def _gone(self, match: LiveMatch, client: Client) -> None:
        """A connection left the match: closed, or dropped for falling behind (then its socket
        closes later, and this has been done already).  Its seat is away from now on when no other
        connection holds it, so its grace period runs and the match cannot wait for it forever."""
        if client not in match.clients:
            return
        match.clients.discard(client)
        match.last_used = time.monotonic()
        seat = client.seat
        if (
            seat is not None
            and seat not in match.elsewhere
            and not any(c.seat == seat for c in match.clients)
        ):
            match.seats[seat].away_since = self.now()
            self._watch_away(match)
        self._presence_changed(match, None if client.seat is None else client)

    def _seat_lost(self, match: LiveMatch, client: Client) -> None:
        """Close a connection whose seat changed: left, someone else's now (it must not see that
        seat's next secrets nor play for its next holder), or a spectator's whose player now holds
        a seat.  It may connect again, as what it holds now."""
        client.deliver(
            {
                "type": "error",
                "code": "seat_changed",
                "message": "this connection's seat changed (left, taken by another, or now yours): reconnect",
            }
        )
        client.close_after_sending(SEAT_CHANGED_CLOSE)
        self._gone(match, client)

    async def sync(self, match: LiveMatch, client: Client) -> None:
        """Answer a ``sync``: the current view and the chat, to the asking connection only."""
        if not client.holds(match):
            self._seat_lost(match, client)
            return
        client.deliver(match.view(client.seat, held=client.held))
        await self._send_chat(match, client)

    def _presence_changed(self, match: LiveMatch, client: Client | None) -> None:
        """Tell who is connected.  A player's arrival or departure goes to every connection at once;
        a spectator's goes to that spectator, and to the players at most every PRESENCE_DELAY: a
        crowd of spectators costs messages in proportion to its size, not to its square."""
        if client is not None and client.seat is not None:
            self._send_presence(match, everyone=True)
            return
        if client is not None:
            client.deliver(presence_of(match), newest_only=True)
        if match.presence_task is None or match.presence_task.done():
            match.presence_task = asyncio.get_running_loop().create_task(self._presence_later(match))

    async def _presence_later(self, match: LiveMatch) -> None:
        await asyncio.sleep(PRESENCE_DELAY)
        self._send_presence(match, everyone=False)

    def _send_presence(self, match: LiveMatch, *, everyone: bool) -> None:
        text = json_text(presence_of(match))
        for client in list(match.clients):
            if (everyone or client.seat is not None) and not client.deliver(text, newest_only=True):
                self._gone(match, client)


def _copy_row(match: LiveMatch, row: MatchRow) -> None:
    """The match's lifecycle fields as storage has them."""
    match.rated = bool(row.rated)
    match.clock, match.deadline, match.ratings = row.clock, row.deadline, row.ratings
    if match.turn_seconds:
        match.turn_deadline = row.deadline
    match.private = bool(row.private)
    match.created = aware(row.created)
    match.finished = None if row.finished is None else aware(row.finished)
    match.end = row.end
    match.rematch = row.rematch


def _player_info(seat: Seat | SeatRow, kind: str | None = None) -> dict[str, Any] | None:
    if seat.player_id is None:
        return None
    kind = kind if kind is not None else getattr(seat, "player_kind", None)
    return {"id": seat.player_id, "name": seat.name, "kind": kind}


def ended(game: Game, reason: str, losers: list[int], out: Sequence[int] = ()) -> dict[str, Any]:
    """How a match that did not reach its end ended: ``losers`` (and their teams) lose, and so do
    the seats already ``out`` of the game (MK-10); every other seat wins.  An aborted match has no
    winner."""
    if reason == "aborted":
        return {"reason": reason, "seats": [], "winners": []}
    teams = {game.team_of(seat) for seat in losers}
    seats = [s for s in range(game.num_players) if game.team_of(s) in teams or s in out]
    winners = [s for s in range(game.num_players) if s not in seats]
    return {"reason": reason, "seats": seats, "winners": winners}


def out_seats(state: State) -> list[int]:
    """The seats that have lost already while the others play on (MK-10)."""
    return [s for s in range(state.game.num_players) if state.is_out(s)]


def hints_allowed(rated: bool, kinds: list[str]) -> bool:
    """Hints help nobody against another person: only casual matches where every other seat is a bot."""
    return not rated and kinds.count(HUMAN) == 1


def presence_of(match: LiveMatch) -> dict[str, Any]:
    return {"type": "presence", "match": match.summary()}


def row_summary(
    row: MatchRow, seats: list[SeatRow], version: int, kinds: dict[str, str], grace_seconds: float
) -> dict[str, Any]:
    """A lobby entry from storage alone, as :meth:`LiveMatch.summary` writes it (nobody connected;
    ``kinds``: the kind of each player seated)."""
    team_of: Callable[[int], int] = int  # every seat its own team, for a game this build lacks
    try:
        title = game_class(row.game).title
        if game_class(row.game).team_of is not Game.team_of:  # a game with teams (building one costs)
            team_of = game_class(row.game)(row.options).team_of
    except EngineError:
        title = row.game
    return {
        "id": row.id,
        "game": row.game,
        "title": title,
        "options": row.options,
        "status": row.status,
        "version": version,
        "rematch_of": row.rematch_of,
        "turn_seconds": row.turn_seconds or 0,
        "turn_deadline": row.deadline if row.turn_seconds and row.status == "running" else None,
        "seeded": bool(row.seeded),
        "private": bool(row.private),
        "created": aware(row.created).isoformat(),
        "finished": None if row.finished is None else aware(row.finished).isoformat(),
        "end": row.end,
        "rematch": row.rematch,
        "can_abort": False,
        "grace_seconds": grace_seconds,
        "rated": bool(row.rated),
        "hints": hints_allowed(bool(row.rated), [s.kind for s in seats]),
        "clock": _stored_clock(row, seats),
        "ratings": row.ratings,
        "seats": [
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": s.name,
                "taken": s.kind != HUMAN or s.token_hash is not None or s.player_id is not None,
                "connected": False,
                "player": _player_info(s, kinds.get(s.player_id or "")),
                "away_since": None,
                "abandoned": False,
                "person": s.token_hash is not None or s.player_id is not None,
                "team": team_of(s.seat),
                "out": False,  # said while a match is played, by its live summary (a listing replays nothing)
            }
            for s in seats
        ],
        "spectators": 0,
    }


def _stored_clock(row: MatchRow, seats: list[SeatRow]) -> dict[str, Any] | None:
    """A lobby entry's clock, from storage alone."""
    now = time.time()
    playing = [s.kind == HUMAN for s in seats]
    if row.clock is not None and "remaining" not in row.clock:
        return {**row.clock, "remaining": None, "running": None, "deadline": None, "now": now}
    to_move = row.to_move if row.status == "running" else None
    turn_deadline = row.deadline if row.turn_seconds else None
    return clocks.summary(
        row.clock, to_move, playing, now, turn_seconds=row.turn_seconds or 0, turn_deadline=turn_deadline
    )
