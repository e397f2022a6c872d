"""Analysis of a finished match and hints: each of the seat's decisions judged from that seat's own
view only (the analysis bot's every input is checked against the engine), the three largest drops,
kept once computed, readable by its player alone until shared; hints only in casual matches
against bots, on the seat's own turn."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.server import analysis
from masques.server.errors import ServerError

POLL_SECONDS = 240.0
HINT_TIMEOUT = 120.0
"""A hint is a hard bot's decision, thought in a bot process that a busy machine runs last."""

HIDDEN: list[tuple[str, dict[str, Any], list[str]]] = [
    ("masker", {"players": 2}, ["human", "random"]),
    ("mascarade", {"players": 2}, ["human", "random"]),
    ("maske", {"players": 3, "masks": 2}, ["human", "random", "random"]),
]
"""Hidden-information games: the analysis must judge from the seat's information set."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """On SQLite, with bots in threads (so the test sees what the analysis bot is given) and the
    easy level analysing (the expert's budget would only make the test slow)."""
    url = support.fresh_database_url("sqlite", tmp_path_factory.mktemp("analysis"))
    limits = replace(support.RELAXED, analysis_level="easy")
    running = support.ThreadServer(url, limits=limits, bot_pool=lambda: ThreadPoolExecutor(2)).start()
    yield running
    running.stop()


@pytest.fixture
def api(server: Any) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as client:
        yield client


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every input the analysis bot is given."""
    seen: list[dict[str, Any]] = []
    original = analysis.judge_decision

    def recording(*args: Any, **kwargs: Any) -> tuple[int, float, float]:
        seen.append({"seat": args[3], **kwargs})
        return original(*args, **kwargs)

    monkeypatch.setattr(analysis, "judge_decision", recording)
    return seen


def finished_match(
    server: Any, api: httpx.Client, game: str, options: dict[str, Any], seats: list[str]
) -> tuple[str, str]:
    return support.finished_match(api, server.ws_url, game, options, seats)  # type: ignore[no-any-return]


def analysed(api: httpx.Client, match_id: str, token: str) -> dict[str, Any]:
    """Ask for seat 0's analysis and wait for it, checking the progress on the way."""
    headers = {"x-seat-token": token}
    response = api.post(f"/api/matches/{match_id}/analysis", headers=headers)
    deadline = time.monotonic() + POLL_SECONDS
    while response.status_code == 202:
        progress = response.json()
        assert progress["status"] == "running" and 0 <= progress["done"] <= progress["total"]
        assert time.monotonic() < deadline, "the analysis did not finish"
        time.sleep(0.3)
        response = api.get(f"/api/matches/{match_id}/analysis", headers=headers)
    assert response.status_code == 200, response.text
    return dict(response.json())


@pytest.mark.parametrize("config", HIDDEN, ids=[c[0] for c in HIDDEN])
def test_every_decision_is_judged_from_the_seats_own_view_only(
    config: tuple[str, dict[str, Any], list[str]],
    server: Any,
    api: httpx.Client,
    judged: list[dict[str, Any]],
) -> None:
    game, options, seats = config
    match_id, token = finished_match(server, api, game, options, seats)
    body = analysed(api, match_id, token)
    full = support.full_record(server.database_url, match_id)
    replay = support.Replay(full)
    actions = full["actions"]
    decisions = [
        v
        for v in range(len(actions))
        if replay.states[v].current_player == 0 and len(replay.states[v].legal_actions()) > 1
    ]
    assert decisions and [p["ply"] for p in body["points"]] == decisions
    assert [p["turn"] for p in body["points"]] == list(range(1, len(decisions) + 1))
    assert body["seat"] == 0 and body["game"] == game and body["level"] == "easy" and body["status"] == "done"
    for point in body["points"]:
        state = replay.states[point["ply"]]
        assert point["played"]["id"] == actions[point["ply"]]
        assert point["best"]["id"] in state.legal_actions()
        for move in (point["played"], point["best"]):
            assert move["label"] == state.action_to_str(move["id"])
        assert 0.0 <= point["after"] <= 1.0 and 0.0 <= point["chance"] <= 1.0
        assert set(point) == {"ply", "turn", "chance", "after", "played", "best"}

    drops = [p["chance"] - p["after"] for p in body["points"] if p["chance"] > p["after"]]
    assert [d["drop"] for d in body["drops"]] == [round(d, 4) for d in sorted(drops, reverse=True)[:3]]
    assert set(body) == {"match", "seat", "game", "level", "points", "drops", "status", "shared"}

    # the analysis bot saw exactly the seat's observation at each decision, nothing else
    mine = [j for j in judged if j["seat"] == 0 and j["observation"] is not None]
    assert len(mine) == len(decisions)
    by_ply = {v: replay.observation(v, 0) for v in decisions}
    for given in mine:
        ply = next(
            v for v in decisions if actions[v] == given["played"] and by_ply[v] == given["observation"]
        )
        state = replay.states[ply]
        assert given["legal"] == state.legal_actions()
        assert support.hidden_field_problems(game, state, 0, given["observation"]) == []

    # kept: asking again answers at once with the same analysis, computing nothing
    count = len(judged)
    again = api.post(f"/api/matches/{match_id}/analysis", headers={"x-seat-token": token})
    assert again.status_code == 200 and again.json() == body and len(judged) == count


def test_only_its_player_reads_an_analysis_until_it_is_shared(server: Any, api: httpx.Client) -> None:
    match_id, token = finished_match(server, api, "masker", {"players": 2}, ["human", "random"])
    path = f"/api/matches/{match_id}/analysis"
    # not asked for yet: its player is told so (no 404 for a page to report), anyone else nothing
    never = api.get(path, params={"seat": 0}, headers={"x-seat-token": token})
    assert never.status_code == 200 and never.json() == {"status": "none"}
    support.error(api.get(path, params={"seat": 0}), 403, "not_shared")
    support.error(api.post(path), 403, "not_seated")  # no credentials
    support.error(api.post(path, params={"seat": 1}, headers={"x-seat-token": token}), 403, "not_your_seat")
    support.error(api.post(path, headers={"x-seat-token": "x" * 43}), 403, "bad_token")
    support.error(api.post(f"{path}/share", headers={"x-seat-token": token}), 404, "no_analysis")
    body = analysed(api, match_id, token)
    assert body["shared"] is False
    support.error(api.get(path, params={"seat": 0}), 403, "not_shared")
    support.error(api.get(path), 400, "bad_seat")
    support.error(api.get(path, params={"seat": 1}, headers={"x-seat-token": token}), 403, "not_shared")
    shared = api.post(f"{path}/share", headers={"x-seat-token": token})
    assert shared.status_code == 200 and shared.json() == {
        "shared": True,
        "url": f"/match/{match_id}/analysis/0",
    }
    public = api.get(path, params={"seat": 0})
    assert public.status_code == 200 and public.json() == {**body, "shared": True}
    page = api.get(f"/match/{match_id}/analysis/0")
    assert page.status_code in (200, 503)  # the client's page (503 only where the client is not built)


def test_a_match_is_analysed_only_once_it_is_over(server: Any, api: httpx.Client) -> None:
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    token = support.join(api, match_id, "Ann", 0)["token"]
    support.join(api, match_id, "Bob", 1)
    response = api.post(f"/api/matches/{match_id}/analysis", headers={"x-seat-token": token})
    support.error(response, 409, "match_not_finished")


def test_hints_only_in_casual_matches_against_bots_and_on_ones_own_turn(
    server: Any, api: httpx.Client, tmp_path: Path
) -> None:
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "random"], seed=3)["id"]
    token = support.join(api, match_id, "Ann", 0)["token"]
    assert support.summary(api, match_id)["hints"] is True
    conn = support.seat_conns(server.ws_url, match_id, {0: token})[0]
    conn.wait_turn()  # the random bot may move first
    assert conn.state is not None and conn.state["your_turn"]
    # A hard bot's decision, in a bot process a busy machine may give little time to.
    seat = {"x-seat-token": token}
    response = api.post(f"/api/matches/{match_id}/hint", headers=seat, timeout=HINT_TIMEOUT)
    assert response.status_code == 200, response.text
    hint = response.json()
    legal = {move["id"]: move for move in conn.state["legal"]}
    assert hint["version"] == conn.state["version"] and hint["level"] == "hard"
    assert hint["action"] == legal[hint["action"]["id"]]
    conn.close()
    support.error(api.post(f"/api/matches/{match_id}/hint"), 403, "not_seated")

    two = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    first = support.join(api, two, "Ann", 0)["token"]
    support.join(api, two, "Bob", 1)
    assert support.summary(api, two)["hints"] is False
    support.error(
        api.post(f"/api/matches/{two}/hint", headers={"x-seat-token": first}), 403, "hints_not_allowed"
    )

    over, over_token = finished_match(server, api, "masker", {"players": 2}, ["human", "random"])
    support.error(
        api.post(f"/api/matches/{over}/hint", headers={"x-seat-token": over_token}), 409, "match_not_running"
    )


def test_an_analysis_shows_its_progress_and_a_failure_says_to_try_again(
    server: Any, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id, token = finished_match(server, api, "masker", {"players": 2}, ["human", "random"])
    release = threading.Event()

    def failing(*_args: Any, **_kwargs: Any) -> tuple[int, float, float]:
        release.wait(POLL_SECONDS)
        raise RuntimeError("the analysis bot failed")

    monkeypatch.setattr(analysis, "judge_decision", failing)
    headers = {"x-seat-token": token}
    path = f"/api/matches/{match_id}/analysis"
    started = api.post(path, headers=headers)
    assert started.status_code == 202
    deadline = time.monotonic() + POLL_SECONDS
    while (running := api.get(path, headers=headers)).json().get("total") == 0:  # still replaying
        assert running.status_code == 202 and time.monotonic() < deadline
        time.sleep(0.05)
    assert running.status_code == 202 and running.json()["done"] == 0 and running.json()["total"] > 0
    release.set()
    while (response := api.get(path, headers=headers)).status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    support.error(response, 503, "analysis_failed")
    monkeypatch.undo()
    assert analysed(api, match_id, token)["points"]  # asked again, it runs again


def test_a_failed_analysis_is_told_for_a_while_then_let_go_of(
    server: Any, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failure is told to its player, and then forgotten: failures do not pile up in memory."""
    match_id, token = finished_match(server, api, "masker", {"players": 2}, ["human", "random"])

    def failing(*_args: Any, **_kwargs: Any) -> tuple[int, float, float]:
        raise RuntimeError("the analysis bot failed")

    monkeypatch.setattr(analysis, "judge_decision", failing)
    monkeypatch.setattr(analysis, "FAILURE_KEPT_SECONDS", 1.0)
    headers = {"x-seat-token": token}
    path = f"/api/matches/{match_id}/analysis"
    assert api.post(path, headers=headers).status_code == 202
    deadline = time.monotonic() + POLL_SECONDS
    while (response := api.get(path, headers=headers)).status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    support.error(response, 503, "analysis_failed")
    while (response := api.get(path, headers=headers)).status_code == 503:
        assert time.monotonic() < deadline, "the failure was never let go of"
        time.sleep(0.1)
    assert response.status_code == 200 and response.json() == {"status": "none"}


def test_a_hint_the_bot_cannot_give_says_to_try_again(
    server: Any, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*_args: Any, **_kwargs: Any) -> int:
        raise RuntimeError("the hint bot failed")

    monkeypatch.setattr(analysis, "bot_move", failing)
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "random"], seed=3)["id"]
    token = support.join(api, match_id, "Ann", 0)["token"]
    conn = support.seat_conns(server.ws_url, match_id, {0: token})[0]
    conn.wait_turn()
    seat = {"x-seat-token": token}
    response = api.post(f"/api/matches/{match_id}/hint", headers=seat, timeout=HINT_TIMEOUT)
    support.error(response, 503, "hint_failed")
    conn.close()


def test_a_hint_still_thinking_when_its_match_ends_is_refused(tmp_path: Path) -> None:
    """A resignation while the hint's bot thinks keeps the match's version, so the version alone
    does not tell: a hint that comes back after the match ended is refused, not answered."""

    async def never(_match: Any) -> None:
        return None

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            registry._run_bots = never  # type: ignore[method-assign]  # the bot must not move meanwhile
            for seed in range(20):
                match = await registry.create("masker", {"players": 2}, ["human", "hard"], seed=seed)
                if match.to_move == 0:
                    break
            await registry.join(match, "p0", 0)
            thinking = asyncio.Event()
            release = asyncio.Event()

            async def slow(_owner: str, _job: Any) -> int:
                thinking.set()
                await release.wait()
                return int(match.state.legal_actions()[0])

            registry.bots.run = slow  # type: ignore[assignment,method-assign]
            asked = asyncio.get_running_loop().create_task(analysis.hint(registry, match, 0))
            await thinking.wait()
            await registry.resign(match, 0)
            release.set()
            with pytest.raises(ServerError) as refused:
                await asked
            assert refused.value.code == "match_not_running" and match.status == "finished"

    support.run_async(scenario())


def test_analyses_asked_for_at_once_leave_a_worker_to_the_live_matches_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many analyses run, a live match's bot gets a worker at once: analyses share one
    owner in the bots' fair queue, which never gives an owner its last free worker."""
    from masques.server.bots import FairQueue

    judging, release = threading.Semaphore(0), threading.Event()

    def judged_slowly(*_args: Any, legal: list[int], **_kwargs: Any) -> tuple[int, float, float]:
        judging.release()
        release.wait(30)
        return legal[0], 0.5, 0.5

    monkeypatch.setattr(analysis, "judge_decision", judged_slowly)

    async def finished(registry: Any) -> Any:
        match = await registry.create("masker", {"players": 2}, ["human", "human"])
        for seat in (0, 1):
            await registry.join(match, f"p{seat}", seat)
        for _ in range(8):
            await registry.submit(match, match.to_move, match.state.legal_actions()[0], match.version)
        await registry.resign(match, 0)
        return match

    async def scenario() -> int:
        async with support.sqlite_registry(tmp_path) as registry:
            registry.bots.close()
            registry.bots = FairQueue(2, 30.0, lambda: ThreadPoolExecutor(max_workers=2))
            analyses = analysis.Analyses(registry)
            try:
                for match in [await finished(registry), await finished(registry)]:
                    assert (await analyses.start(match, 0))[0] == 202
                assert await asyncio.to_thread(judging.acquire, True, 10)  # the analyses have a worker
                return int(await asyncio.wait_for(registry.bots.run("a table", lambda: 7), 5))
            finally:
                release.set()
                await asyncio.gather(*(p.task for p in list(analyses.running.values()) if p.task is not None))

    assert support.run_async(scenario()) == 7


def test_an_analysis_that_ends_while_it_is_asked_for_again_is_not_computed_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked for again just as it is saved (its player's page asking once more): the saved analysis
    is the answer, not a second run of every decision."""
    from masques.server.storage import AnalysisRow

    async def scenario() -> tuple[int, dict[str, Any], int]:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            for seat in (0, 1):
                await registry.join(match, f"p{seat}", seat)
            await registry.resign(match, 1)
            analyses = analysis.Analyses(registry)
            loop = asyncio.get_running_loop()
            ending, ended = asyncio.Event(), threading.Event()

            async def running() -> None:
                await ending.wait()

            progress = analysis.Progress(total=3)
            progress.task = loop.create_task(running())
            key = (match.id, 0)
            analyses.running[key] = progress

            def saved_and_let_go(_task: Any) -> None:  # as a run's end does: saved, then let go of
                analyses.running.pop(key, None)
                ended.set()

            progress.task.add_done_callback(saved_and_let_go)
            storage = registry.storage
            read = storage.analysis
            reads = 0

            def read_as_the_run_ends(match_id: str, seat: int) -> Any:
                nonlocal reads
                reads += 1
                found = read(match_id, seat)
                if reads == 1:  # the run saves and ends while this read is under way
                    row = AnalysisRow(match_id=match_id, seat=seat, level="hard", body={"x": 1})
                    storage.save_analysis(row)
                    loop.call_soon_threadsafe(ending.set)
                    assert ended.wait(5)
                return found

            monkeypatch.setattr(storage, "analysis", read_as_the_run_ends)
            status, body = await analyses.start(match, 0)
            return status, body, len(analyses.running)

    status, body, runs = support.run_async(scenario())
    assert status == 200 and body["x"] == 1 and runs == 0
