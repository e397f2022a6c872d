"""Masker's bot part: the race evaluation, beliefs that learn from captures, and level budgets."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...ai.parts import BotParts
from ...engine import JSON, Game, State
from .game import COLOURS, STEP, MaskerGame, MaskerState, consistent_tokens

RACE_WEIGHT = 6.0
"""Weight of the race share (between 0 and 1)."""

ROOM_WEIGHT = 0.1
"""Weight of the capacity left; small, so that a useful capture is always worth its room."""

OWN_CAPTURE_LIKELIHOOD = 0.3
"""How much less likely a capture of one's own colour is than another capture."""


def evaluate(state: State, seat: int) -> float:
    """Our colour's chances in the race against the rival colour closest to elimination, the
    exposure of our crosses to the next player's first step, and a little capacity left.

    If the remaining crosses of two colours were taken in random order, the rival's last cross would
    go first with probability ``mine / (mine + rival)`` (the last of the two colours to be emptied
    is ours).  That share is what the evaluation counts: it is convex in the rival's count, so
    taking the crosses of a colour that is almost gone is worth more than thinning every colour a
    little, which is how a colour gets eliminated before the capacity (MK-9) runs out.  Exposure: if
    the turn has passed to a rival, the share of the crosses its first step can take that are ours
    is the chance of losing one (MK-5, MK-7, MK-8); ``benchmarks/masker_greedy.py`` measures both."""
    assert isinstance(state, MaskerState)
    if state.eliminated[seat]:
        return -100.0
    game = state.game
    mine = state.on_board[state.team_colour(seat)]
    rivals = [
        state.on_board[state.team_colour(s)]
        for s in range(game.num_players)
        if game.team_of(s) != game.team_of(seat) and not state.eliminated[s]
    ]
    rival = min(rivals) if rivals else 0
    share = _race_share(mine, rival)
    room = (game.capacity - state.held(seat)) / game.capacity
    value = RACE_WEIGHT * share + ROOM_WEIGHT * room
    exposure = _exposure(state, seat)
    if exposure:
        value -= RACE_WEIGHT * exposure * (share - _race_share(mine - 1, rival))
    return value


def _race_share(mine: int, rival: int) -> float:
    """The chance that the rival's colour empties first if both are taken in random order."""
    return mine / (mine + rival) if mine + rival else 0.0


def _exposure(state: MaskerState, seat: int) -> float:
    """The share of our colour among the crosses a rival's coming first step can take (0 on our turn
    or a teammate's)."""
    player = state.current_player
    if state.over or state.phase != STEP or state.game.team_of(player) == state.game.team_of(seat):
        return 0.0
    targets = state.step_targets()
    if not targets:
        return 0.0
    mine = state.team_colour(seat)
    # the cross a step takes: the top, or under MK-14a the one beneath the runner
    taken = [state.stacks[cell][-2 if cell == state.runner else -1] for cell in targets]
    return sum(1 for code in taken if code == mine) / len(taken)


def capture_weights(game: MaskerGame, obs: JSON, assignments: list[tuple[int, ...]]) -> list[float]:
    """Weight each token assignment by the captures it would make self-inflicted: a player rarely
    captures crosses of their own colour, so every capture is evidence about the capturer's token."""
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
    """A full state drawn from the bot's beliefs: token assignments weighed by the captures."""
    assert isinstance(game, MaskerGame)
    obs = observations[-1]
    assignments = consistent_tokens(game, obs)
    if len(assignments) > 1:
        tokens = rng.choices(assignments, weights=capture_weights(game, obs, assignments))[0]
        return MaskerState.from_observation(game, obs, list(tokens), seed=rng.randrange(2**31))
    return game.sample_state(seat, observations, rng)


BOT = BotParts(
    evaluate=evaluate,
    levels={"easy": (120, 0), "medium": (450, 0), "hard": (1500, 0), "expert": (7500, 0)},
    sample=sample,
    openspiel_simulations=160,
)
"""Masker's bot tuning (levels: docs/ratings/)."""
