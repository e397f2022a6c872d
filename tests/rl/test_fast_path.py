"""The fast path against the reference: each game's tracker gives, for every seat, exactly the vector
the encoder makes from that seat's observation dict, whether it follows a game action by action or
meets a position afresh; and each game's mask marks exactly the legal actions.  Every configuration
the games declare, on random games."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masques.engine import State, game_class, game_names, load_game
from masques.games.maske.game import DRAW
from masques.rl import aec_env
from masques.rl.encoders import encoder_for
from masques.rl.encoding import Encoder, Tracker

CONFIGS = [
    pytest.param(name, cfg, id=f"{name}-{i}")
    for name in game_names()
    for i, cfg in enumerate(game_class(name).conformance_configurations())
]


def check(encoder: Encoder[Any], tracker: Tracker[Any], state: State, seat: int) -> None:
    expected = encoder.encode(state.observation(seat))
    got = tracker.vector(state, seat)
    assert got.dtype == np.float32 and got.shape == expected.shape
    if not np.array_equal(got, expected):
        wrong = np.flatnonzero(got != expected)
        blocks = {b.name for i in wrong for b in encoder.layout.blocks if b.start <= i < b.stop}
        pytest.fail(f"seat {seat} after {len(state.history)} actions: blocks {sorted(blocks)} differ")


def play(name: str, options: dict[str, object], seed: int, every: int) -> None:
    """One random game: a tracker that sees every position (for every seat), one that sees only some
    of them (for one seat), and the mask, checked at each position."""
    game = load_game(name, options)
    encoder = encoder_for(game)
    follower, skipper = encoder.tracker(), encoder.tracker()
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    while True:
        for seat in range(game.num_players):
            check(encoder, follower, state, seat)
        if rng.randrange(every) == 0:
            check(encoder, skipper, state, rng.randrange(game.num_players))
        legal = state.legal_actions()
        assert np.flatnonzero(encoder.mask(state)).tolist() == legal
        if state.is_terminal():
            return
        state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_the_tracker_gives_the_reference_vector_and_the_mask_the_legal_actions(
    name: str, options: dict[str, object]
) -> None:
    for seed in range(2):
        play(name, options, seed, every=3)


@settings(max_examples=12)
@given(name=st.sampled_from(game_names()), seed=st.integers(0, 2**31 - 1), every=st.integers(1, 6))
def test_the_tracker_on_any_game(name: str, seed: int, every: int) -> None:
    play(name, {}, seed, every)


@pytest.mark.parametrize("name", ["masker", "mascarade", "maske"])
def test_the_tracker_on_sampled_states(name: str) -> None:
    """States built by a game's sampler (from an observation, hidden parts drawn) are met afresh."""
    game = load_game(name)
    encoder = encoder_for(game)
    tracker = encoder.tracker()
    rng = random.Random(9)
    state = game.new_initial_state(9)
    while not state.is_terminal():
        seat = rng.randrange(game.num_players)
        sampled = game.sample_state(seat, [state.observation(seat)], rng)
        for s in range(game.num_players):
            check(encoder, tracker, sampled, s)
        for _ in range(5):
            if not state.is_terminal():
                state.apply(state.random_legal_action(rng))


def test_a_state_changed_behind_the_trackers_back_is_met_afresh_after_forget() -> None:
    game = load_game("masker", {"players": 3})
    encoder = encoder_for(game)
    tracker = encoder.tracker()
    state = game.new_initial_state(4)
    before = tracker.vector(state, 0)
    state.tokens = [c for c in range(5) if c not in state.tokens][:1] + state.tokens[1:]
    tracker.forget()
    after = tracker.vector(state, 0)
    assert not np.array_equal(before, after)
    assert np.array_equal(after, encoder.encode(state.observation(0)))


@pytest.mark.parametrize("name", game_names())
def test_observations_belong_to_the_caller(name: str) -> None:
    """The environment keeps no reference to what it hands out: writing into a returned vector or
    mask changes nothing it returns later."""
    env = aec_env(name)
    env.reset(seed=3)
    agent = env.agent_selection
    first = env.observe(agent)
    vector, mask = first["observation"].copy(), first["action_mask"].copy()
    first["observation"][:] = 0.5
    first["action_mask"][:] = 1
    again = env.observe(agent)
    assert np.array_equal(again["observation"], vector)
    assert np.array_equal(again["action_mask"], mask)


def test_masker_mk_14a_the_tracker_follows_the_runner_sinking_onto_the_cross_beneath_it() -> None:
    """MK-14a (3D): a free step due and no stack but the runner's holding a cross: the runner takes
    the cross beneath it, and the tracker meets the sinking runner (it writes the base afresh)."""
    game = load_game("masker", {"players": 2, "variant": "3d"})
    encoder = encoder_for(game)
    board = encoder.layout.block("board")
    for seed in range(1500):  # about 7 games in 1,500 reach such a position
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        tracker = encoder.tracker()
        while not state.is_terminal():
            tracker.vector(state, state.current_player)  # follow the game action by action
            legal = state.legal_actions()
            if state.runner in legal:  # type: ignore[attr-defined]
                break
            state.apply(legal[rng.randrange(len(legal))])
        else:
            continue
        runner = state.runner  # type: ignore[attr-defined]
        height = len(state.stacks[runner])  # type: ignore[attr-defined]
        for seat in range(2):
            check(encoder, tracker, state, seat)
        state.apply(runner)
        for seat in range(2):
            check(encoder, tracker, state, seat)
            cells = tracker.vector(state, seat)[board.start : board.stop].reshape(game.cells, 4, 7)  # type: ignore[attr-defined]
            assert cells[runner, height - 2, 6] == 1 and not cells[runner, height - 1].any()
        return
    pytest.fail("no MK-14a position in 1,500 random games")


def test_maske_tracker_follows_draws_unsold_cards_card_decisions_and_set_up_without_full_compare() -> None:
    """MS-11: a draw opens an auction, and a card nobody buys goes under the deck before the round's
    next action; MS-12: a card's decision within one of its primitives (a stick picked, placed or
    stepped) moves sticks only; MS-7: a stick put at set-up.  The tracker follows each by writing
    what it changes, without comparing every field afresh, and gives every seat the reference
    vector, whether it knew the card or not."""
    game = load_game("maske")
    encoder = encoder_for(game)
    tracker = encoder.tracker()
    full = 0  # how many times every field was compared
    compare = tracker._sync

    def counted(state: Any) -> None:
        nonlocal full
        full += 1
        compare(state)

    tracker._sync = counted  # type: ignore[method-assign]
    seen = {"draw": 0, "unsold": 0, "decision": 0, "setup": 0}
    for seed in range(40):  # a game has about 17 draws, and about 1 card in 3 is not sold
        rng = random.Random(seed)
        state: Any = game.new_initial_state(seed)
        while not state.is_terminal() and min(seen.values()) < 3:
            tracker.vector(state, state.current_player)
            before, legal, effect = state.phase, state.legal_actions(), state.effect
            action = legal[rng.randrange(len(legal))]
            unsold = before == "auction" and state.auction["high"] is None
            op = effect["op"] if effect is not None else None
            state.apply(action)
            made = full
            kind = None
            if action == DRAW and before == "action":
                kind = "draw"
            elif unsold and state.phase == "action":
                kind = "unsold"
            elif before == "effect" and state.effect is effect and effect is not None and effect["op"] == op:
                kind = "decision"
            elif before == "setup" and state.phase == "setup":
                kind = "setup"
            for seat in range(game.num_players):
                check(encoder, tracker, state, seat)
            if kind is not None:
                assert full == made, f"{kind} after {len(state.history)} actions: every field compared"
                seen[kind] += 1
        if min(seen.values()) >= 3:
            return
    pytest.fail(f"too few of some kind in 40 random games: {seen}")


@pytest.mark.parametrize("name", game_names())
def test_last_observes_the_seat_to_act_on_its_own_path(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``last`` builds the acting seat's observation itself, without ``observe`` (which it calls only
    once the game is over): the vector is ``encode(observation)``, the mask the legal actions, and the
    cumulative reward 0.0 on every live step, over a whole random game."""
    env = aec_env(name)
    env.reset(seed=11)
    observed: list[str] = []
    observe = env.observe
    monkeypatch.setattr(env, "observe", lambda agent: observed.append(agent) or observe(agent))
    rng = random.Random(11)
    for _ in range(2000):  # bounded: every game here ends well within it
        state = env.position
        obs, reward, terminated, truncated, _ = env.last()
        assert obs is not None
        if terminated or truncated:
            break
        seat = state.current_player
        assert np.array_equal(obs["observation"], env.encoder.encode(state.observation(seat)))
        assert np.flatnonzero(obs["action_mask"]).tolist() == state.legal_actions()
        assert reward == 0.0
        legal = state.legal_actions()
        env.step(legal[rng.randrange(len(legal))])
    else:
        pytest.fail("the game did not end")
    assert observed == [env.agent_selection]  # only the finished game's view went through observe
