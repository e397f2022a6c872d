"""RL environment speed against the raw engine, one core, in the same process.

Usage: python benchmarks/rl.py [GAME ...] [--seconds S] [--rounds R]   (extra masques[rl])

Rates, on games with the default options played from new games to the end:

* engine: the raw Python engine loop, ``legal_actions()``, a uniformly random one of them, ``apply``
  — actions/s.  The ratio is taken against this loop.
* rla: the engine with ``random_legal_action(rng)`` instead.  Mascarade and Blokus 3D draw it
  straight from their bitsets without listing the legal actions: a faster primitive than any loop
  that must see every legal action, as a mask must.  Its ratio is shown too.
* env: PettingZoo's AEC loop over ``aec_env(game)``: ``last()`` (the agent's observation vector and
  action mask), the legal ids read from the mask as Gymnasium's ``Discrete.sample(mask)`` reads them
  (``mask == 1``, then the indices: numpy's nonzero straight on an int8 array is the slow one, 17 µs
  on Blokus 3D's 10,400 ids), a uniformly random one of them, ``step()`` — steps/s.  The dead steps
  that close a game take time but are not counted.  Every environment steps the engine.

Where an environment step's time goes, in µs per step: engine and env (the two loops above); env with
a free vector (the same loop with an encoder that costs nothing: what PettingZoo's loop, the mask and
reading it cost on top of the engine); and, measured alone on random games, the encoder's fast path
following each game action by action (vector) and the mask; reading the mask (read), and for scale,
the reference path: the observation dict (obs) and encoding it (encode).

Times are CPU time of this process, so other processes on the machine count little; each loop runs
``--rounds`` times in turn and the best round counts.  On a loaded machine the best rounds of the two
loops may come from different moments, so ``paired`` also gives the median over rounds of the env's
rate over the engine's measured just before it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from masques.engine import Game, State, game_names, load_game
from masques.rl import aec_env
from masques.rl.aec import MasquesAECEnv

clock = time.process_time


def engine_rate(game: Game, seconds: float, seed: int, *, rla: bool = False) -> float:
    """Random actions/s: from the list of legal actions, or with ``random_legal_action``."""
    rng = random.Random(seed)
    actions = 0
    start = clock()
    k = 0
    while clock() - start < seconds:
        state = game.new_initial_state(seed + k)
        k += 1
        while not state.is_terminal():
            if rla:
                state.apply(state.random_legal_action(rng))
            else:
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
            actions += 1
    return actions / (clock() - start)


def env_rate(env: MasquesAECEnv, seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    steps = 0
    start = clock()
    k = 0
    while clock() - start < seconds:
        env.reset(seed=seed + k)
        k += 1
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"] == 1)
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps / (clock() - start)


class FreeVector:
    """Stands in for a tracker and returns one constant vector: an encoder that costs nothing."""

    def __init__(self, size: int) -> None:
        self.vector_ = np.zeros(size, dtype=np.float32)

    def vector(self, state: State, seat: int) -> Any:
        return self.vector_

    def forget(self) -> None:
        """Nothing to forget."""


def random_games(game: Game, actions: int, seed: int) -> list[tuple[int, list[int]]]:
    """(seed, actions) of random games, at least ``actions`` actions in all."""
    rng = random.Random(seed)
    games = []
    total = 0
    k = 0
    while total < actions:
        state = game.new_initial_state(seed + k)
        moves = []
        while not state.is_terminal():
            legal = state.legal_actions()
            moves.append(legal[rng.randrange(len(legal))])
            state.apply(moves[-1])
        games.append((seed + k, moves))
        total += len(moves)
        k += 1
    return games


def per_step(game: Game, games: list[tuple[int, list[int]]], work: Callable[[State], object]) -> float:
    """µs per position that ``work`` adds to replaying the games (best of 5 passes)."""

    def replay(do: bool) -> float:
        start = clock()
        for seed, moves in games:
            state = game.new_initial_state(seed)
            for action in moves:
                if do:
                    work(state)
                state.apply(action)
        return clock() - start

    positions = sum(len(moves) for _, moves in games)
    best = min(replay(True) for _ in range(5)) - min(replay(False) for _ in range(5))
    return best / positions * 1e6


def per_call(fn: Callable[[Any], object], items: list[Any]) -> float:
    """µs per call of ``fn`` over ``items`` (best of 5 passes)."""
    best = float("inf")
    for _ in range(5):
        start = clock()
        for item in items:
            fn(item)
        best = min(best, clock() - start)
    return best / len(items) * 1e6


def breakdown(env: MasquesAECEnv, seed: int) -> dict[str, float]:
    """µs per step of the fast path, the mask, reading the mask, and the reference path."""
    game, encoder = env.game, env.encoder
    games = random_games(game, 2000, seed)
    tracker = encoder.tracker()
    parts = {
        "vector": per_step(game, games, lambda s: tracker.vector(s, s.current_player)),
        "mask": per_step(game, games, encoder.mask),
    }
    positions: list[State] = []
    for seed_, moves in games:
        state = game.new_initial_state(seed_)
        for action in moves:
            positions.append(state.clone())
            state.apply(action)
    rng = random.Random(seed)
    masks = [encoder.mask(p) for p in positions]

    def read(m: Any) -> int:
        legal = np.flatnonzero(m == 1)
        return int(legal[rng.randrange(len(legal))])

    observations = [p.observation(p.current_player) for p in positions]
    return {
        **parts,
        "read": per_call(read, masks),
        "obs": per_call(lambda p: p.observation(p.current_player), positions),
        "encode": per_call(encoder.encode, observations),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", help="games to measure (default: all, default options)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per round and loop")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rates: list[str] = []
    steps: list[str] = []
    columns = ("vector", "mask", "read", "obs", "encode")
    for name in args.games or game_names():
        game = load_game(name, {})
        env = aec_env(name)
        free = aec_env(name)
        free.tracker = FreeVector(free.encoder.size)  # type: ignore[assignment]
        engine = rla = rate = free_rate = 0.0
        paired: list[float] = []  # each round's env rate over its engine rate, measured back to back
        for r in range(args.rounds):
            round_engine = engine_rate(game, args.seconds, seed=r * 1000)
            engine = max(engine, round_engine)
            rla = max(rla, engine_rate(game, args.seconds, seed=r * 1000, rla=True))
            round_rate = env_rate(env, args.seconds, seed=r * 1000)
            rate = max(rate, round_rate)
            paired.append(round_rate / round_engine)
            free_rate = max(free_rate, env_rate(free, args.seconds, seed=r * 1000))
        parts = breakdown(env, seed=0)
        rates.append(
            f"{name:<11}{engine:>14,.0f}{rate:>13,.0f}{rate / engine:>7.2f}{rla:>11,.0f}{rate / rla:>7.2f}"
            f"{statistics.median(paired):>8.2f}"
        )
        steps.append(
            f"{name:<11}{1e6 / engine:>8.1f}{1e6 / rate:>8.1f}{1e6 / free_rate:>11.1f}"
            + "".join(f"{parts[k]:>8.1f}" for k in columns)
        )
    print(
        f"{'game':<11}{'engine act/s':>14}{'env steps/s':>13}{'ratio':>7}{'rla act/s':>11}{'ratio':>7}"
        f"{'paired':>8}"
    )
    print("\n".join(rates))
    print()
    print("µs per step: the loops (engine, env, env with a free vector); alone: vector, mask; read;")
    print("the reference path: obs, encode")
    print(f"{'game':<11}{'engine':>8}{'env':>8}{'free vec':>11}" + "".join(f"{k:>8}" for k in columns))
    print("\n".join(steps))


if __name__ == "__main__":
    main()
