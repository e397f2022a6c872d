"""Accounts, seats that follow the player and the match lifecycle in the browser (issue 19's
acceptance): two friends, Ann (an account, on two devices) and Bea (a guest), through a private match
and its invite link, an abandoned seat handed to a bot, one shared rematch, a resignation, and Ann's
history page; then the forms' refusals by code, "My matches", private links and a declined rematch.

The tests that wait for a player to be gone use this module's own server (``short_grace``): the
same app as ``web_server`` with a grace period of :data:`GRACE` seconds, so that an abandoned seat
can be handed over within the test.  The others use ``web_server`` (two minutes of grace): on a
short grace, a match left alone with bots goes to a bot by itself while its player is in the lobby.
"""

from __future__ import annotations

import random
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as server_support
import masques_web_e2e as e2e
import pytest
from masques_web_e2e import PASSWORD, People, log_in, masker_move, sign_up
from playwright.sync_api import Page, Route, expect

# Long stories through browsers, on servers of the module's own: the module runs first and together.
pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
GRACE = 3.0
"""Seconds a player may be away before the others may hand their seat to a bot or claim the match."""
SEAT_KEYS = "() => Object.keys(localStorage).filter(k => k.startsWith('masques.seat'))"
SELECTED_TEXT = """() => {
  const el = document.activeElement;
  return el instanceof HTMLInputElement ? el.value.slice(el.selectionStart, el.selectionEnd) : "";
}"""
STORAGE_PROBE = "() => { try { localStorage; return 'there'; } catch { return 'blocked'; } }"


@pytest.fixture(scope="module")
def short_grace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    subprocess.run(["bash", str(ROOT / "scripts" / "build_web.sh")], check=True, cwd=ROOT)
    url = f"sqlite:///{tmp_path_factory.mktemp('accounts') / 'masques.sqlite3'}"
    # The bot that takes an abandoned seat: the quickest, so the game it finishes is short.
    limits = replace(server_support.RELAXED, grace_seconds=GRACE, abandoned_bot="random")
    running = server_support.ThreadServer(url, bot_workers=1, limits=limits).start()
    yield running
    running.stop()


# -- helpers --------------------------------------------------------------------------------------


def play_until_each_moved(pages: list[Page], move: e2e.Move, timeout: float = 90.0) -> None:
    """Whoever's turn it is moves, until every page in ``pages`` has made at least one move (the game
    must not end before)."""
    deadline = time.monotonic() + timeout
    moved: set[int] = set()
    while len(moved) < len(pages):
        assert time.monotonic() < deadline, f"not every player moved within {timeout} s"
        states = [e2e.turn_state(p) for p in pages]
        assert "over" not in states, "the game ended too soon for this test"
        mover = next((i for i, state in enumerate(states) if state == "mine"), None)
        if mover is None:
            pages[0].wait_for_timeout(50)
            continue
        seen = e2e.version(pages[mover])
        move(pages[mover])
        e2e.wait_version_above(pages[mover], seen)
        moved.add(mover)


def seat_of(page: Page) -> str:
    return str(page.locator(".match-page").get_attribute("data-seat"))


def wait_seat(page: Page, seat: str) -> None:
    expect(page.locator(".match-page")).to_have_attribute("data-seat", seat)


def summary(base: str, match_id: str) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=20) as api:
        answer: dict[str, Any] = api.get(f"/api/matches/{match_id}").json()
    return answer


def listed(base: str, match_id: str) -> bool:
    with httpx.Client(base_url=base, timeout=20) as api:
        return any(m["id"] == match_id for m in api.get("/api/matches?status=all").json())


def join_as_guest(page: Page, name: str, seat: int) -> None:
    """On an open match's page: type a name and take the seat."""
    page.locator(".join-panel input[name=player-name]").fill(name)
    page.locator(f".join-panel button[data-seat='{seat}']").click()
    wait_seat(page, str(seat))


# -- the acceptance story ---------------------------------------------------------------------------


def test_two_friends_private_match_other_device_abandon_rematch_resign_history(
    people: People, short_grace: Any
) -> None:
    base = short_grace.base_url
    rng = random.Random(19)
    move = masker_move(rng)

    # Ann signs up, creates a private Masker match and copies its invite link.
    ann = people.device(clipboard=True)
    sign_up(ann, base, "annika")
    first = e2e.create_match(
        ann, base, "masker", options={"players": "2"}, seats=["you", "human"], private=True
    )
    assert seat_of(ann) == "0"
    assert not listed(base, first), "a private match is not in the lobby"
    expect(ann.get_by_test_id("invite")).to_be_visible()
    link = ann.get_by_test_id("invite-link").input_value()
    assert re.fullmatch(rf"{re.escape(base)}/match/{first}\?invite=[0-9a-zA-Z_-]+", link), link
    ann.get_by_test_id("copy-invite").click()
    expect(ann.get_by_test_id("invite-copied")).to_have_attribute("data-how", "copied")
    assert ann.evaluate("() => navigator.clipboard.readText()") == link

    # Bea opens the link as a guest (no session yet), types her name and joins.
    bea = people.device()
    bea.goto(link)
    e2e.wait_ready(bea)
    expect(bea.get_by_test_id("me-name")).to_have_count(0)
    join_as_guest(bea, "Bea", 1)
    expect(bea.get_by_test_id("me-name")).to_have_text("Bea")
    expect(bea.get_by_test_id("identity")).to_have_attribute("data-kind", "guest")
    for page in (ann, bea):
        page.wait_for_selector(".match-page[data-turn=mine], .match-page[data-turn=waiting]")
    expect(ann.locator(".seats")).to_contain_text("Bea")
    expect(bea.locator(".seats")).to_contain_text("annika")

    # They play.
    play_until_each_moved([ann, bea], move)

    # Ann opens the match on another device (no storage at all there), logs in, and plays from there.
    other = people.device(storage=False)
    other.goto(f"{base}/match/{first}")
    e2e.wait_ready(other)
    assert other.evaluate(STORAGE_PROBE) == "blocked"
    assert seat_of(other) == "", "before logging in, Ann's other device only watches"
    log_in(other, "annika")
    wait_seat(other, "0")
    expect(other.get_by_test_id("invite")).to_be_visible()  # her seat's view carries the invite
    ann.context.close()  # the first device is gone: the seat is the player's, not the browser's
    play_until_each_moved([other, bea], move)

    # Bea closes her tab; once the grace period is over, Ann gives her seat to a bot and plays to the end.
    bea_context = bea.context
    bea.close()
    hand_over = other.locator("[data-testid=seat-bot][data-seat='1']")
    expect(hand_over).to_be_visible(timeout=(GRACE + 20) * 1000)
    expect(other.locator("[data-testid=abandoned][data-seat='1']")).to_contain_text("Bea")
    expect(other.get_by_test_id("claim")).to_be_visible()
    hand_over.click()
    expect(other.locator(".seats li[data-seat='1']")).to_contain_text("Random bot")
    expect(hand_over).to_have_count(0)
    e2e.play_to_end(other, move)
    end = other.get_by_test_id("end")
    expect(end).to_be_visible()
    expect(other.get_by_test_id("end-reason")).to_have_attribute("data-reason", "played")
    first_end = summary(base, first)["end"]
    assert first_end["reason"] == "played"

    # Both accept the rematch: Bea comes back on the same device (still the guest Bea); a bot finished
    # her seat, but she is still a player of the match and is asked too.
    bea = people.tab(bea_context)
    bea.goto(f"{base}/match/{first}")
    e2e.wait_ready(bea)
    expect(bea.get_by_test_id("end-reason")).to_have_attribute("data-reason", "played")
    other.get_by_test_id("rematch-accept").click()
    panel = bea.get_by_test_id("rematch-panel")
    expect(panel).to_have_attribute("data-state", "offered")  # shown live to the other player
    expect(panel.locator("li[data-seat='0']")).to_have_attribute("data-answer", "accepted")
    expect(panel.locator("li[data-seat='1']")).to_have_attribute("data-answer", "waiting")
    bea.get_by_test_id("rematch-accept").click()
    landing = re.compile(r"/match/(?!" + first + r")[0-9a-f]{16}$")
    for page in (other, bea):
        page.wait_for_url(landing)
        e2e.wait_ready(page)
    third = other.url.rsplit("/", 1)[1]
    assert bea.url.rsplit("/", 1)[1] == third, "both land in the same new match"
    wait_seat(other, "1")  # seats rotated by one
    wait_seat(bea, "0")
    assert summary(base, first)["rematch"]["match"] == third
    bea.context.close()

    # Ann resigns a Maske match (with a confirmation).
    maske = e2e.create_match(
        other, base, "maske", options={"players": "3", "masks": "3"}, seats=["you", "random", "random"]
    )
    other.get_by_test_id("resign").click()
    expect(other.get_by_test_id("resign-dialog")).to_contain_text("Resign this match?")
    other.get_by_test_id("resign-cancel").click()
    expect(other.get_by_test_id("resign-dialog")).to_have_count(0)
    assert summary(base, maske)["status"] == "running", "cancelling changes nothing"
    other.get_by_test_id("resign").click()
    other.get_by_test_id("resign-confirm").click()
    expect(other.get_by_test_id("end-reason")).to_have_attribute("data-reason", "resigned")
    expect(other.get_by_test_id("end-reason")).to_have_text("You resigned.")
    assert e2e.turn_state(other) == "over"
    # Nobody is to move in a stopped game: no player marked, no decision asked of anyone.
    expect(other.locator(".ms-to-move")).to_have_count(0)
    expect(other.locator(".ms-decision h3")).to_have_text("Game over")

    # The lobby's finished list shows the result and the date.
    other.goto(base + "/")
    row = other.locator(f".match-group.finished li[data-match='{maske}']")
    expect(row.get_by_test_id("finished-result")).to_contain_text("resigned")
    expect(row.get_by_test_id("finished-date")).not_to_be_empty()

    # Ann's history page lists both matches with their results.
    other.get_by_test_id("me-link").click()
    other.wait_for_url(re.compile(r"/player/[0-9a-f]{16}$"))
    history = other.get_by_test_id("history")
    masker_row = history.locator(f"tr[data-match='{first}']")
    expected = {(0,): "won", (1,): "lost"}.get(tuple(first_end["winners"]), "draw")
    expect(masker_row).to_have_attribute("data-result", expected)
    expect(masker_row.locator("td.game")).to_have_text("Masker")
    expect(masker_row.locator("td.date")).not_to_be_empty()
    maske_row = history.locator(f"tr[data-match='{maske}']")
    expect(maske_row).to_have_attribute("data-result", "lost")
    expect(maske_row.get_by_test_id("history-result")).to_have_text("Lost (resigned)")
    expect(maske_row.locator("td.opponents")).to_contain_text("Random bot")
    expect(maske_row.locator("td.options")).to_contain_text("Players: 3")
    maske_row.get_by_test_id("history-replay").click()
    other.wait_for_url(f"**/match/{maske}/replay")
    other.wait_for_selector(".game-view")


# -- the pieces, one by one -------------------------------------------------------------------------


def test_the_forms_show_the_servers_refusals_by_code(people: People, web_server: Any) -> None:
    """Sign up, log in and change password refuse bad input with the server's code, in words; a
    newcomer who logs out is nobody again.  (Few failed log-ins: the server backs off after four.)"""
    page = people.device()
    page.goto(web_server.base_url + "/")
    expect(page.get_by_test_id("me-name")).to_have_count(0)
    page.get_by_test_id("signup-open").click()
    form = page.get_by_test_id("auth-form")
    error = page.get_by_test_id("auth-error")

    def submit(username: str, password: str) -> None:
        form.locator("input[name=username]").fill(username)
        form.locator("input[name=password]").fill(password)
        page.get_by_test_id("auth-submit").click()

    submit("9lives", PASSWORD)
    expect(error).to_have_attribute("data-code", "bad_username")
    expect(error).to_contain_text("starts with a letter")
    submit("cleo", "cleo")
    expect(error).to_have_attribute("data-code", "weak_password")
    submit("cleo", PASSWORD)
    expect(page.get_by_test_id("me-name")).to_have_text("cleo")
    expect(page.get_by_test_id("auth-panel")).to_be_hidden()

    page.get_by_test_id("logout").click()
    expect(page.get_by_test_id("me-name")).to_have_count(0)
    expect(page.get_by_test_id("login-open")).to_be_visible()
    page.get_by_test_id("signup-open").click()
    submit("CLEO", PASSWORD)
    expect(error).to_have_attribute("data-code", "username_taken")
    expect(error).to_have_text("This username is taken.")
    page.get_by_test_id("auth-cancel").click()

    page.get_by_test_id("login-open").click()
    form.locator("input[name=username]").fill("cleo")
    password = form.locator("input[name=password]")
    password.fill("not-her-password")
    password.press("Enter")  # sent from the keyboard: the refused password's field keeps the focus
    expect(error).to_have_attribute("data-code", "bad_credentials")
    expect(error).to_have_text("Wrong username or password.")
    expect(password).to_be_focused()
    submit("cleo", PASSWORD)
    expect(page.get_by_test_id("me-name")).to_have_text("cleo")

    page.get_by_test_id("password-open").click()
    expect(form).to_have_attribute("data-mode", "password")
    form.locator("input[name=old-password]").fill(PASSWORD)
    form.locator("input[name=new-password]").fill("cleo")
    page.get_by_test_id("auth-submit").click()
    expect(error).to_have_attribute("data-code", "weak_password")
    form.locator("input[name=old-password]").fill(PASSWORD)
    form.locator("input[name=new-password]").fill("lantern-fig-77")
    page.get_by_test_id("auth-submit").click()
    expect(page.get_by_test_id("auth-done")).to_be_visible()

    # The new password is the one that works now, on a second device.
    elsewhere = people.device()
    elsewhere.goto(web_server.base_url + "/")
    log_in(elsewhere, "cleo", "lantern-fig-77")
    expect(elsewhere.get_by_test_id("password-open")).to_be_visible()


def test_a_page_that_changes_its_password_mid_match_plays_on_by_its_session(
    people: People, web_server: Any
) -> None:
    """A new password ends the account's seat tokens, the one this page keeps too: the page lets
    it go and plays on with its session."""
    base = web_server.base_url
    page = people.device()
    name = f"Fenna{random.randrange(10**6)}"
    sign_up(page, base, name)
    match_id = e2e.create_match(page, base, "masker", options={"players": "2"}, seats=["you", "random"])
    assert e2e.wait_turn_or_end(page) == "mine"
    stored = f"() => localStorage.getItem('masques.seat.{match_id}')"
    assert page.evaluate(stored) is not None
    page.get_by_test_id("password-open").click()
    form = page.get_by_test_id("auth-form")
    form.locator("input[name=old-password]").fill(PASSWORD)
    form.locator("input[name=new-password]").fill("lantern-fig-77")
    page.get_by_test_id("auth-submit").click()
    expect(page.get_by_test_id("auth-done")).to_be_visible()
    page.wait_for_function(f"{stored} === null")
    assert e2e.wait_turn_or_end(page) == "mine"
    version = int(page.locator(".match-page").get_attribute("data-version") or -1)
    masker_move(random.Random(3))(page)
    e2e.wait_version_above(page, version)
    expect(page.get_by_test_id("banner")).not_to_contain_text(re.compile("refused|not found", re.I))


def test_my_matches_lists_the_ones_waiting_for_my_move_first(people: People, web_server: Any) -> None:
    base = web_server.base_url
    page = people.device(storage=False)
    against_bot = e2e.create_match(
        page, base, "masker", options={"players": "2"}, seats=["you", "random"], name="Dora"
    )
    assert e2e.wait_turn_or_end(page) == "mine"
    waiting = e2e.create_match(
        page, base, "masker", options={"players": "2"}, seats=["you", "human"], name="Dora"
    )
    expect(page.get_by_test_id("me-name")).to_have_text("Dora")  # a guest, made before the first match
    # The lists are held back: the games wait for them, so "my matches" never moves them under a click.
    held: list[Route] = []
    released = False

    def hold(route: Route) -> None:
        if released:
            route.continue_()
        else:
            held.append(route)

    page.route("**/api/me/matches", hold)
    page.goto(base + "/")
    choose = page.get_by_test_id("choose-masker")
    expect(choose).to_have_count(1)
    expect(choose).to_be_hidden()
    assert held, "the lobby asked for my matches"
    released = True
    for route in held:
        route.continue_()
    expect(choose).to_be_visible()
    mine = page.get_by_test_id("my-matches").locator("li")
    assert mine.count() == 2, "my matches were drawn with the games, not after them"
    expect(mine.nth(0)).to_have_attribute("data-match", against_bot)
    expect(mine.nth(0)).to_have_attribute("data-my-turn", "true")
    expect(mine.nth(0).get_by_test_id("my-turn")).to_have_text(re.compile("your move"))
    expect(mine.nth(1)).to_have_attribute("data-match", waiting)
    expect(mine.nth(1)).to_have_attribute("data-my-turn", "false")
    expect(mine.nth(1).get_by_test_id("my-turn")).to_have_count(0)
    mine.nth(0).locator("a").click()
    page.wait_for_url(f"**/match/{against_bot}")
    assert e2e.wait_ready(page) == "mine", "the seat came back with no stored token"


def test_a_private_match_is_joined_by_its_link_only(people: People, web_server: Any) -> None:
    base = web_server.base_url
    host = people.device(clipboard=False)
    host.add_init_script("Object.defineProperty(navigator, 'clipboard', { value: undefined });")
    match_id = e2e.create_match(
        host, base, "masker", options={"players": "2"}, seats=["you", "human"], name="Eve", private=True
    )
    link = host.get_by_test_id("invite-link").input_value()
    # No clipboard API here: the link is copied the old way, and left selected to copy by hand.
    host.get_by_test_id("copy-invite").click()
    expect(host.get_by_test_id("invite-copied")).to_be_visible()
    selected = host.evaluate(SELECTED_TEXT)
    assert selected == link

    guest = people.device()
    guest.goto(f"{base}/match/{match_id}")  # by its id alone: watch only
    e2e.wait_ready(guest)
    expect(guest.get_by_test_id("invite-required")).to_be_visible()
    expect(guest.locator(".join-panel button")).to_have_count(0)
    guest.goto(f"{base}/match/{match_id}?invite=0000")
    e2e.wait_ready(guest)
    guest.locator(".join-panel input[name=player-name]").fill("Fay")
    guest.locator(".join-panel button[data-seat='1']").click()
    expect(guest.get_by_test_id("notice")).to_contain_text("This invite link is wrong.")
    assert seat_of(guest) == ""
    guest.goto(link)
    e2e.wait_ready(guest)
    join_as_guest(guest, "Fay", 1)
    expect(host.locator(".seats")).to_contain_text("Fay")


def test_a_claimed_match_and_a_declined_rematch(people: People, short_grace: Any) -> None:
    """Bea leaves; after the grace period Ann claims the match (Bea loses).  Ann offers a rematch, a
    spectator sees the offer but may not answer, and Bea, back, declines it: the offer is closed."""
    base = short_grace.base_url
    ann = people.device()
    match_id = e2e.create_match(
        ann, base, "masker", options={"players": "2"}, seats=["you", "human"], name="Ann"
    )
    bea = people.device()
    bea.goto(f"{base}/match/{match_id}")
    e2e.wait_ready(bea)
    join_as_guest(bea, "Bea", 1)
    e2e.wait_ready(ann)
    bea_context = bea.context
    bea.close()
    ann.get_by_test_id("claim").click(timeout=(GRACE + 20) * 1000)
    expect(ann.get_by_test_id("end-reason")).to_have_attribute("data-reason", "claimed")
    expect(ann.get_by_test_id("end-reason")).to_have_text("Claimed: Bea left the match.")
    expect(ann.get_by_test_id("winners")).to_have_text("Winner: You")
    ann.get_by_test_id("rematch-accept").click()
    expect(ann.get_by_test_id("rematch-panel")).to_have_attribute("data-state", "offered")
    expect(ann.get_by_test_id("rematch-accept")).to_have_count(0)  # answered

    watcher = people.device()
    watcher.goto(f"{base}/match/{match_id}")
    e2e.wait_ready(watcher)
    expect(watcher.get_by_test_id("rematch-panel")).to_have_attribute("data-state", "offered")
    expect(watcher.get_by_test_id("rematch-accept")).to_have_count(0)
    expect(watcher.get_by_test_id("rematch-decline")).to_have_count(0)

    bea = people.tab(bea_context)
    bea.goto(f"{base}/match/{match_id}")
    e2e.wait_ready(bea)
    assert seat_of(bea) == "1", "the guest's seat came back with the cookie"
    bea.get_by_test_id("rematch-decline").click()
    for page in (ann, bea, watcher):
        expect(page.get_by_test_id("rematch-panel")).to_have_attribute("data-state", "declined")
        expect(page.get_by_test_id("rematch-status")).to_have_text("The rematch was declined.")
    expect(bea.get_by_test_id("rematch-accept")).to_have_count(0)
    assert summary(base, match_id)["rematch"] == {
        "answers": {"0": True, "1": False},
        "match": None,
        "declined": True,
    }


def test_the_player_pages_load_by_their_address(people: People, web_server: Any) -> None:
    """``/me`` leads to one's own page (a newcomer gets the log-in form); ``/player/{id}`` loads as is."""
    base = web_server.base_url
    page = people.device()
    match_id = e2e.create_match(
        page, base, "masker", options={"players": "2"}, seats=["you", "random"], name="Gus"
    )
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign-confirm").click()
    expect(page.get_by_test_id("end-reason")).to_have_attribute("data-reason", "resigned")
    page.goto(base + "/me")
    page.wait_for_url(re.compile(r"/player/[0-9a-f]{16}$"))
    expect(page.get_by_test_id("player-name")).to_contain_text("Gus")
    expect(page.locator(f"[data-testid=history] tr[data-match='{match_id}']")).to_have_attribute(
        "data-result", "lost"
    )
    own = page.url
    stranger = people.device()
    stranger.goto(own)
    expect(stranger.get_by_test_id("player-name")).to_contain_text("Gus")
    expect(stranger.locator(f"[data-testid=history] tr[data-match='{match_id}']")).to_have_count(1)
    stranger.goto(base + "/me")
    expect(stranger.get_by_test_id("auth-form")).to_have_attribute("data-mode", "login")
    stranger.goto(base + "/player/0123456789abcdef")
    expect(stranger.get_by_test_id("player-error")).to_have_text("No such player.")
