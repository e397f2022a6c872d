"""Turn alerts in the browser (issue 20, "turn alerts"): the tab's title and icon say when it is your
move and come back after it; the tone is off by default, a setting kept in localStorage, and plays
when the turn comes back only once it is on.

A person plays Masker against the random bot: each time the bot has moved, the turn comes back.
"""

from __future__ import annotations

import random
import re
from itertools import pairwise
from typing import Any

import masques_web_e2e as e2e
from masques_web_e2e import masker_move
from playwright.sync_api import Browser, Page, expect

RECORD = """
window.__titles = [];
window.__tones = 0;
new MutationObserver(() => {
  const last = window.__titles[window.__titles.length - 1];
  if (document.title !== last) window.__titles.push(document.title);
}).observe(document, { subtree: true, childList: true, characterData: true });
const make = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  window.__tones += 1;
  return make.call(this);
};
"""
"""An init script: every title the tab shows, in order, and the oscillators the page starts (two
per tone)."""
YOUR_TURN = re.compile(r"^● Your turn – Masker — Masques$")
PLAIN = "Masker — Masques"
ICON = "() => document.querySelector(\"link[rel~='icon']\").getAttribute('href')"


def titles(page: Page) -> list[str]:
    shown: list[str] = page.evaluate("() => window.__titles")
    return shown


def tones(page: Page) -> int:
    return int(page.evaluate("() => window.__tones"))


def passes(page: Page) -> int:
    """How many times the tab went from "your turn" to the plain title (the turn passed)."""
    shown = titles(page)
    return sum(1 for a, b in pairwise(shown) if YOUR_TURN.match(a) and b == PLAIN)


def end_my_turn(page: Page, rng: random.Random, limit: int = 10) -> None:
    """Move until the turn passes to the bot (Masker: up to three steps, then Stop or no choice).  The
    bot is quick: the turn may be back before this returns, so the titles tell that it passed."""
    move = masker_move(rng)
    before = passes(page)
    for _ in range(limit):
        seen = e2e.version(page)
        move(page)
        e2e.wait_version_above(page, seen)
        if passes(page) > before:
            return
        assert e2e.wait_turn_or_end(page) == "mine", "the game ended too soon for this test"
    raise AssertionError(f"the turn did not pass within {limit} moves")


def start(page: Page, base: str) -> str:
    """Create the match and wait for the first turn; returns the lobby's (plain) icon."""
    page.add_init_script(RECORD)
    page.goto(base + "/")
    plain_icon: str = page.evaluate(ICON)
    e2e.create_match(page, base, "masker", options={"players": "2"}, seats=["you", "random"])
    assert e2e.wait_turn_or_end(page) == "mine"
    return plain_icon


def test_the_tab_title_and_icon_follow_the_turn(page: Page, web_server: Any) -> None:
    rng = random.Random(20)
    plain_icon = start(page, web_server.base_url)
    expect(page).to_have_title(YOUR_TURN)
    assert page.locator("html").get_attribute("data-turn-alert") == "on"
    turn_icon = page.evaluate(ICON)
    assert turn_icon != plain_icon and turn_icon.startswith("data:image/svg+xml,")

    # The turn passes (the plain title comes back while the bot moves), then comes back.
    end_my_turn(page, rng)
    assert e2e.wait_turn_or_end(page) == "mine", "the bot moved and the turn came back"
    expect(page).to_have_title(YOUR_TURN)
    shown = titles(page)
    last_plain = max(i for i, t in enumerate(shown) if t == PLAIN)
    assert any(YOUR_TURN.match(t) for t in shown[last_plain + 1 :]), shown

    # Leaving the match page puts the plain icon back.
    page.goto(web_server.base_url + "/")
    page.get_by_test_id("choose-masker").wait_for()
    assert page.evaluate(ICON) == plain_icon
    assert not page.title().startswith("●")


def test_the_turn_sound_is_off_by_default_and_a_setting(page: Page, web_server: Any) -> None:
    rng = random.Random(21)
    base = web_server.base_url
    start(page, base)
    setting = page.get_by_test_id("sound-setting")
    expect(setting).not_to_be_checked()
    assert page.evaluate("() => localStorage.getItem('masques.sound')") is None

    # Off: the turn comes back in silence.
    end_my_turn(page, rng)
    assert e2e.wait_turn_or_end(page) == "mine"
    assert tones(page) == 0

    # On: the setting plays a sample tone at once (two notes), then a tone each time the turn comes back.
    setting.check()
    assert page.evaluate("() => localStorage.getItem('masques.sound')") == "on"
    assert tones(page) == 2
    end_my_turn(page, rng)
    assert e2e.wait_turn_or_end(page) == "mine"
    page.wait_for_function("() => window.__tones >= 4")
    assert tones(page) == 4

    # Kept across page loads (and matches).
    page.reload()
    e2e.wait_ready(page)
    expect(page.get_by_test_id("sound-setting")).to_be_checked()
    page.get_by_test_id("sound-setting").uncheck()
    assert page.evaluate("() => localStorage.getItem('masques.sound')") is None


def test_the_lobby_counts_the_matches_waiting_for_my_move(page: Page, web_server: Any) -> None:
    """Two matches against bots, each waiting for my first move: the top bar, "My matches" and the
    tab's title say 2 (from GET /api/me/waiting and the list of my matches)."""
    base = web_server.base_url
    for _ in range(2):
        e2e.create_match(page, base, "masker", options={"players": "2"}, seats=["you", "random"], name="Hal")
        assert e2e.wait_turn_or_end(page) == "mine"
    page.goto(base + "/")
    badge = page.get_by_test_id("waiting-badge")
    expect(badge).to_have_attribute("data-count", "2")
    expect(badge).to_have_text("● 2 to play")
    expect(badge).to_have_attribute("aria-label", "2 matches wait for your move")
    expect(page.get_by_test_id("my-waiting")).to_have_text(" · 2 waiting for your move")
    expect(page).to_have_title("(2) Masques")
    expect(page.get_by_test_id("my-matches").locator("li[data-my-turn=true]")).to_have_count(2)


HIDDEN_WITH_NOTES = """
window.__notes = [];
Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hide === true });
const Real = window.Notification;
class Recorded extends Real {
  constructor(title, options) {
    super(title, options);
    window.__notes.push({ title, body: options && options.body, hidden: document.hidden });
  }
}
Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
Recorded.requestPermission = (...args) => Real.requestPermission(...args);
window.Notification = Recorded;
"""
"""An init script: the page is hidden when the test says so (``window.__hide``), and each
notification it shows is recorded."""


def test_a_notification_when_the_turn_comes_back_to_a_hidden_page(browser: Browser, web_server: Any) -> None:
    rng = random.Random(22)
    context = browser.new_context(viewport=e2e.LAPTOP, locale="en-GB", permissions=["notifications"])
    try:
        page = context.new_page()
        errors = e2e.watch_errors(page)
        page.add_init_script(HIDDEN_WITH_NOTES)
        start(page, web_server.base_url)
        expect(page.get_by_test_id("notify-state")).to_have_attribute("data-state", "granted")
        expect(page.get_by_test_id("notify-ask")).to_be_hidden()

        # Visible: the turn comes back without a notification.
        end_my_turn(page, rng)
        assert e2e.wait_turn_or_end(page) == "mine"
        assert page.evaluate("() => window.__notes.length") == 0

        # Hidden: one notification when it comes back.
        page.evaluate("() => { window.__hide = true; }")
        end_my_turn(page, rng)
        assert e2e.wait_turn_or_end(page) == "mine"
        page.wait_for_function("() => window.__notes.length === 1")
        note = page.evaluate("() => window.__notes[0]")
        assert note == {"title": "Your turn – Masques", "body": "Masker", "hidden": True}
        assert not errors, errors
    finally:
        context.close()
