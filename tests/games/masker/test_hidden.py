"""MK-15 hidden information: the tokens hook that the conformance kit's mutation leak check uses, and
proof that the check catches a leak the sampler-based check lets through."""

from __future__ import annotations

import random
from typing import cast

import pytest

from masques.engine import JSON, conformance
from masques.games.masker.game import COLOURS, MaskerGame, MaskerState
from masques.games.masker.hidden import other_tokens

CONFIGS = [(p, v) for v in ("2d", "3d") for p in (2, 3, 4)]
(TOKENS,) = MaskerGame.hidden_information


def positions(g: MaskerGame, seed: int) -> list[MaskerState]:
    """Every position of one random game, as copies."""
    return [
        cast(MaskerState, s.clone())
        for s in conformance.random_playout(g, seed, random.Random(seed), check_each=False)
    ]


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_15_varied_tokens_stay_consistent_with_the_public_position(players: int, variant: str) -> None:
    """MK-3, MK-10: tokens stay distinct, an eliminated team keeps the colour it was seen to lose, a
    team still in play holds a colour still on the board; seen_by is the seats whose token changed."""
    g = MaskerGame({"players": players, "variant": variant})
    rng = random.Random(3)
    varied = 0
    for seed in range(4):
        for state in positions(g, seed):
            variation = g.vary_hidden(state, TOKENS, rng)
            if state.is_terminal():
                assert variation is None  # all tokens are revealed at the end
                continue
            assert variation is not None  # 5 colours, at most 4 teams: always another assignment
            assert isinstance(variation.state, MaskerState)
            tokens = variation.state.tokens
            assert tokens != state.tokens and len(set(tokens)) == g.num_teams
            assert tuple(tokens) in other_tokens(g, state)
            for seat, colour, _ in state.eliminations:
                assert tokens[g.team_of(seat)] == colour
            for seat in range(players):
                if not state.eliminated[seat]:
                    assert state.on_board[tokens[g.team_of(seat)]] > 0
            assert variation.seen_by == {
                s for s in range(players) if tokens[g.team_of(s)] != state.tokens[g.team_of(s)]
            }
            varied += 1
    assert varied > 20


def _leak_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    """The injected leak: every token shown before the end, as if the game were over."""
    honest = MaskerState.observation

    def leaky(self: MaskerState, seat: int | None) -> JSON:
        obs = honest(self, seat)
        obs["tokens"] = [COLOURS[t] for t in self.tokens]
        return obs

    monkeypatch.setattr(MaskerState, "observation", leaky)


def test_mk_15_the_mutation_check_catches_leaked_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    g = MaskerGame({"players": 3})
    conformance.check_hidden_information(g, 7, games=1)  # passes before the leak
    _leak_tokens(monkeypatch)
    with pytest.raises(AssertionError, match=r"hidden part 'tokens'.*LEAK: seat \d may not see.*'tokens'"):
        conformance.check_hidden_information(g, 7)


def test_mk_15_the_sampler_check_alone_misses_that_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the mutation check exists: the sampler reads revealed tokens from the observation and so
    draws states that show the same leaked tokens."""
    _leak_tokens(monkeypatch)
    conformance.check_no_leaks(MaskerGame({"players": 3}), 7)


def test_mk_15_a_leak_of_one_partner_colour_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A narrower leak: each seat also sees the next seat's colour (in four players, an opponent's)."""
    honest = MaskerState.observation

    def leaky(self: MaskerState, seat: int | None) -> JSON:
        obs = honest(self, seat)
        if seat is not None:
            obs["next_colour"] = COLOURS[self.team_colour((seat + 1) % self.game.num_players)]
        return obs

    monkeypatch.setattr(MaskerState, "observation", leaky)
    for players in (2, 3, 4):
        with pytest.raises(AssertionError, match=r"LEAK: seat \d may not see.*'next_colour'"):
            conformance.check_hidden_information(MaskerGame({"players": players}), 7)


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_mk_15_a_match_stopped_before_the_end_shows_every_token_and_nothing_more(
    players: int, variant: str
) -> None:
    """The tokens are revealed at the end: a resigned or timed-out match shows them too, and the rest
    of what each seat sees is unchanged."""
    g = MaskerGame({"players": players, "variant": variant})
    for state in positions(g, 5)[:-1]:
        for seat in [None, *range(players)]:
            stopped, seen = state.stopped_observation(seat), state.observation(seat)
            assert isinstance(stopped, dict) and isinstance(seen, dict)
            assert stopped["tokens"] == [COLOURS[t] for t in state.tokens]
            assert {k: v for k, v in stopped.items() if k != "tokens"} == {
                k: v for k, v in seen.items() if k != "tokens"
            }
