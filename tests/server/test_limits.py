"""What one client may ask: rate limits (429 with Retry-After, nothing changed), the cap on matches
with bots, the cap on spectators, floods on a WebSocket, and who may choose a match's seed.

Each test runs its own server with tight limits, on SQLite and on PostgreSQL: every request of the
tests comes from 127.0.0.1, so one server's counters would carry over from test to test.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.server.app import FLOOD_CLOSE
from masques.server.limits import Limits, client_key


@pytest.fixture(params=support.BACKENDS)
def serve(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A function that starts a server with the given limits (stopped after the test)."""
    started: list[support.ThreadServer] = []

    def start(**limits: Any) -> support.ThreadServer:
        url = support.fresh_database_url(request.param, tmp_path / f"s{len(started)}")
        server = support.ThreadServer(url, limits=Limits(**limits)).start()
        started.append(server)
        return server

    (tmp_path / "s0").mkdir()
    (tmp_path / "s1").mkdir()
    yield start
    for server in started:
        server.stop()


def _body(game: str, seats: list[str], **extra: Any) -> dict[str, Any]:
    return {"game": game, "options": {"players": len(seats)}, "seats": [{"kind": k} for k in seats], **extra}


def _refused_429(response: httpx.Response, code: str = "rate_limited") -> None:
    assert response.status_code == 429, response.text
    body = response.json()
    assert body["code"] == code
    assert int(response.headers["retry-after"]) >= 1
    assert set(body) == {"code", "message", "retry_after"}, "the schema's RetryBody"
    assert body["retry_after"] == int(response.headers["retry-after"])


def _count(server: support.ThreadServer) -> int:
    return len(support.all_match_ids(server.database_url))


def test_a_burst_of_creations_gets_429_and_creates_nothing(serve: Any) -> None:
    server = serve(rates={"create": "3/minute"})
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        for _ in range(3):
            assert api.post("/api/matches", json=_body("masker", ["human", "human"])).status_code == 201
        before = _count(server)
        for _ in range(5):
            _refused_429(api.post("/api/matches", json=_body("masker", ["human", "human"])))
        assert _count(server) == before == 3
        first = support.all_match_ids(server.database_url)[0]
        _refused_429(api.post(f"/api/matches/{first}/rematch"))  # a rematch is a creation too
        assert _count(server) == 3
        assert api.get("/api/games").status_code == 200  # other requests still served


def test_requests_with_a_session_cookie_that_is_no_good_are_counted_too(serve: Any) -> None:
    """A made-up session cookie is refused (401), but only once the request is counted: a flood of
    them meets the limits like any other, not a database lookup each, for ever."""
    server = serve(rates={"create": "3/minute", "join": "3/minute", "login": "3/minute"})
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        api.cookies.set("masques_session", "made-up")
        headers = {"x-csrf-token": "made-up"}
        sent = [
            ("/api/matches", _body("masker", ["human", "human"])),
            (f"/api/matches/{match_id}/join", {"name": "ann"}),
            ("/api/login", {"username": "nobody", "password": "not the password"}),
        ]
        for path, body in sent:
            answers = [api.post(path, json=body, headers=headers).status_code for _ in range(4)]
            assert 429 not in answers[:2] and answers[-1] == 429, (path, answers)
        assert _count(server) == 1
        assert [s["taken"] for s in support.summary(api, match_id)["seats"]] == [False, False]


def test_changes_from_another_sites_page_are_refused_before_they_are_counted(serve: Any) -> None:
    """A page elsewhere, whose visitors share this client's address, must not use up its limits:
    its requests (a rematch, a hint, an analysis, a log-out, a creation) are refused uncounted."""
    server = serve(rates={"create": "2/minute", "analysis": "2/minute", "api": "30/minute"})
    foreign = {"origin": "https://elsewhere.example"}
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        paths = ["rematch", "hint", "analysis"]
        for _ in range(12):
            for path in paths:
                refused = api.post(f"/api/matches/{match_id}/{path}", headers=foreign)
                assert (refused.status_code, refused.json()["code"]) == (403, "csrf"), refused.text
            refused = api.post("/api/logout", headers=foreign)
            assert (refused.status_code, refused.json()["code"]) == (403, "csrf"), refused.text
            refused = api.post("/api/matches", json=_body("masker", ["human", "human"]), headers=foreign)
            assert (refused.status_code, refused.json()["code"]) == (403, "csrf"), refused.text
        # the page's 60 requests counted nothing: this client still has its own
        assert api.post("/api/matches", json=_body("masker", ["human", "human"])).status_code == 201
        answer = api.post(f"/api/matches/{match_id}/hint")
        assert answer.status_code != 429 and answer.json()["code"] != "csrf", answer.text


def test_a_burst_of_joins_gets_429_and_takes_no_seat(serve: Any) -> None:
    server = serve(rates={"join": "2/minute"})
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "maske", {"players": 4}, ["human"] * 4)["id"]
        support.join(api, match_id, "a")
        support.join(api, match_id, "b")
        _refused_429(api.post(f"/api/matches/{match_id}/join", json={"name": "c"}))
        seats = support.summary(api, match_id)["seats"]
        assert [s["taken"] for s in seats] == [True, True, False, False]


def test_heavy_reads_are_limited(serve: Any) -> None:
    server = serve(rates={"read": "4/minute"})
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        paths = [f"/api/matches/{match_id}/record", f"/api/matches/{match_id}/replay", "/api/matches"]
        answers = [api.get(paths[i % 3]).status_code for i in range(4)]
        assert answers == [200, 200, 200, 200]
        for path in paths:
            _refused_429(api.get(path))
        assert api.get(f"/api/matches/{match_id}").status_code == 200  # a light read is not limited


def test_the_catch_all_limit_covers_every_api_route(serve: Any) -> None:
    server = serve(rates={"api": "5/minute"})
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        codes = [api.get("/api/games").status_code for _ in range(8)]
        assert codes[:5] == [200] * 5
        assert set(codes[5:]) == {429}


def test_websocket_connections_are_limited(serve: Any) -> None:
    server = serve(rates={"connect": "2/minute"})
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    first, second = support.Conn(server.ws_url, match_id), support.Conn(server.ws_url, match_id)
    assert first.first_state()["seat"] is None and second.first_state()["seat"] is None
    third = support.Conn(server.ws_url, match_id)
    error = third.recv_type("error")
    assert error["code"] == "rate_limited" and error["retry_after"] >= 1
    assert third.closed_code() == 4429
    for conn in (first, second):
        conn.close()


def test_a_message_flood_is_refused_and_changes_nothing(serve: Any) -> None:
    server = serve(rates={"message": "5/minute"})
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        tokens = {s: support.join(api, match_id, f"p{s}", s)["token"] for s in (0, 1)}
        conns = support.seat_conns(server.ws_url, match_id, tokens)
        mover = next(c for c in conns if c.state is not None and c.state["your_turn"])
        assert mover.state is not None
        for _ in range(5):
            mover.send({"type": "ping"})
        time.sleep(0.3)
        mover.drain()
        action = mover.state["legal"][0]["id"]
        refused = mover.refused({"type": "action", "action": action, "version": 0})
        assert refused["code"] == "rate_limited" and refused["retry_after"] >= 1
        assert support.summary(api, match_id)["version"] == 0
        assert support.committed_actions(server.database_url, match_id) == []
        for conn in conns:
            conn.close()


def test_a_connection_that_keeps_flooding_is_told_why_and_closed(serve: Any) -> None:
    """Past 50 refusals in a row the connection is closed (1008), after every refusal queued and a
    last error saying why: a client learns why it was cut off."""
    server = serve(rates={"message": "5/minute"})
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    conn = support.Conn(server.ws_url, match_id)
    conn.first_state()
    for _ in range(5 + FLOOD_CLOSE + 1):
        conn.send({"type": "ping"})
    assert conn.closed_code() == 1008
    codes = [m["code"] for m in conn.messages if m["type"] == "error"]
    assert codes == ["rate_limited"] * (FLOOD_CLOSE + 1) + ["flooded"]
    assert "closed" in conn.messages[-1]["message"]


def test_a_client_has_a_few_matches_with_bots_at_once(serve: Any) -> None:
    server = serve(max_bot_matches=2)
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        waiting = support.create_match(api, "masker", {"players": 2}, ["human", "random"])["id"]
        played = support.create_match(api, "masker", {"players": 2}, ["human", "random"])["id"]
        token = support.join(api, played, "ann", 0)["token"]  # one waits for a person, one is played
        before = _count(server)
        refused = api.post("/api/matches", json=_body("masker", ["human", "hard"]))
        _refused_429(refused, code="too_many_bot_matches")
        assert "nobody joins leaves the lobby after 24 h" in refused.json()["message"]  # what to do
        assert _count(server) == before
        # matches of people alone are not capped
        support.create_match(api, "masker", {"players": 2}, ["human", "human"])
        # once a match with bots is over, there is room again
        resigned = api.post(f"/api/matches/{played}/resign", headers={"X-Seat-Token": token})
        assert resigned.status_code == 200, resigned.text
        support.create_match(api, "masker", {"players": 2}, ["human", "hard"])
        assert support.summary(api, waiting)["status"] == "open"


def test_a_match_has_room_for_so_many_spectators(serve: Any) -> None:
    server = serve(max_spectators=2)
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        tokens = {s: support.join(api, match_id, f"p{s}", s)["token"] for s in (0, 1)}
    watchers = [support.Conn(server.ws_url, match_id) for _ in range(2)]
    for watcher in watchers:
        watcher.first_state()
    extra = support.Conn(server.ws_url, match_id)
    assert extra.recv_type("error")["code"] == "too_many_spectators"
    assert extra.closed_code() == 4429
    players = support.seat_conns(server.ws_url, match_id, tokens)  # seats always get in
    assert {c.state["seat"] for c in players if c.state is not None} == {0, 1}
    watchers[0].close()
    deadline = time.monotonic() + support.TIMEOUT  # the server hears of the close a moment later
    while (
        httpx.get(f"{server.base_url}/api/matches/{match_id}", timeout=support.TIMEOUT).json()["spectators"]
        != 1
    ):
        assert time.monotonic() < deadline, "the spectator who left still counts"
        time.sleep(0.05)
    again = support.Conn(server.ws_url, match_id)
    assert again.first_state()["seat"] is None
    for conn in (*players, watchers[1], again):
        conn.close()


def test_a_chosen_seed_needs_at_most_one_person(serve: Any) -> None:
    """Nobody chooses the cards of other people: a seed with two human seats is refused."""
    server = serve(max_bot_matches=10)
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        refused = api.post("/api/matches", json=_body("mascarade", ["human", "human", "random"], seed=7))
        assert refused.status_code == 403
        assert refused.json()["code"] == "seed_not_allowed"
        assert "at most one seat is a person" in refused.json()["message"]
        assert _count(server) == 0
        practice = api.post("/api/matches", json=_body("mascarade", ["human", "random", "random"], seed=7))
        assert practice.status_code == 201 and practice.json()["seeded"] is True
        bots = api.post("/api/matches", json=_body("masker", ["random", "random"], seed=7))
        assert bots.status_code == 201 and bots.json()["seeded"] is True
        dealt = support.create_match(api, "mascarade", {"players": 3}, ["human", "human", "random"])
        assert dealt["seeded"] is False
        listed = {m["id"]: m["seeded"] for m in api.get("/api/matches").json()}
        assert listed[practice.json()["id"]] is True and listed[dealt["id"]] is False


def test_an_events_small_seed_is_warned_of_in_the_log_without_the_seed(
    serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """With seeds allowed everywhere (an operator's event), players at a table dealt by a small
    seed could find it by trying seeds against their own cards: the operator is warned, and the
    seed itself is never logged.  A large seed, or a practice seed, is not warned of."""
    server = serve(max_bot_matches=10, any_seed=True)
    small, large = 48_213, secrets.randbits(128) | 1 << 127
    with (
        httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api,
        caplog.at_level(logging.INFO),
    ):
        event = api.post("/api/matches", json=_body("mascarade", ["human", "human", "random"], seed=small))
        assert event.status_code == 201, event.text
        for seed, seats in ((large, ["human", "human", "random"]), (small, ["human", "random", "random"])):
            assert api.post("/api/matches", json=_body("mascarade", seats, seed=seed)).status_code == 201
    warned = [r for r in caplog.records if getattr(r, "event", None) == "weak_event_seed"]
    assert [getattr(r, "match", None) for r in warned] == [event.json()["id"]]
    logged = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert str(small) not in logged and str(large) not in logged


def test_a_chosen_deal_is_played_by_its_creator_alone(serve: Any) -> None:
    """Its creator knows the cards, and a seed is chosen only where no other person plays: a
    match with a chosen seed is listed and may be watched, but another client may not take its
    seat (the seat is not taken, nothing changed); its creator may."""
    server = serve(max_bot_matches=10)
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        practice = api.post("/api/matches", json=_body("maske", ["human", "random", "random"], seed=1234))
        assert practice.status_code == 201, practice.text
        match_id = practice.json()["id"]
        other = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT, transport=other) as stranger:
            refused = stranger.post(f"/api/matches/{match_id}/join", json={"name": "victim"})
            assert refused.status_code == 403 and refused.json()["code"] == "chosen_deal", refused.text
            assert stranger.get(f"/api/matches/{match_id}").json()["seats"][0]["taken"] is False
            assert stranger.get(f"/api/matches/{match_id}/record").status_code == 200  # watched
        assert support.join(api, match_id, "solo", 0)["seat"] == 0


def test_servers_sharing_a_redis_count_a_client_once() -> None:
    """With several processes behind one Redis, a client's requests to any of them add up."""
    import os
    import secrets

    from masques.server.errors import ServerError
    from masques.server.limits import RateLimiter

    redis_url = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert redis_url, "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh"

    async def scenario() -> ServerError:
        limits = Limits(rates={"create": "3/minute"})
        first, second = RateLimiter(limits, redis_url), RateLimiter(limits, redis_url)
        client = f"ip:test-{secrets.token_hex(4)}"
        for limiter in (first, second, first):
            await limiter.check("create", client)
        with pytest.raises(ServerError) as refused:
            await second.check("create", client)
        await first.check("create", f"{client}-other")  # another client is counted apart
        return refused.value

    refused = support.run_async(scenario())
    assert refused.status == 429 and refused.retry_after is not None and refused.retry_after >= 1


def test_a_burst_sent_at_once_through_a_shared_redis_passes_only_as_far_as_the_limit() -> None:
    """Requests of one client that arrive together all pass the window's test before any is
    counted (each a round trip to Redis): the count decides, so a burst is no way round a limit."""
    import asyncio
    import os
    import secrets

    from masques.server.errors import ServerError
    from masques.server.limits import RateLimiter

    redis_url = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert redis_url, "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh"

    async def scenario() -> int:
        limiter = RateLimiter(Limits(rates={"create": "10/minute"}), redis_url)
        client = f"ip:test-{secrets.token_hex(4)}"

        async def one() -> bool:
            try:
                await limiter.check("create", client)
            except ServerError as refused:
                assert refused.status == 429
                return False
            return True

        return sum(await asyncio.gather(*(one() for _ in range(40))))

    assert support.run_async(scenario()) == 10


def test_a_redis_that_does_not_answer_leaves_each_process_counting_on_its_own() -> None:
    """Rate limits kept in Redis: while Redis is away, requests are still answered (not a server
    error each), and still limited, by this process's own count."""

    from masques.server.errors import ServerError
    from masques.server.limits import RateLimiter

    async def scenario() -> None:
        limiter = RateLimiter(Limits(rates={"create": "2/minute"}), "redis://127.0.0.1:1/0")
        for _ in range(2):
            await limiter.check("create", "ip:away")
        with pytest.raises(ServerError) as refused:
            await limiter.check("create", "ip:away")
        assert refused.value.status == 429

    support.run_async(scenario())


def test_limits_are_read_from_the_environment_and_checked() -> None:
    limits = Limits.from_env(
        {"MASQUES_RATE_LIMITS": "create=5/minute,read=off", "MASQUES_MAX_SPECTATORS": "7"},
        max_bot_matches=1,
    )
    assert limits.rates["create"] == "5/minute" and "read" not in limits.rates
    assert limits.rates["join"] == Limits().rates["join"]
    assert (limits.max_spectators, limits.max_bot_matches, limits.any_seed) == (7, 1, False)
    assert Limits.from_env({"MASQUES_RATE_LIMITS": "off"}).rates == {}
    for bad in ("create", "nonsense=3/minute", "create=often"):
        with pytest.raises(ValueError, match="rate limit"):
            Limits.parse_rates(bad)
    with pytest.raises(ValueError, match="MASQUES_MAX_SPECTATORS"):
        Limits.from_env({"MASQUES_MAX_SPECTATORS": "many"})


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("MASQUES_BOT_TIMEOUT", "-1"),
        ("MASQUES_BOT_TIMEOUT", "0"),
        ("MASQUES_GRACE_SECONDS", "nan"),
        ("MASQUES_GRACE_SECONDS", "inf"),
        ("MASQUES_OPEN_EXPIRY_SECONDS", "1e15"),
        ("MASQUES_MAX_SPECTATORS", "-3"),
        ("MASQUES_MAX_BOT_MATCHES", "inf"),
        ("MASQUES_LEADERBOARD_MIN_GAMES", "-1"),
    ],
)
def test_a_number_out_of_its_range_stops_the_start(variable: str, value: str) -> None:
    """Negative, not-a-number, infinite or date-breaking values are refused when the server starts,
    naming the setting, not found later by a bot that always times out or a sweep that fails."""
    with pytest.raises(ValueError, match=variable):
        Limits.from_env({variable: value})
    flag = variable.removeprefix("MASQUES_").lower()
    with pytest.raises(ValueError, match=variable):
        Limits.from_env({}, **{flag: float(value)})


def test_the_abandoned_seats_bot_is_one_of_the_servers_levels() -> None:
    assert Limits.from_env({"MASQUES_ABANDONED_BOT": "hard"}).abandoned_bot == "hard"
    for bad in ("godlike", "openspiel", ""):
        with pytest.raises(ValueError, match="MASQUES_ABANDONED_BOT"):
            Limits.from_env({"MASQUES_ABANDONED_BOT": bad})


def test_the_analysis_level_is_a_search_level_from_the_environment_or_a_flag() -> None:
    assert Limits.from_env({}).analysis_level == "expert"
    assert Limits.from_env({"MASQUES_ANALYSIS_LEVEL": "hard"}).analysis_level == "hard"
    assert Limits.from_env({"MASQUES_ANALYSIS_LEVEL": "hard"}, analysis_level="easy").analysis_level == "easy"
    for bad in ("greedy", "random", "grandmaster"):
        with pytest.raises(ValueError, match="analysis level"):
            Limits.from_env({"MASQUES_ANALYSIS_LEVEL": bad})


def test_a_rematch_counts_against_the_cap_on_matches_with_bots(serve: Any) -> None:
    """A rematch with bots is one more match with bots of its owner: over the cap it is refused as a
    new match would be, and the offer stays open."""
    server = serve(max_bot_matches=1)
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
        first = support.create_match(api, "masker", {"players": 2}, ["human", "random"])["id"]
        token = support.join(api, first, "ann", 0)["token"]
        resigned = api.post(f"/api/matches/{first}/resign", headers={"X-Seat-Token": token})
        assert resigned.status_code == 200, resigned.text
        support.create_match(api, "masker", {"players": 2}, ["human", "random"])  # at the cap again
        before = _count(server)
        _refused_429(
            api.post(f"/api/matches/{first}/rematch", json={"accept": True}, headers={"X-Seat-Token": token}),
            code="too_many_bot_matches",
        )
        assert _count(server) == before


def test_renaming_a_guest_counts_against_the_catch_all_limit(serve: Any) -> None:
    server = serve(rates={"api": "5/minute"})
    with support.browser(server) as guest:
        support.signed(guest, guest.post("/api/guest", json={"name": "g"}))
        codes = [guest.post("/api/guest", json={"name": f"g{i}"}).status_code for i in range(6)]
        assert codes[:4] == [200] * 4 and codes[4:] == [429, 429]


def test_a_clients_name_is_keyed_with_the_sites_secret() -> None:
    """The same address has the same name under one key, another under another key, and a name
    that nobody can check by hashing every address without the key."""
    plain = hashlib.sha256(b"203.0.113.9").hexdigest()[:20]
    assert client_key("203.0.113.9", b"") == "ip:" + plain  # no key (a tool without a database)
    one, other = client_key("203.0.113.9", b"k" * 32), client_key("203.0.113.9", b"j" * 32)
    assert one != other and plain not in (one, other)
    assert one == client_key("203.0.113.9", b"k" * 32) != client_key("203.0.113.8", b"k" * 32)
    assert len(one) == len("ip:") + 20
