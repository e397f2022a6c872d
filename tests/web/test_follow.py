"""Moves a person can follow (issue 21): against bots the live view shows each bot move in turn, paced
(0.6 s by default), animated, and with the last move marked on the board, in every game; reduced
motion turns the animations off; the lobby loads no game view (three.js comes with Blokus 3D only).
Also the defects that a page can show: the log's grammar for the viewer's own moves, the Place
button's label on hover, Maske's coordinates clear of the mask's ornaments."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import masques_web_e2e as e2e
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

RECORD = """(() => {
  // Each version the page shows, when, and how many move animations had started by then.
  const shown = [];
  window.__shown = shown;
  let last = null;
  new MutationObserver(() => {
    const v = document.querySelector('.match-page')?.dataset.version;
    if (!v || v === last) return;
    last = v;
    const anim = Number(document.documentElement.dataset.moveAnimations ?? 0);
    shown.push({ v: Number(v), t: performance.now(), anim });
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-version'] });
})();"""

BOARD_MARK = {
    "masker": ".mk-board .last-move",
    "maske": ".ms-plate .last-move",
    "mascarade": ".mc-board .last-move",
    "blokus3d": ".b3-stage[data-last-move]:not([data-last-move=''])",
}
OPTIONS: dict[str, dict[str, str | bool]] = {
    "masker": {"players": "2"},
    "maske": {"players": "3", "masks": "3"},
    "mascarade": {"players": "2"},
    "blokus3d": {"players": "2"},
}


@pytest.fixture
def device(browser: Browser, web_server: object) -> Iterator[tuple[BrowserContext, list[str]]]:
    """A browser at the client's own settings (bot moves paced): its context and the errors seen."""
    context = browser.new_context(viewport=e2e.LAPTOP, locale="en-GB")
    context.add_init_script(RECORD)
    errors: list[str] = []
    yield context, errors
    context.close()
    assert not errors, f"errors in the page: {errors}"


def _page(device: tuple[BrowserContext, list[str]]) -> Page:
    context, errors = device
    page = context.new_page()
    errors.extend(e2e.watch_errors(page))
    return page


def _shown(page: Page) -> list[dict[str, float]]:
    return list(page.evaluate("() => window.__shown"))


def _log_seats(page: Page) -> dict[int, int]:
    """Version -> seat of each move in the page's log."""
    items = page.locator("[data-testid=log] li[value]")
    seats: dict[int, int] = {}
    for i in range(items.count()):
        item = items.nth(i)
        cls = item.get_attribute("class") or ""
        seat = next(int(c[5:]) for c in cls.split() if c.startswith("seat-"))
        seats[int(item.get_attribute("value") or -1)] = seat
    return seats


def _one_action(page: Page, game: str) -> None:
    """One legal action of the person's, through the page."""
    if game == "blokus3d":
        page.locator(".b3-place:not([disabled])").click()
        return
    if game == "masker" and page.get_by_test_id("mk-stop").count():
        page.get_by_test_id("mk-stop").click()
        return
    page.locator(".game-view [data-action]").first.click()


def _play_turns(page: Page, game: str, turns: int) -> None:
    """Make the person's moves for `turns` turns, each time until the bots have answered."""
    for _ in range(turns):
        if e2e.wait_turn_or_end(page) == "over":
            return
        for _ in range(6):  # a Masker turn is up to three steps and a stop
            if e2e.turn_state(page) != "mine":
                break
            seen = e2e.version(page)
            _one_action(page, game)
            e2e.wait_version_above(page, seen)


@pytest.mark.slow
def test_bot_moves_are_paced_one_by_one_animated_and_marked(
    device: tuple[BrowserContext, list[str]], web_server: Any
) -> None:
    """Masker against a bot: every version shows in turn; two bot actions in a row are shown at
    least the pace (0.6 s, the default) apart; the runner's steps are animated; the last step is
    marked on the board and the view names the last move; the log speaks to the viewer in the
    second person ("You step onto", "Vous avancez sur")."""
    page = _page(device)
    e2e.create_match(page, web_server.base_url, "masker", options=OPTIONS["masker"], seats=["you", "random"])
    assert page.get_by_test_id("pace-select").input_value() == "0.6"
    _play_turns(page, "masker", 3)
    e2e.wait_turn_or_end(page)
    shown = _shown(page)
    versions = [int(s["v"]) for s in shown]
    assert versions == list(range(versions[0], versions[0] + len(versions))), "each move is shown, in order"
    seats = _log_seats(page)
    at = {int(s["v"]): s for s in shown}
    bot_pairs = [v for v in versions if seats.get(v) == 1 and seats.get(v - 1) == 1 and v - 1 in at]
    assert bot_pairs, f"the bot made two actions in a row: {seats}"
    for v in bot_pairs:
        gap = at[v]["t"] - at[v - 1]["t"]
        assert gap >= 500, f"bot moves {v - 1} and {v} shown {gap:.0f} ms apart"
    bot_shown = [v for v in versions if seats.get(v) == 1 and v - 1 in at]
    assert any(at[v]["anim"] > at[v - 1]["anim"] for v in bot_shown), "a bot move was animated"
    # The square marked is where the last step in the log went.
    log = page.get_by_test_id("log")
    steps = re.findall(r"onto ([a-f][1-6])", log.text_content() or "")
    expect(page.locator(BOARD_MARK["masker"])).to_have_count(1)
    expect(page.locator(BOARD_MARK["masker"])).to_have_attribute("data-square", steps[-1])
    assert page.locator(".game-view").get_attribute("data-last-move")
    expect(log).to_contain_text("You step onto")
    assert "You steps" not in (log.text_content() or "")
    page.get_by_test_id("lang").click()
    expect(log).to_contain_text("Vous avancez sur")
    assert "Vous avance " not in (log.text_content() or "")


@pytest.mark.parametrize("game", list(OPTIONS))
def test_every_game_marks_and_animates_the_bots_move(
    device: tuple[BrowserContext, list[str]], web_server: Any, game: str
) -> None:
    """In each game, after the person's move the bots' answer is animated as it shows, and the last
    move on the board is marked (class last-move; the 3D board, a canvas, names its squares)."""
    page = _page(device)
    seats = ["you"] + ["random"] * (int(str(OPTIONS[game]["players"])) - 1)
    e2e.create_match(page, web_server.base_url, game, options=OPTIONS[game], seats=seats)
    _play_turns(page, game, 1)
    e2e.wait_turn_or_end(page)
    shown = _shown(page)
    log = _log_seats(page)
    at = {int(s["v"]): s for s in shown}
    bot_shown = [v for v in at if log.get(v, 0) != 0 and v - 1 in at]
    assert bot_shown, f"a bot's move was shown after the person's: {log}"
    assert any(at[v]["anim"] > at[v - 1]["anim"] for v in bot_shown), f"{game}: a bot move was animated"
    expect(page.locator(BOARD_MARK[game]).first).to_be_attached()
    assert page.locator(".game-view").get_attribute("data-last-move")
    if game == "blokus3d":
        # The flat drawing marks the last piece's cubes too.
        page.locator(".b3-switch").click()
        expect(page.locator(".b3-iso-svg .last-move").first).to_be_attached()


def test_reduced_motion_shows_moves_without_animation(browser: Browser, web_server: Any) -> None:
    """With prefers-reduced-motion: reduce nothing moves, and the last move is still marked."""
    context = browser.new_context(viewport=e2e.LAPTOP, locale="en-GB", reduced_motion="reduce")
    context.add_init_script(RECORD)
    context.add_init_script(e2e.INSTANT_BOTS)
    page = context.new_page()
    errors = e2e.watch_errors(page)
    try:
        e2e.create_match(
            page, web_server.base_url, "masker", options=OPTIONS["masker"], seats=["you", "random"]
        )
        _play_turns(page, "masker", 2)
        e2e.wait_turn_or_end(page)
        seats = _log_seats(page)
        assert any(seat == 1 for seat in seats.values()), "the bot moved"
        assert page.evaluate("() => document.documentElement.dataset.moveAnimations ?? null") is None
        expect(page.locator(BOARD_MARK["masker"])).to_have_count(1)
        assert errors == [], errors
    finally:
        context.close()


def test_the_lobby_loads_no_game_view(device: tuple[BrowserContext, list[str]], web_server: Any) -> None:
    """The lobby's scripts stay under 200 kB before compression and hold no game view; three.js
    arrives with the first Blokus 3D view."""
    page = _page(device)
    scripts: list[tuple[str, int]] = []
    page.on(
        "response",
        lambda r: scripts.append((r.url, len(r.body()))) if r.request.resource_type == "script" else None,
    )
    page.goto(web_server.base_url + "/")
    page.wait_for_selector(".game-card")
    page.wait_for_load_state("networkidle")
    total = sum(size for _, size in scripts)
    assert scripts and total < 200_000, scripts
    assert not any("blokus3d" in url for url, _ in scripts), scripts
    e2e.create_match(
        page, web_server.base_url, "blokus3d", options=OPTIONS["blokus3d"], seats=["you", "random"]
    )
    page.wait_for_selector(".b3-scene canvas")
    assert any("/assets/blokus3d-" in url for url, _ in scripts), scripts


def test_the_place_button_keeps_its_label_on_hover(
    device: tuple[BrowserContext, list[str]], web_server: Any
) -> None:
    """Blokus 3D's Place button: its text stays readable on the hover colour (it was white on white)."""
    page = _page(device)
    e2e.create_match(
        page, web_server.base_url, "blokus3d", options=OPTIONS["blokus3d"], seats=["you", "random"]
    )
    assert e2e.wait_turn_or_end(page) == "mine"
    place = page.locator(".b3-place:not([disabled])")
    place.hover()
    colours = place.evaluate("b => { const s = getComputedStyle(b); return [s.color, s.backgroundColor]; }")
    assert _contrast(*colours) >= 3, colours


def test_the_place_button_keeps_its_label_after_a_tap_on_a_phone(browser: Browser, web_server: Any) -> None:
    """On a phone the tapped button keeps the hover look: when the person's turn comes back, the
    Place button's label is still readable."""
    context = browser.new_context(viewport=e2e.PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    context.add_init_script(e2e.INSTANT_BOTS)
    page = context.new_page()
    errors = e2e.watch_errors(page)
    try:
        e2e.create_match(
            page, web_server.base_url, "blokus3d", options=OPTIONS["blokus3d"], seats=["you", "random"]
        )
        assert e2e.wait_turn_or_end(page) == "mine"
        seen = e2e.version(page)
        page.locator(".b3-place:not([disabled])").tap()
        e2e.wait_version_above(page, seen + 1)  # the person's piece, then the bot's
        assert e2e.wait_turn_or_end(page) == "mine"
        place = page.locator(".b3-place:not([disabled])")
        colours = place.evaluate(
            "b => { const s = getComputedStyle(b); return [s.color, s.backgroundColor]; }"
        )
        assert place.text_content() == "Place"
        assert _contrast(*colours) >= 3, colours
        assert errors == [], errors
    finally:
        context.close()


def _contrast(fore: str, back: str) -> float:
    """The WCAG contrast ratio of two CSS rgb()/rgba() colours."""

    def luminance(css: str) -> float:
        parts = [float(x) for x in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
        lin = [(c / 255) / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    a, b = sorted((luminance(fore), luminance(back)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def test_maske_coordinates_stand_clear_of_the_mask(
    device: tuple[BrowserContext, list[str]], web_server: Any
) -> None:
    """Maske: no letter or number of the plate's edge lies under the mask's crest or ribbons, however
    the mask is turned (MS-3 turns it by quarters)."""
    context, _ = device
    page = _page(device)
    context.add_init_script(e2e.INSTANT_BOTS)
    e2e.create_match(
        page, web_server.base_url, "maske", options=OPTIONS["maske"], seats=["you", "random", "random"]
    )
    for _ in range(4):  # the sticks are set up, then the first mask is laid
        if page.locator(".ms-plate .ms-face path").count():
            break
        _play_turns(page, "maske", 1)
    page.wait_for_selector(".ms-plate .ms-face path")
    overlaps = page.evaluate(
        """() => {
          const plate = document.querySelector('.ms-plate');
          // A mask just laid or turned is still in motion (grown or turned part way): measure
          // where it comes to rest.
          for (const motion of plate.getAnimations({ subtree: true })) {
            if (Number.isFinite(motion.effect?.getComputedTiming().endTime ?? Infinity)) motion.finish();
          }
          const outline = plate.querySelector('.ms-face > g');
          const hits = [];
          const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
          for (const quarter of [0, 1, 2, 3]) {
            outline.setAttribute('transform', `rotate(${quarter * 90} 240 240)`);
            const paths = [...outline.querySelectorAll('path')].slice(1);  // crest and ribbons
            const parts = paths.map((p) => p.getBoundingClientRect());
            for (const axis of plate.querySelectorAll('.ms-axis')) {
              const box = axis.getBoundingClientRect();
              if (parts.some((p) => meet(p, box))) hits.push(`${axis.textContent}@${quarter}`);
            }
          }
          return hits;
        }"""
    )
    assert page.locator(".ms-plate .ms-axis").count() == 14
    assert overlaps == [], overlaps
