"""The generic encoder a game gets when it brings no "rl" part, on a tiny game defined here: the layout
learned from the game's observations, what each kind of field writes, the fixed shape, the hidden
information kept out, and the environments (PettingZoo's api_test, Gymnasium's checker) on it."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from masques.engine import JSON, TERMINAL, Game, MalformedActionError, OptionSpec, State, registry, stream
from masques.rl import aec_env, gym_env
from masques.rl.default import LIST_BOUND, MAX_CHOICES, GenericEncoder, Record, learn
from masques.rl.encoders import encoder_for

ROUNDS = 3


class TallyGame(Game):
    """Each seat is dealt a secret 0..4 (chance, seen by its owner only); in turn, seats add 1..3 to
    their score, ROUNDS times each; the highest score plus secret wins."""

    name = "tally"
    title = "Tally"
    rules_version = "1"
    parts: ClassVar[dict[str, str]] = {}
    option_specs = (OptionSpec("players", "int", 2, "2 or 3 players", (2, 3)),)

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    @property
    def num_distinct_actions(self) -> int:
        return 3

    @property
    def max_game_length(self) -> int:
        return ROUNDS * self.num_players

    def new_initial_state(self, seed: int = 0, *, chance: int = 2) -> TallyState:
        rng = stream(seed, "tally/secrets", version=chance)
        return TallyState(self, seed, [rng.randrange(5) for _ in range(self.num_players)])

    def _sample_from(self, seat: int | None, observation: JSON, rng: random.Random) -> State:
        """The others' secrets drawn anew; the seat's own and the public moves kept."""
        secrets = [rng.randrange(5) for _ in range(self.num_players)]
        if seat is not None:
            secrets[seat] = int(observation["secret"])
        state = TallyState(self, 0, secrets)
        for action in observation["moves"]:
            state.apply(int(action))
        return state


class TallyState(State):
    def __init__(self, game: TallyGame, seed: int, secrets: list[int]) -> None:
        self.game = game
        self.seed = seed
        self.chance = 2
        self.history: list[int] = []
        self.secrets = secrets
        self.scores_ = [0] * game.num_players

    @property
    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.history) % self.game.num_players

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1, 2]

    def is_legal(self, action: int) -> bool:
        return not self.is_terminal()

    def _apply(self, action: int) -> None:
        self.scores_[self.current_player] += action + 1

    def is_terminal(self) -> bool:
        return len(self.history) >= self.game.max_game_length

    def scores(self) -> list[float]:
        return [float(s) for s in self.scores_]

    def winners(self) -> list[int]:
        if not self.is_terminal():
            return []
        totals = [s + k for s, k in zip(self.scores_, self.secrets, strict=True)]
        return [s for s, t in enumerate(totals) if t == max(totals)]

    def clone(self) -> TallyState:
        other = TallyState(self.game, self.seed, list(self.secrets))  # type: ignore[arg-type]
        other.history, other.scores_ = list(self.history), list(self.scores_)
        return other

    def observation(self, seat: int | None) -> JSON:
        n = len(self.history)
        last = {"seat": (n - 1) % self.game.num_players, "added": self.history[-1] + 1} if n else None
        return {
            "game": "tally",  # one value: a one-hot of one
            "seat": seat,
            "scores": list(self.scores_),  # always as long: one value per item
            "moves": list(self.history),  # grows: its length, then its items
            "phase": "over" if self.is_terminal() else "play",
            "last": last,  # sometimes None: a presence flag first
            "secret": None if seat is None else self.secrets[seat],
            "terminal": self.is_terminal(),
        }

    def serialize(self) -> JSON:
        return {"secrets": self.secrets, "history": self.history}

    def action_to_json(self, action: int) -> JSON:
        return action + 1

    def action_from_json(self, obj: JSON) -> int:
        if obj not in (1, 2, 3):
            raise MalformedActionError("add 1, 2 or 3", obj)
        return int(obj) - 1

    def action_to_str(self, action: int) -> str:
        return str(action + 1)

    def action_from_str(self, text: str) -> int:
        return self.action_from_json(int(text) if text.strip().isdigit() else text)


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tally registered for one test through the public mechanism (the registry restored after)."""
    registry.game_names()  # the shipped games first
    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    monkeypatch.setattr(registry, "_PARTS", dict(registry._PARTS))
    registry.register(TallyGame)
    yield


def expected(obs: dict[str, Any], bound: int) -> list[float]:
    """The vector the module docstring describes for Tally's observation, written out by hand."""
    last = obs["last"]
    moves = [float(m) for m in obs["moves"][:bound]]
    return [
        1.0,  # game: "tally", the only value seen
        *([1.0, float(last["added"]), float(last["seat"])] if last else [0.0, 0.0, 0.0]),
        float(len(obs["moves"])),
        *moves,
        *[0.0] * (bound - len(moves)),
        *([1.0, 0.0] if obs["phase"] == "over" else [0.0, 1.0]),  # phase: "over", "play"
        *[float(s) for s in obs["scores"]],
        float(obs["seat"]),
        float(obs["secret"]),
        float(obs["terminal"]),
    ]


@pytest.mark.usefixtures("tally")
def test_each_kind_of_field_writes_what_the_module_says_in_sorted_key_order() -> None:
    game = TallyGame({"players": 2})
    encoder = encoder_for(game)
    assert isinstance(encoder, GenericEncoder)
    bound = ROUNDS * 2  # the longest move list the probe saw, under LIST_BOUND
    names = [b.name for b in encoder.layout.blocks]
    assert names == ["game", "last", "moves", "phase", "scores", "seat", "secret", "terminal"]
    assert encoder.size == 1 + 3 + (1 + bound) + 2 + 2 + 1 + 1 + 1
    state = game.new_initial_state(7)
    rng = random.Random(7)
    while True:
        for seat in range(2):
            obs = state.observation(seat)
            vector = encoder.encode(obs)
            assert vector.dtype == np.float32 and vector.shape == (encoder.size,)
            assert vector.tolist() == expected(obs, bound)
        if state.is_terminal():
            break
        state.apply(rng.randrange(3))


@pytest.mark.usefixtures("tally")
def test_the_shape_is_fixed_whatever_an_observation_holds() -> None:
    encoder = encoder_for(TallyGame({"players": 3}))
    obs = TallyGame({"players": 3}).new_initial_state(1).observation(0)
    longer = {**obs, "moves": list(range(LIST_BOUND + 5)), "scores": [1, 2], "phase": "unseen"}
    del longer["last"]
    strange = {**obs, "secret": "a string", "last": [1, 2], "extra": 5}
    for o in (obs, longer, strange):
        assert encoder.encode(o).shape == (encoder.size,)
    v = encoder.encode(longer)
    moves = encoder.layout.block("moves")
    assert v[moves.start] == LIST_BOUND + 5  # the length as it is ...
    assert v[moves.start + 1 : moves.stop].tolist() == list(range(moves.size - 1))  # ... items cut
    for name in ("scores", "phase", "last"):  # wrong length, unseen value, missing: zeros
        block = encoder.layout.block(name)
        assert not v[block.start : block.stop].any()
    w = encoder.encode(strange)
    for name in ("secret", "last"):  # another kind than the probe saw: as if missing
        block = encoder.layout.block(name)
        assert not w[block.start : block.stop].any()


@pytest.mark.usefixtures("tally")
def test_a_seat_vector_does_not_change_with_what_the_seat_may_not_see() -> None:
    game = TallyGame({"players": 2})
    encoder = encoder_for(game)
    state = game.new_initial_state(3)
    other = state.clone()
    other.secrets = [state.secrets[0], (state.secrets[1] + 1) % 5]  # seat 1's secret only
    assert np.array_equal(encoder.encode(state.observation(0)), encoder.encode(other.observation(0)))
    assert not np.array_equal(encoder.encode(state.observation(1)), encoder.encode(other.observation(1)))


@pytest.mark.usefixtures("tally")
def test_the_layout_is_the_same_in_every_encoder_of_a_configuration() -> None:
    a = GenericEncoder(TallyGame({"players": 3}))
    b = GenericEncoder(TallyGame({"players": 3}))
    assert [(x.name, x.size) for x in a.layout.blocks] == [(x.name, x.size) for x in b.layout.blocks]
    assert a.size != GenericEncoder(TallyGame({"players": 2})).size  # scores: one value per seat


@pytest.mark.usefixtures("tally")
@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_api_test_on_a_game_without_an_rl_part(players: int) -> None:
    env = aec_env("tally", players=players)
    assert isinstance(env.encoder, GenericEncoder)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        api_test(env, num_cycles=200)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    space = env.observation_space(env.possible_agents[0])
    for agent in env.agent_iter(max_iter=50):
        obs, _, terminated, truncated, _ = env.last()
        assert space.contains(obs)
        expected_vector = encoder_for(env.game).encode(env.position.observation(env.seat_of[agent]))
        assert np.array_equal(obs["observation"], expected_vector)
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.usefixtures("tally")
def test_gymnasium_checker_on_a_game_without_an_rl_part() -> None:
    env = gym_env("tally", seat=1, opponents="random", illegal="lose")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unbounded Box: the checker only advises bounds
        check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=4)
    assert obs.shape == env.observation_space.shape
    assert info["action_mask"].tolist() == [1, 1, 1]
    assert '"game": "tally"' in (env.render() or "")  # the spectator's observation, as JSON text


def test_free_text_is_left_out_and_a_field_always_none_takes_no_slot() -> None:
    free = learn([{"text": f"line {k}", "none": None, "x": k} for k in range(MAX_CHOICES + 1)])
    assert isinstance(free, Record) and list(free.fields) == ["x"]
