"""Masker in the browser: a person creates a match against bots in the lobby and plays it to the end
through the board (clicks in 2D, the keyboard alone in the 3D variant); two people play one match
from two browsers (to its end in test_ratings_chat.py); a spectator never receives a secret colour.

On every turn the choices on screen are exactly the legal actions the server sent this seat.
"""

from __future__ import annotations

import json
import random
import re

import masques_web_e2e as e2e
import pytest
from playwright.sync_api import Browser, Page, expect

COLOURS = ("red", "yellow", "green", "blue", "black")


def _secret_colour(page: Page) -> str:
    text = page.get_by_test_id("mk-secret").locator(".mk-secret-colour").inner_text().strip().lower()
    assert text in COLOURS, text
    return text


def _clicker(rng: random.Random, frames: e2e.Frames | None = None):
    """One move by mouse: a highlighted cross (or a completion choice), sometimes Stop."""

    def move(page: Page) -> None:
        choices = page.locator(".game-view [data-action]")
        choices.first.wait_for()  # the page may say "your turn" a moment before the view draws it
        if frames is not None:
            legal = {a["id"] for a in frames.last_state()["legal"]}
            assert e2e.legal_ids_on_screen(page) == legal, "the board offers exactly the legal moves"
        stop = page.get_by_test_id("mk-stop")
        if stop.count() and rng.random() < 0.35:
            stop.click()
        else:
            choices.nth(rng.randrange(choices.count())).click()

    return move


def test_a_person_plays_masker_against_a_bot_to_the_end(page: Page, web_server: object) -> None:
    rng = random.Random(11)
    frames = e2e.Frames(page)
    e2e.create_match(page, web_server.base_url, "masker", options={"players": "2"}, seats=["you", "random"])  # type: ignore[attr-defined]
    first_id = page.url.rsplit("/", 1)[1]
    mine = _secret_colour(page)
    expect(page.locator(".mk-board svg g[data-square]")).to_have_count(36)

    def on_turn(p: Page, n: int) -> None:
        if n == 5:
            e2e.screenshot(p, "masker")

    moves = e2e.play_to_end(page, _clicker(rng, frames), on_turn=on_turn)
    assert moves >= 5
    end = page.get_by_test_id("end")
    expect(end).to_be_visible()
    expect(end.locator("table.scores tbody tr")).to_have_count(2)
    expect(page.get_by_test_id("banner")).to_contain_text("Game over")
    # The colours are revealed to everyone at the end, mine among them.
    expect(page.locator(".mk-revealed")).to_have_count(2)
    assert mine in page.locator(".mk-player[data-seat='0'] .mk-revealed").inner_text().lower()
    assert page.locator(".log li").count() > 0
    # Rematch: the only human accepts, so the one new match starts at once, seats rotated by one: I hold
    # seat 1 there (the session's seat; no token is stored for it).
    page.get_by_test_id("rematch-accept").click()
    page.wait_for_url(re.compile(r"/match/(?!" + first_id + r")[0-9a-f]{16}$"))
    assert e2e.wait_ready(page) in ("mine", "waiting")
    assert page.locator(".match-page").get_attribute("data-seat") == "1"


@pytest.mark.slow
def test_masker_3d_with_the_keyboard_alone(page: Page, web_server: object) -> None:
    """Three players in 3D: every move is made by Tab and Enter (or S to stop)."""
    rng = random.Random(5)
    e2e.create_match(
        page,
        web_server.base_url,  # type: ignore[attr-defined]
        "masker",
        options={"players": "3", "variant": "3d"},
        seats=["you", "random", "random"],
    )
    expect(page.locator(".mk-iso g[data-square]")).to_have_count(9)

    keyboard_in_board = False  # a move was made with Enter: the board has had the focus since

    def move(p: Page) -> None:
        nonlocal keyboard_in_board
        p.locator(".game-view [data-action]").first.wait_for()  # the view has drawn the turn
        if keyboard_in_board:  # the redraws took the chosen move away, not the keyboard's place
            assert p.evaluate("() => document.querySelector('.game-view').contains(document.activeElement)")
        if p.get_by_test_id("mk-stop").count() and rng.random() < 0.4:
            p.keyboard.press("s")
            return
        wanted = rng.randrange(p.locator(".game-view [data-action]").count())
        seen = -1
        for _ in range(80):  # Tab through the page to the wanted choice
            p.keyboard.press("Tab")
            if p.evaluate("() => document.activeElement?.hasAttribute('data-action') ?? false"):
                seen += 1
                if seen == wanted:
                    p.keyboard.press("Enter")
                    keyboard_in_board = True
                    return
        raise AssertionError("Tab never reached the moves")

    def on_turn(p: Page, n: int) -> None:
        if n == 4:
            e2e.screenshot(p, "masker-3d")

    assert e2e.play_to_end(page, move, on_turn=on_turn) >= 3
    expect(page.get_by_test_id("end")).to_be_visible()


def test_two_people_play_one_masker_match_from_two_browsers(browser: Browser, web_server: object) -> None:
    """Bea joins Ada's open match from the lobby; they play turns, each page following the other's."""
    base = web_server.base_url  # type: ignore[attr-defined]
    contexts = [browser.new_context(viewport=e2e.LAPTOP, reduced_motion=e2e.STILL) for _ in range(2)]
    ada, bea = (c.new_page() for c in contexts)
    errors = e2e.watch_errors(ada) + e2e.watch_errors(bea)
    try:
        match_id = e2e.create_match(
            ada, base, "masker", options={"players": "2"}, seats=["you", "human"], name="Ada"
        )
        assert e2e.turn_state(ada) == "open"
        # Bea finds the open match in the lobby and takes the free seat.
        bea.goto(base + "/")
        bea.locator(f"li[data-match='{match_id}'] a").click()
        bea.wait_for_url(f"**/match/{match_id}")
        bea.locator("input[name=player-name]").fill("Bea")
        bea.locator(".join-panel button[data-seat='1']").click()
        for page in (ada, bea):
            page.wait_for_selector(".match-page[data-turn=mine], .match-page[data-turn=waiting]")
        expect(ada.locator(".seats")).to_contain_text("Bea")
        expect(bea.locator(".seats")).to_contain_text("Ada")
        # Bea's page may show the spectators' picture of the start before her seat's own.
        expect(ada.locator(".match-page")).to_have_attribute("data-seat", "0")
        expect(bea.locator(".match-page")).to_have_attribute("data-seat", "1")
        _secret_colour(ada)
        _secret_colour(bea)
        # They take turns (whoever's turn it is moves) and each page follows the other's moves.  The
        # end of a game between two people, seen alike on both pages, is test_ratings_chat's.
        assert e2e.play_pages_to_end([ada, bea], _clicker(random.Random(3)), moves=8) == 8
        latest = max(e2e.version(ada), e2e.version(bea))
        for page in (ada, bea):  # the page behind catches up
            e2e.wait_version_above(page, latest - 1)
        assert e2e.version(ada) == e2e.version(bea) == latest
        assert {e2e.turn_state(ada), e2e.turn_state(bea)} == {"mine", "waiting"}
        assert ada.locator(".log li").count() == bea.locator(".log li").count() >= 8
    finally:
        for context in contexts:
            context.close()
    assert not errors


@pytest.mark.slow
def test_a_spectator_never_sees_a_secret_colour(browser: Browser, web_server: object) -> None:
    """A person plays a bot; a spectator watches from the lobby's Watch link.  Neither the spectator's
    page nor any WebSocket frame it receives holds a secret colour before the game ends."""
    base = web_server.base_url  # type: ignore[attr-defined]
    contexts = [browser.new_context(viewport=e2e.LAPTOP, reduced_motion=e2e.STILL) for _ in range(2)]
    for context in contexts:
        context.add_init_script(e2e.INSTANT_BOTS)  # the bot's moves are not paced, for either page
    player, watcher = (c.new_page() for c in contexts)
    errors = e2e.watch_errors(player) + e2e.watch_errors(watcher)
    frames = e2e.Frames(watcher)
    try:
        match_id = e2e.create_match(player, base, "masker", options={"players": "2"}, seats=["you", "random"])
        mine = _secret_colour(player)
        watcher.goto(base + "/")
        watcher.locator(f"li[data-match='{match_id}'] a").click()
        watcher.wait_for_url(f"**/match/{match_id}")
        e2e.wait_ready(watcher)
        assert watcher.locator(".match-page").get_attribute("data-seat") == ""
        expect(watcher.get_by_test_id("banner")).to_contain_text("You are watching")
        rng = random.Random(8)
        checked = 0

        def move(page: Page) -> None:
            nonlocal checked
            _assert_no_secret_on_screen(watcher)
            checked += 1
            _clicker(rng)(page)

        e2e.play_to_end(player, move)
        watcher.wait_for_selector(".match-page[data-turn=over]")
        revealed = " ".join(watcher.locator(".mk-player .mk-revealed").all_inner_texts()).lower()
        assert mine in revealed, "at the end the colours are public"
        assert (
            watcher.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('masques.seat'))")
            == []
        )
    finally:
        for context in contexts:
            context.close()
    assert not errors
    assert checked > 0
    states = [m for m in frames.messages() if m.get("type") == "state"]
    assert states, "the spectator received the match"
    for message in states:
        obs = message["observation"]
        assert message["seat"] is None and message["legal"] == []
        assert obs["your_colour"] is None
        if not obs["terminal"]:
            assert obs["tokens"] is None
            assert "tokens" not in json.dumps(obs).replace('"tokens": null', "")
    assert states[-1]["observation"]["terminal"], "the spectator saw the end, where colours are public"


def _assert_no_secret_on_screen(watcher: Page) -> None:
    """The colour names on a spectator's page are only the board's legend: no colour is tied to a
    player (no secret panel with a colour, no revealed colours) before the end."""
    secret = watcher.get_by_test_id("mk-secret")
    expect(secret.locator(".mk-secret-colour")).to_have_count(0)
    expect(secret).to_contain_text("Colours are secret")
    assert not any(colour in secret.inner_text().lower() for colour in COLOURS)
    if e2e.turn_state(watcher) != "over":
        expect(watcher.locator(".mk-revealed")).to_have_count(0)
    assert "secret colour" not in watcher.locator("body").inner_text().lower()
