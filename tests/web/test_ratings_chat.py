"""A living site in the browser (issue 20's acceptance): two accounts play a rated match to the end,
chat on the way (a line with markup shows as text), see the tab's title change on their turn, see
their rating change at the end and find themselves on the leaderboard and on their page's rating
graph; then the spectators' chat, which the players do not see while the match is played, and the
chat's mute and refusals.

This module's server shows an account on the leaderboard after one rated game
(``MASQUES_LEADERBOARD_MIN_GAMES=1``).
"""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as server_support
import masques_web_e2e as e2e
import pytest
from masques_web_e2e import People, masker_move, sign_up
from playwright.sync_api import Page, expect

from masques.server.limits import Limits

# Long stories through browsers, on servers of the module's own: the module runs first and together.
pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
CHANGE = re.compile(r"^(\d+\.\d) → (\d+\.\d) \(([+−±])(\d+\.\d)\)")
"""A rating change as the end panel writes it: "27.3 → 28.9 (+1.6)"."""
YOUR_TURN = re.compile(r"^● Your turn – ")


@pytest.fixture(scope="module")
def living(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    subprocess.run(["bash", str(ROOT / "scripts" / "build_web.sh")], check=True, cwd=ROOT)
    url = f"sqlite:///{tmp_path_factory.mktemp('living') / 'masques.sqlite3'}"
    limits = Limits.from_env({**server_support.RELAXED_ENV, "MASQUES_LEADERBOARD_MIN_GAMES": "1"})
    running = server_support.ThreadServer(url, bot_workers=1, limits=limits).start()
    yield running
    running.stop()


def summary(base: str, match_id: str) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=20) as api:
        answer: dict[str, Any] = api.get(f"/api/matches/{match_id}").json()
    return answer


def create_rated(page: Page, base: str) -> str:
    """In the lobby, as an account: a rated two-player Masker match, the second seat open."""
    page.goto(base + "/")
    e2e.choose_game(page, "masker")
    form = page.get_by_test_id("create-form")
    form.locator("select[name=players]").select_option("2")
    form.locator("select[name=seat-0]").select_option("you")
    form.locator("select[name=seat-1]").select_option("human")
    form.get_by_test_id("rated").check()
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/match/[0-9a-f]{16}$"))
    e2e.wait_ready(page)
    return page.url.rsplit("/", 1)[1]


def say(page: Page, text: str) -> None:
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-send").click()


def players_lines(page: Page) -> Any:
    return page.locator("[data-testid=chat-lines][data-channel=players] [data-testid=chat-text]")


def test_two_accounts_play_a_rated_match_chat_and_climb_the_leaderboard(people: People, living: Any) -> None:
    base = living.base_url
    rng = random.Random(2020)

    # Ann signs up and creates a rated match: the lobby lists it as rated.
    ann = people.device()
    sign_up(ann, base, "annika")
    match_id = create_rated(ann, base)
    expect(ann.get_by_test_id("rated-tag")).to_have_text("rated")
    assert summary(base, match_id)["rated"] is True
    assert not YOUR_TURN.match(ann.title()), "nobody's turn while the match waits for Bea"

    bea = people.device()
    sign_up(bea, base, "beatrix")
    entry = bea.locator(f".match-group.open li[data-match='{match_id}']")
    expect(entry.get_by_test_id("rated-tag")).to_be_visible()
    entry.locator("a").click()
    bea.wait_for_url(f"**/match/{match_id}")
    e2e.wait_ready(bea)
    bea.locator(".join-panel button[data-seat='1']").click()
    for page in (ann, bea):
        page.wait_for_selector(".match-page[data-turn=mine], .match-page[data-turn=waiting]")

    # The tab's title tells whose move it is, and changes when the turn does.
    first, second = (ann, bea) if e2e.turn_state(ann) == "mine" else (bea, ann)
    expect(first).to_have_title(YOUR_TURN)
    expect(second).not_to_have_title(YOUR_TURN)
    move = masker_move(rng)
    for _ in range(10):  # Masker: up to three steps, then the turn passes
        if e2e.turn_state(first) != "mine":  # the first page's latest view: the turn has passed
            break
        seen = e2e.version(first)
        move(first)
        e2e.wait_version_above(first, seen)
    expect(second).to_have_title(YOUR_TURN)
    expect(first).not_to_have_title(YOUR_TURN)

    # Bea says hello; Ann reads it.  A line with markup is shown as the text it is.
    say(bea, "Good luck, Ann!")
    expect(players_lines(ann)).to_have_text(["Good luck, Ann!"])
    say(bea, "<b>x</b>")
    expect(players_lines(ann)).to_have_text(["Good luck, Ann!", "<b>x</b>"])
    expect(ann.locator("[data-testid=chat] b")).to_have_count(0)
    expect(players_lines(bea)).to_have_text(["Good luck, Ann!", "<b>x</b>"])
    said_at = summary(base, match_id)["version"]

    # They play to the end; each sees both ratings move.
    e2e.play_pages_to_end([ann, bea], move)
    final = summary(base, match_id)
    assert final["status"] == "finished" and final["rated"] is True
    ratings = final["ratings"]
    assert ratings is not None and len(ratings) == 2
    for page in (ann, bea):
        expect(page.get_by_test_id("end")).to_be_visible()
    scores = [page.locator(".end-panel .scores td").all_inner_texts() for page in (ann, bea)]
    assert scores[0] and scores[0] == scores[1], "both see the same final scores"
    for page in (ann, bea):
        cells = page.locator("[data-testid=end] [data-testid=rating-change]")
        expect(cells).to_have_count(2)
        for seat in (0, 1):
            cell = page.locator(f"[data-testid=end] [data-testid=rating-change][data-seat='{seat}']")
            text = cell.inner_text().strip()
            found = CHANGE.match(text)
            assert found, text
            before, after = ratings[seat]["before"]["rating"], ratings[seat]["after"]["rating"]
            assert (float(found[1]), float(found[2])) == (before, after)
            change = ratings[seat]["change"]
            assert found[3] == ("+" if change > 0 else "−" if change < 0 else "±")
            # toFixed(1) rounds the float's exact value half up; Python's round() would round to even.
            shown = Decimal(abs(change)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
            assert Decimal(found[4]) == shown
    e2e.screenshot(ann, "rated-match-end")
    winners = final["end"]["winners"]
    if len(winners) == 1:  # the winner gains, the loser loses
        assert ratings[winners[0]]["change"] > 0 > ratings[1 - winners[0]]["change"]

    # The leaderboard shows both (a rating after one game is provisional), and the bot levels.
    ann.goto(base + "/leaderboard?game=masker&family=two-player")
    table = ann.get_by_test_id("lb-table")
    expect(table).to_have_attribute("data-game", "masker")
    for seat, name in ((0, "annika"), (1, "beatrix")):
        player = final["seats"][seat]["player"]
        row = table.locator(f"tr[data-player='{player['id']}']")
        expect(row.locator("a.lb-player")).to_have_text(name)
        expect(row.locator("a.lb-player")).to_have_attribute("href", f"/player/{player['id']}")
        expect(row.get_by_test_id("lb-rating")).to_contain_text(f"{ratings[seat]['after']['rating']:.1f}")
        expect(row.get_by_test_id("provisional")).to_be_visible()
        expect(row.get_by_test_id("lb-uncertainty")).to_have_text(re.compile(r"^ ±\d+\.\d$"))
    expect(table.locator("tr[data-kind=bot]")).to_have_count(6)
    # The ranking's rule is said: a higher rating may rank lower while it is uncertain.
    expect(ann.get_by_test_id("lb-order")).to_contain_text("less three times its uncertainty")
    ann.set_viewport_size({"width": 390, "height": 844})  # a phone keeps the columns' names
    expect(table.locator("thead th")).to_have_count(4)
    for header in table.locator("thead th").all():
        expect(header).to_be_visible()
    ann.set_viewport_size(e2e.LAPTOP)
    expect(table.locator("tr[data-player='bot:hard']")).to_contain_text("Hard bot")
    e2e.screenshot(ann, "leaderboard")

    # Ann's page: her Masker rating and its graph (one rated match).
    table.locator("a.lb-player", has_text="annika").click()
    ann.wait_for_url(re.compile(r"/player/[0-9a-f]{16}$"))
    rating_row = ann.get_by_test_id("ratings-table").locator("tr[data-game=masker][data-family=two-player]")
    expect(rating_row.get_by_test_id("player-rating")).to_contain_text(f"{ratings[0]['after']['rating']:.1f}")
    graph = ann.get_by_test_id("rating-graph")
    expect(graph).to_have_attribute("data-points", "1")
    expect(graph.locator(f"circle[data-match='{match_id}']")).to_have_count(1)
    e2e.screenshot(ann, "player-ratings")

    # The replay shows the players' chat at the step it was said.
    ann.goto(f"{base}/match/{match_id}/replay")
    chat = ann.get_by_test_id("replay-chat")
    expect(chat.get_by_test_id("chat-text")).to_have_text(["Good luck, Ann!", "<b>x</b>"])
    ann.get_by_test_id("replay-first").click()
    expect(chat.get_by_test_id("chat-text")).to_have_count(0 if said_at > 0 else 2)


def test_the_spectators_chat_stays_away_from_the_players_while_the_match_is_played(
    people: People, living: Any
) -> None:
    """Dora plays a bot; Eli watches and chats with the spectators.  Dora does not see their chat
    until the match is over; Eli reads the players' chat all along."""
    base = living.base_url
    dora = people.device()
    match_id = e2e.create_match(
        dora, base, "masker", options={"players": "2"}, seats=["you", "random"], name="Dora"
    )
    say(dora, "Hello, watchers")

    eli = people.device()
    eli.goto(f"{base}/match/{match_id}")
    e2e.wait_ready(eli)
    expect(players_lines(eli)).to_have_text(["Hello, watchers"])
    # A spectator needs a session to chat: Eli has none yet, so he is asked to sign in.
    expect(eli.get_by_test_id("chat-sign-in")).to_be_visible()
    sign_up(eli, base, "elias")
    eli.goto(f"{base}/match/{match_id}")
    e2e.wait_ready(eli)
    spectators = "[data-testid=chat-lines][data-channel=spectators] [data-testid=chat-text]"
    say(eli, "She should take the white cross")
    expect(eli.locator(spectators)).to_have_text(["She should take the white cross"])
    expect(players_lines(eli)).to_have_text(["Hello, watchers"])

    # Dora, playing, sees neither the line nor the spectators' chat; on a fresh page neither.
    say(dora, "Still there?")
    expect(players_lines(eli)).to_have_text(["Hello, watchers", "Still there?"])
    expect(dora.get_by_test_id("chat-spectators")).to_be_hidden()
    assert "white cross" not in dora.content()
    dora.reload()
    e2e.wait_ready(dora)
    expect(players_lines(dora)).to_have_text(["Hello, watchers", "Still there?"])
    expect(dora.get_by_test_id("chat-spectators")).to_be_hidden()
    assert "white cross" not in dora.content()

    # Once the match is over, she reads it.
    dora.get_by_test_id("resign").click()
    dora.get_by_test_id("resign-confirm").click()
    expect(dora.get_by_test_id("end-reason")).to_have_attribute("data-reason", "resigned")
    expect(dora.locator(spectators)).to_have_text(["She should take the white cross"])


def test_a_chat_can_be_muted_and_refusals_are_shown(people: People, living: Any) -> None:
    base = living.base_url
    fay = people.device()
    match_id = e2e.create_match(
        fay, base, "masker", options={"players": "2"}, seats=["you", "random"], name="Fay"
    )
    counter = fay.get_by_test_id("chat-counter")
    expect(counter).to_have_text("0/500")
    expect(fay.get_by_test_id("chat-send")).to_be_disabled()
    fay.get_by_test_id("chat-input").fill("x" * 501)
    expect(counter).to_have_text("501/500")
    expect(fay.get_by_test_id("chat-send")).to_be_disabled()

    # A control character: the server refuses the line with its code, and the text comes back.
    say(fay, "ring\u0007")
    error = fay.get_by_test_id("chat-error")
    expect(error).to_have_attribute("data-code", "chat_bad_text")
    expect(error).to_contain_text("cannot be sent")
    expect(fay.get_by_test_id("chat-input")).to_have_value("ring\u0007")
    say(fay, "ring")
    expect(players_lines(fay)).to_have_text(["ring"])
    expect(error).to_be_hidden()

    # Muted: the lines are hidden, and stay so on this match after a reload (a per-match setting).
    players = fay.get_by_test_id("chat-players")
    players.get_by_test_id("chat-mute").click()
    expect(players).to_have_attribute("data-muted", "true")
    expect(players.locator("[data-testid=chat-lines]")).to_be_hidden()
    expect(players.get_by_test_id("chat-muted")).to_have_text("Muted (1 line).")
    key = f"masques.mute.{match_id}.players"
    assert fay.evaluate(f"() => localStorage.getItem('{key}')") == "1"
    fay.reload()
    e2e.wait_ready(fay)
    expect(fay.get_by_test_id("chat-players")).to_have_attribute("data-muted", "true")
    fay.get_by_test_id("chat-players").get_by_test_id("chat-mute").click()
    expect(players_lines(fay)).to_have_text(["ring"])
    assert fay.evaluate(f"() => localStorage.getItem('{key}')") is None
