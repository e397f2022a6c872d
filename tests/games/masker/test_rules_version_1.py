"""Records made under Masker rules version 1 (before MK-14a) still replay exactly: the game they
were played by ended when an isolated runner stood on the last stack holding crosses, and so does
their replay; the build's own rules (version 2) play on there."""

from __future__ import annotations

import random

import pytest

from masques.engine import GameRecord, RecordError, game_class, load_game
from masques.games.masker.game import MaskerGame


def an_early_end() -> tuple[int, list[int]]:
    """A 3D game whose actions end it under version 1 while version 2 goes on (MK-14a)."""
    for seed in range(400):
        old = MaskerGame.for_rules_version("1", {"players": 2, "variant": "3d"})
        new = load_game("masker", {"players": 2, "variant": "3d"})
        a, b = old.new_initial_state(seed), new.new_initial_state(seed)
        rng = random.Random(seed)
        while not a.is_terminal():
            action = rng.choice(a.legal_actions())
            a.apply(action)
            b.apply(action)
        if not b.is_terminal():
            return seed, list(a.history)
    raise AssertionError("no game of 400 reached MK-14a's position")


def test_mk_14a_a_version_1_record_replays_to_its_early_end() -> None:
    seed, actions = an_early_end()
    options = {"players": 2, "variant": "3d"}
    record = GameRecord("masker", "1", options, seed, actions)
    final = record.replay()
    assert final.is_terminal()
    assert final.game.rules_in_force == "1"
    assert GameRecord.of(final).rules_version == "1"
    now = GameRecord("masker", "2", options, seed, actions).replay()
    assert not now.is_terminal()
    runner = now.runner  # type: ignore[attr-defined]
    assert now.legal_actions() == [runner]  # MK-14a: the cross beneath the runner


def test_an_unknown_rules_version_is_refused_with_the_versions_this_build_plays() -> None:
    with pytest.raises(RecordError, match="plays version 2 and replays 1"):
        GameRecord("masker", "0", {}, 1, []).replay()
    with pytest.raises(RecordError, match="rules version 9"):
        game_class("maske").for_rules_version("9")
