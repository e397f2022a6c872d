"""Game records: JSON round-trip, exact replay, clear errors on bad records, redacted records."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from masques.engine import GameRecord, RecordError, load_game, redacted_record
from masques.engine.chance import CHANCE_VERSION, LEGACY_CHANCE


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
        (  # a misspelt field would otherwise replay the game with the first chance version's deal
            '{"game": "blokus3d", "rules_version": "1", "options": {}, "seed": 0, "actions": [],'
            ' "chanse": 2}',
            "unknown field 'chanse'",
        ),
    ],
)
def test_bad_records_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        GameRecord.loads(text).replay()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"seed": ' + "9" * 5000 + "}", "not valid JSON"),
    ],
    ids=["deep", "long-integer"],
)
def test_json_that_python_will_not_decode_is_a_record_error(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        GameRecord.loads(text)


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


# -- the chance generator's version, large seeds, records made before version 2 ----------------

LEGACY = json.loads((Path(__file__).parent / "data" / "legacy_records.json").read_text("utf-8"))


@pytest.mark.parametrize("entry", LEGACY["records"], ids=lambda e: e["record"]["game"])
def test_records_made_before_version_2_replay_to_the_same_result(entry: dict[str, Any]) -> None:
    """A record without "chance" is version 1 and replays exactly as the code that wrote it played
    (a Mascarade game decided by lot and a Blokus 3D game with a drawn first colour among them)."""
    assert "chance" not in entry["record"]
    record = GameRecord.from_json(entry["record"])
    assert record.chance == LEGACY_CHANCE
    final = record.replay()
    assert final.is_terminal() and final.chance == LEGACY_CHANCE
    assert final.scores() == entry["scores"]
    assert final.returns() == entry["returns"]
    now = final.serialize()
    assert {key: now[key] for key in entry["final"]} == entry["final"]
    assert json.loads(record.dumps())["chance"] == LEGACY_CHANCE  # written out from now on


def test_legacy_fixtures_cover_the_lot_and_the_drawn_first_colour() -> None:
    by_game = {e["record"]["game"]: e for e in LEGACY["records"]}
    assert set(by_game) == {"masker", "maske", "mascarade", "blokus3d"}
    assert by_game["mascarade"]["final"]["tie_break"] is not None
    assert by_game["blokus3d"]["record"]["options"]["random_first"] is True


@pytest.mark.parametrize("seed", [0, 2**53 - 1, 2**53, 2**64 + 1, 2**256 - 1])
def test_seeds_round_trip_exactly_and_safely_for_javascript(seed: int) -> None:
    """Below 2**53 a seed is a JSON integer; from 2**53 on, its decimal string."""
    game = load_game("mascarade", {"players": 2})
    state = game.new_initial_state(seed)
    rng = random.Random(1)
    for _ in range(10):
        state.apply(state.random_legal_action(rng))
    record = GameRecord.of(state)
    data = json.loads(record.dumps())
    assert data["chance"] == CHANCE_VERSION
    assert data["seed"] == (seed if seed < 2**53 else str(seed))
    again = GameRecord.loads(record.dumps())
    assert again == record and again.seed == seed
    assert again.replay().serialize() == state.serialize()
    assert GameRecord.from_json({**data, "seed": str(seed)}).seed == seed  # either form is read


@pytest.mark.parametrize(
    ("seed", "chance", "message"),
    [
        (-1, 2, "seed"),
        (2**256, 2, "seed"),
        (str(2**256), 2, "seed"),
        ("-1", 2, "seed"),
        ("01", 2, "seed"),
        (" 1", 2, "seed"),
        ("1e3", 2, "seed"),
        (1.0, 2, "seed"),
        (True, 2, "seed"),
        (None, 2, "seed"),
        (1, 3, "chance"),
        (1, "2", "chance"),
        (1, True, "chance"),
        (1, 2.0, "chance"),
        (1, None, "chance"),
    ],
)
def test_bad_seeds_and_chance_versions_are_refused(seed: object, chance: object, message: str) -> None:
    record, _ = finished_record()
    data = {**record.to_json(), "seed": seed, "chance": chance}
    with pytest.raises(RecordError, match=message):
        GameRecord.from_json(data)


def test_a_record_keeps_its_chance_version() -> None:
    for chance in (LEGACY_CHANCE, CHANCE_VERSION):
        state = load_game("masker").new_initial_state(5, chance=chance)
        record = GameRecord.loads(GameRecord.of(state).dumps())
        assert record.chance == chance
        assert record.replay().serialize() == state.serialize()


def test_a_record_of_another_rules_version_says_so() -> None:
    game = load_game("masker", {"players": 2})
    record = GameRecord.of(game.new_initial_state(4)).to_json()
    record["rules_version"] = "99"
    with pytest.raises(RecordError) as refused:
        GameRecord.from_json(record).replay()
    assert "rules version 99" in str(refused.value) and "options are invalid" not in str(refused.value)
