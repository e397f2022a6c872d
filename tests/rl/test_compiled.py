"""The compiled twins against the engine: at every position of random games, over every configuration
Masker and Maske declare, the twin's mask is the engine's legal actions, every seat's vector is the
encoder's vector of that seat's observation, and the terminal flag, the next seat and the returns are
the engine's; an action the engine refuses, the twin refuses without changing anything.  Positions
the twin did not follow (drawn by a game's sampler) are loaded and checked the same way; and the
environment on the twin gives what the Python environment gives, its ``position`` included."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masques.engine import JSON, TERMINAL, ActionError, IllegalActionError, State, game_class, load_game
from masques.rl import aec_env
from masques.rl.aec import CompiledAECEnv, MasquesAECEnv
from masques.rl.compiled import ILLEGAL, OVER, Core
from masques.rl.cores import COMPILED_GAMES, core_for
from masques.rl.encoders import encoder_for
from masques.rl.encoding import Encoder

CONFIGS = [(name, cfg) for name in COMPILED_GAMES for cfg in game_class(name).conformance_configurations()]
PARAMS = [
    pytest.param(name, cfg, id=f"{name}-{i}")
    for name in COMPILED_GAMES
    for i, cfg in enumerate(game_class(name).conformance_configurations())
]


def same_position(core: Core[Any, Any], encoder: Encoder[Any], state: State) -> None:
    """The twin's masks, vectors and returns are the engine's and the encoder's at ``state``."""
    game = state.game
    for seat in range(game.num_players):
        vector, mask = core.observe(seat)
        expected = encoder.encode(state.observation(seat))
        assert vector.dtype == np.float32 and vector.shape == expected.shape
        if not np.array_equal(vector, expected):
            wrong = np.flatnonzero(vector != expected)
            blocks = {b.name for i in wrong for b in encoder.layout.blocks if b.start <= i < b.stop}
            pytest.fail(f"seat {seat} after {len(state.history)} actions: blocks {sorted(blocks)} differ")
        legal = state.legal_actions() if state.current_player == seat else []
        assert mask.dtype == np.int8
        assert np.flatnonzero(mask).tolist() == legal, (seat, len(state.history))
    assert core.returns() == state.returns()


def refuses(core: Core[Any, Any], state: State, rng: random.Random) -> None:
    """A few actions the engine refuses (and the ids out of range): the twin refuses them too and
    its position stays as it was."""
    legal = set(state.legal_actions())
    size = state.game.num_distinct_actions
    illegal = [a for a in range(size) if a not in legal]
    before = core.words.copy()
    for action in [-1, size, *rng.sample(illegal, min(5, len(illegal)))]:
        assert core.apply(core.words, action) == ILLEGAL, action
        assert np.array_equal(core.words, before)


def play(name: str, options: dict[str, JSON], seed: int) -> None:
    """One random game, the twin following the engine action by action."""
    game = load_game(name, options)
    encoder = encoder_for(game)
    core = core_for(game)
    assert core is not None
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    core.load(state)
    while True:
        same_position(core, encoder, state)
        if rng.randrange(4) == 0:
            refuses(core, state, rng)
        if state.is_terminal():
            assert core.apply(core.words, 0) == ILLEGAL
            return
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        nxt = core.apply(core.words, action)
        state.apply(action)
        assert nxt == (OVER if state.current_player == TERMINAL else state.current_player)


@pytest.mark.parametrize(("name", "options"), PARAMS)
def test_the_twin_follows_the_engine(name: str, options: dict[str, JSON]) -> None:
    for seed in range(5):
        play(name, options, seed)


@settings(max_examples=15, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**31 - 1))
def test_the_twin_follows_the_engine_on_any_game(config: tuple[str, dict[str, JSON]], seed: int) -> None:
    play(*config, seed)


@pytest.mark.parametrize(("name", "options"), PARAMS)
def test_the_twin_loads_any_position(name: str, options: dict[str, JSON]) -> None:
    """Positions met afresh: states drawn by the game's sampler from a seat's observation, each one
    loaded, checked, and played on for a few actions."""
    game = load_game(name, options)
    encoder = encoder_for(game)
    core = core_for(game)
    assert core is not None
    rng = random.Random(7)
    state = game.new_initial_state(7)
    while not state.is_terminal():
        seat = rng.randrange(game.num_players)
        sampled = game.sample_state(seat, [state.observation(seat)], rng)
        core.load(sampled)
        for _ in range(3):
            same_position(core, encoder, sampled)
            if sampled.is_terminal():
                break
            action = sampled.random_legal_action(rng)
            core.apply(core.words, action)
            sampled.apply(action)
        for _ in range(rng.randrange(1, 40)):
            if not state.is_terminal():
                state.apply(state.random_legal_action(rng))


@pytest.mark.parametrize(("name", "options"), PARAMS)
def test_the_environment_on_the_twin_is_the_python_one(name: str, options: dict[str, JSON]) -> None:
    """Same observations, rewards, agents and position as the environment that steps the engine."""
    compiled = aec_env(name, **options)
    assert isinstance(compiled, CompiledAECEnv)
    python = MasquesAECEnv(name, **options)
    rng = random.Random(2)
    for env in (compiled, python):
        env.reset(seed=2)
    for _ in python.agent_iter():
        assert compiled.agent_selection == python.agent_selection
        for agent in python.possible_agents:
            ours, theirs = compiled.observe(agent), python.observe(agent)
            assert np.array_equal(ours["observation"], theirs["observation"])
            assert np.array_equal(ours["action_mask"], theirs["action_mask"])
        if rng.randrange(10) == 0:  # the position, read now and then, is the engine's
            assert compiled.position.serialize() == python.position.serialize()
            assert compiled.render() == python.render()
        _, reward, terminated, truncated, _ = python.last()
        assert compiled.last()[1:4] == (reward, terminated, truncated)
        if terminated or truncated:
            action = None
        else:
            legal = np.flatnonzero(python.observe(python.agent_selection)["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
        compiled.step(action)
        python.step(action)
    assert compiled.rewards == python.rewards and not compiled.agents
    assert compiled.position.serialize() == python.position.serialize()


@pytest.mark.parametrize("name", COMPILED_GAMES)
def test_an_illegal_action_on_the_twin_raises_the_engines_error(name: str) -> None:
    env = aec_env(name)
    env.reset(seed=1)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
    env.step(legal[0])
    state = env.position
    before = state.serialize()
    illegal = next(a for a in range(env.game.num_distinct_actions) if not state.is_legal(a))
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(illegal)
    with pytest.raises(ActionError):
        env.step(10**30)  # out of range, even for the twin's integers
    assert env.position.serialize() == before
    assert np.array_equal(env.observe(env.agent_selection)["action_mask"], legal_mask_of(state))


def legal_mask_of(state: State) -> np.ndarray[Any, np.dtype[np.int8]]:
    mask = np.zeros(state.game.num_distinct_actions, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return mask
