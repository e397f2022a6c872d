"""What a bot believes about hidden information, from its seat's observations only.

The engine's samplers draw uniformly among the hidden states consistent with an observation (the
honest baseline).  Bots can do better by weighing those states by how likely the others' public
choices make them.  Masker is where this matters most: a player rarely captures crosses of their
own colour, so every capture is evidence about the capturer's secret token.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine import JSON, Game, State
from ..games.masker.game import COLOURS, MaskerGame, MaskerState, consistent_tokens

OWN_CAPTURE_LIKELIHOOD = 0.3
"""How much less likely a capture of one's own colour is than another capture (Masker)."""


def masker_weights(game: MaskerGame, obs: JSON, assignments: list[tuple[int, ...]]) -> list[float]:
    """Weight each token assignment by the captures it would make self-inflicted."""
    piles = obs["piles"]
    weights = []
    for tokens in assignments:
        weight = 1.0
        for seat, pile in enumerate(piles):
            colour = COLOURS[tokens[game.team_of(seat)]]
            weight *= OWN_CAPTURE_LIKELIHOOD ** sum(1 for c in pile if c == colour)
        weights.append(weight)
    return weights


def sample(game: Game, seat: int, observations: Sequence[JSON], rng: random.Random) -> State:
    """A full state for the bot to search, drawn from its beliefs."""
    if isinstance(game, MaskerGame) and observations:
        obs = observations[-1]
        assignments = consistent_tokens(game, obs)
        if len(assignments) > 1:
            weights = masker_weights(game, obs, assignments)
            tokens = rng.choices(assignments, weights=weights)[0]
            return MaskerState.from_observation(game, obs, list(tokens), seed=rng.randrange(2**31))
    return game.sample_state(seat, observations, rng)
