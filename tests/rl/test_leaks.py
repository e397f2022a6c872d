"""No hidden information reaches an agent: states that differ only in what a seat may not see give
that seat the same observation array and mask, through the environment.

The other states come from each game's own sampler (a full state consistent with the seat's
observation, its hidden parts drawn afresh); the test also checks that the draws really differ in
hidden parts, so it cannot pass vacuously.  The true game is followed action by action by one
environment (the fast path's incremental updates) and each drawn state is met afresh by another.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from masques.engine import JSON, State, game_class
from masques.rl import aec_env

HIDDEN_INFO_GAMES = ["masker", "mascarade", "maske"]

CONFIGS = [
    pytest.param(name, cfg, id=f"{name}-{i}")
    for name in HIDDEN_INFO_GAMES
    for i, cfg in enumerate(game_class(name).conformance_configurations())
]


def _arrays(env_state: State, agent: str, env: object) -> dict[str, np.ndarray]:
    env.load(env_state)  # type: ignore[attr-defined]
    return env.observe(agent)  # type: ignore[attr-defined,no-any-return]


@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_states_a_seat_cannot_tell_apart_give_it_the_same_arrays(name: str, options: dict[str, JSON]) -> None:
    env = aec_env(name, **options)
    follower = aec_env(name, **options)
    game = env.game
    rng = random.Random(3)
    state = game.new_initial_state(3)
    follower.load(state)  # not a copy: the follower plays the true game
    differing = 0
    step = 0
    while not state.is_terminal() and step < 400:
        seen = {agent: follower.observe(agent) for agent in follower.possible_agents}
        if step % 3 == 0:  # every third position keeps the test quick on long games
            for seat, agent in enumerate(env.possible_agents):
                mine = seen[agent]
                for k in range(2):
                    other = game.sample_state(seat, [state.observation(seat)], random.Random(step * 10 + k))
                    if other.serialize() != state.serialize():
                        differing += 1
                    theirs = _arrays(other, agent, env)
                    assert np.array_equal(mine["observation"], theirs["observation"]), (seat, step)
                    assert np.array_equal(mine["action_mask"], theirs["action_mask"]), (seat, step)
        follower.step(state.random_legal_action(rng))
        step += 1
        state = follower.position  # the same state, brought up to date when read
    assert differing > 0, "the sampler never changed a hidden part: the test would prove nothing"


def test_masker_opponents_colours_are_invisible_but_ones_own_is_not() -> None:
    """Hand-built: with three players, swapping the two other seats' secret colours changes nothing
    for seat 0; changing seat 0's own colour changes its array."""
    env = aec_env("masker", players=3)
    env.reset(seed=4)
    state = env.position
    base = env.observe("player_0")["observation"].copy()
    swapped = state.clone()
    swapped.tokens = [swapped.tokens[0], swapped.tokens[2], swapped.tokens[1]]
    seat_1_before = _arrays(state, "player_1", env)["observation"]
    env.load(swapped)
    assert np.array_equal(env.observe("player_0")["observation"], base)
    assert not np.array_equal(env.observe("player_1")["observation"], seat_1_before)  # its own colour
    own = state.clone()
    spare = next(c for c in range(5) if c not in own.tokens)
    own.tokens = [spare, *own.tokens[1:]]
    env.load(own)
    assert not np.array_equal(env.observe("player_0")["observation"], base)


def test_mascarade_hands_of_others_and_the_pool_are_invisible() -> None:
    """Hand-built: exchanging a card between seat 1's hand and the pool changes nothing for seat 0."""
    env = aec_env("mascarade", players=3)
    env.reset(seed=6)
    state = env.position
    base = env.observe("player_0")
    other = state.clone()
    theirs = (other.hands[1] & -other.hands[1]).bit_length() - 1
    pooled = other.pool[0]
    other.hands[1] = other.hands[1] & ~(1 << theirs) | 1 << pooled
    other.pool[0] = theirs
    env.load(other)
    seen = env.observe("player_0")
    assert np.array_equal(seen["observation"], base["observation"])
    assert np.array_equal(seen["action_mask"], base["action_mask"])
