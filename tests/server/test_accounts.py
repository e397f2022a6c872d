"""Accounts, guests and sessions: sign-up, log-in, log-out, password change, CSRF, backoff, and
seats that follow the player to another device.  Every refusal is a 4xx with a code and changes
nothing (read back)."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import masques_server_support as support
import pytest
from masques_server_support import PASSWORD, browser, error, login, signed, signup, unique  # type: ignore[import-not-found]
from sqlalchemy import create_engine, text

from masques.server.accounts import COOKIE, device_cookie, token_hash
from masques.server.errors import ServerError


def rows(url: str, query: str, **params: Any) -> list[Any]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return list(connection.execute(text(query), params))
    finally:
        engine.dispose()


def test_sign_up_log_out_log_in_and_change_password(server: Any) -> None:
    name = unique("Ann")
    with browser(server) as ann, browser(server) as other_device:
        me = signup(ann, name)
        assert me["player"]["kind"] == "account" and me["player"]["username"] == name
        cookie = ann.cookies[COOKIE]
        assert PASSWORD not in str(me) and cookie not in str(me)
        assert ann.get("/api/me").json()["player"]["id"] == me["player"]["id"]
        stored = rows(
            server.database_url, "select password_hash from players where id = :i", i=me["player"]["id"]
        )
        assert stored[0][0].startswith("$argon2id$") and PASSWORD not in stored[0][0]

        login(other_device, name.upper())  # usernames compare without case
        assert other_device.get("/api/me").json()["player"]["id"] == me["player"]["id"]

        assert ann.post("/api/logout").status_code == 204
        assert ann.get("/api/me").json() == {"player": None, "csrf": None}
        ann.cookies.set(COOKIE, cookie)  # the old cookie, kept by someone: the session has ended
        error(ann.post("/api/matches", json={"game": "masker"}), 401, "bad_session")
        ann.cookies.clear()

        error(
            ann.post("/api/login", json={"username": name, "password": PASSWORD + "x"}),
            401,
            "bad_credentials",
        )
        error(
            ann.post("/api/login", json={"username": unique("nobody"), "password": PASSWORD}),
            401,
            "bad_credentials",
        )
        login(ann, name)

        change = {"old_password": "wrong-password-1", "new_password": "another-Pass-77"}
        error(ann.post("/api/password", json=change), 401, "bad_credentials")
        error(
            ann.post("/api/password", json={"old_password": PASSWORD, "new_password": "short"}),
            400,
            "weak_password",
        )
        copied, old_csrf = ann.cookies[COOKIE], ann.headers["x-csrf-token"]
        renewed = signed(ann, ann.post("/api/password", json={**change, "old_password": PASSWORD}))
        assert renewed["player"]["username"] == name and renewed["csrf"] != old_csrf
        assert ann.cookies[COOKIE] != copied  # this browser goes on with a new session
        assert ann.get("/api/me").json()["player"]["username"] == name
        assert other_device.get("/api/me").json()["player"] is None  # the others have ended
        with browser(server) as thief:  # a copy of the cookie from before the change is worth nothing
            thief.cookies.set(COOKIE, copied)
            thief.headers["x-csrf-token"] = old_csrf
            error(thief.get("/api/me/waiting"), 401, "bad_session")
            error(
                thief.post("/api/matches", json={"game": "masker", "seats": [{"kind": "human"}] * 2}),
                401,
                "bad_session",
            )
        error(ann.post("/api/login", json={"username": name, "password": PASSWORD}), 401, "bad_credentials")
        login(ann, name, "another-Pass-77")


def test_nobody_but_the_account_takes_a_name_that_looks_like_its_username(server: Any) -> None:
    """Seats are told apart by their names at the table and in the chat: a guest, or a seat joined
    without a session, may not be named as an account is, nor as its look-alike."""
    username = unique("paul")
    twin = "PAUI" + username[4:]  # a capital i passes for an l
    with browser(server) as owner, browser(server) as other, browser(server) as guest:
        signup(owner, username)
        match_id = support.create_match(other, "masker", {"players": 4}, ["human"] * 4)["id"]
        hidden = ("\u200d", "\u200c", "\ufe0f", "\u034f", "\u3164", "\uffa0", "\u17b4")
        disguised = (
            *(username + mark for mark in hidden),  # a character drawn as nothing, or as a blank
            "".join(chr(ord(c) + 0xFEE0) for c in username),  # full-width letters
        )
        for name in (username, twin, f" {username.upper()} ", *disguised):
            error(other.post(f"/api/matches/{match_id}/join", json={"name": name}), 409, "name_taken")
            error(guest.post("/api/guest", json={"name": name}), 409, "name_taken")
        signed(guest, guest.post("/api/guest", json={"name": "Paula"}))
        error(guest.post("/api/guest", json={"name": twin}), 409, "name_taken")  # nor renamed so
        error(guest.post(f"/api/matches/{match_id}/join", json={"name": username}), 409, "name_taken")
        seats = support.summary(other, match_id)["seats"]
        assert not any(s["taken"] for s in seats)  # the refusals took no seat
        assert support.join(other, match_id, "Paulette")["seat"] == 0
        assert guest.post(f"/api/matches/{match_id}/join", json={}).json()["seat"] == 1
        assert owner.post(f"/api/matches/{match_id}/join", json={}).json()["seat"] == 2  # the account
        names = [s["name"] for s in support.summary(other, match_id)["seats"]][:3]
        assert names == ["Paulette", "Paula", username]


def test_a_name_with_look_alike_digits_dashes_or_letters_is_an_account_s(server: Any) -> None:
    """Usernames hold digits and dashes too: a Cyrillic "З" passes for a 3, a "б" for a 6, a
    Unicode hyphen or minus sign for "-"; and a Greek lunate sigma passes for a "c" (though its
    compatibility form is a final sigma)."""
    base = unique("mac")
    username = f"{base}-36"
    twins = (
        f"{base}\u2010\u04176",  # a hyphen, a Cyrillic capital ze
        f"{base}\u22123\u0431",  # a minus sign, a Cyrillic small be
        f"{base}\u2011\u0417\u0431",
        f"ma\u03f2{base[3:]}-36",  # a Greek lunate sigma
    )
    with browser(server) as owner, browser(server) as other, browser(server) as guest:
        signup(owner, username)
        match_id = support.create_match(other, "masker", {"players": 2}, ["human"] * 2)["id"]
        for twin in twins:
            error(other.post(f"/api/matches/{match_id}/join", json={"name": twin}), 409, "name_taken")
            error(guest.post("/api/guest", json={"name": twin}), 409, "name_taken")
        assert not any(s["taken"] for s in support.summary(other, match_id)["seats"])
        assert guest.get("/api/me").json()["player"] is None  # no guest was made


@pytest.mark.parametrize(
    ("username", "password", "code"),
    [
        ("ab", PASSWORD, "bad_username"),
        ("9lives", PASSWORD, "bad_username"),
        ("has space", PASSWORD, "bad_username"),
        ("x" * 21, PASSWORD, "bad_username"),
        ("<script>", PASSWORD, "bad_username"),
        ("validname", "short1", "weak_password"),
        ("validname", "password123", "weak_password"),
        ("validname", "my-validname-pw", "weak_password"),
        ("validname", "aaaaaaaaaaaa", "weak_password"),
        ("validname", "aa123456", "weak_password"),  # in every leaked-password list
        ("validname", "Password1!", "weak_password"),
        ("validname", "qwerty1234", "weak_password"),
        ("validname", "abcdefgh", "weak_password"),
        ("Expert_bot", PASSWORD, "bad_username"),  # reads as a bot's name
        ("hard-bot", PASSWORD, "bad_username"),
        ("Administrator", PASSWORD, "bad_username"),
    ],
)
def test_malformed_usernames_and_weak_passwords_are_refused(
    server: Any, username: str, password: str, code: str
) -> None:
    before = rows(server.database_url, "select count(*) from players")[0][0]
    with browser(server) as client:
        error(client.post("/api/signup", json={"username": username, "password": password}), 400, code)
        assert COOKIE not in client.cookies
    assert rows(server.database_url, "select count(*) from players")[0][0] == before


def test_a_taken_username_is_refused_whatever_its_case(server: Any) -> None:
    name = unique("Bob")
    with browser(server) as first, browser(server) as second:
        signup(first, name)
        before = rows(server.database_url, "select count(*) from players")[0][0]
        error(
            second.post("/api/signup", json={"username": name.lower(), "password": PASSWORD}),
            409,
            "username_taken",
        )
        assert rows(server.database_url, "select count(*) from players")[0][0] == before
        for bad in (
            {},
            {"username": name},
            {"username": name, "password": 5},
            {"username": name, "password": ""},
        ):
            error(second.post("/api/login", json=bad), 400, "bad_request")


@pytest.mark.parametrize(
    ("taken", "twin"), [("paul", "pauI"), ("Colm", "Colrn"), ("Boon", "Bo0n"), ("vvill", "will")]
)
def test_a_username_that_looks_like_a_taken_one_is_refused(server: Any, taken: str, twin: str) -> None:
    """ "pauI" (capital i) would pass for "paul" at the table: one of them is an account, whichever
    way the other tries to become one (a new account or a guest signing up)."""
    suffix = unique("_")
    with browser(server) as first, browser(server) as second:
        signup(first, taken + suffix)
        before = rows(server.database_url, "select count(*) from players where kind = 'account'")[0][0]
        response = second.post("/api/signup", json={"username": twin + suffix, "password": PASSWORD})
        error(response, 409, "username_taken")
        assert repr(taken + suffix) in response.json()["message"]
        signed(second, second.post("/api/guest", json={"name": "Visitor"}))
        error(
            second.post("/api/signup", json={"username": twin + suffix, "password": PASSWORD}),
            409,
            "username_taken",
        )
        assert second.get("/api/me").json()["player"]["kind"] == "guest"
        assert (
            rows(server.database_url, "select count(*) from players where kind = 'account'")[0][0] == before
        )
        login(second, taken + suffix)  # the account itself is unchanged
        error(
            first.post("/api/login", json={"username": twin + suffix, "password": PASSWORD}),
            401,
            "bad_credentials",
        )


def test_changes_with_a_session_need_the_csrf_token(server: Any) -> None:
    with browser(server) as client:
        signup(client, unique("Cid"))
        csrf = client.headers.pop("x-csrf-token")
        body = {"game": "masker", "options": {"players": 2}}
        before = len(support.all_match_ids(server.database_url))
        error(client.post("/api/matches", json=body), 403, "csrf")
        error(client.post("/api/matches", json=body, headers={"x-csrf-token": "forged"}), 403, "csrf")
        error(client.post("/api/logout"), 403, "csrf")
        assert len(support.all_match_ids(server.database_url)) == before
        assert client.get("/api/me").json()["player"] is not None  # reads need no token; still signed in
        assert client.post("/api/matches", json=body, headers={"x-csrf-token": csrf}).status_code == 201


def test_a_request_from_another_sites_page_is_refused(server: Any) -> None:
    with browser(server) as client:
        foreign = {"origin": "https://evil.example"}
        before = len(support.all_match_ids(server.database_url))
        error(client.post("/api/matches", json={"game": "masker"}, headers=foreign), 403, "csrf")
        error(
            client.post(
                "/api/signup", json={"username": unique("Eve"), "password": PASSWORD}, headers=foreign
            ),
            403,
            "csrf",
        )
        assert len(support.all_match_ids(server.database_url)) == before
        assert COOKIE not in client.cookies
        for garbled in ("http://[oops", "http://[::1", "null"):  # not a URL: not ours either (was a 500)
            error(client.post("/api/guest", json={}, headers={"origin": garbled}), 403, "csrf")
        host = server.base_url.split("://", 1)[1]
        for scheme in ("ws", "evil", "chrome-extension"):  # no page of this site has those schemes
            error(client.post("/api/guest", json={}, headers={"origin": f"{scheme}://{host}"}), 403, "csrf")
        secure = {"origin": f"https://{host}"}  # behind a proxy that ends TLS the pages are https
        assert client.post("/api/matches", json={"game": "masker"}, headers=secure).status_code == 201
        tls = {"x-forwarded-proto": "https"}  # a secure site (its proxy says): no plain page acts on it
        plain = {"origin": f"http://{host}", **tls}
        error(client.post("/api/matches", json={"game": "masker"}, headers=plain), 403, "csrf")
        assert (
            client.post("/api/matches", json={"game": "masker"}, headers={**secure, **tls}).status_code == 201
        )
        assert COOKIE not in client.cookies
        own = {"origin": server.base_url}
        assert client.post("/api/matches", json={"game": "masker"}, headers=own).status_code == 201


def test_forged_and_expired_sessions_are_refused(server: Any) -> None:
    with browser(server) as client:
        client.cookies.set(COOKIE, "forged-session-token")
        client.headers["x-csrf-token"] = "whatever"
        match_id = support.create_match(
            httpx.Client(base_url=server.base_url), "masker", {"players": 2}, ["human"] * 2
        )["id"]
        error(client.post(f"/api/matches/{match_id}/join", json={"name": "x"}), 401, "bad_session")
        assert not any(s["taken"] for s in support.summary(client, match_id)["seats"])
        with httpx.Client(base_url=server.base_url) as fresh:  # a seat taken by token, elsewhere
            token = support.join(fresh, match_id, "tok", 0)["token"]
        # the token holds its seat whatever stale cookie comes with it (as on the WebSocket)
        answer = client.post(f"/api/matches/{match_id}/leave", json={"token": token})
        assert answer.status_code == 204, answer.text
        assert not any(s["taken"] for s in support.summary(client, match_id)["seats"])
        response = client.get("/api/me")
        assert response.json() == {"player": None, "csrf": None}
        assert COOKIE in response.headers.get("set-cookie", "")  # the stale cookie is cleared

    with browser(server) as client:
        me = signup(client, unique("Old"))
        past = datetime.now(UTC) - timedelta(days=31)
        engine = create_engine(server.database_url)
        with engine.begin() as connection:
            connection.execute(
                text("update auth_sessions set last_seen = :t where player_id = :p"),
                {"t": past, "p": me["player"]["id"]},
            )
        engine.dispose()
        error(client.post(f"/api/matches/{match_id}/join", json={"name": "x"}), 401, "bad_session")
        assert client.get("/api/me").json()["player"] is None


def test_failed_logins_back_off(server: Any) -> None:
    name = unique("Dan")
    with browser(server) as owner, browser(server) as attacker:
        signup(owner, name)
        codes = [
            attacker.post("/api/login", json={"username": name, "password": f"guess-{i}-xyz"}).status_code
            for i in range(7)
        ]
        assert codes[:4] == [401] * 4 and 429 in codes[4:], codes
        response = attacker.post("/api/login", json={"username": name, "password": PASSWORD})
        error(response, 429, "too_many_attempts")  # even the right password waits
        assert int(response.headers["retry-after"]) >= 1
        assert COOKIE not in attacker.cookies
        assert owner.get("/api/me").json()["player"]["username"] == name  # the owner's session is untouched


def test_guesses_from_many_addresses_do_not_lock_out_the_owners_browser(server: Any) -> None:
    """Each address gets four free guesses at a username, and the username thirty from everywhere;
    after those a stranger's browser waits even with the right password, while a browser that
    logged in to the account before (its device cookie) still gets in from its own address."""
    name = unique("Gus")
    subnet = f"203.0.{secrets.randbelow(250)}"
    with browser(server) as owner, browser(server) as stranger:
        me = signup(owner, name)
        cookie = device_cookie(me["player"]["id"])
        device = next(c for c in owner.cookies.jar if c.name == cookie)
        assert device.path == "/api/login" and device.has_nonstandard_attr("HttpOnly")
        stored = rows(server.database_url, "select token_hash from login_devices")
        assert device.value not in str(stored) and (token_hash(device.value),) in [tuple(r) for r in stored]
        assert owner.post("/api/logout").status_code == 204
        codes = [
            stranger.post(
                "/api/login",
                json={"username": name, "password": f"guess-{i}-xyz"},
                headers={"x-forwarded-for": f"{subnet}.{i % 8}"},
            ).status_code
            for i in range(32)  # four from each of eight addresses
        ]
        assert codes[:30] == [401] * 30 and codes[30:] != [401] * 2, codes
        fresh = {"x-forwarded-for": f"{subnet}.99"}
        late = stranger.post("/api/login", json={"username": name, "password": PASSWORD}, headers=fresh)
        error(late, 429, "too_many_attempts")
        # a device cookie the site did not make for this account names no one
        stranger.cookies.set(cookie, device.value + "x", path="/api/login")
        late = stranger.post("/api/login", json={"username": name, "password": PASSWORD}, headers=fresh)
        error(late, 429, "too_many_attempts")
        login(owner, name)  # the owner's own browser, from its own address
        assert owner.get("/api/me").json()["player"]["username"] == name


def test_guesses_sent_all_at_once_are_counted_before_any_is_checked(server: Any) -> None:
    """Forty wrong passwords at once, from forty addresses: the username's thirty free failures
    are counted as the guesses arrive, so at most thirty-one are checked at all."""
    name = unique("Ola")
    subnet = f"198.51.{secrets.randbelow(250)}"
    with browser(server) as owner:
        signup(owner, name)

    async def burst() -> list[int]:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as client:
            answers = await asyncio.gather(
                *(
                    client.post(
                        "/api/login",
                        json={"username": name, "password": f"guess-{i}-xyz"},
                        headers={"x-forwarded-for": f"{subnet}.{i}"},
                    )
                    for i in range(40)
                )
            )
        return [a.status_code for a in answers]

    codes = support.run_async(burst())
    assert set(codes) == {401, 429} and codes.count(401) <= 31, codes


def test_a_known_browser_still_backs_off_after_its_own_failures(server: Any) -> None:
    """A device cookie lifts only the lockout by others: its own address's failures count."""
    name = unique("Ida")
    with browser(server) as owner:
        signup(owner, name)
        assert owner.post("/api/logout").status_code == 204
        codes = [
            owner.post("/api/login", json={"username": name, "password": f"typo-{i}-xyz"}).status_code
            for i in range(6)
        ]
        assert codes[:4] == [401] * 4 and 429 in codes[4:], codes


def test_a_browser_knows_each_account_it_logged_in_to(server: Any) -> None:
    """Signing up a second account in a browser keeps its cookie for the first one."""
    with browser(server) as shared:
        first = signup(shared, unique("Una"))
        assert shared.post("/api/logout").status_code == 204
        second = signup(shared, unique("Vic"))
        names = {c.name for c in shared.cookies.jar}
        assert {device_cookie(first["player"]["id"]), device_cookie(second["player"]["id"])} <= names


def test_a_login_guards_counts_are_forgotten_an_hour_after_the_last_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from masques.server import accounts

    now = [1000.0]
    monkeypatch.setattr(accounts.time, "monotonic", lambda: now[0])
    guard = accounts.LoginGuard()
    keys = accounts.attempt_keys("kim", "ip:abc", known_device=False)
    assert keys == ("try:kim|ip:abc", "ip:abc", "user:kim")
    assert accounts.attempt_keys("kim", "ip:abc", known_device=True) == keys[:2]

    async def fail(times: int) -> None:
        for _ in range(times):
            await guard.attempt(*keys)

    support.run_async(fail(5))
    with pytest.raises(ServerError) as refused:
        support.run_async(guard.attempt(*keys))
    assert refused.value.status == 429
    now[0] += accounts.LoginGuard.KEEP + 1
    support.run_async(fail(4))  # the first four again, free
    support.run_async(guard.succeeded(*keys))  # the fourth was right: its count is taken back
    support.run_async(fail(4))  # and this username from this address starts afresh


@pytest.mark.parametrize("shared", [False, True])
def test_a_right_password_takes_back_only_its_own_count(shared: bool) -> None:
    """A right attempt clears the username's count from its address, and takes one off the
    address's and the username's counts (the others' failures there still count)."""
    from masques.server import accounts

    async def scenario() -> None:
        if shared:
            import redis

            url = os.environ["MASQUES_TEST_REDIS_URL"].rsplit("/", 1)[0] + "/9"  # no other test's
            redis.Redis.from_url(url).flushdb()
            guard: accounts.LoginGuard = accounts.SharedLoginGuard(url)
        else:
            guard = accounts.LoginGuard()
        try:
            others = [accounts.attempt_keys("lea", f"ip:{n}", known_device=False) for n in range(29)]
            for keys in others:
                await guard.attempt(*keys)
            mine = accounts.attempt_keys("lea", "ip:me", known_device=False)
            await guard.attempt(*mine)
            await guard.succeeded(*mine)
            await guard.attempt(*accounts.attempt_keys("lea", "ip:x", known_device=False))  # the 30th
            await guard.attempt(*accounts.attempt_keys("lea", "ip:y", known_device=False))  # the 31st
            with pytest.raises(ServerError):
                await guard.attempt(*accounts.attempt_keys("lea", "ip:z", known_device=False))
            await guard.attempt(*mine[:2])  # a known browser still may
            # an address at its last free failure: a right log-in there sets no wait for the next
            for n in range(accounts.LoginGuard.FREE_ADDRESS):
                await guard.attempt(*accounts.attempt_keys(f"u{n}", "ip:nat", known_device=True))
            right = accounts.attempt_keys("ray", "ip:nat", known_device=True)
            await guard.attempt(*right)
            await guard.succeeded(*right)
            await guard.attempt(*accounts.attempt_keys("sue", "ip:nat", known_device=True))
        finally:
            await guard.close()

    support.run_async(scenario())


UNNAMED = [({}, "Guest"), ({"lang": "en"}, "Guest"), ({"lang": "fr"}, "Invité")]


@pytest.mark.parametrize(("body", "name"), UNNAMED)
def test_a_guest_without_a_name_is_named_in_the_pages_language(
    server: Any, body: dict[str, str], name: str
) -> None:
    with browser(server) as guest:
        assert signed(guest, guest.post("/api/guest", json=body))["player"]["name"] == name


@pytest.mark.parametrize(
    "body", [{"lang": "de"}, {"lang": 1}, {"name": "Invité"}, {"name": "GUEST 2"}, {"name": "Invitées"}]
)
def test_the_sites_guest_names_and_unknown_languages_are_refused(server: Any, body: dict[str, Any]) -> None:
    """Nobody types the site's word for a guest as their name: a default name reads as no name."""
    with browser(server) as guest:
        error(guest.post("/api/guest", json=body), 400, "bad_request")
        assert guest.get("/api/me").json()["player"] is None


def test_a_guest_plays_then_signs_up_and_keeps_the_match(server: Any) -> None:
    with browser(server) as guest:
        me = signed(guest, guest.post("/api/guest", json={"name": "Gus"}))
        assert me["player"]["kind"] == "guest" and me["player"]["name"] == "Gus"
        again = signed(guest, guest.post("/api/guest", json={}))
        assert again["player"]["id"] == me["player"]["id"]  # one guest per browser
        match_id = support.create_match(guest, "masker", {"players": 2}, ["human", "random"])["id"]
        joined = guest.post(f"/api/matches/{match_id}/join", json={})
        assert joined.status_code == 200, joined.text
        error(guest.post(f"/api/matches/{match_id}/join", json={}), 409, "already_seated")
        seat = support.summary(guest, match_id)["seats"][0]
        assert seat["player"] == {"id": me["player"]["id"], "name": "Gus", "kind": "guest"}

        name = unique("Gus")
        account = signup(guest, name)
        assert account["player"]["id"] == me["player"]["id"] and account["player"]["kind"] == "account"
        seat = support.summary(guest, match_id)["seats"][0]
        assert seat["player"]["id"] == me["player"]["id"] and seat["name"] == name
        mine = guest.get("/api/me/matches").json()
        assert [m["id"] for m in mine] == [match_id] and mine[0]["my_seat"] == 0


def test_the_seat_follows_the_player_to_another_device(server: Any) -> None:
    name = unique("Eve")
    with browser(server) as laptop, browser(server) as phone, browser(server) as friend:
        signup(laptop, name)
        signed(friend, friend.post("/api/guest", json={"name": "Fay"}))
        match_id = support.create_match(laptop, "masker", {"players": 2}, ["human", "human"])["id"]
        watcher = support.Conn(server.ws_url, match_id)
        first = watcher.first_state()["to_move"]  # the laptop's owner takes the seat that moves first
        watcher.close()
        assert laptop.post(f"/api/matches/{match_id}/join", json={"seat": first}).status_code == 200
        assert friend.post(f"/api/matches/{match_id}/join", json={"seat": 1 - first}).status_code == 200

        login(phone, name)  # another device, no seat token anywhere
        cookie = f"{COOKIE}={phone.cookies[COOKIE]}"
        conn = support.Conn(server.ws_url, match_id, headers={"cookie": cookie, "origin": server.base_url})
        state = conn.first_state()
        assert state["seat"] == first and state["your_turn"] is True
        conn.act(state["legal"][0]["id"], state["version"])
        assert conn.wait_version(1)["version"] == 1
        record = phone.get(f"/api/matches/{match_id}/record").json()
        assert record["seat"] == first  # the cookie's seat for reads too
        conn.close()

        # the same cookie from another site's page is refused; without it, a spectator
        refused = support.Conn(
            server.ws_url, match_id, headers={"cookie": cookie, "origin": "https://evil.example"}
        )
        assert refused.recv()["code"] == "csrf"
        garbled = support.Conn(server.ws_url, match_id, headers={"cookie": cookie, "origin": "http://[oops"})
        assert garbled.recv()["code"] == "csrf"
        stranger = support.Conn(server.ws_url, match_id)
        assert stranger.first_state()["seat"] is None
        stranger.close()


def test_a_guest_who_logs_in_brings_their_seats(server: Any) -> None:
    name = unique("Hal")
    with browser(server) as home, browser(server) as cafe:
        signup(home, name)
        signed(cafe, cafe.post("/api/guest", json={"name": "Hal?"}))
        match_id = support.create_match(cafe, "masker", {"players": 2}, ["human", "human"])["id"]
        assert cafe.post(f"/api/matches/{match_id}/join", json={}).status_code == 200
        me = login(cafe, name)
        seat = support.summary(cafe, match_id)["seats"][0]
        assert seat["player"]["id"] == me["player"]["id"] and seat["name"] == name
        assert [m["id"] for m in home.get("/api/me/matches").json()] == [match_id]


def test_a_guest_seated_where_the_account_is_keeps_that_seat_when_logging_in(server: Any) -> None:
    """One player, one seat per match: the guest's seat at a table where the account already sits
    stays the guest's (its token still plays it); the account keeps its own."""
    name = unique("Ivo")
    with browser(server) as home, browser(server) as cafe:
        account = signup(home, name)
        match_id = support.create_match(home, "masker", {"players": 2}, ["human", "human"])["id"]
        assert home.post(f"/api/matches/{match_id}/join", json={"seat": 0}).status_code == 200
        guest = signed(cafe, cafe.post("/api/guest", json={"name": "Ivo?"}))
        token = cafe.post(f"/api/matches/{match_id}/join", json={"seat": 1}).json()["token"]
        login(cafe, name)
        seats = support.summary(cafe, match_id)["seats"]
        assert seats[0]["player"]["id"] == account["player"]["id"]
        assert seats[1]["player"]["id"] == guest["player"]["id"] and seats[1]["name"] == "Ivo?"
        conn = support.Conn(server.ws_url, match_id, token, 1)
        assert conn.first_state()["seat"] == 1
        conn.close()


def test_a_cookie_whose_session_ended_does_not_stand_in_the_way_of_a_new_one(server: Any) -> None:
    """A new password elsewhere ends this browser's session: logging in, signing up or becoming
    a guest with its stale cookie starts afresh rather than answering bad_session."""
    name = unique("Kai")
    passwords = [PASSWORD, "Brand-new-pass-77"]
    with browser(server) as other:
        signup(other, name)

        def ended(client: httpx.Client) -> None:
            """Log ``client`` in, then change the password from ``other``: its cookie is stale."""
            login(client, name, passwords[0])
            change = {"old_password": passwords[0], "new_password": passwords[1]}
            signed(other, other.post("/api/password", json=change))
            passwords.reverse()  # (asking /api/me now would clear the stale cookie: it is kept)

        for way in ("login", "signup", "guest"):
            with browser(server) as stale:
                ended(stale)
                if way == "login":
                    assert login(stale, name, passwords[0])["player"]["username"] == name
                elif way == "signup":
                    assert signup(stale, unique("Lou"))["player"]["kind"] == "account"
                else:
                    made = signed(stale, stale.post("/api/guest", json={"name": "Kai"}))
                    assert made["player"]["kind"] == "guest"


def test_a_log_in_checked_while_the_password_changed_opens_no_session(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The password changes (and the account's sessions end) while a log-in with the old one is
    being checked: that log-in is refused and leaves no session behind."""
    from masques.server import accounts

    name = unique("Max")
    with browser(server) as owner, browser(server) as late:
        me = signup(owner, name)
        checking = accounts.verify_password

        storage = server.app.state.storage
        own_session = token_hash(owner.cookies[COOKIE])

        async def changed_meanwhile(stored: str | None, password: str) -> bool:
            right = await checking(stored, password)
            if stored is not None:  # the owner's change lands now, as /api/password would make it
                digest = await accounts.hash_password("Brand-new-pass-77")
                await asyncio.to_thread(storage.update_player, me["player"]["id"], password_hash=digest)
                await asyncio.to_thread(storage.end_auth_sessions, me["player"]["id"], keep=own_session)
            return right

        monkeypatch.setattr(accounts, "verify_password", changed_meanwhile)
        refused = late.post("/api/login", json={"username": name, "password": PASSWORD})
        monkeypatch.setattr(accounts, "verify_password", checking)
        error(refused, 401, "bad_credentials")
        sessions = rows(
            server.database_url,
            "select count(*) from auth_sessions where player_id = :p",
            p=me["player"]["id"],
        )
        assert sessions[0][0] == 1  # the owner's own, kept by its change
        assert late.get("/api/me").json()["player"] is None


def test_of_two_password_changes_at_once_one_wins_and_the_other_is_refused(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions change the password at once: the one that lands first stands (its sessions'
    ending with it), the other is refused with 409, not acknowledged and lost."""
    from masques.server import accounts

    name = unique("Twice")
    with browser(server) as first, browser(server) as second:
        me = signup(first, name)
        login(second, name)
        checking = accounts.verify_password
        storage = server.app.state.storage

        async def changed_meanwhile(stored: str | None, password: str) -> bool:
            right = await checking(stored, password)
            digest = await accounts.hash_password("First-new-pass-77")
            assert await asyncio.to_thread(storage.set_password, me["player"]["id"], digest, was=stored) == []
            return right

        monkeypatch.setattr(accounts, "verify_password", changed_meanwhile)
        change = {"old_password": PASSWORD, "new_password": "Second-new-pass-77"}
        refused = second.post("/api/password", json=change)
        monkeypatch.setattr(accounts, "verify_password", checking)
        error(refused, 409, "password_changed")
        assert second.get("/api/me").json()["player"] is None  # its session ended with the change
        assert first.get("/api/me").json()["player"] is None
    with browser(server) as again:
        login(again, name, "First-new-pass-77")
        error(
            again.post("/api/login", json={"username": name, "password": "Second-new-pass-77"}),
            401,
            "bad_credentials",
        )


def test_a_new_password_and_what_it_ends_are_one_write(tmp_path: Any) -> None:
    """The sessions, seat tokens and known browsers end in the transaction that sets the password:
    a crash between them cannot leave the new password with an old session alive."""
    from masques.server.storage import Storage

    storage = Storage(f"sqlite:///{tmp_path / 'accounts.db'}")
    storage.migrate()
    storage.create_player(
        "p-1", "account", "Ann", username_key="ann", username_look="ann", password_hash="old"
    )
    storage.create_auth_session("s-1", "p-1", "csrf")
    assert storage.set_password("p-1", "newer", was="stale") is None  # changed meanwhile: nothing done
    assert storage.player("p-1").password_hash == "old"  # type: ignore[union-attr]
    assert storage.auth_session("s-1", 3600, 60) is not None
    assert storage.set_password("p-1", "new", was="old") == []
    assert storage.player("p-1").password_hash == "new"  # type: ignore[union-attr]
    assert storage.auth_session("s-1", 3600, 60) is None
    with pytest.raises(LookupError):
        storage.set_password("p-nobody", "new")
    storage.engine.dispose()


def test_secrets_are_never_logged_nor_sent_back(server: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    name = unique("Ivy")
    with browser(server) as client:
        answers = [client.post("/api/signup", json={"username": name, "password": PASSWORD})]
        client.headers["x-csrf-token"] = answers[0].json()["csrf"]
        answers.append(client.post("/api/login", json={"username": name, "password": PASSWORD}))
        client.headers["x-csrf-token"] = answers[1].json()["csrf"]
        answers.append(
            client.post("/api/password", json={"old_password": PASSWORD, "new_password": "Second-pass-88"})
        )
        answers.append(client.get("/api/me"))
        token = client.cookies[COOKIE]
    stored = rows(
        server.database_url, "select password_hash from players where username_key = :k", k=name.casefold()
    )
    for answer in answers:
        assert PASSWORD not in answer.text and "Second-pass-88" not in answer.text
        assert stored[0][0] not in answer.text and "argon2" not in answer.text
    client_side = ("httpx", "httpcore")  # this test's own client logs what it sends and gets
    logged = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith(client_side))
    for secret in (PASSWORD, "Second-pass-88", token, stored[0][0]):
        assert secret not in logged


def test_a_disabled_account_cannot_log_in_and_its_sessions_end(server: Any) -> None:
    name = unique("Jo")
    with browser(server) as client, browser(server) as again:
        me = signup(client, name)
        engine = create_engine(server.database_url)
        with engine.begin() as connection:
            connection.execute(
                text("update players set disabled = :d where id = :i"), {"d": True, "i": me["player"]["id"]}
            )
        engine.dispose()
        assert client.get("/api/me").json()["player"] is None
        error(
            again.post("/api/login", json={"username": name, "password": PASSWORD}), 403, "account_disabled"
        )
        error(
            again.post("/api/password", json={"old_password": PASSWORD, "new_password": "Another-1-pass"}),
            401,
            "no_session",
        )


def test_a_disabled_account_is_in_no_rematch(server: Any, api: httpx.Client) -> None:
    """An account disabled after the end takes no seat in a rematch, even one it accepted before:
    the last acceptance is refused with 409, and no new match is made."""
    with browser(server) as jo, browser(server) as al:
        me = signup(jo, unique("Jo"))
        signup(al, unique("Al"))
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        for client in (jo, al):
            assert client.post(f"/api/matches/{match_id}/join", json={}).status_code == 200
        assert jo.post(f"/api/matches/{match_id}/resign").status_code == 200
        assert jo.post(f"/api/matches/{match_id}/rematch").status_code == 200
        engine = create_engine(server.database_url)
        with engine.begin() as connection:
            connection.execute(
                text("update players set disabled = :d where id = :i"), {"d": True, "i": me["player"]["id"]}
            )
        engine.dispose()
        error(al.post(f"/api/matches/{match_id}/rematch"), 409, "rematch_unavailable")
        assert support.summary(api, match_id)["rematch"]["match"] is None
        assert al.post(f"/api/matches/{match_id}/rematch", json={"accept": False}).status_code == 200


def test_the_session_cookie_is_httponly_samesite_and_secure_over_https(server: Any) -> None:
    with browser(server) as client:
        plain = client.post("/api/guest", json={}).headers["set-cookie"].lower()
        assert "httponly" in plain and "samesite=lax" in plain and "secure" not in plain
    with browser(server) as client:  # behind a TLS proxy on the same host (uvicorn trusts 127.0.0.1)
        proxied = client.post("/api/guest", json={}, headers={"x-forwarded-proto": "https"})
        cookie = proxied.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "; secure" in cookie
    with browser(server) as client:  # the cookie's removal carries the same attributes
        signup(client, unique("Cleo"))
        gone = client.post("/api/logout").headers["set-cookie"].lower()
        assert "max-age=0" in gone and "httponly" in gone and "samesite=lax" in gone
        client.cookies.set(COOKIE, "not-a-session")
        stale = client.get("/api/me").headers["set-cookie"].lower()
        assert "max-age=0" in stale and "httponly" in stale and "samesite=lax" in stale


def test_over_https_a_cookie_planted_from_another_subdomain_is_no_session(server: Any) -> None:
    """A page of a sibling subdomain (or a plain-http one on the way) can set a cookie for the
    whole domain under the session cookie's name, after the real one: the server would read the
    last.  Over HTTPS the session cookie is a ``__Host-`` one, which only this host, over HTTPS,
    can set: a planted cookie of the plain name is nobody's session."""
    tls = {"x-forwarded-proto": "https"}  # behind a TLS proxy on the same host (uvicorn trusts 127.0.0.1)
    with browser(server) as victim, browser(server) as attacker:
        credentials = {"username": unique("Vic"), "password": PASSWORD}
        answer = victim.post("/api/signup", json=credentials, headers=tls)
        assert answer.status_code == 201
        cookie = next(c for c in answer.headers.get_list("set-cookie") if "session" in c.split("=")[0])
        name, token = cookie.split(";")[0].split("=", 1)
        assert name == "__Host-" + COOKIE and "; secure" in cookie.lower() and "domain" not in cookie.lower()
        planted = attacker.post("/api/guest", json={"name": "Mallory"}, headers=tls)
        planted_token = next(
            c.split(";")[0].split("=", 1)[1] for c in planted.headers.get_list("set-cookie") if "session" in c
        )
        both = {**tls, "cookie": f"{name}={token}; {COOKIE}={planted_token}"}
        with browser(server) as page:
            assert page.get("/api/me", headers=both).json()["player"]["id"] == answer.json()["player"]["id"]
            alone = {**tls, "cookie": f"{COOKIE}={planted_token}"}
            assert page.get("/api/me", headers=alone).json()["player"] is None
            gone = page.post("/api/logout", headers={**both, "x-csrf-token": answer.json()["csrf"]})
            assert gone.status_code == 204 and f"{name}=" in gone.headers["set-cookie"]


def _disable(url: str, player_id: str) -> None:
    """As ``masques users disable`` does: straight in the database, from another process."""
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text("update players set disabled = :d where id = :i"), {"d": True, "i": player_id}
        )
    engine.dispose()


def _two_accounts_at_a_table(server: Any, ann: httpx.Client, bob: httpx.Client) -> tuple[str, list[Any]]:
    """A running Masker match of two accounts, each on a WebSocket opened with their cookie."""
    signup(ann, unique("Ann"))
    signup(bob, unique("Bob"))
    match_id = support.create_match(ann, "masker", {"players": 2}, ["human", "human"])["id"]
    conns = []
    for seat, client in enumerate((ann, bob)):
        assert client.post(f"/api/matches/{match_id}/join", json={"seat": seat}).status_code == 200
        cookie = f"{COOKIE}={client.cookies[COOKIE]}"
        conn = support.Conn(server.ws_url, match_id, headers={"cookie": cookie, "origin": server.base_url})
        conn.first_state()
        conns.append(conn)
    return match_id, conns


def _mover(conns: list[Any]) -> tuple[int, Any]:
    for seat, conn in enumerate(conns):
        conn.drain(0.2)
        if conn.state["your_turn"]:
            return seat, conn
    raise AssertionError("nobody to move")


@pytest.mark.parametrize("how", ["log_out", "new_password_elsewhere", "disabled_by_the_operator"])
def test_a_connection_stops_acting_once_its_session_ends(
    server: Any, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A WebSocket opened with a session cookie acts for the session: once the session ends (a
    log-out, a new password from another device, the operator disabling the account), the
    connection is told so and closed (4401), and an action it sent is refused."""
    from masques.server import matches

    monkeypatch.setattr(matches, "ALLOWED_SECONDS", 0.0)  # every action checks (the cache is for speed)
    with browser(server) as ann, browser(server) as bob, browser(server) as other_device:
        match_id, conns = _two_accounts_at_a_table(server, ann, bob)
        seat, conn = _mover(conns)
        client = (ann, bob)[seat]
        if how == "log_out":
            assert client.post("/api/logout").status_code == 204
        elif how == "new_password_elsewhere":
            login(other_device, client.get("/api/me").json()["player"]["name"])
            changed = other_device.post(
                "/api/password", json={"old_password": PASSWORD, "new_password": "Brand-new-pass-77"}
            )
            assert changed.status_code == 200, changed.text
        else:
            _disable(server.database_url, client.get("/api/me").json()["player"]["id"])
        version = support.summary(ann if seat else bob, match_id)["version"]
        if how == "disabled_by_the_operator":  # another process: the next action finds it out
            conn.act(conn.state["legal"][0]["id"], version)
        # (a session this process ended closes its connections at once)
        assert conn.recv_type("error")["code"] == "signed_out"
        assert conn.closed_code() == 4401
        assert support.summary(ann if seat else bob, match_id)["version"] == version
        for c in conns:
            c.close()


def test_a_disabled_accounts_seat_token_stops_with_it(server: Any, api: httpx.Client) -> None:
    with browser(server) as ann:
        me = signup(ann, unique("Ann"))
        match_id = support.create_match(ann, "masker", {"players": 2}, ["human", "random"])["id"]
        token = ann.post(f"/api/matches/{match_id}/join", json={"seat": 0}).json()["token"]
    _disable(server.database_url, me["player"]["id"])
    conn = support.Conn(server.ws_url, match_id, token, 0)
    assert conn.recv()["code"] == "account_disabled"
    assert conn.closed_code() == 4403
    error(
        api.post(f"/api/matches/{match_id}/resign", headers={"x-seat-token": token}), 403, "account_disabled"
    )
    for read in ("record", "replay"):  # nor does it read what only its seat may see
        error(
            api.get(f"/api/matches/{match_id}/{read}", headers={"x-seat-token": token}),
            403,
            "account_disabled",
        )
    assert support.summary(api, match_id)["status"] == "running"


@pytest.mark.parametrize("how", ["new_password", "reset_by_the_operator"])
def test_a_new_password_ends_the_accounts_seat_tokens(
    server: Any, api: httpx.Client, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat token copied from the account's browser stops working once its password changes
    (the player's own change, or the operator's reset): its connection is closed, it connects,
    acts and reads no more; the account's session still finds the seat, and the match goes on."""
    from typer.testing import CliRunner

    from masques.cli.main import app as cli
    from masques.server import matches

    monkeypatch.setattr(matches, "ALLOWED_SECONDS", 0.0)  # every action checks (the cache is for speed)
    with browser(server) as ann:
        name = unique("Ann")
        signup(ann, name)
        match_id = support.create_match(ann, "masker", {"players": 2}, ["human", "random"])["id"]
        token = ann.post(f"/api/matches/{match_id}/join", json={"seat": 0}).json()["token"]
        copied = support.Conn(server.ws_url, match_id, token, 0)  # no cookie: the token alone
        copied.first_state()
        if how == "new_password":
            changed = ann.post(
                "/api/password", json={"old_password": PASSWORD, "new_password": "Brand-new-pass-77"}
            )
            assert changed.status_code == 200, changed.text
        else:
            reset = CliRunner().invoke(
                cli,
                ["users", "reset-password", name, "--database", server.database_url, "--password-stdin"],
                input="Brand-new-pass-77\n",
            )
            assert reset.exit_code == 0, reset.output
            # another process changed it: the connection finds out at its next action
            version = support.summary(api, match_id)["version"]
            copied.send({"type": "action", "action": 0, "version": version})
        # this process cleared the token: the seat is no longer the connection's (seat_changed),
        # unless the sweep of ended sessions and tokens (every 10 s) read the token ended between
        # its write and this process's reading of the seats again (signed_out); another process
        # did: the connection's next action finds the token ended (signed_out)
        ended = {("signed_out", 4401)} | ({("seat_changed", 4409)} if how == "new_password" else set())
        assert (copied.recv_type("error")["code"], copied.closed_code()) in ended
        version = support.summary(api, match_id)["version"]

        again = support.Conn(server.ws_url, match_id, token, 0)
        assert again.recv()["code"] == "bad_token"
        assert again.closed_code() == 4403
        headers = {"x-seat-token": token}
        error(api.post(f"/api/matches/{match_id}/resign", headers=headers), 403, "bad_token")
        for read in ("record", "replay"):
            error(api.get(f"/api/matches/{match_id}/{read}", headers=headers), 403, "bad_token")
        assert support.summary(api, match_id)["version"] == version
        assert support.summary(api, match_id)["status"] == "running"

        if how == "reset_by_the_operator":  # its sessions ended too: log in again
            ann.cookies.clear()
            login(ann, name, "Brand-new-pass-77")
        record = ann.get(f"/api/matches/{match_id}/record")  # the session's seat
        assert record.status_code == 200, record.text
        assert record.json()["seat"] == 0
        listed = ann.get("/api/me/matches").json()
        assert [m["id"] for m in listed] == [match_id]


def test_an_unknown_username_costs_a_password_check_too(server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Telling unknown usernames from known ones by the time a log-in takes must not be possible."""
    from masques.server import accounts

    checked: list[str | None] = []
    honest = accounts.verify_password

    async def counting(stored: str | None, password: str) -> bool:
        checked.append(stored)
        return await honest(stored, password)

    monkeypatch.setattr(accounts, "verify_password", counting)
    with browser(server) as client:
        error(
            client.post("/api/login", json={"username": unique("nobody"), "password": PASSWORD}),
            401,
            "bad_credentials",
        )
    assert checked == [None]


def test_logging_out_a_session_that_has_ended_still_logs_out(server: Any) -> None:
    with browser(server) as client:
        signup(client, unique("Kim"))
        cookie = client.cookies[COOKIE]
        assert client.post("/api/logout").status_code == 204
        client.cookies.set(COOKIE, cookie)  # a second tab, still holding the old cookie
        again = client.post("/api/logout")
        assert again.status_code == 204, again.text
        assert f"{COOKIE}=" in again.headers["set-cookie"] and "Max-Age=0" in again.headers["set-cookie"]


@pytest.mark.parametrize(
    "name",
    [
        *("Expert bot", "robot fort", "HARD  BOT", "Admin", "Expert bot 2", "ｅｘｐｅｒｔ bot"),
        # letters that look alike: a Greek capital E, a zero, Cyrillic letters, Greek A and I, "rn"
        *("\u0395xpert bot", "Expert b0t", "\u0415\u0445\u0440\u0435rt bot", "\u0391DM\u0399N", "adrnin"),
        # a blank drawn between the words, a joiner drawn as nothing, mathematical letters
        *("Expert\u3164bot", "Exp\u200dert bot", "\U0001d404xpert bot"),
        # a bot's number written with a look-alike (a Cyrillic ze for 3, a tone two for 2) or in
        # another script's digits
        *("Expert bot \u0417", "Random bot \u01a7", "Hard bot \u0662"),
    ],
)
def test_a_name_that_reads_as_a_bots_or_the_sites_is_refused(
    server: Any, api: httpx.Client, name: str
) -> None:
    with browser(server) as guest:
        refused = guest.post("/api/guest", json={"name": name})
        error(refused, 400, "bad_request")
        assert f"{name!r} reads as a bot's or the site's name" in refused.json()["message"]
    created = support.create_match(api, "masker", {}, ["human", "human"])
    error(api.post(f"/api/matches/{created['id']}/join", json={"name": name}), 400, "bad_request")
    assert not any(s["taken"] for s in support.summary(api, created["id"])["seats"])


def test_one_guest_becomes_one_account_even_when_it_signs_up_twice_at_once(server: Any) -> None:
    from masques.server.storage import Storage

    with browser(server) as guest:
        me = signed(guest, guest.post("/api/guest", json={"name": "Lou"}))
    storage = Storage(server.database_url)
    try:
        storage.make_account(me["player"]["id"], "LouFirst", "loufirst", "loufirst", "hash-1")
        with pytest.raises(LookupError, match="not_a_guest"):
            storage.make_account(me["player"]["id"], "LouSecond", "lousecond", "lousecond", "hash-2")
        row = storage.player(me["player"]["id"])
        assert row is not None and (row.kind, row.name) == ("account", "LouFirst")
    finally:
        storage.engine.dispose()


def test_the_cookie_lives_thirty_days_from_the_last_visit(server: Any) -> None:
    """The session ends after 30 idle days on the server; the page renews the cookie's own lifetime
    at each load, so the browser keeps it as long."""
    with browser(server) as client:
        signup(client, unique("Max"))
        renewed = client.get("/api/me").headers["set-cookie"]
        assert f"{COOKIE}={client.cookies[COOKIE]}" in renewed and "Max-Age=2592000" in renewed
        assert "HttpOnly" in renewed and "SameSite=lax" in renewed
    with browser(server) as stranger:
        assert "set-cookie" not in stranger.get("/api/me").headers


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        *(("priv\ue000", "private-use"), ("un\U000e0080", "unassigned"), ("z" + "\u0301" * 5, "at most 4")),
        # nothing that shows: a joiner, Hangul fillers, the Braille blank, a mark alone
        *((name, "a character that shows") for name in ("\u200d", "\u3164\u3164", "\u2800", "\u0301")),
    ],
)
def test_a_display_name_holds_no_character_that_hides_or_spills(
    server: Any, api: httpx.Client, name: str, fragment: str
) -> None:
    created = support.create_match(api, "masker", {}, ["human", "human"])
    refused = api.post(f"/api/matches/{created['id']}/join", json={"name": name})
    error(refused, 400, "bad_request")
    assert fragment in refused.json()["message"]
    for fine in ("Nguyễn", "Zoë"):  # any script and its accents
        assert api.post(f"/api/matches/{created['id']}/join", json={"name": fine}).status_code == 200


def test_an_account_that_signs_up_another_leaves_its_session_as_a_log_in_would(server: Any) -> None:
    with browser(server) as client:
        signup(client, unique("Ned"))
        first = client.cookies[COOKIE]
        second = signup(client, unique("Ola"))
        assert client.get("/api/me").json()["player"]["id"] == second["player"]["id"]
        client.cookies.set(COOKIE, first)  # the first account's cookie, kept somewhere: it has ended
        assert client.get("/api/me").json()["player"] is None


ACCENTED = "Crème brûlée à la fenêtre 42"  # precomposed (NFC), as most keyboards type it


def test_a_password_is_one_password_whichever_way_its_accents_are_typed(server: Any) -> None:
    import unicodedata

    decomposed = unicodedata.normalize("NFD", ACCENTED)
    assert decomposed != ACCENTED
    name = unique("Zoe")
    with browser(server) as client, browser(server) as other_device:
        signup(client, name, password=decomposed)
        login(other_device, name, password=ACCENTED)
        assert other_device.get("/api/me").json()["player"]["username"] == name


def test_a_hash_made_before_passwords_were_normalised_still_opens_and_is_renewed(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A password set as typed (decomposed) before normalising still logs in; that log-in stores
    the normal form's hash, so the same password typed precomposed logs in afterwards."""
    import unicodedata

    from masques.server import accounts

    decomposed = unicodedata.normalize("NFD", ACCENTED)
    name = unique("Ida")
    with browser(server) as client:
        me = signup(client, name)
    legacy = accounts.HASHER.hash(decomposed)  # what hash_password stored before the normal form
    engine = create_engine(server.database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text("update players set password_hash = :h where id = :i"),
                {"h": legacy, "i": me["player"]["id"]},
            )
    finally:
        engine.dispose()
    assert accounts.password_matches(legacy, decomposed)
    assert not accounts.password_matches(legacy, ACCENTED)
    with browser(server) as client:
        login(client, name, password=decomposed)
    stored = rows(
        server.database_url, "select password_hash from players where id = :i", i=me["player"]["id"]
    )
    assert stored[0][0] != legacy
    with browser(server) as client:
        login(client, name, password=ACCENTED)


def test_a_decomposed_password_costs_an_unknown_name_the_same_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    import unicodedata

    from masques.server import accounts

    calls: list[str] = []
    real = accounts.HASHER

    class Counting:
        def hash(self, password: str) -> str:
            calls.append("hash")
            return real.hash(password)

        def verify(self, stored: str, password: str) -> bool:
            calls.append("verify")
            return real.verify(stored, password)

    stored = accounts.HASHER.hash(ACCENTED)
    monkeypatch.setattr(accounts, "HASHER", Counting())
    decomposed = unicodedata.normalize("NFD", "Wrong brûlée à la fenêtre 7")
    accounts.password_matches(stored, decomposed)
    known = len(calls)
    calls.clear()
    accounts.password_matches(None, decomposed)
    assert known == len(calls) == 2


@pytest.mark.parametrize("name", ["Ingrid", "Liam", "Zoé", "Ανδρέας", "Дмитрий", "Roboto", "Hardy", "Botond"])
def test_names_that_only_share_letters_with_a_bots_are_accepted(server: Any, name: str) -> None:
    with browser(server) as guest:
        me = signed(guest, guest.post("/api/guest", json={"name": name}))
        assert me["player"]["name"] == name


def test_a_username_that_looks_like_the_sites_is_refused(server: Any) -> None:
    with browser(server) as client:
        error(
            client.post("/api/signup", json={"username": "adm1n", "password": PASSWORD}), 400, "bad_username"
        )


def test_a_new_password_forgets_the_browsers_known_to_the_account(server: Any) -> None:
    """A device cookie taken along with an old password must not lift the lockout after a change;
    the browser that made the change is known by a new one."""
    with browser(server) as owner:
        me = signup(owner, unique("Ned"))
        player, cookie = me["player"]["id"], device_cookie(me["player"]["id"])
        query = "select token_hash from login_devices where player_id = :p"
        old_device = owner.cookies[cookie]
        assert rows(server.database_url, query, p=player) == [(token_hash(old_device),)]
        change = {"old_password": PASSWORD, "new_password": "Brand-new-pass-77"}
        signed(owner, owner.post("/api/password", json=change))
        assert owner.cookies[cookie] != old_device
        assert rows(server.database_url, query, p=player) == [(token_hash(owner.cookies[cookie]),)]


def test_two_log_ins_at_once_with_a_password_due_for_a_rehash_both_succeed(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another log-in's rehash of the same password, landing while this one is checked, is no new
    password: this log-in opens its session."""
    from masques.server import accounts

    name = unique("Ott")
    with browser(server) as owner, browser(server) as second:
        me = signup(owner, name)
        storage = server.app.state.storage
        checking = accounts.verify_password

        async def rehashed_meanwhile(stored: str | None, password: str) -> bool:
            right = await checking(stored, password)
            if stored is not None and password == PASSWORD:  # the other log-in stores a new hash
                digest = await accounts.hash_password(PASSWORD)
                await asyncio.to_thread(storage.update_player, me["player"]["id"], password_hash=digest)
            return right

        monkeypatch.setattr(accounts, "verify_password", rehashed_meanwhile)
        answer = second.post("/api/login", json={"username": name, "password": PASSWORD})
        monkeypatch.setattr(accounts, "verify_password", checking)
        assert answer.status_code == 200, answer.text
        assert second.get("/api/me").json()["player"]["username"] == name


def test_a_log_in_with_a_nul_in_its_username_is_a_wrong_username(
    server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """No username holds a NUL (PostgreSQL's text cannot): such a log-in is refused as one with any
    unknown username is, on both databases, and the server logs no error (it answered 500 before)."""
    name = unique("Nul")
    with browser(server) as owner:
        signup(owner, name)
    with browser(server) as someone, caplog.at_level(logging.ERROR):
        for username in (f"{name}\x00", f"\x00{name}", "\x00"):
            error(
                someone.post("/api/login", json={"username": username, "password": PASSWORD}),
                401,
                "bad_credentials",
            )
        assert someone.get("/api/me").json()["player"] is None
    # the session's shared server may log for other tests' matches meanwhile: this route's lines only
    logged = [r.getMessage() for r in caplog.records if "/api/login" in r.getMessage()]
    assert not logged, logged
    with browser(server) as owner:
        login(owner, name)  # the account itself is untouched


def test_a_login_guard_keeps_nothing_for_right_log_ins_and_lets_old_failures_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Many people logging in leave no count behind (each kept one per address and username, for
    good, and each log-in scanned them all once there were many); failures are let go of an hour
    after the last, however few there are."""
    from masques.server import accounts

    now = [1000.0]
    monkeypatch.setattr(accounts.time, "monotonic", lambda: now[0])
    guard = accounts.LoginGuard()

    async def scenario() -> None:
        for n in range(300):
            keys = accounts.attempt_keys(f"user{n}", f"ip:{n % 17}", known_device=n % 2 == 0)
            await guard.attempt(*keys)
            await guard.succeeded(*keys)
        assert not guard._failures
        wrong = accounts.attempt_keys("kim", "ip:abc", known_device=False)
        await guard.attempt(*wrong)
        now[0] += 10
        later = accounts.attempt_keys("lou", "ip:def", known_device=False)
        await guard.attempt(*later)
        now[0] += accounts.LoginGuard.KEEP - 5  # kim's failure is an hour old, lou's not yet
        right = accounts.attempt_keys("max", "ip:ghi", known_device=True)
        await guard.attempt(*right)
        await guard.succeeded(*right)
        assert set(guard._failures) == set(later)

    support.run_async(scenario())


def test_zxcvbn_judges_a_bounded_prefix_of_the_password(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its work grows exponentially with the characters it reads as substitutions: a sign-up
    with seventy of them took it seconds.  It sees the first JUDGED_CHARACTERS only."""
    from masques.server import accounts

    judged: list[str] = []

    def fake(password: str, user_inputs: list[str]) -> dict[str, Any]:
        judged.append(password)
        return {"score": 4, "feedback": {"warning": ""}}

    monkeypatch.setattr(accounts, "zxcvbn", fake)
    long = "!$%(+0123456789<@[{|" * 4
    accounts.check_password(long, "someone")
    assert judged == [long[: accounts.JUDGED_CHARACTERS]]


def test_a_password_is_judged_off_the_event_loop(server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Judging a password is CPU work: on the event loop it held every match's moves meanwhile."""
    import threading

    from masques.server import accounts

    threads: list[str] = []
    judge = accounts.check_password

    def watched(password: str, username: str | None) -> None:
        threads.append(threading.current_thread().name)
        judge(password, username)

    monkeypatch.setattr(accounts, "check_password", watched)
    with browser(server) as web:
        signup(web, unique("judged"))
        change = {"old_password": PASSWORD, "new_password": "another-Pass-77"}
        signed(web, web.post("/api/password", json=change))
    assert len(threads) == 2 and server.thread.name not in threads, threads
