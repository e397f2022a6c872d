"""What one client may ask of the server: rate limits, caps, and who a client is.

A client is its address (the account, once accounts exist).  Every limit is on by default and can be
set by a ``masques serve`` flag or an environment variable (``MASQUES_RATE_LIMITS``,
``MASQUES_MAX_BOT_MATCHES``, ``MASQUES_MAX_SPECTATORS``, ``MASQUES_BOT_TIMEOUT``,
``MASQUES_GRACE_SECONDS``, ``MASQUES_OPEN_EXPIRY_SECONDS``, ``MASQUES_ABANDONED_BOT``,
``MASQUES_LEADERBOARD_MIN_GAMES``, ``MASQUES_ANALYSIS_LEVEL``).  Rate limits use
the ``limits`` package's moving windows, in memory or, when the servers share a Redis, in Redis so
that every process counts the same requests.  A refusal is a :class:`ServerError` with status 429 and
the seconds to wait, which the HTTP layer sends as ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from .errors import ServerError

log = logging.getLogger("masques.limits")

REDIS_SECONDS = 2.0
"""How long a count may wait for Redis before this process counts on its own: a Redis that stopped
answering must not leave every request unanswered."""

RATE_DEFAULTS: dict[str, str] = {
    "api": "300/minute",  # any /api request: the catch-all against floods
    "create": "10/minute;60/hour",  # new matches and rematches
    "join": "30/minute",
    "read": "60/minute",  # the heavy reads: listings, records, replays
    "connect": "60/minute",  # WebSocket connections
    "message": "20/second;400/minute",  # WebSocket messages
    "login": "10/minute;100/hour",  # log-in attempts (failures also back off per username)
    "signup": "5/minute;30/hour",  # new accounts and guests
    "chat": "1/second;20/minute",  # chat lines
    "analysis": "1/second;20/minute",  # analyses asked for and hints
}
"""Default rate limits per client, in the ``limits`` notation (``N/period``, several joined by ';')."""


ANALYSIS_LEVELS = ("easy", "medium", "hard", "expert")
"""The bot levels that can analyse (the search levels: they value every move they try)."""

SEAT_BOTS = ("random", "greedy", "easy", "medium", "hard", "expert")
"""The bot levels that may take over an abandoned seat (the server's own, no extra needed)."""

DAY = 86400.0
RANGES: dict[str, tuple[float, float, str]] = {
    "max_bot_matches": (0, 1_000_000, "--max-bot-matches / MASQUES_MAX_BOT_MATCHES"),
    "max_spectators": (0, 1_000_000, "--max-spectators / MASQUES_MAX_SPECTATORS"),
    "bot_timeout": (0.001, DAY, "--bot-timeout / MASQUES_BOT_TIMEOUT"),
    "grace_seconds": (0.001, 365 * DAY, "--grace-seconds / MASQUES_GRACE_SECONDS"),
    "open_expiry_seconds": (0.001, 3650 * DAY, "--open-expiry-seconds / MASQUES_OPEN_EXPIRY_SECONDS"),
    "leaderboard_min_games": (0, 1_000_000, "--leaderboard-min-games / MASQUES_LEADERBOARD_MIN_GAMES"),
}
"""Each number's allowed range (inclusive) and where it is set: a value outside it (negative, not a
number, infinite, beyond what a date can hold) stops the server at start-up with one line."""


@dataclass(frozen=True)
class Limits:
    """The server's limits.  ``rates`` maps each kind of request to its limits (absent: unlimited)."""

    rates: Mapping[str, str] = field(default_factory=lambda: dict(RATE_DEFAULTS))
    max_bot_matches: int = 3
    """Matches with a bot seat that one client may have open or running at once."""
    max_spectators: int = 200
    """Spectator connections one match accepts (per server process)."""
    bot_timeout: float = 60.0
    """Seconds one bot decision may take before it is retried (then played by a lower level)."""
    grace_seconds: float = 120.0
    """Seconds a person may be away from a running match before the others may give their seat to
    a bot or claim the match (with no other person present, a bot takes it by itself)."""
    open_expiry_seconds: float = 86400.0
    """Seconds an open match waits for its players before it expires and leaves the lobby."""
    abandoned_bot: str = "medium"
    """The bot level that takes over an abandoned seat (and a seat whose time ran out, where the
    match chose that a bot plays on)."""
    leaderboard_min_games: int = 5
    """Rated games an account needs to appear on a leaderboard."""
    analysis_level: str = "expert"
    """The bot level that analyses finished matches' decisions."""
    any_seed: bool = False
    """Accept a chosen seed for any match, not only where at most one seat is a person: for an
    operator who deals the same cards at every table of an event (``MASQUES_ANY_SEED=1``)."""

    @classmethod
    def parse_rates(cls, text: str) -> dict[str, str]:
        """``off``, or ``kind=limit,kind=limit`` over the defaults (``create=5/minute,read=off``)."""
        text = text.strip()
        if text.lower() in ("off", "none", "0"):
            return {}
        rates = dict(RATE_DEFAULTS)
        if text.lower() in ("", "on", "default"):
            return rates
        for part in text.split(","):
            kind, sep, value = part.partition("=")
            kind, value = kind.strip(), value.strip()
            if not sep or kind not in RATE_DEFAULTS:
                raise ValueError(
                    f"rate limits are 'off' or kind=limit pairs with kinds {', '.join(RATE_DEFAULTS)} "
                    f"(got {part!r})"
                )
            if value.lower() == "off":
                rates.pop(kind, None)
                continue
            try:
                parse_many(value)
            except ValueError:
                raise ValueError(f"rate limit {value!r} for {kind} is not like '10/minute'") from None
            rates[kind] = value
        return rates

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Limits:
        """The defaults, then the environment, then explicit values (``None`` values are ignored)."""
        env = os.environ if environ is None else environ
        limits = cls()
        if "MASQUES_RATE_LIMITS" in env:
            limits = replace(limits, rates=cls.parse_rates(env["MASQUES_RATE_LIMITS"]))
        numbers: dict[str, float] = {}
        for name, var in (
            ("max_bot_matches", "MASQUES_MAX_BOT_MATCHES"),
            ("max_spectators", "MASQUES_MAX_SPECTATORS"),
            ("bot_timeout", "MASQUES_BOT_TIMEOUT"),
            ("grace_seconds", "MASQUES_GRACE_SECONDS"),
            ("open_expiry_seconds", "MASQUES_OPEN_EXPIRY_SECONDS"),
            ("leaderboard_min_games", "MASQUES_LEADERBOARD_MIN_GAMES"),
        ):
            if var in env:
                try:
                    numbers[name] = float(env[var])
                except ValueError:
                    raise ValueError(f"{var} must be a number (got {env[var]!r})") from None
                _check_range(name, numbers[name])
        if "MASQUES_ANY_SEED" in env:
            limits = replace(limits, any_seed=env["MASQUES_ANY_SEED"].strip().lower() in ("1", "true", "yes"))
        limits = replace(
            limits,
            max_bot_matches=int(numbers.get("max_bot_matches", limits.max_bot_matches)),
            max_spectators=int(numbers.get("max_spectators", limits.max_spectators)),
            bot_timeout=numbers.get("bot_timeout", limits.bot_timeout),
            grace_seconds=numbers.get("grace_seconds", limits.grace_seconds),
            open_expiry_seconds=numbers.get("open_expiry_seconds", limits.open_expiry_seconds),
            leaderboard_min_games=int(numbers.get("leaderboard_min_games", limits.leaderboard_min_games)),
        )
        if "MASQUES_ABANDONED_BOT" in env:
            limits = replace(limits, abandoned_bot=env["MASQUES_ABANDONED_BOT"].strip())
        if "MASQUES_ANALYSIS_LEVEL" in env:
            limits = replace(limits, analysis_level=env["MASQUES_ANALYSIS_LEVEL"].strip())
        given = {k: v for k, v in overrides.items() if v is not None}
        if isinstance(given.get("rates"), str):
            given["rates"] = cls.parse_rates(given["rates"])
        for name, value in given.items():
            if name in RANGES:
                _check_range(name, value)
        limits = replace(limits, **given)
        if limits.analysis_level not in ANALYSIS_LEVELS:
            raise ValueError(
                f"the analysis level is one of {', '.join(ANALYSIS_LEVELS)} (got {limits.analysis_level!r})"
            )
        if limits.abandoned_bot not in SEAT_BOTS:
            raise ValueError(
                f"MASQUES_ABANDONED_BOT is one of {', '.join(SEAT_BOTS)} (got {limits.abandoned_bot!r})"
            )
        return limits


def _check_range(name: str, value: float) -> None:
    low, high, where = RANGES[name]
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{where} must be from {low:g} to {high:g} (got {value!r})")


_client_secret = bytearray()  # the key in use (empty: none)


def use_client_secret(secret: bytes) -> None:
    """Key the clients' names from now on (the server does at its start, with its database's
    ``client_key`` secret, the same for all its processes)."""
    _client_secret[:] = secret


def client_key(host: str | None, secret: bytes | None = None) -> str:
    """A stable name for a client address, what storage and logs keep instead of the address: a
    hash keyed with the site's secret (``secret``, else the one in use), so that a log shipped
    elsewhere does not give the addresses back by trying every one.  Without a key (a tool with no
    database), a plain hash: pseudonymous only."""
    key = bytes(_client_secret) if secret is None else secret
    raw = (host or "unknown").encode()
    digest = hmac.new(key, raw, hashlib.sha256) if key else hashlib.sha256(raw)
    return "ip:" + digest.hexdigest()[:20]


class RateLimiter:
    """Moving-window counters per client and kind of request."""

    def __init__(self, limits: Limits, redis_url: str | None = None) -> None:
        self.items: dict[str, list[RateLimitItem]] = {k: parse_many(v) for k, v in limits.rates.items()}
        storage: Storage = (
            RedisStorage(
                redis_url,
                implementation="redispy",
                key_prefix="masques-limits",
                socket_timeout=REDIS_SECONDS,
                socket_connect_timeout=REDIS_SECONDS,
            )
            if redis_url
            else MemoryStorage()
        )
        self.limiter = MovingWindowRateLimiter(storage)
        # While Redis does not answer, each process counts on its own rather than refuse everything.
        self.fallback = MovingWindowRateLimiter(MemoryStorage()) if redis_url else None

    async def check(self, kind: str, client: str) -> None:
        """Count one request of ``kind`` by ``client``, or raise 429."""
        items = self.items.get(kind)
        if not items:
            return
        try:
            await self._check(self.limiter, items, kind, client)
        except ServerError:
            raise
        except Exception as exc:  # Redis down or its connection lost
            if self.fallback is None:
                raise
            log.warning("rate limits counted in this process: Redis did not answer (%s)", type(exc).__name__)
            await self._check(self.fallback, items, kind, client)

    @staticmethod
    async def _check(
        limiter: MovingWindowRateLimiter, items: list[RateLimitItem], kind: str, client: str
    ) -> None:
        for item in items:
            if not await limiter.test(item, kind, client):
                await _refuse(limiter, item, kind, client)
        # Requests that arrive together all pass the test before any is counted (on Redis each
        # step is a round trip): the count itself says whether the window still had room.
        for item in items:
            if not await limiter.hit(item, kind, client):
                await _refuse(limiter, item, kind, client)


async def _refuse(limiter: MovingWindowRateLimiter, item: RateLimitItem, kind: str, client: str) -> NoReturn:
    stats = await limiter.get_window_stats(item, kind, client)
    wait = max(1, math.ceil(stats.reset_time - time.time()))
    raise ServerError(
        429,
        "rate_limited",
        f"too many {kind} requests: at most {item} per client; try again in {wait} s",
        retry_after=wait,
    )
