"""A Gymnasium environment: one seat of a game against Masques bots in the other seats.

The observation is the seat's encoded view (the same vector as the AEC environment's), the action
an action id, the reward the seat's return when the game ends (0 before).  ``info["action_mask"]``
and ``action_masks()`` (what sb3-contrib's MaskablePPO reads) mark the legal actions.  The bots see
only their own seats' observations, as in the arena: a bot's history holds its observation at each
of its decisions (the last one carries the public move list), and none is built for the random bot,
which reads none.  An illegal action raises the engine's
ActionError, or with ``illegal="lose"`` ends the episode with reward -1 (for algorithms without
masks, and for Gymnasium's environment checker, which steps with unmasked random actions).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..ai.bots import Bot, make_bot
from ..engine import JSON, State, load_game
from .encoders import encoder_for
from .encoding import RENDER_MODES, SEED_BITS, Array, action_id, check_render_mode, vector_space

ILLEGAL_REWARD = -1.0
"""The reward for an illegal action with ``illegal="lose"``: below any game result."""


class MasquesGymEnv(gymnasium.Env[Array, np.int64]):
    """Seat ``seat`` of a game; the other seats are bots (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        seat: int = 0,
        opponents: str | Bot | Sequence[str | Bot] = "greedy",
        *,
        illegal: str = "raise",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.game = load_game(game, options)
        self.encoder = encoder_for(self.game)
        n = self.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be an integer 0..{n - 1} (got {seat!r})")
        if illegal not in ("raise", "lose"):
            raise ValueError(f"illegal must be 'raise' or 'lose' (got {illegal!r})")
        self.seat = seat
        self.illegal = illegal
        self.render_mode = check_render_mode(render_mode)
        given = (
            [opponents] * (n - 1)
            if isinstance(opponents, str) or not isinstance(opponents, Sequence)
            else list(opponents)
        )
        if len(given) != n - 1:
            raise ValueError(f"{n - 1} opponents are needed for {n} players (got {len(given)})")
        for bot in given:
            if not isinstance(bot, str) and not callable(getattr(bot, "act", None)):
                raise ValueError(f"an opponent is a bot's name or a bot with an act method (got {bot!r})")
        others = [s for s in range(n) if s != seat]
        self.bots: dict[int, Bot] = {
            s: make_bot(b, self.game.name) if isinstance(b, str) else b
            for s, b in zip(others, given, strict=True)
        }
        self.observation_space = vector_space(self.encoder)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions)
        self.tracker = self.encoder.tracker()
        self._state: State | None = None
        self._lost = False  # an illegal action ended the episode (illegal="lose")
        self._bot_rng = random.Random()
        self._histories: dict[int, list[JSON]] = {}
        self._mask: tuple[int, npt.NDArray[np.int8]] | None = None  # (history length, mask)

    @property
    def position(self) -> State:
        """The current game state (the true one: not for the agent)."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Array, dict[str, Any]]:
        """A new game: the engine's game of ``seed`` when given, else one drawn from the
        environment's generator; the bots' random choices come from the same generator."""
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int.from_bytes(self.np_random.bytes(SEED_BITS // 8))
        self._bot_rng = random.Random(int(self.np_random.integers(2**63)))
        self._state = self.game.new_initial_state(game_seed)
        self._lost = False
        self._mask = None
        self._histories = {s: [] for s in self.bots}
        self._play_bots()
        return self._observe(), self._info()

    def step(self, action: int | np.int64) -> tuple[Array, float, bool, bool, dict[str, Any]]:
        state = self.position
        if state.is_terminal() or self._lost:
            raise RuntimeError("the episode is over: call reset()")
        chosen = action_id(action)
        if self.illegal == "lose" and not (
            0 <= chosen < self.game.num_distinct_actions and state.is_legal(chosen)
        ):
            self._lost = True  # the episode ends here, as its answer says
            return self._observe(), ILLEGAL_REWARD, True, False, {**self._info(), "illegal": True}
        state.apply(chosen)
        self._play_bots()
        terminated = state.is_terminal()
        reward = float(state.returns()[self.seat]) if terminated else 0.0
        return self._observe(), reward, terminated, False, self._info()

    def _play_bots(self) -> None:
        """Let the bots move until it is the agent's turn or the game is over."""
        state = self.position
        while not state.is_terminal() and state.current_player != self.seat:
            s = state.current_player
            bot = self.bots[s]
            history = self._histories[s]
            if getattr(bot, "reads_observations", True):
                history.append(state.observation(s))
            action = bot.act(self.game, s, history, state.legal_actions(), self._bot_rng)
            state.apply(action)
            self.tracker.sync(state)  # one action at a time: the tracker's cheap path

    def _observe(self) -> Array:
        return self.tracker.vector(self.position, self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().copy()}  # the caller keeps it: its own copy

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal actions now (all zeros once the game is over); built once per position."""
        state = self.position
        if self._lost:  # an illegal action ended the episode: nothing is legal any more
            return np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if self._mask is None or self._mask[0] != len(state.history):
            self._mask = (len(state.history), self.encoder.mask(state))
        return self._mask[1]

    def render(self) -> str | None:
        """The position in text, as a spectator sees it (``human`` mode prints it instead)."""
        return self.encoder.show(self.position, self.render_mode)


def gym_env(
    game: str,
    seat: int = 0,
    opponents: str | Bot | Sequence[str | Bot] = "greedy",
    **options: Any,
) -> MasquesGymEnv:
    """Seat ``seat`` of ``game`` against bots: a kind (``"random"``, ``"greedy"``, a level) or a Bot for
    every other seat, or a list of them; keyword arguments are the game's options (and ``illegal``,
    ``render_mode``)."""
    return MasquesGymEnv(game, seat, opponents, **options)


def register_all() -> None:
    """Register every game with Gymnasium as ``masques/<game>-v0`` (done on import of masques.rl), so
    ``gymnasium.make("masques/masker-v0", opponents="random", players=3)`` works."""
    from ..engine import game_names

    for name in game_names():
        env_id = f"masques/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="masques.rl.gym:MasquesGymEnv", kwargs={"game": name})
