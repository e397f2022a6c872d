"""The chance generator: published known-answer vectors, the documented construction, domain
separation, determinism, the seed range, the state round trip and the legacy generator."""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import pickle
import random
import struct

import pytest

from masques.engine import EngineError, Game, game_class, game_names, load_game
from masques.engine.chance import (
    CHANCE_VERSION,
    CHUNK_BYTES,
    LEGACY_CHANCE,
    PERSON,
    Chance,
    ChanceError,
    check_seed,
    derive_seed,
    keystream,
    new_secret,
    stream,
)

# -- an independent ChaCha20 (RFC 8439 section 2.3), written from the RFC's text ------------------

MASK32 = 0xFFFFFFFF


def _rotl(v: int, c: int) -> int:
    return ((v << c) & MASK32) | (v >> (32 - c))


def _quarter(x: list[int], a: int, b: int, c: int, d: int) -> None:
    x[a] = (x[a] + x[b]) & MASK32
    x[d] = _rotl(x[d] ^ x[a], 16)
    x[c] = (x[c] + x[d]) & MASK32
    x[b] = _rotl(x[b] ^ x[c], 12)
    x[a] = (x[a] + x[b]) & MASK32
    x[d] = _rotl(x[d] ^ x[a], 8)
    x[c] = (x[c] + x[d]) & MASK32
    x[b] = _rotl(x[b] ^ x[c], 7)


def chacha20_block(key: bytes, counter: int, nonce: bytes) -> bytes:
    constants = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)
    state = [*constants, *struct.unpack("<8L", key), counter, *struct.unpack("<3L", nonce)]
    x = state.copy()
    for _ in range(10):
        _quarter(x, 0, 4, 8, 12)
        _quarter(x, 1, 5, 9, 13)
        _quarter(x, 2, 6, 10, 14)
        _quarter(x, 3, 7, 11, 15)
        _quarter(x, 0, 5, 10, 15)
        _quarter(x, 1, 6, 11, 12)
        _quarter(x, 2, 7, 8, 13)
        _quarter(x, 3, 4, 9, 14)
    return struct.pack("<16L", *((a + b) & MASK32 for a, b in zip(x, state, strict=True)))


def reference_keystream(key: bytes, nonce: bytes, size: int, counter: int = 1) -> bytes:
    blocks = [chacha20_block(key, counter + i, nonce) for i in range((size + 63) // 64)]
    return b"".join(blocks)[:size]


# -- RFC 8439 vectors (section 2.4.2; appendix A.1 test vector #2; appendix A.2 test vector #2) ----

SUNSCREEN = (
    b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
    b"sunscreen would be it."
)
SUNSCREEN_CIPHERTEXT = bytes.fromhex(
    "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
    "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
    "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
    "5af90bbf74a35be6b40b8eedf2785e42874d"
)
A1_VECTOR_2 = bytes.fromhex(  # key 0, nonce 0, block counter 1: the keystream block itself
    "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
    "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"
)
A2_PLAINTEXT_2 = (
    b"Any submission to the IETF intended by the Contributor for publication as all or part of an IETF "
    b"Internet-Draft or RFC and any statement made within the context of an IETF activity is considered "
    b'an "IETF Contribution". Such statements include oral statements in IETF sessions, as well as '
    b"written and electronic communications made at any time or place, which are addressed to"
)
A2_CIPHERTEXT_2 = bytes.fromhex(
    "a3fbf07df3fa2fde4f376ca23e82737041605d9f4f4f57bd8cff2c1d4b7955ec"
    "2a97948bd3722915c8f3d337f7d370050e9e96d647b7c39f56e031ca5eb6250d"
    "4042e02785ececfa4b4bb5e8ead0440e20b6e8db09d881a7c6132f420e527950"
    "42bdfa7773d8a9051447b3291ce1411c680465552aa6c405b7764d5e87bea85a"
    "d00f8449ed8f72d0d662ab052691ca66424bc86d2df80ea41f43abf937d3259d"
    "c4b2d0dfb48a6c9139ddd7f76966e928e635553ba76c5c879d7b35d49eb2e62b"
    "0871cdac638939e25e8a1e0ef9d5280fa8ca328b351c3c765989cbcf3daa8b6c"
    "cc3aaf9f3979c92b3720fc88dc95ed84a1be059c6499b9fda236e7e818b04b0b"
    "c39c1e876b193bfe5569753f88128cc08aaa9b63d1a16f80ef2554d7189c411f"
    "5869ca52c5b83fa36ff216b9c1d30062bebcfd2dc5bce0911934fda79a86f6e6"
    "98ced759c3ff9b6477338f3da4f9cd8514ea9982ccafb341b2384dd902f3d1ab"
    "7ac61dd29c6f21ba5b862f3730e37cfdc4fd806c22f221"
)
VECTORS = [
    (bytes(range(32)), bytes.fromhex("000000000000004a00000000"), SUNSCREEN, SUNSCREEN_CIPHERTEXT),
    (bytes(32), bytes(12), bytes(64), A1_VECTOR_2),
    (bytes(31) + b"\x01", bytes(11) + b"\x02", A2_PLAINTEXT_2, A2_CIPHERTEXT_2),
]


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(("key", "nonce", "plaintext", "ciphertext"), VECTORS)
def test_keystream_matches_rfc8439_vectors(
    key: bytes, nonce: bytes, plaintext: bytes, ciphertext: bytes
) -> None:
    """The keystream Chance reads (block counter from 1) is RFC 8439's ChaCha20."""
    assert len(plaintext) == len(ciphertext)
    assert _xor(plaintext, keystream(key, nonce, len(plaintext))) == ciphertext


@pytest.mark.parametrize(("key", "nonce", "plaintext", "ciphertext"), VECTORS)
def test_reference_chacha20_matches_rfc8439_vectors(
    key: bytes, nonce: bytes, plaintext: bytes, ciphertext: bytes
) -> None:
    """The tests' own ChaCha20, the oracle of the construction test below, passes the same vectors."""
    assert _xor(plaintext, reference_keystream(key, nonce, len(plaintext))) == ciphertext


def test_blake2b_matches_rfc7693_vector() -> None:
    """RFC 7693 appendix A: BLAKE2b-512("abc"), the hash derive_seed keys."""
    assert hashlib.blake2b(b"abc").hexdigest() == (
        "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
        "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
    )


# -- the documented construction ------------------------------------------------------------------


def documented_key(secret: int, purpose: str) -> bytes:
    return hashlib.blake2b(
        purpose.encode("utf-8"), digest_size=32, key=secret.to_bytes(32, "big"), person=b"masques.chance"
    ).digest()


class DocumentedStream:
    """The construction of the module docstring, step by step, on the tests' own ChaCha20."""

    def __init__(self, seed: int, purpose: str, chunks: int) -> None:
        key = documented_key(seed, purpose)
        data = b"".join(
            reference_keystream(key, c.to_bytes(12, "little"), CHUNK_BYTES) for c in range(chunks)
        )
        self.words = list(struct.unpack(f"<{len(data) // 4}L", data))
        self.at = 0

    def word(self) -> int:
        self.at += 1
        return self.words[self.at - 1]

    def below(self, n: int) -> int:
        k = n.bit_length()
        while True:
            r = self.bits(k)
            if r < n:
                return r

    def random(self) -> float:
        a, b = self.word() >> 5, self.word() >> 6
        return (a * 2**26 + b) / 2**53

    def bits(self, k: int) -> int:
        m = (k + 31) // 32
        out = 0
        for j in range(m):
            out |= self.word() << (32 * j)
        return out >> (32 * m - k)


@pytest.mark.parametrize(("seed", "purpose"), [(0, "masker/deal"), (2**256 - 1, "arena/seat/3"), (7, "é/✓")])
def test_stream_is_the_documented_construction(seed: int, purpose: str) -> None:
    """derive_seed, the chunks, the words and every kind of draw, past a chunk's end."""
    assert derive_seed(seed, purpose) == int.from_bytes(documented_key(seed, purpose), "big")
    assert PERSON == b"masques.chance"
    words_per_chunk = CHUNK_BYTES // 4
    ref = DocumentedStream(seed, purpose, chunks=3)
    rng = stream(seed, purpose)
    assert isinstance(rng, Chance)
    for n in (1, 2, 3, 10, 36, 100, 2**31, 2**32, 2**32 + 1, 2**64 - 1, 2**64):
        assert rng.randrange(n) == ref.below(n)
    assert rng.random() == ref.random()
    assert rng.getrandbits(5) == ref.bits(5)
    assert rng.getrandbits(64) == ref.bits(64)
    assert rng.getrandbits(200) == ref.bits(200)
    assert rng.getrandbits(0) == 0
    while ref.at < words_per_chunk + 10:  # across the first chunk's end
        assert rng.randrange(1000) == ref.below(1000)
    items, expected = list(range(52)), list(range(52))
    rng.shuffle(items)
    for i in reversed(range(1, len(expected))):
        j = ref.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected


def test_purposes_and_seeds_give_independent_streams() -> None:
    """Domain separation: another purpose or another seed, another stream and another derived seed."""
    draws = {}
    for seed in (0, 1, 2**255):
        for purpose in ("masker/deal", "maske/deal", "arena/seat/0", "arena/seat/1", ""):
            draws[seed, purpose] = tuple(stream(seed, purpose).getrandbits(64) for _ in range(4))
    assert len(set(draws.values())) == len(draws)
    derived = {derive_seed(s, p) for s, p in draws}
    assert len(derived) == len(draws)
    assert all(0 <= d < 2**256 for d in derived)


def test_same_seed_and_purpose_give_the_same_draws() -> None:
    a, b = stream(12345, "mascarade/deal"), stream(12345, "mascarade/deal")
    deck_a, deck_b = list(range(100)), list(range(100))
    a.shuffle(deck_a)
    b.shuffle(deck_b)
    assert deck_a == deck_b != list(range(100))
    assert [a.random() for _ in range(300)] == [b.random() for _ in range(300)]
    assert a.sample(range(1000), 20) == b.sample(range(1000), 20)
    assert a.choices(range(10), k=50) == b.choices(range(10), k=50)


def test_draws_are_spread_evenly() -> None:
    """A sanity check of _randbelow's rejection: 30,000 draws below 3 split near a third each."""
    rng = stream(99, "spread")
    counts = [0, 0, 0]
    for _ in range(30_000):
        counts[rng.randrange(3)] += 1
    assert all(9_500 < c < 10_500 for c in counts), counts
    floats = [rng.random() for _ in range(10_000)]
    assert min(floats) >= 0.0 and max(floats) < 1.0
    assert 0.48 < sum(floats) / len(floats) < 0.52


@pytest.mark.parametrize("seed", [0, 1, 2**31, 2**53, 2**128 + 5, 2**256 - 1])
def test_seeds_up_to_256_bits_are_accepted(seed: int) -> None:
    assert check_seed(seed) == seed
    assert isinstance(stream(seed, "x").random(), float)
    for name in game_names():
        state = load_game(name).new_initial_state(seed)
        assert state.seed == seed and state.chance == CHANCE_VERSION


@pytest.mark.parametrize("seed", [-1, 2**256, 2**300, 1.5, "1", True, None])
def test_seeds_out_of_range_or_of_another_type_are_refused(seed: object) -> None:
    with pytest.raises(ChanceError, match="seed"):
        check_seed(seed)
    with pytest.raises(ChanceError):
        stream(seed, "x")  # type: ignore[arg-type]
    for name in game_names():
        with pytest.raises(ValueError, match="seed"):
            load_game(name).new_initial_state(seed)  # type: ignore[arg-type]
    assert issubclass(ChanceError, EngineError) and issubclass(ChanceError, ValueError)


@pytest.mark.parametrize("version", [0, 3, True, "2", None])
def test_unknown_versions_are_refused(version: object) -> None:
    with pytest.raises(ChanceError, match="chance version"):
        stream(1, "x", version=version)  # type: ignore[arg-type]
    for name in game_names():
        with pytest.raises(ChanceError, match="chance version"):
            load_game(name, {"random_first": True} if name == "blokus3d" else {}).new_initial_state(
                1,
                chance=version,  # type: ignore[arg-type]
            )


def test_new_secret_draws_256_bits() -> None:
    secrets_drawn = [new_secret() for _ in range(64)]
    assert all(0 <= s < 2**256 for s in secrets_drawn)
    assert len(set(secrets_drawn)) == 64
    # 64 draws all below 2**250 happen with probability 2**-384: the top bits are really drawn
    assert max(s.bit_length() for s in secrets_drawn) > 250


def test_state_round_trips_through_pickle_deepcopy_and_setstate() -> None:
    rng = stream(2**200 + 3, "maske/deal")
    assert isinstance(rng, Chance)
    for _ in range(CHUNK_BYTES // 8 + 17):  # into the second chunk (random() reads two words)
        rng.random()
    rng.gauss(0, 1)  # leaves gauss_next set
    state = rng.getstate()
    clones = [pickle.loads(pickle.dumps(rng)), copy.deepcopy(rng), copy.copy(rng)]
    restored = Chance()
    restored.setstate(state)
    expected = [rng.gauss(0, 1)] + [rng.getrandbits(64) for _ in range(600)]
    for other in [*clones, restored]:
        assert isinstance(other, Chance)
        assert [other.gauss(0, 1)] + [other.getrandbits(64) for _ in range(600)] == expected
    with pytest.raises(ValueError, match="Chance"):
        restored.setstate(random.Random(1).getstate())


def test_seed_restarts_the_stream_and_keeps_the_purpose() -> None:
    rng = Chance(5, "blokus3d/first")
    first = [rng.random() for _ in range(5)]
    rng.seed(5)
    assert [rng.random() for _ in range(5)] == first
    assert rng.purpose == "blokus3d/first"
    rng.seed(6)
    other = stream(6, "blokus3d/first")
    assert [rng.random() for _ in range(5)] == [other.random() for _ in range(5)] != first
    rng.seed()  # a fresh secret
    assert [rng.random() for _ in range(5)] != first
    with pytest.raises(ChanceError):
        rng.seed(-3)


def test_legacy_streams_are_the_old_mersenne_twisters() -> None:
    """Version 1 reproduces each purpose's old generator: the deals and Blokus 3D's first colour
    (``random.Random(seed)``), Mascarade's lot and the arena bots' streams."""
    for purpose in ("masker/deal", "maske/deal", "mascarade/deal", "blokus3d/deal", "blokus3d/first"):
        legacy = stream(31337, purpose, version=LEGACY_CHANCE)
        assert legacy.getstate() == random.Random(31337).getstate()
    assert (
        stream(8, "mascarade/lot/97", version=1).getstate() == random.Random("mascarade-lot-8-97").getstate()
    )
    assert stream(12, "arena/seat/3", version=1).getstate() == random.Random(12_003).getstate()
    for purpose in ("masker/other", "mascarade/lot/x", "arena/seat/", "play/bots"):
        with pytest.raises(ChanceError, match="no stream"):
            stream(1, purpose, version=LEGACY_CHANCE)


def test_versions_deal_differently_and_states_remember_theirs() -> None:
    """The same seed deals another game under each version; clones keep the version."""
    for name in game_names():
        options = {"random_first": True} if name == "blokus3d" else {}
        game = load_game(name, options)
        old = [game.new_initial_state(s, chance=1) for s in range(8)]
        new = [game.new_initial_state(s) for s in range(8)]
        assert [s.chance for s in old] == [1] * 8 and [s.chance for s in new] == [2] * 8
        assert [s.clone().chance for s in old] == [1] * 8
        deals_old = [{k: v for k, v in s.serialize().items() if k != "chance"} for s in old]
        deals_new = [{k: v for k, v in s.serialize().items() if k != "chance"} for s in new]
        assert deals_old != deals_new, name


def test_every_game_defaults_to_the_current_version() -> None:
    """The contract's default (written out in core.py) and every game's are CHANCE_VERSION."""
    params = inspect.signature(Game.new_initial_state).parameters
    assert params["chance"].default == CHANCE_VERSION
    assert params["chance"].kind is inspect.Parameter.KEYWORD_ONLY
    for name in game_names():
        sig = inspect.signature(game_class(name).new_initial_state).parameters
        assert sig["seed"].default == 0
        assert sig["chance"].default == CHANCE_VERSION


def test_no_observation_reveals_the_seed() -> None:
    """Nothing a seat or a spectator observes holds the seed, in any game or configuration."""
    seed = 2**255 + 1_234_567_891_011
    for name in game_names():
        cls = game_class(name)
        for options in cls.conformance_configurations():
            game = cls(options)
            state = game.new_initial_state(seed)
            rng = random.Random(0)
            for _ in range(6):
                for seat in [None, *range(game.num_players)]:
                    obs = state.observation(seat)
                    assert "seed" not in obs, (name, options)
                    assert str(seed) not in json.dumps(obs), (name, options)
                if state.is_terminal():
                    break
                state.apply(state.random_legal_action(rng))
