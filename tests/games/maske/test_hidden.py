"""MS-17 hidden information: the deck, mask stack and drawn-card hook that the conformance kit's
mutation leak check uses, and proof that the check catches injected leaks the sampler-based check
lets through."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import cast

import pytest

from masques.engine import JSON, conformance
from masques.games.maske.game import LAY, MaskeGame, MaskeState

DECK, MASK_STACK, DRAWN = MaskeGame.hidden_information


def positions(g: MaskeGame, seed: int, every: int = 2) -> list[MaskeState]:
    states = conformance.random_playout(g, seed, random.Random(seed), check_each=False)
    return [cast(MaskeState, s.clone()) for k, s in enumerate(states) if k % every == 0]


def all_cards(state: MaskeState) -> list[int]:
    held = [state.auction["card"]] if state.auction else []
    held += [state.effect["card"]] if state.effect else []
    return sorted(state.deck + held)


def test_ms_17_declares_the_deck_owned_by_who_drew_an_unsold_card() -> None:
    assert [(p.field, p.visible_to, p.until) for p in MaskeGame.hidden_information] == [
        ("deck", "owner", "never"),
        ("mask_stack", "nobody", "never"),
        ("drawn_card", "owner", "sold"),
    ]


@pytest.mark.parametrize("options", [{"players": 3}, {"players": 5}, {"players": 3, "masks": 2}])
def test_ms_17_variations_keep_every_public_fact(options: dict[str, int]) -> None:
    """The spectator's view stays; the cards and who knows each place stay; a mask turned over for
    laying stays (MS-8); seen_by is exactly the seats that knew a card that moved."""
    g = MaskeGame(options)
    rng = random.Random(11)
    counts = dict.fromkeys(("deck", "mask_stack", "drawn_card"), 0)
    for seed in range(3):
        for state in positions(g, seed):
            public = state.observation(None)
            for part in (DECK, MASK_STACK, DRAWN):
                variation = g.vary_hidden(state, part, rng)
                if variation is None:
                    continue
                other = variation.state
                assert isinstance(other, MaskeState)
                assert other.observation(None) == public
                assert other.known == state.known and all_cards(other) == all_cards(state)
                assert len(other.stack) == len(state.stack)
                assert len(set(other.stack) | {m for m, _ in other.laid}) == len(other.stack) + len(
                    other.laid
                )
                if state.phase == LAY:
                    assert other.stack[0] == state.stack[0]
                moved = [i for i, (a, b) in enumerate(zip(other.deck, state.deck, strict=True)) if a != b]
                knew = 0
                for i in moved:
                    knew |= state.known[i]
                if part is DRAWN:
                    assert state.auction and other.auction and other.auction["card"] != state.auction["card"]
                    knew |= state.auction["knew"]
                assert variation.seen_by == {s for s in range(g.num_players) if knew >> s & 1}
                if part is MASK_STACK:
                    assert other.stack != state.stack and not moved
                counts[part.field] += 1
    assert min(counts.values()) > 0, counts


Leak = Callable[[MaskeState, JSON], None]


def _deck_in_the_open(state: MaskeState, obs: JSON) -> None:
    obs["deck"] = list(state.deck)


def _drawn_card_in_the_open(state: MaskeState, obs: JSON) -> None:
    if state.auction is not None:
        obs["auction"]["card"] = state.auction["card"]


def _next_mask_in_the_open(state: MaskeState, obs: JSON) -> None:
    obs["mask_to_lay"] = state.stack[0] if state.stack else None


@pytest.mark.parametrize(
    ("leak", "part", "key", "sampler_misses_it"),
    [
        (_deck_in_the_open, "deck", "deck", True),
        (_drawn_card_in_the_open, "(drawn_card|deck)", "auction", True),
        (_next_mask_in_the_open, "mask_stack", "mask_to_lay", False),
    ],
)
def test_ms_17_the_mutation_check_catches_injected_leaks(
    monkeypatch: pytest.MonkeyPatch, leak: Leak, part: str, key: str, sampler_misses_it: bool
) -> None:
    g = MaskeGame({"players": 4})
    conformance.check_hidden_information(g, 7, games=1)  # passes before the leak
    honest = MaskeState.observation

    def leaky(self: MaskeState, seat: int | None) -> JSON:
        obs = honest(self, seat)
        leak(self, obs)
        return obs

    monkeypatch.setattr(MaskeState, "observation", leaky)
    with pytest.raises(AssertionError, match=rf"hidden part '{part}'.*LEAK: .*may not see.*'{key}'"):
        conformance.check_hidden_information(g, 7)
    if sampler_misses_it:  # the sampler copies what the observation shows: the old check passes
        conformance.check_no_leaks(g, 7, samples=1)
