"""Maske in the browser: a person creates a 3-player, 3-mask match against random bots in the lobby
and plays it to the end through the page: sticks put in holes, masks laid by their face, steps
clicked hole by hole (or by arrow keys) with their cost shown, cards drawn and auctioned.

Also checked: the drawer sees the drawn card's text (in English, then in French after the language
switch), other seats see it face down, and only highlighted (legal) targets are offered.  A
screenshot of the auction with the card in view is written to docs/screenshots/maske.png.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import masques_web_e2e as e2e  # type: ignore[import-not-found]
import pytest
from playwright.sync_api import Page

import masques.games.maske as maske_package

ARROWS = {"up": "ArrowUp", "right": "ArrowRight", "down": "ArrowDown", "left": "ArrowLeft"}
CARDS = json.loads((Path(maske_package.__file__).parent / "cards.json").read_text("utf-8"))["cards"]


@pytest.mark.parametrize("auction", ["rounds", "open"])
def test_maske_game_against_bots(page: Page, web_server: Any, auction: str) -> None:
    """MS-11 and MS-11a: the same game under each auction rule; the button that leaves a bid is
    "Drop out" where it is for good, "Pass" in the open auction (the player may bid again)."""
    rng = random.Random(5)
    frames = e2e.Frames(page)
    e2e.create_match(
        page,
        web_server.base_url,
        "maske",
        options={"players": "3", "masks": "3", "auction": auction},
        seats=["you", "random", "random"],
    )
    page.wait_for_selector(".ms-plate")
    seen: dict[str, int] = {
        "phase_action": 0,
        "steps": 0,
        "auctions": 0,
        "hidden": 0,
        "shot": 0,
        "offered": 0,
        "entered": 0,
        "dropped": 0,
        "others": 0,
    }

    def click_any(locator: Any) -> None:
        locator.nth(rng.randrange(locator.count())).click()

    def step(page: Page) -> None:
        """One paid or free step: a stick (unless one is already selected), then a highlighted hole."""
        holes = page.locator(".ms-plate [data-hole][role=button]")
        if not holes.count():
            click_any(page.locator(".ms-plate [data-stick][aria-pressed]"))
            holes.first.wait_for()
        note = holes.first.locator(".ms-note").text_content()
        assert note in ("−1", "0"), note
        if rng.random() < 0.5:
            click_any(holes)
        else:
            # The same through the keyboard: the arrow towards one of the highlighted holes.
            target = holes.nth(rng.randrange(holes.count()))
            label = target.get_attribute("aria-label") or ""
            word = next(d for d in ("up", "right", "down", "left") if f" {d} to " in label)
            page.keyboard.press(ARROWS[word])
        seen["steps"] += 1

    def move(page: Page) -> None:
        decision = page.locator(".ms-decision[data-mine=true]")
        phase = decision.get_attribute("data-phase")
        buttons = decision.locator("button")
        holes = page.locator(".ms-plate [data-hole][role=button]")
        sticks = page.locator(".ms-plate [data-stick][aria-pressed]")  # sticks to select for steps
        if phase == "setup":
            click_any(holes)
        elif phase == "lay":
            click_any(page.locator(".ms-lay button"))
        elif phase == "action":
            # The two things the test must see come first, each at the person's first chance: a paid
            # step while points last (a card bought at auction may cost them all), then a draw whose
            # card the person sees.  The deal is random and a bought card may skip the person's next
            # action, so neither waits for a particular round: 3 masks give the person 3 actions.
            seen["phase_action"] += 1
            choice = rng.random()
            can_step = sticks.count() or holes.count()
            if can_step and not seen["steps"]:
                step(page)
            elif not seen["shot"] or choice < 0.35:
                page.get_by_role("button", name="Draw a card").click()
            elif can_step and choice < 0.8:
                step(page)
            else:
                page.keyboard.press("p")
        elif phase == "moving":
            if (holes.count() or sticks.count()) and rng.random() < 0.5:
                step(page)
            else:
                decision.locator("[data-key=done]").click()
        elif phase == "auction":
            seen["auctions"] += 1
            bid = decision.locator("[data-key=bid]")
            held = frames.last_state()["observation"]["auction"]
            opening = held["turn"] == held["drawer"] and held["high"] is None
            seen["others"] += not opening
            # The person's own card: the first time a bid typed and entered.  Another's card: the
            # first time left by the button the rule names.  Then either at random.
            first_of_its_kind = not seen["entered"] if opening else not seen["dropped"]
            wants_bid = opening if first_of_its_kind else rng.random() < 0.6
            if bid.count() and wants_bid:
                field = decision.locator("input[type=number]")
                field.fill(field.get_attribute("max") or "1")
                if not seen["entered"]:
                    # Enter in the field bids the amount typed (no "change" event needed): the
                    # next view comes only if it did (play_to_end waits for it).
                    seen["entered"] = int(field.input_value())
                    field.press("Enter")
                else:
                    field.dispatch_event("change")
                    decision.locator("[data-key=bid]").click()
            else:
                drop = decision.locator("[data-key=drop]")
                expected = "Decline" if opening else "Pass" if auction == "open" else "Drop out"
                assert drop.text_content() == expected
                seen["dropped"] += not opening
                drop.click()
        # Otherwise a bought card's decision: a hole, a stick, a step, a player, a turn, or done.
        elif holes.count():
            click_any(holes)
        elif sticks.count() and rng.random() < 0.7:
            step(page)
        else:
            click_any(buttons)

    def on_turn(page: Page, n: int) -> None:
        # Only legal choices are offered: every control that sends an action sends a legal id.
        legal = {a["id"] for a in frames.last_state()["legal"]}
        offered = e2e.legal_ids_on_screen(page)
        assert offered <= legal, offered - legal
        seen["offered"] += len(offered)
        decision = page.locator(".ms-decision")
        if decision.get_attribute("data-phase") != "auction":
            return
        card = decision.locator(".ms-card")
        if "Only you see this card" not in (decision.text_content() or ""):
            # Another seat drew it: face down here (the deck is far from coming round in 3 masks).
            assert card.get_attribute("data-card") == "hidden"
            seen["hidden"] += 1
            return
        number = int(card.get_attribute("data-card") or -1)
        assert decision.locator(".ms-card-text").text_content() == CARDS[number]["text"]["en"]
        if not seen["shot"]:
            if auction == "rounds":
                e2e.screenshot(page, "maske")  # a mask laid, the person's card up for auction
            seen["shot"] = 1
            page.get_by_test_id("lang").click()
            assert decision.locator(".ms-card-text").text_content() == CARDS[number]["text"]["fr"]
            page.get_by_test_id("lang").click()

    made = e2e.play_to_end(page, move, on_turn=on_turn)
    assert made >= 5
    assert seen["shot"] == 1, "the person drew a card and saw it"
    assert seen["steps"] >= 1
    # Whether another seat's card came to the person to bid on depends on the bots' random choices
    # (and the person's points): when one did, the person left it by the button the rule names.
    assert seen["dropped"] >= 1 or not seen["others"], "the person left an auction, by the rule's button"
    assert seen["offered"] > 0
    page.get_by_test_id("end").wait_for(state="visible")
    assert page.locator(".ms-decision h3").text_content() == "Game over"
    # The winners' cup is drawn, not an emoji a font may lack.
    assert page.locator(".ms-players [data-testid=trophy]").count() >= 1
    assert "\N{TROPHY}" not in (page.locator(".ms-players").text_content() or "")

    # The replay steps back through the same view.
    page.get_by_role("link", name="Replay").click()
    page.get_by_test_id("replay-first").click()
    page.wait_for_selector(".ms-plate")
    page.get_by_test_id("replay-next").click()
    page.get_by_test_id("replay-last").click()
    page.wait_for_selector(".ms-decision[data-phase=over]")
