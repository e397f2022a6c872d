"""Bot beliefs: weighted determinizations stay consistent and learn from captures (Masker)."""

from __future__ import annotations

import json
import random
from collections import Counter

from masques.ai import beliefs
from masques.engine import load_game
from masques.games.masker.game import COLOURS, consistent_tokens


def test_masker_beliefs_doubt_a_colour_its_opponent_keeps_capturing() -> None:
    game = load_game("masker", {"players": 2})
    state = game.new_initial_state(3)
    rng = random.Random(3)
    while len(state.history) < 16:
        state.apply(state.random_legal_action(rng))
    obs = state.observation(0)
    captured = Counter(obs["piles"][1])
    favourite = max((c for c in COLOURS if c in captured), key=lambda c: captured[c])
    uniform = Counter()
    weighted = Counter()
    draws = random.Random(1)
    for _ in range(3000):
        weighted[COLOURS[beliefs.sample(game, 0, [obs], draws).tokens[1]]] += 1
        uniform[COLOURS[game.sample_state(0, [obs], draws).tokens[1]]] += 1
    assert weighted[favourite] < uniform[favourite]
    allowed = {COLOURS[t[1]] for t in consistent_tokens(game, obs)}
    assert set(weighted) <= allowed


def test_belief_samples_give_the_seat_the_same_observation() -> None:
    for name, options in [("masker", {"players": 3}), ("mascarade", {}), ("maske", {"masks": 2})]:
        game = load_game(name, options)
        state = game.new_initial_state(2)
        rng = random.Random(2)
        for _ in range(12):
            state.apply(state.random_legal_action(rng))
        seat = state.current_player
        obs = state.observation(seat)
        for k in range(20):
            other = beliefs.sample(game, seat, [obs], random.Random(k))
            assert json.dumps(other.observation(seat), sort_keys=True) == json.dumps(obs, sort_keys=True)
