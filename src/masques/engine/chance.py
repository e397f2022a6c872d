"""Where every game's chance comes from: a keystream that reveals nothing about its seed.

Version 2 (:data:`CHANCE_VERSION`), the current generator, is built as follows, so that anyone can
recompute it (the tests hold it to this text and to RFC 8439's vectors):

* ``derive_seed(secret, purpose)`` is keyed BLAKE2b (RFC 7693) with a 32-byte digest: the key is
  ``secret`` as 32 bytes big-endian, the message is ``purpose`` in UTF-8, the personalisation
  string is ``b"masques.chance"``; the digest is read as a big-endian integer.  It is a PRF of the
  secret, so its outputs reveal neither the secret nor the outputs for other purposes.
* ``Chance(seed, purpose)`` keys ChaCha20 (RFC 8439) with ``derive_seed(seed, purpose)`` as 32 bytes
  big-endian.  Chunk ``c`` (``c`` = 0, 1, ...) of the stream is :data:`CHUNK_BYTES` bytes of
  ChaCha20 keystream with the nonce ``c`` as 12 bytes little-endian and block counters from 1 (the
  keystream RFC 8439's AEAD encrypts with, which is how the ``cryptography`` package's
  ChaCha20-Poly1305 computes it in one call).  The chunks, concatenated, are read as unsigned 32-bit
  little-endian words ``w0, w1, ...``.
* Draws read words in order: ``getrandbits(k)`` joins the next ``m = ceil(k / 32)`` words, the
  first one lowest, and keeps the top ``k`` of those ``32 m`` bits; ``_randbelow(n)`` (behind
  ``randrange``, ``choice``, ``shuffle``, ``sample``) draws ``getrandbits(n.bit_length())`` until
  it is below ``n``; ``random()`` is ``((a >> 5) * 2**26 + (b >> 6)) * 2**-53`` for the next two
  words ``a, b`` (the Mersenne Twister's formula).

A seed is an integer ``0 <= seed < 2**256``.  The server draws one with :func:`new_secret`; the
command line, the arena and the tests may pass small integers, which go through the same keyed hash.
Each game names its streams ``"<game>/deal"`` and the like, so that no two draws share one.

Version 1 (:data:`LEGACY_CHANCE`) is the generator of records made before version 2: Python's
Mersenne Twister seeded with the seed itself, whose outputs give its state and seed away.  It stays
only so that those records replay exactly; :func:`stream` maps each purpose to the Twister the old
code built for it, and that mapping is the one place the old generator lives.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import sys
from array import array
from collections.abc import Callable, MutableSequence
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from .core import EngineError

CHANCE_VERSION: int = 2
"""The generator new states use (ChaCha20 keyed through BLAKE2b, see the module docstring)."""

LEGACY_CHANCE: int = 1
"""Python's Mersenne Twister seeded with the seed: the generator of records made before version 2."""

CHANCE_VERSIONS: tuple[int, ...] = (LEGACY_CHANCE, CHANCE_VERSION)

SEED_BITS = 256
SEED_LIMIT = 1 << SEED_BITS
PERSON = b"masques.chance"
CHUNK_BYTES = 2048
"""Keystream bytes computed at once: enough for any game's whole deal in one call."""

_WORDS = CHUNK_BYTES // 4
_ZEROS = bytes(CHUNK_BYTES)
_STATE_TAG = "masques-chance"


class ChanceError(EngineError, ValueError):
    """A seed outside ``0 <= seed < 2**256``, or an unknown generator version or purpose."""


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is an int in ``0 <= seed < 2**256``; raise :class:`ChanceError` otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ChanceError(f"a seed is an integer, not {type(seed).__name__}")
    if not 0 <= seed < SEED_LIMIT:
        raise ChanceError(f"a seed is an integer from 0 to 2**{SEED_BITS} - 1 (got {seed})")
    return seed


def check_version(version: object) -> int:
    """Return ``version`` if it names a generator; raise :class:`ChanceError` otherwise."""
    if isinstance(version, bool) or not isinstance(version, int) or version not in CHANCE_VERSIONS:
        known = ", ".join(map(str, CHANCE_VERSIONS))
        raise ChanceError(f"chance version must be one of {known} (got {version!r})")
    return version


def new_secret() -> int:
    """A fresh 256-bit seed from the operating system's randomness."""
    return secrets.randbits(SEED_BITS)


def _derive(secret: int, purpose: str) -> bytes:
    key = check_seed(secret).to_bytes(32, "big")
    return hashlib.blake2b(purpose.encode("utf-8"), digest_size=32, key=key, person=PERSON).digest()


def derive_seed(secret: int, purpose: str) -> int:
    """The seed of ``purpose`` under ``secret``: keyed BLAKE2b, one-way (see the module docstring)."""
    return int.from_bytes(_derive(secret, purpose), "big")


def keystream(key: bytes, nonce: bytes, size: int) -> bytes:
    """``size`` bytes of RFC 8439 ChaCha20 keystream under ``key`` and ``nonce``, block counter from 1."""
    return ChaCha20Poly1305(key).encrypt(nonce, bytes(size), None)[:size]


class Chance(random.Random):
    """A deterministic cryptographic stream behind the ``random.Random`` interface.

    Keyed by a seed and a purpose (see the module docstring for the construction).  Pickling and
    ``copy.deepcopy`` go through :meth:`getstate` / :meth:`setstate`, which hold the key and the
    position in the stream.  The words are read through an array iterator, which is the cheapest
    way CPython offers to take the next one (it is as fast as the Mersenne Twister's draws).
    """

    def __init__(self, seed: int = 0, purpose: str = "") -> None:
        # random.Random.__init__ would seed the Mersenne Twister underneath, which is never used.
        self.purpose = purpose
        self.seed(seed)

    def seed(self, a: Any = None, version: int = 2) -> None:
        """Restart the stream from seed ``a`` (a fresh secret if None), keeping the purpose.
        ``version`` is ``random.Random``'s and is ignored: there is one way to key a Chance."""
        self._restart(_derive(new_secret() if a is None else a, self.purpose), 0, 0)

    def _restart(self, key: bytes, chunk: int, index: int) -> None:
        self._aead = ChaCha20Poly1305(key)
        self._key = key
        self._chunk = chunk - 1
        self._refill()
        for _ in range(index):
            self._next()
        self.gauss_next: float | None = None

    def _refill(self) -> Callable[[], int]:
        """Move to the next chunk; return (and keep) the function that reads its next word."""
        self._chunk += 1
        words = array("I")
        nonce = self._chunk.to_bytes(12, "little")
        words.frombytes(self._aead.encrypt(nonce, _ZEROS, None)[:CHUNK_BYTES])
        if sys.byteorder == "big":  # pragma: no cover - the words are little-endian everywhere
            words.byteswap()
        self._iter = iter(words)
        self._next = self._iter.__next__
        return self._next

    def _word(self) -> int:
        try:
            return self._next()
        except StopIteration:
            return self._refill()()

    def _randbelow(self, n: int) -> int:
        """A uniform int in ``[0, n)``: ``getrandbits(n.bit_length())`` until below ``n``, inlined."""
        k = n.bit_length()
        if k > 32 or n <= 0:
            return self._randbelow_big(n)
        shift = 32 - k
        nxt = self._next
        while True:
            try:
                r = nxt() >> shift
            except StopIteration:
                nxt = self._refill()
                continue
            if r < n:
                return r

    def _randbelow_big(self, n: int) -> int:
        if n <= 0:
            raise ValueError(f"_randbelow needs n > 0 (got {n})")
        k = n.bit_length()
        r = self.getrandbits(k)
        while r >= n:
            r = self.getrandbits(k)
        return r

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Fisher-Yates as ``random.Random.shuffle`` does it, with ``_randbelow`` inlined."""
        if len(x) > 1 << 32:  # pragma: no cover - no game shuffles that much
            super().shuffle(x)
            return
        nxt = self._next
        for i in reversed(range(1, len(x))):
            n = i + 1
            shift = 32 - n.bit_length()
            while True:
                try:
                    r = nxt() >> shift
                except StopIteration:
                    nxt = self._refill()
                    continue
                if r < n:
                    break
            x[i], x[r] = x[r], x[i]

    def random(self) -> float:
        """A float in ``[0, 1)`` from two words, as the Mersenne Twister makes it (53 bits)."""
        return ((self._word() >> 5) * 67108864.0 + (self._word() >> 6)) * (1.0 / 9007199254740992.0)

    def getrandbits(self, k: int, /) -> int:
        """``k`` random bits: the top ``k`` bits of the next ``ceil(k / 32)`` words, the first one lowest."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k <= 32:
            return self._word() >> (32 - k) if k else 0
        m = (k + 31) // 32
        out = 0
        for j in range(m):
            out |= self._word() << (32 * j)
        return out >> (32 * m - k)

    def _position(self) -> int:
        """Words read so far in the current chunk (the array iterator pickles its index)."""
        reduced = self._iter.__reduce__()
        if isinstance(reduced, tuple) and len(reduced) == 3:
            return int(reduced[2])
        return _WORDS  # an exhausted iterator forgets its index

    def getstate(self) -> tuple[Any, ...]:
        return (
            _STATE_TAG,
            CHANCE_VERSION,
            self.purpose,
            self._key,
            self._chunk,
            self._position(),
            self.gauss_next,
        )

    def setstate(self, state: tuple[Any, ...]) -> None:
        if not isinstance(state, tuple) or len(state) != 7 or state[:2] != (_STATE_TAG, CHANCE_VERSION):
            raise ValueError("not the state of a Chance stream")
        _, _, purpose, key, chunk, index, gauss_next = state
        if not isinstance(key, bytes) or len(key) != 32 or not 0 <= index <= _WORDS or chunk < 0:
            raise ValueError("not the state of a Chance stream")
        self.purpose = str(purpose)
        self._restart(key, int(chunk), int(index))
        self.gauss_next = gauss_next

    def words_read(self) -> int:
        """How many 32-bit words the stream has given out (what a draw costs, for tests and benchmarks)."""
        return self._chunk * _WORDS + self._position()

    def __repr__(self) -> str:
        return f"<Chance {self.purpose!r} at word {self.words_read()}>"


def _legacy_stream(seed: int, purpose: str) -> random.Random:
    """Version 1: the Mersenne Twister each purpose was drawn from before version 2 existed."""
    game, _, rest = purpose.partition("/")
    kind, _, arg = rest.partition("/")
    if kind in ("deal", "first") and not arg:
        return random.Random(seed)  # every deal, and Blokus 3D's random first colour
    if (game, kind) == ("mascarade", "lot") and arg.isdigit():
        return random.Random(f"mascarade-lot-{seed}-{arg}")  # arg: actions played when the game ended
    if (game, kind) == ("arena", "seat") and arg.isdigit():
        return random.Random(seed * 1000 + int(arg))  # an arena bot's own stream
    raise ChanceError(f"chance version {LEGACY_CHANCE} has no stream {purpose!r}")


def stream(seed: int, purpose: str, *, version: int = CHANCE_VERSION) -> random.Random:
    """The generator for ``purpose`` under ``seed``: a :class:`Chance` for version 2, or the
    Mersenne Twister that version 1 used for that purpose (so old records replay exactly)."""
    check_seed(seed)
    if check_version(version) == CHANCE_VERSION:
        return Chance(seed, purpose)
    return _legacy_stream(seed, purpose)
