"""MC-3 hidden information: the hands and pool hook that the conformance kit's mutation leak check
uses, and proof that the check catches injected leaks."""

from __future__ import annotations

import random
from typing import cast

import pytest

from masques.engine import JSON, conformance
from masques.games.mascarade.game import MascaradeGame, MascaradeState, cards_of

HANDS, POOL = MascaradeGame.hidden_information


def positions(g: MascaradeGame, seed: int, every: int = 7) -> list[MascaradeState]:
    states = conformance.random_playout(g, seed, random.Random(seed), check_each=False)
    return [
        cast(MascaradeState, s.clone()) for k, s in enumerate(states) if k % every == 0 or s.is_terminal()
    ]


def cards_held(state: MascaradeState) -> list[int]:
    return sorted([c for h in state.hands for c in cards_of(h)] + state.pool)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mc_3_varied_hands_and_pool_keep_every_public_fact(players: int) -> None:
    """Hand sizes, the pool's size and the cards not yet placed stay; seen_by is whose hand changed."""
    g = MascaradeGame({"players": players})
    rng = random.Random(5)
    counts = {"hands": 0, "pool": 0}
    for seed in range(3):
        for state in positions(g, seed):
            public = state.observation(None)
            for part in (HANDS, POOL):
                variation = g.vary_hidden(state, part, rng)
                if variation is None:
                    assert state.is_terminal() or len(state.pool) < 2
                    continue
                other = variation.state
                assert isinstance(other, MascaradeState)
                assert other.observation(None) == public
                assert cards_held(other) == cards_held(state)
                changed = {s for s in range(players) if other.hands[s] != state.hands[s]}
                assert variation.seen_by == changed
                if part is POOL:
                    assert not changed and sorted(other.pool) == sorted(state.pool)
                    assert other.pool != state.pool
                else:
                    assert changed
                counts[part.field] += 1
    assert counts["hands"] > 10 and counts["pool"] > 10


def test_mc_3_the_mutation_check_catches_a_leaked_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """The injected leak: each seat also sees the hand of the seat after it."""
    g = MascaradeGame({"players": 3})
    conformance.check_hidden_information(g, 7, games=1)  # passes before the leak
    honest = MascaradeState.observation

    def leaky(self: MascaradeState, seat: int | None) -> JSON:
        obs = honest(self, seat)
        if seat is not None:
            obs["next_hand"] = cards_of(self.hands[(seat + 1) % self.game.num_players])
        return obs

    monkeypatch.setattr(MascaradeState, "observation", leaky)
    with pytest.raises(AssertionError, match=r"hidden part 'hands'.*LEAK: seat \d may not see.*'next_hand'"):
        conformance.check_hidden_information(g, 7)


def test_mc_3_the_mutation_check_catches_a_leaked_pool_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The injected leak: everyone sees the next card to be drawn (a swap of a hand's card with the
    pool's may be what shows it first)."""
    g = MascaradeGame({"players": 2})
    honest = MascaradeState.observation

    def leaky(self: MascaradeState, seat: int | None) -> JSON:
        obs = honest(self, seat)
        obs["next_draw"] = self.pool[-1] if self.pool else None
        return obs

    monkeypatch.setattr(MascaradeState, "observation", leaky)
    with pytest.raises(AssertionError, match=r"hidden part '(pool|hands)'.*LEAK: .*'next_draw'"):
        conformance.check_hidden_information(g, 7)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mc_3_a_match_stopped_before_the_end_shows_every_hand_and_nothing_more(players: int) -> None:
    """Hands are public at the end: a resigned or timed-out match shows them too, and the rest of
    what each seat sees is unchanged (the pool's order stays hidden)."""
    g = MascaradeGame({"players": players})
    for state in positions(g, 11)[:-1]:
        for seat in [None, *range(players)]:
            stopped, seen = state.stopped_observation(seat), state.observation(seat)
            assert isinstance(stopped, dict) and isinstance(seen, dict)
            assert stopped["hands"] == [cards_of(h) for h in state.hands]
            assert {k: v for k, v in stopped.items() if k != "hands"} == {
                k: v for k, v in seen.items() if k != "hands"
            }


def test_mc_3_the_mutation_check_catches_a_stopped_match_that_shows_the_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    g = MascaradeGame({"players": 2})
    honest = MascaradeState.stopped_observation

    def leaky(self: MascaradeState, seat: int | None) -> JSON:
        obs = honest(self, seat)
        obs["pool"] = list(self.pool)
        return obs

    monkeypatch.setattr(MascaradeState, "stopped_observation", leaky)
    with pytest.raises(AssertionError, match=r"hidden part 'pool'.*LEAK: .*once the match has stopped"):
        conformance.check_hidden_information(g, 7)
