"""The Gymnasium environment: Gymnasium's checker, play against bots to the end, masks, rewards."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from masques.ai.bots import RandomBot
from masques.engine import IllegalActionError, MalformedActionError, game_names
from masques.rl import gym_env
from masques.rl.gym import ILLEGAL_REWARD

SMALL = {
    "masker": {},
    "mascarade": {"players": 2},
    "maske": {"players": 3, "masks": 2},
    "blokus3d": {"players": 2},
}


@pytest.mark.parametrize("name", game_names())
def test_gymnasium_env_checker(name: str) -> None:
    # The checker steps with unmasked random actions, which "lose" turns into a finished episode.
    env = gymnasium.make(f"masques/{name}-v0", opponents="random", illegal="lose", **SMALL.get(name, {}))
    check_env(env.unwrapped)


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seat", [0, 1])
def test_a_seat_plays_to_the_end_against_bots(name: str, seat: int) -> None:
    env = gym_env(name, seat=seat, opponents="random", **SMALL.get(name, {}))
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    total = 0.0
    done = False
    while not done:
        state = env.position
        assert state.current_player == seat
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs, env.encoder.encode(state.observation(seat)))  # the fast path's vector
        assert np.flatnonzero(info["action_mask"]).tolist() == state.legal_actions()
        assert np.array_equal(info["action_mask"], env.action_masks())
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, done, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        assert not truncated
        total += reward
        assert reward == 0.0 or done
    assert env.position.is_terminal()
    assert total == env.position.returns()[seat]
    assert not info["action_mask"].any()


def test_greedy_opponents_by_default_and_one_kind_per_seat() -> None:
    env = gym_env("masker", players=3)
    assert [b.name for b in env.bots.values()] == ["greedy", "greedy"]
    mixed = gym_env("masker", seat=1, opponents=["random", RandomBot()], players=3)
    assert sorted(mixed.bots) == [0, 2]
    with pytest.raises(ValueError, match="2 opponents"):
        gym_env("masker", opponents=["random"], players=3)
    with pytest.raises(ValueError, match="seat"):
        gym_env("masker", seat=2)


def test_same_seed_same_episode() -> None:
    def run() -> list[int]:
        env = gym_env("mascarade", opponents="greedy", players=2)
        _, info = env.reset(seed=9)
        pick = random.Random(0)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"]).tolist()
            _, _, done, _, info = env.step(pick.choice(legal))
        return list(env.position.history)

    assert run() == run()


def test_an_illegal_action_raises_or_loses() -> None:
    env = gym_env("masker", opponents="random")
    env.reset(seed=1)
    illegal = next(a for a in range(41) if not env.position.is_legal(a))
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    losing = gym_env("masker", opponents="random", illegal="lose")
    losing.reset(seed=1)
    _, reward, done, _, info = losing.step(illegal)
    assert (reward, done, info["illegal"]) == (ILLEGAL_REWARD, True, True)
    legal = losing.position.legal_actions()[0]
    with pytest.raises(RuntimeError, match="the episode is over"):  # it ended, as it said
        losing.step(legal)
    assert not losing.action_masks().any()
    losing.reset(seed=1)
    assert losing.step(legal)[2] is False


def test_an_action_is_an_integer_id_not_a_float() -> None:
    env = gym_env("masker", opponents="random")
    env.reset(seed=1)
    legal = env.position.legal_actions()[0]
    before = env.position.serialize()
    with pytest.raises(MalformedActionError, match="an action is an integer id"):
        env.step(legal + 0.5)  # type: ignore[arg-type]
    assert env.position.serialize() == before
    env.step(np.int64(legal))  # NumPy's integers are integers


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"seat": 1.0}, "seat must be an integer"),
        ({"seat": True}, "seat must be an integer"),
        ({"seat": "0"}, "seat must be an integer"),
        ({"opponents": None}, "an opponent is a bot's name"),
        ({"opponents": 5}, "an opponent is a bot's name"),
    ],
)
def test_bad_seats_and_opponents_are_refused_when_the_env_is_made(
    arguments: dict[str, object], fragment: str
) -> None:
    with pytest.raises(ValueError, match=fragment):
        gym_env("masker", **arguments)  # type: ignore[arg-type]


def test_true_is_no_action_id() -> None:
    """True is 1 to Python; the engine refuses it as an action, and so does the environment."""
    env = gym_env("maske", seat=0, opponents="random")
    env.reset(seed=3)
    with pytest.raises(MalformedActionError):
        env.step(True)  # type: ignore[arg-type]


def test_the_seeds_drawn_without_one_are_too_many_to_search() -> None:
    """A seed is the whole deal: one drawn from a small space could be found from the public
    position by trying them all.  The drawn seeds still follow the seed given first."""
    from typing import Any

    from masques.rl.encoding import SEED_BITS

    def drawn() -> list[int]:
        env = gym_env("mascarade", opponents="random", players=2)
        seeds: list[int] = []
        making = env.game.new_initial_state

        def recording(seed: int = 0, **kwargs: Any) -> Any:
            seeds.append(seed)
            return making(seed, **kwargs)

        env.game.new_initial_state = recording  # type: ignore[method-assign]
        env.reset(seed=11)
        for _ in range(4):
            env.reset()
        return seeds[1:]

    first = drawn()
    assert first == drawn()
    assert all(0 <= seed < 2**SEED_BITS for seed in first)
    assert max(first) >= 2**64
