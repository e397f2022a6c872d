"""Game records: JSON round-trip, exact replay, clear errors on bad records, redacted records."""

from __future__ import annotations

import json
import random

import pytest

from masques.engine import GameRecord, RecordError, load_game, redacted_record


def finished_record(seed: int = 3) -> tuple[GameRecord, list[str]]:
    game = load_game("blokus3d", {"players": 2, "structure": "A"})
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(state.random_legal_action(rng))
    return GameRecord.of(state), [json.dumps(state.serialize(), sort_keys=True)]


def test_record_has_the_contract_fields() -> None:
    record, _ = finished_record()
    data = json.loads(record.dumps())
    assert {"game", "rules_version", "options", "seed", "actions"} <= set(data)
    assert data["game"] == "blokus3d"
    assert all(isinstance(a, int) for a in data["actions"])


def test_replay_reproduces_the_final_state_exactly() -> None:
    record, (final,) = finished_record()
    replayed = GameRecord.loads(record.dumps()).replay()
    assert json.dumps(replayed.serialize(), sort_keys=True) == final
    assert replayed.is_terminal()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not valid JSON"),
        ("[]", "JSON object"),
        ('{"game": "blokus3d"}', "lacks"),
        (
            '{"game": "chess", "rules_version": "1", "options": {}, "seed": 0, "actions": []}',
            "unknown game",
        ),
        (
            '{"game": "blokus3d", "rules_version": "99", "options": {}, "seed": 0, "actions": []}',
            "rules version",
        ),
        (
            '{"game": "blokus3d", "rules_version": "1", "options": {"players": 7}, "seed": 0, "actions": []}',
            "options are invalid",
        ),
        (
            '{"game": "blokus3d", "rules_version": "1", "options": {}, "seed": "x", "actions": []}',
            "seed",
        ),
        (
            '{"game": "blokus3d", "rules_version": "1", "options": {}, "seed": 0, "actions": ["a"]}',
            "integer action ids",
        ),
        (
            '{"game": "blokus3d", "rules_version": "1", "options": {}, "seed": 0, "actions": [0]}',
            "does not replay",
        ),
    ],
)
def test_bad_records_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        GameRecord.loads(text).replay()


def test_oversize_record_is_refused() -> None:
    with pytest.raises(RecordError, match="larger than"):
        GameRecord.loads(" " * 6_000_000)


def test_redacted_record_holds_only_the_viewers_observations() -> None:
    record, _ = finished_record()
    for seat in (0, 1, None):
        redacted = redacted_record(record, seat)
        assert redacted["seat"] == seat
        assert len(redacted["observations"]) == len(record.actions) + 1
        assert all(obs["seat"] == seat for obs in redacted["observations"])
        assert "actions" not in redacted
