"""Reinforcement-learning environments: PettingZoo AEC (every seat) and Gymnasium (one seat against
bots) for every game, with observations encoded from a seat's own view only (extra ``masques[rl]``)."""

from .aec import MasquesAECEnv, aec_env
from .gym import MasquesGymEnv, gym_env, register_all

register_all()

__all__ = ["MasquesAECEnv", "MasquesGymEnv", "aec_env", "gym_env", "register_all"]
