"""Reinforcement-learning environments for every game (extra ``masques[rl]``).

* :func:`aec_env` — PettingZoo AEC, one agent per seat (``masker_v0``, ``maske_v0``, ...);
* :func:`gym_env` — Gymnasium, one seat against Masques bots (also ``masques/<game>-v0``).

Observations encode a seat's own observation dict only, so what a seat may not see never reaches a
policy.  The encoder is the game's ``"rl"`` part (``Game.parts["rl"]``, found through
``masques.engine.game_part``: an :class:`~masques.rl.encoding.Encoder` factory in the game's package,
with its tracker, which computes the same vectors straight from the state action by action); a game
without one gets the generic encoder of its observations' numeric fields (:mod:`masques.rl.default`).
Every environment steps the engine: no rule is written here.  This layer uses the engine, the games
and the bots; nothing else in masques imports it.
"""

from .aec import MasquesAECEnv, aec_env
from .gym import MasquesGymEnv, gym_env, register_all

register_all()

__all__ = ["MasquesAECEnv", "MasquesGymEnv", "aec_env", "gym_env", "register_all"]
