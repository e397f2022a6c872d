"""The Mascarade endgame solver against a plain minimax over the engine itself (MC-5 .. MC-8), against
its Python oracle (``endgame_oracle``: same outcomes, same nodes, same budget failures), and the bot
that plays from it: it converts forced wins and acts on its seat's observations only."""

from __future__ import annotations

import json
import math
import random
from functools import cache

import pytest

from masques.ai import make_bot
from masques.ai.search import GreedyBot, best_by_evaluation
from masques.engine import load_game
from masques.games.mascarade import endgame_plain as oracle
from masques.games.mascarade.bot import evaluate as mascarade_value
from masques.games.mascarade.endgame import (
    LOSS,
    TIE,
    WIN,
    EndgameBot,
    greedy_move,
    last_move_likelihoods,
    rollout_outcome,
    search,
    solve,
)
from masques.games.mascarade.game import MascaradeState

EndgameSolver = oracle.EndgameSolver
oracle_search = oracle.search

Histories = list[list[object]]


def late_position(
    players: int, seed: int, pool: int, in_hands: int, matching: str = "every"
) -> tuple[MascaradeState, Histories]:
    """A random game played until the pool holds ``pool`` cards and the hands at most ``in_hands``
    (past that, to keep the reference minimax small); with each seat's observation history."""
    game = load_game("mascarade", {"players": players, "matching": matching})
    state = game.new_initial_state(seed)
    assert isinstance(state, MascaradeState)
    rng = random.Random(seed)
    histories: Histories = [[state.observation(s)] for s in range(players)]
    while not state.is_terminal():
        if len(state.pool) <= pool and sum(h.bit_count() for h in state.hands) <= in_hands:
            break
        state.apply(state.random_legal_action(rng))
        for s in range(players):
            histories[s].append(state.observation(s))
    return state, histories


def reference(state: MascaradeState, seat: int) -> int:
    """Minimax on the engine's own rules: the best outcome ``seat`` can force, the others against it."""

    @cache
    def value(key: str) -> int:
        node = positions[key]
        if node.is_terminal():
            if node.tie_break is not None and seat in node.tie_break[:-1]:
                return TIE
            return WIN if node.winners() == [seat] else LOSS
        outcomes = []
        for action in node.legal_actions():
            child = node.clone()
            child.apply(action)
            outcomes.append(value(remember(child)))
        return max(outcomes) if node.current_player == seat else min(outcomes)

    positions: dict[str, MascaradeState] = {}

    def remember(node: MascaradeState) -> str:
        parts = [node.hands, node.board, node.pool, node.player, node.empty_passes, node.over, node.winner]
        key = json.dumps(parts)
        positions.setdefault(key, node)
        return key

    return value(remember(state))


CASES = [(2, seed, 0, 8) for seed in range(6)] + [(2, seed, 2, 9) for seed in range(6, 9)] + [(3, 9, 0, 7)]


@pytest.mark.parametrize(("players", "seed", "pool", "in_hands"), CASES)
def test_solver_agrees_with_minimax_over_the_engine(
    players: int, seed: int, pool: int, in_hands: int
) -> None:
    """MC-5 .. MC-8 as the solver plays them give, for every first action, the outcome that a
    minimax over the engine's own states gives (placements, refills, forced draws, passes, the
    closing round of passes and its tie)."""
    state, _ = late_position(players, seed, pool, in_hands)
    assert not state.is_terminal()
    seat = state.current_player
    actions = state.legal_actions()
    outcomes = solve(state, seat, actions, budget=10**6)
    assert outcomes is not None
    for action in actions:
        child = state.clone()
        child.apply(action)
        assert outcomes[action] == reference(child, seat), f"seed {seed}, action {action}"


@pytest.mark.parametrize(
    ("players", "seed", "pool", "in_hands"), [(2, 0, 0, 6), (2, 1, 0, 6), (2, 7, 2, 6), (3, 9, 0, 5)]
)
def test_mc5a_solver_follows_the_one_match_rule(players: int, seed: int, pool: int, in_hands: int) -> None:
    """MC-5a, ``matching=one``: the solver considers exactly the engine's legal moves (never one the
    rule forbids) at every node it reaches, and both solvers give the outcomes of a minimax over the
    engine's own states."""
    state, _ = late_position(players, seed, pool, in_hands, "one")
    assert not state.is_terminal()
    seat = state.current_player
    actions = state.legal_actions()
    solver = EndgameSolver(state, seat, budget=10**6)
    positions = [(solver.root, state)]
    for _ in range(40):  # the solver's moves against the engine's, down one line of play
        pos, node = positions[-1]
        assert sorted(solver.moves(pos)) == node.legal_actions()
        action = solver.moves(pos)[0]
        after = solver.play(pos, action)
        child = node.clone()
        child.apply(action)
        if isinstance(after, int):
            assert child.is_terminal()
            break
        assert (after.player, after.hands) == (child.current_player, child.hands)
        positions.append((after, child))
    outcomes = solve(state, seat, actions, budget=10**6)
    assert outcomes is not None
    assert oracle_search(state, seat, actions, 10**6)[0] == outcomes
    for action in actions:
        child = state.clone()
        child.apply(action)
        assert outcomes[action] == reference(child, seat), f"seed {seed}, action {action}"
    assert_parity(state)


def test_mc5a_the_rollouts_greedy_move_follows_the_one_match_rule() -> None:
    """MC-5a: the rollouts' square-by-square greedy move is the greedy evaluation's under ``one`` too."""
    checked = check_greedy_moves({"players": 2, "matching": "one"}, range(1), same_draws=False)
    assert checked > 25


def check_greedy_moves(options: dict[str, object], seeds: range, *, same_draws: bool) -> int:
    """Games of half random, half greedy moves: at every decision the rollouts' square-by-square
    greedy move must be the one the greedy evaluation picks by copying the state for every action
    (and, with ``same_draws``, leave the RNG where it leaves it); how many decisions were checked."""
    checked = 0
    for seed in seeds:
        game = load_game("mascarade", options)
        state = game.new_initial_state(seed)
        assert isinstance(state, MascaradeState)
        play = random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            if len(actions) > 1:
                fast, slow = random.Random(checked), random.Random(checked)
                expected = best_by_evaluation([state], actions, state.current_player, mascarade_value, slow)
                assert greedy_move(state, fast) == expected
                if same_draws:
                    assert fast.random() == slow.random()
                checked += 1
            state.apply(state.random_legal_action(play) if play.random() < 0.5 else greedy_move(state, play))
    return checked


def test_solver_gives_up_beyond_its_budget() -> None:
    state, _ = late_position(2, 1, 0, 10)
    seat = state.current_player
    assert solve(state, seat, state.legal_actions(), budget=1) is None
    solver = EndgameSolver(state, seat, budget=10**6)
    assert solver.outcome(state.legal_actions()[0]) in (WIN, TIE, LOSS)


def mixed_position() -> tuple[MascaradeState, Histories, dict[int, int]]:
    """A late 2-player position where some action forces a win and some does not."""
    for seed in range(200):
        state, histories = late_position(2, seed, 0, 8)
        if state.is_terminal():
            continue
        outcomes = solve(state, state.current_player, state.legal_actions(), budget=10**6)
        assert outcomes is not None
        if WIN in outcomes.values() and min(outcomes.values()) < WIN:
            return state, histories, outcomes
    raise AssertionError("no position with a winning and a non-winning action in 200 games")


def test_the_bot_plays_a_forced_win() -> None:
    state, histories, outcomes = mixed_position()
    seat = state.current_player
    game = state.game
    for seed in range(5):
        bot = EndgameBot(make_bot("random", "mascarade"), reach=0, samples=4, budget=10**6)
        action = bot.act(game, seat, histories[seat], state.legal_actions(), random.Random(seed))
        assert outcomes[action] == WIN


@pytest.mark.parametrize("kind", ["hard", "expert"])
@pytest.mark.parametrize("phase", ["solver", "rollouts"])
def test_fairness_of_the_endgame_levels(kind: str, phase: str) -> None:
    """Late in the game, where the solver plays, and before, where rollouts choose: two true states
    the seat cannot tell apart (the other hand and the pool order differ) give the same action, and
    that phase made the decision (not greedy)."""
    if phase == "solver":
        state, histories = late_position(2, 3, 1, 10)
    else:
        state, histories = greedy_position(2, 5, 7)
    seat = state.current_player
    game = state.game
    twins = (game.sample_state(seat, histories[seat], random.Random(k)) for k in range(50))
    hidden = (state.hands, state.pool)
    twin = next(t for t in twins if isinstance(t, MascaradeState) and (t.hands, t.pool) != hidden)
    assert twin.observation(seat) == state.observation(seat)
    bots = [make_bot(kind, "mascarade") for _ in range(2)]
    a = bots[0].act(game, seat, histories[seat], state.legal_actions(), random.Random(3))
    b = bots[1].act(game, seat, histories[seat], twin.legal_actions(), random.Random(3))
    assert a == b
    counter = "solved" if phase == "solver" else "rolled"
    assert [getattr(bot, counter, None) for bot in bots] == [1, 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_rollouts_greedy_move_is_the_greedy_bots(players: int) -> None:
    """The rollouts' greedy moves (counted square by square) are the ones the greedy evaluation picks
    by copying the state for every action: same action, same draws from the RNG, in positions from
    the start to the end of the game, forced draws by the next seat included."""
    checked = check_greedy_moves({"players": players}, range(4), same_draws=True)
    assert checked > 100


@pytest.mark.parametrize("seed", range(4))
def test_a_rollout_from_an_empty_pool_is_the_solved_endgame(seed: int) -> None:
    """With nothing left to draw a rollout plays nothing: its outcome is what the seat can force, for
    the seat to move and for the one waiting alike (the engine's minimax says so)."""
    state, _ = late_position(2, 20 + seed, 0, 8)
    assert not state.is_terminal() and not state.pool
    for seat in range(2):
        assert rollout_outcome(state, seat, random.Random(seed), 10**6) == reference(state, seat)


# (seed 2's endgame, as much ground as these, takes the reference minimax ten times as long)
@pytest.mark.parametrize("seed", [0, 1, 3])
def test_a_rollout_plays_greedy_moves_until_the_pool_is_empty(seed: int) -> None:
    """The endgame a rollout solves is the one greedy play at every seat reaches when the drawing
    stops (MC-6, MC-7), and the world it starts from is left as it was."""
    state, _ = late_position(2, 30 + seed, 4, 100)
    assert state.pool and not state.is_terminal()
    before = state.serialize()
    seat = state.current_player
    outcome = rollout_outcome(state, seat, random.Random(seed), 10**6)
    assert state.serialize() == before
    played = state.clone()
    rng = random.Random(seed)
    while not played.is_terminal() and played.pool:
        actions = played.legal_actions()
        mover = played.current_player
        if len(actions) == 1:
            played.apply(actions[0])
        else:
            played.apply(best_by_evaluation([played], actions, mover, mascarade_value, rng))
    assert not played.pool
    if played.is_terminal():
        assert outcome == (WIN if played.winners() == [seat] else LOSS)
    else:
        assert outcome == reference(played, seat)


@pytest.mark.slow
def test_the_last_move_makes_the_true_hands_more_likely() -> None:
    """Against a player who lays its awkward cards and keeps its flexible ones (the greedy bot), the
    true hidden state explains its last placement better than the average world drawn from what the
    seat has seen; and the weights never peek: they read the seat's observations and the world."""
    game = load_game("mascarade", {"players": 2})
    logs = []
    for seed in range(6):
        state = game.new_initial_state(80_000 + seed)
        assert isinstance(state, MascaradeState)
        bot = GreedyBot(samples=2)  # the same kind of player as on 12 worlds a move, in a quarter of the time
        rng = random.Random(seed)
        histories: Histories = [[state.observation(s)] for s in range(2)]
        while not state.is_terminal():
            seat = state.current_player
            if 4 < len(state.pool) <= 10:
                draw = random.Random(seed)
                worlds = [game.sample_state(seat, histories[seat], draw) for _ in range(24)]
                assert all(isinstance(w, MascaradeState) for w in worlds)
                weights = last_move_likelihoods(game, seat, histories[seat], worlds)  # type: ignore[arg-type]
                truth = last_move_likelihoods(game, seat, histories[seat], [state])[0]
                assert all(0.0 <= w <= 1.0 for w in weights)
                if sum(weights) > 0:
                    logs.append(math.log(max(truth, 1e-12) / (sum(weights) / len(weights))))
            state.apply(bot.act(game, seat, histories[seat], state.legal_actions(), rng))
            for s in range(2):
                histories[s].append(state.observation(s))
    assert len(logs) >= 30
    assert sum(logs) / len(logs) > 0.2


def test_a_first_move_or_a_pass_tells_nothing() -> None:
    game = load_game("mascarade", {"players": 2})
    state = game.new_initial_state(1)
    histories: Histories = [[state.observation(s)] for s in range(2)]
    state.apply(state.legal_actions()[0])
    for s in range(2):
        histories[s].append(state.observation(s))
    worlds = [game.sample_state(1, histories[1], random.Random(k)) for k in range(5)]
    assert last_move_likelihoods(game, 1, histories[1], worlds) == [1.0] * 5  # type: ignore[arg-type]


PARITY_BUDGET = 20_000
"""Enough for most positions with a pool of 0..2; past it both solvers must give up at the same node."""


def assert_parity(state: MascaradeState, budget: int = PARITY_BUDGET) -> bool:
    """Both solvers give every legal action of the player to move the same outcome after the same
    number of nodes, or both give up at node ``budget + 1``; whether the search finished."""
    seat = state.current_player
    actions = state.legal_actions()
    python, python_nodes = oracle_search(state, seat, actions, budget)
    compiled, compiled_nodes = search(state, seat, actions, budget)
    assert compiled == python
    assert compiled_nodes == python_nodes
    return python is not None


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_compiled_solver_searches_as_its_oracle(players: int) -> None:
    """Same outcome for every root action and same node count, so a budget runs out at the same
    node and a bot level plays the same with or without numba (with 3 and 4 players the others play
    together against the seat)."""
    finished = 0
    for seed in range(4):
        for pool in range(5):
            for in_hands in (3 * players, 100):
                state, _ = late_position(players, 100 * players + seed, pool, in_hands)
                if not state.is_terminal():
                    finished += assert_parity(state)
    assert finished >= 10


def greedy_position(players: int, seed: int, pool: int) -> tuple[MascaradeState, Histories]:
    """A game of the greedy bot at every seat, stopped when the pool holds at most ``pool`` cards;
    with each seat's observation history."""
    game = load_game("mascarade", {"players": players})
    state = game.new_initial_state(seed)
    assert isinstance(state, MascaradeState)
    rng = random.Random(seed)
    bot = GreedyBot(samples=1)
    histories: Histories = [[state.observation(s)] for s in range(players)]
    while not state.is_terminal() and len(state.pool) > pool:
        seat = state.current_player
        state.apply(bot.act(game, seat, histories[seat], state.legal_actions(), rng))
        for s in range(players):
            histories[s].append(state.observation(s))
    return state, histories


@pytest.mark.parametrize(("players", "pool"), [(2, 0), (2, 2), (3, 0), (4, 0)])
def test_the_compiled_solver_agrees_in_greedy_games(players: int, pool: int) -> None:
    """Layouts as the bots meet them: the greedy bot's games, which pack the board more than random
    play (the squares' narrowed sets and the move order then matter more)."""
    for seed in range(3):
        state, _ = greedy_position(players, seed, pool)
        if not state.is_terminal():
            assert_parity(state)


def test_the_compiled_solver_gives_up_at_the_same_node() -> None:
    state, _ = late_position(2, 1, 1, 100)
    seat = state.current_player
    actions = state.legal_actions()
    for budget in (0, 1, 7, 100, 1000):
        assert search(state, seat, actions, budget) == (None, budget + 1)
        assert oracle_search(state, seat, actions, budget) == (None, budget + 1)
    outcomes, nodes = oracle_search(state, seat, actions, 10**6)
    assert outcomes is not None
    assert search(state, seat, actions, nodes) == (outcomes, nodes)
    assert search(state, seat, actions, nodes - 1) == (None, nodes)


def test_without_numba_the_bots_solve_with_the_plain_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """numba is the ``fast`` extra: without it the endgame is searched by the same solver in Python,
    with the same answers and node counts, and the warm-up has nothing to compile."""
    from masques.games.mascarade import bot, endgame

    state, _ = late_position(2, 3, 0, 10)
    seat, actions = state.current_player, state.legal_actions()
    compiled = endgame.search(state, seat, actions, 10**6)
    monkeypatch.setattr(endgame, "available", lambda module: module != "numba")
    monkeypatch.setattr(bot, "available", lambda module: module != "numba")
    assert endgame.search(state, seat, actions, 10**6) == compiled
    bot.warm_up()  # nothing to load, and no error
