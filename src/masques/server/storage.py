"""Durable, event-sourced storage: a match is its options, seed, seats and action log.

State is never stored: it is rebuilt by replaying the log (and cached in memory by the match
registry).  An action is acknowledged only after its row is committed, so a crash loses nothing
that a client was told had happened.  The schema is managed by Alembic migrations shipped in the
package and applied on start.  SQLite (WAL mode) by default; PostgreSQL with a
``postgresql+psycopg://`` URL.

SQLite runs with ``synchronous=FULL``: in WAL mode NORMAL may lose the last commits on power loss,
and a commit is an acknowledgement here.  One server process owns a SQLite file (:class:`FileOwner`);
several processes share matches only through PostgreSQL (and Redis).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    UniqueConstraint,
    and_,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker
from sqlalchemy.sql.expression import Executable

from ..engine.records import GameRecord
from ..extras import require
from .clocks import CORRESPONDENCE
from .ratings import BOT_PREFIX, Skill, bot_start, family_of, is_bot, newcomer, rate

_T = TypeVar("_T")

MIGRATIONS = Path(__file__).with_name("migrations")


class Base(DeclarativeBase):
    pass


def _now() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    rules_version: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(Integer)  # the game's seed for chance 1 (older matches)
    status: Mapped[str] = mapped_column(String(16), default="open")  # open, running, finished
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    rematch_of: Mapped[str | None] = mapped_column(String(32), nullable=True)
    turn_seconds: Mapped[int] = mapped_column(Integer, default=0)  # per-turn clock, 0 = none
    secret: Mapped[str | None] = mapped_column(String(64), nullable=True)  # hex; never leaves the server
    game_seed: Mapped[str | None] = mapped_column(String(80), nullable=True)  # decimal, chance >= 2
    chance: Mapped[int] = mapped_column(Integer, default=1)  # the chance generator's version
    seeded: Mapped[bool] = mapped_column(Boolean, default=False)  # the creator chose the seed
    owner: Mapped[str | None] = mapped_column(String(40), nullable=True)  # the creating client's key
    private: Mapped[bool] = mapped_column(Boolean, default=False)  # joined by invite only, not listed
    finished: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    end: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # how it ended, who won
    rematch: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # the one offer
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # clocks.py's, running
    deadline: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)  # epoch s
    to_move: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the seat to act
    ratings: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)  # per seat, once rated

    @property
    def the_seed(self) -> int:
        """The game's seed, whichever column holds it."""
        return int(self.game_seed) if self.game_seed is not None else int(self.seed)


class SeatRow(Base):
    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("match_id", "seat"),
        # one player, one seat: a guest's seats handed to the account it logs in to cannot meet a
        # seat the account takes at the same moment (migration 0010)
        Index(
            "uq_seats_match_player",
            "match_id",
            "player_id",
            unique=True,
            sqlite_where=text("player_id IS NOT NULL"),
            postgresql_where=text("player_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # human or a bot kind
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    join_key: Mapped[str | None] = mapped_column(String(64), nullable=True)  # hash of an Idempotency-Key
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), nullable=True, index=True)


class PlayerRow(Base):
    """A person: an account (username and password) or a guest (a cookie only)."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)  # public (player pages)
    kind: Mapped[str] = mapped_column(String(8))  # guest, account
    name: Mapped[str] = mapped_column(String(40))  # shown at the table; an account's is its username
    username_key: Mapped[str | None] = mapped_column(String(40), nullable=True, unique=True)  # casefolded
    # how the username looks (security.skeleton): "paul" and "pauI" cannot both be taken
    username_look: Mapped[str | None] = mapped_column(String(40), nullable=True, unique=True, index=True)
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class AuthSessionRow(Base):
    """A signed-in browser: the cookie's token is stored hashed, so a copy of the database signs no one in."""

    __tablename__ = "auth_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class LoginDeviceRow(Base):
    """A browser that logged in to an account (its cookie's token, hashed; one browser may know
    several accounts): another address's failed guesses at the username do not lock it out."""

    __tablename__ = "login_devices"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    last_used: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class SiteSecretRow(Base):
    """A secret of the site, made at random by a migration: the same for every process on the
    database, never shown (``client_key``: the key of the clients' names in logs and storage)."""

    __tablename__ = "site_secrets"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class RatingRow(Base):
    """A player's (or a bot level's: ``bot:<level>``) rating in one game and family."""

    __tablename__ = "ratings"

    player_key: Mapped[str] = mapped_column(String(24), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    family: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class RatingEventRow(Base):
    """One rating after one rated match (the points of a rating graph)."""

    __tablename__ = "rating_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_key: Mapped[str] = mapped_column(String(24))
    game: Mapped[str] = mapped_column(String(32))
    family: Mapped[str] = mapped_column(String(16))
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    change: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ChatRow(Base):
    """One chat line: ``channel`` players or spectators; ``seat`` the player's, None for a spectator."""

    __tablename__ = "chat_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    channel: Mapped[str] = mapped_column(String(12))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(String(2000))
    version: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)


class AnalysisRow(Base):
    """A finished match's analysis for one seat (``body`` as the API sends it), kept once computed;
    ``shared``: its player lets anyone read it."""

    __tablename__ = "analyses"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    level: Mapped[str] = mapped_column(String(16))
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    shared: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ActionRow(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("match_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)  # 0-based position in the log = the version it made
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()  # any text: no seat's


# The statements of a move, built once (the commonest write: no ORM, no statement to build).
_ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
_MATCHES: Table = MatchRow.__table__  # type: ignore[assignment]
_SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
FREE_SEATS = select(_SEATS.c.seat).where(
    _SEATS.c.match_id == bindparam("the_match"),
    _SEATS.c.kind == "human",
    _SEATS.c.token_hash.is_(None),
    _SEATS.c.player_id.is_(None),
)
CLAIM_SEAT = (
    update(_SEATS)
    .where(
        _SEATS.c.match_id == bindparam("the_match"),
        _SEATS.c.seat == bindparam("the_seat"),
        _SEATS.c.kind == "human",
        _SEATS.c.token_hash.is_(None),
        # seats are taken while the match is open (expired meanwhile, by another process: none)
        select(_MATCHES.c.id)
        .where(_MATCHES.c.id == bindparam("the_match"), _MATCHES.c.status == "open")
        .exists(),
    )
    .values(
        name=bindparam("new_name"),
        token_hash=bindparam("new_token_hash"),
        join_key=bindparam("new_join_key"),
        player_id=bindparam("new_player_id"),
    )
)
_AUTH_SESSIONS: Table = AuthSessionRow.__table__  # type: ignore[assignment]
GUEST_SESSION = select(_AUTH_SESSIONS.c.token_hash).where(
    _AUTH_SESSIONS.c.token_hash == bindparam("the_session"),
    _AUTH_SESSIONS.c.player_id == bindparam("new_player_id"),
)
"""The session a guest's claim is made in, while it lives: a log-in that hands the guest's seats
to an account ends that session in the transaction that moves them."""
CLAIM_SEAT_IN_SESSION = CLAIM_SEAT.where(GUEST_SESSION.exists())
INSERT_LIVE_ACTIONS = text(
    "INSERT INTO actions (match_id, number, seat, action, created) SELECT :match_id, :number, :seat,"
    " CASE WHEN (SELECT status FROM matches WHERE id = :match_id) IN ('finished', 'expired') THEN NULL"
    " ELSE :action END, :created"
)
"""Moves (SQLite): a move of a match that has ended gets no action, which the NOT NULL column refuses,
so the batch fails as when a version is taken; the status is read in the same statement."""
APPEND_ACTIONS_SQLITE = """
INSERT INTO actions (match_id, number, seat, action, created)
SELECT json_extract(m.value, '$[0]'), json_extract(m.value, '$[1]'), json_extract(m.value, '$[2]'),
    CASE WHEN (SELECT status FROM matches WHERE id = json_extract(m.value, '$[0]'))
        IN ('finished', 'expired') THEN NULL ELSE json_extract(m.value, '$[3]') END,
    :created
FROM json_each(:moves) AS m
"""
"""Moves without a turn's clock (SQLite): the batch in one statement, its own transaction."""
SET_TURN = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("row"))
    .values(
        clock=bindparam("new_clock"), deadline=bindparam("new_deadline"), to_move=bindparam("new_to_move")
    )
)


START_MATCH = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("the_match"), _MATCHES.c.status == "open")
    .values(
        status="running",
        clock=bindparam("new_clock"),
        deadline=bindparam("new_deadline"),
        to_move=bindparam("new_to_move"),
    )
)
INSERT_ACTION = insert(_ACTIONS)
INSERT_MATCH = insert(_MATCHES)
INSERT_SEAT = insert(_SEATS)


@functools.cache
def _end_unrated(with_turn: bool, with_end: bool) -> Any:
    """SQLite: the UPDATE that ends a match that has not ended and is not rated (see
    ``Storage._end_unrated_sqlite``), built once for each shape of last move."""
    values: dict[str, Any] = {"status": bindparam("new_status")}
    if with_turn:
        values.update(
            clock=bindparam("new_clock"), deadline=bindparam("new_deadline"), to_move=bindparam("new_to_move")
        )
    if with_end:
        values.update(end=bindparam("new_end"), finished=bindparam("new_finished"), deadline=None)
    return (
        update(_MATCHES)
        .where(
            _MATCHES.c.id == bindparam("the_match"),
            _MATCHES.c.status.not_in(ENDED),
            _MATCHES.c.rated.is_(False),
        )
        .values(**values)
    )


LOOK_TAKEN = select(PlayerRow.id).where(PlayerRow.username_look == bindparam("look")).limit(1)
"""An account whose username looks like the given skeleton (see ``Storage.account_looks_like``)."""


def _in_autocommit(engine: Engine, run: Callable[[Connection], _T]) -> _T:
    """Run one statement on an autocommit connection.  A connection found dropped (the database
    restarted) is replaced and the statement sent again once: it had not run."""
    for attempt in (1, 2):
        try:
            with engine.connect() as connection:
                return run(connection)
        except DBAPIError as exc:
            if attempt == 2 or not exc.connection_invalidated:
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _one_statement(engine: Engine, sql: str, params: dict[str, Any]) -> list[Any]:
    """Run one statement of SQL in autocommit; the rows it returns."""

    def run(connection: Connection) -> list[Any]:
        result = connection.exec_driver_sql(sql, params)
        return list(result.all()) if result.returns_rows else []

    return _in_autocommit(engine, run)


def _one_write(engine: Engine, statement: Executable, values: dict[str, Any]) -> int:
    """Run one write in autocommit (on the writing thread's own connection); the rows it changed."""
    return _in_autocommit(engine, lambda connection: int(connection.execute(statement, values).rowcount))


APPEND_ACTIONS_POSTGRES = """
WITH turned AS (
    UPDATE matches SET
        clock = CASE WHEN t.has_turn THEN t.clock::json ELSE matches.clock END,
        deadline = CASE WHEN t.has_turn THEN t.deadline ELSE matches.deadline END,
        to_move = CASE WHEN t.has_turn THEN t.to_move ELSE matches.to_move END
    FROM unnest(
        %(turn_ids)s::varchar[], %(has_turns)s::bool[], %(clocks)s::text[], %(deadlines)s::float8[],
        %(to_moves)s::int[]
    ) AS t(id, has_turn, clock, deadline, to_move)
    WHERE matches.id = t.id AND matches.status NOT IN ('finished', 'expired')
    RETURNING matches.id
)
INSERT INTO actions (match_id, number, seat, action, created)
SELECT m, n, s, CASE WHEN m IN (SELECT id FROM turned) THEN a END, %(created)s
FROM unnest(%(match_ids)s::varchar[], %(numbers)s::int[], %(seats)s::int[], %(actions)s::int[])
    AS x(m, n, s, a)
"""
"""A batch of moves on PostgreSQL: their matches' turns set and the actions inserted, in one
statement.  Only a match that has not ended takes its turn (the UPDATE waits for the row's lock and
reads its status again), and a move of a match that another process ended meanwhile gets no action,
which the NOT NULL column refuses: the whole batch fails, as when a version is taken."""

END_UNRATED_POSTGRES = """
WITH ended AS (
    UPDATE matches SET
        clock = CASE WHEN %(has_turn)s THEN %(clock)s::json ELSE clock END,
        to_move = CASE WHEN %(has_turn)s THEN %(to_move)s::int ELSE to_move END,
        deadline = CASE
            WHEN %(has_end)s THEN NULL WHEN %(has_turn)s THEN %(deadline)s::float8 ELSE deadline
        END,
        status = %(status)s,
        "end" = CASE WHEN %(has_end)s THEN %(end)s::json ELSE "end" END,
        finished = CASE WHEN %(has_end)s THEN %(finished)s::timestamptz ELSE finished END
    WHERE id = %(match_id)s AND NOT rated AND status NOT IN ('finished', 'expired')
    RETURNING id
)
INSERT INTO actions (match_id, number, seat, action, created)
SELECT id, %(number)s, %(seat)s, %(action)s, %(created)s FROM ended
RETURNING id
"""
"""A last move on PostgreSQL, with the match's end, in one statement, when the match is not rated:
nothing changes, and no row comes back, for a rated one or one that has ended (the row's lock is
waited for, and its status read again, by the UPDATE)."""


@dataclass(frozen=True)
class Turn:
    """Whose move it is and the clock that runs for them, as a match row keeps them."""

    to_move: int | None
    clock: dict[str, Any] | None = None
    deadline: float | None = None


@dataclass
class NewSeat:
    kind: str  # human or a bot kind
    name: str | None = None
    token_hash: str | None = None  # a held seat (a rematch's) keeps its holder's token
    player_id: str | None = None


@dataclass(frozen=True)
class Append:
    """One move of a running match to commit: its version's number, who made it, and the turn after."""

    match_id: str
    number: int
    seat: int
    action: int
    turn: Turn | None = None


@dataclass
class NewMatch:
    """Everything a new match's rows hold."""

    match_id: str
    game: str
    rules_version: str
    options: dict[str, Any]
    seed: int
    seats: list[NewSeat]
    rematch_of: str | None = None
    turn_seconds: int = 0
    secret: str | None = None
    chance: int = 1
    seeded: bool = False
    owner: str | None = None
    private: bool = False
    status: str = "open"
    created: datetime = field(default_factory=_now)
    rated: bool = False
    clock: dict[str, Any] | None = None
    deadline: float | None = None
    to_move: int | None = None


def _add_match(s: Session, spec: NewMatch) -> None:
    s.add(MatchRow(**_match_values(spec)))
    s.flush()  # the match row before its seats (PostgreSQL checks the foreign key at once)
    for values in _seat_values(spec):
        s.add(SeatRow(**values))


def _clock_set(match_id: str, turn: Turn) -> Any:
    """The match row's turn and clock set to ``turn``."""
    return (
        update(MatchRow)
        .where(MatchRow.id == match_id)
        .values(clock=turn.clock, deadline=turn.deadline, to_move=turn.to_move)
    )


def _match_values(spec: NewMatch) -> dict[str, Any]:
    """A new match's row (its columns set here; the others take their defaults)."""
    legacy = spec.chance == 1 and 0 <= spec.seed < 2**31
    return {
        "id": spec.match_id,
        "game": spec.game,
        "rules_version": spec.rules_version,
        "options": spec.options,
        "seed": spec.seed if legacy else 0,
        "game_seed": None if legacy else str(spec.seed),
        "status": spec.status,
        "rematch_of": spec.rematch_of,
        "turn_seconds": spec.turn_seconds,
        "secret": spec.secret,
        "chance": spec.chance,
        "seeded": spec.seeded,
        "owner": spec.owner,
        "private": spec.private,
        "created": spec.created,
        "rated": spec.rated,
        "clock": spec.clock,
        "deadline": spec.deadline,
        "to_move": spec.to_move,
    }


def _seat_values(spec: NewMatch) -> list[dict[str, Any]]:
    return [
        {
            "match_id": spec.match_id,
            "seat": number,
            "kind": seat.kind,
            "name": seat.name,
            "token_hash": seat.token_hash,
            "player_id": seat.player_id,
        }
        for number, seat in enumerate(spec.seats)
    ]


def _rate(s: Session, row: MatchRow, ranks: Sequence[float], at: datetime) -> list[Any]:
    """Rate every seat of a rated match that just ended, inside the transaction that ends it; the
    seats' ratings before and after.  A seat's rating is its person's (also when a bot finished the
    seat for them), or its bot level's."""
    seats = list(s.scalars(select(SeatRow).where(SeatRow.match_id == row.id).order_by(SeatRow.seat)))
    family = family_of(len(seats))
    keys = [seat.player_id or f"{BOT_PREFIX}{seat.kind}" for seat in seats]
    starts = {
        key: bot_start(row.game, family, key[len(BOT_PREFIX) :]) if is_bot(key) else newcomer()
        for key in keys
    }
    fresh = [
        {
            "player_key": key,
            "game": row.game,
            "family": family,
            "mu": skill.mu,
            "sigma": skill.sigma,
            "games": 0,
            "updated": at,
        }
        for key, skill in sorted(starts.items())
    ]
    insert = postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert
    s.execute(insert(RatingRow).values(fresh).on_conflict_do_nothing())  # first ratings, race-free
    held = {
        r.player_key: r
        for r in s.scalars(
            select(RatingRow)
            .where(RatingRow.player_key.in_(keys), RatingRow.game == row.game, RatingRow.family == family)
            .order_by(RatingRow.player_key)  # one order of locks: two matches ending cannot deadlock
            .with_for_update()
        )
    }
    before = [Skill(held[key].mu, held[key].sigma, held[key].games) for key in keys]
    after = rate(before, ranks, keys)
    first = dict(zip(keys, before, strict=True))
    for key, skill in after.items():
        rating = held[key]
        rating.mu, rating.sigma, rating.games, rating.updated = skill.mu, skill.sigma, skill.games, at
        s.add(
            RatingEventRow(
                player_key=key,
                game=row.game,
                family=family,
                match_id=row.id,
                mu=skill.mu,
                sigma=skill.sigma,
                change=skill.mu - first[key].mu,
                at=at,
            )
        )

    def shown(key: str, skill: Skill) -> dict[str, Any]:
        out = skill.to_json()
        if is_bot(key):  # its rating rests on the arena's games, not only the few here
            out["provisional"] = False
        return out

    return [
        {"before": shown(key, b), "after": shown(key, after[key]), "change": round(after[key].mu - b.mu, 3)}
        for key, b in zip(keys, before, strict=True)
    ]


ENDED = ("finished", "expired")
"""A match in these states takes no more actions (another process may have ended it meanwhile)."""

MIGRATION_LOCK_KEY = 0x6D61737175657301
"""The PostgreSQL advisory lock processes take turns on to migrate the database."""
LOCK_TIMEOUT_SECONDS = 10.0
"""The longest a PostgreSQL statement of the server waits for a lock before it fails."""
CONNECT_TIMEOUT_SECONDS = 5
"""The longest a new PostgreSQL connection may take before it fails."""
POSTGRES_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}
"""An open connection whose server went silent is found dead within about a minute."""


class Storage:
    """Thin repository over one database."""

    def __init__(self, url: str) -> None:
        self.url = url
        connect_args: dict[str, Any] = {}
        if url.startswith("sqlite"):
            connect_args = {"check_same_thread": False, "timeout": 30}
        if url.startswith("postgresql+psycopg"):
            require("psycopg", "a PostgreSQL database")
        if url.startswith("postgresql"):
            # A database host that stops answering must not hold a thread for minutes: a connection
            # is given up after CONNECT_TIMEOUT_SECONDS, an open one found dead by TCP keepalives.
            connect_args = {"connect_timeout": CONNECT_TIMEOUT_SECONDS, **POSTGRES_KEEPALIVES}
        # A server's connection can drop between two transactions; a SQLite file's cannot, and the
        # check would cost every move a query.
        ping = not url.startswith("sqlite")
        # hide_parameters: an error's message names its statement but not its values, which may be
        # a password's hash, a session's CSRF token or a seat token's hash, and errors are logged.
        self.engine: Engine = create_engine(
            url, connect_args=connect_args, pool_pre_ping=ping, hide_parameters=True
        )
        self._moves_engine: Engine | None = None
        sqlite_writes: Engine | None = None
        if url.startswith("postgresql"):
            # The moves' own connection (one thread writes them), in autocommit: a batch of moves is
            # one statement, so one round trip to the server.  Each round trip costs the writing
            # thread a wait for the interpreter lock on its way back, behind the event loop: a
            # transaction of five (a ping, BEGIN, two statements, COMMIT) made a move's commit wait
            # 20 to 70 ms at times in a busy process, where its own work took 1 ms.
            self._moves_engine = create_engine(
                url,
                connect_args=connect_args,
                pool_size=1,
                max_overflow=0,
                pool_pre_ping=False,
                isolation_level="AUTOCOMMIT",
                hide_parameters=True,
            )
        if sqlite_file(url) is not None:
            # The writer's own connection here too (``commits.py``), in autocommit, for the writes
            # that are one statement (a batch of moves, a seat claimed, a match started): each is
            # then its own transaction.  In one of its own, the driver gives up the interpreter lock on
            # BEGIN, on every row and on COMMIT, and the thread waits behind a busy event loop each
            # time it takes the lock back.
            sqlite_writes = create_engine(
                url,
                connect_args=connect_args,
                pool_size=1,
                max_overflow=0,
                isolation_level="AUTOCOMMIT",
                hide_parameters=True,
            )
        if url.startswith("sqlite"):
            for engine in (self.engine, sqlite_writes):
                if engine is not None:
                    event.listen(engine, "connect", _sqlite_pragmas)
        for engine in (self.engine, self._moves_engine):
            if engine is not None and url.startswith("postgresql"):
                event.listen(engine, "connect", _postgres_session)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._single_writes = self._moves_engine or sqlite_writes
        """The autocommit connection of the writes that are one statement, if there is one."""

    def _alembic(self) -> Config:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        return config

    def migrate(self) -> None:
        """Apply the Alembic migrations up to head (idempotent).  On PostgreSQL, processes started
        together on a new database take turns: the first makes the schema, the others find it made
        (at once, each tried to create the same tables, and all but one failed to start)."""
        config = self._alembic()
        with self.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def schema(self) -> tuple[str | None, str, bool]:
        """The database's schema revision (None: no schema yet), this release's, and whether the
        database's is an older one of this release (which :meth:`migrate` would upgrade)."""
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        scripts = ScriptDirectory.from_config(self._alembic())
        head = scripts.get_current_head()
        assert head is not None, "the migrations have one head"
        with self.engine.connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
        known = {revision.revision for revision in scripts.walk_revisions()}
        return current, head, current is not None and current != head and current in known

    def site_secret(self, name: str) -> bytes:
        """One of the site's secrets (made by the migrations); KeyError if there is none."""
        with self.session() as s:
            row = s.get(SiteSecretRow, name)
            if row is None:
                raise KeyError(f"the database has no site secret {name!r}: run its migrations")
            return bytes.fromhex(row.value)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self.sessions() as session, session.begin():
            yield session

    # -- matches ------------------------------------------------------------------------------
    def create_match(self, spec: NewMatch) -> None:
        """Every table's next game makes one: two statements, without the ORM's unit of work (the
        seats in one, not one per seat: each statement costs the writing thread the interpreter
        lock again)."""
        with self.engine.begin() as connection:
            connection.execute(INSERT_MATCH, _match_values(spec))
            if spec.seats:
                connection.execute(INSERT_SEAT.values(_seat_values(spec)))

    def match(self, match_id: str) -> MatchRow | None:
        with self.session() as s:
            return s.get(MatchRow, match_id)

    def listing(
        self, statuses: tuple[str, ...], limit: int = 200, *, ids: list[str] | None = None
    ) -> list[tuple[MatchRow, list[SeatRow], int]]:
        """The lobby's rows (public matches), or the matches ``ids``: most recent first, with their
        seats and versions (no replay)."""
        with self.session() as s:
            query = select(MatchRow).where(MatchRow.status.in_(statuses))
            chosen = MatchRow.private.is_(False) if ids is None else MatchRow.id.in_(ids)
            query = query.where(chosen)
            rows = list(s.scalars(query.order_by(MatchRow.created.desc()).limit(limit)))
            ids = [row.id for row in rows]
            seats: dict[str, list[SeatRow]] = {match_id: [] for match_id in ids}
            versions: dict[str, int] = {}
            if ids:
                for seat in s.scalars(
                    select(SeatRow).where(SeatRow.match_id.in_(ids)).order_by(SeatRow.seat)
                ):
                    seats[seat.match_id].append(seat)
                counted = s.execute(
                    select(ActionRow.match_id, func.count())
                    .where(ActionRow.match_id.in_(ids))
                    .group_by(ActionRow.match_id)
                )
                versions = {match_id: int(n) for match_id, n in counted}
            return [(row, seats[row.id], versions.get(row.id, 0)) for row in rows]

    def active_bot_matches(self, owner: str) -> int:
        """How many open or running matches with a bot seat ``owner`` created."""
        with self.session() as s:
            count = s.scalar(
                select(func.count(func.distinct(MatchRow.id)))
                .join(SeatRow, SeatRow.match_id == MatchRow.id)
                .where(
                    MatchRow.owner == owner,
                    MatchRow.status.in_(("open", "running")),
                    SeatRow.kind != "human",
                )
            )
            return int(count or 0)

    def seats(self, match_id: str) -> list[SeatRow]:
        with self.session() as s:
            return list(s.scalars(select(SeatRow).where(SeatRow.match_id == match_id).order_by(SeatRow.seat)))

    def free_seats(self, match_id: str) -> set[int]:
        """The numbers of the match's human seats nobody holds: asked after every join with several
        processes, so one query of one column, not the seats' objects."""
        with self.engine.connect() as connection:
            return set(connection.execute(FREE_SEATS, {"the_match": match_id}).scalars())

    def actions(self, match_id: str) -> list[int]:
        with self.session() as s:
            rows = s.scalars(
                select(ActionRow.action).where(ActionRow.match_id == match_id).order_by(ActionRow.number)
            )
            return list(rows)

    def record(self, match_id: str) -> GameRecord | None:
        """A match's full record as stored (seed and every action); None if there is no such match."""
        row = self.match(match_id)
        if row is None:
            return None
        actions = [action for _, action in self.log(match_id)]
        return GameRecord(row.game, row.rules_version, dict(row.options), row.the_seed, actions, row.chance)

    def log(self, match_id: str) -> list[tuple[int, int]]:
        """(seat, action) for every action, in order."""
        with self.session() as s:
            rows = s.execute(
                select(ActionRow.seat, ActionRow.action)
                .where(ActionRow.match_id == match_id)
                .order_by(ActionRow.number)
            )
            return [(int(seat), int(action)) for seat, action in rows]

    def action_at(self, match_id: str, number: int) -> tuple[int, int] | None:
        """(seat, action) of one version's action, if it is stored."""
        with self.session() as s:
            row = s.execute(
                select(ActionRow.seat, ActionRow.action).where(
                    ActionRow.match_id == match_id, ActionRow.number == number
                )
            ).first()
            return None if row is None else (int(row[0]), int(row[1]))

    def claim_seat(
        self,
        match_id: str,
        seat: int,
        name: str,
        token: str,
        join_key: str | None = None,
        *,
        player_id: str | None = None,
        session: str | None = None,
    ) -> bool:
        """Give a free human seat to a player; False if it was taken meanwhile (NoResultFound if
        the match has no such seat; AlreadySeatedError if the player holds another seat of it, just
        handed to them by a log-in).  One guarded UPDATE: a join of every seat of every new match
        would otherwise read the row, lock it and write it through the ORM.

        ``session``: the hash of the guest session the claim is made in; SessionEndedError if it
        ended meanwhile (a log-in moved the guest's seats to an account and ended it: a seat
        claimed after that would stay with a guest nobody can be any more)."""
        values = {
            "the_match": match_id,
            "the_seat": seat,
            "new_name": name,
            "new_token_hash": hash_token(token),
            "new_join_key": join_key,
            "new_player_id": player_id,
        }
        try:
            if session is None and self._single_writes is not None:
                if _one_write(self._single_writes, CLAIM_SEAT, values):
                    return True
                with self.engine.connect() as connection:
                    connection.execute(
                        select(_SEATS.c.id).where(_SEATS.c.match_id == match_id, _SEATS.c.seat == seat)
                    ).one()  # NoResultFound: no such seat
                return False
            with self.engine.begin() as connection:
                if session is not None:
                    _lock_players(connection, [player_id])  # a log-in moving this guest's seats waits
                    values["the_session"] = session
                claim = CLAIM_SEAT if session is None else CLAIM_SEAT_IN_SESSION
                claimed = connection.execute(claim, values).rowcount
                if claimed:
                    return True
                if session is not None and not connection.execute(GUEST_SESSION, values).first():
                    raise SessionEndedError(f"session of player {player_id} ended before the claim")
                connection.execute(
                    select(_SEATS.c.id).where(_SEATS.c.match_id == match_id, _SEATS.c.seat == seat)
                ).one()  # NoResultFound: no such seat
                return False
        except IntegrityError as exc:
            if player_id is None:
                raise
            raise AlreadySeatedError(f"player {player_id} holds a seat of match {match_id}") from exc

    def release_seat(self, match_id: str, seat: int, holder: str | None) -> bool:
        """Free a seat still held by the token whose hash is ``holder``; False if it has changed
        hands meanwhile (through another process) and nothing was changed."""
        held = SeatRow.token_hash.is_(None) if holder is None else SeatRow.token_hash == holder
        with self.session() as s:
            freed = s.execute(
                update(SeatRow)
                .where(SeatRow.match_id == match_id, SeatRow.seat == seat, held)
                .values(name=None, token_hash=None, join_key=None, player_id=None)
            )
            return bool(freed.rowcount)  # type: ignore[attr-defined]

    def set_status(self, match_id: str, status: str) -> None:
        with self.session() as s:
            row = s.get(MatchRow, match_id)
            if row is not None:
                row.status = status

    def start_match(self, match_id: str, turn: Turn) -> bool:
        """The match's seats are all taken: it runs, and its clock starts.  False if it was no longer
        open (expired meanwhile, by another process)."""
        values = {
            "the_match": match_id,
            "new_clock": turn.clock,
            "new_deadline": turn.deadline,
            "new_to_move": turn.to_move,
        }
        if self._single_writes is not None:
            return bool(_one_write(self._single_writes, START_MATCH, values))
        with self.engine.begin() as connection:
            return bool(connection.execute(START_MATCH, values).rowcount)

    def set_turn_deadline(self, match_id: str, deadline: float, version: int) -> float | None:
        """Store a per-turn clock's deadline for the turn at ``version`` unless one is stored already
        (another process was first) or the match has moved on; the deadline stored after."""
        with self.session() as s:
            row = s.scalars(select(MatchRow).where(MatchRow.id == match_id).with_for_update()).one_or_none()
            if row is None:
                return None
            moves = s.scalar(
                select(func.count()).select_from(ActionRow).where(ActionRow.match_id == match_id)
            )
            if row.status == "running" and row.deadline is None and moves == version:
                row.deadline = deadline
            return row.deadline

    def set_clock(self, match_id: str, turn: Turn) -> None:
        with self.session() as s:
            s.execute(_clock_set(match_id, turn))

    def append_action(
        self,
        match_id: str,
        number: int,
        seat: int,
        action: int,
        status: str | None,
        *,
        end: dict[str, Any] | None = None,
        at: datetime | None = None,
        turn: Turn | None = None,
        ranks: Sequence[float] | None = None,
    ) -> list[Any] | None:
        """Commit one action (the match's new status and clock, how it ended, and the ratings of a
        rated match that ends) in one transaction; the seats' rating changes if it rated them.

        The unique (match, number) constraint makes a second writer of the same version fail, so
        two server processes can never both apply an action at the same position; and a last move
        locks its match and raises :class:`MatchEndedError` if another process ended it meanwhile (a
        resignation, a claim or a time-out writes no action), so a match ends, and is rated, once.

        A transaction whose connection failed at its commit may have been committed all the same:
        if its version then holds this very action, the action counts as made (its match's ratings
        are read back), rather than being refused to a player whose move stands.
        """
        try:
            return self._write_action(
                match_id, number, seat, action, status, end=end, at=at, turn=turn, ranks=ranks
            )
        except OperationalError:
            made = self._made_with_ratings(match_id, number, seat, action)
            if made is None:
                raise
            return made[0]

    def _made_with_ratings(
        self, match_id: str, number: int, seat: int, action: int
    ) -> tuple[list[Any] | None] | None:
        """(the match's ratings,) if ``number`` holds this seat's action; None if it does not or if
        that cannot be read now."""
        try:
            if self.action_at(match_id, number) != (seat, action):
                return None
            with self.session() as s:
                return (s.scalar(select(MatchRow.ratings).where(MatchRow.id == match_id)),)
        except Exception:
            return None

    def _write_action(
        self,
        match_id: str,
        number: int,
        seat: int,
        action: int,
        status: str | None,
        *,
        end: dict[str, Any] | None,
        at: datetime | None,
        turn: Turn | None,
        ranks: Sequence[float] | None,
    ) -> list[Any] | None:
        """:meth:`append_action`'s writes."""
        if status is None:  # a move in a running match: the common case, without the ORM's work
            self.append_actions([Append(match_id, number, seat, action, turn)])
            return None
        if self._moves_engine is not None and self._end_unrated_at_once(
            self._moves_engine, Append(match_id, number, seat, action, turn), status, end, at or _now()
        ):
            return None
        if self._moves_engine is None and self._end_unrated_sqlite(
            Append(match_id, number, seat, action, turn), status, end, at or _now()
        ):
            return None
        with self.session() as s:
            row = s.scalars(select(MatchRow).where(MatchRow.id == match_id).with_for_update()).one_or_none()
            if row is None or row.status in ENDED:
                raise MatchEndedError(match_id)
            s.add(ActionRow(match_id=match_id, number=number, seat=seat, action=action))
            if turn is not None:
                row.clock, row.deadline, row.to_move = turn.clock, turn.deadline, turn.to_move
            row.status = status
            if end is not None:
                row.end, row.finished = end, at or _now()
                row.deadline = None
            if ranks is not None and row.rated:
                row.ratings = _rate(s, row, ranks, row.finished or _now())
            return row.ratings

    def append_actions(self, appends: list[Append]) -> None:
        """Commit moves of running matches (none of them ends its match) in one transaction: one
        disk flush for all the moves that came in while the last one was written.  A version
        already taken (another process was first) fails the whole transaction, and so does a move
        of a match that has ended (IntegrityError either way)."""
        now = _now()
        if self._moves_engine is not None:
            self._append_actions_at_once(self._moves_engine, appends, now)
            return
        if self._single_writes is not None and all(a.turn is None for a in appends):  # SQLite
            moves = json.dumps([[a.match_id, a.number, a.seat, a.action] for a in appends])
            _one_statement(self._single_writes, APPEND_ACTIONS_SQLITE, {"moves": moves, "created": now})
            return
        turns = [
            {"row": a.match_id, "new_clock": t.clock, "new_deadline": t.deadline, "new_to_move": t.to_move}
            for a in appends
            if (t := a.turn) is not None
        ]
        with self.engine.begin() as connection:
            connection.execute(
                INSERT_LIVE_ACTIONS,
                [
                    {
                        "match_id": a.match_id,
                        "number": a.number,
                        "seat": a.seat,
                        "action": a.action,
                        "created": now,
                    }
                    for a in appends
                ],
            )
            if turns:
                connection.execute(SET_TURN, turns)

    def dispose(self) -> None:
        """Close the database connections this storage holds."""
        self.engine.dispose()
        for engine in {self._moves_engine, self._single_writes}:
            if engine is not None:
                engine.dispose()

    @staticmethod
    def _append_actions_at_once(engine: Engine, appends: list[Append], now: datetime) -> None:
        """PostgreSQL: the moves and their matches' turns in one statement (atomic on its own).  The
        matches go in the order of their ids, so two processes' batches lock shared rows in one
        order and cannot deadlock."""
        appends = sorted(appends, key=lambda a: (a.match_id, a.number))
        turns: dict[str, Turn | None] = {}  # every match of the batch, with its last turn
        for a in appends:
            if a.turn is not None or a.match_id not in turns:
                turns[a.match_id] = a.turn
        params = {
            "match_ids": [a.match_id for a in appends],
            "numbers": [a.number for a in appends],
            "seats": [a.seat for a in appends],
            "actions": [a.action for a in appends],
            "created": now,
            "turn_ids": list(turns),
            "has_turns": [t is not None for t in turns.values()],
            "clocks": [json.dumps(t.clock if t else None) for t in turns.values()],
            "deadlines": [t.deadline if t else None for t in turns.values()],
            "to_moves": [t.to_move if t else None for t in turns.values()],
        }
        _one_statement(engine, APPEND_ACTIONS_POSTGRES, params)

    @staticmethod
    def _end_unrated_at_once(
        engine: Engine, move: Append, status: str, end: dict[str, Any] | None, at: datetime
    ) -> bool:
        """PostgreSQL: a match's last move and its end in one statement, if the match is not rated
        (True); a rated one (False) is left unchanged, for the transaction that also rates it."""
        turn = move.turn
        params = {
            "match_id": move.match_id,
            "number": move.number,
            "seat": move.seat,
            "action": move.action,
            "created": at,
            "status": status,
            "has_turn": turn is not None,
            "clock": json.dumps(None if turn is None else turn.clock),
            "deadline": None if turn is None else turn.deadline,
            "to_move": None if turn is None else turn.to_move,
            "has_end": end is not None,
            "end": json.dumps(end),
            "finished": at,
        }
        return bool(_one_statement(engine, END_UNRATED_POSTGRES, params))

    def _end_unrated_sqlite(
        self, move: Append, status: str, end: dict[str, Any] | None, at: datetime
    ) -> bool:
        """SQLite: a match's last move and its end in two statements, if the match is not rated and
        has not ended (True); otherwise nothing is written (False), for the ORM's path, which rates
        the match or refuses the move.  SQLite runs one write at a time, so nothing comes between."""
        turn = move.turn
        values: dict[str, Any] = {"the_match": move.match_id, "new_status": status}
        if turn is not None:
            values.update(new_clock=turn.clock, new_deadline=turn.deadline, new_to_move=turn.to_move)
        if end is not None:
            values.update(new_end=end, new_finished=at)
        action = {
            "match_id": move.match_id,
            "number": move.number,
            "seat": move.seat,
            "action": move.action,
            "created": at,
        }
        with self.engine.begin() as connection:
            ended = connection.execute(_end_unrated(turn is not None, end is not None), values)
            if not ended.rowcount:
                return False
            connection.execute(INSERT_ACTION, action)
        return True

    def end_match(
        self,
        match_id: str,
        end: dict[str, Any],
        status: str = "finished",
        at: datetime | None = None,
        *,
        ranks: Sequence[float] | None = None,
        clock: dict[str, Any] | None = None,
        version: int | None = None,
        was: str = "running",
    ) -> tuple[bool, list[Any] | None]:
        """End a match that is running (or open, ``was="open"``, for expiry) without an action:
        resigned, aborted, claimed, out of time, expired; a rated match's ratings change in the same
        transaction.  (False, None) if it was not in that status (another process was first)."""
        with self.session() as s:
            row = s.scalars(select(MatchRow).where(MatchRow.id == match_id).with_for_update()).one_or_none()
            if row is None or row.status != was:
                return False, None
            if version is not None and version != s.scalar(
                select(func.count()).select_from(ActionRow).where(ActionRow.match_id == match_id)
            ):
                return False, None  # a move came meanwhile (another process): the end was for before it
            row.status, row.end, row.finished = status, end, at or _now()
            row.deadline = None
            if clock is not None:  # the running seat charged what it used
                row.clock = clock
            if ranks is not None and row.rated and status == "finished":
                row.ratings = _rate(s, row, ranks, row.finished)
            return True, row.ratings

    def set_seat_kind(
        self,
        match_id: str,
        seat: int,
        kind: str,
        name: str,
        *,
        turn: Turn | None = None,
        version: int | None = None,
    ) -> None:
        """A human seat handed to a bot: its holder and token no longer play it; with ``turn``, the
        match's clock as it is now (a bot's turn has no deadline), in the same transaction.  With
        ``version`` (the match's when ``turn`` was worked out), the clock is written only if no move
        came since: another process's move stored a newer turn, which a stale one must not undo."""
        with self.session() as s:
            if turn is not None and version is not None:
                s.scalars(select(MatchRow.id).where(MatchRow.id == match_id).with_for_update()).one()
                moves = s.scalar(
                    select(func.count()).select_from(ActionRow).where(ActionRow.match_id == match_id)
                )
                if moves != version:
                    turn = None
            row = s.scalars(select(SeatRow).where(SeatRow.match_id == match_id, SeatRow.seat == seat)).one()
            row.kind, row.name = kind, name
            if turn is not None:
                s.execute(_clock_set(match_id, turn))

    def answer_rematch(
        self, match_id: str, seat: int, accept: bool, humans: list[int], new_match: NewMatch
    ) -> dict[str, Any]:
        """Record one player's answer to the match's rematch offer, in one transaction with the new
        match when this answer is the last acceptance (so two last answers cannot make two matches).
        Raises LookupError("already_answered" | "rematch_declined") and changes nothing."""
        with self.session() as s:
            row = s.scalars(select(MatchRow).where(MatchRow.id == match_id).with_for_update()).one()
            offer = dict(row.rematch or {"answers": {}, "match": None, "declined": False})
            answers = dict(offer["answers"])
            if offer["declined"]:
                raise LookupError("rematch_declined")
            if str(seat) in answers:
                raise LookupError("already_answered")
            answers[str(seat)] = accept
            offer["answers"] = answers
            if not accept:
                offer["declined"] = True
            elif all(answers.get(str(h)) for h in humans):
                _add_match(s, _with_holders_now(s, match_id, new_match))
                offer["match"] = new_match.match_id
            row.rematch = offer
            return offer

    def history(self, player_id: str, limit: int = 100) -> list[tuple[MatchRow, list[SeatRow]]]:
        """A player's finished matches, most recent first, with every seat."""
        with self.session() as s:
            held = select(SeatRow.match_id).where(SeatRow.player_id == player_id)
            rows = list(
                s.scalars(
                    select(MatchRow)
                    .where(MatchRow.id.in_(held), MatchRow.status == "finished")
                    .order_by(MatchRow.finished.desc(), MatchRow.created.desc())
                    .limit(limit)
                )
            )
            ids = [r.id for r in rows]
            seats: dict[str, list[SeatRow]] = {i: [] for i in ids}
            if ids:
                held_seats = select(SeatRow).where(SeatRow.match_id.in_(ids)).order_by(SeatRow.seat)
                for seat in s.scalars(held_seats):
                    seats[seat.match_id].append(seat)
            return [(r, seats[r.id]) for r in rows]

    def resumable_ids(self) -> list[str]:
        """What a restart takes up again, newest first: every running match, and every open one
        whose seats are all taken (a stop came between its last seat's write and its start)."""
        free_seat = (
            select(SeatRow.id)
            .where(
                SeatRow.match_id == MatchRow.id,
                SeatRow.kind == "human",
                SeatRow.token_hash.is_(None),
                SeatRow.player_id.is_(None),
            )
            .exists()
        )
        query = (
            select(MatchRow.id)
            .where((MatchRow.status == "running") | ((MatchRow.status == "open") & ~free_seat))
            .order_by(MatchRow.created.desc())
        )
        with self.session() as s:
            return list(s.scalars(query))

    def stale_open_matches(self, older_than: datetime) -> list[str]:
        with self.session() as s:
            return list(
                s.scalars(select(MatchRow.id).where(MatchRow.status == "open", MatchRow.created < older_than))
            )

    # -- players and sessions ----------------------------------------------------------------
    def create_player(
        self,
        player_id: str,
        kind: str,
        name: str,
        *,
        username_key: str | None = None,
        username_look: str | None = None,
        password_hash: str | None = None,
    ) -> PlayerRow:
        """A new player; an account whose username (or its look) is taken raises IntegrityError."""
        with self.session() as s:
            row = PlayerRow(
                id=player_id,
                kind=kind,
                name=name,
                username_key=username_key,
                username_look=username_look,
                password_hash=password_hash,
            )
            s.add(row)
        return row

    def private_matches(self, match_ids: Iterable[str]) -> set[str]:
        """Which of these matches are private (joined by invite only)."""
        ids = set(match_ids)
        if not ids:
            return set()
        with self.session() as s:
            return set(s.scalars(select(MatchRow.id).where(MatchRow.id.in_(ids), MatchRow.private.is_(True))))

    def player(self, player_id: str) -> PlayerRow | None:
        with self.session() as s:
            return s.get(PlayerRow, player_id)

    def player_by_username(self, key: str) -> PlayerRow | None:
        """The account of a username (in its compared form), if any.  A username with a NUL is
        nobody's (none can be made): PostgreSQL's text holds no NUL, and would fail the query."""
        if "\x00" in key:
            return None
        with self.session() as s:
            return s.scalars(select(PlayerRow).where(PlayerRow.username_key == key)).one_or_none()

    def account_looks_like(self, look: str) -> bool:
        """Whether an account's username looks like ``look``: asked at every join without a
        session, so one indexed lookup of one column, not an ORM object."""
        with self.engine.connect() as connection:
            return connection.execute(LOOK_TAKEN, {"look": look}).first() is not None

    def player_by_look(self, look: str) -> PlayerRow | None:
        """The account whose username looks like ``look`` (a skeleton), if any."""
        with self.session() as s:
            return s.scalars(select(PlayerRow).where(PlayerRow.username_look == look)).one_or_none()

    def players(self) -> list[PlayerRow]:
        with self.session() as s:
            accounts = select(PlayerRow).where(PlayerRow.kind == "account").order_by(PlayerRow.name)
            return list(s.scalars(accounts))

    def make_account(
        self, player_id: str, username: str, key: str, look: str, password_hash: str
    ) -> list[str]:
        """Turn a guest into an account (it keeps its seats, now under its username); the matches
        concerned.  IntegrityError if the name is taken; LookupError("not_a_guest") if the player
        became an account meanwhile."""
        with self.session() as s:
            # One guarded statement: of two sign-ups of one guest at the same moment, one changes it.
            changed = s.execute(
                update(PlayerRow)
                .where(PlayerRow.id == player_id, PlayerRow.kind == "guest")
                .values(
                    kind="account",
                    name=username,
                    username_key=key,
                    username_look=look,
                    password_hash=password_hash,
                )
            )
            if not changed.rowcount:  # type: ignore[attr-defined]
                raise LookupError("not_a_guest")
            seats = list(s.scalars(select(SeatRow).where(SeatRow.player_id == player_id)))
            for seat in seats:
                seat.name = username
            return sorted({seat.match_id for seat in seats})

    def update_player(
        self, player_id: str, *, password_hash: str | None = None, disabled: bool | None = None
    ) -> None:
        with self.session() as s:
            row = s.get(PlayerRow, player_id)
            if row is None:
                raise LookupError(player_id)
            if password_hash is not None:
                row.password_hash = password_hash
            if disabled is not None:
                row.disabled = disabled

    def rename_guest(self, player_id: str, name: str) -> None:
        with self.session() as s:
            row = s.get(PlayerRow, player_id)
            if row is not None and row.kind == "guest":
                row.name = name

    def move_seats(
        self, from_player: str, to_player: str, name: str, *, end_session: str | None = None
    ) -> list[str]:
        """Hand a guest's seats to the account it logged in to; the matches concerned.  A match
        where the account holds a seat already keeps the guest's as it is (one player, one seat:
        the guest's seat token still plays it).

        ``end_session``: the guest's session (its hash), ended in the same transaction: a seat the
        guest claims meanwhile is either written first and moved, or refused (a guest's claim needs
        its session, see :meth:`claim_seat`); a move that fails leaves the session too.  A
        player who is no guest any more (it signed up as this log-in was checked), or whose
        session has ended meanwhile, keeps its seats: nothing is moved."""
        for attempt in range(3):
            try:
                with self.session() as s:
                    _lock_players(s, [from_player])  # a rematch or a guest's claim commits first
                    kind = s.scalar(select(PlayerRow.kind).where(PlayerRow.id == from_player))
                    ended = 1
                    if end_session is not None:  # this browser's session ends with the log-in
                        ended = s.execute(
                            delete(AuthSessionRow).where(
                                AuthSessionRow.token_hash == end_session,
                                AuthSessionRow.player_id == from_player,
                            )
                        ).rowcount  # type: ignore[attr-defined]
                    if kind != "guest" or not ended:
                        return []  # it signed up meanwhile, or its session had ended: no seat moves
                    held = select(SeatRow.match_id).where(SeatRow.player_id == to_player)
                    moved = list(
                        s.scalars(
                            select(SeatRow).where(
                                SeatRow.player_id == from_player, SeatRow.match_id.not_in(held)
                            )
                        )
                    )
                    for seat in moved:
                        seat.player_id, seat.name = to_player, name
                    return sorted({seat.match_id for seat in moved})
            except IntegrityError:  # the account took a seat of one of them meanwhile: read again
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def player_kinds(self, ids: Sequence[str | None]) -> dict[str, str]:
        """The kind (guest, account) of each of these players."""
        wanted = sorted({i for i in ids if i})
        if not wanted:
            return {}
        with self.session() as s:
            rows = s.execute(select(PlayerRow.id, PlayerRow.kind).where(PlayerRow.id.in_(wanted)))
            return {str(i): str(k) for i, k in rows}

    def create_auth_session(self, token_hash: str, player_id: str, csrf: str) -> None:
        with self.session() as s:
            s.add(AuthSessionRow(token_hash=token_hash, player_id=player_id, csrf=csrf))

    def auth_session(
        self, token_hash: str, idle_seconds: float, touch_seconds: float
    ) -> tuple[AuthSessionRow, PlayerRow] | None:
        """The live session and its player (an idle session is ended here), its last use noted."""
        with self.session() as s:
            row = s.get(AuthSessionRow, token_hash)
            if row is None:
                return None
            now = _now()
            if (now - aware(row.last_seen)).total_seconds() > idle_seconds:
                s.delete(row)
                return None
            player = s.get(PlayerRow, row.player_id)
            if player is None or player.disabled:
                return None
            if (now - aware(row.last_seen)).total_seconds() > touch_seconds:
                row.last_seen = now
            return row, player

    def still_allowed(
        self, sessions: set[str], players: set[str], idle_seconds: float, seat_tokens: Iterable[str] = ()
    ) -> tuple[set[str], set[str], set[str]]:
        """Of these sessions (token hashes), players and seat tokens (hashes), those still good: a
        session not ended nor idle too long, of a player not disabled; a player who exists and is
        not disabled; a seat token still held by its seat (a new password clears an account's)."""
        live: set[str] = set()
        active: set[str] = set()
        kept: set[str] = set()
        with self.session() as s:
            if wanted := set(seat_tokens):
                found = s.scalars(select(SeatRow.token_hash).where(SeatRow.token_hash.in_(wanted)))
                kept = {token for token in found if token is not None}
            if sessions:
                since = _now().timestamp() - idle_seconds
                rows = s.execute(
                    select(AuthSessionRow.token_hash, AuthSessionRow.last_seen)
                    .join(PlayerRow, PlayerRow.id == AuthSessionRow.player_id)
                    .where(AuthSessionRow.token_hash.in_(sessions), PlayerRow.disabled.is_(False))
                )
                live = {token for token, seen in rows if aware(seen).timestamp() >= since}
            if players:
                active = set(
                    s.scalars(
                        select(PlayerRow.id).where(PlayerRow.id.in_(players), PlayerRow.disabled.is_(False))
                    )
                )
        return live, active, kept

    def known_device(self, token_hash: str, player_id: str, keep_seconds: float) -> bool:
        """Whether this browser logged in to this player within ``keep_seconds`` (its use noted)."""
        now = _now()
        with self.session() as s:
            row = s.get(LoginDeviceRow, (token_hash, player_id))
            if row is None:
                return False
            if (now - aware(row.last_used)).total_seconds() > keep_seconds:
                s.delete(row)
                return False
            row.last_used = now
            return True

    def remember_device(self, token_hash: str, player_id: str, keep_seconds: float, most: int) -> None:
        """Note a browser that logged in; the player's devices unused for ``keep_seconds``, and
        all but the ``most`` last used, are forgotten."""
        now = _now()
        with self.session() as s:
            s.add(LoginDeviceRow(token_hash=token_hash, player_id=player_id, last_used=now))
            s.flush()
            devices = s.scalars(
                select(LoginDeviceRow)
                .where(LoginDeviceRow.player_id == player_id)
                .order_by(LoginDeviceRow.last_used.desc())
            )
            for rank, row in enumerate(list(devices)):
                if rank >= most or (now - aware(row.last_used)).total_seconds() > keep_seconds:
                    s.delete(row)

    def set_password(self, player_id: str, new: str, *, was: str | None = None) -> list[str] | None:
        """A new password, and what the old one opened closed, in one transaction: every session
        ends, the seat tokens handed out end, the known browsers are forgotten.  With ``was``, only
        if the stored hash is still that one (None: a change came meanwhile, and nothing is done).
        The matches whose seat tokens ended (LookupError: no such player)."""
        with self.session() as s:
            guard = PlayerRow.id == player_id
            if was is not None:
                guard = guard & (PlayerRow.password_hash == was)
            changed = s.execute(update(PlayerRow).where(guard).values(password_hash=new))
            if not changed.rowcount:  # type: ignore[attr-defined]
                if s.get(PlayerRow, player_id) is None:
                    raise LookupError(player_id)
                return None
            s.execute(delete(AuthSessionRow).where(AuthSessionRow.player_id == player_id))
            s.execute(delete(LoginDeviceRow).where(LoginDeviceRow.player_id == player_id))
            held = SeatRow.player_id == player_id, SeatRow.token_hash.is_not(None)
            matches = sorted(set(s.scalars(select(SeatRow.match_id).where(*held))))
            if matches:  # whoever copied one plays no more; the session still finds the seats
                s.execute(update(SeatRow).where(*held).values(token_hash=None, join_key=None))
            return matches

    def rehash_password(self, player_id: str, old: str, new: str) -> bool:
        """Store a new hash of the same password, only if the stored one is still ``old`` (a new
        password set meanwhile stays); whether it was stored."""
        with self.session() as s:
            changed = s.execute(
                update(PlayerRow)
                .where(PlayerRow.id == player_id, PlayerRow.password_hash == old)
                .values(password_hash=new)
            )
            return bool(changed.rowcount)  # type: ignore[attr-defined]

    def stalled_turns(self, before: datetime, *, bots: bool) -> list[str]:
        """Running matches where a bot (``bots``) or a person is to move and nothing has been
        played since ``before`` (nor the match created): a turn no process may be watching.  A
        person's turn under a correspondence clock is left out: there only the clock decides, and
        the deadline sweep finds it."""
        last = (
            select(func.max(ActionRow.created))
            .where(ActionRow.match_id == MatchRow.id)
            .correlate(MatchRow)
            .scalar_subquery()
        )
        query = (
            select(MatchRow.id, MatchRow.clock)
            .join(SeatRow, (SeatRow.match_id == MatchRow.id) & (SeatRow.seat == MatchRow.to_move))
            .where(
                MatchRow.status == "running",
                (SeatRow.kind != "human") if bots else (SeatRow.kind == "human"),
                func.coalesce(last, MatchRow.created) < before,
            )
        )
        with self.session() as s:
            rows = s.execute(query).all()
        return [match_id for match_id, clock in rows if bots or (clock or {}).get("kind") != CORRESPONDENCE]

    def end_auth_sessions(self, player_id: str, *, keep: str | None = None, only: str | None = None) -> None:
        """End a player's sessions (all but ``keep``, or only ``only``)."""
        with self.session() as s:
            query = select(AuthSessionRow).where(AuthSessionRow.player_id == player_id)
            if only is not None:
                query = query.where(AuthSessionRow.token_hash == only)
            for row in s.scalars(query):
                if row.token_hash != keep:
                    s.delete(row)

    def player_matches(
        self, player_id: str, statuses: tuple[str, ...], limit: int = 200
    ) -> list[tuple[MatchRow, list[SeatRow], int]]:
        """The matches a player holds a seat in, most recent first, as :meth:`listing` gives them."""
        with self.session() as s:
            held = select(SeatRow.match_id).where(SeatRow.player_id == player_id)
            ids = list(
                s.scalars(
                    select(MatchRow.id)
                    .where(MatchRow.id.in_(held), MatchRow.status.in_(statuses))
                    .order_by(MatchRow.created.desc())
                    .limit(limit)
                )
            )
        return self.listing(statuses, limit, ids=ids) if ids else []

    # -- ratings ------------------------------------------------------------------------------
    def leaderboard(self, game: str, family: str) -> list[tuple[RatingRow, PlayerRow | None]]:
        """Every rating of a game and family, best ordinal first, with its player (None: a bot)."""
        with self.session() as s:
            rows = s.execute(
                select(RatingRow, PlayerRow)
                .join(PlayerRow, PlayerRow.id == RatingRow.player_key, isouter=True)
                .where(RatingRow.game == game, RatingRow.family == family)
                .order_by((RatingRow.mu - 3 * RatingRow.sigma).desc())
            )
            return [(rating, player) for rating, player in rows]

    def player_ratings(self, player_key: str) -> list[RatingRow]:
        with self.session() as s:
            return list(
                s.scalars(
                    select(RatingRow)
                    .where(RatingRow.player_key == player_key)
                    .order_by(RatingRow.game, RatingRow.family)
                )
            )

    def rating_history(
        self, player_key: str, game: str, family: str, limit: int = 1000
    ) -> list[RatingEventRow]:
        """The player's ratings after each rated match of a game and family, oldest first."""
        with self.session() as s:
            rows = s.scalars(
                select(RatingEventRow)
                .where(
                    RatingEventRow.player_key == player_key,
                    RatingEventRow.game == game,
                    RatingEventRow.family == family,
                )
                .order_by(RatingEventRow.id.desc())
                .limit(limit)
            )
            return list(reversed(list(rows)))

    # -- turns and clocks -------------------------------------------------------------------
    def waiting(self, player_id: str) -> list[str]:
        """The running matches where it is this player's move, most recent first."""
        with self.session() as s:
            return list(
                s.scalars(
                    select(MatchRow.id)
                    .join(SeatRow, SeatRow.match_id == MatchRow.id)
                    .where(
                        SeatRow.player_id == player_id,
                        SeatRow.kind == "human",
                        MatchRow.status == "running",
                        MatchRow.to_move == SeatRow.seat,
                    )
                    .order_by(MatchRow.created.desc())
                )
            )

    def due(self, now: float, turn_late: float = 30.0) -> list[str]:
        """Running matches whose player to move has run out of time at ``now``; a per-turn clock's
        only once ``turn_late`` seconds late (the process holding it plays the turn at its deadline:
        the sweep takes up only a match no process holds, whose task then plays it)."""
        with self.session() as s:
            late = or_(
                and_(MatchRow.turn_seconds == 0, MatchRow.deadline <= now),
                and_(MatchRow.turn_seconds != 0, MatchRow.deadline <= now - turn_late),
            )
            return list(s.scalars(select(MatchRow.id).where(MatchRow.status == "running", late)))

    # -- chat -----------------------------------------------------------------------------------
    def add_chat(self, line: ChatRow) -> ChatRow:
        with self.session() as s:
            s.add(line)
        return line

    def chat(self, match_id: str) -> list[ChatRow]:
        """A match's chat lines (deleted ones left out), oldest first."""
        with self.session() as s:
            return list(
                s.scalars(
                    select(ChatRow)
                    .where(ChatRow.match_id == match_id, ChatRow.deleted.is_(False))
                    .order_by(ChatRow.id)
                )
            )

    def chat_line(self, line_id: int) -> ChatRow | None:
        with self.session() as s:
            return s.get(ChatRow, line_id)

    def delete_chat(self, line_id: int) -> ChatRow | None:
        """Take a line out of its match's chat (kept, marked deleted); None if there is no such line."""
        with self.session() as s:
            row = s.get(ChatRow, line_id)
            if row is not None:
                row.deleted = True
            return row

    def ping(self) -> None:
        """Raise unless the database answers a trivial query (the readiness check)."""
        with self.engine.connect() as connection:
            connection.execute(select(1))

    # -- analyses -------------------------------------------------------------------------------
    def analysis(self, match_id: str, seat: int) -> AnalysisRow | None:
        with self.session() as s:
            return s.get(AnalysisRow, (match_id, seat))

    def save_analysis(self, row: AnalysisRow) -> AnalysisRow:
        """Keep an analysis (a second one for the same seat, computed meanwhile elsewhere, loses)."""
        with self.session() as s:
            if s.get(AnalysisRow, (row.match_id, row.seat)) is None:
                s.add(row)
        return row

    def share_analysis(self, match_id: str, seat: int) -> bool:
        """Let anyone read the seat's analysis; False when there is none."""
        with self.session() as s:
            row = s.get(AnalysisRow, (match_id, seat))
            if row is None:
                return False
            row.shared = True
            return True


def _postgres_session(dbapi_connection: Any, _record: Any) -> None:
    """Every write of a process goes through one thread: a row or table lock held long by someone
    else (a hand-run transaction, another release's migration) must not stall them all.  A
    statement that waits longer than :data:`LOCK_TIMEOUT_SECONDS` fails, and so does a migration
    that would queue every query behind its lock.  Set on each new connection, so that options the
    URL gives (``?options=-csearch_path%3D...``) stay as they are."""
    autocommit = dbapi_connection.autocommit
    dbapi_connection.autocommit = True
    cursor = dbapi_connection.cursor()
    cursor.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_SECONDS * 1000)}")
    cursor.close()
    dbapi_connection.autocommit = autocommit


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class AlreadySeatedError(RuntimeError):
    """A player would hold two seats of one match."""


class SessionEndedError(RuntimeError):
    """A guest's session ended before a seat was claimed in it."""


class MatchEndedError(RuntimeError):
    """A match's last move came after the match had ended (another process ended it first)."""


class DatabaseInUseError(RuntimeError):
    """Another server process owns this SQLite database."""


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (absolute), or None for another backend or an in-memory database."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        return None
    database = parsed.database or ""
    if database.startswith("file:"):  # a URI filename (?uri=true)
        if parsed.query.get("mode") == "memory":
            return None
        database = urlparse(database).path
    if database in ("", ":memory:"):
        return None
    return Path(database).resolve()


class FileOwner:
    """An exclusive OS lock on ``<database>.lock`` that one server process holds for its whole life.

    Two processes on one SQLite file would each keep their own live copy of the matches (two players
    got the same seat; moves on one never reached the other's clients), so a second one is refused.
    The lock is the kernel's (``flock``, ``LockFileEx`` on Windows): a killed process loses it at once,
    and a restart on the same file just works.  The lock file itself stays (removing it would race).
    """

    def __init__(self, url: str) -> None:
        self.database = sqlite_file(url)
        self.path = None if self.database is None else self.database.with_name(self.database.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise DatabaseInUseError at once.  Nothing to do for an in-memory
        database or another backend."""
        if self.path is None or self._fd is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock(fd)
        except OSError:
            os.close(fd)
            raise DatabaseInUseError(
                f"another masques server is using the SQLite database {self.database} (it holds "
                f"{self.path}). A SQLite database serves one server process; to run several processes "
                "on one database, use PostgreSQL: --database postgresql+psycopg://... --redis redis://..."
            ) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


if sys.platform == "win32":  # pragma: no cover - the tests run on Linux
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _lock_players(s: Session | Connection, player_ids: Iterable[str | None]) -> None:
    """Hold these players' seat locks until the transaction ends (PostgreSQL; SQLite runs one write
    at a time already).  A log-in that hands a guest's seats to an account and a rematch that seats
    that guest take turns: without it, a log-in whose read of the guest's seats ran before the
    rematch committed left the new seat to the guest, whose session had ended."""
    dialect = s.dialect if isinstance(s, Connection) else s.get_bind().dialect
    if dialect.name != "postgresql":
        return
    for key in sorted({_player_lock_key(p) for p in player_ids if p}):
        s.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


def _player_lock_key(player_id: str) -> int:
    digest = hashlib.blake2b(f"masques-seats:{player_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _with_holders_now(s: Session, match_id: str, rematch: NewMatch) -> NewMatch:
    """The rematch's people's seats as the old match's seats are held now, read in the transaction
    that makes it: a guest who logged in meanwhile plays it as the account the seat went to.  The
    holders' locks come first (then the rows, read again): a log-in of one of them waits for this
    transaction, or this one for it."""
    if s.get_bind().dialect.name == "postgresql":
        _lock_players(s, list(s.scalars(select(SeatRow.player_id).where(SeatRow.match_id == match_id))))
    rows = list(s.scalars(select(SeatRow).where(SeatRow.match_id == match_id).with_for_update()))
    seats = list(rematch.seats)
    for row in rows:
        turned = (row.seat + 1) % len(seats)
        if seats[turned].kind == "human":
            seats[turned] = replace(seats[turned], token_hash=row.token_hash, player_id=row.player_id)
    return replace(rematch, seats=seats)
