"""Mascarade rules, tested against the spec (``shared/spec/mascarade.md``, decisions MC-1 .. MC-9).

Every test names the decision it checks.  ``reference.py`` (loaded below from its path) is a slow, literal
reading of the rules: its legal-move generator and its move-by-move :class:`Model` are compared with the
engine on hand-built positions and on many random games.  Hand-built positions use
``MascaradeState(game, seed, hands, pool)`` with cards chosen from the real card set by their features.

Project decisions where the rulebook is silent (documented in ``games/mascarade/game.py``) are tested
as documented: placing the last card while the pool still has cards refills the hand and play goes on;
the lot that breaks ties is drawn from the seed at the end and shown as ``tie_break`` in every
observation from then on; hands are revealed at the end.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masques.engine import (
    SPECTATOR,
    TERMINAL,
    IllegalActionError,
    InvalidOptionError,
    MalformedActionError,
    load_game,
)
from masques.games.mascarade.game import (
    CARDS,
    COMPATIBLE,
    FEATURE_TABLE,
    PASS,
    SHARED,
    SQUARES,
    START,
    MascaradeGame,
    MascaradeState,
    cards_of,
    mask_of,
    square_name,
)

ROOT = Path(__file__).resolve().parents[3]
CARDS_JSON = ROOT / "src" / "masques" / "games" / "mascarade" / "cards.json"
GENERATOR = ROOT / "scripts" / "generate_mascarade_cards.py"
LANGUAGES = ("en", "fr", "de", "nl")
FEATURES = ("face", "hair", "eyes", "nose", "mouth")


def _load_module(name: str, path: Path) -> ModuleType:
    """Load a helper from its path under a name of its own (``tests`` has no packages)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ref = _load_module("mascarade_reference", Path(__file__).with_name("reference.py"))


# -- helpers ------------------------------------------------------------------------------------------
def game_of(players: int = 3, scoring: bool = False, matching: str = "every") -> MascaradeGame:
    game = load_game("mascarade", {"players": players, "scoring": scoring, "matching": matching})
    assert isinstance(game, MascaradeGame)
    return game


def build(
    hands: list[list[int]],
    pool: list[int] | None = None,
    *,
    scoring: bool = False,
    seed: int = 0,
    matching: str = "every",
) -> MascaradeState:
    """A hand-built position: seat 0 to place on the start square; ``pool[-1]`` is drawn next."""
    cards = [c for h in hands for c in h] + list(pool or [])
    assert len(cards) == len(set(cards)), "a card is used twice in a hand-built position"
    game = game_of(len(hands), scoring, matching)
    return MascaradeState(game, seed, [mask_of(h) for h in hands], list(pool or []))


def sq(name: str) -> int:
    """``"e5"`` -> square index (files a..j are columns, ranks 1..10 are rows from the top)."""
    return (int(name[1:]) - 1) * 10 + "abcdefghij".index(name[0])


def play(state: MascaradeState, *moves: str) -> None:
    """Apply moves in text notation, each of which must be legal."""
    for move in moves:
        action = state.action_from_str(move)
        assert action in state.legal_actions(), f"{move} should be legal; legal: {state.legal_actions()}"
        state.apply(action)


def hand(state: MascaradeState, seat: int) -> list[int]:
    return cards_of(state.hands[seat])


def unused(*groups: list[int] | tuple[int, ...] | set[int]) -> list[int]:
    taken = {c for g in groups for c in g}
    return [c for c in range(100) if c not in taken]


def stingy_state(players: int, scoring: bool, seed: int) -> tuple[MascaradeState, int]:
    """A shuffled deal where the cards missing the first card X come first (in hands, on top of the pool).

    After seat 0 lays X on e5, the next players hold nothing that fits and keep drawing cards that do
    not fit either: forced draws and passes with cards left in the pool (MC-7), which a plain random
    game almost never produces.  Returns the state and X.
    """
    rng = random.Random(seed)
    cards = list(range(100))
    rng.shuffle(cards)
    x = cards[0]
    misses = set(ref.disjoint_from([x]))
    order = [x, *(c for c in cards if c in misses), *(c for c in cards[1:] if c not in misses)]
    hands = [order[5 * s : 5 * s + 5] for s in range(players)]
    pool = order[5 * players :][::-1]  # order[5n] is drawn first
    return MascaradeState(game_of(players, scoring), seed, [mask_of(h) for h in hands], pool), x


def random_states(game: MascaradeGame, seed: int, stingy: bool = False) -> Iterator[MascaradeState]:
    """Every state of one random game (the same object, advanced), ending with the terminal one.

    ``stingy`` starts from :func:`stingy_state` with X laid first, so forced draws and passes happen.
    """
    if stingy:
        state, first = stingy_state(game.num_players, bool(game.options["scoring"]), seed)
        yield state
        state.apply(first * 100 + START)
    else:
        state = game.new_initial_state(seed)
    rng = random.Random(seed * 7 + 1)
    yield state
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        yield state


def assert_same_model(state: MascaradeState, model: Any) -> None:
    """Every field the rules determine, engine vs reference model."""
    assert [set(cards_of(h)) for h in state.hands] == model.hands
    assert state.pool == model.pool
    assert state.placed == model.placed
    assert state.scores_ == model.scores
    assert state.draws == model.draws
    assert state.is_terminal() == model.over
    if model.over:
        assert state.current_player == TERMINAL
        assert state.legal_actions() == []
        assert state.winner in model.tied
        assert state.winners() == [state.winner]
        if len(model.tied) == 1:
            assert state.tie_break is None
        else:
            assert state.tie_break == [*model.tied, state.winner]
    else:
        assert state.current_player == model.player
        assert state.drew_this_turn == model.drew_this_turn
        assert state.legal_actions() == model.legal()


# -- MC-2: the card data ------------------------------------------------------------------------------
def test_mc2_hundred_cards_with_five_features() -> None:
    """MC-2: 100 cards, ids 0..99 in order, each with the five features drawn from the feature table."""
    assert len(CARDS) == 100
    assert [c.id for c in CARDS] == list(range(100))
    assert tuple(FEATURE_TABLE) == FEATURES
    for card in CARDS:
        for feature, value in zip(FEATURES, card.features(), strict=True):
            keys = [v["key"] for v in FEATURE_TABLE[feature]["values"]]
            assert value in keys, f"card {card.id}: {feature}={value!r} is not one of {keys}"


def test_mc2_value_counts() -> None:
    """MC-2: face has 4 values (round, oval, square, heart), the others 5; each value on 25 / 20 cards."""
    faces = [v["key"] for v in FEATURE_TABLE["face"]["values"]]
    assert sorted(faces) == sorted(["round", "oval", "square", "heart"])
    for feature in FEATURES:
        values = [v["key"] for v in FEATURE_TABLE[feature]["values"]]
        assert len(values) == len(set(values)) == (4 if feature == "face" else 5)
        counts = Counter(getattr(c, feature) for c in CARDS)
        expected = 25 if feature == "face" else 20
        assert counts == dict.fromkeys(values, expected), f"{feature}: {counts}"


def test_mc2_cards_distinct_so_two_share_at_most_four() -> None:
    """MC-2: no double cards, so two different cards share at most 4 features."""
    assert len({c.features() for c in CARDS}) == 100
    for a in range(100):
        for b in range(100):
            if a != b:
                assert ref.shared(a, b) <= 4


def test_mc2_every_value_named_in_four_languages() -> None:
    """MC-2: every feature and value has a non-empty name in en/fr/de/nl, distinct within a feature."""
    for feature in FEATURES:
        names = FEATURE_TABLE[feature]["names"]
        for lang in LANGUAGES:
            assert isinstance(names[lang], str) and names[lang].strip(), f"{feature} has no {lang} name"
        values = FEATURE_TABLE[feature]["values"]
        for lang in LANGUAGES:
            words = [v[lang] for v in values]
            assert all(isinstance(w, str) and w.strip() for w in words), f"{feature}/{lang}: {words}"
            assert len(set(words)) == len(words), f"{feature}/{lang} names are not distinct: {words}"


def test_mc2_data_file_is_what_the_committed_generator_writes() -> None:
    """MC-2: cards.json is generated once by the committed script with a fixed seed, then frozen."""
    spec = importlib.util.spec_from_file_location("generate_mascarade_cards", GENERATOR)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    generated = generator.generate()
    text = CARDS_JSON.read_text("utf-8")
    assert json.loads(text) == generated
    assert text == json.dumps(generated, ensure_ascii=False, indent=1) + "\n"  # what --check compares
    assert generator.generate() == generated  # frozen: a rerun gives the same set
    assert [c.features() for c in CARDS] == [tuple(c[f] for f in FEATURES) for c in generated["cards"]]


def test_mc2_shared_and_compatible_tables_match_the_features() -> None:
    """MC-5/MC-9 rely on SHARED and COMPATIBLE: they must agree with the features, pair by pair."""
    for a in range(100):
        for b in range(100):
            assert SHARED[a][b] == ref.shared(a, b)
            assert bool(COMPATIBLE[a] >> b & 1) == (a != b and ref.shared(a, b) >= 1)


# -- MC-1, MC-3, MC-4: setup --------------------------------------------------------------------------
def test_mc1_board_and_start_square() -> None:
    """MC-1: a 10x10 board, start square at row 4, column 4 (e5); squares named a1 (top left) .. j10."""
    assert SQUARES == 100
    assert START == 4 * 10 + 4
    assert square_name(START) == "e5"
    assert square_name(0) == "a1" and square_name(9) == "j1" and square_name(90) == "a10"
    assert square_name(99) == "j10"
    assert sorted(square_name(s) for s in range(100)) == sorted(
        f"{f}{r}" for f in "abcdefghij" for r in range(1, 11)
    )
    assert all(sq(square_name(s)) == s for s in range(100))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mc3_deal(players: int) -> None:
    """MC-3: each player draws 5; the pool holds the other 100 - 5n cards; every card is somewhere."""
    game = game_of(players)
    assert game.num_players == players
    for seed in range(5):
        state = game.new_initial_state(seed)
        hands = [hand(state, s) for s in range(players)]
        assert [len(h) for h in hands] == [5] * players
        assert len(state.pool) == 100 - 5 * players
        everything = [c for h in hands for c in h] + state.pool
        assert sorted(everything) == list(range(100))
        assert state.placed == [] and state.scores_ == [0] * players and state.draws == [0] * players
        obs = state.observation(SPECTATOR)
        assert obs["hand_sizes"] == [5] * players and obs["pool_size"] == 100 - 5 * players


def test_mc3_shuffle_is_seeded() -> None:
    """MC-3: the pool is shuffled from the seed: same seed, same deal; other seeds, other deals."""
    game = game_of(3)
    deals = []
    for seed in range(10):
        a, b = game.new_initial_state(seed), game.new_initial_state(seed)
        assert a.serialize() == b.serialize()
        deals.append((tuple(a.hands), tuple(a.pool)))
    assert len(set(deals)) == 10


def test_mc3_options_defaults_and_player_counts() -> None:
    """MC-3: 3 players by default, 2 to 4 allowed, scoring off by default."""
    default = load_game("mascarade")
    assert default.num_players == 3 and default.options["scoring"] is False
    for players in (2, 3, 4):
        assert load_game("mascarade", {"players": players}).num_players == players


@pytest.mark.parametrize(
    "options",
    [
        {"players": 5},
        {"players": 6},
        {"players": 1},
        {"players": 0},
        {"players": "3"},
        {"players": True},
        {"scoring": "yes"},
        {"scoring": 1},
        {"colour": "red"},
    ],
)
def test_mc3_bad_options_raise(options: dict[str, object]) -> None:
    """MC-3 / MC-9 knobs: bad values raise InvalidOptionError naming the option."""
    with pytest.raises(InvalidOptionError) as excinfo:
        load_game("mascarade", options)
    assert excinfo.value.option == next(iter(options))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mc4_seat_zero_opens_on_the_start_square(players: int) -> None:
    """MC-4: seat 0 starts, and its only legal actions put one of its cards on e5."""
    game = game_of(players)
    for seed in range(5):
        state = game.new_initial_state(seed)
        assert state.current_player == 0
        mine = hand(state, 0)
        assert state.legal_actions() == sorted(c * 100 + START for c in mine)
        assert state.legal_actions() == ref.legal_actions({}, mine)
        elsewhere = mine[0] * 100 + START + 1
        with pytest.raises(IllegalActionError):
            state.apply(elsewhere)
        with pytest.raises(IllegalActionError):
            state.apply(PASS)


def test_mc4_hand_built_state_opens_on_start() -> None:
    """MC-4: a hand-built position also starts with seat 0 placing on the start square."""
    state = build([[10, 20, 30], [40, 50], [60]], [70, 80])
    assert state.current_player == 0
    assert state.legal_actions() == [1044, 2044, 3044]
    play(state, "20@e5")
    assert state.placed == [(20, START, 0)]


# -- MC-5: placement --------------------------------------------------------------------------------
def _two_neighbour_position(
    matching: str = "every", *, scoring: bool = False
) -> tuple[MascaradeState, dict[str, int]]:
    """X on e5, K on f5, Y on f4: the empty e4 touches X (below it) and Y (right of it)."""
    for x in range(100):
        for k in ref.compatible_with(x):
            for y in ref.compatible_with(k, exclude=[x]):
                used = {x, k, y}
                zs = [z for z in unused(used) if ref.shared(z, x) >= 1 and ref.shared(z, y) == 0]
                ws = [w for w in unused(used) if ref.shared(w, x) >= 1 and ref.shared(w, y) >= 1]
                if zs and ws and ws[0] != zs[0]:
                    cards = {"X": x, "K": k, "Y": y, "Z": zs[0], "W": ws[0]}
                    spare = unused(cards.values())[:2]
                    hands = [[x, y, spare[0]], [k, zs[0], ws[0], spare[1]]]
                    state = build(hands, scoring=scoring, matching=matching)
                    play(state, f"{x}@e5", f"{k}@f5", f"{y}@f4")
                    return state, cards
    raise AssertionError("no cards for the two-neighbour position")


def test_mc5_card_must_match_every_neighbour() -> None:
    """MC-5: a card sharing a feature with one neighbour but none with the other may not go there."""
    state, c = _two_neighbour_position()
    assert state.current_player == 1
    e4 = sq("e4")
    assert ref.shared(c["Z"], c["X"]) >= 1 and ref.shared(c["Z"], c["Y"]) == 0
    before = state.serialize()
    with pytest.raises(IllegalActionError) as excinfo:
        state.apply(c["Z"] * 100 + e4)
    assert "MC-5" in excinfo.value.reason
    assert state.serialize() == before
    assert state.is_legal(c["Z"] * 100 + sq("d5"))  # next to X only: fine
    assert state.is_legal(c["W"] * 100 + e4)  # matches both neighbours
    assert state.legal_actions() == ref.legal_actions(ref.board_of(state.placed), hand(state, 1))
    play(state, f"{c['W']}@e4")
    assert state.placed[-1] == (c["W"], e4, 1)


def test_mc5a_matching_one_needs_a_shared_feature_with_one_neighbour_only() -> None:
    """MC-5a, ``matching=one``: Z shares a feature with X and none with Y, and may go on e4 between
    them; a card sharing nothing with either may not; W (matching both) still may."""
    state, c = _two_neighbour_position("one")
    e4 = sq("e4")
    assert state.is_legal(c["Z"] * 100 + e4)
    assert state.is_legal(c["W"] * 100 + e4)
    assert state.legal_actions() == ref.legal_actions(ref.board_of(state.placed), hand(state, 1), "one")
    assert state.legal_actions() != ref.legal_actions(ref.board_of(state.placed), hand(state, 1), "every")
    play(state, f"{c['Z']}@e4")
    assert state.placed[-1] == (c["Z"], e4, 1)
    # a card sharing no feature with any neighbour of a square is refused there, citing MC-5a
    board = ref.board_of(state.placed)
    mine = hand(state, 0)
    refused = [
        (card, square)
        for card in mine
        for square in state.allowed
        if not any(ref.shared(card, board[n]) for n in ref.neighbours(square) if n in board)
    ]
    assert refused
    card, square = refused[0]
    with pytest.raises(IllegalActionError) as excinfo:
        state.apply(card * 100 + square)
    assert "MC-5a" in excinfo.value.reason


def test_mc5a_scoring_is_the_same_in_both_modes() -> None:
    """MC-5a / MC-9: under ``matching=one`` a placement still scores every shared feature with every
    adjacent card (nothing for a neighbour it does not match)."""
    for matching in ("every", "one"):
        state, c = _two_neighbour_position(matching, scoring=True)
        before = state.scores_[1]
        play(state, f"{c['W']}@e4")
        assert state.scores_[1] - before == ref.shared(c["W"], c["X"]) + ref.shared(c["W"], c["Y"])
    state, c = _two_neighbour_position("one", scoring=True)
    before = state.scores_[1]
    play(state, f"{c['Z']}@e4")
    assert state.scores_[1] - before == ref.shared(c["Z"], c["X"]) > 0


def test_mc5a_option_default_and_values() -> None:
    """MC-5a: ``every`` by default (MC-5 as written); ``one`` or ``every`` only; the observation says
    which rule is in force."""
    assert load_game("mascarade").options["matching"] == "every"
    assert load_game("mascarade", {"matching": "one"}).options["matching"] == "one"
    with pytest.raises(InvalidOptionError) as excinfo:
        load_game("mascarade", {"matching": "any"})
    assert excinfo.value.option == "matching"
    state = game_of(3, matching="one").new_initial_state(0)
    assert state.observation(0)["matching"] == "one"
    assert {"matching": "one"}.items() <= MascaradeGame.conformance_configurations()[-1].items()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]), scoring=st.booleans())
def test_mc5a_random_games_with_one_match_follow_the_reference(
    seed: int, players: int, scoring: bool
) -> None:
    """MC-5a .. MC-9 under ``matching=one``: legal moves, draws, scores and the end, vs the reference;
    and the sampler's worlds allow the seat exactly the moves the true state does."""
    game = game_of(players, scoring, "one")
    state = game.new_initial_state(seed)
    model = ref.Model(
        players, scoring, [set(cards_of(h)) for h in state.hands], list(state.pool), matching="one"
    )
    rng = random.Random(seed)
    assert_same_model(state, model)
    observations: list[Any] = []
    while not state.is_terminal():
        observations.append(state.observation(state.current_player))
        if len(state.history) % 10 == 3:
            world = game.sample_state(state.current_player, [observations[-1]], rng)
            assert world.legal_actions() == state.legal_actions()
        action = state.random_legal_action(rng)
        state.apply(action)
        model.apply(action)
        assert_same_model(state, model)
        assert len(state.history) <= game.max_game_length


def test_mc5_only_empty_squares_next_to_the_layout() -> None:
    """MC-5: occupied squares, squares touching no card and cards not in hand are all refused."""
    state, c = _two_neighbour_position()
    z = c["Z"]
    for target in ("e5", "f5", "f4"):  # occupied
        with pytest.raises(IllegalActionError, match="taken"):
            state.apply(z * 100 + sq(target))
    for target in ("a1", "e7", "h5", "j10", "c5"):  # touching no placed card
        with pytest.raises(IllegalActionError, match="touches no placed card"):
            state.apply(z * 100 + sq(target))
    with pytest.raises(IllegalActionError, match="not in your hand"):
        state.apply(c["X"] * 100 + sq("d5"))  # X is on the board, not in seat 1's hand
    # Only squares orthogonally adjacent to the layout appear, diagonals do not.
    board = ref.board_of(state.placed)
    for action in state.legal_actions():
        assert any(n in board for n in ref.neighbours(action % 100))
    diagonal_only = {sq(name) for name in ("d4", "d6", "g6", "e3", "g3")}
    assert not any(a % 100 in diagonal_only for a in state.legal_actions())


def test_mc5_no_rotation_in_the_action_space() -> None:
    """MC-5: cards are not rotated, so an action is just (card, square) or pass: 100 * 100 + 1 ids."""
    game = game_of(3)
    assert game.num_distinct_actions == 100 * 100 + 1
    assert PASS == 10000
    state = game.new_initial_state(3)
    assert state.action_to_json(12 * 100 + START) == {"card": 12, "square": "e5"}
    assert state.action_to_json(PASS) == {"pass": True}
    for action in range(game.num_distinct_actions):
        text = state.action_to_str(action)
        assert state.action_from_str(text) == action
        assert state.action_from_json(json.loads(json.dumps(state.action_to_json(action)))) == action
    assert state.action_to_str(1244) == "12@e5" and state.action_from_str("12@e5") == 1244


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.sampled_from([2, 3, 4]),
    scoring=st.booleans(),
    stingy=st.booleans(),
)
def test_mc5_to_mc9_random_games_follow_the_reference(
    seed: int, players: int, scoring: bool, stingy: bool
) -> None:
    """MC-5 .. MC-9: legal moves, draws, refills, scores and the end of random games, vs the reference.

    ``stingy`` games start from a deal that forces many draws and passes while the pool has cards (MC-7).
    """
    game = game_of(players, scoring)
    state, first = stingy_state(players, scoring, seed) if stingy else (game.new_initial_state(seed), None)
    model = ref.Model(players, scoring, [set(cards_of(h)) for h in state.hands], list(state.pool))
    rng = random.Random(seed)
    assert_same_model(state, model)
    if first is not None:
        state.apply(first * 100 + START)
        model.apply(first * 100 + START)
        assert_same_model(state, model)
    while not state.is_terminal():
        legal = state.legal_actions()
        assert state.num_legal_actions() == len(legal)
        assert state.is_legal(PASS) == (legal == [PASS])  # MC-7: pass only when nothing fits
        action = state.random_legal_action(rng)
        assert action in legal
        state.apply(action)
        model.apply(action)
        assert_same_model(state, model)
        assert len(state.history) <= game.max_game_length


def test_mc5_reference_cross_check_reaches_the_edges() -> None:
    """MC-5: the cross-check is not vacuous: random games place cards on every edge of the board."""
    edges: set[str] = set()
    for seed in range(6):
        game = game_of(2 + seed % 3)
        for state in random_states(game, seed):
            board = ref.board_of(state.placed)
            if not state.is_terminal():
                assert state.legal_actions() == ref.legal_actions(board, hand(state, state.current_player))
        for _, square, _ in state.placed:
            row, col = divmod(square, 10)
            edges |= {name for name, hit in (("top", row == 0), ("bottom", row == 9)) if hit}
            edges |= {name for name, hit in (("left", col == 0), ("right", col == 9)) if hit}
    assert edges == {"top", "bottom", "left", "right"}


# -- MC-6: refill -----------------------------------------------------------------------------------
def test_mc6_refill_to_five_from_the_top_of_the_pool() -> None:
    """MC-6: after a placement the player draws back to 5 cards; the next card is pool[-1]."""
    state = game_of(3).new_initial_state(11)
    top = state.pool[-1]
    first = hand(state, 0)[0]
    state.apply(first * 100 + START)
    assert len(hand(state, 0)) == 5 and top in hand(state, 0) and first not in hand(state, 0)
    assert len(state.pool) == 84


def test_mc6_more_than_five_draws_nothing() -> None:
    """MC-6: a player holding more than 5 after placing draws nothing (7 -> 6, 6 -> 5)."""
    fits = ref.compatible_with(0)[:3]  # seat 1 can place next to card 0: it draws nothing either
    rest = unused([0], fits)
    for size in (7, 6):
        pool = rest[10:17]
        state = build([[0, *rest[: size - 1]], fits], pool)
        play(state, "0@e5")
        assert hand(state, 0) == rest[: size - 1]
        assert state.pool == pool and not state.drew_this_turn


def test_mc6_partial_refill_and_empty_pool() -> None:
    """MC-6: refill stops when the pool runs out; with an empty pool there is no refill at all."""
    state = build([[1, 2], [3, 4]], [9])
    play(state, "1@e5")
    assert hand(state, 0) == [2, 9] and state.pool == []
    state = build([[1, 2, 5], [3, 4]], [])
    play(state, "1@e5")
    assert hand(state, 0) == [2, 5] and state.pool == []


# -- MC-7: forced draw, pass ------------------------------------------------------------------------
def _cards_missing(x: int) -> list[int]:
    return ref.disjoint_from([x])


def test_mc7_forced_draw_then_place_that_card() -> None:
    """MC-7: nothing fits -> exactly one card is drawn at once; it is placed; then no refill (5 held)."""
    x = 0
    bad = _cards_missing(x)
    good = ref.compatible_with(x, exclude=bad)[0]
    extra, *refill = unused([x, good], bad[:11])[:6]
    state = build([[x, bad[0]], bad[1:6], bad[6:11]], [extra, good, *refill[:4]])
    play(state, f"{x}@e5")
    assert hand(state, 0) == sorted([bad[0], *refill[:4]])  # refilled to 5
    # Seat 1 holds nothing that fits: its turn starts with one card drawn, the top of the pool.
    assert state.current_player == 1
    assert hand(state, 1) == sorted([*bad[1:6], good])
    assert state.pool == [extra]
    assert state.draws == [0, 1, 0] and state.drew_this_turn
    obs = state.observation(2)
    assert obs["hand_sizes"] == [5, 6, 5] and obs["draws"] == [0, 1, 0] and obs["drew_this_turn"] is True
    assert state.legal_actions() == ref.placements(ref.board_of(state.placed), [good])
    assert PASS not in state.legal_actions()
    before = state.serialize()
    with pytest.raises(IllegalActionError, match="MC-7"):
        state.apply(PASS)  # something fits: passing is illegal
    assert state.serialize() == before
    state.apply(state.legal_actions()[0])
    assert hand(state, 1) == bad[1:6]  # back to 5: no refill, the pool keeps its card
    assert state.pool == [extra]


def test_mc7_forced_draw_that_does_not_fit_then_pass() -> None:
    """MC-7: the single drawn card does not fit -> pass is the only action; the extra card is kept."""
    x = 0
    bad = _cards_missing(x)
    good = ref.compatible_with(x, exclude=bad)[0]
    refill = unused([x, good], bad[:13])[:4]
    # seat 1 draws bad[12] only, although good lies just under it
    state = build([[x, bad[0]], bad[1:6], bad[6:11]], [good, bad[12], *refill])
    play(state, f"{x}@e5")
    assert state.current_player == 1 and state.drew_this_turn
    assert hand(state, 1) == sorted([*bad[1:6], bad[12]])
    assert state.pool == [good]
    assert state.legal_actions() == [PASS]
    state.apply(PASS)
    assert len(hand(state, 1)) == 6 and bad[12] in hand(state, 1)
    assert state.draws == [0, 1, 1]  # seat 2 could not place either: it drew the next card (good)
    assert state.current_player == 2 and hand(state, 2) == sorted([*bad[6:11], good])
    assert state.legal_actions() == ref.placements(ref.board_of(state.placed), [good])


def test_mc7_no_draw_when_the_pool_is_empty() -> None:
    """MC-7: with an empty pool a player who cannot place draws nothing and must pass."""
    x = 0
    bad = _cards_missing(x)
    state = build([[x, bad[0]], bad[1:6], bad[6:11]], [])
    play(state, f"{x}@e5")
    assert state.current_player == 1
    assert not state.drew_this_turn and state.draws == [0, 0, 0]
    assert hand(state, 1) == bad[1:6]
    assert state.legal_actions() == [PASS]
    state.apply(PASS)
    assert hand(state, 1) == bad[1:6] and state.current_player == 2


def test_mc7_draw_exactly_when_nothing_fits() -> None:
    """MC-7: at the start of a turn the player draws one card if and only if nothing in hand fits."""
    outcomes = Counter[str]()
    for players in (2, 3, 4):
        game = game_of(players)
        for seed in range(3):
            states = random_states(game, seed, stingy=seed > 0)
            state = next(states)
            while not state.is_terminal():
                nxt = (state.current_player + 1) % players
                waiting, pool = hand(state, nxt), list(state.pool)
                state = next(states)
                if state.is_terminal() or state.current_player != nxt:
                    continue
                fits = bool(ref.placements(ref.board_of(state.placed), waiting))
                if fits or not pool:
                    assert hand(state, nxt) == waiting and not state.drew_this_turn
                    outcomes["fits" if fits else "empty pool"] += 1
                else:
                    # the mover refilled first; the waiting player then drew the next card on top
                    left = len(state.pool)
                    assert state.pool == pool[:left]
                    assert hand(state, nxt) == sorted([*waiting, pool[left]]) and state.drew_this_turn
                    outcomes["drew"] += 1
    assert outcomes["fits"] > 100 and outcomes["drew"] > 20 and outcomes["empty pool"] > 5, outcomes


# -- MC-8: the end ------------------------------------------------------------------------------------
def test_mc8a_last_card_with_empty_pool_wins_at_once() -> None:
    """MC-8 a: placing the last card while the pool is empty wins immediately."""
    bad = _cards_missing(0)
    state = build([[0], bad[0:5], bad[5:10]], [])
    play(state, "0@e5")
    assert state.is_terminal() and state.current_player == TERMINAL
    assert state.winners() == [0] and state.returns() == [1.0, 0.0, 0.0]
    assert state.tie_break is None and state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="over"):
        state.apply(PASS)
    # MC-8 b scores minus the cards in hand: an empty hand scores a plain 0, which prints as "0"
    assert [f"{score:g}" for score in state.scores()] == ["0", "-5", "-5"]


def test_mc8a_last_card_with_cards_in_the_pool_refills_and_play_goes_on() -> None:
    """MC-8 a (project decision): the pool is not empty, so the player refills to 5 and play continues."""
    fits = ref.compatible_with(0)[:6]  # seats 1 and 2 can place next to card 0: no forced draw
    pool = unused([0], fits)[:7]
    state = build([[0], fits[:3], fits[3:]], pool)
    play(state, "0@e5")
    assert not state.is_terminal() and state.current_player == 1 and not state.drew_this_turn
    assert hand(state, 0) == sorted(pool[2:]) and state.pool == pool[:2]
    state = build([[0], fits[:3], fits[3:]], pool[:1])
    play(state, "0@e5")
    assert not state.is_terminal() and hand(state, 0) == pool[:1] and state.pool == []


def test_mc8b_full_round_of_passes_fewest_cards_wins() -> None:
    """MC-8 b: pool empty and nobody can place: the game ends after a full round of passes."""
    bad = _cards_missing(0)
    state = build([[0, *bad[0:2]], bad[2:5], bad[5:9]], [])
    play(state, "0@e5", "pass", "pass")
    assert not state.is_terminal() and state.current_player == 0  # seat 0 has not passed yet
    play(state, "pass")
    assert state.is_terminal()
    assert state.winners() == [0]  # 2 cards against 3 and 4
    assert state.returns() == [1.0, 0.0, 0.0]
    assert state.tie_break is None
    assert state.scores() == [-2.0, -3.0, -4.0]


def test_mc8b_round_counts_from_the_pool_running_out() -> None:
    """MC-8 b: passes made while the pool still has cards do not count towards the final round."""
    x = 0
    bad = _cards_missing(x)
    # seat 1 draws bad[20] (1 left) and passes; seat 2 draws bad[21] (pool empty) and passes;
    # then seat 0 and seat 1 pass: that is the full round with an empty pool.
    # Seat 0 holds 6, so it keeps 5 after laying X and draws nothing (MC-6).
    state = build([[x, *bad[0:5]], bad[5:10], bad[10:15]], [bad[21], bad[20]])
    play(state, f"{x}@e5")
    assert state.draws == [0, 1, 0] and state.pool == [bad[21]]
    play(state, "pass")  # made while the pool still had a card; seat 2 then draws the last one
    assert state.draws == [0, 1, 1] and state.pool == [] and state.empty_passes == 0
    play(state, "pass", "pass")
    assert not state.is_terminal() and state.current_player == 1
    play(state, "pass")
    assert state.is_terminal()
    assert state.winners() == [0]  # 5 cards, against 6 and 6
    assert [len(hand(state, s)) for s in range(3)] == [5, 6, 6]


def test_mc8b_tie_broken_by_a_seeded_lot() -> None:
    """MC-8 b: equal hands -> a lot decides; deterministic per seed, recorded, different across seeds."""
    bad = _cards_missing(0)
    hands = [[0, *bad[0:2]], bad[2:4], bad[4:6]]
    winners = set()
    for seed in range(40):
        finals = []
        for _ in range(2):  # the same seed, twice
            state = build(hands, [], seed=seed)
            play(state, "0@e5", "pass", "pass", "pass")
            assert state.is_terminal()
            finals.append(state.winner)
            assert state.tie_break == [0, 1, 2, state.winner]
            assert state.returns() == [1.0 if s == state.winner else 0.0 for s in range(3)]
            for seat in (0, 1, 2, SPECTATOR):
                obs = state.observation(seat)
                assert obs["tie_break"] == [0, 1, 2, state.winner]
                assert obs["winners"] == [state.winner]
        assert finals[0] == finals[1]
        winners.add(finals[0])
    assert winners == {0, 1, 2}


# -- MC-9: scoring ----------------------------------------------------------------------------------
def test_mc9_rulebook_worked_example() -> None:
    """MC-9: card 5 against 1, 2, 3, 4 with 1+2+1+2 shared features scores 6; card 6 against 3, 4 scores 2."""
    c = ref.worked_example()
    assert [ref.shared(c["5"], c[k]) for k in "1234"] == [1, 2, 1, 2]
    assert [ref.shared(c["6"], c[k]) for k in "34"] == [1, 1]
    spare = unused(c.values())[0]
    state = build([[c[k] for k in "12346"], [c["A"], c["B"], c["C"], c["5"], spare]], [], scoring=True)
    moves = [
        ("1", "e5"),  # seat 0, on the start square
        ("A", "d5"),
        ("2", "d6"),  # left of the future 5
        ("B", "f5"),
        ("3", "f6"),  # right of the future 5
        ("C", "d7"),
        ("4", "e7"),  # below the future 5
        ("5", "e6"),  # quadrilateral: touches 1, 2, 3 and 4
        ("6", "f7"),  # bilateral: touches 3 and 4
    ]
    gains = []
    for key, target in moves:
        seat = state.current_player
        before = list(state.scores_)
        board = ref.board_of(state.placed)
        play(state, f"{c[key]}@{target}")
        gain = state.scores_[seat] - before[seat]
        assert gain == ref.points(board, c[key], sq(target))
        gains.append(gain)
    assert gains[7] == 6 and gains[8] == 2
    board = ref.board_of(state.placed)
    assert sorted(board[n] for n in ref.neighbours(sq("e6"))) == sorted(c[k] for k in "1234")
    assert sorted(board[n] for n in ref.neighbours(sq("f7")) if n in board) == sorted(c[k] for k in "34")
    # Seat 0 placed its last card with an empty pool: the game ends (MC-8 a), the best score wins.
    assert state.is_terminal()
    expected = 0 if state.scores_[0] > state.scores_[1] else 1
    assert state.scores_[0] != state.scores_[1] and state.winners() == [expected]
    assert state.scores() == [float(s) for s in state.scores_]


def _scoring_cards() -> dict[str, Any]:
    """X, then Y and Y2 sharing the same number k of features with X, and 8 cards missing all three."""
    for x in range(100):
        for k in (3, 2, 1):
            ys = [y for y in range(100) if y != x and ref.shared(x, y) == k]
            for i, y in enumerate(ys):
                for y2 in ys[i + 1 :]:
                    bad = ref.disjoint_from([x, y, y2])
                    if len(bad) >= 8:
                        return {"X": x, "Y": y, "Y2": y2, "k": k, "bad": bad}
    raise AssertionError("no cards for the scoring positions")


def test_mc9_highest_score_beats_fewest_cards() -> None:
    """MC-9: with scoring the highest score wins even with more cards; without, fewest cards wins."""
    c = _scoring_cards()
    x, y, bad = c["X"], c["Y"], c["bad"]
    for scoring, winner in ((True, 1), (False, 0)):
        state = build([[x, bad[0]], [y, *bad[1:4]]], [], scoring=scoring)
        play(state, f"{x}@e5", f"{y}@f5", "pass", "pass")
        assert state.is_terminal()
        assert state.scores_ == [0, c["k"]]
        assert [len(hand(state, s)) for s in (0, 1)] == [1, 3]
        assert state.winners() == [winner] and state.tie_break is None


def test_mc9_placing_out_does_not_win_against_a_higher_score() -> None:
    """MC-9: the game ends as in MC-8 a, but the highest score wins, not the player who placed out."""
    c = _scoring_cards()
    x, y, bad = c["X"], c["Y"], c["bad"]
    z = next(z for z in unused([x, y], bad) if ref.shared(z, x) == 1 and ref.shared(z, y) == 0)
    assert c["k"] > 1
    state = build([[x, z], [y, *bad[0:3]]], [], scoring=True)
    play(state, f"{x}@e5", f"{y}@f5", f"{z}@d5")
    assert state.is_terminal()  # seat 0 placed its last card, pool empty
    assert state.scores_ == [1, c["k"]] and state.winners() == [1]


def test_mc9_score_tie_broken_by_fewest_cards_then_lot() -> None:
    """MC-9: equal top scores -> fewest cards among them; still equal -> lot (a low scorer never wins)."""
    c = _scoring_cards()
    x, y, y2, bad = c["X"], c["Y"], c["Y2"], c["bad"]
    # Seat 0 scores 0 and keeps 1 card; seats 1 and 2 score k each.
    state = build([[x, bad[0]], [y, *bad[1:4]], [y2, *bad[4:8]]], [], scoring=True)
    play(state, f"{x}@e5", f"{y}@f5", f"{y2}@d5", "pass", "pass", "pass")
    assert state.is_terminal() and state.scores_ == [0, c["k"], c["k"]]
    assert state.winners() == [1] and state.tie_break is None  # 3 cards against 4
    winners = set()
    for seed in range(30):
        state = build([[x, bad[0]], [y, *bad[1:4]], [y2, *bad[4:7]]], [], scoring=True, seed=seed)
        play(state, f"{x}@e5", f"{y}@f5", f"{y2}@d5", "pass", "pass", "pass")
        assert state.is_terminal() and state.scores_ == [0, c["k"], c["k"]]
        assert state.tie_break == [1, 2, state.winner]
        assert state.observation(0)["tie_break"] == state.tie_break
        winners.add(state.winner)
    assert winners == {1, 2}


# -- MC-3: hidden information ------------------------------------------------------------------------
def _shuffle_hidden(state: MascaradeState, seat: int | None, rng: random.Random) -> MascaradeState:
    """A copy where every card ``seat`` cannot see (others' hands, the pool) is dealt again at random."""
    other = state.clone()
    seats = [s for s in range(state.game.num_players) if s != seat]
    hidden = [c for s in seats for c in cards_of(state.hands[s])] + list(state.pool)
    rng.shuffle(hidden)
    for s in seats:
        size = state.hands[s].bit_count()
        other.hands[s] = mask_of(hidden[:size])
        del hidden[:size]
    other.pool = hidden
    return other


def test_mc3_observation_shows_own_hand_and_public_facts() -> None:
    """MC-3: a seat sees its own hand, everyone's hand size, the pool size and the board; no more."""
    game = game_of(3)
    for state in random_states(game, 21):
        if state.is_terminal() or len(state.placed) > 8:
            break
        for seat in (0, 1, 2, SPECTATOR):
            obs = state.observation(seat)
            json.dumps(obs)
            assert obs["hand"] == (None if seat is None else hand(state, seat))
            assert obs["hands"] is None
            assert obs["hand_sizes"] == [len(hand(state, s)) for s in range(3)]
            assert obs["pool_size"] == len(state.pool)
            assert [(p["card"], p["square"], p["seat"]) for p in obs["placed"]] == state.placed
            assert "pool" not in obs and "tie_break" not in obs


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mc3_no_leak_of_other_hands_or_pool_order(players: int) -> None:
    """MC-3: states differing only in what a seat cannot see give that seat identical observations."""
    rng = random.Random(players)
    game = game_of(players, scoring=players == 3)
    for seed in range(3):
        for state in random_states(game, seed, stingy=seed == 2):
            if state.is_terminal():
                break
            if len(state.history) % 3:
                continue
            for seat in [*range(players), SPECTATOR]:
                other = _shuffle_hidden(state, seat, rng)
                assert other.observation(seat) == state.observation(seat)
            # The check has teeth: the owner does see a change of their own hand.
            if state.current_player != TERMINAL and state.pool:
                swapped = state.clone()
                mine = cards_of(swapped.hands[0])[0]
                swapped.hands[0] ^= (1 << mine) | (1 << swapped.pool[0])
                assert swapped.observation(0) != state.observation(0)


def test_mc3_hands_revealed_at_the_end() -> None:
    """MC-3 (project decision): when the game ends every hand is shown to everyone."""
    for players in (2, 3, 4):
        game = game_of(players)
        *_, final = random_states(game, 100 + players)
        assert final.is_terminal()
        for seat in [*range(players), SPECTATOR]:
            obs = final.observation(seat)
            assert obs["terminal"] is True
            assert obs["hands"] == [hand(final, s) for s in range(players)]
            assert obs["winners"] == final.winners()
            assert obs["pool_size"] == 0


# -- sampler (determinization) ---------------------------------------------------------------------
def test_sampler_reproduces_the_seat_observation() -> None:
    """MC-3: a sampled state looks exactly like the real one to the seat (and has its legal moves)."""
    rng = random.Random(5)
    for players in (2, 3, 4):
        game = game_of(players, scoring=players == 4)
        for seed in range(2):
            history: dict[int | None, list[Any]] = {s: [] for s in [*range(players), SPECTATOR]}
            for state in random_states(game, seed, stingy=seed == 1):
                for seat, observations in history.items():
                    observations.append(state.observation(seat))
                if len(state.history) % 4 and not state.is_terminal() and not state.drew_this_turn:
                    continue
                for seat, observations in history.items():
                    sample = game.sample_state(seat, observations, rng)
                    assert sample.observation(seat) == state.observation(seat)
                    assert sample.is_terminal() == state.is_terminal()
                    if seat is not None and state.current_player == seat:
                        assert sample.legal_actions() == state.legal_actions()
                    cards = [c for h in sample.hands for c in cards_of(h)] + sample.pool
                    cards += [p[0] for p in sample.placed]
                    assert sorted(cards) == list(range(100))
                    if not sample.is_terminal():  # the rebuilt layout allows what the rules allow
                        mover = hand(sample, sample.current_player)
                        assert sample.legal_actions() == ref.legal_actions(ref.board_of(sample.placed), mover)
                # A bot plays the sample out: it must run to a proper end.
                playout = game.sample_state(0, history[0], rng)
                while not playout.is_terminal():
                    playout.apply(playout.random_legal_action(rng))
                assert len(playout.winners()) == 1


def test_sampler_deals_unseen_cards_uniformly() -> None:
    """MC-3: each unseen card goes to another hand with probability size / unseen; seen cards never."""
    game = game_of(3)
    state = game.new_initial_state(8)
    rng = random.Random(1)
    for _ in range(7):
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_player
    obs = state.observation(seat)
    seen = {p["card"] for p in obs["placed"]} | set(obs["hand"])
    unseen = [c for c in range(100) if c not in seen]
    others = [s for s in range(3) if s != seat]
    counts = {s: Counter[int]() for s in others}
    pool_counts: Counter[int] = Counter()
    n = 3000
    for _ in range(n):
        sample = game.sample_state(seat, [obs], rng)
        assert hand(sample, seat) == obs["hand"]
        for s in others:
            cards = hand(sample, s)
            assert len(cards) == obs["hand_sizes"][s]
            assert not seen & set(cards)
            counts[s].update(cards)
        assert not seen & set(sample.pool) and len(sample.pool) == obs["pool_size"]
        pool_counts.update(sample.pool[-1:])
    for s in others:
        expected = n * obs["hand_sizes"][s] / len(unseen)
        assert set(counts[s]) == set(unseen)
        for card in unseen:
            assert abs(counts[s][card] - expected) < 6 * expected**0.5, (s, card, counts[s][card], expected)
    # The next draw is uniform too.
    expected = n / len(unseen)
    assert set(pool_counts) <= set(unseen) and len(pool_counts) > len(unseen) * 0.9
    assert max(pool_counts.values()) < expected + 6 * expected**0.5


# -- bad input --------------------------------------------------------------------------------------
def _midgame() -> MascaradeState:
    state = game_of(3).new_initial_state(2)
    rng = random.Random(2)
    for _ in range(10):
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("action", [-1, 10001, 2**40, True, False, 1.0, "1244", None, [1244], {"card": 1}])
def test_bad_action_ids_raise_and_change_nothing(action: object) -> None:
    """Contract: malformed ids raise MalformedActionError and leave the state exactly as it was."""
    state = _midgame()
    before = state.serialize()
    with pytest.raises(MalformedActionError):
        state.apply(action)  # type: ignore[arg-type]
    assert state.serialize() == before


def test_illegal_actions_raise_and_change_nothing() -> None:
    """MC-5/MC-7: well-formed but illegal actions raise IllegalActionError; nothing changes."""
    state = _midgame()
    legal = set(state.legal_actions())
    before = state.serialize()
    refused = 0
    for action in range(0, PASS + 1, 7):
        if action in legal:
            continue
        with pytest.raises(IllegalActionError) as excinfo:
            state.apply(action)
        assert excinfo.value.reason
        refused += 1
    assert refused > 1000
    assert state.serialize() == before


@pytest.mark.parametrize(
    "obj",
    [
        None,
        "12@e5",
        [],
        {},
        {"card": 12},
        {"square": "e5"},
        {"card": "12", "square": "e5"},
        {"card": 12.0, "square": "e5"},
        {"card": True, "square": "e5"},
        {"card": 100, "square": "e5"},
        {"card": -1, "square": "e5"},
        {"card": 12, "square": "k5"},
        {"card": 12, "square": "e11"},
        {"card": 12, "square": "e0"},
        {"card": 12, "square": 44},
        {"card": 12, "square": "e5", "extra": 1},
        {"pass": False},
        {"pass": "true"},
        {"pass": True, "card": 12},
    ],
)
def test_malformed_json_actions_raise(obj: object) -> None:
    """Contract: malformed JSON actions raise MalformedActionError (a wrong type included)."""
    state = _midgame()
    before = state.serialize()
    with pytest.raises(MalformedActionError):
        state.action_from_json(obj)
    assert state.serialize() == before


@pytest.mark.parametrize("obj", [{"pass": 1}, {"pass": 1.0}])
def test_json_pass_must_be_the_boolean_true(obj: object) -> None:
    """Contract ("wrong type" -> typed error): {"pass": 1} is not {"pass": true}.

    Masker's parser checks ``value is True``; Mascarade compares ``obj == {"pass": True}``, and in Python
    ``1 == True`` and ``1.0 == True``, so these are accepted as a pass.
    """
    state = _midgame()
    with pytest.raises(MalformedActionError):
        state.action_from_json(obj)


@pytest.mark.parametrize(
    "text",
    ["", "12", "12@", "@e5", "100@e5", "12@e11", "12@k1", "12@e0", "pas", "12 e5", "12@@e5", None, 1244],
)
def test_malformed_text_actions_raise(text: object) -> None:
    """Contract: unreadable text moves raise MalformedActionError."""
    state = _midgame()
    before = state.serialize()
    with pytest.raises(MalformedActionError):
        state.action_from_str(text)  # type: ignore[arg-type]
    assert state.serialize() == before


def test_parsed_but_illegal_json_and_text_moves_change_nothing() -> None:
    """Contract: a readable move that the rules forbid is refused by apply, leaving the state as it was."""
    state = _midgame()
    before = state.serialize()
    mine = hand(state, state.current_player)[0]
    theirs = next(c for c in range(100) if c not in hand(state, state.current_player))
    for action in (
        state.action_from_json({"card": theirs, "square": "a1"}),
        state.action_from_json({"card": mine, "square": "a1"}),
        state.action_from_str(f"{theirs}@e5"),
    ):
        with pytest.raises(IllegalActionError):
            state.apply(action)
    assert state.serialize() == before
