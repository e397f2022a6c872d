"""A newcomer learns each game in the browser: from the lobby to the game's rules, whose figures the
game's own board view draws (DOM, no image), then its guided first game, where a wrong move is
answered and the right ones lead to the end and an offer to play the easy bot.

The moves are made through each view's own controls (the elements marked ``data-action``; in Blokus
3D the tray's keys), the way a person makes them.
"""

from __future__ import annotations

import re
from typing import Any

import masques_web_e2e as e2e
import pytest
from playwright.sync_api import Page, expect

PIECES = ["I2", "I3", "V3", "I4", "O4", "T4", "L4", "S4", "SR", "SL", "Y4"]
"""Blokus 3D's tray in key order: the keys 1-9, 0 and - pick them."""


def _click_action(page: Page, action: int) -> bool:
    target = page.locator(f".game-view [data-action='{action}']")
    if not target.count():
        return False
    target.first.dispatch_event("click")
    return True


def play_one_of(page: Page, game: str, view: dict[str, Any], ids: set[int]) -> int:
    """Make one move among ``ids`` through the game's own controls; the id of the move made."""
    legal = {a["id"]: a for a in view["legal"]}
    if game == "blokus3d":
        stage = page.locator(".b3-stage")
        stage.focus()
        pieces = sorted({legal[i]["label"].split(":")[0] for i in ids}, key=PIECES.index)
        for piece in pieces:
            page.keyboard.press("1234567890-"[PIECES.index(piece)])
            for _ in range(130):  # at most one turn through the piece's placements
                choice = page.locator(".b3-choice")
                chosen = int(choice.get_attribute("data-action") or -1) if choice.count() else -1
                if chosen in ids:
                    page.keyboard.press("Enter")
                    return chosen
                page.keyboard.press("n")
                # The ghost moves on to the next placement before it is read again.
                expect(page.locator(".b3-choice")).not_to_have_attribute("data-action", str(chosen))
        raise AssertionError(f"no placement among {len(ids)} moves reached with the keys")
    action = min(ids)
    if game == "mascarade":
        card = legal[action]["move"].get("card")
        page.locator(f".mc-hand-card[data-card='{card}']").click()
    if game == "maske" and not page.locator(f".game-view [data-action='{action}']").count():
        stick = re.match(r"step (\d+) ", legal[action]["label"])
        assert stick, legal[action]["label"]
        page.locator(f".ms-plate [data-stick='{stick.group(1)}'][role=button]").first.dispatch_event("click")
    assert _click_action(page, action), f"{game}: move {legal[action]['label']} is not on screen"
    return action


def open_rules_from_lobby(page: Page, base: str, game: str) -> None:
    page.goto(base + "/")
    page.get_by_test_id(f"rules-{game}").click()
    expect(page).to_have_url(re.compile(rf"/rules/{game}$"))
    body = page.get_by_test_id("rules-body")
    expect(body).to_have_attribute("data-state", "ready", timeout=e2e.TIMEOUT_MS)
    figures = body.locator("figure[data-figure]")
    assert figures.count() >= 1
    for i in range(figures.count()):
        board = figures.nth(i).locator(".game-view")
        expect(board).to_have_attribute("data-game", game)
        # Drawn by the board view: its own elements (SVG, canvas, buttons), never a picture (Blokus
        # 3D's view loads its 3D library first).
        expect(board.locator("svg, canvas, button").first).to_be_attached(timeout=e2e.TIMEOUT_MS)
        assert board.locator("svg, canvas, button, [data-cell], div").count() > 3
    assert body.locator("img").count() == 0
    assert body.locator("a.rule-id[id]").count() > 3


@pytest.mark.slow
@pytest.mark.parametrize("game", ["masker", "maske", "mascarade", "blokus3d"])
def test_a_newcomer_reads_the_rules_and_completes_the_guided_first_game(
    page: Page, web_server: Any, game: str
) -> None:
    base = web_server.base_url
    open_rules_from_lobby(page, base, game)
    if game == "masker":
        # A rule id in the page is an anchor; the French page is one click away.
        page.goto(base + "/rules/masker#MK-12")
        expect(page.get_by_test_id("rules-body")).to_have_attribute("data-state", "ready")
        expect(page.locator("#MK-12")).to_have_class(re.compile("rule-target"))
        page.screenshot(path=str(e2e.SCREENSHOTS / "rules.png"), full_page=False)
        page.get_by_test_id("rules-lang").click()
        expect(page.locator("h1")).to_contain_text("règle du jeu")
        expect(page).to_have_url(re.compile(r"lang=fr"))
        page.get_by_test_id("rules-lang").click()
        expect(page.locator("h1")).to_contain_text("rules")

    page.get_by_test_id("rules-learn").click()
    expect(page).to_have_url(re.compile(rf"/learn/{game}$"))
    lesson_page = page.locator(".learn-page")
    expect(lesson_page).to_have_attribute("data-phase", "ask", timeout=e2e.TIMEOUT_MS)
    lesson = page.request.get(f"{base}/api/lessons/{game}?lang=en").json()
    feedback = page.get_by_test_id("learn-feedback")

    for index, step in enumerate(lesson["steps"]):
        expect(lesson_page).to_have_attribute("data-step", str(index))
        expect(page.get_by_test_id("learn-text")).to_have_text(step["text"])
        legal = {a["id"] for a in step["state"]["legal"]}
        right = set(step["right"])
        if index == 0:
            wrong = legal - right
            if game == "blokus3d":  # the domino: a block of two cubes
                wrong = {a["id"] for a in step["state"]["legal"] if a["label"].startswith("I2:")}
            play_one_of(page, game, step["state"], wrong)
            expect(feedback).to_have_attribute("data-kind", "wrong")
            expect(feedback).to_contain_text(step["wrong"])
            expect(lesson_page).to_have_attribute("data-phase", "ask")
        play_one_of(page, game, step["state"], right)
        expect(lesson_page).to_have_attribute("data-phase", "done", timeout=e2e.TIMEOUT_MS)
        expect(feedback).to_have_attribute("data-kind", "right")
        expect(feedback).to_contain_text(step["done"])
        if game == "mascarade" and index == 1:
            e2e.screenshot(page, "lesson")
        # The way on has the focus: Enter takes it, and the focus goes to the board of the next step.
        expect(page.get_by_test_id("learn-next")).to_be_focused()
        page.keyboard.press("Enter")
        if index + 1 < len(lesson["steps"]):
            assert page.evaluate("() => document.querySelector('.game-view') === document.activeElement")

    expect(lesson_page).to_have_attribute("data-phase", "end")
    expect(page.get_by_test_id("learn-outro")).to_have_text(lesson["outro"])
    offer = page.get_by_test_id("learn-play-easy")
    expect(offer).to_be_visible()
    expect(offer).to_be_focused()
    if game == "masker":
        offer.click()
        expect(page).to_have_url(re.compile(r"/match/[0-9a-f]{16}$"), timeout=e2e.TIMEOUT_MS)
        e2e.wait_ready(page)
        assert page.locator(".match-page").get_attribute("data-seat") == "0"
        expect(page.locator(".seats")).to_contain_text("Easy bot")
        expect(page.get_by_test_id("match-rules")).to_have_attribute("href", "/rules/masker")
    if game == "maske":
        # The rule ids the texts cite (as error messages do) link to the rule on the game's page.
        page.get_by_test_id("learn-restart").click()
        cited = page.get_by_test_id("learn-text").locator("a.rule-link", has_text="MS-13")
        expect(cited).to_have_attribute("href", "/rules/maske#MS-13")
        cited.click()
        expect(page.get_by_test_id("rules-body")).to_have_attribute("data-state", "ready")
        expect(page.locator("#MS-13")).to_have_class(re.compile("rule-target"))
        expect(page.locator("#MS-13")).to_be_in_viewport()
