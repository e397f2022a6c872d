"""RL environment speed against the raw engine, one core, in the same process.

Usage: python benchmarks/rl.py [GAME ...] [--seconds S] [--rounds R]   (extra masques[rl])

* raw engine: ``state.apply(state.random_legal_action(rng))`` from new games to the end, actions/s;
* AEC environment: PettingZoo's loop — ``last()`` (the agent's encoded observation and mask), a
  uniformly random legal action read from the mask, ``step()`` — environment steps/s (the dead steps
  that close a game are not counted);
* the ratio of the two;
* for scale, the engine again with the mover's observation dict built before each action (what
  any loop that shows an agent its view pays), and the environment's ratio to that;
* where an environment step's time goes: the game's ``observation(seat)``, the encoder, the
  legal-action mask (microseconds per call, best of 5 passes over positions from random games).

Each measure is taken ``--rounds`` times in turn, and the best round counts: other processes on
the machine slow rounds down, never up.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from masques.engine import Game, State, game_names, load_game
from masques.rl import aec_env


def raw_rate(game: Game, seconds: float, seed: int, *, observe: bool = False) -> float:
    """Random actions/s; with ``observe``, also the mover's observation dict before each action."""
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    k = 0
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed + k)
        k += 1
        while not state.is_terminal():
            if observe:
                state.observation(state.current_player)
            state.apply(state.random_legal_action(rng))
            actions += 1
    return actions / (time.perf_counter() - start)


def env_rate(name: str, options: dict[str, object], seconds: float, seed: int) -> float:
    env = aec_env(name, **options)
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    k = 0
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + k)
        k += 1
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - start)


def breakdown(name: str, options: dict[str, object], seed: int) -> tuple[float, float, float]:
    """Microseconds per call of observation(seat), the encoder and the mask, on random positions."""
    env = aec_env(name, **options)
    game = env.game
    rng = random.Random(seed)
    positions: list[State] = []
    while len(positions) < 200:
        state = game.new_initial_state(seed + len(positions))
        while not state.is_terminal():
            positions.append(state.clone())
            state.apply(state.random_legal_action(rng))
    observations = [(p.observation(p.current_player)) for p in positions]

    def per_call(fn: Callable[[Any], object], inputs: Callable[[], list[Any]]) -> float:
        best = float("inf")
        for _ in range(5):
            items = inputs()
            start = time.perf_counter()
            for item in items:
                fn(item)
            best = min(best, time.perf_counter() - start)
        return best / len(positions) * 1e6

    obs_us = per_call(lambda p: p.observation(p.current_player), lambda: positions)
    enc_us = per_call(env.encoder.encode, lambda: observations)
    # games that cache their legal actions get fresh copies that have not built them yet
    mask_us = per_call(env.encoder.mask, lambda: [p.clone() for p in positions])
    return obs_us, enc_us, mask_us


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", help="games to measure (default: all, default options)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per round and measure")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(
        f"{'game':<11}{'engine act/s':>14}{'env steps/s':>13}{'ratio':>7}{'+obs act/s':>12}{'ratio':>7}"
        f"{'obs us':>9}{'encode us':>11}{'mask us':>9}"
    )
    for name in args.games or game_names():
        options: dict[str, object] = {}
        game = load_game(name, options)
        raw = observed = env = 0.0
        for r in range(args.rounds):
            raw = max(raw, raw_rate(game, args.seconds, seed=r * 1000))
            observed = max(observed, raw_rate(game, args.seconds, seed=r * 1000, observe=True))
            env = max(env, env_rate(name, options, args.seconds, seed=r * 1000))
        obs_us, enc_us, mask_us = breakdown(name, options, seed=0)
        print(
            f"{name:<11}{raw:>14,.0f}{env:>13,.0f}{env / raw:>7.2f}{observed:>12,.0f}{env / observed:>7.2f}"
            f"{obs_us:>9.1f}{enc_us:>11.1f}{mask_us:>9.1f}"
        )


if __name__ == "__main__":
    main()
