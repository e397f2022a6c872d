"""The replay endpoint: every step of a match as one seat (or a spectator) saw it.

A replay is built from each step's observation only, with the same rules as the live view, so it
must never show a seat more than it saw while playing: the checks below compare every step of every
seat's and the spectator's replay with the engine's observation of the true state at that step,
and run the games' hidden-field checks (secret colours, hands, the drawn card) on each.
"""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import masques_server_support as support
import pytest

CONFIGS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("masker", {"players": 3}, ["human", "random", "human"]),
    ("mascarade", {"players": 2}, ["human", "random"]),
    ("maske", {"players": 3, "masks": 1}, ["human", "random", "human"]),
]


def _play(
    server: Any, api: httpx.Client, game: str, options: dict[str, Any], seats: list[str], *, seed: int
) -> tuple[str, dict[int, str], support.Replay]:
    """Humans (random legal moves over WebSocket) and bots play a match to the end."""
    match_id = support.create_match(api, game, options, seats, seed=seed)["id"]
    tokens = {
        seat: support.join(api, match_id, f"player {seat}", seat)["token"]
        for seat, kind in enumerate(seats)
        if kind == "human"
    }
    conns = support.seat_conns(server.ws_url, match_id, tokens)
    support.play_to_end(conns, random.Random(seed))
    for conn in conns:
        conn.close()
    full = support.full_record(server.database_url, match_id)
    return match_id, tokens, support.Replay(full)


def _check_replay(
    views: list[dict[str, Any]],
    replay: support.Replay,
    seat: int | None,
    seats: list[str],
    secrets: list[str],
) -> None:
    game = replay.record.game
    assert len(views) == len(replay.states), "one view per step, from the first position to the last"
    for version, view in enumerate(views):
        truth = replay.states[version]
        text = json.dumps(view)
        for token in secrets:
            assert token not in text
        assert set(view) == support.STATE_KEYS
        assert view["version"] == version and view["match"]["version"] == version
        assert view["seat"] == seat
        assert view["observation"] == replay.observation(version, seat), f"step {version}, seat {seat}"
        assert not support.hidden_field_problems(game, truth, seat, view["observation"])
        assert view["to_move"] == (None if truth.is_terminal() else truth.current_player)
        ended = {"scores": truth.scores(), "winners": truth.winners(), "reason": "played"}
        assert view["result"] == (ended if truth.is_terminal() else None), "the result, at the end only"
        assert view["your_turn"] is False and view["legal"] == [], "nobody acts in a replay"
        assert [s["kind"] for s in view["match"]["seats"]] == seats
        support.check_log(replay, version, view)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c[0])
def test_each_seat_and_a_spectator_replay_only_what_they_saw(
    config: tuple[str, dict[str, Any], list[str]], server: Any, api: httpx.Client
) -> None:
    game, options, seats = config
    match_id, tokens, replay = _play(server, api, game, options, seats, seed=4242 + CONFIGS.index(config))
    secrets = list(tokens.values())
    viewers: list[tuple[int | None, dict[str, str]]] = [(None, {})]
    viewers += [(seat, {"token": token}) for seat, token in sorted(tokens.items())]
    for seat, params in viewers:
        response = api.get(f"/api/matches/{match_id}/replay", params=params)
        assert response.status_code == 200, response.text
        _check_replay(response.json(), replay, seat, seats, secrets)


def test_a_replay_hides_the_secret_colours_until_the_end(server: Any, api: httpx.Client) -> None:
    """Masker: the spectator's replay carries no colour before the last step, and a seat's replay
    carries only its own colour; everyone sees all colours at the end."""
    seats = ["human", "random", "human"]
    match_id, tokens, replay = _play(server, api, "masker", {"players": 3}, seats, seed=99)
    spectator = api.get(f"/api/matches/{match_id}/replay").json()
    for view in spectator[:-1]:
        assert view["observation"]["your_colour"] is None
        assert view["observation"]["tokens"] is None
    assert spectator[-1]["observation"]["tokens"] is not None
    colours = {seat: replay.observation(0, seat)["your_colour"] for seat in tokens}
    for seat, token in tokens.items():
        mine = api.get(f"/api/matches/{match_id}/replay", params={"token": token}).json()
        for view in mine[:-1]:
            assert view["observation"]["your_colour"] == colours[seat]
            assert view["observation"]["tokens"] is None


def test_a_replay_of_a_running_match_stops_at_its_current_step(server: Any, api: httpx.Client) -> None:
    seats = ["human", "random"]
    created = support.create_match(api, "masker", {"players": 2}, seats, seed=5)
    token = support.join(api, created["id"], "solo", 0)["token"]
    (conn,) = support.seat_conns(server.ws_url, created["id"], {0: token})
    support.play_to_end([conn], random.Random(5), stop_after=2)
    version = conn.state["version"] if conn.state else 0
    conn.close()
    views = api.get(f"/api/matches/{created['id']}/replay", params={"token": token}).json()
    assert len(views) >= version + 1
    assert all(v["your_turn"] is False and v["legal"] == [] for v in views)
    assert views[0]["version"] == 0


def test_a_replay_refuses_bad_tokens_and_unknown_matches(api: httpx.Client) -> None:
    created = support.create_match(api, "masker", {"players": 2}, ["human", "random"], seed=3)
    response = api.get(f"/api/matches/{created['id']}/replay", params={"token": "not-a-token"})
    assert response.status_code == 403 and response.json()["code"] == "bad_token"
    response = api.get("/api/matches/0123456789abcdef/replay")
    assert response.status_code == 404 and response.json()["code"] == "no_match"
