"""Mascarade in the browser: a person creates a match against two bots in the lobby (the scoring
variant) and plays it to the end, by mouse and by keyboard (1-9 picks a card, Tab reaches
a highlighted square, Enter places it).  The squares on screen are exactly the legal placements of
the selected card, and the cards that fit nowhere are marked.
"""

from __future__ import annotations

import random

import masques_web_e2e as e2e
import pytest
from playwright.sync_api import Page, expect


@pytest.mark.slow
def test_a_person_plays_mascarade_against_bots_to_the_end(page: Page, web_server: object) -> None:
    rng = random.Random(21)
    frames = e2e.Frames(page)
    e2e.create_match(
        page,
        web_server.base_url,  # type: ignore[attr-defined]
        "mascarade",
        options={"players": "3", "scoring": True},
        seats=["you", "random", "random"],
    )
    expect(page.locator(".mc-board svg g[data-square]")).to_have_count(100)
    expect(page.locator(".mc-hand-card")).to_have_count(5)

    def screen(p: Page) -> tuple[list[tuple[int, bool, bool]], set[int]]:
        """The hand as (card, fits nowhere, selected) and the action ids on screen, in one call."""
        hand, actions = p.evaluate(
            """() => [
              [...document.querySelectorAll('.mc-hand-card')].map(e => [
                Number(e.dataset.card),
                e.classList.contains('nofit'),
                e.getAttribute('aria-pressed') === 'true',
              ]),
              [...document.querySelectorAll('.game-view [data-action]')].map(e => Number(e.dataset.action)),
            ]"""
        )
        return [(int(c), bool(n), bool(s)) for c, n, s in hand], set(actions)

    def move(p: Page) -> None:
        hand, on_screen = screen(p)
        legal = frames.last_state()["legal"]
        fits = {a["move"]["card"] for a in legal if "card" in a["move"]}
        assert {card for card, nofit, _ in hand if nofit} == {card for card, _, _ in hand} - fits
        selected = next((card for card, _, chosen in hand if chosen), None)
        passing = [a["id"] for a in legal if a["move"].get("pass")]
        assert on_screen == {a["id"] for a in legal if a["move"].get("card") == selected} | set(passing)
        if passing:
            p.get_by_test_id("mc-pass").click()
            return
        if rng.random() < 0.5:  # by keyboard: a digit picks the card, Tab reaches a square, Enter places it
            index = rng.choice([i for i, (_, nofit, _) in enumerate(hand) if not nofit and i < 9])
            p.keyboard.press(str(index + 1))
            expect(p.locator(".mc-hand-card").nth(index)).to_have_attribute("aria-pressed", "true")
            assert p.evaluate("() => document.activeElement?.classList.contains('mc-target')")
            for _ in range(rng.randrange(3)):
                p.keyboard.press("Tab")
                if not p.evaluate("() => document.activeElement?.classList.contains('mc-target')"):
                    p.keyboard.press("Shift+Tab")
                    break
            p.keyboard.press("Enter")
        else:
            cards = p.locator(".mc-hand-card:not(.nofit)")
            cards.nth(rng.randrange(cards.count())).click()
            targets = p.locator(".mc-target")
            targets.nth(rng.randrange(targets.count())).click()

    def on_turn(p: Page, n: int) -> None:
        if n == 10:
            e2e.screenshot(p, "mascarade")

    moves = e2e.play_to_end(page, move, on_turn=on_turn)
    assert moves >= 10
    expect(page.get_by_test_id("end")).to_be_visible()
    expect(page.locator(".end-panel .scores tbody tr")).to_have_count(3)
    for seat in (0, 1, 2):
        expect(page.get_by_test_id(f"mc-score-{seat}")).to_contain_text("points")
    final = frames.last_state()["observation"]
    shown = page.locator(".end-panel .scores td").all_inner_texts()
    assert shown == [str(s) for s in final["scores"]]
