"""The optional per-turn clock: when a human's time runs out, a bot moves for them."""

from __future__ import annotations

import time
from typing import Any

import httpx
from masques_server_support import TIMEOUT, create_match, join, seat_conns  # type: ignore[import-not-found]


def test_a_human_who_lets_the_clock_run_out_gets_a_move_played_for_them(
    server: Any, api: httpx.Client
) -> None:
    response = api.post(
        "/api/matches",
        json={
            "game": "masker",
            "options": {"players": 2},
            "seats": [{"kind": "human"}, {"kind": "human"}],
            "seed": 4,
            "turn_seconds": 1,
        },
    )
    assert response.status_code == 201, response.text
    match = response.json()
    assert match["turn_seconds"] == 1
    tokens = {s: join(api, match["id"], f"p{s}", s)["token"] for s in (0, 1)}
    conns = seat_conns(server.ws_url, match["id"], tokens)
    start = max(c.state["version"] for c in conns if c.state)
    mover = next(c for c in conns if c.state and c.state["your_turn"])
    assert mover.state["match"]["turn_deadline"] is not None
    started = time.monotonic()
    mover.wait_version(start + 1)  # nobody sends anything: the clock moves for the player
    assert time.monotonic() - started < TIMEOUT
    assert mover.state["version"] >= start + 1
    for conn in conns:
        conn.close()


def test_without_a_clock_there_is_no_deadline_and_bad_clocks_are_refused(api: httpx.Client) -> None:
    plain = create_match(api, "masker", {"players": 2}, ["human", "random"], seed=1)
    assert plain["turn_seconds"] == 0 and plain["turn_deadline"] is None
    for bad in (-1, 3601, "5", 1.5, True):
        response = api.post("/api/matches", json={"game": "masker", "options": {}, "turn_seconds": bad})
        assert response.status_code == 400, (bad, response.text)
