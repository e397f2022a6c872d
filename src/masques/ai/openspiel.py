"""OpenSpiel adapter (optional extra ``masques[openspiel]``): every masques game as a pyspiel game.

``register_all()`` registers ``masques_<game>`` for each game, with the game's options (and
``seed``) as OpenSpiel parameters, so OpenSpiel's algorithms can play our games:
``pyspiel.load_game("masques_masker", {"players": 3})``.  Information states are the seat's
observation as JSON (our observations carry the public history, so they have perfect recall), and
ISMCTS resamples hidden information with our own samplers.

:class:`OpenSpielBot` wraps OpenSpiel's MCTSBot (perfect information, Blokus 3D) or ISMCTSBot
(the others) as a masques bot for the arena.  Like our bots it sees only its seat's observations:
it rebuilds a state from them with the game's sampler and searches from there.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ..engine import JSON, TERMINAL, Game, State, game_class, game_names, load_game

PREFIX = "masques_"


def _parameters(name: str) -> dict[str, Any]:
    specs: dict[str, Any] = {"seed": 0}
    for spec in game_class(name).option_specs:
        if spec.kind == "json":
            specs[spec.name] = ""  # JSON text; empty = none
        else:
            specs[spec.name] = spec.default
    return specs


def _options(name: str, params: dict[str, Any]) -> dict[str, JSON]:
    options: dict[str, JSON] = {}
    for spec in game_class(name).option_specs:
        if spec.name not in params:
            continue
        value = params[spec.name]
        options[spec.name] = (json.loads(value) if value else None) if spec.kind == "json" else value
    return options


class _Observer:
    """Observation string / a small tensor (the legal-action mask) of one seat."""

    def __init__(self, game: MasquesSpielGame) -> None:
        self.tensor = np.zeros(game.num_distinct_actions(), np.float32)
        self.dict = {"legal": self.tensor}

    def set_from(self, state: MasquesSpielState, player: int) -> None:
        self.tensor.fill(0)
        if state.inner.current_player == player:
            self.tensor[state.inner.legal_actions()] = 1

    def string_from(self, state: MasquesSpielState, player: int) -> str:
        return json.dumps(state.inner.observation(player), sort_keys=True, separators=(",", ":"))


class MasquesSpielGame(pyspiel.Game):  # type: ignore[misc]
    """A masques game seen through pyspiel's Python game interface."""

    def __init__(self, name: str, game_type: Any, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.masques = load_game(name, _options(name, params))
        self.seed = int(params.get("seed", 0))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.masques.num_distinct_actions,
            max_chance_outcomes=0,
            num_players=self.masques.num_players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=self.masques.max_game_length,
        )
        super().__init__(game_type, info, params)

    def new_initial_state(self) -> MasquesSpielState:
        return MasquesSpielState(self, self.masques.new_initial_state(self.seed))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(self)


class MasquesSpielState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: MasquesSpielGame, inner: State) -> None:
        super().__init__(game)
        self.inner = inner

    def current_player(self) -> int:
        player = self.inner.current_player
        return int(pyspiel.PlayerId.TERMINAL) if player == TERMINAL else player

    def _legal_actions(self, player: int) -> list[int]:
        return self.inner.legal_actions() if player == self.inner.current_player else []

    def _apply_action(self, action: int) -> None:
        self.inner.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.inner.action_to_str(int(action))

    def is_terminal(self) -> bool:
        return self.inner.is_terminal()

    def returns(self) -> list[float]:
        return self.inner.returns()

    def __str__(self) -> str:
        return json.dumps(self.inner.observation(None), sort_keys=True)

    def __deepcopy__(self, memo: dict[int, Any]) -> MasquesSpielState:
        return MasquesSpielState(self.get_game(), self.inner.clone())

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MasquesSpielState:
        game = self.get_game()
        rng = random.Random(int(probability_sampler() * 2**31) if callable(probability_sampler) else 0)
        sampled = game.masques.sample_state(player_id, [self.inner.observation(player_id)], rng)
        return MasquesSpielState(game, sampled)


_REGISTERED: set[str] = set()
_FACTORIES: dict[str, type] = {}


def register_all() -> list[str]:
    """Register every masques game with pyspiel (idempotent); returns the pyspiel names."""
    for name in game_names():
        short = PREFIX + name
        if short in _REGISTERED:
            continue
        hidden = bool(game_class(name).hidden_information)
        game_type = pyspiel.GameType(
            short_name=short,
            long_name=f"Masques {game_class(name).title}",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION
            if hidden
            else pyspiel.GameType.Information.PERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.CONSTANT_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=6,
            min_num_players=2,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=_parameters(name),
        )

        # pyspiel keeps the factory for the life of the process; a class (as OpenSpiel's own Python
        # games register) is safe at interpreter exit, where a closure is not.
        def init(
            self: MasquesSpielGame, params: Any = None, _name: str = name, _type: Any = game_type
        ) -> None:
            MasquesSpielGame.__init__(self, _name, _type, params)

        factory = type(f"MasquesSpiel_{name}", (MasquesSpielGame,), {"__init__": init})
        _FACTORIES[short] = factory
        pyspiel.register_game(game_type, factory)
        _REGISTERED.add(short)
    return sorted(_REGISTERED)


class OpenSpielBot:
    """OpenSpiel's MCTSBot (perfect information) or ISMCTSBot as a masques bot.

    ``simulations`` is OpenSpiel's own budget; the arena sets it so a move takes about as long as
    our ``hard`` bot's.  The bot rebuilds a state from its seat's last observation with the game's
    sampler, so it never sees the true state.
    """

    def __init__(self, simulations: int, name: str = "openspiel") -> None:
        self.simulations = simulations
        self.name = name

    def act(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
    ) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        register_all()
        spiel_game = pyspiel.load_game(PREFIX + game.name, _spiel_params(game))
        assert isinstance(spiel_game, MasquesSpielGame)
        inner = game.sample_state(seat, observations, random.Random(rng.randrange(2**31)))
        state = MasquesSpielState(spiel_game, inner)
        random_state = np.random.RandomState(rng.randrange(2**31))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
        if game.hidden_information:
            bot: Any = ismcts.ISMCTSBot(
                spiel_game, evaluator, uct_c=1.5, max_simulations=self.simulations, random_state=random_state
            )

            def resample(s: MasquesSpielState, player: int) -> MasquesSpielState:
                sampled = game.sample_state(
                    player, [s.inner.observation(player)], random.Random(rng.randrange(2**31))
                )
                return MasquesSpielState(spiel_game, sampled)

            bot.set_resampler(resample)
        else:
            bot = mcts.MCTSBot(
                spiel_game,
                uct_c=1.5,
                max_simulations=self.simulations,
                evaluator=evaluator,
                random_state=random_state,
                solve=False,
            )
        action = int(bot.step(state))
        return action if action in legal_actions else legal_actions[rng.randrange(len(legal_actions))]


def _spiel_params(game: Game) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for spec in type(game).option_specs:
        value = game.options[spec.name]
        if spec.kind == "json":
            params[spec.name] = json.dumps(value) if value is not None else ""
        else:
            params[spec.name] = value
    return params
