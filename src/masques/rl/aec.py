"""PettingZoo AEC environments for every registered game (``masker_v0``, ``maske_v0``, ...).

One agent per seat, ``player_0`` .. ``player_{n-1}``; the agent to act is the state's current player,
so a seat may act several times in a row (Masker's steps, Maske's auctions) and turn order follows
the rules, not a fixed cycle.  An observation is ``{"observation": float32 vector, "action_mask":
int8 vector}``: the vector is the game's encoder applied to that seat's own observation, and the mask
marks the legal action ids when it is that seat's turn (all zeros otherwise).  Both are new arrays
the caller owns.  Rewards are zero until the game ends, then each seat gets the game's returns
(winners share 1).  An illegal action raises the engine's :class:`~masques.engine.ActionError` and
changes nothing.

Every environment steps the engine.  The encoder is the game's ``"rl"`` part, or the generic one
(:mod:`masques.rl.default`); the vector comes from the encoder's fast path (its tracker), which
follows the game action by action and gives exactly the vector of the observation dict without
building it.  Observations are computed only when ``observe`` or ``last`` asks.  Masks and vectors
are not shared or reused between calls: an agent that keeps an observation keeps it as it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine import TERMINAL, Game, State, load_game
from .encoders import encoder_for
from .encoding import RENDER_MODES, SEED_BITS, Encoder, action_id, check_render_mode, vector_space

Observation = dict[str, npt.NDArray[Any]]
NOT_RESET = "call reset() before using the environment"


def observation_space(game: Game, encoder: Encoder[Any]) -> spaces.Dict:
    """The declared space: the encoder's vector within its bounds and the int8 legal-action mask."""
    return spaces.Dict(
        {
            "observation": vector_space(encoder),
            "action_mask": spaces.Box(0, 1, (game.num_distinct_actions,), np.int8),
        }
    )


class MasquesAECEnv(AECEnv[str, Observation, int]):  # type: ignore[misc]  # untyped base
    """A Masques game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - the base class declares it so
        "name": "masques_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
    }

    def __init__(self, game: str, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        self.game = load_game(game, options)
        self.encoder = encoder_for(self.game)
        self.metadata = {**self.metadata, "name": f"{self.game.name}_v0"}
        self.render_mode = check_render_mode(render_mode)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: observation_space(self.game, self.encoder) for a in self.possible_agents
        }
        self.action_spaces = {
            a: spaces.Discrete(self.game.num_distinct_actions) for a in self.possible_agents
        }
        self._num_actions = self.game.num_distinct_actions
        self._seed: int | None = None  # the last seed given to reset
        self._seeds: random.Random | None = None  # the seeds drawn from it, made when first needed
        self.tracker = self.encoder.tracker()
        self.state_: State | None = None
        self._to_act = TERMINAL  # the seat to act, kept by load and step (read on every observe)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- episodes -------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game.  With ``seed`` it is the engine's game of that seed; without one, the next seed
        drawn from the last seed given (or from the system's randomness before any)."""
        if seed is not None:
            self._seed, self._seeds = seed, None  # seeding a generator costs more than a short game
            game_seed = seed
        else:
            if self._seeds is None:
                self._seeds = random.Random(self._seed)
            game_seed = self._seeds.getrandbits(SEED_BITS)
        self.load(self.game.new_initial_state(game_seed))

    def load(self, state: State) -> None:
        """Start the episode from a given position (tests, curricula).  The position is not copied:
        the episode plays on it (read it through ``position``, which brings it up to date); change it
        only through ``step``, or load it again."""
        if state.game.name != self.game.name or state.game.options != self.game.options:
            raise ValueError(f"a state of {state.game!r} does not fit this {self.game!r} environment")
        self.state_ = state
        self.tracker.forget()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._to_act = state.current_player
        if self._to_act == TERMINAL:
            self._finish(self.agents[0])
        else:
            self.agent_selection = self.possible_agents[self._to_act]

    @property
    def position(self) -> State:
        """The current game state (the true one, hidden parts included: not for agents)."""
        if self.state_ is None:
            raise RuntimeError(NOT_RESET)
        return self.state_

    def step(self, action: int | None) -> None:
        if self.state_ is None:
            raise RuntimeError(NOT_RESET)
        agent = self.agent_selection
        state = self.state_
        if self._to_act == TERMINAL:  # every agent is done at once, when the game ends
            if state is None:
                raise RuntimeError(NOT_RESET)
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is an action only for a finished agent")
        assert state is not None  # a seat is to act only in a loaded game
        state.apply(action_id(action))
        # the acting agent's cumulative reward would be reset here, but it is 0.0 until the game
        # ends (rewards come only then, when every agent is done): nothing to write on a live step
        self._to_act = seat = state.current_player
        if seat == TERMINAL:
            self._finish(agent)
        else:
            self.agent_selection = self.possible_agents[seat]

    def _finish(self, last: str) -> None:
        returns = self.position.returns()
        for agent, value in zip(self.possible_agents, returns, strict=True):
            self.rewards[agent] = float(value)
            self.terminations[agent] = True
        self._accumulate_rewards()
        self.agent_selection = last

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """The agent to act, step after step, until every agent is done (at most ``max_iter``), as
        PettingZoo's ``agent_iter``; a generator, which costs less per step than its iterator."""
        agents = self.agents
        while agents and max_iter > 0:
            max_iter -= 1
            yield self.agent_selection
            agents = self.agents

    # -- views ----------------------------------------------------------------------------------
    def observe(self, agent: str) -> Observation:
        """The agent's vector (the encoder's fast path) and mask, both new arrays the caller owns."""
        state = self.state_
        if state is None:
            raise RuntimeError(NOT_RESET)
        seat = self.seat_of[agent]
        if seat == self._to_act:
            mask = self.encoder.mask(state)
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        return {"observation": self.tracker.vector(state, seat), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``: the agent to act's observation, cumulative reward, termination,
        truncation and info, read straight from this environment's fields (it runs on every step)."""
        if self.state_ is None:
            raise RuntimeError(NOT_RESET)
        agent = self.agent_selection
        seat = self._to_act
        if not observe:
            obs = None
        elif seat == TERMINAL:
            obs = self.observe(agent)
        else:  # the seat to act: observe's work, without its look-ups
            state = self.state_
            assert state is not None  # a seat is to act only in a loaded game
            obs = {"observation": self.tracker.vector(state, seat), "action_mask": self.encoder.mask(state)}
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def render(self) -> str | None:
        """The position in text, as a spectator sees it (``human`` mode prints it instead)."""
        return self.encoder.show(self.position, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the environment holds only Python objects."""


def aec_env(game: str, render_mode: str | None = None, **options: Any) -> MasquesAECEnv:
    """The AEC environment of any registered ``game`` with the game's options, e.g.
    ``aec_env("masker", players=3, variant="3d")``."""
    return MasquesAECEnv(game, render_mode=render_mode, **options)
