"""Time controls in the browser (issue 20, "live time controls" and "correspondence play"): the lobby
offers them and lists a match's; on the match page each person's seat shows its time, the running
one counting down on the server's clock (right even when the browser's clock is an hour off); a
correspondence move shows its deadline and the hours left; a player whose live time runs out loses,
in words.  That last test drives the server's clock (``driven``: the app's clock is a test's), so
nobody waits a minute.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as server_support
import masques_web_e2e as e2e
import pytest
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    """Epoch seconds, ahead of the real time by what a test adds."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Clock]]:
    subprocess.run(["bash", str(ROOT / "scripts" / "build_web.sh")], check=True, cwd=ROOT)
    url = f"sqlite:///{tmp_path_factory.mktemp('clocks') / 'masques.sqlite3'}"
    clock = Clock()
    running = server_support.ThreadServer(url, bot_workers=1, clock=clock).start()
    yield running, clock
    running.stop()


SKEWED = """(() => {
  const real = Date.now.bind(Date);
  Date.now = () => real() + 3600 * 1000;
})();"""
"""An init script: this browser's clock is an hour fast."""


MY_CLOCK = "[data-testid=seat-clock][data-seat='0']"


def summary(base: str, match_id: str) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=20) as api:
        answer: dict[str, Any] = api.get(f"/api/matches/{match_id}").json()
    return answer


def create_timed(
    page: Page, base: str, choose: dict[str, str], preset: str | None = None, minutes: str | None = None
) -> str:
    """In the lobby: Masker against the random bot with the time fields set as ``choose`` (select
    name -> value, in order), and a live preset button or a live clock's minutes when given."""
    page.goto(base + "/")
    e2e.choose_game(page, "masker")
    form = page.get_by_test_id("create-form")
    form.locator("select[name=players]").select_option("2")
    form.locator("select[name=seat-1]").select_option("random")
    form.locator("input[name=player-name]").fill("Gil")
    for name, value in choose.items():
        form.locator(f"select[name={name}]").select_option(value)
    if preset:
        form.get_by_test_id(preset).click()
    if minutes:
        form.get_by_test_id("clock-minutes").fill(minutes)
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/match/[0-9a-f]{16}$"))
    e2e.wait_ready(page)
    return page.url.rsplit("/", 1)[1]


def resign(page: Page) -> None:
    """End the match: a running correspondence match left alone would stay on the shared server."""
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign-confirm").click()
    expect(page.get_by_test_id("end-reason")).to_have_attribute("data-reason", "resigned")


def seconds_shown(page: Page, seat: int) -> float:
    return float(
        page.locator(f"[data-testid=seat-clock][data-seat='{seat}']").get_attribute("data-left") or -1
    )


def test_a_live_clock_counts_down_on_the_servers_time(page: Page, web_server: Any) -> None:
    base = web_server.base_url
    page.add_init_script(SKEWED)
    match_id = create_timed(page, base, {"clock-kind": "fischer"}, preset="preset-3-2")
    clock = summary(base, match_id)["clock"]
    assert (clock["kind"], clock["base"], clock["increment"]) == ("fischer", 180, 2)
    expect(page.get_by_test_id("time-control")).to_have_text("3+2")
    assert e2e.wait_turn_or_end(page) == "mine"

    mine = page.locator(MY_CLOCK)
    expect(mine).to_have_attribute("data-running", "true")
    expect(mine).to_have_text(re.compile(r"^[23]:\d\d$"))  # not 0:00, though this browser is an hour fast
    expect(page.locator("[data-testid=seat-clock][data-seat='1']")).to_have_count(0)  # bots have no time
    start = seconds_shown(page, 0)
    assert 120 < start <= 180
    page.wait_for_function(
        f"s => Number(document.querySelector({MY_CLOCK!r}).dataset.left) <= s - 1", arg=start
    )

    # The lobby lists the match with its time control.
    other = page.context.new_page()
    other.goto(base + "/")
    entry = other.locator(f"li[data-match='{match_id}']").first
    expect(entry.get_by_test_id("time-control")).to_have_text("3+2")
    other.close()
    resign(page)
    expect(page.locator(MY_CLOCK)).to_have_attribute("data-running", "false")


def test_a_correspondence_move_shows_its_deadline(page: Page, web_server: Any) -> None:
    base = web_server.base_url
    match_id = create_timed(page, base, {"clock-kind": "correspondence", "clock-days": "1"})
    clock = summary(base, match_id)["clock"]
    assert (clock["kind"], clock["days"], clock["at_zero"]) == ("correspondence", 1, "bot")
    expect(page.get_by_test_id("time-control")).to_have_text("1 d a move")
    assert e2e.wait_turn_or_end(page) == "mine"
    mine = page.locator("[data-testid=seat-clock][data-seat='0']")
    expect(mine).to_have_attribute("data-running", "true")
    expect(mine).to_have_text(re.compile(r"^due .+ · 2[34] h left$"))
    resign(page)


def focused(page: Page) -> str | None:
    """The data-testid of the element that has the focus."""
    return page.evaluate("() => document.activeElement?.getAttribute('data-testid') ?? null")  # type: ignore[no-any-return]


def next_tick(page: Page) -> None:
    """Wait until the per-turn clock's seconds change: the match's head has been drawn again."""
    shown = page.locator("[data-testid=banner] .clock").inner_text()
    page.wait_for_function(
        "t => document.querySelector('[data-testid=banner] .clock')?.textContent !== t", arg=shown
    )


def test_the_focus_stays_put_while_the_head_is_drawn_again_each_second(page: Page, web_server: Any) -> None:
    """A per-turn clock draws the match's head again every second.  A button of the head that has the
    keyboard's focus keeps it through those redraws; the resign dialog takes the focus to its harmless
    answer, and cancelling gives it back to the resign button."""
    create_timed(page, web_server.base_url, {"clock-kind": "turn", "turn-seconds": "120"})
    assert e2e.wait_turn_or_end(page) == "mine"
    page.get_by_test_id("resign").focus()
    next_tick(page)
    next_tick(page)
    assert focused(page) == "resign"
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("resign-dialog")).to_be_visible()
    assert focused(page) == "resign-cancel"
    next_tick(page)
    assert focused(page) == "resign-cancel"
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("resign-dialog")).to_have_count(0)
    assert focused(page) == "resign"
    next_tick(page)
    assert focused(page) == "resign"
    resign(page)


def test_a_player_whose_live_time_runs_out_loses(page: Page, driven: tuple[Any, Clock]) -> None:
    server, clock = driven
    base = server.base_url
    match_id = create_timed(page, base, {"clock-kind": "fischer", "at-zero": "lose"}, minutes="1")
    made = summary(base, match_id)["clock"]
    assert (made["base"], made["at_zero"]) == (60, "lose")
    assert e2e.wait_turn_or_end(page) == "mine"
    expect(page.locator(MY_CLOCK)).to_have_text(re.compile(r"^(1:00|0:[0-5]\d)$"))

    clock.ahead += 120  # two minutes pass on the server: the move took too long
    expect(page.get_by_test_id("end-reason")).to_have_attribute("data-reason", "time", timeout=15_000)
    expect(page.get_by_test_id("end-reason")).to_have_text("You ran out of time.")
    expect(page.get_by_test_id("winners")).to_have_text("Winner: Random bot")
    assert summary(base, match_id)["end"] == {"reason": "time", "seats": [0], "winners": [1]}
    expect(page.locator(MY_CLOCK)).to_have_attribute("data-running", "false")
