"""The REST lobby: games, creating matches (and refusing bad ones), joining, leaving, starting,
rematches, listings and the record endpoint.  Every refusal is a 4xx with a code and a reason, and
changes nothing."""

from __future__ import annotations

import random
import re
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.engine import game_class, game_names, load_game


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"code", "message"}, body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    return str(body["message"])


def _ids(api: httpx.Client, status: str = "all") -> set[str]:
    response = api.get("/api/matches", params={"status": status})
    assert response.status_code == 200, response.text
    return {m["id"] for m in response.json()}


def test_games_lists_every_game_with_its_options(api: httpx.Client) -> None:
    response = api.get("/api/games")
    assert response.status_code == 200
    games = {g["name"]: g for g in response.json()}
    assert set(games) == set(game_names()) >= {"masker", "maske", "mascarade", "blokus3d"}
    assert "pips" in games  # the test-only game, added through its entry point
    for name, entry in games.items():
        cls = game_class(name)
        assert entry["title"] == cls.title
        assert entry["rules_version"] == cls.rules_version
        assert [o["name"] for o in entry["options"]] == [s.name for s in cls.option_specs]
        assert entry["players"] == cls().num_players
    players = next(o for o in games["masker"]["options"] if o["name"] == "players")
    assert players == {**players, "type": "int", "default": 2, "allowed": [2, 3, 4]}


@pytest.mark.parametrize(
    ("body", "status", "code", "named"),
    [
        ({"game": "masker", "options": {"players": 7}}, 400, "bad_options", ["players", "2, 3, 4"]),
        ({"game": "masker", "options": {"players": "2"}}, 400, "bad_options", ["players"]),
        ({"game": "masker", "options": {"variant": "4d"}}, 400, "bad_options", ["variant", "2d, 3d"]),
        ({"game": "masker", "options": {"colour": "red"}}, 400, "bad_options", ["players, variant"]),
        ({"game": "maske", "options": {"players": 2}}, 400, "bad_options", ["3, 4, 5, 6"]),
        ({"game": "blokus3d", "options": {"structure": "Z"}}, 400, "bad_options", ["A, B, C, D, custom"]),
        ({"game": "chess"}, 404, "no_game", ["blokus3d", "mascarade", "maske", "masker"]),
        ({"game": "masker", "seats": [{"kind": "human"}]}, 400, "bad_seats", ["2 seats"]),
        (
            {"game": "masker", "seats": [{"kind": "human"}] * 3},
            400,
            "bad_seats",
            ["2 seats"],
        ),
        (
            {"game": "masker", "options": {"players": 3}, "seats": [{"kind": "human"}] * 2},
            400,
            "bad_seats",
            ["3 seats"],
        ),
        (
            {"game": "masker", "seats": [{"kind": "human"}, {"kind": "grandmaster"}]},
            400,
            "bad_seats",
            ["random", "greedy", "easy"],
        ),
        ({"game": "masker", "seats": [{"kind": "human", "token": "x"}] * 2}, 400, "bad_request", ["token"]),
        ({"game": "masker", "colour": "red"}, 400, "bad_request", ["colour"]),
        ({"game": "masker", "seed": -1}, 400, "bad_request", ["seed"]),
        ({"game": 5}, 400, "bad_request", ["game"]),
        ({"options": {}}, 400, "bad_request", ["game"]),
    ],
)
def test_create_refuses_bad_matches_and_names_what_is_allowed(
    api: httpx.Client, body: dict[str, Any], status: int, code: str, named: list[str]
) -> None:
    before = _ids(api)
    message = _error(api.post("/api/matches", json=body), status, code)
    for word in named:
        assert word in message, message
    assert _ids(api) == before


def test_rest_refuses_wrong_types_instead_of_coercing_them(api: httpx.Client) -> None:
    """A JSON string or boolean where an integer is expected is a wrong type, as it is over WebSocket
    (where ``"version": true`` is refused): ``"seat": true`` must not take seat 1, nor ``"seed": "1"``
    mean seed 1."""
    created = support.create_match(api, "masker", {}, ["human", "human"])
    match_id = created["id"]
    for seat in (True, "1", 1.0):
        response = api.post(f"/api/matches/{match_id}/join", json={"name": "bob", "seat": seat})
        assert response.status_code == 400, f"'seat': {seat!r} was accepted: {response.text}"
    assert [s["taken"] for s in support.summary(api, match_id)["seats"]] == [False, False]
    before = _ids(api)
    for seed in ("1", True, 1.0):
        response = api.post("/api/matches", json={"game": "masker", "seed": seed})
        assert response.status_code == 400, f"'seed': {seed!r} was accepted: {response.text}"
    assert _ids(api) == before


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"{", "bad_json"),
        (b"not json", "bad_json"),
        (b"[]", "bad_request"),
        (b'"masker"', "bad_request"),
        (b"null", "bad_request"),
        (b"", "bad_request"),
    ],
)
def test_create_refuses_malformed_bodies(api: httpx.Client, content: bytes, code: str) -> None:
    """Not JSON at all: bad_json; JSON, but not the object a match is asked with: bad_request."""
    before = _ids(api)
    response = api.post("/api/matches", content=content, headers={"content-type": "application/json"})
    _error(response, 400, code)
    assert _ids(api) == before


def test_join_gives_a_secret_token_per_seat_and_refuses_taken_seats(server: Any, api: httpx.Client) -> None:
    created = support.create_match(api, "masker", {"players": 3}, ["human", "random", "human"])
    match_id = created["id"]
    assert created["status"] == "open"
    assert [s["taken"] for s in created["seats"]] == [False, True, False]

    first = support.join(api, match_id, "alice", 2)
    assert first["match"] == match_id and first["seat"] == 2
    assert re.fullmatch(r"[A-Za-z0-9_-]{40,}", first["token"]), "a token is long and URL-safe"
    again = api.post(f"/api/matches/{match_id}/join", json={"name": "bob", "seat": 2})
    _error(again, 409, "seat_taken")
    bot_seat = api.post(f"/api/matches/{match_id}/join", json={"name": "bob", "seat": 1})
    _error(bot_seat, 409, "seat_taken")
    _error(api.post(f"/api/matches/{match_id}/join", json={"name": "bob", "seat": 3}), 404, "no_seat")
    _error(api.post(f"/api/matches/{match_id}/join", json={"name": "bob", "seat": 99}), 400, "bad_request")
    _error(api.post(f"/api/matches/{match_id}/join", json={"name": "bob", "seat": -1}), 400, "bad_request")
    _error(api.post(f"/api/matches/{match_id}/join", json={"name": ""}), 400, "bad_request")
    _error(api.post(f"/api/matches/{match_id}/join", json={"name": "x" * 41}), 400, "bad_request")
    _error(api.post(f"/api/matches/{match_id}/join", json={"name": "bob", "as": 0}), 400, "bad_request")
    _error(api.post("/api/matches/0123456789abcdef/join", json={"name": "bob"}), 404, "no_match")
    view = support.summary(api, match_id)
    assert view["status"] == "open"
    assert [(s["taken"], s["name"]) for s in view["seats"]] == [
        (False, None),
        (True, "random"),
        (True, "alice"),
    ]

    second = support.join(api, match_id, "bob")  # the first free seat
    assert second["seat"] == 0
    assert second["token"] != first["token"]
    view = support.summary(api, match_id)
    assert view["status"] == "running", "the match starts when every human seat is taken"
    _error(api.post(f"/api/matches/{match_id}/join", json={"name": "carol"}), 409, "no_free_seat")
    _error(api.post(f"/api/matches/{match_id}/join", json={"name": "carol", "seat": 0}), 409, "seat_taken")
    # the lobby never shows a token or the seed
    for listed in (api.get("/api/matches").json(), [support.summary(api, match_id)]):
        text = str(listed)
        assert first["token"] not in text and second["token"] not in text
        for entry in listed:
            assert set(entry) == support.SUMMARY_KEYS
            assert "seed" not in entry and "token" not in str(entry["seats"])


@pytest.mark.parametrize("held_by", ["token", "session"])
def test_a_connection_to_a_seat_that_was_left_is_closed_before_the_next_holder_plays(
    server: Any, api: httpx.Client, held_by: str
) -> None:
    """Someone who joins, connects and leaves must not see the next holder's hand through the
    connection left open, nor play for them: it is told ``seat_changed`` and closed (4409) when it
    leaves, and nothing of the seat reaches it after."""
    from masques.server.accounts import COOKIE

    match_id = support.create_match(api, "mascarade", {"players": 2}, ["human", "human"])["id"]
    with support.browser(server) as alice:
        if held_by == "token":
            token = support.join(alice, match_id, "Alice", 0)["token"]
            old = support.Conn(server.ws_url, match_id, token, 0)
        else:
            support.signed(alice, alice.post("/api/guest", json={"name": "Alice"}))
            assert alice.post(f"/api/matches/{match_id}/join", json={"seat": 0}).status_code == 200
            cookie = {"cookie": f"{COOKIE}={alice.cookies[COOKIE]}", "origin": server.base_url}
            old = support.Conn(server.ws_url, match_id, seat=0, headers=cookie)
        assert old.first_state()["seat"] == 0  # connected to the seat before it is left
        leave = alice.post(
            f"/api/matches/{match_id}/leave", json={"token": token} if held_by == "token" else {}
        )
        assert leave.status_code == 204, leave.text
        assert old.recv_type("error")["code"] == "seat_changed"
        assert old.closed_code() == 4409
        carol = support.join(api, match_id, "Carol", 0)
        support.join(api, match_id, "Bob", 1)
        conn = support.Conn(server.ws_url, match_id, carol["token"], 0)
        assert conn.first_state()["match"]["status"] == "running"
        conn.close()
        assert not any(m.get("type") == "state" and m["match"]["status"] == "running" for m in old.messages)


def test_leave_frees_the_seat_before_the_start_and_is_refused_after(server: Any, api: httpx.Client) -> None:
    created = support.create_match(api, "blokus3d", {"players": 2, "structure": "A"}, ["human", "human"])
    match_id = created["id"]
    alice = support.join(api, match_id, "alice", 0)
    other = support.create_match(api, "masker", {}, ["human", "human"])
    stranger = support.join(api, other["id"], "mallory", 0)

    _error(api.post(f"/api/matches/{match_id}/leave", json={"token": "nope"}), 403, "bad_token")
    _error(api.post(f"/api/matches/{match_id}/leave", json={"token": stranger["token"]}), 403, "bad_token")
    _error(api.post(f"/api/matches/{match_id}/leave", json={"token": ""}), 400, "bad_request")
    _error(api.post(f"/api/matches/{match_id}/leave", json={}), 403, "not_seated")  # no token, no session
    assert support.summary(api, match_id)["seats"][0]["name"] == "alice"

    response = api.post(f"/api/matches/{match_id}/leave", json={"token": alice["token"]})
    assert response.status_code == 204, response.text
    seat = support.summary(api, match_id)["seats"][0]
    assert (seat["taken"], seat["name"]) == (False, None)
    # the old token no longer holds anything
    _error(api.post(f"/api/matches/{match_id}/leave", json={"token": alice["token"]}), 403, "bad_token")
    conn = support.Conn(server.ws_url, match_id, alice["token"], 0)
    assert conn.recv()["code"] == "bad_token"
    assert conn.closed_code() == 4403
    record = api.get(f"/api/matches/{match_id}/record", params={"token": alice["token"]})
    _error(record, 403, "bad_token")

    bob = support.join(api, match_id, "bob", 0)
    carol = support.join(api, match_id, "carol", 1)
    assert support.summary(api, match_id)["status"] == "running"
    for token in (bob["token"], carol["token"]):
        refused = api.post(f"/api/matches/{match_id}/leave", json={"token": token})
        _error(refused, 409, "started")
    view = support.summary(api, match_id)
    assert [s["name"] for s in view["seats"]] == ["bob", "carol"]


@pytest.mark.parametrize(
    ("game", "options", "seats"),
    [("masker", {"players": 2}, 2), ("mascarade", {"players": 3}, 3)],
)
def test_before_the_start_a_seat_sees_what_a_spectator_sees(
    server: Any, api: httpx.Client, game: str, options: dict[str, Any], seats: int
) -> None:
    """The deal is made when a match is created, and a seat may be left and another taken until the
    start: a seat's secrets shown before then would reach whoever held it a moment (a Masker colour,
    a Mascarade hand).  Its view, record and replay are a spectator's until the match runs."""
    match_id = support.create_match(api, game, options, ["human"] * seats)["id"]
    mallory = support.join(api, match_id, "mallory", 0)
    token = {"x-seat-token": mallory["token"]}

    def spectators() -> tuple[Any, Any, Any]:
        conn = support.Conn(server.ws_url, match_id)
        state = conn.first_state()
        conn.close()
        record = api.get(f"/api/matches/{match_id}/record").json()
        replay = api.get(f"/api/matches/{match_id}/replay").json()
        return state["observation"], record["observations"], [v["observation"] for v in replay]

    public = spectators()
    peek = support.Conn(server.ws_url, match_id, mallory["token"], 0)
    seen = peek.first_state()
    peek.close()
    assert (seen["seat"], seen["observation"]) == (0, public[0])
    record = api.get(f"/api/matches/{match_id}/record", headers=token).json()
    assert record["observations"] == public[1]
    replay = api.get(f"/api/matches/{match_id}/replay", headers=token).json()
    assert [v["observation"] for v in replay] == public[2]

    assert api.post(f"/api/matches/{match_id}/leave", json={"token": mallory["token"]}).status_code == 204
    victim = support.join(api, match_id, "victim", 0)
    for seat in range(1, seats):
        support.join(api, match_id, f"p{seat}", seat)
    assert support.summary(api, match_id)["status"] == "running"
    conn = support.Conn(server.ws_url, match_id, victim["token"], 0)
    own = conn.first_state()["observation"]
    conn.close()
    assert own != public[0]  # once it runs, seat 0 sees its own secret, which nobody saw before
    assert (
        api.get(f"/api/matches/{match_id}/record", headers={"x-seat-token": victim["token"]}).json()[
            "observations"
        ][0]
        == own
    )


def test_listing_by_status(server: Any, api: httpx.Client) -> None:
    open_match = support.create_match(api, "masker", {}, ["human", "human"])
    running = support.create_match(api, "masker", {}, ["human", "random"])
    token = support.join(api, running["id"], "alice")["token"]
    finished = support.create_match(api, "masker", {}, ["random", "random"], seed=3)
    spectator = support.Conn(server.ws_url, finished["id"])
    for _ in range(500):
        if spectator.recv_type("state")["to_move"] is None:
            break
    spectator.close()
    listing = {s: _ids(api, s) for s in ("open", "running", "finished", "all")}
    assert open_match["id"] in listing["open"] - listing["running"] - listing["finished"]
    assert running["id"] in listing["running"] - listing["open"] - listing["finished"]
    assert finished["id"] in listing["finished"] - listing["open"] - listing["running"]
    assert {open_match["id"], running["id"], finished["id"]} <= listing["all"]
    assert _ids(api) == listing["all"]
    for entry in api.get("/api/matches").json():
        assert set(entry) == support.SUMMARY_KEYS
    assert token not in api.get("/api/matches").text
    _error(api.get("/api/matches", params={"status": "lost"}), 400, "bad_request")


def test_get_match_and_unknown_matches(api: httpx.Client) -> None:
    created = support.create_match(api, "mascarade", {"players": 2}, ["human", "greedy"])
    assert support.summary(api, created["id"]) == created
    for unknown in ("0123456789abcdef", "x" * 33, "%00", "..%2F..%2Fetc"):
        response = api.get(f"/api/matches/{unknown}")
        assert response.status_code == 404, response.text
        if response.headers.get("content-type", "").startswith("application/json"):
            assert response.json()["code"] in ("no_match", "not_found")  # a path no route takes
    _error(api.get("/api/matches/0123456789abcdef/record"), 404, "no_match")


def test_record_endpoint_as_seat_spectator_and_full(server: Any, api: httpx.Client) -> None:
    """A seat's record is redacted to its own observations; the spectator's to a spectator's; the full
    record only once the match is over (checked after the end in test_games)."""
    created = support.create_match(api, "mascarade", {"players": 2}, ["human", "human"], seed=11)
    match_id = created["id"]
    tokens = {s: support.join(api, match_id, f"p{s}", s)["token"] for s in (0, 1)}
    other = support.create_match(api, "mascarade", {"players": 2}, ["human", "human"])
    foreign = support.join(api, other["id"], "mallory", 0)["token"]
    conns = support.seat_conns(server.ws_url, match_id, tokens)
    support.play_to_end(conns, random.Random(0), stop_after=6)
    for conn in conns:
        conn.close()

    _error(api.get(f"/api/matches/{match_id}/record", params={"full": "true"}), 409, "not_finished")
    _error(api.get(f"/api/matches/{match_id}/record", params={"full": "maybe"}), 400, "bad_request")
    _error(api.get(f"/api/matches/{match_id}/record", params={"token": "guess"}), 403, "bad_token")
    _error(api.get(f"/api/matches/{match_id}/record", params={"token": foreign}), 403, "bad_token")
    _error(api.get(f"/api/matches/{match_id}/record", params={"token": "t" * 201}), 400, "bad_request")

    state = load_game("mascarade", {"players": 2}).new_initial_state(11)
    version = support.summary(api, match_id)["version"]
    records = {}
    for seat in (None, 0, 1):
        params = {} if seat is None else {"token": tokens[seat]}
        response = api.get(f"/api/matches/{match_id}/record", params=params)
        assert response.status_code == 200, response.text
        records[seat] = response.json()
        assert records[seat]["seat"] == seat
        assert len(records[seat]["observations"]) == version + 1
        assert "seed" not in records[seat] and "actions" not in records[seat]
    moves = records[None]["observations"][-1]["moves"]
    observations: dict[int | None, list[Any]] = {None: [], 0: [], 1: []}
    for step in range(version + 1):
        for seat, seen in observations.items():
            seen.append(state.observation(seat))
        if step < version:
            state.apply(moves[step])
    for seat, record in records.items():
        assert record["observations"] == observations[seat]
        hands = [obs["hand"] for obs in record["observations"]]
        assert all(h is None for h in hands) if seat is None else all(h is not None for h in hands)
    # a seat's record never holds the other seat's hand
    assert str(observations[1][-1]["hand"]) not in str(records[0]["observations"][-1])


def test_an_action_sent_as_its_seat_changed_hands_is_refused(tmp_path: Any) -> None:
    """A connection's action that was checked just before its seat was left and taken by someone
    else is refused once the match is locked: it never moves for the next holder."""

    from masques.server.errors import ServerError
    from masques.server.matches import Client
    from masques.server.storage import hash_token

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            _, token = await registry.join(match, "Alice", 0)

            async def send(text: str) -> None:
                pass

            alice = Client(0, send, seat_token=hash_token(token))
            await registry.connect(match, alice)
            await registry.leave(match, 0)  # her action is on its way meanwhile
            await registry.join(match, "Carol", 0)
            await registry.join(match, "Bob", 1)
            action = match.state.legal_actions()[0]
            with pytest.raises(ServerError) as refused:
                await registry.submit(match, 0, action, match.version, holder=alice)
            assert refused.value.code == "seat_changed" and match.version == 0

    support.run_async(scenario())


def test_a_leave_sent_twice_never_frees_the_next_holders_seat(tmp_path: Any) -> None:
    """A second leave, checked while the seat was still its sender's, reaches the lock after the
    first freed the seat and someone else took it: refused, and the new holder keeps the seat, by
    seat token and by the session's player alike; and storage frees a seat only for its holder."""

    from masques.server.errors import ServerError
    from masques.server.matches import Player
    from masques.server.storage import hash_token

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            alice = Player("p-alice", "Alice", "guest")
            registry.storage.create_player(alice.id, alice.kind, alice.name)
            _, token = await registry.join(match, "Alice", 0, player=alice)
            await registry.leave(match, 0, token=token)  # the first leave
            _, bobs = await registry.join(match, "Bob", 0)
            for stale in ({"token": token}, {"player": alice}):  # the second, found seat 0 before
                with pytest.raises(ServerError) as refused:
                    await registry.leave(match, 0, **stale)  # type: ignore[arg-type]
                assert refused.value.status == 403
                assert match.seat_of_token(bobs) == 0
                assert registry.storage.seats(match.id)[0].token_hash == hash_token(bobs)

            assert not registry.storage.release_seat(match.id, 0, hash_token(token))
            assert registry.storage.seats(match.id)[0].name == "Bob"
            await registry.leave(match, 0, token=bobs)  # Bob's own leave still works
            assert not match.seats[0].taken and registry.storage.seats(match.id)[0].token_hash is None

    support.run_async(scenario())


def test_a_resignation_or_claim_checked_before_the_seat_went_to_a_bot_is_refused(tmp_path: Any) -> None:
    """A person's resignation, claim, abort or hand-over of another seat that reaches the match's
    lock after their own seat went to a bot (they ran out of time, say) is refused: a bot plays the
    seat now, and it neither gives up nor decides for the others."""

    from masques.server.errors import ServerError

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 3}, ["human", "human", "human"])
            for seat in range(3):
                await registry.join(match, f"p{seat}", seat)
            mover = match.to_move
            assert mover is not None
            gone = 1 - mover if mover < 2 else 0
            match.seats[gone].away_since = match.now() - 10 * match.grace_seconds
            await registry.hand_to_bot(match, mover, gone)  # the seat found for the request, a bot's now
            for refused_call in (registry.resign, registry.claim, registry.abort):
                with pytest.raises(ServerError) as refused:
                    await refused_call(match, gone)
                assert refused.value.code == "not_seated" and match.status == "running"
            other = next(s for s in range(3) if s not in (gone, mover))
            match.seats[other].away_since = match.now() - 10 * match.grace_seconds
            with pytest.raises(ServerError) as refused:
                await registry.hand_to_bot(match, gone, other)
            assert refused.value.code == "not_seated" and match.seats[other].kind == "human"

    support.run_async(scenario())


def test_a_join_meeting_a_log_in_that_just_seated_the_same_player_is_refused(tmp_path: Any) -> None:
    """A guest logs in (their seat here becomes the account's) while the account joins the same
    match elsewhere: the join, checked against seats not yet read again, is refused by storage
    (409 already_seated) and the account holds one seat."""

    from masques.server.errors import ServerError
    from masques.server.matches import Player

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            guest, account = Player("p-guest", "Gus", "guest"), Player("p-acct", "gus", "account")
            for player in (guest, account):
                registry.storage.create_player(player.id, player.kind, player.name)
            match = await registry.create("masker", {"players": 3}, ["human"] * 3)
            await registry.join(match, "Gus", 0, player=guest)
            assert registry.storage.move_seats(guest.id, account.id, account.name) == [match.id]
            with pytest.raises(ServerError) as refused:  # memory still says seat 0 is the guest's
                await registry.join(match, "gus", 1, player=account)
            assert refused.value.code == "already_seated"
            assert [s.player_id for s in registry.storage.seats(match.id)] == [account.id, None, None]
            assert match.seats[0].player_id == account.id and not match.seats[1].taken

    support.run_async(scenario())


def test_a_guest_join_written_after_its_session_ended_is_refused_and_frees_nothing(tmp_path: Any) -> None:
    """A guest joins while logging in elsewhere: the log-in ends the guest's session as it moves
    its seats.  A join checked before the session ended but written after it is refused (401
    bad_session), in storage and in memory, so the seat is not left to the guest."""

    from masques.server.errors import ServerError
    from masques.server.matches import Player

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            guest = Player("p-guest", "Gus", "guest")
            registry.storage.create_player(guest.id, guest.kind, guest.name)
            registry.storage.create_player("p-acct", "account", "gus")
            registry.storage.create_auth_session("s-gus", guest.id, "csrf")
            match = await registry.create("masker", {"players": 3}, ["human"] * 3)
            registry.storage.move_seats(
                guest.id, "p-acct", "gus", end_session="s-gus"
            )  # the log-in lands first
            with pytest.raises(ServerError) as refused:
                await registry.join(match, "Gus", 0, player=guest, session="s-gus")
            assert (refused.value.status, refused.value.code) == (401, "bad_session")
            assert [s.player_id for s in registry.storage.seats(match.id)] == [None, None, None]
            assert not match.seats[0].taken and match.status == "open"
            registry.storage.create_auth_session("s-gus-2", guest.id, "csrf")
            assert (await registry.join(match, "Gus", 0, player=guest, session="s-gus-2"))[0] == 0

    support.run_async(scenario())


def test_a_rematch_made_as_a_guest_logs_in_seats_the_account(tmp_path: Any) -> None:
    """The last acceptance of a rematch, made as its guest logs in (the old seat goes to the
    account), gives the new match's seat to the account, not to the guest who is gone."""

    from masques.server.matches import Player

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            guest, account = Player("p-guest", "Gus", "guest"), Player("p-acct", "gus", "account")
            for player in (guest, account):
                registry.storage.create_player(player.id, player.kind, player.name)
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            await registry.join(match, "Gus", 0, player=guest)
            await registry.join(match, "Bo", 1)
            await registry.resign(match, 1)
            await registry.answer_rematch(match, 1, True)
            storage = registry.storage

            def seats_then_log_in(match_id: str) -> Any:
                rows = type(storage).seats(storage, match_id)  # the answer reads the seats...
                if match_id == match.id:
                    storage.move_seats(guest.id, account.id, account.name)  # ...then the log-in lands
                return rows

            storage.seats = seats_then_log_in  # type: ignore[method-assign]
            await registry.answer_rematch(match, 0, True)
            del storage.seats
            assert match.rematch is not None and match.rematch["match"]
            again = storage.seats(str(match.rematch["match"]))
            assert [s.player_id for s in again] == [None, account.id]  # seats turned by one

    support.run_async(scenario())
