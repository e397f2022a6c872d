"""Live (Fischer) and correspondence clocks: the arithmetic, the deadlines the server stores, what
happens at zero, and clocks that stay right across reconnects and restarts.  The server reads a clock
the tests set, so no test waits for the time a clock counts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest
from masques_server_support import browser, error, signup, unique  # type: ignore[import-not-found]

from masques.server import clocks
from masques.server.clocks import ClockError
from masques.server.matches import Registry
from masques.server.storage import Storage

DAY = 86400.0
LIVE = {"kind": "fischer", "base": 60, "increment": 5}


class FakeClock:
    """Epoch seconds that move only when a test moves them."""

    def __init__(self) -> None:
        self.t = time.time()

    def __call__(self) -> float:
        return self.t


# -- the arithmetic -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "fischer", "base": 59, "increment": 0},
        {"kind": "fischer", "base": 10801, "increment": 0},
        {"kind": "fischer", "base": 60, "increment": 181},
        {"kind": "fischer", "base": 60.5, "increment": 0},
        {"kind": "fischer", "base": True, "increment": 0},
        {"kind": "fischer"},
        {"kind": "correspondence", "days": 2},
        {"kind": "correspondence", "days": "3"},
        {"kind": "sundial"},
        {},
    ],
)
def test_time_controls_that_cannot_be_played_are_refused(spec: dict[str, Any]) -> None:
    with pytest.raises(ClockError):
        clocks.control(spec, turn_seconds=0)


def test_one_clock_per_match() -> None:
    with pytest.raises(ClockError):
        clocks.control(LIVE, turn_seconds=60)
    assert clocks.control({"kind": "correspondence", "days": 3}, turn_seconds=0) == {
        "kind": "correspondence",
        "days": 3,
    }


def test_a_live_move_costs_its_time_and_earns_the_increment() -> None:
    clock = clocks.start(clocks.control(LIVE, turn_seconds=0) or {}, 2, "lose", now=1000.0)
    assert clock["remaining"] == [60.0, 60.0]
    assert clocks.deadline(clock, 0, [True, True]) == 1060.0
    clock = clocks.after_move(clock, 0, [True, True], now=1012.5)
    assert clock["remaining"] == [52.5, 60.0] and clock["turn_started"] == 1012.5
    assert clocks.deadline(clock, 1, [True, True]) == 1072.5
    assert clocks.deadline(clock, 1, [True, False]) is None  # a bot to move: no clock runs
    clock = clocks.after_move(clock, 1, [True, False], now=1013.0)  # a bot's move costs no one
    assert clock["remaining"] == [52.5, 60.0]


def test_a_turn_of_several_actions_earns_one_increment() -> None:
    """A Masker turn is up to three steps and a stop, a Maske paid move several steps: the time of
    each action is counted, and the increment is earned once, with the action that ends the turn."""
    live = clocks.control({"kind": "fischer", "base": 60, "increment": 10}, turn_seconds=0) or {}
    clock = clocks.start(live, 2, "lose", now=0.0)
    for now in (1.0, 2.0):  # two steps, the turn goes on
        clock = clocks.after_move(clock, 0, [True, True], now=now, turn_over=False)
    clock = clocks.after_move(clock, 0, [True, True], now=3.0)  # the stop: the turn is over
    assert clock["remaining"] == [67.0, 60.0] and clock["turn_started"] == 3.0
    days = clocks.control({"kind": "correspondence", "days": 1}, turn_seconds=0) or {}
    clock = clocks.start(days, 2, "bot", now=0.0)
    clock = clocks.after_move(clock, 0, [True, True], now=3600.0, turn_over=False)
    assert clock["remaining"] == [DAY - 3600.0, DAY]  # not a fresh day for each step
    assert clocks.after_move(clock, 0, [True, True], now=7200.0)["remaining"] == [DAY, DAY]


def test_a_correspondence_move_has_its_days_again() -> None:
    control = clocks.control({"kind": "correspondence", "days": 1}, turn_seconds=0) or {}
    clock = clocks.start(control, 3, "bot", now=0.0)
    clock = clocks.after_move(clock, 2, [True] * 3, now=DAY - 5)
    assert clock["remaining"] == [DAY] * 3
    assert clocks.deadline(clock, 0, [True] * 3) == 2 * DAY - 5


# -- through the server -----------------------------------------------------------------------------


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=support.BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(support.fresh_database_url(request.param, tmp_path))


LIMITS = replace(support.RELAXED, abandoned_bot="random", grace_seconds=1.0)


@pytest.fixture
def timed(url: str, clock: FakeClock) -> Iterator[support.ThreadServer]:
    server = support.ThreadServer(url, limits=LIMITS, clock=clock).start()
    yield server
    server.stop()


def timed_match(
    api: httpx.Client, spec: dict[str, Any], at_zero: str | None = None
) -> tuple[str, dict[int, str]]:
    body: dict[str, Any] = {"game": "masker", "options": {"players": 2}, "clock": spec}
    if at_zero:
        body["at_zero"] = at_zero
    response = api.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    match_id = response.json()["id"]
    tokens = {seat: support.join(api, match_id, f"p{seat}", seat)["token"] for seat in (0, 1)}
    return match_id, tokens


def wait_for(api: httpx.Client, match_id: str, done: Any, timeout: float = 15.0) -> dict[str, Any]:
    """The match's summary once ``done(summary)`` holds (the server's clock task looks every second)."""
    deadline = time.monotonic() + timeout
    while True:
        summary = support.summary(api, match_id)
        if done(summary):
            return summary
        assert time.monotonic() < deadline, f"not reached in {timeout} s: {summary}"
        time.sleep(0.1)


def test_a_live_clock_counts_each_move_and_the_seat_at_zero_loses(timed: Any, clock: FakeClock) -> None:
    with browser(timed) as api:
        match_id, tokens = timed_match(api, LIVE, at_zero="lose")
        start = support.summary(api, match_id)["clock"]
        assert (
            start["kind"] == "fischer" and start["remaining"] == [60.0, 60.0] and start["at_zero"] == "lose"
        )
        first = start["running"]
        assert start["deadline"] == pytest.approx(clock.t + 60)
        conn = support.Conn(timed.ws_url, match_id, tokens[first], first)
        state = conn.first_state()
        clock.t += 10
        conn.act(state["legal"][0]["id"], state["version"])
        moved = conn.wait_version(1)
        after, to_move = moved["match"]["clock"], moved["to_move"]
        spent = 10.0
        while to_move == first:  # a Masker turn of several steps: the increment comes at its end
            assert after["remaining"][first] == pytest.approx(60.0 - spent)
            clock.t += 1
            spent += 1
            stop = next((a["id"] for a in moved["legal"] if a["label"] == "stop"), moved["legal"][0]["id"])
            conn.act(stop, moved["version"])
            moved = conn.wait_version(moved["version"] + 1)
            after, to_move = moved["match"]["clock"], moved["to_move"]
        assert after["remaining"][first] == pytest.approx(60.0 - spent + 5)  # one increment a turn
        assert after["running"] == to_move
        assert after["deadline"] == pytest.approx(clock.t + after["remaining"][to_move])
        clock.t = after["deadline"] + 1
        ended = wait_for(api, match_id, lambda s: s["status"] == "finished")
        assert ended["end"]["reason"] == "time" and ended["end"]["seats"] == [to_move]
        assert ended["end"]["winners"] == [1 - to_move]
        assert ended["clock"]["running"] is None and ended["clock"]["deadline"] is None
        assert ended["clock"]["remaining"][to_move] == 0.0  # the seat that lost on time has none left
        assert ended["clock"]["remaining"][first] == pytest.approx(after["remaining"][first])
        conn.close()


def first_mover(
    server: Any, api: httpx.Client, control: dict[str, Any]
) -> tuple[str, dict[int, str], int, support.Conn, dict[str, Any]]:
    """A new two-player match of ``control`` lost at zero: its id, its seats' tokens, the seat whose
    time runs first, that seat's connection and its first view."""
    match_id, tokens = timed_match(api, control, at_zero="lose")
    first = support.summary(api, match_id)["clock"]["running"]
    conn = support.Conn(server.ws_url, match_id, tokens[first], first)
    return match_id, tokens, first, conn, conn.first_state()


def test_a_move_after_the_deadline_is_refused_and_the_time_runs_out(timed: Any, clock: FakeClock) -> None:
    with browser(timed) as api:
        match_id, _tokens, first, conn, state = first_mover(timed, api, LIVE)
        clock.t += 60.5
        refused = conn.refused({"type": "action", "action": state["legal"][0]["id"], "version": 0})
        assert refused["code"] in ("out_of_time", "not_running")  # the server's own look may come first
        ended = wait_for(api, match_id, lambda s: s["status"] == "finished")
        assert ended["version"] == 0 and ended["end"]["reason"] == "time" and ended["end"]["seats"] == [first]
        conn.close()


def test_at_zero_a_bot_may_play_the_seat_on(timed: Any, clock: FakeClock) -> None:
    with browser(timed) as api:
        match_id, _tokens = timed_match(
            api, {"kind": "correspondence", "days": 1}
        )  # casual: a bot by default
        start = support.summary(api, match_id)
        assert start["clock"]["at_zero"] == "bot" and start["clock"]["remaining"] == [DAY, DAY]
        late = start["clock"]["running"]
        clock.t += DAY + 1
        taken = wait_for(api, match_id, lambda s: s["seats"][late]["kind"] != "human")
        seat = taken["seats"][late]
        assert seat["kind"] == "random" and seat["person"] is True
        wait_for(api, match_id, lambda s: s["version"] >= 1)  # the bot moved for them
        assert support.summary(api, match_id)["status"] in ("running", "finished")


def test_correspondence_seats_are_not_abandoned_by_absence(timed: Any, clock: FakeClock) -> None:
    with browser(timed) as api:
        match_id, _tokens = timed_match(api, {"kind": "correspondence", "days": 3})
        for seat, token in _tokens.items():  # each comes and goes (the server notes their absence)
            support.Conn(timed.ws_url, match_id, token, seat).close()
        clock.t += 3600  # an hour away, far beyond the one-second grace period
        time.sleep(1.5)
        summary = support.summary(api, match_id)
        assert [s["kind"] for s in summary["seats"]] == ["human", "human"]
        assert not any(s["abandoned"] for s in summary["seats"])
        running = summary["clock"]["running"]
        response = api.post(f"/api/matches/{match_id}/claim", headers={"X-Seat-Token": _tokens[1 - running]})
        error(response, 409, "not_abandoned")


@pytest.mark.parametrize("control", [LIVE, {"kind": "correspondence", "days": 1}], ids=["live", "days"])
def test_a_clock_is_right_across_a_restart_and_runs_out_while_the_server_is_down(
    url: str, clock: FakeClock, control: dict[str, Any]
) -> None:
    first = support.ThreadServer(url, limits=LIMITS, clock=clock).start()
    try:
        with browser(first) as api:
            match_id, tokens, mover, conn, state = first_mover(first, api, control)
            clock.t += 20
            conn.act(state["legal"][0]["id"], 0)
            before = conn.wait_version(1)["match"]["clock"]
            conn.close()
    finally:
        first.stop()
    clock.t += 5
    second = support.ThreadServer(url, limits=LIMITS, clock=clock).start()
    try:
        with browser(second) as api:
            after = support.summary(api, match_id)["clock"]
            assert after["remaining"] == before["remaining"] and after["deadline"] == before["deadline"]
            assert after["running"] == before["running"]
            reconnect = support.Conn(second.ws_url, match_id, tokens[mover], mover)
            assert reconnect.first_state()["match"]["clock"]["deadline"] == before["deadline"]
            reconnect.close()
    finally:
        second.stop()
    clock.t = (before["deadline"] or clock.t) + 1  # it runs out while no server runs
    third = support.ThreadServer(url, limits=LIMITS, clock=clock).start()
    try:
        with browser(third) as api:
            ended = wait_for(api, match_id, lambda s: s["status"] == "finished")
            assert ended["end"]["reason"] == "time" and ended["end"]["seats"] == [before["running"]]
    finally:
        third.stop()


def test_a_turn_clock_keeps_its_deadline_across_a_restart_and_runs_out_while_the_server_is_down(
    url: str, clock: FakeClock
) -> None:
    body = {"game": "masker", "options": {"players": 2}, "turn_seconds": 600}
    first = support.ThreadServer(url, limits=LIMITS, clock=clock).start()
    try:
        with browser(first) as api:
            match_id = api.post("/api/matches", json=body).json()["id"]
            tokens = {seat: support.join(api, match_id, f"p{seat}", seat)["token"] for seat in (0, 1)}
            started = wait_for(api, match_id, lambda s: s["turn_deadline"] is not None)
            assert started["turn_deadline"] == pytest.approx(clock.t + 600)
            mover = started["clock"]["running"]
            conn = support.Conn(first.ws_url, match_id, tokens[mover], mover)
            state = conn.first_state()
            clock.t += 20
            conn.act(state["legal"][0]["id"], 0)
            conn.wait_version(1)
            conn.close()
            moved = wait_for(api, match_id, lambda s: s["turn_deadline"] == pytest.approx(clock.t + 600))
            deadline = moved["turn_deadline"]
    finally:
        first.stop()
    clock.t += 300  # the server is down for half the turn: the turn goes on from where it was
    second = support.ThreadServer(url, limits=LIMITS, clock=clock).start()
    try:
        with browser(second) as api:
            summary = support.summary(api, match_id)
            assert summary["turn_deadline"] == deadline and summary["clock"]["deadline"] == deadline
            waiting = summary["clock"]["running"]
            conn = support.Conn(second.ws_url, match_id, tokens[waiting], waiting)
            assert conn.first_state()["match"]["turn_deadline"] == deadline
            conn.close()
    finally:
        second.stop()
    clock.t = deadline + 1  # it runs out while no server runs: the clock's move is played at once
    third = support.ThreadServer(url, limits=LIMITS, clock=clock).start()
    try:
        with browser(third) as api:
            wait_for(api, match_id, lambda s: s["version"] >= 2)
    finally:
        third.stop()


def test_a_turn_clock_runs_for_people_only(tmp_path: Path) -> None:
    """While a bot thinks for the seat to move (a bot's seat, or a person's handed to a bot), no
    per-turn clock runs: the summary shows no deadline and nobody's time running."""

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            seats = ["human", "random"]
            match = await registry.create("masker", {"players": 2}, seats, seed=1, turn_seconds=60)
            await registry.join(match, "p0", 0)
            registry._run_bots = _never  # type: ignore[method-assign]  # the bot must not move meanwhile
            while match.to_move == 0:
                await registry.submit(match, 0, max(match.state.legal_actions()), match.version)
            summary = match.summary()
            assert match.seats[match.to_move].kind == "random"
            assert summary["turn_deadline"] is None and summary["clock"]["running"] is None

            people = await _two_people(registry, turn_seconds=60, seed=2)
            registry._start_clock(people)
            mover = people.to_move
            assert mover is not None and people.summary()["clock"]["running"] == mover
            people.seats[mover].away_since = people.now() - 10 * people.grace_seconds
            await registry.hand_to_bot(people, 1 - mover, mover)
            summary = people.summary()
            assert summary["turn_deadline"] is None and summary["clock"]["running"] is None

    support.run_async(scenario())


async def _never(_match: Any) -> None:
    return None


async def _two_people(registry: Registry, **create: Any) -> Any:
    """A two-player Masker match of people, both seats taken (so it runs)."""
    match = await registry.create("masker", {"players": 2}, ["human"] * 2, **create)
    for seat in range(2):
        await registry.join(match, f"p{seat}", seat)
    return match


def test_a_rated_live_match_lost_on_time_is_rated(url: str, clock: FakeClock) -> None:
    # the default grace period: an absent seat is not given to a bot before its time runs out
    timed = support.ThreadServer(url, limits=support.RELAXED, clock=clock).start()
    try:
        rated_loss_on_time(timed, clock)
    finally:
        timed.stop()


def rated_loss_on_time(timed: Any, clock: FakeClock) -> None:
    with browser(timed) as ann, browser(timed) as bob:
        ids = [signup(c, unique(n))["player"]["id"] for c, n in ((ann, "Ann"), (bob, "Bob"))]
        body = {"game": "masker", "options": {"players": 2}, "rated": True, "clock": LIVE}
        created = ann.post("/api/matches", json=body).json()
        assert created["clock"]["at_zero"] == "lose"  # the default of a rated match
        match_id = created["id"]
        for seat, client in enumerate((ann, bob)):
            assert client.post(f"/api/matches/{match_id}/join", json={"seat": seat}).status_code == 200
        late = support.summary(ann, match_id)["clock"]["running"]
        clock.t += 61
        ended = wait_for(ann, match_id, lambda s: s["status"] == "finished")
        assert ended["end"]["reason"] == "time"
        assert ended["ratings"][late]["change"] < 0 < ended["ratings"][1 - late]["change"]
        history = ann.get(f"/api/players/{ids[late]}/ratings", params={"game": "masker"}).json()["history"]
        assert [h["match"] for h in history] == [match_id] and history[0]["change"] < 0


def test_bad_clocks_are_refused_and_create_nothing(api: httpx.Client) -> None:
    before = len(api.get("/api/matches").json())
    two = {"game": "masker", "options": {"players": 2}}
    for body, code in (
        ({**two, "clock": {"kind": "fischer", "base": 5, "increment": 0}}, "bad_clock"),
        ({**two, "clock": {"kind": "correspondence", "days": 2}}, "bad_clock"),
        ({**two, "clock": {"kind": "turn", "seconds": 0}}, "bad_clock"),
        ({**two, "clock": LIVE, "turn_seconds": 60}, "bad_clock"),
        ({**two, "clock": LIVE, "at_zero": "pause"}, "bad_request"),
        ({**two, "clock": "fast"}, "bad_request"),
    ):
        error(api.post("/api/matches", json=body), 400, code)
    assert len(api.get("/api/matches").json()) == before
    made = api.post("/api/matches", json={**two, "clock": {"kind": "turn", "seconds": 60}}).json()
    assert made["turn_seconds"] == 60 and made["clock"]["kind"] == "turn"


def test_a_correspondence_match_that_left_memory_is_timed_out_by_the_sweep(url: str) -> None:
    """Nobody connected: the match leaves memory (its clock waits in storage), and the sweep that
    reads the stored deadlines times it out."""

    async def scenario() -> None:
        storage = Storage(url)
        storage.migrate()
        clock = FakeClock()
        registry = Registry(storage, limits=LIMITS, bot_workers=1, clock=clock)
        try:
            match = await registry.create(
                "masker", {"players": 2}, ["human", "human"], clock={"kind": "correspondence", "days": 7}
            )
            for seat in (0, 1):
                await registry.join(match, f"p{seat}", seat)
            assert match.status == "running" and match.deadline == pytest.approx(clock.t + 7 * DAY)
            assert await registry.check_deadlines() == 0
            assert registry.evict_idle(idle=0) == 1 and match.id not in registry.matches
            clock.t += 7 * DAY + 1
            assert await registry.check_deadlines() == 1
            row = storage.match(match.id)
            assert row is not None and row.status == "running"  # casual: a bot plays the seat on
            seats = storage.seats(match.id)
            assert [s.kind for s in seats].count("random") == 1
        finally:
            registry.close()
            storage.engine.dispose()

    support.run_async(scenario())


def test_a_late_match_that_cannot_be_read_does_not_stop_the_sweep_timing_out_the_others(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep times out each late match on its own: one whose log cannot be read (a record the
    rules no longer replay) is passed over, and the matches after it are still timed out."""
    from masques.engine import ActionError

    async def scenario() -> None:
        storage = Storage(url)
        storage.migrate()
        clock = FakeClock()
        registry = Registry(storage, limits=LIMITS, bot_workers=1, clock=clock)
        try:
            matches = []
            for _ in range(3):
                match = await registry.create(
                    "masker", {"players": 2}, ["human", "human"], clock={"kind": "correspondence", "days": 1}
                )
                for seat in (0, 1):
                    await registry.join(match, f"p{seat}", seat)
                matches.append(match)
            assert registry.evict_idle(idle=0) == 3
            clock.t += DAY + 1
            unreadable = storage.due(clock.t)[0]
            load = registry._load

            def load_all_but_one(match_id: str) -> Any:
                if match_id == unreadable:
                    raise ActionError("this log does not replay")
                return load(match_id)

            monkeypatch.setattr(registry, "_load", load_all_but_one)
            assert await registry.check_deadlines() == 2
            for match in matches:
                kinds = [s.kind for s in storage.seats(match.id)]
                assert kinds.count("human") == (2 if match.id == unreadable else 1), kinds
        finally:
            registry.close()
            storage.engine.dispose()

    support.run_async(scenario())


def test_a_turn_clock_is_stored_for_a_rematch_and_played_by_a_process_that_did_not_hold_it(
    tmp_path: Path,
) -> None:
    """A rematch's first turn has its stored deadline like any other turn; and a late turn of a
    match no process holds (its process died) is played once another process's sweep finds it."""
    now = [1_000_000.0]

    async def first() -> str:
        async with support.sqlite_registry(tmp_path, clock=lambda: now[0]) as registry:
            match = await _two_people(registry, turn_seconds=60)
            await registry.resign(match, 0)
            for seat in range(2):
                await registry.answer_rematch(match, seat, True)
            assert match.rematch is not None
            rematch: str = match.rematch["match"]
            row = registry.storage.match(rematch)
            assert row is not None and row.status == "running" and row.deadline == now[0] + 60
            return rematch

    async def later(rematch: str) -> None:
        now[0] += 3600  # its process went away; another one's sweep finds the late turn
        async with support.sqlite_registry(tmp_path, clock=lambda: now[0]) as registry:
            assert await registry.check_deadlines() == 0  # not a clock that loses: its task plays
            match = registry.matches[rematch]
            for _ in range(200):
                if match.version >= 1:
                    break
                await asyncio.sleep(0.05)
            assert match.version == 1 and match.status == "running"

    rematch = support.run_async(first())
    support.run_async(later(rematch))


def test_a_turn_clock_with_no_stored_deadline_stores_one_and_a_catch_up_meanwhile_changes_nothing(
    tmp_path: Path,
) -> None:
    """A running per-turn match stored without its deadline (a row from before deadlines were kept)
    gets a whole turn, stored once; reading the match again while that is written neither loses
    the deadline nor plays the person's move."""
    from sqlalchemy import text

    now = [1_000_000.0]

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path, clock=lambda: now[0]) as registry:
            made = await _two_people(registry, turn_seconds=600)
        # The writes go through this process's thread, where the slowed method below is the one called.
        async with support.sqlite_registry(tmp_path, clock=lambda: now[0], writer="thread") as registry:
            with registry.storage.engine.begin() as connection:
                connection.execute(text("UPDATE matches SET deadline = NULL WHERE id = :i"), {"i": made.id})
            store = registry.storage.set_turn_deadline

            def slowly(*args: Any) -> float | None:
                time.sleep(0.3)
                return store(*args)

            registry.storage.set_turn_deadline = slowly  # type: ignore[method-assign]
            match = await registry.get(made.id)
            await asyncio.sleep(0.05)  # the clock is writing its deadline
            await registry.reload_seats([made.id])
            await asyncio.sleep(1.0)
            assert match.version == 0 and match.turn_deadline == now[0] + 600
            row = registry.storage.match(made.id)
            assert row is not None and row.deadline == now[0] + 600

    support.run_async(scenario())
