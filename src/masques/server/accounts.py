"""Who a request comes from: accounts, guests and their sign-in sessions.

A player is an account (a username and an Argon2id hash of its password) or a guest (a cookie only,
which can later become an account and keep its matches).  A signed-in browser holds a random session
token in an HttpOnly, SameSite=Lax cookie; the server keeps only its hash, with the session's CSRF
token, which the client reads from ``GET /api/me`` and sends back in ``X-CSRF-Token`` on every
cookie-authenticated request that changes something.  Requests without the cookie (API clients with
seat tokens) are not cookie-authenticated and need no CSRF token; a request whose ``Origin`` names
another site is refused whatever it carries.

Failed log-ins slow down: after a few failures for one username or one address, the next attempt
must wait, doubling each time (:class:`LoginGuard`).  Passwords and tokens are never logged and
never sent back.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import re
import secrets
import time
import unicodedata
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from zxcvbn import zxcvbn

from ..extras import require
from .errors import ServerError
from .security import reserved_name, skeleton

log = logging.getLogger("masques.accounts")

COOKIE = "masques_session"
SECURE_COOKIE = "__Host-" + COOKIE
"""The session cookie's name over HTTPS: a ``__Host-`` cookie is one only this host can set, over
HTTPS, for every path, so a page of a sibling subdomain (or a plain-http one on the way) cannot
plant one of its own sessions in a visitor's browser under the name the server reads."""
CSRF_HEADER = "x-csrf-token"
SESSION_IDLE_SECONDS = 30 * 24 * 3600
DEVICE_COOKIE = "masques_device"
DEVICE_SECONDS = 180 * 24 * 3600
"""A browser that logged in to an account is known to it this long after its last log-in."""
DEVICES_KEPT = 20
"""The browsers known to one account at most (the last used)."""
"""A session nobody used for this long is over."""
SESSION_TOUCH_SECONDS = 300
"""A session's last use is written at most this often (reads stay reads)."""

HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
"""Argon2id with OWASP's first recommended setting (19 MiB, 2 passes, 1 lane); the cost of one
hash on the machine at hand is measured by ``benchmarks/login.py``.  Hashes made with other
parameters are upgraded at the next log-in."""

USERNAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,19}")
USERNAME_RULE = "3 to 20 characters: letters, digits, '_' and '-', starting with a letter"
MIN_PASSWORD = 8
MAX_PASSWORD = 200
MIN_STRENGTH = 2
JUDGED_CHARACTERS = 16
"""How much of a password zxcvbn judges: its work grows exponentially with the characters it could
read as substitutions ("@" for "a", "0" for "o"), and twenty of them took it seconds.  A password
whose first sixteen characters are hard to guess is not guessed from a list either."""
"""The least zxcvbn score (0 to 4) a password needs: 2 is beyond about 10**8 guesses."""
COMMON_PASSWORDS = frozenset(
    [
        "password",
        "password1",
        "password12",
        "password123",
        "passw0rd",
        "p@ssw0rd",
        "12345678",
        "123456789",
        "1234567890",
        "12345678910",
        "123123123",
        "987654321",
        "11111111",
        "00000000",
        "88888888",
        "qwertyui",
        "qwertyuiop",
        "qwerty123",
        "qwerty12",
        "1qaz2wsx",
        "1q2w3e4r",
        "1q2w3e4r5t",
        "zaq12wsx",
        "azerty123",
        "azertyuiop",
        "motdepasse",
        "iloveyou",
        "iloveyou1",
        "sunshine",
        "princess",
        "football",
        "baseball",
        "welcome1",
        "welcome123",
        "abc12345",
        "abcd1234",
        "superman",
        "trustno1",
        "letmein1",
        "letmein123",
        "starwars",
        "whatever",
        "dragon123",
        "monkey123",
        "master123",
        "shadow123",
        "michael1",
        "jennifer",
        "computer",
        "internet",
        "samsung1",
        "changeme",
        "changeme1",
        "default1",
        "secret12",
        "asdfghjk",
        "asdfghjkl",
        "zxcvbnm1",
        "q1w2e3r4",
        "1234qwer",
        "qwer1234",
        "hallo123",
        "passwort",
        "schatz123",
        "masques1",
    ]
)
"""Passwords that a guess list tries first; each is at least :data:`MIN_PASSWORD` long."""


def username_key(username: str) -> str:
    """The form usernames are compared in (``Ann`` and ``ann`` are one account)."""
    return username.casefold()


def username_look(username: str) -> str:
    """How a username looks (its skeleton): "paul" and "pauI" (capital i) look alike, so only one
    of them can be an account, and no one passes for the other at the table."""
    return skeleton(username)


def check_username(username: str) -> str:
    if not USERNAME.fullmatch(username):
        raise ServerError(400, "bad_username", f"a username has {USERNAME_RULE}")
    if reserved_name(username):
        raise ServerError(
            400, "bad_username", f"{username!r} reads as a bot's or the site's name: choose another"
        )
    return username


def check_password(password: str, username: str | None) -> None:
    """Refuse a password that is short, over-long, the username, one repeated character, or common
    (judged in its normal form, the one that is hashed)."""
    password = normal_password(password)
    if len(password) < MIN_PASSWORD:
        raise ServerError(400, "weak_password", f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise ServerError(400, "weak_password", f"a password has at most {MAX_PASSWORD} characters")
    lowered = password.casefold()
    if username is not None and username_key(username) in lowered:
        raise ServerError(400, "weak_password", "a password may not contain the username")
    if len(set(password)) < 3 or lowered in COMMON_PASSWORDS:
        raise ServerError(
            400, "weak_password", "this password is among the first ones guessed: choose another"
        )
    # zxcvbn's estimate, from its lists of leaked passwords, words, names and keyboard patterns
    estimate = zxcvbn(password[:JUDGED_CHARACTERS], user_inputs=[] if username is None else [username])
    if estimate["score"] < MIN_STRENGTH:
        warning = estimate["feedback"]["warning"] or "it would be guessed early"
        raise ServerError(400, "weak_password", f"this password is too easy to guess ({warning.rstrip('.')})")


def normal_password(password: str) -> str:
    """The form a password is hashed in (Unicode NFC): "é" typed as one character or as "e" and
    an accent, as keyboards and systems differ, is one password."""
    return unicodedata.normalize("NFC", password)


def password_hash(password: str) -> str:
    """The Argon2id hash of the password's normal form (costly on purpose: the server calls
    :func:`hash_password`, off its event loop)."""
    return HASHER.hash(normal_password(password))


def password_matches(stored: str | None, password: str) -> bool:
    """Whether ``password`` is the one hashed in ``stored``: its normal form, or for a hash made
    before passwords were normalised, the text as typed (``was_normalised`` tells the caller to
    hash it again).  An unknown account costs the same hashes as a known one."""
    forms = [normal_password(password)]
    if forms[0] != password:
        forms.append(password)
    if stored is None:
        for form in forms:  # the same cost: no timing hint of a guest or an unknown name
            HASHER.hash(form)
        return False
    right = False
    for form in forms:  # every form is tried: the cost does not depend on which one matches
        with contextlib.suppress(VerifyMismatchError, VerificationError, InvalidHashError):
            right = HASHER.verify(stored, form) or right
    return right


async def hash_password(password: str) -> str:
    """:func:`password_hash`, off the event loop."""
    return await asyncio.to_thread(password_hash, password)


async def verify_password(stored: str | None, password: str) -> bool:
    """:func:`password_matches`, off the event loop."""
    return await asyncio.to_thread(password_matches, stored, password)


def was_normalised(password: str) -> bool:
    """Whether the password as typed differs from its normal form (its hash may predate the form)."""
    return normal_password(password) != password


def needs_rehash(stored: str) -> bool:
    return HASHER.check_needs_rehash(stored)


def new_player_id() -> str:
    return secrets.token_hex(8)


def new_session_token() -> str:
    return secrets.token_urlsafe(32)


def new_csrf() -> str:
    return secrets.token_hex(16)


def token_hash(token: str) -> str:
    return hashlib.sha256(f"session/{token}".encode()).hexdigest()


@dataclass
class _Failures:
    count: int = 0
    until: float = 0.0  # monotonic time before which no attempt is heard
    last: float = 0.0  # monotonic time of the last failure


def device_cookie(player_id: str) -> str:
    """The name of the cookie by which a browser that logged in to this player is known to it."""
    return f"{DEVICE_COOKIE}_{player_id}"


def attempt_keys(username_key: str, address: str, *, known_device: bool) -> tuple[str, ...]:
    """The counts a log-in attempt is judged by: this username from this address, the address,
    and the username from everywhere, which a browser that logged in to the account before
    ignores (many addresses guessing lock out strangers, not the owner's own browsers)."""
    here = f"try:{username_key}|{address}"
    return (here, address) if known_device else (here, address, f"user:{username_key}")


class LoginGuard:
    """Backoff on failed log-ins, in this process's memory (one process; several share theirs
    through Redis: :class:`SharedLoginGuard`), counted per username and address together, per
    address, and per username (see :func:`attempt_keys`).

    The first :data:`FREE` failures of a username from one address (:data:`FREE_ADDRESS` of an
    address, :data:`FREE_USERNAME` of a username from everywhere) cost nothing; each one after
    makes the next attempt wait twice as long as the last, up to :data:`LONGEST` seconds.  A
    success clears the count of its username and address; a count is forgotten :data:`KEEP`
    seconds after its last failure."""

    FREE = 4
    FREE_ADDRESS = 20
    """An address may be many people's (a school, a phone network): it gets more failures free."""
    FREE_USERNAME = 30
    """Guesses at one username from many addresses: only strangers' browsers wait after these."""
    FIRST_WAIT = 2.0
    LONGEST = 900.0
    KEEP = 3600.0  # a failure older than this is forgotten

    def __init__(self) -> None:
        self._failures: dict[str, _Failures] = {}
        """Each key's count, in the order of their last failure (the oldest first)."""

    @classmethod
    def free(cls, key: str) -> int:
        """The failures on ``key`` that cost nothing."""
        if key.startswith("ip:"):
            return cls.FREE_ADDRESS
        return cls.FREE_USERNAME if key.startswith("user:") else cls.FREE

    @classmethod
    def wait_after(cls, key: str, count: int) -> float:
        """Seconds the next attempt on ``key`` waits after its ``count``-th failure in a row."""
        free = cls.free(key)
        return 0.0 if count <= free else min(cls.LONGEST, cls.FIRST_WAIT * 2 ** (count - free - 1))

    @staticmethod
    def refuse(wait: float) -> None:
        """Raise 429 with the seconds to wait, if there are any."""
        if wait > 0:
            seconds = math.ceil(wait)
            raise ServerError(
                429,
                "too_many_attempts",
                f"too many failed attempts: try again in {seconds} s",
                retry_after=seconds,
            )

    async def attempt(self, *keys: str) -> None:
        """Raise 429 with the seconds to wait if any key is in its backoff; else count this attempt
        as a failure already, in the same step: guesses sent all at once would otherwise all pass
        the check before the first of them failed.  A right one takes its count back
        (:meth:`succeeded`)."""
        now = time.monotonic()
        self.refuse(max((self._failures[k].until - now for k in keys if k in self._failures), default=0.0))
        self._forget_old(now)
        for key in keys:
            entry = self._failures.pop(key, None) or _Failures()  # last now: to the end of the order
            self._failures[key] = entry
            if now - entry.last > self.KEEP:
                entry.count = 0
            entry.count += 1
            entry.last = now
            if wait := self.wait_after(key, entry.count):
                entry.until = now + wait

    async def succeeded(self, *keys: str) -> None:
        """The attempt on ``keys`` was right: the first key (the username from this address) is
        cleared, and the others take back the count the attempt added (a count back at none is
        let go of: every log-in would otherwise leave its address and username behind)."""
        first, *others = keys
        self._failures.pop(first, None)
        for key in others:
            entry = self._failures.get(key)
            if entry is not None and entry.count > 0:
                entry.count -= 1
                if entry.count <= self.free(key):  # the wait this attempt's count set goes with it
                    entry.until = 0.0
                if not entry.count:
                    del self._failures[key]

    def forget(self) -> None:
        """Forget every count this process keeps (the shared ones stay in Redis)."""
        self._failures.clear()

    async def close(self) -> None:
        """Let go of what the guard holds (nothing, in memory)."""

    def _forget_old(self, now: float) -> None:
        """Let go of the counts whose last failure is older than :data:`KEEP`: the oldest come first,
        so this stops at the first one still kept."""
        while self._failures:
            key = next(iter(self._failures))
            if now - self._failures[key].last <= self.KEEP:
                return
            del self._failures[key]


_ATTEMPT = """
-- KEYS: a count and an until per key; ARGV: now, keep, first wait, longest, then each key's free count
local now = tonumber(ARGV[1])
local wait = 0
for i = 2, #KEYS, 2 do
  local until_ = redis.call('GET', KEYS[i])
  if until_ and tonumber(until_) - now > wait then wait = tonumber(until_) - now end
end
if wait > 0 then return tostring(wait) end
for i = 1, #KEYS, 2 do
  local count = redis.call('INCR', KEYS[i])
  redis.call('EXPIRE', KEYS[i], ARGV[2])
  local free = tonumber(ARGV[5 + (i - 1) / 2])
  if count > free then
    local next_wait = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ (count - free - 1))
    redis.call('SET', KEYS[i + 1], tostring(now + next_wait), 'EX', ARGV[2])
  end
end
return '0'
"""

_SUCCEEDED = """
-- KEYS: the first key's count and until (cleared), then each other key's count and until (one
-- taken back, and the wait cleared when the count is within its free ones); ARGV: their free counts
redis.call('DEL', KEYS[1], KEYS[2])
for i = 3, #KEYS, 2 do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count > 0 then
    count = redis.call('DECR', KEYS[i])
    if count <= tonumber(ARGV[(i - 1) / 2]) then redis.call('DEL', KEYS[i + 1]) end
  end
end
return 0
"""


class SharedLoginGuard(LoginGuard):
    """The same backoff, kept in Redis: every server process counts the same failures, so spreading
    guesses over the processes gains nothing, and a restart forgets nothing.  A key's count lives
    :data:`KEEP` seconds after its last failure."""

    PREFIX = "masques-login:"

    def __init__(self, redis_url: str) -> None:
        super().__init__()
        require("redis", "sharing matches and limits through Redis")
        import redis.asyncio as redis
        from redis.exceptions import RedisError

        self.client = redis.Redis.from_url(redis_url)
        self._unanswered: tuple[type[Exception], ...] = (OSError, RedisError)
        # One script each, run by Redis as one step: no other attempt comes between the check and
        # the count, whichever process sent it.
        self._attempt = self.client.register_script(_ATTEMPT)
        self._succeeded = self.client.register_script(_SUCCEEDED)

    async def attempt(self, *keys: str) -> None:
        try:
            waiting = await self._attempt(
                keys=[self.PREFIX + k + part for k in keys for part in (":count", ":until")],
                args=[
                    repr(time.time()),
                    int(self.KEEP),
                    repr(self.FIRST_WAIT),
                    repr(self.LONGEST),
                    *(self.free(k) for k in keys),
                ],
            )
        except self._unanswered as exc:  # Redis down: this process counts on its own meanwhile
            log.warning(
                "log-in backoff counted in this process: Redis did not answer (%s)", type(exc).__name__
            )
            await super().attempt(*keys)
            return
        self.refuse(float(waiting))

    async def succeeded(self, *keys: str) -> None:
        first, *others = keys
        await super().succeeded(*keys)
        try:
            await self._succeeded(
                keys=[self.PREFIX + k + part for k in (first, *others) for part in (":count", ":until")],
                args=[self.free(k) for k in others],
            )
        except self._unanswered as exc:
            log.warning("log-in backoff: Redis did not answer (%s)", type(exc).__name__)

    async def close(self) -> None:
        await self.client.aclose()
