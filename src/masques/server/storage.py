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

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    create_engine,
    event,
    func,
    select,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

MIGRATIONS = Path(__file__).with_name("migrations")


class Base(DeclarativeBase):
    pass


def _now() -> datetime:
    return datetime.now(UTC)


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

    @property
    def the_seed(self) -> int:
        """The game's seed, whichever column holds it."""
        return int(self.game_seed) if self.game_seed is not None else int(self.seed)


class SeatRow(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("match_id", "seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # human or a bot kind
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    join_key: Mapped[str | None] = mapped_column(String(64), nullable=True)  # hash of an Idempotency-Key


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
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Storage:
    """Thin repository over one database."""

    def __init__(self, url: str) -> None:
        self.url = url
        connect_args: dict[str, Any] = {}
        if url.startswith("sqlite"):
            connect_args = {"check_same_thread": False, "timeout": 30}
        self.engine: Engine = create_engine(url, connect_args=connect_args, pool_pre_ping=True)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def migrate(self) -> None:
        """Apply the Alembic migrations up to head (idempotent)."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        with self.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self.sessions() as session, session.begin():
            yield session

    # -- matches ------------------------------------------------------------------------------
    def create_match(
        self,
        match_id: str,
        game: str,
        rules_version: str,
        options: dict[str, Any],
        *,
        seed: int,
        seats: list[tuple[str, str | None]],
        rematch_of: str | None = None,
        turn_seconds: int = 0,
        secret: str | None = None,
        chance: int = 1,
        seeded: bool = False,
        owner: str | None = None,
    ) -> None:
        legacy = chance == 1 and 0 <= seed < 2**31
        with self.session() as s:
            s.add(
                MatchRow(
                    id=match_id,
                    game=game,
                    rules_version=rules_version,
                    options=options,
                    seed=seed if legacy else 0,
                    game_seed=None if legacy else str(seed),
                    status="open",
                    rematch_of=rematch_of,
                    turn_seconds=turn_seconds,
                    secret=secret,
                    chance=chance,
                    seeded=seeded,
                    owner=owner,
                )
            )
            for number, (kind, name) in enumerate(seats):
                s.add(SeatRow(match_id=match_id, seat=number, kind=kind, name=name))

    def match(self, match_id: str) -> MatchRow | None:
        with self.session() as s:
            return s.get(MatchRow, match_id)

    def matches(self, statuses: tuple[str, ...]) -> list[MatchRow]:
        with self.session() as s:
            rows = s.scalars(
                select(MatchRow)
                .where(MatchRow.status.in_(statuses))
                .order_by(MatchRow.created.desc())
                .limit(200)
            )
            return list(rows)

    def listing(
        self, statuses: tuple[str, ...], limit: int = 200
    ) -> list[tuple[MatchRow, list[SeatRow], int]]:
        """The lobby's rows, most recent first, with their seats and versions (no replay)."""
        with self.session() as s:
            rows = list(
                s.scalars(
                    select(MatchRow)
                    .where(MatchRow.status.in_(statuses))
                    .order_by(MatchRow.created.desc())
                    .limit(limit)
                )
            )
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

    def actions(self, match_id: str) -> list[int]:
        with self.session() as s:
            rows = s.scalars(
                select(ActionRow.action).where(ActionRow.match_id == match_id).order_by(ActionRow.number)
            )
            return list(rows)

    def log(self, match_id: str) -> list[tuple[int, int]]:
        """(seat, action) for every action, in order."""
        with self.session() as s:
            rows = s.execute(
                select(ActionRow.seat, ActionRow.action)
                .where(ActionRow.match_id == match_id)
                .order_by(ActionRow.number)
            )
            return [(int(seat), int(action)) for seat, action in rows]

    def claim_seat(
        self, match_id: str, seat: int, name: str, token: str, join_key: str | None = None
    ) -> bool:
        """Give a free human seat to a player; False if it was taken meanwhile."""
        with self.session() as s:
            row = s.scalars(
                select(SeatRow).where(SeatRow.match_id == match_id, SeatRow.seat == seat).with_for_update()
            ).one()
            if row.kind != "human" or row.token_hash is not None:
                return False
            row.name = name
            row.token_hash = hash_token(token)
            row.join_key = join_key
            return True

    def release_seat(self, match_id: str, seat: int) -> None:
        with self.session() as s:
            row = s.scalars(select(SeatRow).where(SeatRow.match_id == match_id, SeatRow.seat == seat)).one()
            row.name = None
            row.token_hash = None
            row.join_key = None

    def set_status(self, match_id: str, status: str) -> None:
        with self.session() as s:
            row = s.get(MatchRow, match_id)
            if row is not None:
                row.status = status

    def append_action(self, match_id: str, number: int, seat: int, action: int, status: str | None) -> None:
        """Commit one action (and the match's new status) in one transaction.

        The unique (match, number) constraint makes a second writer of the same version fail, so
        two server processes can never both apply an action at the same position.
        """
        with self.session() as s:
            s.add(ActionRow(match_id=match_id, number=number, seat=seat, action=action))
            if status is not None:
                row = s.get(MatchRow, match_id)
                if row is not None:
                    row.status = status


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


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
