"""Mascarade endgame solver speed: nodes per second and seconds per solve, compiled and Python.

Usage: python benchmarks/mascarade_endgame.py [--pools 4,5,6] [--positions N] [--players 2]
    [--budget NODES] [--python-budget NODES]

Positions are seeded games of the greedy bot (every seat), stopped when the pool first holds at most
``pool`` cards with more than one legal action; the solver answers for the player to move, every legal
action, in the true state. Both solvers search the same nodes (parity tests), so the Python one stops at
its own budget; past it, its time is the nodes at the rate it showed (marked ``~``). Times are CPU time
(``time.process_time``): other work on the machine inflates them less.
"""

from __future__ import annotations

import argparse
import random
import time

from masques.ai.search import GreedyBot
from masques.engine import load_game
from masques.games.mascarade.endgame import search
from masques.games.mascarade.endgame_plain import search as oracle_search
from masques.games.mascarade.game import MascaradeState


def position(players: int, seed: int, pool: int) -> MascaradeState | None:
    """A greedy game played until the pool holds at most ``pool`` cards and a choice is left."""
    game = load_game("mascarade", {"players": players})
    state = game.new_initial_state(seed)
    assert isinstance(state, MascaradeState)
    rng = random.Random(seed)
    bot = GreedyBot(samples=1)
    histories = [[state.observation(s)] for s in range(players)]
    while not state.is_terminal():
        if len(state.pool) <= pool and len(state.legal_actions()) > 1:
            return state
        seat = state.current_player
        state.apply(bot.act(game, seat, histories[seat], state.legal_actions(), rng))
        for s in range(players):
            histories[s].append(state.observation(s))
    return None


def timed(state: MascaradeState, budget: int, compiled: bool) -> tuple[bool, int, float]:
    start = time.process_time()
    solver = search if compiled else oracle_search
    outcomes, nodes = solver(state, state.current_player, state.legal_actions(), budget)
    return outcomes is not None, nodes, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", default="4,5,6")
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--budget", type=int, default=100_000_000)
    parser.add_argument("--python-budget", type=int, default=3_000_000)
    args = parser.parse_args()
    print(f"{args.players} players, {args.positions} greedy positions per pool size, CPU seconds")
    print(f"{'pool':>4} {'seed':>4} {'nodes':>11} {'compiled s':>10} {'python s':>10} {'speed-up':>8}")
    rates: dict[str, list[float]] = {"compiled": [0.0, 0.0], "python": [0.0, 0.0]}
    for pool in (int(p) for p in args.pools.split(",")):
        found, seed = 0, 0
        while found < args.positions:
            seed += 1
            state = position(args.players, seed, pool)
            if state is None or len(state.pool) != pool:
                continue
            found += 1
            done, nodes, fast = timed(state, args.budget, compiled=True)
            rates["compiled"][0] += nodes
            rates["compiled"][1] += fast
            if not done:
                print(f"{pool:>4} {seed:>4} {'>' + str(args.budget):>11} {fast:>10.2f}")
                continue
            done, slow_nodes, slow = timed(state, min(nodes, args.python_budget), compiled=False)
            assert slow_nodes == min(nodes, args.python_budget + 1)
            rates["python"][0] += slow_nodes
            rates["python"][1] += slow
            shown = f"{slow:>10.2f}"
            if not done:  # the same search's first nodes: the rest at the same rate
                slow *= nodes / slow_nodes
                shown = f"{'~' + format(slow, '.1f'):>10}"
            print(f"{pool:>4} {seed:>4} {nodes:>11,} {fast:>10.3f} {shown} {slow / max(fast, 1e-9):>7.0f}x")
    for name, (nodes, seconds) in rates.items():
        print(f"{name}: {nodes / max(seconds, 1e-9):,.0f} nodes/s")


if __name__ == "__main__":
    main()
