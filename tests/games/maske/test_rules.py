"""Maske rules, tested against the spec (``shared/spec/maske.md``, decisions MS-1 .. MS-17).

Every test names the decision it checks.  Hand-built positions come from :func:`table`: a
:class:`MaskeState` with a chosen mask stack and deck (the cards named go on top, in that order), the
sticks put in the holes given (seat 0 first, two per seat) and, by default, the first mask laid in
orientation 0.  Points are set by hand where a test needs them (:func:`set_points`).  Where the
rulebook is silent the tests follow the decisions in ``maske/game.py``'s module docstring and say so.

Positions are written ``at(row, col)``, 0-based, row 0 at the top; the centre is ``at(3, 3)``.
With 4 players, seat 1 acts first in round 1 (seat 0 lays the mask), so seat 1 is the usual drawer.
"""

from __future__ import annotations

import importlib.util
import json
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from masques.engine import (
    TERMINAL,
    IllegalActionError,
    InvalidOptionError,
    MalformedActionError,
    load_game,
)
from masques.games.maske.data import CARDS, CENTRE, HOLES, MASK_VALUES, MASKS, SIZE
from masques.games.maske.game import (
    BID,
    DONE,
    DRAW,
    DROP,
    HOLE,
    MAX_BID,
    NEXT_HOLE,
    ORIENT,
    PASS,
    PLAYER,
    STEP,
    STICK,
    TURN_CCW,
    TURN_CW,
    MaskeGame,
    MaskeState,
    hole_name,
)

UP, RIGHT, DOWN, LEFT = range(4)
NUM_ACTIONS = BID + MAX_BID
REPO = Path(__file__).resolve().parents[3]


# -- helpers ---------------------------------------------------------------------------------------
def at(row: int, col: int) -> int:
    return row * SIZE + col


def step(stick: int, direction: int) -> int:
    return STEP + 4 * stick + direction


def bid(x: int) -> int:
    return BID + x - 1


def make_game(
    players: int = 4, masks: int = 0, unmasking: bool = False, auction: str = "rounds"
) -> MaskeGame:
    game = load_game(
        "maske", {"players": players, "masks": masks, "unmasking": unmasking, "auction": auction}
    )
    assert isinstance(game, MaskeGame)
    return game


# Two sticks per seat, seat 0 first: pairwise not adjacent, each with free neighbours, and paying
# nothing on masks 0 and 1 laid in orientation 0 (checked below), so paydays stay out of the way.
DEFAULT_HOLES = [
    at(0, 0), at(4, 0),  # seat 0: sticks 0, 1
    at(0, 2), at(4, 2),  # seat 1: sticks 2, 3
    at(0, 4), at(4, 4),  # seat 2: sticks 4, 5
    at(0, 6), at(4, 6),  # seat 3: sticks 6, 7
    at(2, 0), at(2, 6),  # seat 4
    at(2, 2), at(2, 4),  # seat 5
]  # fmt: skip
assert all(MASK_VALUES[m][0][h] == 0 for m in (0, 1) for h in DEFAULT_HOLES)


def table(
    players: int = 4,
    *,
    stack: Sequence[int] = (0, 1),
    cards: Sequence[int] = (),
    holes: Sequence[int] | None = None,
    orientation: int | None = 0,
    unmasking: bool = False,
    auction: str = "rounds",
) -> MaskeState:
    """A hand-built position: ``cards`` on top of the deck (the rest below in id order), the sticks
    set up in ``holes`` and, unless ``orientation`` is None, the first mask laid."""
    game = make_game(players, masks=len(stack), unmasking=unmasking, auction=auction)
    deck = [*cards, *(c for c in range(len(CARDS)) if c not in cards)]
    state = MaskeState(game, 0, list(stack), deck)
    for h in holes if holes is not None else DEFAULT_HOLES[: 2 * players]:
        state.apply(HOLE + h)
    if orientation is not None:
        assert state.phase == "lay"
        state.apply(ORIENT + orientation)
    return state


def set_points(state: MaskeState, points: Sequence[int]) -> None:
    """Hand-build the points (the legal-action cache is dropped so the change is seen)."""
    state.points = list(points)
    state._legal = None


def buy(state: MaskeState, buyer: int, price: int = 1) -> None:
    """Run the open auction: ``buyer`` bids ``price`` when it is their turn, everyone else drops."""
    assert state.phase == "auction"
    for _ in range(3 * state.game.num_players):
        if state.phase != "auction":
            return
        assert state.auction is not None
        seat = state.current_player
        state.apply(bid(price) if seat == buyer and state.auction["high"] != buyer else DROP)
    raise AssertionError("the auction does not end")


def nobody_buys(state: MaskeState) -> None:
    for _ in range(state.game.num_players):
        state.apply(DROP)
        if state.phase != "auction":
            return
    raise AssertionError("the auction does not end")


def draw_and_buy(state: MaskeState, buyer: int = 1, price: int = 1) -> None:
    assert state.phase == "action"
    state.apply(DRAW)
    buy(state, buyer, price)


def passes(state: MaskeState, count: int) -> list[int]:
    """Let ``count`` actors pass; return who they were."""
    seats = []
    for _ in range(count):
        assert state.phase == "action", state.phase
        seats.append(state.current_player)
        state.apply(PASS)
    return seats


def payday_value(mask: int, orientation: int, holes: Iterable[int]) -> int:
    return sum(MASK_VALUES[mask][orientation][h] for h in holes)


def ring_holes(mask: int, orientation: int, value: int) -> list[int]:
    return [h for h in HOLES if MASK_VALUES[mask][orientation][h] == value]


def total(state: MaskeState) -> int:
    return sum(state.points)


def effect_card(card: int) -> dict[str, Any]:
    (op,) = CARDS[card].effect
    return dict(op)


# -- MS-1: the plate -------------------------------------------------------------------------------
def test_ms1_plate_is_7x7_with_48_holes_and_no_centre_hole() -> None:
    assert SIZE == 7
    assert at(3, 3) == CENTRE
    assert len(HOLES) == 48
    assert CENTRE not in HOLES
    assert set(HOLES) == set(range(49)) - {CENTRE}


def test_ms1_no_stick_is_set_on_the_centre() -> None:
    state = MaskeGame({"players": 3}).new_initial_state(1)
    assert HOLE + CENTRE not in state.legal_actions()
    assert state.legal_actions() == [HOLE + h for h in HOLES]
    before = state.serialize()
    with pytest.raises(IllegalActionError):
        state.apply(HOLE + CENTRE)
    assert state.serialize() == before


def test_ms1_no_step_onto_or_through_the_centre() -> None:
    # Seat 1 sits above and left of the centre, seat 2 below and right of it.
    holes = [at(0, 0), at(6, 0), at(2, 3), at(3, 2), at(4, 3), at(3, 4), at(0, 6), at(6, 6)]
    state = table(holes=holes)
    legal = state.legal_actions()
    assert step(2, DOWN) not in legal  # (2,3) down is the centre
    assert step(3, RIGHT) not in legal  # (3,2) right is the centre
    assert {step(2, UP), step(2, LEFT), step(2, RIGHT), step(3, UP), step(3, LEFT), step(3, DOWN)} <= set(
        legal
    )
    before = state.serialize()
    with pytest.raises(IllegalActionError):
        state.apply(step(2, DOWN))
    assert state.serialize() == before
    state.apply(PASS)
    legal = state.legal_actions()  # seat 2
    assert step(4, UP) not in legal
    assert step(5, LEFT) not in legal
    # No hole ever steps onto the centre; the centre is no place to start from either.
    assert all(NEXT_HOLE[h][d] != CENTRE for h in HOLES for d in range(4))


# -- MS-2: the masks -------------------------------------------------------------------------------
def rotate(rows: Sequence[str]) -> list[str]:
    """A quarter turn clockwise: the new (r, c) is the old (6 - c, r)."""
    return ["".join(rows[SIZE - 1 - c][r] for c in range(SIZE)) for r in range(SIZE)]


def test_ms2_eighteen_named_masks_drawn_on_the_plate() -> None:
    assert len(MASKS) == 18
    assert [m.id for m in MASKS] == list(range(18))
    names = [m.name for m in MASKS]
    assert all(isinstance(n, str) and n.strip() for n in names)
    assert len(set(names)) == 18
    for mask in MASKS:
        assert len(mask.rows) == 7
        assert all(len(row) == 7 and set(row) <= set(".oO+") for row in mask.rows)
        assert mask.rows[3][3] == "+"
        assert "".join(mask.rows).count("+") == 1


def test_ms2_each_mask_has_5_to_10_rings_of_which_1_to_4_double() -> None:
    for mask in MASKS:
        text = "".join(mask.rows)
        rings = text.count("o") + text.count("O")
        assert 5 <= rings <= 10, mask.name
        assert 1 <= text.count("O") <= 4, mask.name


def test_ms2_no_two_masks_alike_under_rotation_and_none_quarter_turn_symmetric() -> None:
    seen: set[tuple[str, ...]] = set()
    for mask in MASKS:
        turns = [list(mask.rows)]
        for _ in range(3):
            turns.append(rotate(turns[-1]))
        assert turns[1] != turns[0], f"{mask.name} looks the same after a quarter turn"
        forms = {tuple(t) for t in turns}
        assert not forms & seen, f"{mask.name} equals an earlier mask turned"
        seen |= forms


def test_ms2_values_follow_the_drawings() -> None:
    pays = {".": 0, "+": 0, "o": 3, "O": 5}
    for mask in MASKS:
        drawn = tuple(pays[ch] for row in mask.rows for ch in row)
        assert MASK_VALUES[mask.id][0] == drawn
        assert MASK_VALUES[mask.id][0][CENTRE] == 0


def test_ms2_ms4_data_files_equal_what_the_generator_writes() -> None:
    path = REPO / "scripts" / "generate_maske_data.py"
    spec = importlib.util.spec_from_file_location("maske_data_generator", path)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    written = generator.files()
    assert {p.name for p in written} == {"masks.json", "cards.json"}
    package = resources.files("masques.games.maske")
    for file, text in written.items():
        assert package.joinpath(file.name).read_text("utf-8") == text, f"{file.name} is stale"
    # and the engine reads exactly those files
    masks = json.loads(package.joinpath("masks.json").read_text("utf-8"))["masks"]
    assert [tuple(m["rows"]) for m in masks] == [m.rows for m in MASKS]
    cards = json.loads(package.joinpath("cards.json").read_text("utf-8"))["cards"]
    assert [tuple(c["effect"]) for c in cards] == [c.effect for c in CARDS]


# -- MS-3: orientation, top mask, sticks stay --------------------------------------------------------
def test_ms3_values_turn_with_the_orientation() -> None:
    for mask in range(18):
        for o in range(4):
            now, turned = MASK_VALUES[mask][o], MASK_VALUES[mask][(o + 1) % 4]
            for r in range(SIZE):
                for c in range(SIZE):
                    # a quarter turn clockwise moves (r, c) to (c, 6 - r)
                    assert turned[at(c, SIZE - 1 - r)] == now[at(r, c)]
    # Mask 0's double ring at (1, 6) goes to (6, 5), (5, 0), (0, 1) as the mask turns.
    assert MASKS[0].rows[1][6] == "O"
    assert [MASK_VALUES[0][o][h] for o, h in enumerate([at(1, 6), at(6, 5), at(5, 0), at(0, 1)])] == [5] * 4
    assert [MASK_VALUES[0][o][at(1, 6)] for o in range(4)] != [5] * 4


@pytest.mark.parametrize("orientation", range(4))
def test_ms3_the_placer_chooses_one_of_four_orientations(orientation: int) -> None:
    # seat 2's second stick sits where mask 0's double ring lands in this orientation
    target = [at(1, 6), at(6, 5), at(5, 0), at(0, 1)][orientation]
    holes = [*DEFAULT_HOLES[:5], target, *DEFAULT_HOLES[6:8]]
    state = table(holes=holes, orientation=None, stack=(0,))
    assert state.phase == "lay" and state.current_player == 0
    assert state.legal_actions() == [ORIENT + o for o in range(4)]
    state.apply(ORIENT + orientation)
    assert state.laid == [(0, orientation)]
    assert state.observation(3)["top_mask"] == {"mask": 0, "orientation": orientation}
    expected = [10 + payday_value(0, orientation, holes[2 * s : 2 * s + 2]) for s in range(4)]
    passes(state, 4)
    assert state.points == expected
    assert MASK_VALUES[0][orientation][target] == 5


def test_ms3_only_the_top_mask_scores_and_sticks_stay_when_a_mask_is_laid() -> None:
    # Seat 1 stands on mask 0's rings (orientation 0); mask 1 laid on top turned a half turn.
    holes = [at(0, 0), at(4, 0), at(1, 6), at(5, 1), at(0, 4), at(4, 4), at(0, 6), at(4, 6)]
    state = table(holes=holes, stack=(0, 1))
    passes(state, 4)
    assert state.points[1] == 10 + 5 + 5
    sticks = list(state.sticks)
    state.apply(ORIENT + 2)  # seat 1 lays mask 1
    assert state.sticks == sticks
    assert state.laid == [(0, 0), (1, 2)]
    passes(state, 4)
    assert state.points[1] == 20 + payday_value(1, 2, [at(1, 6), at(5, 1)])
    assert payday_value(1, 2, [at(1, 6), at(5, 1)]) != payday_value(0, 0, [at(1, 6), at(5, 1)])


# -- MS-4: the 55 action cards ----------------------------------------------------------------------
def spec_row(card: int) -> tuple[str, int | None]:
    """The spec table's row a card belongs to, with its number parameter N (or None)."""
    op = effect_card(card)
    kind = op["op"]
    if kind == "jump":
        if op["whose"] == "own":
            return ("jump own", op["sticks"])
        return ("jump opponent's stick", op["sticks"])
    if kind == "steps":
        if op["whose"] == "own":
            return ("own steps", op["steps"])
        if op["whose"] == "opponent":
            return ("opponent's stick steps", op["steps"])
        assert op["whose"] == "everyone" and op.get("voluntary") is True
        return ("everyone may step", op["steps"])
    if kind == "pay":
        key = (op["payer"], op["payee"])
        names = {
            ("each_other", "holder"): "each pays you",
            ("bank", "everyone"): "everyone receives",
            ("everyone", "bank"): "everyone pays the bank",
            ("bank", "holder"): "receive",
            ("holder", "bank"): "pay",
            ("chosen", "holder"): "take from a chosen player",
            ("holder", "poorest"): "give to the poorest",
        }
        return (names[key], op["amount"])
    if kind == "turn":
        return ("turn", 1 if op["quarters"] == "choose" else op["quarters"])
    if kind == "skip":
        assert op["who"] == "left"
    return (kind, None)


MS4_TABLE = {
    ("jump own", 1): 4,
    ("jump own", 2): 2,
    ("jump opponent's stick", 1): 3,
    ("own steps", 2): 2,
    ("own steps", 3): 2,
    ("own steps", 4): 2,
    ("opponent's stick steps", 3): 3,
    ("swap", None): 3,
    ("each pays you", 1): 2,
    ("each pays you", 2): 2,
    ("everyone receives", 2): 2,
    ("everyone pays the bank", 1): 2,
    ("everyone may step", 1): 2,
    ("receive", 3): 2,
    ("receive", 5): 2,
    ("pay", 2): 1,
    ("pay", 4): 1,
    ("take from a chosen player", 3): 3,
    ("give to the poorest", 3): 1,
    ("turn", 1): 3,  # a quarter turn, either way (the holder chooses)
    ("turn", 2): 1,
    ("payday", None): 2,
    ("double_payday", None): 2,
    ("skip", None): 2,
    ("extra_action", None): 2,
    ("nothing", None): 2,
}


def test_ms4_composition_is_exactly_the_spec_table() -> None:
    assert sum(MS4_TABLE.values()) == 55
    assert len(CARDS) == 55
    assert [c.id for c in CARDS] == list(range(55))
    assert all(len(c.effect) == 1 for c in CARDS)
    assert Counter(spec_row(c.id) for c in CARDS) == Counter(MS4_TABLE)
    # the quarter-turn cards really let the holder choose, the half turn is fixed
    turns = Counter(str(effect_card(c.id)["quarters"]) for c in CARDS if effect_card(c.id)["op"] == "turn")
    assert turns == Counter({"choose": 3, "2": 1})


# "1 step" may be written out in words ("d'un pas"); every other number must be written as a digit.
ONE_STEP = {"de": {"einen Schritt"}, "fr": {"un pas"}, "en": {"one step"}}


def test_ms4_every_card_has_its_own_text_in_three_languages_naming_its_number() -> None:
    for card in CARDS:
        assert set(card.text) == {"de", "fr", "en"}, card.id
        texts = [card.text[lang] for lang in ("de", "fr", "en")]
        assert all(isinstance(t, str) and t.strip() for t in texts), card.id
        assert len(set(texts)) == 3, card.id
        op = effect_card(card.id)
        number = op.get("amount", op.get("steps"))
        if number is not None:
            for lang in ("de", "fr", "en"):
                words = {str(number)} | ONE_STEP[lang] if number == 1 else {str(number)}
                assert any(w in card.text[lang] for w in words), (card.id, card.text[lang])
    # Cards with different effects read differently in every language.
    for lang in ("de", "fr", "en"):
        by_text: dict[str, set[str]] = {}
        for card in CARDS:
            by_text.setdefault(card.text[lang], set()).add(json.dumps(card.effect, sort_keys=True))
        assert all(len(effects) == 1 for effects in by_text.values()), lang


# -- MS-5 .. MS-8, MS-16: set-up and rounds ---------------------------------------------------------
@pytest.mark.parametrize(("players", "masks"), [(3, 18), (4, 16), (5, 15), (6, 12)])
def test_ms5_masks_in_play_by_player_count(players: int, masks: int) -> None:
    game = load_game("maske", {"players": players})
    state = game.new_initial_state(5)
    assert isinstance(state, MaskeState)
    assert len(state.stack) == masks
    assert len(set(state.stack)) == masks
    assert set(state.stack) <= set(range(18))
    obs = state.observation(0)
    assert obs["masks_left"] == masks and obs["masks_total"] == masks
    assert sorted(state.deck) == list(range(55))


def test_ms5_masks_and_cards_are_shuffled_from_the_seed() -> None:
    game = make_game(4)
    a, b = game.new_initial_state(1), game.new_initial_state(1)
    assert a.serialize() == b.serialize()
    stacks = {tuple(game.new_initial_state(s).stack) for s in range(10)}
    decks = {tuple(game.new_initial_state(s).deck) for s in range(10)}
    assert len(stacks) == 10 and len(decks) == 10
    # which 16 of the 18 masks play varies too
    assert len({frozenset(s) for s in stacks}) > 1


@pytest.mark.parametrize("count", range(1, 19))
def test_ms16_any_number_of_masks_from_1_to_18(count: int) -> None:
    game = load_game("maske", {"players": 6, "masks": count})
    state = game.new_initial_state(count)
    assert isinstance(state, MaskeState)
    assert len(state.stack) == count == len(set(state.stack))
    for h in DEFAULT_HOLES:
        state.apply(HOLE + h)
    rounds = 0
    while not state.is_terminal():
        state.apply(ORIENT)
        passes(state, 6)
        rounds += 1
    assert rounds == count
    assert len(state.laid) == count


def test_ms6_each_player_starts_with_10_points() -> None:
    for players in (3, 4, 5, 6):
        state = make_game(players).new_initial_state(0)
        assert state.points == [10] * players
        assert state.observation(None)["points"] == [10] * players


def test_ms7_each_player_in_turn_from_seat_0_sets_two_sticks_in_free_holes() -> None:
    state = make_game(5).new_initial_state(3)
    seats = []
    taken: list[int] = []
    for h in [
        at(0, 0),
        at(0, 1),
        at(6, 6),
        at(5, 5),
        at(1, 1),
        at(2, 2),
        at(3, 2),
        at(4, 4),
        at(2, 5),
        at(6, 0),
    ]:
        assert state.phase == "setup"
        seats.append(state.current_player)
        legal = state.legal_actions()
        assert legal == [HOLE + x for x in HOLES if x not in taken]
        for occupied in taken:
            with pytest.raises(IllegalActionError):
                state.apply(HOLE + occupied)
        state.apply(HOLE + h)
        taken.append(h)
    assert seats == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert state.sticks == taken
    assert state.phase == "lay"


def test_ms8_placer_lays_then_actions_run_from_the_left_round_to_the_placer() -> None:
    state = table(stack=(0, 1, 2), orientation=None)
    order = []
    for round_ in range(3):
        assert state.phase == "lay"
        assert state.current_player == round_ == state.placer
        assert state.legal_actions() == [ORIENT + o for o in range(4)]
        state.apply(ORIENT + round_)
        order.append(passes(state, 4))
    assert order == [[1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]
    assert state.is_terminal() and state.current_player == TERMINAL


def test_ms8_placer_rotation_wraps_around_the_table() -> None:
    state = table(3, stack=(0, 1, 2, 3))
    placers = [state.placer]
    for _ in range(3):
        passes(state, 3)
        placers.append(state.current_player)
        state.apply(ORIENT)
    assert placers == [0, 1, 2, 0]


# -- MS-9 / MS-10: actions and steps ----------------------------------------------------------------
def test_ms9_pass_changes_nothing_but_the_turn() -> None:
    state = table()
    sticks, points = list(state.sticks), list(state.points)
    assert PASS in state.legal_actions()
    state.apply(PASS)
    assert state.sticks == sticks and state.points == points
    assert state.current_player == 2 and state.phase == "action"


def test_ms9_paid_move_one_point_per_step_both_sticks_back_and_forth_done_ends() -> None:
    state = table()
    legal = state.legal_actions()
    expected_steps = {step(2, RIGHT), step(2, DOWN), step(2, LEFT), step(3, UP), step(3, RIGHT)}
    expected_steps |= {step(3, DOWN), step(3, LEFT)}
    assert legal == sorted({PASS, DRAW} | expected_steps)
    state.apply(step(2, DOWN))
    assert state.sticks[2] == at(1, 2) and state.points[1] == 9
    assert state.phase == "moving" and state.current_player == 1
    assert state.legal_actions()[-1] == DONE and PASS not in state.legal_actions()
    assert DRAW not in state.legal_actions()
    state.apply(step(2, UP))  # back again: direction may change
    state.apply(step(3, LEFT))  # and the other stick
    assert state.sticks[2:4] == [at(0, 2), at(4, 1)]
    assert state.points[1] == 7
    assert total(state) == 37  # the bank got 3
    state.apply(DONE)
    assert state.phase == "action" and state.current_player == 2


def test_ms9_never_more_steps_than_points_and_ms10_no_points_no_move() -> None:
    state = table(stack=(0, 1))
    set_points(state, [10, 2, 10, 10])
    state.apply(step(3, DOWN))
    assert state.current_player == 1
    state.apply(step(3, DOWN))
    # out of points: the move ends by itself (game.py's documented decision)
    assert state.points[1] == 0
    assert state.phase == "action" and state.current_player == 2
    passes(state, 3)
    state.apply(ORIENT)  # round 2, seat 1 lays and acts last
    passes(state, 3)
    assert state.current_player == 1 and state.points[1] == 0
    assert state.legal_actions() == [PASS, DRAW]
    with pytest.raises(IllegalActionError):
        state.apply(step(3, UP))


def test_ms10_steps_go_to_the_orthogonal_neighbour_named() -> None:
    for h in HOLES:
        r, c = divmod(h, SIZE)
        for d, (dr, dc) in enumerate([(-1, 0), (0, 1), (1, 0), (0, -1)]):
            r2, c2 = r + dr, c + dc
            inside = 0 <= r2 < SIZE and 0 <= c2 < SIZE and (r2, c2) != (3, 3)
            assert NEXT_HOLE[h][d] == (at(r2, c2) if inside else -1), (hole_name(h), d)
    # and the state moves the stick to exactly that hole
    state = table()
    moves = [(3, UP, at(3, 2)), (3, RIGHT, at(4, 3)), (3, DOWN, at(5, 2)), (3, LEFT, at(4, 1))]
    moves += [(2, RIGHT, at(0, 3)), (2, DOWN, at(1, 2)), (2, LEFT, at(0, 1))]
    for stick, d, target in moves:
        trial = state.clone()
        trial.apply(step(stick, d))
        assert trial.sticks[stick] == target


def test_ms10_no_leaving_the_grid_no_occupied_hole_no_jumping_over() -> None:
    # seat 1: stick 2 in the corner, stick 3 with seat 0's stick on its right and seat 2's beyond
    holes = [at(6, 3), at(0, 6), at(0, 0), at(6, 1), at(6, 2), at(2, 6), at(5, 5), at(4, 4)]
    state = table(holes=holes)
    legal = state.legal_actions()
    assert step(2, UP) not in legal and step(2, LEFT) not in legal  # off the plate
    assert step(3, DOWN) not in legal  # off the plate
    assert step(3, RIGHT) not in legal  # (6,2) holds a stick; no way to reach (6,3) or beyond
    assert legal == sorted({PASS, DRAW, step(2, RIGHT), step(2, DOWN), step(3, UP), step(3, LEFT)})
    for bad in (step(2, UP), step(3, RIGHT), step(0, UP), step(4, LEFT)):  # also others' sticks
        before = state.serialize()
        with pytest.raises(IllegalActionError):
            state.apply(bad)
        assert state.serialize() == before


def test_ms10_a_player_whose_sticks_are_both_blocked_cannot_move() -> None:
    holes = [at(0, 1), at(1, 0), at(0, 0), at(0, 6), at(0, 5), at(1, 6), at(6, 0), at(6, 6)]
    state = table(holes=holes)
    assert state.current_player == 1
    assert state.legal_actions() == [PASS, DRAW]


# -- MS-11: the auction ------------------------------------------------------------------------------
def test_ms11_the_drawer_alone_sees_the_card() -> None:
    state = table(cards=(37, 5))
    state.apply(DRAW)
    assert state.phase == "auction" and state.auction is not None
    assert state.auction["card"] == 37 and state.auction["drawer"] == 1
    assert state.observation(1)["auction"]["card"] == 37
    for seat in (0, 2, 3, None):
        obs = state.observation(seat)
        assert obs["auction"]["card"] is None
        assert obs["auction"]["drawer"] == 1
        assert 37 not in obs["deck"]
        text = json.dumps({k: v for k, v in obs.items() if k != "moves"}, ensure_ascii=False)
        assert "37" not in text
        assert not any(CARDS[37].text[lang] in text for lang in ("de", "fr", "en"))
    assert state.deck[0] == 5 and len(state.deck) == 54
    # once bought it is public
    buy(state, 3)
    assert state.phase == "effect"
    for seat in (0, 1, 2, 3, None):
        assert state.observation(seat)["effect"]["card"] == 37


def test_ms11_the_drawer_opens_with_a_bid_of_at_least_1_or_declines() -> None:
    state = table(cards=(53,))
    state.apply(DRAW)
    assert state.current_player == 1
    assert state.legal_actions() == [DROP, *(bid(x) for x in range(1, 11))]
    with pytest.raises(IllegalActionError):
        state.apply(bid(11))  # more than held
    state.apply(bid(3))
    assert state.auction is not None and state.auction["bid"] == 3 and state.auction["high"] == 1
    assert state.current_player == 2
    assert state.legal_actions() == [DROP, *(bid(x) for x in range(4, 11))]


def test_ms11_bidding_goes_clockwise_from_the_drawers_left_and_the_buyer_pays_the_drawer() -> None:
    state = table(cards=(53,))
    passes(state, 2)  # seat 3 draws
    state.apply(DRAW)
    turns = []
    for action in [bid(1), bid(2), DROP, bid(3), DROP, DROP]:
        turns.append(state.current_player)
        state.apply(action)
    assert turns == [3, 0, 1, 2, 3, 0]
    assert state.points == [10, 10, 7, 13]  # seat 2 bought for 3, paid to the drawer
    assert state.deck[-1] == 53
    assert state.current_player == 0  # the placer's slot is next


def test_ms11_declining_shuts_the_drawer_out() -> None:
    state = table(cards=(53,))
    state.apply(DRAW)
    turns = []
    for action in [DROP, bid(1), bid(2), DROP, bid(3), DROP]:
        turns.append(state.current_player)
        state.apply(action)
    assert turns == [1, 2, 3, 0, 2, 3]  # never back to seat 1
    assert state.points == [10, 13, 7, 10]


def test_ms11_a_bidder_can_be_raised_and_raise_again() -> None:
    state = table(cards=(53,))
    state.apply(DRAW)
    turns = []
    for action in [bid(1), bid(2), DROP, DROP, bid(4), DROP]:
        turns.append(state.current_player)
        state.apply(action)
    assert turns == [1, 2, 3, 0, 1, 2]
    assert state.points == [10, 6, 10, 10]  # the drawer bought it: 4 to the bank
    assert total(state) == 36


def test_ms11_without_more_points_than_the_bid_only_dropping_is_left() -> None:
    state = table(cards=(53,))
    set_points(state, [3, 10, 0, 2])
    state.apply(DRAW)
    state.apply(bid(2))
    assert state.current_player == 2
    assert state.legal_actions() == [DROP]  # 0 points
    state.apply(DROP)
    assert state.legal_actions() == [DROP]  # 2 points, bid 2
    with pytest.raises(IllegalActionError):
        state.apply(bid(2))
    state.apply(DROP)
    assert state.current_player == 0
    assert state.legal_actions() == [DROP, bid(3)]


def test_ms11_a_drawer_without_points_can_only_decline() -> None:
    state = table(cards=(53,))
    set_points(state, [10, 0, 10, 10])
    state.apply(DRAW)
    assert state.legal_actions() == [DROP]
    state.apply(DROP)
    buy(state, 2, 4)
    assert state.points == [10, 4, 6, 10]  # the drawer still sells


def test_ms11_the_drawer_who_buys_pays_the_bank() -> None:
    state = table(cards=(53,))
    draw_and_buy(state, buyer=1, price=5)
    assert state.points == [10, 5, 10, 10]
    assert total(state) == 35


def test_ms11_the_price_is_paid_before_the_card_acts() -> None:
    # Card 35: "pay 2 points to the bank".  Seat 3 holds 3 and buys it for 2 from seat 1: it pays
    # the price first (3 -> 1), then the card until broke (1 -> 0); the drawer gets the full price.
    assert effect_card(35) == {"op": "pay", "payer": "holder", "payee": "bank", "amount": 2}
    state = table(cards=(35,))
    set_points(state, [10, 10, 10, 3])
    state.apply(DRAW)
    buy(state, 3, 2)
    assert state.points == [10, 12, 10, 0]
    assert total(state) == 32  # the bank got 1 (the card), the price went to the drawer


# -- MS-11a: the open auction (option auction=open) --------------------------------------------------
def run_auction(state: MaskeState, actions: Sequence[int]) -> list[int]:
    """Apply ``actions`` in the auction; return who decided each one."""
    turns = []
    for action in actions:
        assert state.phase == "auction"
        turns.append(state.current_player)
        state.apply(action)
    return turns


def test_ms11a_the_auction_option_defaults_to_rounds() -> None:
    assert load_game("maske").options["auction"] == "rounds"
    with pytest.raises(InvalidOptionError) as excinfo:
        load_game("maske", {"auction": "english"})
    assert excinfo.value.option == "auction"
    assert table().observation(0)["auction_rule"] == "rounds"
    assert table(auction="open").observation(None)["auction_rule"] == "open"
    configs = MaskeGame.conformance_configurations()
    assert any(c.get("auction") == "open" for c in configs)


def test_ms11a_a_pass_keeps_a_player_in_the_open_auction() -> None:
    """Seat 2 passes, then comes back after seat 0's raise and buys; in rounds (MS-11) its drop
    would have shut it out."""
    state = table(cards=(53,), auction="open")
    state.apply(DRAW)
    actions = [bid(1), DROP, DROP, bid(2), DROP, bid(3), DROP, DROP, DROP]
    assert run_auction(state, actions) == [1, 2, 3, 0, 1, 2, 3, 0, 1]
    assert state.points == [10, 13, 7, 10]  # seat 2 bought for 3, paid to the drawer
    assert state.deck[-1] == 53


def test_ms11a_the_open_auction_ends_when_every_other_player_has_passed_since_the_last_raise() -> None:
    state = table(cards=(53,), auction="open")
    state.apply(DRAW)
    state.apply(bid(1))
    state.apply(DROP)
    obs = state.observation(None)["auction"]
    assert obs["passed"] == 1 << 2 and obs["active"] == [0, 1, 2, 3]
    assert run_auction(state, [DROP, DROP]) == [3, 0]
    assert state.phase != "auction"
    assert state.points == [10, 9, 10, 10]  # the drawer bought it: 1 to the bank
    assert total(state) == 39


def test_ms11a_a_drawer_who_declines_to_open_stays_out() -> None:
    """DE rule 10: declining shuts the drawer out; the others still pass without leaving."""
    state = table(cards=(53,), auction="open")
    state.apply(DRAW)
    assert run_auction(state, [DROP, bid(1), DROP, bid(2), DROP, DROP]) == [1, 2, 3, 0, 2, 3]
    assert state.points == [8, 12, 10, 10]  # seat 0 bought for 2, paid to the drawer
    state = table(cards=(53, 7), auction="open")
    state.apply(DRAW)
    assert run_auction(state, [DROP, DROP, DROP, DROP]) == [1, 2, 3, 0]
    assert state.auction is None and state.deck[-1] == 53  # nobody bid: under the deck, unseen
    assert state.known[-1] == 1 << 1


def test_ms11a_a_drawer_who_opened_may_pass_and_raise_again() -> None:
    state = table(cards=(53,), auction="open")
    state.apply(DRAW)
    assert run_auction(state, [bid(1), bid(2), DROP, DROP, DROP]) == [1, 2, 3, 0, 1]
    assert state.points == [10, 12, 8, 10]
    state = table(cards=(53,), auction="open")
    state.apply(DRAW)
    actions = [bid(1), bid(2), DROP, DROP, bid(3), DROP, DROP, DROP]
    assert run_auction(state, actions) == [1, 2, 3, 0, 1, 2, 3, 0]
    assert state.points == [10, 7, 10, 10]  # the drawer bought it back: 3 to the bank


def test_ms11a_players_who_cannot_outbid_are_not_asked() -> None:
    """Only players able to bid (more points than the bid) count; the others have no decision."""
    state = table(cards=(53,), auction="open")
    set_points(state, [3, 10, 0, 2])
    state.apply(DRAW)
    state.apply(bid(2))
    assert state.current_player == 0  # seat 2 (0 points) and seat 3 (2, the bid) are passed over
    assert state.legal_actions() == [DROP, bid(3)]
    with pytest.raises(IllegalActionError, match="MS-11a"):
        state.apply(bid(4))
    state.apply(DROP)
    assert state.auction is None
    assert state.points == [3, 8, 0, 2]


def test_ms11a_a_drawer_without_points_can_only_decline() -> None:
    state = table(cards=(53,), auction="open")
    set_points(state, [10, 0, 10, 10])
    state.apply(DRAW)
    assert state.legal_actions() == [DROP]
    assert run_auction(state, [DROP, bid(4), DROP, DROP]) == [1, 2, 3, 0]
    assert state.points == [10, 4, 6, 10]


@pytest.mark.parametrize("players", [3, 4, 6])
def test_ms11a_random_open_auctions_end_and_sampled_worlds_agree(players: int) -> None:
    """MS-11a in random games: every auction ends, the seat asked has not passed since the last raise
    and is not the high bidder, and a world the sampler draws from its observation shows it the same
    position and moves."""
    game = make_game(players, masks=3, auction="open")
    openings = 0
    for seed in range(6):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            assert len(state.history) < 5000
            if state.phase == "auction":
                seat = state.current_player
                obs = state.observation(seat)
                assert obs["auction"]["passed"] >> seat & 1 == 0 and seat != obs["auction"]["high"]
                world = game.sample_state(seat, [obs], rng)
                assert world.observation(seat) == obs
                assert world.legal_actions() == state.legal_actions()
                openings += obs["auction"]["bid"] == 0
            state.apply(rng.choice(state.legal_actions()))
    assert openings > 5


def test_ms11_an_unsold_card_goes_under_the_deck_seen_only_by_its_drawer() -> None:
    state = table(cards=(7, 8))
    deck = list(state.deck)
    points = list(state.points)
    state.apply(DRAW)
    nobody_buys(state)
    assert state.auction is None and state.effect is None
    assert state.deck == [*deck[1:], 7]
    assert state.points == points
    assert state.known[-1] == 1 << 1
    assert state.observation(1)["deck"][-1] == 7
    assert state.observation(1)["deck"].count(None) == 54
    for seat in (0, 2, 3, None):
        view = state.observation(seat)["deck"]
        assert view == [None] * 55
    assert state.phase == "action" and state.current_player == 2
    # seat 2 draws the next card (8): seat 1 still knows where 7 is; 8 is seat 2's
    state.apply(DRAW)
    nobody_buys(state)
    assert state.deck[-2:] == [7, 8]
    assert state.observation(1)["deck"][-2:] == [7, None]
    assert state.observation(2)["deck"][-2:] == [None, 8]


# -- MS-12: the card effects -------------------------------------------------------------------------
def bought(
    card: int,
    buyer: int = 1,
    *,
    points: Sequence[int] | None = None,
    holes: Sequence[int] | None = None,
    stack: Sequence[int] = (0, 1),
    cards: Sequence[int] = (),
    price: int = 1,
    spy: list[tuple[int | None, int | None, int]] | None = None,
) -> MaskeState:
    """Seat 1 draws ``card`` and ``buyer`` buys it for ``price``."""
    state = table(cards=(card, *cards), holes=holes, stack=stack)
    if points is not None:
        set_points(state, points)
    if spy is not None:
        original = state._transfer

        def recording(payer: int | None, payee: int | None, amount: int) -> None:
            spy.append((payer, payee, amount))
            original(payer, payee, amount)

        state._transfer = recording  # type: ignore[method-assign]
    draw_and_buy(state, buyer, price)
    return state


def assert_card_done(state: MaskeState, card: int) -> None:
    """MS-12: after acting the card lies under the deck, known to everyone."""
    assert state.effect is None
    assert state.deck[-1] == card
    assert state.known[-1] == (1 << state.game.num_players) - 1
    for seat in [*range(state.game.num_players), None]:
        assert state.observation(seat)["deck"][-1] == card


@pytest.mark.parametrize("card", range(55))
def test_ms12_every_card_acts_then_goes_under_the_deck_known_to_all(card: int) -> None:
    state = bought(card)
    decisions = 0
    while state.phase == "effect":
        assert state.effect is not None and state.effect["card"] == card
        state.apply(state.legal_actions()[0])
        decisions += 1
        assert decisions < 20
    assert_card_done(state, card)
    assert len(state.deck) == 55 and sorted(state.deck) == list(range(55))


@pytest.mark.parametrize(("card", "amount"), [(21, 1), (22, 1), (23, 2), (24, 2)])
def test_ms12_every_other_player_in_turn_pays_you_n_until_broke(card: int, amount: int) -> None:
    assert effect_card(card) == {"op": "pay", "payer": "each_other", "payee": "holder", "amount": amount}
    spy: list[tuple[int | None, int | None, int]] = []
    state = bought(card, buyer=1, points=[0, 10, 10, 1], spy=spy)
    assert spy == [(2, 1, amount), (3, 1, amount), (0, 1, amount)]  # reihum from the holder's left
    assert state.points == [0, 9 + amount + 1, 10 - amount, 1 - 1]
    assert_card_done(state, card)


def test_ms12_reihum_starts_left_of_the_holder_not_the_drawer() -> None:
    spy: list[tuple[int | None, int | None, int]] = []
    state = bought(23, buyer=3, spy=spy)
    assert spy == [(0, 3, 2), (1, 3, 2), (2, 3, 2)]
    assert state.points == [8, 11 - 2, 8, 9 + 6]


@pytest.mark.parametrize("card", [25, 26])
def test_ms12_every_player_in_turn_receives_2_from_the_bank(card: int) -> None:
    spy: list[tuple[int | None, int | None, int]] = []
    state = bought(card, buyer=2, points=[0, 10, 10, 10], spy=spy)
    assert spy == [(None, 3, 2), (None, 0, 2), (None, 1, 2), (None, 2, 2)]
    assert state.points == [2, 13, 11, 12]  # seat 2 paid 1 to the drawer, seat 1


@pytest.mark.parametrize("card", [27, 28])
def test_ms12_every_player_in_turn_pays_1_to_the_bank_until_broke(card: int) -> None:
    spy: list[tuple[int | None, int | None, int]] = []
    state = bought(card, buyer=1, points=[0, 10, 10, 10], spy=spy)
    assert spy == [(2, None, 1), (3, None, 1), (0, None, 1), (1, None, 1)]
    assert state.points == [0, 8, 9, 9]


@pytest.mark.parametrize(("card", "amount"), [(31, 3), (32, 3), (33, 5), (34, 5)])
def test_ms12_receive_n_from_the_bank(card: int, amount: int) -> None:
    state = bought(card, buyer=0)
    assert state.points == [9 + amount, 11, 10, 10]


@pytest.mark.parametrize(("card", "amount"), [(35, 2), (36, 4)])
def test_ms12_pay_n_to_the_bank_until_broke(card: int, amount: int) -> None:
    state = bought(card, buyer=1)
    assert state.points == [10, 9 - amount, 10, 10]
    poor = bought(card, buyer=1, points=[10, 2, 10, 10])
    assert poor.points == [10, 0, 10, 10]


@pytest.mark.parametrize("card", [37, 38, 39])
def test_ms12_take_3_from_a_chosen_player(card: int) -> None:
    state = bought(card, buyer=1, points=[10, 10, 10, 2])
    assert state.phase == "effect" and state.current_player == 1
    assert state.legal_actions() == [PLAYER + 0, PLAYER + 2, PLAYER + 3]
    trial = state.clone()
    trial.apply(PLAYER + 2)
    assert trial.points == [10, 12, 7, 2]
    state.apply(PLAYER + 3)  # has only 2: pays 2, the rest is forgiven
    assert state.points == [10, 11, 10, 0]
    assert_card_done(state, card)


@pytest.mark.parametrize(
    ("points", "after"),
    [
        ([5, 10, 3, 3], [5, 6, 6, 3]),  # tie 2/3: seat 2 is first from the holder's left
        ([3, 10, 10, 3], [3, 6, 10, 6]),  # tie 0/3: seat 3 comes before seat 0 from seat 1's left
        ([10, 4, 10, 3], [10, 0, 10, 6]),  # holder ties (3 after the price): the other one gets it
        ([10, 3, 10, 10], [10, 2, 10, 10]),  # the holder alone has fewest: nothing moves (game.py)
        ([10, 3, 1, 10], [10, 0, 3, 10]),  # the holder has only 2 left: gives 2, until broke
    ],
)
def test_ms12_give_3_to_the_player_with_fewest_points(points: list[int], after: list[int]) -> None:
    state = bought(40, buyer=1, points=points)
    assert state.points == after
    assert_card_done(state, 40)


# seat 0 fences hole (0,0) in; seat 1 in the middle of the top row
FENCE = [at(0, 1), at(1, 0), at(0, 3), at(4, 2), at(0, 5), at(4, 4), at(6, 0), at(6, 6)]


@pytest.mark.parametrize("card", [0, 1, 2, 3])
def test_ms12_jump_one_own_stick_to_any_free_hole(card: int) -> None:
    state = bought(card, holes=FENCE)
    assert state.current_player == 1
    assert state.legal_actions() == [STICK + 2, STICK + 3]
    state.apply(STICK + 3)
    free = [h for h in HOLES if h not in FENCE]
    assert state.legal_actions() == [HOLE + h for h in free]  # not the centre, not a stick's hole
    with pytest.raises(IllegalActionError):
        state.apply(HOLE + at(0, 1))
    state.apply(HOLE + at(0, 0))  # fenced in and far away: a jump ignores steps and sticks
    assert state.sticks == [at(0, 1), at(1, 0), at(0, 3), at(0, 0), *FENCE[4:]]
    assert state.points == [10, 9, 10, 10]  # free of charge (only the price)
    assert_card_done(state, card)
    assert state.current_player == 2


@pytest.mark.parametrize("card", [4, 5])
def test_ms12_jump_both_own_sticks(card: int) -> None:
    state = bought(card, holes=FENCE)
    assert state.legal_actions() == [STICK + 2, STICK + 3]
    state.apply(STICK + 2)
    state.apply(HOLE + at(6, 3))
    assert state.phase == "effect" and state.current_player == 1  # now the other one
    assert HOLE + at(6, 3) not in state.legal_actions()
    assert HOLE + CENTRE not in state.legal_actions()
    state.apply(HOLE + at(0, 0))
    assert state.sticks[2:4] == [at(6, 3), at(0, 0)]
    assert state.points == [10, 9, 10, 10]
    assert_card_done(state, card)


@pytest.mark.parametrize("card", [6, 7, 8])
def test_ms12_jump_a_chosen_opponents_stick_to_a_hole_of_your_choice(card: int) -> None:
    state = bought(card, holes=FENCE)
    assert state.legal_actions() == [STICK + g for g in (0, 1, 4, 5, 6, 7)]
    state.apply(STICK + 6)
    assert state.current_player == 1
    assert HOLE + CENTRE not in state.legal_actions()
    state.apply(HOLE + at(0, 0))
    assert state.sticks[6] == at(0, 0)
    assert state.points == [10, 9, 10, 10]
    assert_card_done(state, card)


@pytest.mark.parametrize(("card", "n"), [(9, 2), (10, 2), (11, 3), (12, 3), (13, 4), (14, 4)])
def test_ms12_move_own_sticks_up_to_n_free_steps(card: int, n: int) -> None:
    state = bought(card)
    plan = [(3, DOWN), (3, DOWN), (3, RIGHT), (2, DOWN)]
    where = {2: at(0, 2), 3: at(4, 2)}
    for k, (stick, d) in enumerate(plan[:n]):
        assert state.phase == "effect" and state.current_player == 1
        legal = state.legal_actions()
        assert DONE in legal
        assert all(a == DONE or (a - STEP) // 4 in (2, 3) for a in legal)  # own sticks only
        state.apply(step(stick, d))
        where[stick] = NEXT_HOLE[where[stick]][d]
        assert state.sticks[2:4] == [where[2], where[3]], k
    assert state.points == [10, 9, 10, 10]  # free steps (only the price)
    assert_card_done(state, card)  # exactly n steps, then the card is over


def test_ms12_free_steps_may_stop_early_and_still_obey_ms10() -> None:
    state = bought(13, holes=[at(1, 2), at(6, 6), at(0, 2), at(4, 2), *DEFAULT_HOLES[4:8]])
    assert step(2, DOWN) not in state.legal_actions()  # a stick below: free steps are still steps
    state.apply(step(3, UP))
    state.apply(DONE)
    assert state.sticks[2:4] == [at(0, 2), at(3, 2)]
    assert_card_done(state, 13)
    early = bought(9)
    early.apply(DONE)  # "up to": even no step at all (game.py)
    assert early.sticks == DEFAULT_HOLES[:8]
    assert_card_done(early, 9)


@pytest.mark.parametrize("card", [15, 16, 17])
def test_ms12_move_one_stick_of_a_chosen_opponent_up_to_3_steps(card: int) -> None:
    state = bought(card)
    legal = state.legal_actions()
    movers = {(a - STEP) // 4 for a in legal if a != DONE}
    assert movers == {0, 1, 4, 5, 6, 7}
    state.apply(step(4, DOWN))  # seat 2's stick chosen
    assert {(a - STEP) // 4 for a in state.legal_actions() if a != DONE} == {4}
    state.apply(step(4, DOWN))
    state.apply(step(4, DOWN))
    assert state.sticks[4] == at(3, 4)
    assert state.points == [10, 9, 10, 10]
    assert_card_done(state, card)


@pytest.mark.parametrize("card", [29, 30])
def test_ms12_every_player_in_turn_may_step_once_for_free(card: int) -> None:
    state = bought(card, buyer=1)
    deciders = []
    for seat, action in [(2, step(4, DOWN)), (3, DONE), (0, step(0, DOWN)), (1, step(3, RIGHT))]:
        assert state.phase == "effect"
        deciders.append(state.current_player)
        own = {2 * seat, 2 * seat + 1}
        assert all(a == DONE or (a - STEP) // 4 in own for a in state.legal_actions())
        assert DONE in state.legal_actions()  # voluntary
        state.apply(action)
    assert deciders == [2, 3, 0, 1]  # reihum: left of the holder, ending with the holder
    assert state.sticks[:8] == [
        at(1, 0),
        at(4, 0),
        at(0, 2),
        at(4, 3),
        at(1, 4),
        at(4, 4),
        at(0, 6),
        at(4, 6),
    ]
    assert state.points == [10, 9, 10, 10]
    assert_card_done(state, card)


@pytest.mark.parametrize("card", [18, 19, 20])
def test_ms12_swap_an_own_stick_with_a_chosen_opponents_stick(card: int) -> None:
    state = bought(card)
    assert state.legal_actions() == [STICK + 2, STICK + 3]
    state.apply(STICK + 3)
    assert state.legal_actions() == [STICK + g for g in (0, 1, 4, 5, 6, 7)]
    state.apply(STICK + 6)
    assert state.sticks[3] == at(0, 6) and state.sticks[6] == at(4, 2)
    assert state.points == [10, 9, 10, 10]
    assert_card_done(state, card)


# Seat 2's second stick is where mask 0's double ring goes after a quarter turn clockwise.
TURN_HOLES = [*DEFAULT_HOLES[:5], at(6, 5), *DEFAULT_HOLES[6:8]]


@pytest.mark.parametrize(
    ("card", "choice", "orientation"), [(41, TURN_CW, 1), (42, TURN_CCW, 3), (43, TURN_CW, 1)]
)
def test_ms12_turn_the_mask_a_quarter_either_way(card: int, choice: int, orientation: int) -> None:
    state = bought(card, holes=TURN_HOLES)
    assert state.legal_actions() == [TURN_CW, TURN_CCW]
    state.apply(choice)
    assert state.laid == [(0, orientation)]
    assert state.sticks == TURN_HOLES
    assert_card_done(state, card)
    before = list(state.points)
    passes(state, 3)
    gained = [state.points[s] - before[s] for s in range(4)]
    assert gained == [payday_value(0, orientation, TURN_HOLES[2 * s : 2 * s + 2]) for s in range(4)]
    assert gained[2] == (5 if orientation == 1 else MASK_VALUES[0][orientation][at(6, 5)])


def test_ms12_turn_the_mask_a_half_turn() -> None:
    state = bought(44, holes=TURN_HOLES)
    assert state.laid == [(0, 2)]
    assert_card_done(state, 44)


# Seat 0 on a double and a single ring of mask 0 (orientation 0), seat 2 on a double ring.
RING_HOLES = [at(1, 6), at(2, 1), at(0, 2), at(4, 2), at(5, 1), at(0, 4), at(0, 6), at(4, 6)]


@pytest.mark.parametrize("card", [45, 46])
def test_ms12_extra_payday_now_on_the_current_mask(card: int) -> None:
    state = bought(card, holes=RING_HOLES)
    assert state.points == [18, 9, 15, 10]
    assert_card_done(state, card)
    passes(state, 3)  # the round's own payday still comes
    assert state.points == [26, 9, 20, 10]


@pytest.mark.parametrize("card", [47, 48])
def test_ms12_double_payday_at_this_rounds_payday_only(card: int) -> None:
    holes = [at(5, 1), at(0, 0), at(1, 6), at(2, 1), *DEFAULT_HOLES[4:8]]
    state = bought(card, holes=holes)
    assert_card_done(state, card)
    passes(state, 3)
    assert state.points == [15, 9 + 2 * 8, 10, 10]  # seat 1 doubled, seat 0 not
    assert state.double == [False] * 4
    state.apply(ORIENT)  # mask 1
    passes(state, 4)
    assert state.points[1] == 25 + payday_value(1, 0, [at(1, 6), at(2, 1)])  # not doubled again


def test_ms12_an_extra_payday_is_not_doubled_by_the_double_payday_card() -> None:
    # game.py's decision: the double card is for the round's payday only
    holes = [at(0, 0), at(4, 0), at(1, 6), at(2, 1), *DEFAULT_HOLES[4:8]]
    state = table(cards=(47, 45), holes=holes)
    draw_and_buy(state, buyer=1)  # double payday for seat 1
    state.apply(DRAW)  # seat 2 draws the extra payday
    buy(state, 1, 1)  # seat 1 buys it from seat 2: 8 points, then +8 (not 16)
    assert state.points == [10, 16, 11, 10]
    passes(state, 2)
    assert state.points == [10, 16 + 16, 11, 10]  # the round's payday is doubled


@pytest.mark.parametrize("card", [49, 50])
def test_ms12_the_left_neighbour_skips_their_next_action(card: int) -> None:
    state = bought(card, buyer=1)
    assert_card_done(state, card)
    assert state.current_player == 3  # seat 2 skipped
    assert state.skip == [False] * 4
    passes(state, 2)
    state.apply(ORIENT)
    assert passes(state, 4) == [2, 3, 0, 1]  # skipped once only


def test_ms12_a_skip_carries_over_to_the_next_round() -> None:
    # The placer (seat 0, last to act) buys it: seat 1 has acted already and skips in round 2,
    # where it lays the mask (laying is no action) and loses its action slot.
    state = table(cards=(49,))
    passes(state, 3)
    draw_and_buy(state, buyer=0)
    assert state.phase == "lay" and state.current_player == 1
    state.apply(ORIENT)
    assert passes(state, 3) == [2, 3, 0]
    assert state.is_terminal()


def test_ms12_extra_action_the_buyer_acts_again_at_once() -> None:
    state = table(cards=(51,), stack=(0, 1))
    draw_and_buy(state, buyer=3)  # seat 1 drew, seat 3 bought
    assert_card_done(state, 51)
    assert state.phase == "action" and state.current_player == 3
    assert {PASS, DRAW} <= set(state.legal_actions())
    assert passes(state, 4) == [3, 2, 3, 0]  # then the round goes on from seat 2


def test_ms12_extra_action_may_be_a_move() -> None:
    state = bought(52, buyer=1)
    assert state.current_player == 1
    state.apply(step(3, DOWN))
    state.apply(DONE)
    assert state.points == [10, 8, 10, 10]
    assert state.current_player == 2


@pytest.mark.parametrize("card", [53, 54])
def test_ms12_nothing_happens(card: int) -> None:
    plain = table(cards=(card,))
    state = bought(card, buyer=2, price=2)
    assert state.points == [10, 12, 8, 10]
    assert state.sticks == plain.sticks and state.laid == plain.laid
    assert_card_done(state, card)


# -- MS-13 .. MS-15: paydays and the end ------------------------------------------------------------
def test_ms13_payday_pays_5_for_a_double_ring_3_for_a_single_ring_0_otherwise() -> None:
    doubles, singles = ring_holes(0, 0, 5), ring_holes(0, 0, 3)
    assert len(doubles) >= 2 and len(singles) >= 2
    holes = [doubles[0], singles[0], doubles[1], doubles[2], singles[1], singles[2], at(0, 0), at(6, 6)]
    assert MASK_VALUES[0][0][at(0, 0)] == 0 == MASK_VALUES[0][0][at(6, 6)]
    state = table(holes=holes, stack=(0,))
    passes(state, 4)
    assert state.points == [18, 20, 16, 10]


def test_ms14_the_game_ends_after_the_last_payday_and_most_points_win() -> None:
    state = table(holes=RING_HOLES, stack=(0,))
    passes(state, 3)
    assert not state.is_terminal() and state.returns() == [0.0] * 4 and state.winners() == []
    state.apply(PASS)
    assert state.is_terminal() and state.current_player == TERMINAL
    assert state.points == [18, 10, 15, 10]
    assert state.winners() == [0]
    assert state.returns() == [1.0, 0.0, 0.0, 0.0]
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        state.apply(PASS)
    assert state.observation(2)["terminal"] is True and state.observation(2)["winners"] == [0]


def test_ms14_a_tie_is_shared() -> None:
    state = table(stack=(0,))
    passes(state, 4)
    assert state.winners() == [0, 1, 2, 3]
    assert state.returns() == [0.25] * 4
    holes = [at(1, 6), at(0, 0), at(5, 1), at(0, 2), *DEFAULT_HOLES[4:8]]
    two = table(holes=holes, stack=(0,))
    passes(two, 4)
    assert two.points == [15, 15, 10, 10]
    assert two.winners() == [0, 1]
    assert two.returns() == [0.5, 0.5, 0.0, 0.0]


def play_passes(state: MaskeState, orientations: Sequence[int]) -> None:
    for o in orientations:
        state.apply(ORIENT + o)
        passes(state, state.game.num_players)


@pytest.mark.parametrize("unmasking", [False, True])
def test_ms15_unmasking_pays_the_masks_below_down_to_the_first(unmasking: bool) -> None:
    stack, orientations = (0, 1, 2), (0, 1, 3)
    holes = [at(5, 1), at(1, 6), at(2, 1), at(6, 2), at(5, 3), at(0, 5), at(6, 0), at(4, 5)]
    state = table(holes=holes, stack=stack, orientation=None, unmasking=unmasking)
    play_passes(state, orientations)
    assert state.is_terminal()
    for seat in range(4):
        own = holes[2 * seat : 2 * seat + 2]
        rounds = sum(payday_value(m, o, own) for m, o in zip(stack, orientations, strict=True))
        below = payday_value(1, 1, own) + payday_value(0, 0, own)  # mask 2 is off, then mask 1
        assert state.points[seat] == 10 + rounds + (below if unmasking else 0), seat
        if seat == 0:
            assert below == 13  # mask 1 pays 3, then mask 0 pays 5 + 5
    assert state.laid == [(0, 0), (1, 1), (2, 3)]


def test_ms15_unmasking_with_one_mask_adds_nothing() -> None:
    state = table(holes=RING_HOLES, stack=(0,), unmasking=True)
    passes(state, 4)
    assert state.is_terminal() and state.points == [18, 10, 15, 10]


# -- MS-17: hidden information -------------------------------------------------------------------------
def cards_shown(obs: dict[str, Any]) -> set[int]:
    shown = {c for c in obs["deck"] if c is not None}
    if obs["auction"] is not None and obs["auction"]["card"] is not None:
        shown.add(obs["auction"]["card"])
    if obs["effect"] is not None:
        shown.add(obs["effect"]["card"])
    return shown


def where(state: MaskeState, card: int) -> tuple[str, int]:
    if card in state.deck:
        return ("deck", state.deck.index(card))
    if state.auction is not None and state.auction["card"] == card:
        return ("auction", 0)
    assert state.effect is not None and state.effect["card"] == card
    return ("effect", 0)


def policy(state: MaskeState, rng: random.Random, draw: float = 0.45) -> int:
    """Random play that draws and bids often (more hidden information in play)."""
    legal = state.legal_actions()
    if state.phase == "action" and rng.random() < draw:
        return DRAW
    if state.phase == "moving" and rng.random() < 0.5:
        return DONE
    if state.phase == "auction":
        bids = [a for a in legal if a != DROP]
        if bids and rng.random() < 0.45:
            return bids[min(len(bids) - 1, rng.randrange(3))]
        return DROP
    return rng.choice(legal)


def test_ms17_deck_and_mask_stack_never_appear_in_observations() -> None:
    game = make_game(4)
    a = MaskeState(game, 0, list(range(16)), list(range(55)))
    b = MaskeState(game, 0, [0, 17, 16, *range(14, 1, -1)], list(range(54, -1, -1)))
    assert len(b.stack) == 16 == len(set(b.stack))
    for h in DEFAULT_HOLES[:8]:
        for state in (a, b):
            state.apply(HOLE + h)
        # set-up, then the placer's mask turned over (both stacks start with mask 0), then play
        assert all(a.observation(s) == b.observation(s) for s in (0, 1, 2, 3, None))
    for state in (a, b):
        assert state.observation(2)["mask_to_lay"] == 0  # MS-8: the placer turns it over: public
        state.apply(ORIENT + 1)
        state.apply(PASS)
    for seat in (0, 1, 2, 3, None):
        obs = a.observation(seat)
        assert obs == b.observation(seat)
        assert obs["deck"] == [None] * 55
        assert obs["masks_left"] == 15
        assert "stack" not in obs and "seed" not in obs


# Deals where some seat never sees a drawn card (which the check needs); 6 players with seed 1 has none.
@pytest.mark.parametrize(
    ("players", "seed"), [(p, s) for p in (3, 4, 5, 6) for s in (1, 2, 3) if (p, s) != (6, 1)] + [(6, 4)]
)
def test_ms17_observations_do_not_depend_on_what_the_seat_has_not_seen(players: int, seed: int) -> None:
    """Leak check: up to a cut point, replay the same actions with every card the seat had not seen
    by then, and every mask not yet shown, shuffled: the seat's observations must not change."""
    game = make_game(players)
    rng = random.Random(seed)
    start = game.new_initial_state(seed)
    state = start.clone()
    actions: list[int] = []
    seats: list[int | None] = [*range(players), None]
    seen: dict[int | None, set[int]] = {s: set() for s in seats}
    shown: set[int] = set()  # masks shown: laid, or turned over to be laid (MS-8)
    drawn: set[int] = set()
    snapshots: list[tuple[dict[int | None, frozenset[int]], frozenset[int]]] = []
    while not state.is_terminal():
        assert len(actions) < 5000
        action = policy(state, rng)
        state.apply(action)
        actions.append(action)
        if state.auction is not None:
            drawn.add(state.auction["card"])
        shown |= {m for m, _ in state.laid}
        if state.phase == "lay":
            shown.add(state.stack[0])
        for s in seats:
            seen[s] |= cards_shown(state.observation(s))
        snapshots.append(({s: frozenset(seen[s]) for s in seats}, frozenset(shown)))
    # some seat did not see a card that was drawn (an unsold card of another drawer)
    assert any(drawn - seen[s] for s in range(players))
    stacks_changed = 0
    for cut in sorted({len(actions) // 4, len(actions) // 2, 3 * len(actions) // 4, len(actions)}):
        seen_then, masks_then = snapshots[cut - 1]
        unshown = [m for m in range(18) if m not in masks_then]
        for seat, known in seen_then.items():
            hidden = [c for c in start.deck if c not in known]
            shuffled = iter(rng.sample(hidden, len(hidden)))
            deck = [next(shuffled) if c not in known else c for c in start.deck]
            rest = iter(rng.sample(unshown, sum(m not in masks_then for m in start.stack)))
            stack = [m if m in masks_then else next(rest) for m in start.stack]
            assert deck != start.deck
            stacks_changed += stack != start.stack
            one, two = start.clone(), MaskeState(game, seed, stack, deck)
            for k, action in enumerate(actions[:cut]):
                one.apply(action)
                two.apply(action)
                assert one.observation(seat) == two.observation(seat), (
                    cut,
                    seat,
                    k,
                    one.action_to_str(action),
                )
    assert stacks_changed
    # the check has teeth: a seat that saw a card tells apart a deck where that card moved
    seat = next(s for s in range(players) if seen[s])
    card = next(iter(seen[seat]))
    deck = list(start.deck)
    i = deck.index(card)
    j = (i + 1) % 55
    deck[i], deck[j] = deck[j], deck[i]
    one, two = start.clone(), MaskeState(game, seed, list(start.stack), deck)
    differs = False
    for action in actions:
        if not (one.is_legal(action) and two.is_legal(action)):
            differs = True
            break
        one.apply(action)
        two.apply(action)
        if one.observation(seat) != two.observation(seat):
            differs = True
            break
    assert differs


@pytest.mark.parametrize(
    ("players", "seed", "unmasking"),
    [(3, 11, False), (4, 12, True), (5, 14, False), (6, 13, False), (3, 15, True), (4, 16, False)],
)
def test_ms17_sampled_states_agree_with_everything_the_seat_has_seen(
    players: int, seed: int, unmasking: bool
) -> None:
    game = make_game(players, unmasking=unmasking)
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    seats: list[int | None] = [*range(players), None]
    history: dict[int | None, list[Any]] = {s: [state.observation(s)] for s in seats}
    seen: dict[int | None, set[int]] = {s: set() for s in seats}
    checked = 0
    while not state.is_terminal():
        assert len(state.history) < 5000
        state.apply(policy(state, rng))
        for s in seats:
            obs = state.observation(s)
            history[s].append(obs)
            seen[s] |= cards_shown(obs)
        for s in seats:
            sample = game.sample_state(s, history[s], rng)
            assert isinstance(sample, MaskeState)
            assert sample.observation(s) == history[s][-1]
            assert sample.legal_actions() == state.legal_actions()
            cards = list(sample.deck)
            if sample.auction is not None:
                cards.append(sample.auction["card"])
            if sample.effect is not None:
                cards.append(sample.effect["card"])
            assert sorted(cards) == list(range(55))
            for card in seen[s]:  # a card once seen is where the seat knows it to be
                assert where(sample, card) == where(state, card), (s, card)
            laid = {m for m, _ in sample.laid}
            assert len(sample.stack) == len(state.stack) == len(set(sample.stack))
            assert not laid & set(sample.stack)
            checked += 1
    assert checked > 50
    assert any(seen[s] for s in range(players))


def test_ms17_a_card_seen_earlier_stays_known_when_the_deck_comes_round() -> None:
    """Seat 1 draws card 0 and nobody buys it: seat 1 alone knows it lies under the deck.  After 54
    more unsold draws card 0 is on top again and seat 5 draws it.  Seat 1 saw card 0 there one
    action before; what seat 1 is shown (and what the sampler builds for seat 1) must keep it."""
    game = make_game(6, masks=12)
    state = MaskeState(game, 0, list(range(12)), list(range(55)))
    for h in DEFAULT_HOLES:
        state.apply(HOLE + h)
    history: list[Any] = [state.observation(1)]
    draws = 0
    while draws < 55:
        if state.phase == "lay":
            state.apply(ORIENT)
        else:
            state.apply(DRAW)
            draws += 1
            nobody_buys(state)
        history.append(state.observation(1))
    assert state.phase == "action" and state.current_player == 5
    assert history[-1]["deck"][0] == 0  # seat 1 knows card 0 is on top
    state.apply(DRAW)
    history.append(state.observation(1))
    assert state.auction is not None and state.auction["card"] == 0
    rng = random.Random(0)
    for _ in range(10):
        sample = game.sample_state(1, history, rng)
        assert sample.auction is not None
        assert sample.auction["card"] == 0, "the sampler forgot the card seat 1 saw on top of the deck"
    nobody_buys(state)
    history.append(state.observation(1))
    assert state.deck[-1] == 0
    for _ in range(10):
        sample = game.sample_state(1, history, rng)
        assert sample.deck[-1] == 0, "the sampler moved the card seat 1 knows lies under the deck"


# -- bad input ---------------------------------------------------------------------------------------
def positions() -> list[MaskeState]:
    """One position in each phase: setup, lay, action, moving, auction, effect, over."""
    setup = make_game(4).new_initial_state(0)
    lay = table(orientation=None)
    action = table()
    moving = table()
    moving.apply(step(3, DOWN))
    auction = table(cards=(53,))
    auction.apply(DRAW)
    effect = bought(0)
    over = table(stack=(0,))
    passes(over, 4)
    states = [setup, lay, action, moving, auction, effect, over]
    assert [s.phase for s in states] == ["setup", "lay", "action", "moving", "auction", "effect", "over"]
    return states


def test_bad_actions_raise_typed_errors_and_change_nothing() -> None:
    """architecture.md "bad input never corrupts anything", in every phase of MS-7 .. MS-14."""
    assert make_game().num_distinct_actions == NUM_ACTIONS
    for state in positions():
        legal = state.legal_actions()
        before = state.serialize()
        observed = [state.observation(s) for s in (0, 1, 2, 3, None)]
        for bad in (-1, NUM_ACTIONS, 10**9, "pass", 1.0, None, True, [PASS]):
            with pytest.raises(MalformedActionError):
                state.apply(bad)  # type: ignore[arg-type]
        illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
        for action in illegal[:: max(1, len(illegal) // 60)] + illegal[-3:]:
            with pytest.raises(IllegalActionError):
                state.apply(action)
        assert state.serialize() == before
        assert state.legal_actions() == legal
        assert [state.observation(s) for s in (0, 1, 2, 3, None)] == observed


def test_bad_notation_raises_malformed_action_errors() -> None:
    """architecture.md: unparseable text or JSON is a MalformedActionError; legal moves round-trip."""
    state = table()
    for text in [
        "",
        "h8",
        "a0",
        "step 8 up",
        "step 2 north",
        "bid 0",
        f"bid {MAX_BID + 1}",
        "lay 4",
        "player 4",
    ]:
        with pytest.raises(MalformedActionError):
            state.action_from_str(text)
    for obj in [None, "pass", {"move": 3}, {"move": "pass", "x": 1}, {}]:
        with pytest.raises(MalformedActionError):
            state.action_from_json(obj)
    for action in state.legal_actions():
        assert state.action_from_str(state.action_to_str(action)) == action
        assert state.action_from_json(state.action_to_json(action)) == action


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"players": 2}, "players"),
        ({"players": 7}, "players"),
        ({"players": "4"}, "players"),
        ({"masks": 19}, "masks"),
        ({"masks": -1}, "masks"),
        ({"unmasking": "yes"}, "unmasking"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_ms5_ms15_ms16_bad_options_raise_invalid_option_error(options: dict[str, Any], name: str) -> None:
    with pytest.raises(InvalidOptionError) as caught:
        load_game("maske", options)
    assert caught.value.option == name


def test_a_serialised_state_is_a_snapshot_not_a_handle() -> None:
    """Changing what serialize() gave (an auction under way, say) leaves the state as it was."""
    rng = random.Random(2)
    state = load_game("maske", {"players": 3}).new_initial_state(8)
    while not state.is_terminal() and not isinstance(state.serialize().get("auction"), dict):
        state.apply(rng.choice(state.legal_actions()))
    snapshot = state.serialize()
    assert isinstance(snapshot["auction"], dict), "no auction came up in this game"
    before, mover = json.dumps(snapshot, sort_keys=True), state.current_player
    for key in list(snapshot["auction"]):
        snapshot["auction"][key] = None
    snapshot["options"]["players"] = 4
    assert state.current_player == mover and json.dumps(state.serialize(), sort_keys=True) == before


@pytest.mark.parametrize("auction", ["rounds", "open"])
def test_ms_7_ms_9_ms_11_a_turn_goes_on_until_its_seat_has_done_its_part(auction: str) -> None:
    """``mid_turn`` (the clocks' increment comes once a turn): true in a paid move after its first
    step and while a card's choices go on (MS-9, MS-12), for a seat's second stick of the set-up
    (MS-7), and for the drawer's opening bid or decline right after the draw (MS-9, MS-11); false
    at the start of every other decision."""
    from masques.engine import load_game
    from masques.games.maske.game import DRAW

    state = load_game("maske", {"players": 3, "auction": auction}).new_initial_state(4)
    rng = random.Random(4)
    seen = set()
    opening = setup_seconds = 0
    while not state.is_terminal():
        phase, seat = state.phase, state.current_player
        drawer_opens = phase == "auction" and state.auction["turn"] == state.auction["drawer"]
        drawer_opens = drawer_opens and state.auction["high"] is None
        second_stick = phase == "setup" and sum(1 for s in state.sticks if s != -1) % 2 == 1
        expected = phase in ("moving", "effect") or drawer_opens or second_stick
        assert state.mid_turn() == expected, (phase, state.auction)
        opening += drawer_opens
        setup_seconds += second_stick
        seen.add(phase)
        action = rng.choice(state.legal_actions())
        state.apply(action)
        if action == DRAW:
            assert state.current_player == seat and state.mid_turn()  # the drawer opens, same turn
    assert {"moving", "action", "auction"} <= seen
    assert setup_seconds == 3 and opening > 0


# -- MS-6: the points at the start, and the bank ---------------------------------------------------
@pytest.mark.parametrize("players", range(3, 7))
def test_ms6_every_player_starts_with_10_points_for_everyone_to_see(players: int) -> None:
    state = load_game("maske", {"players": players}).new_initial_state(players)
    assert isinstance(state, MaskeState)
    assert state.points == [10] * players
    for viewer in [None, *range(players)]:
        assert state.observation(viewer)["points"] == [10] * players


def test_ms6_the_bank_pays_every_payday_in_full_however_much_it_has_paid() -> None:
    stack = tuple(range(18))
    state = table(holes=RING_HOLES, stack=stack)
    expected = [10] * 4
    for number, mask in enumerate(stack):
        if number:
            state.apply(ORIENT)
        passes(state, 4)
        for seat in range(4):
            expected[seat] += payday_value(mask, 0, RING_HOLES[2 * seat : 2 * seat + 2])
        assert state.points == expected, number
    assert state.is_terminal()
    assert sum(expected) - 40 > 40  # the bank paid out more than the players began with
