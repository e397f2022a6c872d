"""Analysis and hints in the browser (issue 21, build item 4): a person plays a short Masker match
against a bot to its end, asks for the analysis of their seat, watches its progress, reads the graph
of their chance of winning (one point per decision) and their three largest drops, jumps the replay to
one of them, shares the analysis and opens the shared link on another device.  In a casual match
against bots the hint button marks the hard bot's move on the board; a rated match has no hint button.

The analysis page is written to docs/screenshots/analysis.png.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

import masques_web_e2e as e2e  # type: ignore[import-not-found]
import pytest
from masques_web_e2e import People, masker_move, sign_up
from playwright.sync_api import Browser, Page, Route, expect

ANALYSIS_TIMEOUT_MS = 240_000
"""Bounds the wait for an analysis (the test server analyses with the easy bot, in its one bot worker)."""
HINT_TIMEOUT_MS = 120_000
"""Bounds the wait for a hint: the hard bot thinks in the one bot worker, which runs at a lower
priority than everything else of a busy machine (a decision of 0.4 s took 4 to 13 s there)."""


def analysis_body(page: Page, base: str, match_id: str, seat: int) -> dict[str, Any]:
    """The analysis as this browser's seat reads it (its session cookie)."""
    answer = page.request.get(f"{base}/api/matches/{match_id}/analysis?seat={seat}")
    assert answer.status == 200, answer.text()
    body: dict[str, Any] = answer.json()
    return body


def path_points(d: str) -> int:
    """The points of an SVG path drawn as ``M x,y L x,y ...``."""
    return len(re.findall(r"[ML]\s*-?[\d.]+,-?[\d.]+", d))


def play_masker_against_a_bot(page: Page, base: str, seed: int) -> str:
    e2e.create_match(page, base, "masker", options={"players": "2"}, seats=["you", "random"])
    match_id = page.url.rsplit("/", 1)[1]
    e2e.play_to_end(page, masker_move(random.Random(seed)))
    return match_id


def show_progress_once(page: Page) -> None:
    """The first answer to the Analyse button says "running" (the real request is made; a finished
    analysis is answered as running with none done), so that the page must show its progress and poll."""
    said = {"once": False}

    def handle(route: Route) -> None:
        answer = route.fetch()
        if said["once"] or route.request.method != "POST":
            route.fulfill(response=answer)
            return
        said["once"] = True
        body = answer.json()
        # a total known (an analysis just started has none yet, and the page then says only "Analysing…")
        total = max(2, body.get("total", len(body.get("points", []))))
        route.fulfill(status=202, json={"status": "running", "done": 0, "total": total})

    page.route(re.compile(r"/api/matches/[0-9a-f]{16}/analysis\?seat=\d+$"), handle)


@pytest.mark.slow
def test_a_finished_match_is_analysed_jumped_to_and_shared(
    page: Page, browser: Browser, web_server: Any
) -> None:
    base = web_server.base_url
    match_id = play_masker_against_a_bot(page, base, seed=21)
    seat = int(page.locator(".match-page").get_attribute("data-seat") or -1)
    assert seat == 0

    # Before anything is shared, the analysis' address shows nothing to another device.
    shared_url = f"{base}/match/{match_id}/analysis/{seat}"
    stranger = browser.new_context(viewport=e2e.LAPTOP, locale="en-GB")
    try:
        other = stranger.new_page()
        errors = e2e.watch_errors(other)
        other.goto(shared_url)
        expect(other.get_by_test_id("analysis-error")).to_have_text("This analysis is not shared.")
        expect(other.get_by_test_id("chance-graph")).to_have_count(0)
        assert not errors, errors
    finally:
        stranger.close()

    # Analyse: the progress shows (done of total), then the graph and the three moments.
    panel = page.get_by_test_id("analysis-panel")
    expect(panel).to_be_visible()
    show_progress_once(page)
    panel.get_by_test_id("analyse").click()
    progress = panel.get_by_test_id("analysis-progress")
    expect(progress).to_be_visible()
    expect(progress).to_have_attribute("data-done", "0")
    expect(progress).to_contain_text(re.compile(r"Analysing… 0 of \d+ decisions"))
    graph = panel.get_by_test_id("chance-graph")
    expect(graph).to_be_visible(timeout=ANALYSIS_TIMEOUT_MS)
    expect(progress).to_have_count(0)
    page.unroute(re.compile(r"/api/matches/[0-9a-f]{16}/analysis\?seat=\d+$"))

    body = analysis_body(page, base, match_id, seat)
    assert body["status"] == "done" and body["seat"] == seat and body["game"] == "masker"
    points, drops = body["points"], body["drops"]
    assert len(points) >= 3, "a whole Masker match has more than three decisions with a choice"
    assert len(drops) == 3
    expect(graph).to_have_attribute("data-points", str(len(points)))
    assert path_points(graph.locator("path.line").get_attribute("d") or "") == len(points)
    # The three largest drops are marked on the graph.
    expect(graph.locator("circle.drop")).to_have_count(3)
    moments = panel.get_by_test_id("moment")
    expect(moments).to_have_count(3)
    for i, drop in enumerate(drops):
        moment = moments.nth(i)
        expect(moment).to_have_attribute("data-ply", str(drop["ply"]))
        # In the log's words (a move's engine text is the view's business, not the player's).
        played, best = masker_words(drop["played"]["label"]), masker_words(drop["best"]["label"])
        expect(moment.locator(".moment-played")).to_have_text(re.compile(f"^Played: {played}$"))
        expect(moment.locator(".moment-best")).to_have_text(re.compile(f"^The bot preferred: {best}$"))
        # The page rounds halves up (Math.round), where Python's round() rounds them to even.
        shown = math.floor(drop["drop"] * 100 + 0.5)
        expect(moment.locator(".moment-drop")).to_contain_text(f"−{shown}%")
    e2e.screenshot(page, "analysis")

    # In French: the panel's own strings.
    page.get_by_test_id("lang").click()
    expect(panel.locator("h4")).to_have_text("Trois moments")
    expect(moments.first.get_by_test_id("moment-link")).to_have_text("Voir dans la relecture")
    page.get_by_test_id("lang").click()
    expect(panel.locator("h4")).to_have_text("Three moments")

    # A moment's link opens the replay at that ply; there another moment steps the replay in place.
    ply = drops[1]["ply"]
    moments.nth(1).get_by_test_id("moment-link").click()
    expect(page).to_have_url(f"{base}/match/{match_id}/replay?step={ply}")
    # The replay's steps load, then it stands at the ply.
    position = page.get_by_test_id("replay-position")
    expect(position).to_have_text(re.compile(rf"^Step {ply} of [1-9]\d*$"))
    total = int(position.inner_text().strip().rsplit(" ", 1)[1])
    assert ply < total
    replay_panel = page.get_by_test_id("analysis-panel")
    # The analysis asked for on the match page shows there at once (no second request to analyse).
    expect(replay_panel.get_by_test_id("moment")).to_have_count(3)
    expect(replay_panel.get_by_test_id("analyse")).to_have_count(0)
    last = drops[2]["ply"]
    replay_panel.get_by_test_id("moment-link").nth(2).click()
    expect(page.get_by_test_id("replay-position")).to_have_text(f"Step {last} of {total}")
    assert page.url.endswith(f"/match/{match_id}/replay?step={last}")

    # Share: the link is shown (and copied or selected), and opens the analysis on another device.
    replay_panel.get_by_test_id("share").click()
    link = replay_panel.get_by_test_id("share-link")
    expect(link).to_have_value(shared_url)
    replay_panel.get_by_test_id("copy-share").click()
    expect(replay_panel.get_by_test_id("share-copied")).to_be_visible()
    assert analysis_body(page, base, match_id, seat)["shared"] is True

    stranger = browser.new_context(viewport=e2e.LAPTOP, locale="en-GB")
    try:
        other = stranger.new_page()
        errors = e2e.watch_errors(other)
        other.goto(shared_url)
        shared = other.get_by_test_id("analysis-page")
        expect(shared.get_by_test_id("chance-graph")).to_have_attribute("data-points", str(len(points)))
        expect(shared.get_by_test_id("moment")).to_have_count(3)
        expect(other.locator(".match-title")).to_contain_text("Analysis: ")
        # Moves in the log's words here too, though no board is drawn: the seat's, not "your", moves.
        for i, drop in enumerate(drops):
            moment = shared.get_by_test_id("moment").nth(i)
            played = masker_words(drop["played"]["label"], own=False)
            best = masker_words(drop["best"]["label"], own=False)
            expect(moment.locator(".moment-played")).to_have_text(re.compile(f"^Played: {played}$"))
            expect(moment.locator(".moment-best")).to_have_text(re.compile(f"^The bot preferred: {best}$"))
        # Its moment links open the replay (as a spectator sees it) at the ply.
        shared.get_by_test_id("moment-link").first.click()
        expect(other).to_have_url(f"{base}/match/{match_id}/replay?step={drops[0]['ply']}")
        expect(other.get_by_test_id("replay-position")).to_have_text(f"Step {drops[0]['ply']} of {total}")
        expect(other.get_by_test_id("analysis-panel")).to_be_hidden()  # a spectator has no seat to analyse
        assert not errors, errors
    finally:
        stranger.close()


def masker_words(move: str, own: bool = True) -> str:
    """A pattern of a Masker move as the log says it ("c4" -> "step onto c4"; another's, or the
    one of a seat the page does not hold: "steps onto c4")."""
    s = "" if own else "s"
    if move == "stop":
        return f"stop{s}"
    if move.startswith("take "):
        return f"take{s} a cross from .+"
    return re.escape(f"step{s} onto {move}")


def test_the_hint_marks_the_hard_bots_move_in_a_casual_match(page: Page, web_server: Any) -> None:
    base = web_server.base_url
    e2e.create_match(page, base, "masker", options={"players": "2"}, seats=["you", "random"])
    match_id = page.url.rsplit("/", 1)[1]
    assert page.request.get(f"{base}/api/matches/{match_id}").json()["hints"] is True
    assert e2e.wait_turn_or_end(page) == "mine"
    hint = page.get_by_test_id("hint")
    expect(hint).to_be_visible()
    hint.focus()  # asked from the keyboard: the button keeps the focus while it asks and answers
    hinted = re.compile(r"/api/matches/[0-9a-f]{16}/hint\?seat=0$")
    with page.expect_response(hinted, timeout=HINT_TIMEOUT_MS) as answered:
        page.keyboard.press("Enter")
    given = answered.value.json()
    assert answered.value.status == 200 and given["level"] == "hard"
    said = page.get_by_test_id("hint-text")
    words = masker_words(given["action"]["label"])
    expect(said).to_have_text(re.compile(f"^The hard bot's move: {words}\\.$"))
    expect(hint).to_be_focused()
    action = int(said.get_attribute("data-action") or -1)
    assert action == given["action"]["id"]
    assert action in e2e.legal_ids_on_screen(page), "the hint is one of the moves offered"
    marked = page.locator(".game-view .hinted")
    expect(marked.first).to_be_visible()
    assert {int(a) for a in marked.evaluate_all("els => els.map(e => e.getAttribute('data-action'))")} == {
        action
    }
    # Played: the mark and the words go with the position.
    seen = e2e.version(page)
    page.locator(f".game-view [data-action='{action}']").first.click()
    e2e.wait_version_above(page, seen)
    expect(page.locator(".game-view .hinted")).to_have_count(0)
    expect(said).to_have_count(0)


def test_a_rated_match_has_no_hint_button(people: People, web_server: Any) -> None:
    base = web_server.base_url
    ada = people.device()
    sign_up(ada, base, "hintless")
    e2e.choose_game(ada, "masker")
    form = ada.get_by_test_id("create-form")
    form.locator("select[name=players]").select_option("2")
    form.locator("select[name=seat-0]").select_option("you")
    form.locator("select[name=seat-1]").select_option("random")
    form.get_by_test_id("rated").check()
    ada.get_by_test_id("create").click()
    ada.wait_for_url(re.compile(r"/match/[0-9a-f]{16}$"))
    match_id = ada.url.rsplit("/", 1)[1]
    summary = ada.request.get(f"{base}/api/matches/{match_id}").json()
    assert summary["rated"] is True and summary["hints"] is False
    assert e2e.wait_turn_or_end(ada) == "mine"
    expect(ada.get_by_test_id("rated-tag")).to_be_visible()
    expect(ada.get_by_test_id("hint")).to_have_count(0)
    # Nor does the server give one.
    answer = ada.request.post(
        f"{base}/api/matches/{match_id}/hint?seat=0",
        headers={"x-csrf-token": ada.evaluate("fetch('/api/me').then(r => r.json()).then(m => m.csrf)")},
    )
    assert answer.status == 403 and answer.json()["code"] == "hints_not_allowed"
