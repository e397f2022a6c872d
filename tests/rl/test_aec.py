"""The AEC environments: PettingZoo's API and seed tests on every configuration the games declare,
masks equal to the legal actions, rewards equal to the returns, observations inside their space."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from masques.engine import IllegalActionError, MalformedActionError, game_class, game_names
from masques.rl import aec_env

CONFIGS = [
    pytest.param(name, cfg, id=f"{name}-{i}")
    for name in game_names()
    for i, cfg in enumerate(game_class(name).conformance_configurations())
]


@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_pettingzoo_api_test(name: str, options: dict[str, object]) -> None:
    with warnings.catch_warnings():
        # PettingZoo notes that dict observations are not plain arrays: the action-mask layout is
        # the one its own classic games use.
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        api_test(aec_env(name, **options), num_cycles=1000)


@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_pettingzoo_seed_test(name: str, options: dict[str, object]) -> None:
    seed_test(lambda: aec_env(name, **options), num_cycles=500)


@pytest.mark.parametrize("name", game_names())
def test_environment_names(name: str) -> None:
    env = aec_env(name)
    assert env.metadata["name"] == f"{name}_v0"
    assert str(env) == f"{name}_v0"
    assert env.possible_agents == [f"player_{i}" for i in range(env.game.num_players)]


@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_masks_are_the_legal_actions_and_rewards_the_returns(name: str, options: dict[str, object]) -> None:
    env = aec_env(name, **options)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    state = env.position  # read again after each step: the position follows when read
    space = env.observation_space(env.possible_agents[0])
    steps = 0
    while not state.is_terminal():
        agent = env.agent_selection
        assert agent == f"player_{state.current_player}"
        for other in env.possible_agents:
            obs = env.observe(other)
            assert space.contains(obs)
            expected = state.legal_actions() if other == agent else []
            assert np.flatnonzero(obs["action_mask"]).tolist() == expected
        legal = state.legal_actions()
        env.step(legal[int(rng.integers(len(legal)))])
        steps += 1
        state = env.position
        assert all(v == 0.0 for v in env.rewards.values()) or state.is_terminal()
    returns = state.returns()
    assert sum(returns) == pytest.approx(1.0)
    for i, agent in enumerate(env.possible_agents):
        assert env.terminations[agent]
        assert env.rewards[agent] == returns[i]
        assert env._cumulative_rewards[agent] == returns[i]
        assert not env.observe(agent)["action_mask"].any()
    assert steps == len(state.history)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    env = aec_env("masker")
    env.reset(seed=1)
    state = env.position
    illegal = next(a for a in range(env.game.num_distinct_actions) if not state.is_legal(a))
    before = state.serialize()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert state.serialize() == before
    with pytest.raises(ValueError, match="None"):
        env.step(None)
    with pytest.raises(MalformedActionError, match="an action is an integer id"):
        env.step(float(state.legal_actions()[0]))
    assert state.serialize() == before


def test_a_step_before_reset_says_to_reset() -> None:
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        aec_env("masker").step(0)


def test_reset_with_a_seed_is_that_game_and_without_one_follows_it() -> None:
    env = aec_env("mascarade", players=2)
    env.reset(seed=11)
    assert env.position.serialize() == env.game.new_initial_state(11).serialize()
    env.reset()
    first = env.position.serialize()
    env.reset(seed=11)
    env.reset()
    assert env.position.serialize() == first


def test_a_state_of_another_configuration_is_refused() -> None:
    env = aec_env("masker", players=3)
    other = aec_env("masker", players=2)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="does not fit"):
        env.load(other.position)


def test_using_the_environment_before_reset_says_so() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        aec_env("maske").observe("player_0")
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        aec_env("maske").last()


def test_bad_render_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="render_mode"):
        aec_env("masker", render_mode="rgb_array")


@pytest.mark.parametrize("name", game_names())
def test_render_is_text_of_the_public_position(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = aec_env(name)
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and "to move" in text
    human = aec_env(name, render_mode="human")
    human.reset(seed=2)
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text.strip()


def test_the_seeds_drawn_without_one_are_too_many_to_search() -> None:
    """A seed is the whole deal: one drawn from a small space could be found from the public
    position by trying them all.  The drawn seeds still follow the seed given first."""
    from masques.rl.encoding import SEED_BITS

    def drawn(env: Any) -> list[int]:
        seeds: list[int] = []
        making = env.game.new_initial_state

        def recording(seed: int = 0, **kwargs: Any) -> Any:
            seeds.append(seed)
            return making(seed, **kwargs)

        env.game.new_initial_state = recording
        env.reset(seed=11)
        for _ in range(4):
            env.reset()
        return seeds[1:]

    first, again = drawn(aec_env("mascarade", players=2)), drawn(aec_env("mascarade", players=2))
    assert first == again
    assert all(0 <= seed < 2**SEED_BITS for seed in first)
    assert max(first) >= 2**64
