"""Blokus 3D in the browser: a person creates a 2-player match against a random bot in the lobby and
plays it to the end through the board (tray, pointer, keys), the ghost always on a legal placement.

The ghost's cubes, as the page lists them, are checked against the engine's own orientation table,
so the client's numbering of the 104 orientations is the engine's.  A mid-game screenshot of the
three.js board is written to docs/screenshots/blokus3d.png; one move is made on the isometric
drawing the page falls back to without WebGL.
"""

from __future__ import annotations

import random
from typing import Any

import masques_web_e2e as e2e  # type: ignore[import-not-found]
import pytest
from playwright.sync_api import Page, Playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from masques.games.blokus3d.game import SQUARES
from masques.games.blokus3d.pieces import ORIENTATIONS

FILES = "abcdefghij"


def ghost(page: Page) -> tuple[int, list[tuple[int, int, int]]]:
    """The action the ghost stands for and its cubes (x, y, z) as the page shows them."""
    choice = page.locator(".b3-choice")
    action = int(choice.get_attribute("data-action") or -1)
    cubes = []
    for item in (choice.get_attribute("data-cubes") or "").split():
        square, z = item.split(":")
        cubes.append((FILES.index(square[0]), int(square[1:]) - 1, int(z)))
    return action, cubes


def check_ghost(page: Page) -> int:
    """The ghost's cubes are the engine's cubes of its action, in the same place (z up to a shift)."""
    action, cubes = ghost(page)
    orient, square = divmod(action, SQUARES)
    x, y = square % 10, square // 10
    expected = sorted((x + dx, y + dy, dz) for dx, dy, dz in ORIENTATIONS[orient].cubes)
    low = min(z for _, _, z in cubes)
    assert sorted((cx, cy, cz - low) for cx, cy, cz in cubes) == expected
    return action


@pytest.mark.slow
def test_blokus3d_game_against_a_bot(page: Page, web_server: Any, playwright: Playwright) -> None:
    rng = random.Random(3)
    frames = e2e.Frames(page)
    match_id = e2e.create_match(
        page, web_server.base_url, "blokus3d", options={"players": "2"}, seats=["you", "random"]
    )
    page.wait_for_selector(".b3-stage")
    assert page.locator(".b3-scene canvas").count() == 1, "the board is drawn with WebGL"
    stage = page.locator(".b3-stage")

    def move(page: Page) -> None:
        nth = state["moves"]
        pieces = page.locator(".b3-piece:not([disabled])")
        assert pieces.count() > 0
        if nth % 3 == 0:
            # Pointer: pick a piece in the tray, point at the board, click where the ghost stands.
            pieces.nth(rng.randrange(pieces.count())).click()
            box = stage.bounding_box()
            assert box is not None
            x, y = box["x"] + box["width"] * rng.uniform(0.35, 0.65), box["y"] + box["height"] * 0.6
            page.mouse.move(x, y)
            check_ghost(page)
            seen = e2e.version(page)
            page.mouse.click(x, y)  # places the ghost if it covers the pointed square
            try:
                e2e.wait_version_above(page, seen, timeout=1500)
                state["clicked"] += 1
            except PlaywrightTimeout:
                # Either the nearest legal spot was elsewhere (the ghost moved there and waits for
                # Place), or the move was sent and the next view is slow to come.
                if page.locator(".b3-choice").count():
                    check_ghost(page)
                    page.locator(".b3-place").click()
        elif nth % 3 == 1:
            # Keys: a piece by its key, a few placements along, a turn, Enter.
            stage.focus()
            keys = [p.get_attribute("data-piece") for p in pieces.all()]
            index = ["I2", "I3", "V3", "I4", "O4", "T4", "L4", "S4", "SR", "SL", "Y4"].index(rng.choice(keys))
            page.keyboard.press("1234567890-"[index])
            for _ in range(rng.randrange(4)):
                page.keyboard.press("n")
            page.keyboard.press("r")
            page.keyboard.press("ArrowUp")
            check_ghost(page)
            page.keyboard.press("Enter")
        else:
            # The flat drawing: click the top of a column the ghost covers.
            page.locator(".b3-switch").click()
            page.wait_for_selector(".b3-iso-svg")
            _, cubes = ghost(page)
            x, y, _ = cubes[0]
            page.locator(f".b3-iso-svg [data-x='{x}'][data-y='{y}']").last.dispatch_event("click")
        state["moves"] += 1

    def on_turn(page: Page, n: int) -> None:
        legal = {a["id"] for a in frames.last_state()["legal"]}
        assert e2e.legal_ids_on_screen(page) <= legal
        if page.locator(".b3-iso-svg").count():
            page.locator(".b3-switch").click()  # back to 3D
            page.wait_for_selector(".b3-scene canvas")
        if n == 5:
            page.mouse.move(0, 0)
            e2e.screenshot(page, "blokus3d")

    state = {"moves": 0, "clicked": 0}
    made = e2e.play_to_end(page, move, on_turn=on_turn)
    assert made >= 6
    end = page.get_by_test_id("end")
    end.wait_for(state="visible")
    assert page.locator(".b3-score").count() == 2

    # The replay steps back through the same view.
    page.get_by_role("link", name="Replay").click()
    page.get_by_test_id("replay-first").click()
    page.wait_for_selector(".b3-scene")
    assert page.locator(".b3-scene [data-x], .b3-scene canvas").count() > 0
    page.get_by_test_id("replay-next").click()

    # Without WebGL the page draws the board flat instead of failing.
    plain = playwright.chromium.launch(
        executable_path=e2e.CHROMIUM, headless=True, args=[*e2e.ARGS, "--disable-webgl", "--disable-3d-apis"]
    )
    try:
        other = plain.new_page(viewport=e2e.LAPTOP)
        errors = e2e.watch_errors(other)
        other.goto(f"{web_server.base_url}/match/{match_id}")
        other.wait_for_selector(".b3-iso-svg .b3-cube")
        assert "3D is not available" in (other.locator(".b3-info").text_content() or "")
        assert not errors
    finally:
        plain.close()
