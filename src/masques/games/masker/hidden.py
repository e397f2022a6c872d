"""MK-15 hidden information for the conformance kit's mutation leak check: the colour tokens."""

from __future__ import annotations

import random
from itertools import permutations
from typing import TYPE_CHECKING

from ...engine.core import HiddenField, HiddenVariation

if TYPE_CHECKING:
    from .game import MaskerGame, MaskerState


def other_tokens(game: MaskerGame, state: MaskerState) -> list[tuple[int, ...]]:
    """Every other token assignment the public position allows: an eliminated team's colour is known
    (MK-10), a team still in play has a colour still on the board, tokens are distinct (MK-3)."""
    from .game import NUM_COLOURS

    fixed = {game.team_of(seat): colour for seat, colour, _ in state.eliminations}
    current = tuple(state.tokens)
    return [
        combo
        for combo in permutations(range(NUM_COLOURS), game.num_teams)
        if combo != current
        and all(
            colour == fixed[team] if team in fixed else state.on_board[colour] > 0
            for team, colour in enumerate(combo)
        )
    ]


def vary_hidden(
    game: MaskerGame, state: MaskerState, part: HiddenField, rng: random.Random
) -> HiddenVariation | None:
    """Other colour tokens (a permutation among teams, or an unused colour), seen by the seats of
    the teams whose token changed; none once the game is over and all are revealed."""
    if part.field != "tokens":
        raise ValueError(f"masker hides no part {part.field!r}")
    if state.over:
        return None
    choices = other_tokens(game, state)
    if not choices:
        return None
    tokens = choices[rng.randrange(len(choices))]
    other = state.clone()
    other.tokens = list(tokens)
    changed = {team for team, (a, b) in enumerate(zip(tokens, state.tokens, strict=True)) if a != b}
    seers = frozenset(s for s in range(game.num_players) if game.team_of(s) in changed)
    return HiddenVariation(other, seers)
