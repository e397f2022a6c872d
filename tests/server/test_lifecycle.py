"""A match's life without dead ends: resign, abort, abandonment (a bot takes the seat, or the others
claim the match), expiry of open matches, the one rematch offer, private matches and a player's
history.  Every refusal is a 4xx with a code and changes nothing (read back)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import masques_server_support as support
import pytest
from sqlalchemy.exc import OperationalError

from masques.server import matches


def error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.json()["code"] == code, response.text


def wait_for(condition: Callable[[], bool], what: str, timeout: float = support.TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def told(
    conn: support.Conn,
    condition: Callable[[dict[str, Any]], bool],
    kinds: tuple[str, ...] = ("state", "presence"),
) -> dict[str, Any]:
    """The first message of ``kinds`` (from now) whose match summary meets ``condition``: waited
    for, since the server may send it a moment after its HTTP answer."""
    deadline = time.monotonic() + support.TIMEOUT
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no such message within {support.TIMEOUT} s"
        message = conn.recv(timeout=left)
        if message["type"] in kinds and condition(message["match"]):
            return message


def two_players(
    api: httpx.Client, game: str = "masker", options: dict[str, Any] | None = None
) -> tuple[str, list[str]]:
    """A running match of two people who joined with tokens (API clients)."""
    options = {"players": 2} if options is None else options
    match_id = support.create_match(api, game, options, ["human", "human"])["id"]
    return match_id, [support.join(api, match_id, f"p{seat}", seat)["token"] for seat in (0, 1)]


def as_seat(token: str) -> dict[str, str]:
    return {"x-seat-token": token}


@pytest.mark.parametrize("route", ["resign", "abort", "claim", "seats/1/bot", "hint", "analysis/share"])
def test_a_route_that_takes_no_body_refuses_one_and_changes_nothing(
    server: Any, api: httpx.Client, route: str
) -> None:
    """A body the route does not take (unknown fields, JSON that does not parse) is refused before
    anything is done: a resignation sent with ``{"confirm": false}`` must not go through."""
    match_id, tokens = two_players(api)
    url = f"/api/matches/{match_id}/{route}"
    mine = {"x-seat-token": tokens[0], "content-type": "application/json"}
    for body in (b"{not json", b'{"confirm": false}', b"[]", b"0"):
        answer = api.post(url, content=body, headers=mine)
        error(answer, 400, "bad_request")
        assert "takes no body" in answer.json()["message"]
    summary = support.summary(api, match_id)
    assert summary["status"] == "running" and summary["version"] == 0 and summary["end"] is None
    assert [s["kind"] for s in summary["seats"]] == ["human", "human"]
    if route == "resign":  # none, or an empty object, is no body
        assert api.post(url, content=b"{}", headers=mine).status_code == 200
        assert support.summary(api, match_id)["end"]["reason"] == "resigned"


def test_resign_ends_the_match_and_the_others_win(server: Any, api: httpx.Client) -> None:
    match_id, tokens = two_players(api)
    watcher = support.Conn(server.ws_url, match_id)
    watcher.first_state()
    error(api.post(f"/api/matches/{match_id}/resign"), 403, "not_seated")  # a spectator
    other, _ = two_players(api)
    error(api.post(f"/api/matches/{other}/resign", headers=as_seat(tokens[0])), 403, "bad_token")
    assert support.summary(api, match_id)["status"] == "running"

    answer = api.post(f"/api/matches/{match_id}/resign", headers=as_seat(tokens[0]))
    assert answer.status_code == 200, answer.text
    assert answer.json()["end"] == {"reason": "resigned", "seats": [0], "winners": [1]}
    state = told(watcher, lambda match: match["status"] == "finished", kinds=("state",))
    assert state["result"] == {"scores": None, "winners": [1], "reason": "resigned"}
    assert state["your_turn"] is False and state["legal"] == []
    assert state["to_move"] is None  # the game stopped: nobody is to move, as at its own end
    watcher.close()

    after = support.summary(api, match_id)
    assert after["status"] == "finished" and after["finished"] is not None
    error(api.post(f"/api/matches/{match_id}/resign", headers=as_seat(tokens[1])), 409, "not_running")
    assert support.summary(api, match_id)["end"] == after["end"]
    seat = support.Conn(server.ws_url, match_id, tokens[1], 1)
    view = seat.first_state()
    assert view["your_turn"] is False and view["to_move"] is None
    replay = api.get(f"/api/matches/{match_id}/replay", headers=as_seat(tokens[1])).json()
    assert replay[-1]["to_move"] is None
    seat.act(0, after["version"])
    assert seat.recv_type("error")["code"] == "not_running"
    seat.close()


@pytest.mark.parametrize(("game", "field"), [("masker", "tokens"), ("mascarade", "hands")])
def test_a_resigned_match_shows_what_the_games_end_shows(
    server: Any, api: httpx.Client, game: str, field: str
) -> None:
    """MK-15, MC-3: colours and hands are public at the end of the game; a match that stops before
    it, by a resignation, shows them as well: to the seats, the spectators and in the replay."""
    match_id, tokens = two_players(api, game)
    watcher = support.Conn(server.ws_url, match_id)
    assert watcher.first_state()["observation"][field] is None  # hidden while the match runs
    watcher.close()
    assert api.post(f"/api/matches/{match_id}/resign", headers=as_seat(tokens[0])).status_code == 200
    full = support.full_record(server.database_url, match_id)
    truth = support.Replay(full).final.stopped_observation(None)
    assert isinstance(truth, dict) and truth[field] is not None
    for token, seat in ((None, None), (tokens[0], 0), (tokens[1], 1)):
        conn = support.Conn(server.ws_url, match_id, token, seat)
        assert conn.first_state()["observation"][field] == truth[field]
        conn.close()
        replay = api.get(f"/api/matches/{match_id}/replay", headers=as_seat(token) if token else {}).json()
        assert replay[-1]["observation"][field] == truth[field]
        assert all(step["observation"][field] is None for step in replay[:-1])


def test_mk_3_in_masker_with_four_players_the_team_resigns(api: httpx.Client) -> None:
    """MK-3: seats 0 and 2 play against 1 and 3; one partner's resignation is the team's."""
    match_id = support.create_match(api, "masker", {"players": 4}, ["human", "random", "human", "random"])[
        "id"
    ]
    tokens = [support.join(api, match_id, f"p{seat}", seat)["token"] for seat in (0, 2)]
    answer = api.post(f"/api/matches/{match_id}/resign", headers=as_seat(tokens[1]))
    assert answer.status_code == 200, answer.text
    assert answer.json()["end"] == {"reason": "resigned", "seats": [0, 2], "winners": [1, 3]}


def test_abort_only_while_some_person_has_not_moved(server: Any, api: httpx.Client) -> None:
    match_id, tokens = two_players(api)
    assert support.summary(api, match_id)["can_abort"] is True
    conns = support.seat_conns(server.ws_url, match_id, dict(enumerate(tokens)))
    for _ in range(40):  # move until both people have moved (a Masker turn may take several actions)
        if not support.summary(api, match_id)["can_abort"]:
            break
        mover = next(c for c in conns if c.state is not None and c.state["your_turn"])
        state = mover.state
        assert state is not None
        mover.act(state["legal"][0]["id"], state["version"])
        for conn in conns:
            conn.wait_version(state["version"] + 1)
    assert support.summary(api, match_id)["can_abort"] is False
    error(api.post(f"/api/matches/{match_id}/abort", headers=as_seat(tokens[0])), 409, "cannot_abort")
    assert support.summary(api, match_id)["status"] == "running"
    for conn in conns:
        conn.close()

    fresh, fresh_tokens = two_players(api)
    error(api.post(f"/api/matches/{fresh}/abort"), 403, "not_seated")
    answer = api.post(f"/api/matches/{fresh}/abort", headers=as_seat(fresh_tokens[1]))
    assert answer.status_code == 200, answer.text
    assert answer.json()["end"] == {"reason": "aborted", "seats": [], "winners": []}
    error(api.post(f"/api/matches/{fresh}/abort", headers=as_seat(fresh_tokens[0])), 409, "cannot_abort")


@pytest.fixture(params=support.BACKENDS)
def quick(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[support.ThreadServer]:
    """A server whose grace period lasts one second and open-match expiry three (a loaded machine
    may take more than one to make a match and join it), and which sweeps often."""
    monkeypatch.setattr(matches, "SWEEP_SECONDS", 0.2)
    monkeypatch.setattr(matches, "EXPIRY_ROUNDS", 1)
    limits = replace(support.RELAXED, grace_seconds=1.0, open_expiry_seconds=3.0, abandoned_bot="random")
    server = support.ThreadServer(support.fresh_database_url(request.param, tmp_path), limits=limits).start()
    yield server
    server.stop()


def test_an_absent_player_s_seat_goes_to_a_bot_when_another_asks(quick: support.ThreadServer) -> None:
    with httpx.Client(base_url=quick.base_url, timeout=support.TIMEOUT) as api:
        match_id, tokens = two_players(api)
        ann = support.Conn(quick.ws_url, match_id, tokens[0], 0)
        ann.first_state()
        bob = support.Conn(quick.ws_url, match_id, tokens[1], 1)
        bob.first_state()
        bob.close()
        error(
            api.post(f"/api/matches/{match_id}/seats/1/bot", headers=as_seat(tokens[0])), 409, "not_abandoned"
        )
        wait_for(lambda: support.summary(api, match_id)["seats"][1]["abandoned"], "bob was never abandoned")
        assert support.summary(api, match_id)["seats"][1]["kind"] == "human"  # ann is here: she decides
        error(api.post(f"/api/matches/{match_id}/seats/1/bot"), 403, "not_seated")
        error(
            api.post(f"/api/matches/{match_id}/seats/0/bot", headers=as_seat(tokens[0])), 409, "not_abandoned"
        )
        error(api.post(f"/api/matches/{match_id}/seats/7/bot", headers=as_seat(tokens[0])), 404, "no_seat")

        answer = api.post(f"/api/matches/{match_id}/seats/1/bot", headers=as_seat(tokens[0]))
        assert answer.status_code == 200, answer.text
        assert answer.json()["seats"][1]["kind"] == "random"
        # bob is back: a bot has his seat now, so he watches as a spectator does (the bot sees
        # what the seat sees from now on, he does not), and reads as one
        again = support.Conn(quick.ws_url, match_id, tokens[1], 1)
        watching = again.first_state()
        assert watching["seat"] is None and watching["your_turn"] is False and watching["held_seat"] == 1
        assert watching["observation"]["your_colour"] is None and watching["observation"]["seat"] is None
        again.close()
        replay = f"/api/matches/{match_id}/replay"
        theirs = api.get(replay, headers=as_seat(tokens[1])).json()
        public = api.get(replay).json()  # asked after: the bot may have moved meanwhile
        assert theirs == public[: len(theirs)]
        error(api.post(f"/api/matches/{match_id}/resign", headers=as_seat(tokens[1])), 403, "not_seated")
        support.play_out(ann, api, match_id)
        wait_for(lambda: support.summary(api, match_id)["status"] == "finished", "the match did not finish")
        ann.close()
        # after the end too: what the seat saw since the bot took it was never bob's to see
        assert api.get(replay, headers=as_seat(tokens[1])).json() == api.get(replay).json()
        record = f"/api/matches/{match_id}/record"
        assert api.get(record, headers=as_seat(tokens[1])).json() == api.get(record).json()
        late = support.Conn(quick.ws_url, match_id, tokens[1], 1)  # and live, as a spectator
        seen = late.first_state()
        assert seen["seat"] is None and seen["observation"]["your_colour"] is None
        assert seen["held_seat"] == 1  # whose seat it was: bob may still answer the rematch offer
        late.send({"type": "sync"})  # a connection it may keep: not told its seat changed
        assert late.recv_type("state")["seat"] is None
        late.close()
        stranger = support.Conn(quick.ws_url, match_id)  # a spectator holds no seat
        assert "held_seat" not in stranger.first_state()
        stranger.close()
        analysis = f"/api/matches/{match_id}/analysis"
        error(api.post(analysis, headers=as_seat(tokens[1])), 409, "seat_is_bot")
        assert api.get(analysis, headers=as_seat(tokens[1])).status_code == 400  # a spectator names a seat

        # bob is still a player of it: he may answer the rematch, and plays his own seat again
        for token in tokens:
            answer = api.post(f"/api/matches/{match_id}/rematch", headers=as_seat(token))
            assert answer.status_code == 200, answer.text
        new = support.summary(api, answer.json()["rematch"]["match"])
        assert [s["kind"] for s in new["seats"]] == ["human", "human"]
        assert [s["name"] for s in new["seats"]] == ["p1", "p0"]


def test_the_others_may_claim_a_match_an_absent_player_holds_up(quick: support.ThreadServer) -> None:
    with httpx.Client(base_url=quick.base_url, timeout=support.TIMEOUT) as api:
        match_id, tokens = two_players(api)
        ann = support.Conn(quick.ws_url, match_id, tokens[0], 0)
        ann.first_state()
        error(api.post(f"/api/matches/{match_id}/claim", headers=as_seat(tokens[0])), 409, "not_abandoned")
        wait_for(
            lambda: support.summary(api, match_id)["seats"][1]["abandoned"],
            "the absent seat was never abandoned",
        )
        answer = api.post(f"/api/matches/{match_id}/claim", headers=as_seat(tokens[0]))
        assert answer.status_code == 200, answer.text
        assert answer.json()["end"] == {"reason": "claimed", "seats": [1], "winners": [0]}
        ann.close()


def test_alone_an_absent_player_s_seat_goes_to_a_bot_by_itself(quick: support.ThreadServer) -> None:
    """Nobody else can act: after the grace period a bot plays the seat and the match finishes."""
    with httpx.Client(base_url=quick.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "random"])["id"]
        token = support.join(api, match_id, "solo", 0)["token"]
        conn = support.Conn(quick.ws_url, match_id, token, 0)
        conn.first_state()
        conn.close()
        wait_for(lambda: support.summary(api, match_id)["status"] == "finished", "the match hung", 60)
        final = support.summary(api, match_id)
        assert final["seats"][0]["kind"] == "random" and final["end"]["reason"] == "played"


def test_open_matches_nobody_joins_expire_and_leave_the_lobby(quick: support.ThreadServer) -> None:
    with httpx.Client(base_url=quick.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "maske", {"players": 3}, ["human", "human", "easy"])["id"]
        early = support.join(api, match_id, "early", 0)["token"]
        assert match_id in [m["id"] for m in api.get("/api/matches").json()]
        wait_for(
            lambda: support.summary(api, match_id)["status"] == "expired", "the open match never expired"
        )
        assert match_id not in [m["id"] for m in api.get("/api/matches").json()]
        error(api.post(f"/api/matches/{match_id}/join", json={"name": "late"}), 409, "expired")
        error(api.post(f"/api/matches/{match_id}/leave", json={"token": early}), 409, "expired")
        assert support.summary(api, match_id)["seats"][1]["taken"] is False


def test_one_rematch_offer_all_accept_one_new_match_seats_turned(server: Any, api: httpx.Client) -> None:
    match_id = support.create_match(api, "maske", {"players": 3}, ["human", "easy", "human"])["id"]
    tokens = {seat: support.join(api, match_id, f"p{seat}", seat)["token"] for seat in (0, 2)}
    rematch = f"/api/matches/{match_id}/rematch"
    error(api.post(rematch, headers=as_seat(tokens[0])), 409, "not_finished")
    assert api.post(f"/api/matches/{match_id}/resign", headers=as_seat(tokens[2])).status_code == 200
    watcher = support.Conn(server.ws_url, match_id, tokens[2], 2)
    watcher.first_state()

    error(api.post(rematch), 403, "not_seated")  # spectators cannot offer it
    first = api.post(rematch, headers=as_seat(tokens[0]))
    assert first.status_code == 200, first.text
    assert first.json()["rematch"] == {"answers": {"0": True}, "match": None, "declined": False}
    error(api.post(rematch, headers=as_seat(tokens[0])), 409, "already_answered")
    told(watcher, lambda match: (match["rematch"] or {}).get("answers") == {"0": True})  # told live

    last = api.post(rematch, json={"accept": True}, headers=as_seat(tokens[2]))
    assert last.status_code == 200, last.text
    new_id = last.json()["rematch"]["match"]
    assert new_id and new_id != match_id
    error(api.post(rematch, headers=as_seat(tokens[2])), 409, "already_answered")
    told(watcher, lambda match: (match["rematch"] or {}).get("match") == new_id)
    watcher.close()

    new = support.summary(api, new_id)
    assert new["status"] == "running" and new["rematch_of"] == match_id and new["game"] == "maske"
    assert [s["kind"] for s in new["seats"]] == ["human", "human", "easy"]  # old seat i sits at i + 1
    assert [s["name"] for s in new["seats"]] == ["p2", "p0", "easy"]
    conn = support.Conn(server.ws_url, new_id, tokens[0], 1)  # the same token holds the turned seat
    assert conn.first_state()["seat"] == 1
    conn.close()
    opened = [m["id"] for m in api.get("/api/matches").json() if m.get("rematch_of") == match_id]
    assert opened == [new_id]  # exactly one new match


def test_a_rematch_made_while_loading_it_fails_is_still_told(server: Any, api: httpx.Client) -> None:
    """The new match is committed with the last answer: a failure to load it into memory (a
    database away a moment) must not hide it from the players, nor refuse an answer that stands."""
    match_id, tokens = two_players(api)
    assert api.post(f"/api/matches/{match_id}/resign", headers=as_seat(tokens[0])).status_code == 200
    watcher = support.Conn(server.ws_url, match_id, tokens[1], 1)
    watcher.first_state()
    rematch = f"/api/matches/{match_id}/rematch"
    assert api.post(rematch, headers=as_seat(tokens[0])).status_code == 200
    registry = server.app.state.registry
    loaded = registry.get

    async def failing(wanted: str, *args: Any, **kwargs: Any) -> Any:
        if wanted != match_id:
            raise OperationalError("SELECT", {}, Exception("database is locked"))
        return await loaded(wanted, *args, **kwargs)

    with mock.patch.object(registry, "get", failing):
        last = api.post(rematch, headers=as_seat(tokens[1]))
    assert last.status_code == 200, last.text
    new_id = last.json()["rematch"]["match"]
    assert new_id
    told(watcher, lambda match: (match["rematch"] or {}).get("match") == new_id)
    watcher.close()
    assert support.summary(api, new_id)["status"] == "running"


def test_a_declined_rematch_is_over(api: httpx.Client) -> None:
    match_id, tokens = two_players(api)
    assert api.post(f"/api/matches/{match_id}/resign", headers=as_seat(tokens[0])).status_code == 200
    rematch = f"/api/matches/{match_id}/rematch"
    declined = api.post(rematch, json={"accept": False}, headers=as_seat(tokens[1]))
    assert declined.status_code == 200 and declined.json()["rematch"]["declined"] is True
    error(api.post(rematch, headers=as_seat(tokens[0])), 409, "rematch_declined")
    error(api.post(rematch, json={"accept": "yes"}, headers=as_seat(tokens[0])), 400, "bad_request")
    assert support.summary(api, match_id)["rematch"]["match"] is None


def test_a_rematch_of_a_practice_deal_is_dealt_afresh(api: httpx.Client) -> None:
    created = support.create_match(api, "mascarade", {"players": 3}, ["human", "random", "random"], seed=7)
    assert created["seeded"] is True
    token = support.join(api, created["id"], "solo", 0)["token"]
    assert api.post(f"/api/matches/{created['id']}/resign", headers=as_seat(token)).status_code == 200
    new_id = api.post(f"/api/matches/{created['id']}/rematch", headers=as_seat(token)).json()["rematch"][
        "match"
    ]
    assert support.summary(api, new_id)["seeded"] is False


def test_private_matches_are_unlisted_and_joined_with_the_invite_only(server: Any, api: httpx.Client) -> None:
    body = {"game": "masker", "options": {"players": 2}, "seats": [{"kind": "human"}] * 2, "private": True}
    created = api.post("/api/matches", json=body)
    assert created.status_code == 201, created.text
    match_id, invite = created.json()["id"], created.json()["invite"]
    assert created.json()["private"] is True
    assert match_id not in [m["id"] for m in api.get("/api/matches").json()]
    join = f"/api/matches/{match_id}/join"
    error(api.post(join, json={"name": "eve"}), 403, "invite_required")
    error(api.post(join, json={"name": "eve", "invite": "0" * 20}), 403, "bad_invite")
    assert not any(s["taken"] for s in support.summary(api, match_id)["seats"])
    token = api.post(join, json={"name": "ann", "invite": invite}).json()["token"]
    seated = support.Conn(server.ws_url, match_id, token, 0)
    assert seated.first_state()["match"]["invite"] == invite  # players may invite others
    spectator = support.Conn(server.ws_url, match_id)
    assert "invite" not in spectator.first_state()["match"]
    assert "invite" not in support.summary(api, match_id)
    for conn in (seated, spectator):
        conn.close()


def test_history_and_my_matches(server: Any) -> None:
    browser, signed, signup, unique = support.browser, support.signed, support.signup, support.unique
    with browser(server) as ann, browser(server) as bob, browser(server) as stranger:
        me = signup(ann, unique("Ann"))
        signed(bob, bob.post("/api/guest", json={"name": "Bob"}))
        finished = support.create_match(ann, "masker", {"players": 2}, ["human", "human"])["id"]
        body = {
            "game": "maske",
            "options": {"players": 3},
            "seats": [{"kind": k} for k in ("human", "human", "easy")],
            "private": True,
        }
        private = ann.post("/api/matches", json=body).json()
        waiting = support.create_match(ann, "masker", {"players": 2}, ["human", "human"])["id"]
        for match_id, invite in ((finished, None), (private["id"], private["invite"]), (waiting, None)):
            extra = {"invite": invite} if invite else {}
            assert ann.post(f"/api/matches/{match_id}/join", json={"seat": 0, **extra}).status_code == 200
            assert bob.post(f"/api/matches/{match_id}/join", json={"seat": 1, **extra}).status_code == 200
        assert ann.post(f"/api/matches/{finished}/resign").status_code == 200
        assert bob.post(f"/api/matches/{private['id']}/resign").status_code == 200

        mine = ann.get("/api/me/matches").json()
        assert {m["id"] for m in mine} == {waiting}
        assert mine[0]["my_seat"] == 0 and mine[0]["my_turn"] == (_first(server, waiting) == 0)

        page = ann.get(f"/api/players/{me['player']['id']}").json()
        assert page["name"] == me["player"]["name"] and page["kind"] == "account"
        results = {m["id"]: m["result"] for m in page["matches"]}
        assert results == {finished: "lost", private["id"]: "won"}
        entry = next(m for m in page["matches"] if m["id"] == finished)
        assert entry["opponents"] == [
            {"seat": 1, "name": "Bob", "kind": "human", "player": bob.get("/api/me").json()["player"]["id"]}
        ]
        assert (
            entry["created"]
            and entry["finished"]
            and entry["game"] == "masker"
            and entry["options"]["players"] == 2
        )

        public = stranger.get(f"/api/players/{me['player']['id']}").json()
        assert [m["id"] for m in public["matches"]] == [finished]  # the private match is the player's own
        error(stranger.get("/api/players/0123456789abcdef"), 404, "no_player")

        listed = {m["id"]: m for m in stranger.get("/api/matches", params={"status": "finished"}).json()}
        assert listed[finished]["end"]["winners"] == [1] and listed[finished]["finished"]


def _first(server: Any, match_id: str) -> int:
    watcher = support.Conn(server.ws_url, match_id)
    try:
        return int(watcher.first_state()["to_move"])
    finally:
        watcher.close()


def test_mk_10_a_player_already_out_neither_resigns_nor_lets_the_others_share_a_win(tmp_path: Path) -> None:
    """MK-10: a player whose colour left the board has lost while the other two play on.  Their
    resignation is refused (it would end the match with both others winning), their absence holds
    nothing up, and a claim against the other player, absent too, gives the claimant alone the win."""
    import random

    from masques.server.errors import ServerError

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 3}, ["human"] * 3, seed=0)
            for seat in range(3):
                await registry.join(match, f"p{seat}", seat)
            rng = random.Random(0)
            while not any(match.state.is_out(s) for s in range(3)):
                assert not match.state.is_terminal(), "the game ended before anyone was out"
                state = match.state
                await registry.submit(
                    match, state.current_player, rng.choice(state.legal_actions()), match.version
                )
            out = next(s for s in range(3) if match.state.is_out(s))
            rest = [s for s in range(3) if s != out]
            assert [seat["out"] for seat in match.summary()["seats"]] == [s == out for s in range(3)]
            with pytest.raises(ServerError) as refused:
                await registry.resign(match, out)
            assert refused.value.code == "already_out" and match.status == "running"

            match.seats[out].away_since = match.now() - 10 * match.grace_seconds
            with pytest.raises(ServerError) as nobody:
                await registry.claim(match, rest[0])
            assert nobody.value.code == "not_abandoned" and match.status == "running"

            match.seats[rest[1]].away_since = match.now() - 10 * match.grace_seconds
            await registry.claim(match, rest[0])
            assert match.end == {"reason": "claimed", "seats": sorted([rest[1], out]), "winners": [rest[0]]}

    support.run_async(scenario())


def test_a_blokus3d_colour_that_can_place_no_more_is_still_in_the_game(tmp_path: Path) -> None:
    """Unlike a Masker player out under MK-10, a Blokus 3D colour that cannot place a block (B3-5:
    skipped from then on) has not lost: its blocks still score, so the server counts it in the game.
    Its absence allows a claim, and it may claim against an absent opponent itself."""
    import random

    from masques.games.blokus3d.game import OUT

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            for seed in range(20):
                match = await registry.create("blokus3d", {"players": 3}, ["human"] * 3, seed=seed)
                for seat in range(3):
                    await registry.join(match, f"p{seat}", seat)
                rng = random.Random(seed)
                while OUT not in match.state.status and not match.state.is_terminal():
                    state = match.state
                    await registry.submit(
                        match, state.current_player, rng.choice(state.legal_actions()), match.version
                    )
                if not match.state.is_terminal():
                    break
            else:
                raise AssertionError("no colour got stuck before the end in 20 games")
            stuck = match.state.status.index(OUT)
            rest = [s for s in range(3) if s != stuck]
            assert not match.state.is_out(stuck)
            assert [seat["out"] for seat in match.summary()["seats"]] == [False] * 3
            assert match.status == "running"

            match.seats[stuck].away_since = match.now() - 10 * match.grace_seconds
            match.seats[rest[1]].away_since = match.now() - 10 * match.grace_seconds
            await registry.claim(match, rest[0])  # the absent stuck colour loses with the other
            assert match.end == {"reason": "claimed", "seats": sorted([stuck, rest[1]]), "winners": [rest[0]]}

            again = await registry.create("blokus3d", {"players": 3}, ["human"] * 3, seed=seed)
            for seat in range(3):
                await registry.join(again, f"p{seat}", seat)
            for action in match.state.history:
                await registry.submit(again, again.state.current_player, action, again.version)
            again.seats[rest[0]].away_since = again.now() - 10 * again.grace_seconds
            again.seats[rest[1]].away_since = again.now() - 10 * again.grace_seconds
            await registry.claim(again, stuck)  # and, present, it claims against the absent others
            assert again.end == {"reason": "claimed", "seats": rest, "winners": [stuck]}

    support.run_async(scenario())


SELF_ELIMINATION = support.SELF_ELIMINATION


async def _out_and_to_move(registry: matches.Registry, **create: Any) -> tuple[matches.LiveMatch, list[str]]:
    """A three-player Masker match of people at the position above (seat 2 out and to move), and
    its seats' tokens."""
    match = await registry.create("masker", {"players": 3}, ["human"] * 3, seed=9, **create)
    tokens = [(await registry.join(match, f"p{seat}", seat))[1] for seat in range(3)]
    for action in SELF_ELIMINATION:
        await registry.submit(match, match.state.current_player, action, match.version)
    assert match.state.current_player == 2 and match.state.is_out(2) and match.status == "running"
    return match, tokens


def test_mk_10_a_seat_out_of_the_game_that_runs_out_of_time_ends_nothing(tmp_path: Path) -> None:
    """MK-10/MK-11: the seat out of the game still chooses its crosses; when its time runs out in a
    match lost at zero, a bot makes the choice and the two others play on (no one wins by it)."""

    now = [1_000_000.0]

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path, clock=lambda: now[0]) as registry:
            clock = {"kind": "fischer", "base": 60, "increment": 0}
            match, _tokens = await _out_and_to_move(registry, clock=clock, at_zero="lose")
            now[0] += 3600
            assert await registry.time_out(match)
            assert match.status == "running" and match.end is None
            assert match.seats[2].kind != "human" and [s.kind for s in match.seats[:2]] == ["human"] * 2

    support.run_async(scenario())


def test_mk_10_a_seat_out_of_the_game_claims_nothing_and_holds_nothing_up(tmp_path: Path) -> None:
    """MK-10: a seat out of the game may not claim it, and it decides nothing by being there or not:
    absent, it goes to a bot though the others are present; present alone, the absent others go to
    bots (the match must not wait for people who left while only a seat without a stake watches)."""
    import asyncio
    import contextlib

    from masques.server.errors import ServerError
    from masques.server.storage import hash_token

    now = [1_000_000.0]
    limits = replace(support.RELAXED, grace_seconds=5.0)

    async def send(_text: str) -> None:
        return None

    async def connected(
        registry: matches.Registry, match: matches.LiveMatch, tokens: list[str], seats: list[int]
    ) -> None:
        for seat in seats:
            await registry.connect(match, matches.Client(seat, send, seat_token=hash_token(tokens[seat])))

    async def after_the_grace(registry: matches.Registry, match: matches.LiveMatch) -> None:
        now[0] += 60
        if match.away_task is not None:  # asleep on the real clock: look again at once
            match.away_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await match.away_task
        registry._watch_away(match)
        for _ in range(200):
            await asyncio.sleep(0.02)
            if match.away_task is None or match.away_task.done():
                return
            if any(s.kind != "human" for s in match.seats):
                await asyncio.sleep(0.1)
                return

    async def scenario(folder: Path, present: list[int]) -> list[str]:
        folder.mkdir()
        async with support.sqlite_registry(folder, limits=limits, clock=lambda: now[0]) as registry:
            match, tokens = await _out_and_to_move(registry)
            with pytest.raises(ServerError) as refused:
                await registry.claim(match, 2)
            assert refused.value.code == "already_out" and match.status == "running"
            await connected(registry, match, tokens, present)
            await after_the_grace(registry, match)
            assert match.status == "running"
            return [s.kind for s in match.seats]

    kinds = support.run_async(scenario(tmp_path / "others", [0, 1]))
    assert kinds[:2] == ["human", "human"] and kinds[2] != "human"
    kinds = support.run_async(scenario(tmp_path / "alone", [2]))
    assert kinds[2] == "human" and "human" not in kinds[:2]


def test_mk_10_a_resignation_counts_the_move_that_came_first(tmp_path: Path) -> None:
    """A resignation waiting for the match while a move that puts a seat out is committed ends the
    match as it stands after that move: the seat now out loses with the one who resigned."""
    import asyncio

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 3}, ["human"] * 3, seed=9)
            for seat in range(3):
                await registry.join(match, f"p{seat}", seat)
            for action in SELF_ELIMINATION[:-1]:
                await registry.submit(match, match.state.current_player, action, match.version)
            assert match.state.current_player == 2 and not match.state.is_out(2)
            async with match.lock:  # both wait for the match, the move first
                move = asyncio.create_task(registry.submit(match, 2, SELF_ELIMINATION[-1], match.version))
                await asyncio.sleep(0.05)
                resign = asyncio.create_task(registry.resign(match, 0))
                await asyncio.sleep(0.05)
            await move
            await resign
            assert match.end == {"reason": "resigned", "seats": [0, 2], "winners": [1]}

    support.run_async(scenario())


def test_mk_10_a_seat_out_before_its_first_move_is_no_reason_to_abort(tmp_path: Path) -> None:
    """An abort is for a match some person never began; a seat put out of the game (MK-10) before
    its first move has lost, and the match it lost stays a match with a result."""

    from masques.server.errors import ServerError

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 3}, ["human"] * 3, seed=5614)
            for seat in range(3):
                await registry.join(match, f"p{seat}", seat)
            assert match.can_abort()  # nobody has moved
            for action in (34, 28, 27, 21, 22, 23):  # seats 1 and 2 take every cross of seat 0's colour
                await registry.submit(match, match.state.current_player, action, match.version)
            assert match.state.is_out(0) and 0 not in match.actors and match.status == "running"
            assert not match.can_abort() and not match.summary()["can_abort"]
            with pytest.raises(ServerError) as refused:
                await registry.abort(match)
            assert refused.value.code == "cannot_abort" and match.status == "running"

    support.run_async(scenario())


def test_an_open_match_that_fills_as_it_expires_is_played(tmp_path: Path) -> None:
    """The sweep picks an open match as too old just as its last seat is taken: the match runs (in
    memory and in storage), and storage refuses to expire a running match or start an expired one."""

    from masques.server.storage import Turn

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human"] * 2)
            stale = await registry.create("masker", {"players": 2}, ["human"] * 2)
            picked = [match.id]
            registry.storage.stale_open_matches = lambda _older_than: picked  # type: ignore[method-assign]
            for seat in range(2):
                await registry.join(match, f"p{seat}", seat)
            assert await registry.expire_open() == 0  # picked, but running by then: not expired
            assert match.status == "running" and registry.storage.match(match.id).status == "running"
            end = {"reason": "expired", "seats": [], "winners": []}
            assert registry.storage.end_match(match.id, end, "expired", was="open") == (False, None)

            assert registry.storage.end_match(stale.id, end, "expired", was="open")[0]
            assert not registry.storage.start_match(stale.id, Turn(0, None, None))
            assert registry.storage.match(stale.id).status == "expired"

    support.run_async(scenario())


def test_mk_3_an_absent_partner_is_no_claim_against_the_other_team(tmp_path: Path) -> None:
    """MK-3: partners win and lose together, so a partner's absence cannot end the match in the
    claimant's favour (nor as a loss for their own team): only an absent opponent's can."""

    from masques.server.errors import ServerError

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 4}, ["human"] * 4)
            for seat in range(4):
                await registry.join(match, f"p{seat}", seat)
            assert [seat["team"] for seat in match.summary()["seats"]] == [0, 1, 0, 1]
            match.seats[2].away_since = match.now() - 10 * match.grace_seconds  # seat 0's partner
            with pytest.raises(ServerError) as refused:
                await registry.claim(match, 0)
            assert refused.value.code == "not_abandoned" and match.status == "running"
            match.seats[1].away_since = match.now() - 10 * match.grace_seconds  # an opponent
            await registry.claim(match, 0)
            assert match.end == {"reason": "claimed", "seats": [1, 3], "winners": [0, 2]}

    support.run_async(scenario())


def test_a_turn_clock_is_not_started_again_when_another_seat_goes_to_a_bot(tmp_path: Path) -> None:
    """The per-turn clock runs for one turn: handing an absent player's seat to a bot meanwhile
    (or anything else that looks at the bots) leaves the deadline of the player to move as it was."""
    import asyncio

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 3}, ["human"] * 3, turn_seconds=60)
            for seat in range(3):
                await registry.join(match, f"p{seat}", seat)
            mover = match.state.current_player
            for _ in range(100):  # the bots' task starts the clock of the person to move
                if match.turn_deadline is not None:
                    break
                await asyncio.sleep(0.01)
            deadline = match.turn_deadline
            assert deadline is not None
            await asyncio.sleep(0.05)
            other = next(s for s in range(3) if s != mover)
            match.seats[other].away_since = match.now() - 10 * match.grace_seconds
            await registry.hand_to_bot(match, mover, other)
            await asyncio.sleep(0.2)  # the bots' task it schedules has looked at the turn
            assert match.seats[other].kind != "human" and match.state.current_player == mover
            assert match.turn_deadline == deadline

    support.run_async(scenario())


def test_a_failed_write_while_watching_absent_seats_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seat of a person who never came goes to a bot although the first attempt's write
    failed: the watch is not lost with it (the match would leave memory, its seat never handed
    over), and the failed attempt left the seat as it was, so the next one hands it over.  The
    seat and its per-turn clock are written together: the stored turn has no deadline."""
    import asyncio

    from masques.server.storage import Storage

    monkeypatch.setattr(matches, "BOT_RETRY_SECONDS", (0.05,))
    storage = Storage(support.fresh_database_url("sqlite", tmp_path))
    storage.migrate()
    writing = storage.set_seat_kind
    failed: list[int] = []

    def fails_once(match_id: str, seat: int, *args: Any, **kwargs: Any) -> None:
        if not failed:
            failed.append(seat)
            raise OSError("database is locked")
        writing(match_id, seat, *args, **kwargs)

    monkeypatch.setattr(storage, "set_seat_kind", fails_once)

    async def scenario() -> None:
        limits = replace(support.RELAXED, grace_seconds=0.2)
        registry = matches.Registry(storage, limits=limits, bot_workers=1)
        registry._schedule_bots = lambda match: None  # type: ignore[method-assign]  # the bot waits
        try:
            match = await registry.create(
                "masker", {"players": 2}, ["human", "random"], seed=7, turn_seconds=600
            )  # seed 7: seat 0 moves first
            await registry.join(match, "gone", 0)
            assert match.to_move == 0 and match.deadline is not None  # the person's turn, timed
            deadline = time.monotonic() + support.TIMEOUT
            while match.seats[0].kind == "human":
                assert time.monotonic() < deadline, "the absent seat never went to a bot"
                await asyncio.sleep(0.05)
            assert failed == [0]
        finally:
            registry.close()
        row = storage.match(match.id)
        assert storage.seats(match.id)[0].kind == limits.abandoned_bot
        assert row is not None and row.deadline is None

    try:
        support.run_async(scenario())
    finally:
        storage.dispose()


def test_a_seat_that_goes_to_a_bot_gets_no_move_from_its_per_turn_clock(tmp_path: Path) -> None:
    """A person who joined and never came: their seat goes to a bot while their turn's clock runs.
    The clock then stops: the bot plays that turn, and no greedy move is made for the seat at the
    deadline while the bot thinks."""
    import asyncio

    # The grace is far shorter than the turn, so that a loaded machine still gives the seat away
    # well before the deadline; the bot then thinks until the deadline has passed.
    limits = replace(support.RELAXED, grace_seconds=0.1, abandoned_bot="random")

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path, limits=limits) as registry:
            deciding = registry._decide
            decided: list[tuple[int, str]] = []
            turn_deadline: list[float] = []

            async def slow_bot(match: Any, seat: int, kind: str, purpose: str) -> int:
                decided.append((seat, purpose))
                action = await deciding(match, seat, kind, purpose)
                if purpose == "bot" and seat == 0 and turn_deadline:
                    # the seat's new bot thinks past the turn's deadline
                    await asyncio.sleep(max(0.0, turn_deadline[0] - registry.now()) + 1.0)
                    turn_deadline.clear()
                return int(action)

            registry._decide = slow_bot  # type: ignore[method-assign]
            match = await registry.create(
                "masker", {"players": 2}, ["human", "random"], seed=7, turn_seconds=3
            )  # seed 7: seat 0 moves first
            await registry.join(match, "gone", 0)
            turn_deadline.append(registry.now() + 3)  # the clock starts with the match, at the join
            deadline = time.monotonic() + support.TIMEOUT
            while match.version < 4:
                assert time.monotonic() < deadline, f"the match stopped at version {match.version}"
                await asyncio.sleep(0.05)
            assert match.seats[0].kind == "random"
            assert not turn_deadline, "the seat's bot never thought past the deadline"
            assert (0, "clock") not in decided, decided

    support.run_async(scenario())


def test_closing_the_registry_stops_the_watch_on_absent_seats(tmp_path: Path) -> None:
    """A stopping server leaves no task behind: the watch that would hand an absent seat to a bot
    ends with the registry, as the bots' and the clocks' tasks do."""
    import asyncio

    limits = replace(support.RELAXED, grace_seconds=600)

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path, limits=limits) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "random"], seed=7)
            await registry.join(match, "gone", 0)
            watch = match.away_task
            assert watch is not None and not watch.done()
        await asyncio.sleep(0)  # closed
        assert watch.cancelled()

    support.run_async(scenario())


def test_a_move_made_while_the_start_is_being_written_is_stored_after_it(tmp_path: Path) -> None:
    """The last seat taken starts the match; a seat that sees its turn at once and moves while the
    start is still on its way to the database waits for it.  Stored before the start, the move's
    turn was then undone by the start's: the match said the first player was to move again."""
    import asyncio

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            storage, writing = registry.storage, registry._write

            async def slow_start(write: Any) -> Any:
                if getattr(write, "func", None) == storage.start_match:
                    await asyncio.sleep(0.5)  # queued behind other writes
                return await writing(write)

            registry._write = slow_start  # type: ignore[method-assign]
            match = await registry.create("masker", {"players": 2}, ["human", "human"], seed=7)
            await registry.join(match, "Ann", 0)
            joining = asyncio.ensure_future(registry.join(match, "Bob", 1))
            while match.status != "running":
                await asyncio.sleep(0.01)
            first = match.state.current_player
            while match.state.current_player == first:  # to the next player's turn
                await registry.submit(match, first, match.state.legal_actions()[0], match.version)
            await joining
            row = storage.match(match.id)
            assert row is not None and row.status == "running"
            assert row.to_move == match.state.current_player != first

    support.run_async(scenario())
