"""Reinforcement-learning environments for every game (extra ``masques[rl]``).

* :func:`aec_env` — PettingZoo AEC, one agent per seat (``masker_v0``, ``maske_v0``,
  ``mascarade_v0``, ``blokus3d_v0``);
* :func:`gym_env` — Gymnasium, one seat against Masques bots (also ``masques/<game>-v0``).

Observations encode a seat's own observation dict only (``encoders``), so what a seat may not see
never reaches a policy; environments compute the same vectors straight from the state, reading only
the fields that dict shows the seat (each encoder's tracker: tests check both agree).  The Masker
and Maske AEC environments run on compiled twins of the rules (``compiled``, numba) that write the
same vectors and masks; parity tests hold them to the engine and the encoders.  This layer uses the
engine, the games and the bots; nothing else in masques imports it.
"""

from .aec import MasquesAECEnv, aec_env
from .gym import MasquesGymEnv, gym_env, register_all

register_all()

__all__ = ["MasquesAECEnv", "MasquesGymEnv", "aec_env", "gym_env", "register_all"]
