"""Rated matches: who may play them, ratings computed as OpenSkill computes them, stored in the
transaction that stores the result, leaderboards and rating histories."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest
from masques_server_support import browser, error, signed, signup, unique  # type: ignore[import-not-found]
from openskill.models import PlackettLuce
from sqlalchemy import create_engine, text

from masques.ai.arena import ranks_from_returns
from masques.server.accounts import COOKIE
from masques.server.limits import Limits
from masques.server.ratings import Skill, bot_start, family_of, newcomer, rate
from masques.server.storage import Storage

ROOT = Path(__file__).resolve().parents[2]


def openskill_after(before: list[tuple[float, float]], ranks: list[float]) -> list[tuple[float, float]]:
    """OpenSkill's own answer for one match of one-player teams."""
    model = PlackettLuce()
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    return [(r.mu, r.sigma) for (r,) in model.rate(teams, ranks=ranks)]


# -- the computation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("returns", "places"),
    [
        ((1.0, 0.0), [0, 1]),
        ((0.5, 0.5), [0, 0]),
        ((0.0, 0.5, 0.0, 0.5), [1, 0, 1, 0]),  # MK-13: a team of four players wins together
        ((1 / 3, 1 / 3, 0.0, 1 / 3), [0, 0, 1, 0]),
        ((1.0, 0.0, 0.0), [0, 1, 1]),
    ],
)
def test_returns_become_whole_places_with_ties_shared(returns: tuple[float, ...], places: list[int]) -> None:
    assert ranks_from_returns(returns) == places


def test_a_shared_win_moves_the_winners_up_and_the_losers_down() -> None:
    """openskill truncates ranks to integers: the negated returns of a shared win (-0.5 beside 0)
    rated it as a draw for all four, and every seat only lost sigma."""
    fresh = [newcomer()] * 4
    keys = ["a", "b", "c", "d"]
    after = rate(fresh, ranks_from_returns((0.0, 0.5, 0.0, 0.5)), keys)
    assert after["b"].mu == after["d"].mu > 25.0 > after["a"].mu == after["c"].mu
    # Fractional ranks given to rate() count as places too: the same update.
    assert rate(fresh, [0.0, -0.5, 0.0, -0.5], keys) == after


@pytest.mark.parametrize(
    ("before", "ranks"),
    [
        ([(25.0, 25 / 3), (25.0, 25 / 3)], [0.0, 1.0]),
        ([(30.1, 2.2), (18.2, 1.7)], [1.0, 0.0]),  # the weaker wins
        ([(25.0, 8.0), (29.7, 2.9), (25.4, 3.0), (23.5, 3.0)], [-3.0, -1.0, -1.0, 0.0]),  # a tie
    ],
)
def test_ratings_are_openskill_s_own(before: list[tuple[float, float]], ranks: list[float]) -> None:
    keys = [f"p{i}" for i in range(len(before))]
    after = rate([Skill(mu, sigma, 3) for mu, sigma in before], ranks, keys)
    for key, (mu, sigma) in zip(keys, openskill_after(before, ranks), strict=True):
        assert after[key].mu == pytest.approx(mu) and after[key].sigma == pytest.approx(sigma)
        assert after[key].games == 4


def test_one_bot_level_in_two_seats_gets_the_mean_of_its_seats_updates() -> None:
    before = [(25.0, 8.0), (29.7, 2.9), (29.7, 2.9)]
    expected = openskill_after(before, [0.0, 1.0, 2.0])
    after = rate([Skill(mu, sigma) for mu, sigma in before], [0.0, 1.0, 2.0], ["ann", "bot:hard", "bot:hard"])
    assert after["bot:hard"].mu == pytest.approx((expected[1][0] + expected[2][0]) / 2)
    assert after["bot:hard"].games == 1


def test_bots_start_at_the_ratings_the_arena_measured() -> None:
    table = json.loads((ROOT / "docs" / "ratings" / "masker-2p.json").read_text("utf-8"))
    hard = next(row for row in table["table"] if row["bot"] == "hard")
    assert bot_start("masker", "two-player", "hard").mu == pytest.approx(hard["mu"], abs=1e-3)
    assert bot_start("masker", "two-player", "hard").sigma == pytest.approx(hard["sigma"], abs=1e-3)
    # no multi-player table for Masker: the two-player measurement is the closest there is
    assert bot_start("masker", "multi-player", "hard") == bot_start("masker", "two-player", "hard")
    assert bot_start("maske", "multi-player", "greedy") == newcomer()  # never measured at that table
    assert family_of(2) == "two-player" and family_of(4) == "multi-player"


def test_the_bot_ratings_file_is_what_the_arena_tables_say() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bot_ratings.py"), "--check"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


# -- through the server ---------------------------------------------------------------------------


@pytest.fixture(params=support.BACKENDS)
def rated_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[support.ThreadServer]:
    """A server whose leaderboards show an account after one rated game."""
    limits = Limits(**{**support.RELAXED.__dict__, "leaderboard_min_games": 1})
    server = support.ThreadServer(support.fresh_database_url(request.param, tmp_path), limits=limits).start()
    yield server
    server.stop()


def cookie_conn(server: Any, client: httpx.Client, match_id: str, seat: int) -> support.Conn:
    headers = {"cookie": f"{COOKIE}={client.cookies[COOKIE]}", "origin": server.base_url}
    conn = support.Conn(server.ws_url, match_id, seat=seat, headers=headers)
    conn.first_state()
    return conn


def rated_match(client: httpx.Client, seats: list[str], game: str = "masker") -> dict[str, Any]:
    body = {
        "game": game,
        "options": {"players": len(seats)},
        "seats": [{"kind": k} for k in seats],
        "rated": True,
    }
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def rating_of(client: httpx.Client, player_id: str, game: str, family: str) -> dict[str, Any] | None:
    ratings = client.get(f"/api/players/{player_id}").json()["ratings"]
    return next((r for r in ratings if r["game"] == game and r["family"] == family), None)


def test_a_rated_match_between_two_accounts_rates_both_as_openskill_does(rated_server: Any) -> None:
    with browser(rated_server) as ann, browser(rated_server) as bob:
        ids = [signup(c, unique(n))["player"]["id"] for c, n in ((ann, "Ann"), (bob, "Bob"))]
        match_id = rated_match(ann, ["human", "human"])["id"]
        for seat, client in enumerate((ann, bob)):
            assert client.post(f"/api/matches/{match_id}/join", json={"seat": seat}).status_code == 200
        conns = [cookie_conn(rated_server, c, match_id, seat) for seat, c in enumerate((ann, bob))]
        support.play_to_end(conns, random.Random(5))
        final = support.summary(ann, match_id)
        assert final["status"] == "finished" and final["rated"] is True
        full = ann.get(f"/api/matches/{match_id}/record", params={"full": "true"}).json()
        returns = support.Replay(full).final.returns()
        fresh = (newcomer().mu, newcomer().sigma)
        expected = openskill_after([fresh, fresh], ranks_from_returns(returns))
        for seat, player_id in enumerate(ids):
            change = final["ratings"][seat]
            assert change["before"]["mu"] == pytest.approx(25.0, abs=1e-3)
            assert change["after"]["mu"] == pytest.approx(expected[seat][0], abs=1e-3)
            assert change["after"]["sigma"] == pytest.approx(expected[seat][1], abs=1e-3)
            assert change["change"] == pytest.approx(expected[seat][0] - 25.0, abs=1e-3)
            stored = rating_of(ann, player_id, "masker", "two-player")
            assert stored is not None and stored["games"] == 1 and stored["provisional"] is True
            assert stored["mu"] == pytest.approx(expected[seat][0], abs=1e-3)
            history = ann.get(f"/api/players/{player_id}/ratings", params={"game": "masker"}).json()[
                "history"
            ]
            assert [h["match"] for h in history] == [match_id]
        board = ann.get("/api/leaderboard", params={"game": "masker", "family": "two-player"}).json()
        listed = {row["player"]["id"]: row for row in board["rows"]}
        assert set(ids) <= set(listed) and "bot:hard" in listed
        ordinals = [row["ordinal"] for row in board["rows"]]
        assert ordinals == sorted(ordinals, reverse=True) and [r["rank"] for r in board["rows"]][:2] == [1, 2]
        # a state message at the end carries the change too
        last = conns[0].state
        assert last is not None and last["match"]["ratings"] == final["ratings"]
        for conn in conns:
            conn.close()


def test_a_bot_in_a_rated_match_enters_at_its_arena_rating_and_a_resignation_is_rated(
    rated_server: Any,
) -> None:
    with browser(rated_server) as ann:
        player_id = signup(ann, unique("Ann"))["player"]["id"]
        match_id = rated_match(ann, ["human", "hard"])["id"]
        assert ann.post(f"/api/matches/{match_id}/join", json={"seat": 0}).status_code == 200
        assert ann.post(f"/api/matches/{match_id}/resign").status_code == 200
        final = support.summary(ann, match_id)
        start = bot_start("masker", "two-player", "hard")
        assert final["ratings"][1]["before"]["mu"] == pytest.approx(start.mu, abs=1e-3)
        expected = openskill_after([(25.0, 25 / 3), (start.mu, start.sigma)], [1.0, 0.0])
        assert final["ratings"][0]["after"]["mu"] == pytest.approx(expected[0][0], abs=1e-3)
        assert final["ratings"][0]["change"] < 0 < final["ratings"][1]["change"]
        assert final["ratings"][1]["after"]["provisional"] is False  # the bot's rests on the arena's games
        stored = rating_of(ann, player_id, "masker", "two-player")
        assert stored is not None and stored["mu"] == pytest.approx(expected[0][0], abs=1e-3)


def test_equal_ratings_share_a_rank_in_a_stable_order() -> None:
    from masques.server.boards import ranked

    def row(player: str, games: int) -> dict[str, Any]:
        return {"player": {"id": player}, "games": games}

    rows = ranked([(1.0, row("b", 3)), (2.0, row("a", 1)), (1.0, row("c", 5)), (0.5, row("d", 1))])
    assert [(r["rank"], r["player"]["id"]) for r in rows] == [(1, "a"), (2, "c"), (2, "b"), (4, "d")]


def test_a_private_match_is_named_in_the_rating_history_to_its_player_alone(rated_server: Any) -> None:
    """The rating after it is a public point of the player's graph; which match it was is not."""
    with browser(rated_server) as ann, browser(rated_server) as stranger:
        player_id = signup(ann, unique("Ann"))["player"]["id"]
        body = {"game": "masker", "options": {"players": 2}, "seats": [{"kind": "human"}, {"kind": "hard"}]}
        created = ann.post("/api/matches", json={**body, "rated": True, "private": True})
        assert created.status_code == 201, created.text
        match_id, invite = created.json()["id"], created.json()["invite"]
        assert (
            ann.post(f"/api/matches/{match_id}/join", json={"seat": 0, "invite": invite}).status_code == 200
        )
        assert ann.post(f"/api/matches/{match_id}/resign").status_code == 200
        path = f"/api/players/{player_id}/ratings"
        own = ann.get(path, params={"game": "masker"}).json()["history"]
        seen = stranger.get(path, params={"game": "masker"}).json()["history"]
        assert [h["match"] for h in own] == [match_id]
        assert [h["match"] for h in seen] == [None] and seen[0]["mu"] == own[0]["mu"]
        board = stranger.get("/api/leaderboard", params={"game": "masker"}).json()["rows"]
        hard = next(r for r in board if r["player"]["id"] == "bot:hard")
        assert (
            hard["games"] == 1 and hard["provisional"] is False
        )  # a bot's rating rests on the arena's games
        for odd in ("%00", "ab%00cd", "..", "x" * 40):  # never a 500, on PostgreSQL either
            assert stranger.get(f"/api/players/{odd}").status_code == 404
            assert stranger.get(f"/api/players/{odd}/ratings", params={"game": "masker"}).status_code == 404


def test_an_aborted_or_casual_match_rates_no_one(rated_server: Any) -> None:
    with browser(rated_server) as ann:
        player_id = signup(ann, unique("Ann"))["player"]["id"]
        aborted = rated_match(ann, ["human", "random"])["id"]
        assert ann.post(f"/api/matches/{aborted}/join", json={"seat": 0}).status_code == 200
        state = ann.get(f"/api/matches/{aborted}").json()
        if state["can_abort"]:
            assert ann.post(f"/api/matches/{aborted}/abort").status_code == 200
            assert support.summary(ann, aborted)["ratings"] is None
        casual = support.create_match(ann, "masker", {"players": 2}, ["human", "random"])["id"]
        assert ann.post(f"/api/matches/{casual}/join", json={"seat": 0}).status_code == 200
        assert ann.post(f"/api/matches/{casual}/resign").status_code == 200
        assert support.summary(ann, casual)["ratings"] is None
        assert rating_of(ann, player_id, "masker", "two-player") is None


def test_only_accounts_create_and_join_rated_matches(rated_server: Any) -> None:
    with browser(rated_server) as ann, browser(rated_server) as gus, browser(rated_server) as nobody:
        signup(ann, unique("Ann"))
        signed(gus, gus.post("/api/guest", json={"name": "Gus"}))
        body = {"game": "masker", "options": {"players": 2}, "rated": True}
        error(gus.post("/api/matches", json=body), 403, "account_required")
        error(nobody.post("/api/matches", json=body), 403, "account_required")
        error(
            ann.post(
                "/api/matches", json={**body, "seats": [{"kind": "human"}, {"kind": "random"}], "seed": 3}
            ),
            400,
            "bad_request",
        )
        bots_alone = {**body, "seats": [{"kind": "expert"}, {"kind": "random"}]}
        refused = ann.post("/api/matches", json=bots_alone)  # it would only move the bots' ratings
        error(refused, 400, "bad_request")
        assert "needs a person" in refused.json()["message"]
        match_id = rated_match(ann, ["human", "human"])["id"]
        error(gus.post(f"/api/matches/{match_id}/join", json={}), 403, "account_required")
        error(nobody.post(f"/api/matches/{match_id}/join", json={"name": "Zed"}), 403, "account_required")
        seats = support.summary(ann, match_id)["seats"]
        assert not any(s["taken"] for s in seats)  # nothing changed


def test_the_waiting_count_follows_the_turn(rated_server: Any) -> None:
    with browser(rated_server) as ann, browser(rated_server) as bob:
        signup(ann, unique("Ann"))
        signup(bob, unique("Bob"))
        match_id = rated_match(ann, ["human", "human"])["id"]
        for seat, client in enumerate((ann, bob)):
            assert client.post(f"/api/matches/{match_id}/join", json={"seat": seat}).status_code == 200
        to_move = support.Conn(rated_server.ws_url, match_id).first_state()["to_move"]
        mover, other = (ann, bob) if to_move == 0 else (bob, ann)
        assert mover.get("/api/me/waiting").json() == {"count": 1, "matches": [match_id]}
        assert other.get("/api/me/waiting").json() == {"count": 0, "matches": []}
        conn = cookie_conn(rated_server, mover, match_id, to_move)
        assert conn.state is not None
        conn.act(conn.state["legal"][0]["id"], conn.state["version"])
        now = conn.wait_version(1)["to_move"]
        for seat, client in enumerate((ann, bob)):
            expected = [match_id] if seat == now else []
            assert client.get("/api/me/waiting").json() == {"count": len(expected), "matches": expected}
        conn.close()


# -- one transaction --------------------------------------------------------------------------------

KILLED_MID_COMMIT = textwrap.dedent(
    """
    import os, signal, sys
    from masques.server import storage as st

    real = st._rate

    def rate_then_die(s, row, ranks, at):
        changes = real(s, row, ranks, at)
        s.flush()  # the result and the ratings are written, not yet committed
        os.kill(os.getpid(), signal.SIGKILL)
        return changes

    st._rate = rate_then_die
    store = st.Storage(sys.argv[1])
    end = {"reason": "resigned", "seats": [0], "winners": [1]}
    store.end_match(sys.argv[2], end, ranks=[1.0, 0.0])
    """
)


def test_a_kill_between_result_and_rating_leaves_neither(rated_server: Any, tmp_path: Path) -> None:
    """The process dies after writing the result and the ratings, before the commit: neither is
    there afterwards; the same ending, not killed, stores both."""
    with browser(rated_server) as ann:
        player_id = signup(ann, unique("Ann"))["player"]["id"]
        match_id = rated_match(ann, ["human", "medium"])["id"]
        assert ann.post(f"/api/matches/{match_id}/join", json={"seat": 0}).status_code == 200
    url = rated_server.database_url
    script = tmp_path / "kill.py"
    script.write_text(KILLED_MID_COMMIT, "utf-8")
    done = subprocess.run(
        [sys.executable, str(script), url, match_id], check=False, capture_output=True, env=os.environ
    )
    assert done.returncode == -signal.SIGKILL
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            status = db.execute(text("select status from matches where id = :m"), {"m": match_id}).scalar()
            ratings = db.execute(
                text("select count(*) from ratings where player_key = :p"), {"p": player_id}
            ).scalar()
            events = db.execute(
                text("select count(*) from rating_history where match_id = :m"), {"m": match_id}
            ).scalar()
        assert (status, ratings, events) == ("running", 0, 0)
    finally:
        engine.dispose()
    with browser(rated_server) as again:
        assert again.get(f"/api/matches/{match_id}").json()["status"] == "running"
    store = Storage(url)
    try:
        done_, changes = store.end_match(
            match_id, {"reason": "resigned", "seats": [0], "winners": [1]}, ranks=[1.0, 0.0]
        )
        assert done_ and changes is not None and changes[0]["change"] < 0
        assert [r.player_key for r in store.player_ratings(player_id)] == [player_id]
        assert len(store.rating_history(player_id, "masker", "two-player")) == 1
    finally:
        store.engine.dispose()
