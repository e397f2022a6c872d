"""Masker rules, tested against the spec (``shared/spec/masker.md``, decisions MK-1 .. MK-15).

Every test names the decision it checks.  Hand-built positions use :func:`grid` (2D, six rows of six
letters) and :func:`towers` (3D, nine stacks written bottom to top); letters are R Y G B K (the five
colours), W (white), ``*`` (the runner) and ``.`` (a hole).  Where the rulebook is silent the tests
follow the decisions documented in the engine's module docstring (auto-pass at capacity, white with
isolation, MK-11 details, public elimination colour); those tests say so.

Random games are also replayed against the literal model in ``reference.py`` (fixture ``ref``), and the
determinization sampler is checked against a brute force that replays every token assignment.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import masques.games.masker.game as masker_module
from masques.engine import (
    TERMINAL,
    ActionError,
    IllegalActionError,
    InvalidOptionError,
    MalformedActionError,
    load_game,
)
from masques.engine.chance import CHANCE_VERSION, Chance, stream
from masques.games.masker.game import (
    COLOURS,
    RUNNER,
    STOP,
    TAKE,
    WHITE,
    MaskerGame,
    MaskerState,
    consistent_tokens,
)

R, Y, G, B, K = range(5)
CODE = {"R": R, "Y": Y, "G": G, "B": B, "K": K, "W": WHITE, "*": RUNNER}
CONFIGS = [(p, v) for v in ("2d", "3d") for p in (2, 3, 4)]
CAPACITY = {2: 18, 3: 12, 4: 9}

_GAMES: dict[tuple[int, str], MaskerGame] = {}


# -- helpers ---------------------------------------------------------------------------------------
def game(players: int = 2, variant: str = "2d") -> MaskerGame:
    key = (players, variant)
    if key not in _GAMES:
        loaded = load_game("masker", {"players": players, "variant": variant})
        assert isinstance(loaded, MaskerGame)
        _GAMES[key] = loaded
    return _GAMES[key]


def grid(*rows: str) -> list[list[int]]:
    """A 2D board: six rows of six letters, top row first; ``.`` is a hole."""
    assert len(rows) == 6
    cells: list[list[int]] = []
    for row in rows:
        assert len(row) == 6, row
        cells.extend([] if ch == "." else [CODE[ch]] for ch in row)
    return cells


def towers(*stacks: str) -> list[list[int]]:
    """A 3D board: nine stacks (row-major), each written bottom to top; ``""`` is a hole."""
    assert len(stacks) == 9
    return [[CODE[ch] for ch in stack] for stack in stacks]


def build(players: int, stacks: list[list[int]], tokens: list[int], first: int = 0) -> MaskerState:
    variant = "3d" if len(stacks) == 9 else "2d"
    return MaskerState(game(players, variant), 0, copy.deepcopy(stacks), list(tokens), first)


def at(row: int, col: int, size: int = 6) -> int:
    return row * size + col


def every_cross(state: MaskerState) -> list[int]:
    """Every stack top holding a cross (the targets of a free step, MK-7/MK-8/MK-14)."""
    return [i for i, s in enumerate(state.stacks) if s and s[-1] != RUNNER]


def expected_neighbours(cell: int, size: int) -> list[int]:
    row, col = divmod(cell, size)
    out = []
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= r < size and 0 <= c < size:
            out.append(r * size + c)
    return sorted(out)


def play(state: MaskerState, *actions: int) -> MaskerState:
    for action in actions:
        state.apply(action)
    return state


def random_position(g: MaskerGame, seed: int, plies: int) -> MaskerState:
    state = g.new_initial_state(seed)
    rng = random.Random(seed ^ 0x5EED)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


def random_game(g: MaskerGame, seed: int) -> tuple[MaskerState, list[int], list[int]]:
    """A whole random game: the final state, the actions and who made each one."""
    state = g.new_initial_state(seed)
    rng = random.Random(seed)
    actions: list[int] = []
    movers: list[int] = []
    while not state.is_terminal():
        movers.append(state.current_player)
        action = rng.choice(state.legal_actions())
        actions.append(action)
        state.apply(action)
    return state, actions, movers


def crosses_on_board(state: MaskerState) -> Counter[int]:
    return Counter(code for stack in state.stacks for code in stack if code != RUNNER)


def seats_and_spectator(g: MaskerGame) -> list[int | None]:
    return [*range(g.num_players), None]


# Boards used by several tests.  Cells: a1 = 0 (top-left), row r col c = 6r + c.
FULL = grid(
    "RYGBKR",
    "YGBKRY",
    "GBK*YG",
    "BKRYGB",
    "KRYGBK",
    "RYGBKR",
)
ONE_RED = grid(  # the only red cross is next to the runner
    "*RYGKB",
    "GKBKGY",
    "KGYGKB",
    "YKGBGK",
    "GBKYKG",
    "KGBKYB",
)
ONE_YELLOW = grid(  # the only yellow cross is next to the runner
    "*YRGKB",
    "GKBKGR",
    "KGRGKB",
    "RKGBGK",
    "GBKRKG",
    "KGBKRB",
)
ONE_GREEN = grid(
    "*GRYKB",
    "RKBKYR",
    "KYRYKB",
    "RKYBYK",
    "YBKRKY",
    "KRBKRB",
)
LOWER_ROWS = ("RYKBRY", "KBRYKB", "RYKBRY", "KBRYKB")


# -- MK-1 components ------------------------------------------------------------------------------
def test_mk_1_the_box_holds_35_coloured_crosses_and_one_runner() -> None:
    assert COLOURS == ("red", "yellow", "green", "blue", "black")
    crosses = Counter(MaskerGame.crosses())
    assert crosses == {R: 6, Y: 6, G: 6, B: 6, K: 6, WHITE: 5, RUNNER: 1}
    assert sum(crosses.values()) == 36
    assert WHITE not in range(len(COLOURS)) and RUNNER not in range(len(COLOURS))


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_1_every_deal_uses_every_cross_once(players: int, variant: str) -> None:
    g = game(players, variant)
    for seed in range(25):
        state = g.new_initial_state(seed)
        codes = Counter(code for stack in state.stacks for code in stack)
        assert codes == {R: 6, Y: 6, G: 6, B: 6, K: 6, WHITE: 5, RUNNER: 1}
        assert state.observation(None)["colours_on_board"] == {
            "red": 6,
            "yellow": 6,
            "green": 6,
            "blue": 6,
            "black": 6,
            "white": 5,
        }
        assert all(t in range(5) for t in state.tokens)  # five colour tokens


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_1_crosses_are_conserved_during_play(players: int, variant: str) -> None:
    g = game(players, variant)
    for seed in range(6):
        state = g.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            held = Counter(code for pile in state.piles for code in pile)
            assert crosses_on_board(state) + held == Counter(MaskerGame.crosses()) - Counter([RUNNER])
            assert sum(s.count(RUNNER) for s in state.stacks) == 1


# -- MK-2 2D set-up ---------------------------------------------------------------------------------
def test_mk_2_the_2d_deal_is_a_6x6_grid_of_single_crosses() -> None:
    g = game(2, "2d")
    layouts = set()
    runner_cells: Counter[int] = Counter()
    for seed in range(3600):
        state = g.new_initial_state(seed)
        assert len(state.stacks) == 36
        assert all(len(stack) == 1 for stack in state.stacks)
        runner_cells[state.runner] += 1
        layouts.add(tuple(stack[0] for stack in state.stacks))
    obs = g.new_initial_state(0).observation(None)
    assert (obs["rows"], obs["cols"]) == (6, 6)
    assert len(layouts) == 3600  # shuffled: no two seeds in this range deal the same board
    assert set(runner_cells) == set(range(36))  # the runner can start anywhere
    assert all(40 <= n <= 170 for n in runner_cells.values()), runner_cells  # ~100 each


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_2_the_deal_is_seeded(players: int, variant: str) -> None:
    g = game(players, variant)
    assert g.new_initial_state(11).serialize() == g.new_initial_state(11).serialize()
    assert g.new_initial_state(11).stacks != g.new_initial_state(12).stacks


# -- MK-3 secret colours ------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_3_tokens_are_distinct_one_per_team(players: int, variant: str) -> None:
    g = game(players, variant)
    teams = 2 if players == 4 else players
    seen: dict[int, set[int]] = {team: set() for team in range(teams)}
    for seed in range(300):
        state = g.new_initial_state(seed)
        assert len(state.tokens) == teams
        assert len(set(state.tokens)) == teams
        for team, token in enumerate(state.tokens):
            seen[team].add(token)
    assert all(colours == set(range(5)) for colours in seen.values())  # any team can draw any colour


@pytest.mark.parametrize("variant", ["2d", "3d"])
def test_mk_3_four_players_are_two_teams_of_opposite_partners(variant: str) -> None:
    g = game(4, variant)
    for seed in range(20):
        state = g.new_initial_state(seed)
        obs = [state.observation(s) for s in range(4)]
        assert obs[0]["your_colour"] == obs[2]["your_colour"] == COLOURS[state.tokens[0]]
        assert obs[1]["your_colour"] == obs[3]["your_colour"] == COLOURS[state.tokens[1]]
        assert obs[0]["your_colour"] != obs[1]["your_colour"]
        assert [o["partner"] for o in obs] == [2, 3, 0, 1]
        assert g.team_of(0) == g.team_of(2) != g.team_of(1) == g.team_of(3)


@pytest.mark.parametrize(("players", "variant"), [(2, "2d"), (3, "2d"), (2, "3d"), (3, "3d")])
def test_mk_3_each_player_sees_their_own_colour_only(players: int, variant: str) -> None:
    g = game(players, variant)
    state = g.new_initial_state(5)
    for seat in range(players):
        obs = state.observation(seat)
        assert obs["your_colour"] == COLOURS[state.tokens[seat]]
        assert obs["partner"] is None
        assert obs["tokens"] is None
    spectator = state.observation(None)
    assert spectator["your_colour"] is None and spectator["tokens"] is None


# -- MK-4 first player ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_4_first_player_is_random_but_seeded(players: int, variant: str) -> None:
    g = game(players, variant)
    firsts = Counter()
    for seed in range(400):
        state = g.new_initial_state(seed)
        assert state.current_player == state.first_player == state.observation(None)["first_player"]
        assert g.new_initial_state(seed).first_player == state.first_player
        firsts[state.first_player] += 1
    assert set(firsts) == set(range(players))
    assert all(n >= 400 / players / 2 for n in firsts.values()), firsts


def test_mk_4_play_goes_clockwise_in_seat_order() -> None:
    state = build(4, FULL, [R, Y], first=2)
    order = []
    for _ in range(6):
        order.append(state.current_player)
        play(state, state.legal_actions()[0], STOP)
    assert order == [2, 3, 0, 1, 2, 3]


# -- MK-5 a step -------------------------------------------------------------------------------------------
MK5_BOARD = grid(
    "RYGBKR",
    "Y.GBKR",
    "GR*.YB",
    "BKWRGY",
    "KRYGBK",
    "RYGBKR",
)


def test_mk_5_steps_are_orthogonal_and_never_into_or_across_holes() -> None:
    state = build(2, MK5_BOARD, [R, Y])
    assert state.runner == at(2, 2)
    # up, left, down; right is a hole, and the cross behind it (2,4) is out of reach; no diagonals.
    assert state.legal_actions() == [at(1, 2), at(2, 1), at(3, 2)]
    for unreachable in (at(2, 4), at(1, 1), at(1, 3), at(3, 1), at(3, 3), at(0, 2), at(2, 3)):
        with pytest.raises(IllegalActionError):
            state.apply(unreachable)


def test_mk_5_a_step_captures_the_cross_and_leaves_a_hole() -> None:
    state = build(2, MK5_BOARD, [R, Y])
    red_before = state.observation(None)["colours_on_board"]["red"]
    state.apply(at(2, 1))
    assert state.piles == [[R], []]
    assert state.runner == at(2, 1)
    assert state.stacks[at(2, 1)] == [RUNNER]
    assert state.stacks[at(2, 2)] == []  # the runner's old cell is now a hole
    assert state.observation(None)["colours_on_board"]["red"] == red_before - 1
    # from (2,1): up (1,1) is a hole, right (2,2) is the new hole; down and left remain.
    assert state.legal_actions() == [at(2, 0), at(3, 1), STOP]


@pytest.mark.parametrize("variant", ["2d", "3d"])
def test_mk_5_neighbours_of_every_cell_on_a_full_board(variant: str) -> None:
    """No wrap-around at the edges: from every cell the legal steps are exactly up/down/left/right."""
    g = game(2, variant)
    size = g.rows
    base = g.new_initial_state(3)
    for cell in range(size * size):
        stacks = copy.deepcopy(base.stacks)
        stacks[base.runner][-1], stacks[cell][-1] = stacks[cell][-1], stacks[base.runner][-1]
        state = MaskerState(g, 0, stacks, list(base.tokens), 0)
        assert state.runner == cell
        assert state.legal_actions() == expected_neighbours(cell, size), cell


# -- MK-6 one to three steps ------------------------------------------------------------------------
def test_mk_6_first_step_is_compulsory() -> None:
    state = build(2, FULL, [R, Y])
    assert state.legal_actions() == [at(1, 3), at(2, 2), at(2, 4), at(3, 3)]
    assert STOP not in state.legal_actions()
    before = state.serialize()
    with pytest.raises(IllegalActionError, match="compulsory"):
        state.apply(STOP)
    assert state.serialize() == before


def test_mk_6_stop_is_allowed_after_the_first_and_second_step() -> None:
    state = build(2, FULL, [R, Y])
    state.apply(at(2, 4))
    assert (state.current_player, state.steps) == (0, 1)
    assert state.legal_actions() == [at(1, 4), at(2, 5), at(3, 4), STOP]
    state.apply(at(2, 5))
    assert (state.current_player, state.steps) == (0, 2)
    assert state.legal_actions() == [at(1, 5), at(3, 5), STOP]


def test_mk_6_the_turn_ends_after_three_steps() -> None:
    state = build(2, FULL, [R, Y])
    play(state, at(2, 4), at(2, 5), at(3, 5))
    assert (state.current_player, state.steps, state.free_pending) == (1, 0, False)
    assert len(state.piles[0]) == 3
    assert state.legal_actions() == [at(3, 4), at(4, 5)]  # the next player starts from the runner


def test_mk_6_stopping_passes_the_turn_with_the_runner_where_it_is() -> None:
    state = build(2, FULL, [R, Y])
    play(state, at(2, 4), STOP)
    assert (state.current_player, state.steps, state.runner, state.free_pending) == (1, 0, at(2, 4), False)
    assert state.legal_actions() == [at(1, 4), at(2, 5), at(3, 4)]


# -- MK-7 isolated runner ------------------------------------------------------------------------------
MK7_BOARD = grid("*B.RYK", "..RYKB", *LOWER_ROWS)


def test_mk_7_isolated_runner_ends_the_turn_at_once() -> None:
    state = build(2, MK7_BOARD, [R, Y])
    assert state.legal_actions() == [at(0, 1)]
    state.apply(at(0, 1))  # the runner at b1 has no neighbour left
    assert (state.current_player, state.steps) == (1, 0)
    assert state.free_pending
    assert state.observation(None)["free_step"] is True


def test_mk_7_after_isolation_the_next_first_step_goes_anywhere() -> None:
    state = play(build(2, MK7_BOARD, [R, Y]), at(0, 1))
    targets = every_cross(state)
    assert len(targets) == 36 - 4 - 1
    assert state.legal_actions() == targets  # any cross, no stop before the first step
    state.apply(at(5, 5))
    assert state.piles[1] == [B]
    assert not state.free_pending
    assert state.legal_actions() == [at(4, 5), at(5, 4), STOP]  # then ordinary steps again


# -- MK-8 white -------------------------------------------------------------------------------------------
def test_mk_8_white_third_step_gives_next_player_free_step() -> None:
    state = build(2, grid("*RYW..", "BKBKBK", *LOWER_ROWS), [R, Y])
    play(state, at(0, 1), at(0, 2), at(0, 3))
    assert not state.is_isolated()  # d2 is next to the runner: the free step comes from the white
    assert (state.current_player, state.steps, state.free_pending) == (1, 0, True)
    assert state.legal_actions() == every_cross(state)
    state.apply(at(5, 5))
    assert not state.free_pending
    assert state.legal_actions() == [at(4, 5), at(5, 4), STOP]


WHITE_FIRST = grid("*WRYKB", "BKBKBK", *LOWER_ROWS)


def test_mk_8_white_first_step_lets_the_same_player_take_a_free_step() -> None:
    state = build(2, WHITE_FIRST, [R, Y])
    state.apply(at(0, 1))
    assert (state.current_player, state.steps, state.free_pending) == (0, 1, True)
    assert state.legal_actions() == [*every_cross(state), STOP]
    state.apply(at(5, 5))  # far away: a free step
    assert (state.current_player, state.steps, state.free_pending) == (0, 2, False)
    assert state.piles[0] == [WHITE, B]
    assert state.legal_actions() == [at(4, 5), at(5, 4), STOP]


def test_mk_8_white_first_step_then_stop_gives_the_free_step_to_the_next_player() -> None:
    state = play(build(2, WHITE_FIRST, [R, Y]), at(0, 1), STOP)
    assert (state.current_player, state.steps, state.free_pending) == (1, 0, True)
    assert state.legal_actions() == every_cross(state)
    state.apply(at(5, 0))
    assert not state.free_pending
    assert state.legal_actions() == [at(4, 0), at(5, 1), STOP]


def test_mk_8_a_free_step_onto_white_gives_another_free_step() -> None:
    state = build(2, grid("*WRYKB", "BKBKBK", *LOWER_ROWS[:3], "KBRYKW"), [R, Y])
    play(state, at(0, 1), at(5, 5))
    assert (state.current_player, state.steps, state.free_pending) == (0, 2, True)
    assert state.legal_actions() == [*every_cross(state), STOP]
    state.apply(at(3, 2))  # a third, free, step onto a red cross: the turn ends
    assert (state.current_player, state.free_pending) == (1, False)
    assert state.legal_actions() == expected_neighbours(at(3, 2), 6)


def test_mk_8_white_and_isolation_leave_the_free_step_to_the_same_player() -> None:
    """Decision (engine docstring): white with isolation keeps the turn going while steps are left."""
    board = grid("*W.RYK", "..RYKB", *LOWER_ROWS)
    state = play(build(2, board, [R, Y]), at(0, 1))
    assert state.is_isolated()
    assert (state.current_player, state.steps, state.free_pending) == (0, 1, True)
    assert state.legal_actions() == [*every_cross(state), STOP]
    stopped = play(state.clone(), STOP)
    assert (stopped.current_player, stopped.free_pending) == (1, True)
    assert stopped.legal_actions() == every_cross(stopped)
    play(state, at(5, 5))
    assert (state.current_player, state.steps, state.free_pending) == (0, 2, False)


def test_mk_8_a_free_step_never_stacks() -> None:
    """White captured by the third step, runner isolated too: the next player has one free step."""
    state = build(2, grid("*RYW..", "BKB.BK", *LOWER_ROWS), [R, Y])
    play(state, at(0, 1), at(0, 2), at(0, 3))
    assert state.is_isolated()
    assert (state.current_player, state.free_pending) == (1, True)
    state.apply(at(5, 5))  # the one free step
    assert not state.free_pending
    assert state.legal_actions() == [at(4, 5), at(5, 4), STOP]
    state.apply(at(4, 5))
    assert state.legal_actions() == [at(3, 5), at(4, 4), STOP]  # ordinary again


# -- MK-9 capacity ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_9_capacity_is_18_12_9(players: int, variant: str) -> None:
    g = game(players, variant)
    assert g.capacity == CAPACITY[players]
    assert g.new_initial_state(0).observation(0)["capacity"] == CAPACITY[players]


def test_mk_9_reaching_capacity_ends_the_turn() -> None:
    state = build(3, FULL, [R, Y, B])
    state.piles[0] = [G] * 11
    state.apply(at(2, 4))
    assert len(state.piles[0]) == 12
    assert (state.current_player, state.steps) == (1, 0)
    assert state.eliminated == [False, False, False]


@pytest.mark.parametrize("players", [2, 3])
def test_mk_9_a_player_at_capacity_is_passed_over(players: int) -> None:
    """Decision (engine docstring): no pass action; the player at capacity is skipped."""
    state = build(players, FULL, [R, Y, B][:players])
    state.piles[1] = [G] * CAPACITY[players]
    movers = []
    for _ in range(4):
        movers.append(state.current_player)
        play(state, state.legal_actions()[0], STOP)
    assert movers == ([0, 0, 0, 0] if players == 2 else [0, 2, 0, 2])
    assert not state.eliminated[1]  # still in the game while yellow is on the board
    assert len(state.piles[1]) == CAPACITY[players]


def test_mk_9_a_pending_free_step_waits_for_the_next_player_who_can_step() -> None:
    state = build(3, MK7_BOARD, [R, Y, K])
    state.piles[1] = [G] * 12
    state.apply(at(0, 1))  # isolates the runner
    assert (state.current_player, state.free_pending) == (2, True)
    assert state.legal_actions() == every_cross(state)


def test_mk_9_four_players_count_capacity_per_player_not_per_team() -> None:
    state = build(4, FULL, [R, Y], first=1)
    state.piles[0] = [G] * 9
    movers = []
    for _ in range(6):
        movers.append(state.current_player)
        play(state, state.legal_actions()[0], STOP)
    assert movers == [1, 2, 3, 1, 2, 3]  # seat 0 passes, its partner seat 2 still plays


def test_mk_9_a_player_at_capacity_stays_in_and_can_win() -> None:
    state = build(2, ONE_RED, [R, Y])
    state.piles[1] = [G] * 18
    state.apply(at(0, 1))  # seat 0 captures the last red: their own colour
    assert state.is_terminal()
    assert state.winners() == [1]


# -- MK-10 elimination ------------------------------------------------------------------------------------
def test_mk_10_capturing_the_last_cross_of_a_colour_eliminates_its_owner() -> None:
    state = build(3, ONE_YELLOW, [R, Y, B])
    state.apply(at(0, 1))
    assert state.eliminated == [False, True, False]
    assert state.eliminations == [(1, Y, 0)]
    # the capturer's turn goes on
    assert (state.current_player, state.steps) == (0, 1)
    assert STOP in state.legal_actions()
    state.apply(STOP)
    movers = []
    for _ in range(4):
        movers.append(state.current_player)
        play(state, state.legal_actions()[0], STOP)
    assert movers == [2, 0, 2, 0]  # the eliminated seat never plays again


def test_mk_10_the_eliminated_colour_is_public() -> None:
    """Decision (engine docstring): the colour whose last cross went is announced to everyone."""
    state = play(build(3, ONE_YELLOW, [R, Y, B]), at(0, 1))
    for seat in seats_and_spectator(state.game):
        obs = state.observation(seat)
        assert obs["eliminated"] == [1]
        assert obs["eliminations"] == [{"seat": 1, "colour": "yellow", "move": 0}]


def test_mk_10_a_neutral_colour_running_out_eliminates_nobody() -> None:
    state = play(build(2, ONE_GREEN, [R, Y]), at(0, 1))
    assert state.observation(None)["colours_on_board"]["green"] == 0
    assert state.eliminated == [False, False]
    assert state.eliminations == []
    assert (state.current_player, state.steps, state.is_terminal()) == (0, 1, False)


def test_mk_10_the_last_white_cross_eliminates_nobody() -> None:
    state = play(build(2, WHITE_FIRST, [R, Y]), at(0, 1))
    assert state.observation(None)["colours_on_board"]["white"] == 0
    assert state.eliminated == [False, False]
    assert not state.is_terminal()


def test_mk_10_self_elimination_ends_the_turn_at_once() -> None:
    state = build(3, ONE_RED, [R, Y, B])  # the others hold nothing: no MK-11 completion to make
    state.apply(at(0, 1))
    assert state.eliminated == [True, False, False]
    assert (state.current_player, state.steps, state.phase) == (1, 0, "step")
    assert state.legal_actions() == [at(0, 2), at(1, 1)]  # steps were left, but the turn is over


def test_mk_10_two_player_self_elimination_loses() -> None:
    state = play(build(2, ONE_RED, [R, Y]), at(0, 1))
    assert state.is_terminal()
    assert state.winners() == [1]
    assert state.returns() == [0.0, 1.0]


def test_mk_10_four_players_a_team_is_eliminated_together() -> None:
    state = play(build(4, ONE_RED, [R, Y], first=1), at(0, 1))
    assert state.eliminated == [True, False, True, False]
    assert state.eliminations == [(0, R, 0), (2, R, 0)]
    assert state.is_terminal()
    assert state.winners() == [1, 3]


def test_mk_10_four_players_self_elimination_removes_both_partners() -> None:
    state = play(build(4, ONE_RED, [R, Y], first=2), at(0, 1))
    assert state.eliminated == [True, False, True, False]
    assert state.winners() == [1, 3]
    assert state.returns() == [0.0, 0.5, 0.0, 0.5]


def test_mk_10_a_buried_cross_in_3d_is_still_on_the_board() -> None:
    """MK-10 says "left on the board": a cross under other crosses (or under the runner) counts."""
    state = build(2, towers("K*", "YY", "RG", "GR", "BB", "RK", "GG", "KB", "RR"), [R, Y])
    state.apply(1)  # the top yellow; the other is now under the runner
    assert state.observation(None)["colours_on_board"]["yellow"] == 1
    assert state.eliminated == [False, False]
    state.apply(0)  # back onto the old stack: the last yellow is exposed
    assert state.stacks[1] == [Y]
    state.apply(1)
    assert state.eliminated == [False, True]
    assert state.winners() == [0]


# -- MK-11 three-player completion -------------------------------------------------------------------------
SEQ10 = [G, K, WHITE, B, R, Y, G, K, WHITE, B]


def test_mk_11_the_eliminator_completes_the_piles_most_recent_first() -> None:
    """Decision (engine docstring): the eliminator's most recent captures go first."""
    state = build(3, ONE_YELLOW, [R, Y, B])
    state.piles = [list(SEQ10), [WHITE] * 5, [K, K]]
    state.apply(at(0, 1))  # seat 0 now holds 11, seat 1 needs 7
    assert state.piles[1] == [WHITE] * 5 + [Y, *reversed(SEQ10[4:])]
    assert state.piles[0] == SEQ10[:4]
    assert state.piles[2] == [K, K]  # the third player is not involved
    assert (state.current_player, state.steps, state.phase) == (0, 1, "step")


def test_mk_11_the_eliminator_gives_as_many_as_they_have() -> None:
    state = build(3, ONE_YELLOW, [R, Y, B])
    state.piles[0] = [G, K]
    state.apply(at(0, 1))
    assert state.piles == [[], [Y, K, G], []]


def test_mk_11_nothing_moves_when_the_eliminated_player_is_full() -> None:
    state = build(3, ONE_YELLOW, [R, Y, B])
    state.piles = [[G], [WHITE] * 12, []]
    state.apply(at(0, 1))
    assert state.piles == [[G, Y], [WHITE] * 12, []]


def test_mk_11_completion_frees_capacity_for_the_eliminator() -> None:
    state = build(3, ONE_YELLOW, [R, Y, B])
    state.piles = [[G] * 11, [WHITE] * 10, []]
    state.apply(at(0, 1))  # seat 0 reaches 12, then gives 2 away
    assert [len(p) for p in state.piles] == [10, 12, 0]
    assert (state.current_player, state.steps) == (0, 1)  # not at capacity: the turn goes on


P1 = [K, WHITE, Y]
P2 = [B, G, K, WHITE, Y, B]


def test_mk_11_self_elimination_lets_the_eliminated_player_choose() -> None:
    state = build(3, ONE_RED, [R, Y, B])
    state.piles = [[G] * 4, list(P1), list(P2)]
    state.apply(at(0, 1))  # seat 0 loses its last red: 5 held, 7 to take
    assert state.eliminated == [True, False, False]
    assert (state.current_player, state.phase, state.is_terminal()) == (0, "complete", False)
    assert state.legal_actions() == [TAKE + 1, TAKE + 2]
    for seat in seats_and_spectator(state.game):
        obs = state.observation(seat)
        assert (obs["phase"], obs["to_fill"], obs["to_move"]) == ("complete", 7, 0)
    before = state.serialize()
    for wrong in (STOP, at(0, 2), at(1, 1), TAKE + 0):
        with pytest.raises(IllegalActionError):
            state.apply(wrong)
    assert state.serialize() == before
    play(state, TAKE + 1, TAKE + 2, TAKE + 1, TAKE + 1)
    assert state.piles[1] == []
    assert state.legal_actions() == [TAKE + 2]  # seat 1's piles are empty now
    play(state, TAKE + 2, TAKE + 2, TAKE + 2)
    assert state.piles == [[G] * 4 + [R, Y, B, WHITE, K, Y, WHITE, K], [], [B, G]]
    assert (state.current_player, state.phase, state.to_fill, state.steps) == (1, "step", 0, 0)
    assert state.legal_actions() == [at(0, 2), at(1, 1)]


def test_mk_11_self_elimination_completion_stops_when_the_others_run_out() -> None:
    state = build(3, ONE_RED, [R, Y, B])
    state.piles = [[G], [K], [WHITE, Y]]
    state.apply(at(0, 1))
    assert (state.phase, state.to_fill) == ("complete", 10)
    play(state, TAKE + 2, TAKE + 1)
    assert state.legal_actions() == [TAKE + 2]
    state.apply(TAKE + 2)
    assert state.piles == [[G, R, Y, K, WHITE], [], []]
    assert (state.current_player, state.phase, state.to_fill) == (1, "step", 0)


def test_mk_11_no_completion_with_two_or_four_players() -> None:
    two = build(2, ONE_YELLOW, [R, Y])
    two.piles = [[G] * 5, [K]]
    two.apply(at(0, 1))
    assert two.piles == [[G] * 5 + [Y], [K]]
    four = build(4, ONE_YELLOW, [R, Y])
    four.piles = [[G] * 5, [K], [], []]
    four.apply(at(0, 1))
    assert four.piles == [[G] * 5 + [Y], [K], [], []]


def test_mk_11_the_second_elimination_ends_the_game_without_completion() -> None:
    """Decision (engine docstring): the completion happens only if the game goes on."""
    board = grid("*YBGKG", "GKGKGR", "KGRGKG", "RKGKGK", "GKKRKG", "KGRKRG")
    state = build(3, board, [R, Y, B])
    state.piles = [[G, K], [], [WHITE]]
    state.apply(at(0, 1))  # seat 1 out; seat 0 hands over all it has
    assert state.piles == [[], [Y, K, G], [WHITE]]
    state.apply(at(0, 2))  # seat 2 out: the game is over, nothing more moves
    assert state.piles == [[B], [Y, K, G], [WHITE]]
    assert state.is_terminal()
    assert state.winners() == [0]
    assert state.returns() == [1.0, 0.0, 0.0]


# -- MK-12 end of the game ----------------------------------------------------------------------------------
def test_mk_12_last_player_standing_wins() -> None:
    state = play(build(2, ONE_YELLOW, [R, Y]), at(0, 1))
    assert state.is_terminal()
    assert state.current_player == TERMINAL
    assert state.legal_actions() == []
    assert state.winners() == [0]
    assert state.returns() == [1.0, 0.0]
    obs = state.observation(1)
    assert (obs["terminal"], obs["winners"], obs["to_move"], obs["stuck_end"]) == (True, [0], None, False)
    with pytest.raises(IllegalActionError, match="over"):
        state.apply(at(0, 2))


def test_mk_12_partners_share_the_win() -> None:
    state = play(build(4, ONE_YELLOW, [R, Y], first=2), at(0, 1))
    assert state.winners() == [0, 2]
    assert state.returns() == [0.5, 0.0, 0.5, 0.0]


def stuck_position(board: list[list[int]]) -> MaskerState:
    """Three players, seat 0 out; seat 2 full, seat 1 one short and to move."""
    state = build(3, board, [R, Y, B], first=1)
    state.eliminated[0] = True
    state.eliminations = [(0, R, 0)]
    state.piles = [[G] * 5, [G] * 11, [G] * 12]
    return state


def test_mk_12_when_nobody_can_step_most_crosses_of_own_colour_wins() -> None:
    board = grid("*GYKGB", "GKYKGB", "KGYGKG", "GKGKGK", "KGKGKG", "GKGKGK")
    state = play(stuck_position(board), at(0, 1))  # seat 1 is full now too
    assert state.is_terminal()
    assert state.stuck_end
    assert state.winners() == [1]  # yellow 3 on the board, blue 2
    assert state.returns() == [0.0, 1.0, 0.0]
    assert state.scores() == [0.0, 3.0, 2.0]
    obs = state.observation(None)
    assert (obs["stuck_end"], obs["winners"], obs["scores"]) == (True, [1], [0.0, 3.0, 2.0])


def test_mk_12_a_full_player_can_win_on_the_count() -> None:
    board = grid("*GYKGB", "GKBKGB", "KGYGKG", "GKGKGK", "KGKGKG", "GKGKGK")
    state = play(stuck_position(board), at(0, 1))
    assert state.winners() == [2]  # blue 3, yellow 2: seat 2 was full all along


def test_mk_12_a_tie_on_the_count_is_shared() -> None:
    board = grid("*GYKGB", "GKGKGB", "KGYGKG", "GKGKGK", "KGKGKG", "GKGKGK")
    state = play(stuck_position(board), at(0, 1))
    assert state.winners() == [1, 2]
    assert state.returns() == [0.0, 0.5, 0.5]


# -- MK-13 3D set-up ---------------------------------------------------------------------------------------
class DealRecorder:
    """Stands for the game's ``stream``: the same streams, each kept so a test can count the 32-bit
    words the deal read from it."""

    def __init__(self) -> None:
        self.streams: list[random.Random] = []

    def __call__(self, seed: int, purpose: str, *, version: int = CHANCE_VERSION) -> random.Random:
        rng = stream(seed, purpose, version=version)
        self.streams.append(rng)
        return rng

    def words(self) -> int:
        read = sum(rng.words_read() for rng in self.streams if isinstance(rng, Chance))
        self.streams.clear()
        return read


def test_mk_13_3d_setup_over_10000_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = DealRecorder()
    monkeypatch.setattr(masker_module, "stream", recorder)
    g = game(2, "3d")
    singles: Counter[int] = Counter()
    runner_cells: Counter[int] = Counter()
    bottom_colour_cells: set[tuple[int, int]] = set()
    white_places: set[tuple[int, int]] = set()
    white_tops = 0
    most_draws = 0
    for seed in range(10_000):
        state = g.new_initial_state(seed)
        most_draws = max(most_draws, recorder.words())
        stacks = state.stacks
        assert len(stacks) == 9 and all(len(s) == 4 for s in stacks)
        assert Counter(c for s in stacks for c in s) == Counter(MaskerGame.crosses())
        bottom = Counter(s[0] for s in stacks)
        assert WHITE not in bottom and RUNNER not in bottom
        assert max(bottom.values()) <= 2
        (single,) = [c for c in range(5) if bottom[c] == 1]
        singles[single] += 1
        (runner_cell,) = [i for i, s in enumerate(stacks) if RUNNER in s]
        assert stacks[runner_cell][-1] == RUNNER
        runner_cells[runner_cell] += 1
        for i, s in enumerate(stacks):
            bottom_colour_cells.add((i, s[0]))
            for level, code in enumerate(s):
                if code == WHITE:
                    white_places.add((i, level))
            white_tops += s[-1] == WHITE
    # Bounded: a rejection sampler over whole shuffles would need ~150 tries (thousands of draws)
    # on average; this set-up draws a few dozen numbers, whatever the seed.
    assert most_draws <= 150, most_draws
    # Plausible distribution: uniform over the valid layouts.
    assert all(1750 <= singles[c] <= 2250 for c in range(5)), singles
    assert all(950 <= runner_cells[c] <= 1280 for c in range(9)), runner_cells
    assert bottom_colour_cells == {(i, c) for i in range(9) for c in range(5)}
    assert white_places == {(i, level) for i in range(9) for level in (1, 2, 3)}
    expected_white_tops = 10_000 * 8 * 5 / 26  # 8 non-runner tops, 5 whites among 26 upper crosses
    assert abs(white_tops - expected_white_tops) < 0.05 * expected_white_tops, white_tops


def test_mk_13_the_recorder_draws_the_same_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorder used above does not change the deal (so the test checks the real set-up)."""
    g = game(3, "3d")
    plain = [g.new_initial_state(seed).serialize() for seed in range(20)]
    recorder = DealRecorder()
    monkeypatch.setattr(masker_module, "stream", recorder)
    counted = [g.new_initial_state(seed).serialize() for seed in range(20)]
    assert counted == plain
    assert recorder.words() > 20 * 9  # the recorder really was used


# -- MK-14 3D play ----------------------------------------------------------------------------------------
MK14_BOARD = towers("RYG*", "BK", "YYY", "", "GG", "K", "WR", "B", "RRR")


def test_mk_14_only_tops_are_in_play_and_empty_stacks_are_holes() -> None:
    state = build(2, MK14_BOARD, [R, Y])
    assert state.legal_actions() == [1]  # stack 3 is empty; stack 6 behind it is out of reach
    for illegal in (3, 6, 4, 2, 9, 20):
        with pytest.raises(IllegalActionError):
            state.apply(illegal)
    state.apply(1)
    assert state.piles[0] == [K]  # the top cross
    assert state.stacks[1] == [B, RUNNER]
    assert state.stacks[0] == [R, Y, G]  # the runner's old stack keeps its lower crosses
    assert state.legal_actions() == [0, 2, 4, STOP]
    state.apply(0)  # back onto the old stack, capturing its new top
    assert state.piles[0] == [K, G]
    assert state.stacks[0] == [R, Y, RUNNER]
    assert state.stacks[1] == [B]
    assert state.legal_actions() == [1, STOP]


def test_mk_14_free_steps_go_to_the_top_of_any_non_empty_stack() -> None:
    state = build(2, towers("R*", "GW", "", "YB", "", "K", "RY", "", "BG"), [R, Y])
    state.apply(1)  # white
    assert state.stacks[1] == [G, RUNNER]
    # every non-empty stack but the runner's own (whose top is the runner)
    assert state.legal_actions() == [0, 3, 5, 6, 8, STOP]
    state.apply(8)
    assert state.piles[0] == [WHITE, G]
    assert state.stacks[1] == [G]
    assert state.legal_actions() == [5, STOP]  # stack 7 is empty


def test_mk_14_isolation_in_3d() -> None:
    state = build(2, towers("", "Y", "", "", "*", "", "KK", "", "G"), [K, G])
    state.apply(1)  # the runner's old stack is empty now; so are 0 and 2
    assert (state.current_player, state.free_pending) == (1, True)
    assert state.legal_actions() == [6, 8]


def test_mk_14a_the_free_step_takes_the_cross_beneath_the_runner() -> None:
    """Every other stack is empty: the free step is the action of the runner's own cell; the runner
    captures the cross beneath it and sinks one level, and the game goes on (MK-10..MK-12)."""
    state = build(2, towers("RKYG", "*", "", "", "", "", "", "", ""), [R, K])
    state.apply(0)  # seat 0 takes green; the runner is isolated on the last stack
    assert (state.current_player, state.free_pending) == (1, True)
    assert not state.is_terminal()
    assert state.legal_actions() == [0]
    state.apply(0)  # seat 1 takes the yellow beneath the runner
    assert state.stacks == [[R, K, RUNNER], *[[] for _ in range(8)]]
    assert state.runner == 0
    assert state.piles == [[G], [Y]]
    assert (state.current_player, state.free_pending) == (0, True)  # MK-7: isolated, the turn ended
    assert state.legal_actions() == [0]
    state.apply(0)  # seat 0 takes the last black: seat 1 is out (MK-10), seat 0 wins (MK-12)
    assert state.is_terminal() and not state.stuck_end
    assert state.eliminated == [False, True]
    assert state.winners() == [0]


def test_mk_14a_white_beneath_the_runner_gives_the_same_player_another_free_step() -> None:
    state = build(2, towers("RWY", "*", "", "", "", "", "", "", ""), [R, K])
    state.apply(0)  # seat 0 takes yellow
    state.apply(0)  # seat 1 takes the white beneath: the next step is free (MK-8)
    assert state.piles[1] == [WHITE]
    assert (state.current_player, state.free_pending, state.steps) == (1, True, 1)
    assert state.legal_actions() == [0, STOP]
    state.apply(0)  # the last red: seat 0 is out
    assert state.stacks[0] == [RUNNER]
    assert state.is_terminal() and state.winners() == [1]


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_a_clone_and_its_original_change_apart_though_they_share_stacks(players: int, variant: str) -> None:
    """A clone shares its original's stacks until a step copies those it changes: a whole game of
    steps on the original leaves every earlier clone as it was, and the reverse."""
    for seed in range(3):
        state = game(players, variant).new_initial_state(seed)
        rng = random.Random(seed)
        clones: list[tuple[MaskerState, str]] = []
        while not state.is_terminal():
            twin = state.clone()
            clones.append((twin, json.dumps(twin.serialize())))
            before = json.dumps(state.serialize())
            if not twin.is_terminal():
                play(twin.clone(), rng.choice(twin.legal_actions()))
            assert json.dumps(state.serialize()) == before
            state.apply(rng.choice(state.legal_actions()))
        for twin, dump in clones:
            assert json.dumps(twin.serialize()) == dump


def test_mk_14a_a_sink_on_a_clone_leaves_the_original_stack() -> None:
    state = build(2, towers("RKYG", "*", "", "", "", "", "", "", ""), [R, K])
    state.apply(0)
    twin = state.clone()
    twin.apply(0)  # the runner sinks on the clone's stack
    assert twin.stacks[0] == [R, K, RUNNER]
    assert state.stacks[0] == [R, K, Y, RUNNER]


def test_mk_14a_only_when_no_other_stack_holds_a_cross() -> None:
    """With any other cross on the board the free step goes there, never beneath the runner."""
    state = build(2, towers("RKYG", "*", "", "", "", "", "", "", "B"), [R, K])
    state.apply(0)
    assert state.legal_actions() == [8]
    with pytest.raises(IllegalActionError, match="MK-14a"):
        state.apply(0)
    # Not a free step: the runner isolated mid-turn ends the turn (MK-7), it does not sink.
    state = build(2, towers("RKYG", "*", "", "", "", "", "", "", ""), [R, K])
    assert state.legal_actions() == [0]
    assert 1 not in state.legal_actions()


def test_mk_14a_no_cross_left_still_ends_the_game_on_the_count() -> None:
    """MK-12: the runner alone on the board: nobody can step, the count decides."""
    state = build(2, towers("G", "*", "", "", "", "", "", "", ""), [R, K])
    state.apply(0)
    assert state.stacks[0] == [RUNNER]
    assert state.is_terminal() and state.stuck_end


def mk_14a_positions(players: int, seeds: range) -> Iterator[tuple[int, MaskerState]]:
    """Random 3D games (uniform over the legal actions, ``random.Random(seed)``) up to the first
    position where MK-14a applies: a free step is due and no stack but the runner's holds a cross.
    Under rules version 1 these games ended there, with crosses still under the runner."""
    g = game(players, "3d")
    for seed in seeds:
        state = g.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.free_pending and state.phase == "step" and not every_cross(state):
                yield seed, state
                break
            state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mk_14a_random_games_that_ended_early_now_go_on(players: int, ref: ModuleType) -> None:
    g = game(players, "3d")
    found = 0
    for seed, state in mk_14a_positions(players, range(1500)):
        found += 1
        runner = state.runner
        beneath = state.stacks[runner][-2]
        assert len(state.stacks[runner]) > 1
        assert not state.is_terminal()
        assert state.legal_actions() == [runner] + ([STOP] if state.steps else [])
        seat = state.current_player
        obs = state.observation(seat)
        assert obs["free_step"] and obs["to_move"] == seat and not obs["terminal"]
        # the notation of the own-cell action, in text and JSON, and the sampler's worlds
        name = state.action_to_str(runner)
        assert state.action_from_str(name) == runner
        assert state.action_from_json(json.loads(json.dumps(state.action_to_json(runner)))) == runner
        world = g.sample_state(seat, [obs], random.Random(seed))
        assert world.legal_actions() == state.legal_actions()
        assert world.observation(seat) == obs
        model = ref.RefState.from_serialized(state.serialize())
        held = list(state.piles[seat])
        depth = len(state.stacks[runner])
        count = state.on_board[beneath]
        eliminated = len(state.eliminations)
        state.apply(runner)
        model.apply(runner)
        data = state.serialize()
        assert {k: data[k] for k in model.comparable()} == model.comparable()
        assert state.on_board[beneath] == count - 1
        if len(state.eliminations) == eliminated:  # (with 3 players an elimination moves piles, MK-11)
            assert state.piles[seat] == [*held, beneath]
        assert state.runner == runner and len(state.stacks[runner]) == depth - 1
        assert state.stacks[runner][-1] == RUNNER
        rng = random.Random(seed)
        while not state.is_terminal():  # to the end, never stuck with crosses left to take
            state.apply(rng.choice(state.legal_actions()))
        if state.stuck_end:
            left = any(code != RUNNER for stack in state.stacks for code in stack)
            alive = [s for s in range(players) if not state.eliminated[s]]
            assert not left or all(state.at_capacity(s) for s in alive), seed
    assert found > 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mk_14a_changes_nothing_in_2d(players: int) -> None:
    """In 2D the runner's cell holds nothing beneath it: its own cell is never a step."""
    g = game(players, "2d")
    for seed in range(200):
        state = g.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert state.runner not in legal
            assert state.stacks[state.runner] == [RUNNER]
            state.apply(rng.choice(legal))


def test_mk_14a_a_2d_step_onto_the_runner_is_refused_without_naming_the_3d_rule() -> None:
    """MK-14a is a 3D rule: in 2D nothing lies beneath the runner, so the reason must not offer it."""
    state = build(2, FULL, [R, Y])
    with pytest.raises(IllegalActionError) as info:
        state.apply(state.runner)
    assert "MK-14a" not in str(info.value)
    assert "beneath" not in str(info.value)
    assert "runner is already there" in str(info.value)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mk_14_3d_actions_stay_on_the_3x3_board(players: int) -> None:
    g = game(players, "3d")
    for seed in range(10):
        state = g.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert all(a < 9 or a >= STOP for a in legal)
            state.apply(rng.choice(legal))


# -- random games against the literal model ---------------------------------------------------------------
@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_5_to_mk_14_random_games_match_the_reference_model(
    players: int, variant: str, ref: ModuleType
) -> None:
    g = game(players, variant)
    endings: Counter[str] = Counter()
    for seed in range(150):
        state = g.new_initial_state(seed)
        model = ref.RefState.from_serialized(state.serialize())
        rng = random.Random(seed * 7 + 1)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal == model.legal(), (seed, state.history)
            seat = state.current_player
            if state.phase == "complete":
                assert state.eliminated[seat]
                endings["completion"] += 1
            else:
                assert not state.eliminated[seat] and len(state.piles[seat]) < g.capacity
            action = rng.choice(legal)
            state.apply(action)
            model.apply(action)
            data = state.serialize()
            assert {k: data[k] for k in model.comparable()} == model.comparable(), (seed, state.history)
            counts = state.observation(None)["colours_on_board"]
            assert counts == {n: model.count_on_board(c) for c, n in enumerate((*COLOURS, "white"))}
        assert model.over
        assert state.winners() == model.winners()
        assert len(state.history) <= g.max_game_length  # <= 35 steps, one stop per turn, 12 takes
        endings["stuck" if state.stuck_end else "last standing"] += 1
    assert endings["last standing"] > 0
    if players == 3:
        assert endings["completion"] > 0


# -- MK-15 hidden information ------------------------------------------------------------------------------
def test_mk_15_tokens_are_declared_hidden_until_the_end() -> None:
    (hidden,) = MaskerGame.hidden_information
    assert (hidden.field, hidden.visible_to, hidden.until) == ("tokens", "team", "end")


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_15_at_the_start_every_other_assignment_is_possible(players: int, variant: str) -> None:
    g = game(players, variant)
    teams = g.num_teams
    state = g.new_initial_state(2)
    for seat in range(players):
        assert len(consistent_tokens(g, state.observation(seat))) == math.perm(4, teams - 1)
    assert len(consistent_tokens(g, state.observation(None))) == math.perm(5, teams)


@pytest.mark.parametrize("config", CONFIGS, ids=[f"{p}p-{v}" for p, v in CONFIGS])
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), plies=st.integers(0, 110))
def test_mk_15_observations_do_not_depend_on_hidden_tokens(
    config: tuple[int, str], seed: int, plies: int
) -> None:
    g = game(*config)
    state = random_position(g, seed, plies)
    spectator = state.observation(None)
    for seat in seats_and_spectator(g):
        obs = state.observation(seat)
        json.dumps(obs)
        alternatives = consistent_tokens(g, obs)
        assert tuple(state.tokens) in alternatives
        for tokens in alternatives:
            other = state.clone()
            other.tokens = list(tokens)
            assert other.observation(seat) == obs
            assert other.observation(None) == spectator
            assert other.legal_actions() == state.legal_actions()


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_15_error_messages_do_not_depend_on_hidden_tokens(players: int, variant: str) -> None:
    g = game(players, variant)
    state = random_position(g, 9, 7)
    legal = set(state.legal_actions())
    alternatives = consistent_tokens(g, state.observation(None))
    assert len(alternatives) > 1
    for action in [a for a in range(g.num_distinct_actions) if a not in legal]:
        messages = set()
        for tokens in alternatives:
            other = state.clone()
            other.tokens = list(tokens)
            with pytest.raises(IllegalActionError) as info:
                other.apply(action)
            messages.add(str(info.value))
        assert len(messages) == 1


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_15_all_tokens_are_revealed_at_the_end(players: int, variant: str) -> None:
    g = game(players, variant)
    for seed in range(5):
        state, actions, _ = random_game(g, seed)
        before_end = g.new_initial_state(seed)
        play(before_end, *actions[:-1])
        assert all(before_end.observation(s)["tokens"] is None for s in seats_and_spectator(g))
        for seat in seats_and_spectator(g):
            obs = state.observation(seat)
            assert obs["tokens"] == [COLOURS[t] for t in state.tokens]
            assert obs["winners"] == state.winners()
            assert consistent_tokens(g, obs) == [tuple(state.tokens)]


# -- MK-15 the determinization sampler ---------------------------------------------------------------------
def observation_history(g: MaskerGame, seed: int, actions: list[int], seat: int | None) -> list[Any]:
    state = g.new_initial_state(seed)
    history = [state.observation(seat)]
    for action in actions:
        state.apply(action)
        history.append(state.observation(seat))
    return history


def brute_force_assignments(
    g: MaskerGame, seed: int, actions: list[int], seat: int | None, history: list[Any]
) -> set[tuple[int, ...]]:
    """Every token assignment under which the same public play gives ``seat`` the same observations.

    Independent of ``consistent_tokens``: each permutation is dealt into the true initial position and
    the action history is replayed; an illegal action or any differing observation rules it out.
    """
    initial = g.new_initial_state(seed)
    out = set()
    for tokens in itertools.permutations(range(5), g.num_teams):
        state = MaskerState(g, seed, copy.deepcopy(initial.stacks), list(tokens), initial.first_player)
        if state.observation(seat) != history[0]:
            continue
        ok = True
        for action, seen in zip(actions, history[1:], strict=True):
            try:
                state.apply(action)
            except ActionError:
                ok = False
                break
            if state.observation(seat) != seen:
                ok = False
                break
        if ok:
            out.add(tokens)
    return out


def _first(g: MaskerGame, seeds: range, pick: Any) -> tuple[int, list[int]]:
    """The first seed whose random game has a prefix chosen by ``pick(actions, movers, state)``."""
    for seed in seeds:
        final, actions, movers = random_game(g, seed)
        cut = pick(actions, movers, final)
        if cut is not None:
            return seed, actions[:cut]
    raise AssertionError("no such game in range")


def _after_elimination_by_other(actions: list[int], movers: list[int], final: MaskerState) -> int | None:
    if not final.eliminations:
        return None
    seat, _colour, move = final.eliminations[0]
    return move + 2 if movers[move] != seat and move + 2 < len(actions) else None


def _during_self_completion(actions: list[int], movers: list[int], final: MaskerState) -> int | None:
    takes = [i for i, a in enumerate(actions) if a >= TAKE]
    return takes[0] + 1 if len(takes) >= 2 else None


def _after_self_completion(actions: list[int], movers: list[int], final: MaskerState) -> int | None:
    takes = [i for i, a in enumerate(actions) if a >= TAKE]
    return takes[-1] + 1 if takes and takes[-1] + 1 < len(actions) else None


def _whole(actions: list[int], movers: list[int], final: MaskerState) -> int | None:
    return len(actions)


def _prefix(n: int) -> Any:
    return lambda actions, movers, final: n if n < len(actions) else None


SAMPLER_CASES = [
    pytest.param((2, "2d"), _prefix(14), [0, None], id="2p-2d-middle"),
    pytest.param((3, "2d"), _after_elimination_by_other, [0, 1, 2, None], id="3p-2d-after-elimination"),
    pytest.param((3, "2d"), _during_self_completion, [1, None], id="3p-2d-during-self-completion"),
    pytest.param((3, "3d"), _after_self_completion, [0, 2], id="3p-3d-after-self-completion"),
    pytest.param((4, "3d"), _prefix(20), [1, None], id="4p-3d-middle"),
    pytest.param((4, "2d"), _whole, [0, 3, None], id="4p-2d-end"),
    pytest.param((3, "3d"), _whole, [2], id="3p-3d-end"),
]


@pytest.mark.parametrize(("config", "pick", "seats"), SAMPLER_CASES)
def test_mk_15_sampler_draws_exactly_the_consistent_assignments_uniformly(
    config: tuple[int, str], pick: Any, seats: list[int | None]
) -> None:
    g = game(*config)
    seed, actions = _first(g, range(300), pick)
    for seat in seats:
        history = observation_history(g, seed, actions, seat)
        truth = brute_force_assignments(g, seed, actions, seat, history)
        real = g.new_initial_state(seed)
        play(real, *actions)
        assert tuple(real.tokens) in truth
        assert set(consistent_tokens(g, history[-1])) == truth
        rng = random.Random(1000 + (seat or 0))
        counts: Counter[tuple[int, ...]] = Counter()
        n = 2000
        for _ in range(n):
            sampled = g.sample_state(seat, history, rng)
            assert sampled.observation(seat) == history[-1]
            counts[tuple(sampled.tokens)] += 1
        assert set(counts) == truth
        if len(truth) > 1:
            expected = n / len(truth)
            chi2 = sum((counts[t] - expected) ** 2 / expected for t in truth)
            df = len(truth) - 1
            assert chi2 < df + 6 * math.sqrt(2 * df) + 10, (chi2, df, counts)
            assert min(counts.values()) > expected / 3


def test_mk_15_sampled_state_plays_on_like_the_real_one() -> None:
    g = game(3, "2d")
    seed, actions = _first(g, range(300), _after_elimination_by_other)
    history = observation_history(g, seed, actions, 2)
    real = g.new_initial_state(seed)
    play(real, *actions)
    sampled = g.sample_state(2, history, random.Random(5))
    assert sampled.legal_actions() == real.legal_actions()
    assert sampled.current_player == real.current_player
    action = real.legal_actions()[0]
    play(real, action)
    play(sampled, action)
    assert sampled.observation(2)["stacks"] == real.observation(2)["stacks"]


# -- bad input ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"players": 5}, "players"),
        ({"players": 1}, "players"),
        ({"players": "3"}, "players"),
        ({"players": True}, "players"),
        ({"variant": "4d"}, "variant"),
        ({"variant": 3}, "variant"),
        ({"colours": 2}, "colours"),
    ],
)
def test_bad_input_options_raise_invalid_option_error(options: dict[str, Any], name: str) -> None:
    """Architecture (bad input): the knobs of masker.md are players 2|3|4 and variant 2d|3d."""
    with pytest.raises(InvalidOptionError) as info:
        load_game("masker", options)
    assert info.value.option == name
    assert name in str(info.value)


def test_configuration_defaults_are_two_players_2d() -> None:
    """masker.md, configuration knobs: players [2], variant [2d]; 41 action ids."""
    g = load_game("masker")
    assert g.options == {"players": 2, "variant": "2d"}
    assert g.num_distinct_actions == 41


def _illegal_positions() -> Iterator[tuple[MaskerState, list[int]]]:
    start = build(2, MK5_BOARD, [R, Y])
    yield start, [STOP, at(2, 3), at(2, 4), at(1, 1), at(2, 2), TAKE, TAKE + 1]
    three_d = build(2, MK14_BOARD, [R, Y])
    yield three_d, [STOP, 0, 3, 4, 9, 20, 35, TAKE]
    completing = build(3, ONE_RED, [R, Y, B])
    completing.piles = [[G], [K], [K]]
    completing.apply(at(0, 1))
    yield completing, [STOP, at(0, 2), TAKE + 0]
    over = play(build(2, ONE_YELLOW, [R, Y]), at(0, 1))
    yield over, [STOP, at(0, 2), at(1, 1), TAKE]


def test_bad_input_illegal_actions_raise_and_change_nothing() -> None:
    """Architecture (bad input) on MK-5/MK-6/MK-11/MK-12/MK-14 positions: refused, nothing changed."""
    for state, actions in _illegal_positions():
        for action in actions:
            before = state.serialize()
            legal = state.legal_actions()
            obs = state.observation(0)
            with pytest.raises(IllegalActionError) as info:
                state.apply(action)
            assert info.value.reason
            assert state.serialize() == before
            assert state.legal_actions() == legal
            assert state.observation(0) == obs


@pytest.mark.parametrize("bad", [-1, 41, 2**40, True, False, None, "c4", 3.0, [3], {"step": "c4"}])
def test_bad_input_malformed_action_ids_raise_and_change_nothing(bad: object) -> None:
    """Architecture (bad input): not an id in range(41) -> MalformedActionError, state unchanged."""
    state = build(2, MK5_BOARD, [R, Y])
    before = state.serialize()
    with pytest.raises(MalformedActionError):
        state.apply(bad)  # type: ignore[arg-type]
    assert state.serialize() == before


@pytest.mark.parametrize(
    "bad",
    [
        None,
        "c4",
        3,
        [],
        {},
        {"step": "g1"},
        {"step": "a7"},
        {"step": "c"},
        {"step": 14},
        {"step": None},
        {"stop": False},
        {"stop": "yes"},
        {"stop": 1},
        {"take_from": 3},
        {"take_from": -1},
        {"take_from": True},
        {"take_from": "1"},
        {"step": "c4", "stop": True},
        {"move": "c4"},
    ],
)
def test_bad_input_malformed_json_raises(bad: object) -> None:
    """Architecture (bad input): JSON actions are {"step": "c4"}, {"stop": true}, {"take_from": k}."""
    state = build(3, MK5_BOARD, [R, Y, B])
    with pytest.raises(MalformedActionError):
        state.action_from_json(bad)


@pytest.mark.parametrize(
    "bad", ["", "  ", "c7", "g1", "c", "44", "c4 d4", "take", "take 3", "take 4", "take -1", "stop!", None, 3]
)
def test_bad_input_malformed_text_raises(bad: object) -> None:
    """Architecture (bad input): text actions are a square (a1..f6), "stop" or "take k"."""
    state = build(3, MK5_BOARD, [R, Y, B])
    with pytest.raises(MalformedActionError):
        state.action_from_str(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("seat", ["take 3", "take 5", "take seat 12", "take 99999999999999999999"])
def test_bad_input_a_take_of_a_seat_the_game_has_not_says_so(seat: str) -> None:
    """Bad input: "take 5" at a three-player table names the seat, not an unreadable square."""
    state = build(3, MK5_BOARD, [R, Y, B])
    with pytest.raises(MalformedActionError, match="no seat"):
        state.action_from_str(seat)


@pytest.mark.parametrize("typed", ["take", "take -1", "TAKE two", "  take  1.5 "])
def test_bad_input_an_unreadable_take_says_how_to_write_one(typed: str) -> None:
    """Bad input: a take without a seat number is told how a take is written, not that it is an
    unreadable square."""
    state = build(3, MK5_BOARD, [R, Y, B])
    with pytest.raises(MalformedActionError, match=r"a take names a seat: take 0 to take 2"):
        state.action_from_str(typed)


@pytest.mark.parametrize("bad", ["d1", "a4", "f6", {"step": "d3"}])
def test_bad_input_mk_14_squares_off_the_3x3_board_raise(bad: object) -> None:
    """MK-14 / bad input: the 3D board is a1..c3; anything else is malformed."""
    state = build(2, MK14_BOARD, [R, Y])
    with pytest.raises(MalformedActionError):
        if isinstance(bad, str):
            state.action_from_str(bad)
        else:
            state.action_from_json(bad)


def test_notation_mk_5_squares_stop_and_mk_11_takes_round_trip() -> None:
    """Notation: squares (a1 top-left, files along a row), stop (MK-6), take k (MK-11)."""
    two = build(3, MK5_BOARD, [R, Y, B])
    assert two.action_from_str("a1") == 0
    assert two.action_from_str(" C4 ") == at(3, 2)
    assert two.action_from_str("f6") == 35
    assert two.action_from_str("stop") == STOP
    assert two.action_from_str("take 1") == TAKE + 1
    assert two.action_from_json({"step": "c4"}) == at(3, 2)
    assert two.action_from_json({"stop": True}) == STOP
    assert two.action_from_json({"take_from": 2}) == TAKE + 2
    for action in [*range(36), STOP, TAKE, TAKE + 1, TAKE + 2]:
        assert two.action_from_str(two.action_to_str(action)) == action
        assert two.action_from_json(json.loads(json.dumps(two.action_to_json(action)))) == action
    three_d = build(2, MK14_BOARD, [R, Y])
    assert three_d.action_from_str("c3") == 8
    assert [three_d.action_to_str(a) for a in range(9)] == [f"{f}{r}" for r in "123" for f in "abc"]


def test_mk_6_a_turn_is_begun_after_a_step_and_over_after_stop_or_the_third_step() -> None:
    """``mid_turn`` (the clocks' increment comes once a turn): true while the seat to move has
    stepped this turn, false at the start of every turn, through whole random games."""
    from masques.engine import load_game

    for players in (2, 3, 4):
        state = load_game("masker", {"players": players}).new_initial_state(players)
        rng = random.Random(players)
        assert not state.mid_turn()
        while not state.is_terminal():
            seat, steps = state.current_player, state.observation(None)["steps_this_turn"]
            action = rng.choice(state.legal_actions())
            state.apply(action)
            if state.is_terminal():
                break
            now = state.observation(None)
            if now["phase"] == "step":
                assert state.mid_turn() == (now["steps_this_turn"] > 0), (seat, steps, action)
            else:  # MK-11: the self-eliminated player's choices finish their turn
                assert state.mid_turn()
