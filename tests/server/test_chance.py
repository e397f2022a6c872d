"""The server's chance: each match's secret is drawn with 256 bits, the game's seed derives from it,
nothing a seat or a spectator receives before the end contains either, and the full record, once the
match is over, replays the game exactly."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import masques_server_support as support
from sqlalchemy import create_engine, text

from masques.engine import GameRecord
from masques.engine.chance import CHANCE_VERSION, derive_seed


def _stored(url: str, match_id: str) -> tuple[str, str, int]:
    """(secret, game seed, chance) as stored, read with plain SQL."""
    engine = create_engine(url)
    with engine.connect() as connection:
        row = connection.execute(
            text("SELECT secret, game_seed, chance FROM matches WHERE id = :m"), {"m": match_id}
        ).one()
    engine.dispose()
    return str(row[0]), str(row[1]), int(row[2])


def test_each_match_gets_a_fresh_256_bit_secret(server: Any, api: httpx.Client) -> None:
    secrets_seen = []
    for _ in range(8):
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        secret, game_seed, chance = _stored(server.database_url, match_id)
        assert len(secret) == 64 and chance == CHANCE_VERSION
        assert int(game_seed) == derive_seed(int(secret, 16), "game")
        secrets_seen.append(int(secret, 16))
    assert len(set(secrets_seen)) == 8
    assert max(s.bit_length() for s in secrets_seen) > 248  # 256 random bits (each under 2**-7 short)


def test_no_message_before_the_end_holds_the_seed(server: Any, api: httpx.Client) -> None:
    seats = ["human", "human", "random"]
    match_id = support.create_match(api, "mascarade", {"players": 3}, seats)["id"]
    tokens = {s: support.join(api, match_id, f"p{s}", s)["token"] for s in (0, 1)}
    secret, game_seed, _ = _stored(server.database_url, match_id)
    conns = [*support.seat_conns(server.ws_url, match_id, tokens), support.Conn(server.ws_url, match_id)]
    conns[-1].first_state()
    support.play_to_end(conns, random.Random(4), stop_after=6)
    received = [json.dumps(m) for c in conns for m in c.messages] + [
        api.get(f"/api/matches/{match_id}/record", params={"token": tokens[0]}).text,
        api.get(f"/api/matches/{match_id}/record").text,
        api.get(f"/api/matches/{match_id}/replay", params={"token": tokens[1]}).text,
        api.get("/api/matches").text,
        api.get(f"/api/matches/{match_id}").text,
    ]
    secret_decimal = str(int(secret, 16))
    for text_ in received:
        assert game_seed not in text_ and secret not in text_ and secret_decimal not in text_
        assert '"seed"' not in text_
    support.play_to_end(conns, random.Random(5))
    # after the end too: Mascarade's pool stays hidden, so the site gives no full record of it
    refused = api.get(f"/api/matches/{match_id}/record", params={"full": "true"})
    assert refused.status_code == 403 and refused.json()["code"] == "hidden_for_good"
    assert game_seed not in refused.text
    full = support.full_record(server.database_url, match_id)  # the operator's copy
    record = GameRecord.from_json(full)
    assert record.seed == int(game_seed) and record.chance == CHANCE_VERSION
    assert record.replay().is_terminal()
    assert full["actions"] == support.committed_actions(server.database_url, match_id)
    for conn in conns:
        conn.close()
