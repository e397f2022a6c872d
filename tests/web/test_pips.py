"""Pips, the test-only game (``tests/extra_games``), played whole in the browser: the client has no
module for it, so the lobby builds its form from the catalogue and the generic view draws it; a
search bot and a random bot fill the other seats, deciding in the server's workers."""

from __future__ import annotations

import random
from typing import Any

import masques_web_e2e as e2e  # type: ignore[import-not-found]
from playwright.sync_api import Page, expect


def test_pips_from_the_lobby_to_the_end_in_the_generic_view(page: Page, web_server: Any) -> None:
    frames = e2e.Frames(page)
    e2e.create_match(
        page,
        web_server.base_url,
        "pips",
        options={"players": "3", "hand": "2"},
        seats=["you", "easy", "random"],
    )
    state = frames.last_state()
    assert state["match"]["options"] == {"players": 3, "hand": 2, "top": 9}
    observation = page.get_by_test_id("generic-observation")
    hand = state["observation"]["hand"]
    expect(observation.locator("dd[data-key=hand]")).to_have_text(", ".join(map(str, hand)))
    assert "hands" not in state["observation"] and "deck" not in state["observation"]
    made = e2e.play_to_end(page, e2e.generic_move(random.Random(4)))
    assert made == 2  # one card a trick, two tricks
    result = frames.last_state()["result"]
    assert len(result["scores"]) == 3 and result["winners"]
    assert sum(result["scores"]) == sum(sum(trick) for trick in frames.last_state()["observation"]["tricks"])
    expect(page.get_by_test_id("end").locator(".scores tbody tr")).to_have_count(3)
