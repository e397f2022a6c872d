"""PettingZoo AEC environments for the four games (``masker_v0``, ``maske_v0``, ``mascarade_v0``,
``blokus3d_v0``).

One agent per seat, ``player_0`` .. ``player_{n-1}``; the agent to act is the state's current player,
so a seat may act several times in a row (Masker's steps, Maske's auctions) and turn order follows
the rules, not a fixed cycle.  An observation is ``{"observation": float32 vector, "action_mask":
int8 vector}``: the vector is the game's encoder applied to that seat's own observation, and the mask
marks the legal action ids when it is that seat's turn (all zeros otherwise).  Both are new arrays
the caller owns.  Rewards are zero until the game ends, then each seat gets the game's returns
(winners share 1).  An illegal action raises the engine's :class:`~masques.engine.ActionError` and
changes nothing.

Masker and Maske run on a compiled twin of their rules (:mod:`masques.rl.compiled`, when numba is
installed): it applies the actions and writes vectors and masks, and parity tests hold it equal to the
engine and the encoder.  The engine's state then follows lazily: ``position`` replays the actions the
twin played since it was last read.  The other games step the engine and take the vector from the
encoder's fast path (its tracker), which follows the game action by action and gives exactly the
vector of the observation dict without building it.  Observations are computed only when
``observe`` or ``last`` asks.  Masks and vectors are not shared or reused between calls: an agent
that keeps an observation keeps it as it was.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine import Game, State, load_game
from .compiled import ILLEGAL, OVER, Core
from .cores import core_for, has_core
from .encoders import encoder_for
from .encoding import RENDER_MODES, check_render_mode

Observation = dict[str, npt.NDArray[Any]]
NOT_RESET = "call reset() before using the environment"


def observation_space(game: Game, size: int) -> spaces.Dict:
    """The declared space: the encoder's vector in [0, 1] and the int8 legal-action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
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
            a: observation_space(self.game, self.encoder.size) for a in self.possible_agents
        }
        self.action_spaces = {
            a: spaces.Discrete(self.game.num_distinct_actions) for a in self.possible_agents
        }
        self._num_actions = self.game.num_distinct_actions
        self._seed: int | None = None  # the last seed given to reset
        self._seeds: random.Random | None = None  # the seeds drawn from it, made when first needed
        self.tracker = self.encoder.tracker()
        self.state_: State | None = None

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
            game_seed = self._seeds.randrange(2**31)
        self.load(self.game.new_initial_state(game_seed))

    def load(self, state: State) -> None:
        """Start the episode from a given position (tests, curricula).  The position is not copied:
        the episode plays on it (read it through ``position``, which brings it up to date); change it
        only through ``step``, or load it again."""
        if state.game.name != self.game.name or state.game.options != self.game.options:
            raise ValueError(f"a state of {state.game!r} does not fit this {self.game!r} environment")
        self.state_ = state
        self._follow(state)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        if state.is_terminal():
            self._finish(self.agents[0])
        else:
            self.agent_selection = self.possible_agents[state.current_player]

    @property
    def position(self) -> State:
        """The current game state (the true one, hidden parts included: not for agents)."""
        if self.state_ is None:
            raise RuntimeError(NOT_RESET)
        return self.state_

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is an action only for a finished agent")
        nxt = self._play(int(action))
        self._cumulative_rewards[agent] = 0.0
        if nxt == OVER:
            self._finish(agent)
        else:
            self.agent_selection = self.possible_agents[nxt]

    def _play(self, action: int) -> int:
        """Apply ``action`` (or raise the engine's error): the next seat to act, or ``OVER``."""
        state = self.position
        state.apply(action)
        return OVER if state.is_terminal() else state.current_player

    def _finish(self, last: str) -> None:
        returns = self._returns()
        for agent, value in zip(self.possible_agents, returns, strict=True):
            self.rewards[agent] = float(value)
            self.terminations[agent] = True
        self._accumulate_rewards()
        self.agent_selection = last

    def _returns(self) -> list[float]:
        return self.position.returns()

    def _follow(self, state: State) -> None:
        """Make the vectors come from ``state`` from now on."""
        self.tracker.forget()

    # -- views ----------------------------------------------------------------------------------
    def observe(self, agent: str) -> Observation:
        """The agent's vector (the encoder's fast path) and mask, both new arrays the caller owns."""
        state = self.state_
        if state is None:
            raise RuntimeError(NOT_RESET)
        seat = self.seat_of[agent]
        if state.current_player == seat:
            mask = self.encoder.mask(state)
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        return {"observation": self.tracker.vector(state, seat), "action_mask": mask}

    def render(self) -> str | None:
        """The position in text, as a spectator sees it (``human`` mode prints it instead)."""
        return self.encoder.show(self.position, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the environment holds only Python objects."""


class CompiledAECEnv(MasquesAECEnv):
    """The same environment stepped by a game's compiled twin (see the module docstring).

    ``position`` is the engine's state brought up to date on demand: stepping costs one call into the
    twin, an observation another.  An action the twin refuses is handed to the engine, which raises
    its own error with its reason."""

    def __init__(self, game: str, render_mode: str | None = None, **options: Any) -> None:
        super().__init__(game, render_mode=render_mode, **options)
        core = core_for(self.game)
        if core is None:
            raise ValueError(f"{self.game.name} has no compiled twin here")
        self.core: Core[Any, Any] = core
        self._words = core.words
        self._apply = core.apply
        self._write = core.write
        self._size = core.size
        self._pending: list[int] = []  # actions the twin played that the engine's state has not

    def _follow(self, state: State) -> None:
        self.core.load(state)
        self._pending = []

    @property
    def position(self) -> State:
        """The current game state (the true one, hidden parts included: not for agents)."""
        state = self.state_
        if state is None:
            raise RuntimeError(NOT_RESET)
        if self._pending:
            pending, self._pending = self._pending, []
            for action in pending:
                state.apply(action)
        return state

    def _play(self, action: int) -> int:
        nxt = self._apply(self._words, action) if 0 <= action < self._num_actions else ILLEGAL
        if nxt == ILLEGAL:
            self.position.apply(action)  # raises the engine's error, with its reason
            raise AssertionError(f"the compiled twin refused {action}, which the engine took")
        self._pending.append(action)
        return nxt

    def _returns(self) -> list[float]:
        return self.core.returns()

    def observe(self, agent: str) -> Observation:
        """The agent's vector and mask from the twin, both new arrays the caller owns."""
        if self.state_ is None:
            raise RuntimeError(NOT_RESET)
        vector = np.empty(self._size, dtype=np.float32)
        mask = np.empty(self._num_actions, dtype=np.int8)
        self._write(self._words, self.seat_of[agent], vector, mask)
        return {"observation": vector, "action_mask": mask}


def aec_env(game: str, render_mode: str | None = None, **options: Any) -> MasquesAECEnv:
    """The AEC environment of ``game`` (masker, maske, mascarade, blokus3d) with the game's options,
    e.g. ``aec_env("masker", players=3, variant="3d")``; on the compiled twin where there is one."""
    env = CompiledAECEnv if has_core(load_game(game, options)) else MasquesAECEnv
    return env(game, render_mode=render_mode, **options)
