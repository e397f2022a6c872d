"""The match page shell, whatever the game: reconnecting after a reload with the seat kept, the
language switch, the replay viewer, the lobby's lists, and a phone-sized layout."""

from __future__ import annotations

import random
import re

import httpx
import masques_web_e2e as e2e
from playwright.sync_api import Browser, Page, expect

from masques.engine import game_names


def _step(page: Page, rng: random.Random) -> None:
    targets = page.locator(".mk-target")
    targets.nth(rng.randrange(targets.count())).click()


def test_a_reload_reconnects_to_the_same_seat(page: Page, web_server: object) -> None:
    rng = random.Random(2)
    match_id = e2e.create_match(page, web_server.base_url, "masker", seats=["you", "random"])  # type: ignore[attr-defined]
    colour = page.locator(".mk-secret-colour").inner_text()
    e2e.wait_turn_or_end(page)
    seen = e2e.version(page)
    _step(page, rng)
    e2e.wait_version_above(page, seen)
    page.reload()
    assert e2e.wait_ready(page) in ("mine", "waiting")
    assert page.url.endswith(f"/match/{match_id}")
    assert page.locator(".match-page").get_attribute("data-seat") == "0"
    assert page.locator(".mk-secret-colour").inner_text() == colour
    assert e2e.version(page) > seen
    # ... and plays on from there.
    e2e.wait_turn_or_end(page)
    seen = e2e.version(page)
    _step(page, rng)
    e2e.wait_version_above(page, seen)


def test_the_language_switch_translates_the_page_and_is_remembered(page: Page, web_server: object) -> None:
    base = web_server.base_url  # type: ignore[attr-defined]
    page.goto(base + "/")
    expect(page.locator("h2").first).to_have_text("Games")
    page.get_by_test_id("lang").click()
    expect(page.locator("h2").first).to_have_text("Jeux")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    e2e.create_match(page, base, "mascarade", options={"players": "2"}, seats=["you", "random"])
    expect(page.locator(".mc-hand h4")).to_have_text("Votre main")
    expect(page.locator(".mc-features dt").first).to_have_text("visage")
    page.reload()
    e2e.wait_ready(page)
    expect(page.locator(".mc-hand h4")).to_have_text("Votre main")
    page.get_by_test_id("lang").click()
    expect(page.locator(".mc-hand h4")).to_have_text("Your hand")
    expect(page.locator(".mc-features dt").first).to_have_text("face")


def test_the_replay_viewer_steps_through_a_finished_match(page: Page, web_server: object) -> None:
    base = web_server.base_url  # type: ignore[attr-defined]
    with httpx.Client(base_url=base, timeout=20) as api:
        created = api.post(
            "/api/matches",
            json={"game": "masker", "options": {"players": 2}, "seats": [{"kind": "random"}] * 2, "seed": 4},
        ).json()
        for _ in range(200):
            summary = api.get(f"/api/matches/{created['id']}").json()
            if summary["status"] == "finished":
                break
            page.wait_for_timeout(100)
    total = summary["version"]
    page.goto(f"{base}/")
    page.locator(f"li[data-match='{created['id']}'] a").click()
    page.wait_for_url(f"**/match/{created['id']}/replay")
    position = page.get_by_test_id("replay-position")
    expect(position).to_have_text(f"Step {total} of {total}")
    page.keyboard.press("Home")
    expect(position).to_have_text(f"Step 0 of {total}")
    expect(page.locator(".mk-board svg g[data-square] .mk-hole")).to_have_count(0)
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"Step 1 of {total}")
    expect(page.locator(".mk-board svg g[data-square] .mk-hole")).to_have_count(1)
    page.get_by_test_id("replay-next").click()
    expect(position).to_have_text(f"Step 2 of {total}")
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(f"Step 1 of {total}")
    # Enter on "Next", twice: the button keeps the focus as the viewer redraws.
    page.get_by_test_id("replay-next").focus()
    page.keyboard.press("Enter")
    expect(position).to_have_text(f"Step 2 of {total}")
    expect(page.get_by_test_id("replay-next")).to_be_focused()
    page.keyboard.press("Enter")
    expect(position).to_have_text(f"Step 3 of {total}")
    page.get_by_test_id("replay-last").click()
    expect(position).to_have_text(f"Step {total} of {total}")
    expect(page.locator(".mk-revealed")).to_have_count(2)  # the end: colours are public
    assert page.locator(".game-view [data-action]").count() == 0, "nothing to play in a replay"


def test_the_lobby_lists_open_running_and_finished_matches(browser: Browser, web_server: object) -> None:
    base = web_server.base_url  # type: ignore[attr-defined]
    context = browser.new_context(viewport=e2e.LAPTOP)
    page = context.new_page()
    try:
        with httpx.Client(base_url=base, timeout=20) as api:
            open_match = api.post(
                "/api/matches",
                json={"game": "maske", "seats": [{"kind": "human"}] + [{"kind": "random"}] * 3},
            ).json()
        page.goto(base + "/")
        item = page.locator(f".match-group.open li[data-match='{open_match['id']}']")
        expect(item).to_contain_text("Maske")
        expect(item.locator("a")).to_have_text("Join")
        expect(page.locator(".game-card")).to_have_count(len(game_names()))  # Pips, the test game, too
        for game in ("masker", "maske", "mascarade", "blokus3d"):
            card = page.locator(f".game-card[data-game={game}]")
            assert len(card.locator("p").inner_text()) > 80, f"{game} has a rules summary"
    finally:
        context.close()


def test_a_lobby_link_keeps_the_focus_when_the_lists_refresh(page: Page, web_server: object) -> None:
    """The lobby draws its lists anew every few seconds: the link a keyboard user reached stays focused."""
    base = web_server.base_url  # type: ignore[attr-defined]
    with httpx.Client(base_url=base, timeout=20) as api:
        seats = [{"kind": "human"}, {"kind": "random"}]
        body = {"game": "masker", "options": {"players": 2}, "seats": seats}
        match_id = api.post("/api/matches", json=body).json()["id"]
    page.goto(base + "/")
    link = page.locator(f".match-group.open li[data-match='{match_id}'] a")
    link.focus()
    link.evaluate("a => { a.dataset.drawn = 'before the refresh'; }")
    # The refresh puts a new link in its place (without the mark).
    expect(page.locator(f"li[data-match='{match_id}'] a[data-drawn]")).to_have_count(0)
    expect(link).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/match/{match_id}")


def test_the_match_page_fits_a_phone(browser: Browser, web_server: object) -> None:
    context = browser.new_context(viewport=e2e.PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = e2e.watch_errors(page)
    try:
        e2e.create_match(page, web_server.base_url, "masker", seats=["you", "random"])  # type: ignore[attr-defined]
        e2e.wait_turn_or_end(page)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= e2e.PHONE["width"], f"the page scrolls sideways on a phone ({width} px)"
        board = page.locator(".mk-board svg").bounding_box()
        assert board is not None and board["width"] >= 300, "the board uses the phone's width"
        page.locator(".mk-target").first.tap()
        page.wait_for_selector(".match-page[data-version]:not([data-version='0'])")
        assert re.search(r"/match/[0-9a-f]{16}$", page.url)
    finally:
        context.close()
    assert not errors


def test_a_french_match_page_fits_a_phone(browser: Browser, web_server: object) -> None:
    """The chat row's French words must not widen the one column a phone shows."""
    context = browser.new_context(viewport=e2e.PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(web_server.base_url + "/")  # type: ignore[attr-defined]
        page.get_by_test_id("lang").click()
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        e2e.create_match(page, web_server.base_url, "masker", seats=["you", "random"])  # type: ignore[attr-defined]
        e2e.wait_turn_or_end(page)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= e2e.PHONE["width"], f"the page scrolls sideways on a phone ({width} px)"
    finally:
        context.close()


def test_the_custom_structure_field_shows_only_for_a_custom_structure(page: Page, web_server: object) -> None:
    """B3-2: a grid of one's own means something only with structure=custom; the form asks for it
    then, in the page's language, and the match is built on it."""
    base = web_server.base_url  # type: ignore[attr-defined]
    page.goto(base + "/")
    e2e.choose_game(page, "blokus3d")
    form = page.get_by_test_id("create-form")
    custom = form.locator("textarea[name=custom_structure]")
    custom_field = form.locator("label", has=page.locator("textarea[name=custom_structure]"))
    form.locator("select[name=players]").select_option("2")
    expect(form.locator("select[name=seat-2]")).to_have_count(0)
    expect(form.locator("select[name=structure]")).to_have_count(1)
    expect(custom).to_have_count(0)
    form.locator("select[name=structure]").select_option("custom")
    expect(custom).to_have_count(1)
    expect(custom_field).to_contain_text("Your structure")
    expect(custom_field.locator("small")).to_contain_text("up to 10 rows")
    custom.fill('{"name": "Hill", "heights": ["0120", "1331", "0120"]}')
    form.locator("select[name=seat-1]").select_option("random")
    form.locator("input[name=player-name]").fill("Ada")
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/match/[0-9a-f]{16}$"))
    match_id = page.url.rsplit("/", 1)[1]
    with httpx.Client(base_url=base, timeout=20) as api:
        options = api.get(f"/api/matches/{match_id}").json()["options"]
    assert options["structure"] == "custom"
    assert options["custom_structure"] == {"name": "Hill", "heights": ["0120", "1331", "0120"]}
    # Back to a structure of the box: the grid is neither asked for nor sent.
    page.goto(base + "/")
    e2e.choose_game(page, "blokus3d")
    form.locator("select[name=structure]").select_option("A")
    expect(custom).to_have_count(0)
    page.get_by_test_id("lang").click()
    form.locator("select[name=structure]").select_option("custom")
    expect(custom_field).to_contain_text("Votre structure")


def test_a_form_field_keeps_the_focus_when_the_lobby_form_redraws(page: Page, web_server: object) -> None:
    """Choosing the number of players or a clock draws the create form anew (its seats, its time
    fields): the field that was changed from the keyboard keeps the focus."""
    page.goto(web_server.base_url + "/")  # type: ignore[attr-defined]
    e2e.choose_game(page, "masker")
    form = page.get_by_test_id("create-form")
    players = form.locator("select[name=players]")
    players.focus()
    players.select_option("3")
    expect(form.locator("select[name=seat-2]")).to_have_count(1)  # drawn anew, with a third seat
    expect(players).to_be_focused()
    clock = form.get_by_test_id("clock-kind")
    clock.focus()
    clock.select_option("turn")
    expect(form.locator("select[name=turn-seconds]")).to_have_count(1)
    expect(clock).to_be_focused()


def test_the_leaderboards_choice_keeps_the_focus(page: Page, web_server: object) -> None:
    """Choosing another game's leaderboard from the keyboard redraws the page; the select keeps the focus."""
    page.goto(web_server.base_url + "/leaderboard?game=masker")  # type: ignore[attr-defined]
    game = page.get_by_test_id("lb-game")
    expect(game).to_have_value("masker")
    game.focus()
    game.evaluate("el => { el.dataset.drawn = 'before the choice'; }")
    game.select_option("maske")
    expect(page).to_have_url(re.compile(r"game=maske\b"))
    expect(page.locator("[data-testid=lb-game][data-drawn]")).to_have_count(0)  # drawn anew since
    expect(game).to_have_value("maske")
    expect(game).to_be_focused()


def test_the_lobby_form_offers_every_option_of_every_game(page: Page, web_server: object) -> None:
    """Every option /api/games lists with a fixed set of values has a field in the create form, with
    those values (MC-5a's matching and MS-11a's auction among them), and a match created with a
    non-default value carries it."""
    base = web_server.base_url  # type: ignore[attr-defined]
    with httpx.Client(base_url=base, timeout=20) as api:
        games = api.get("/api/games").json()
    page.goto(base + "/")
    seen = set()
    for game in games:
        e2e.choose_game(page, game["name"])
        form = page.get_by_test_id("create-form")
        for option in game["options"]:
            if option["type"] == "bool":
                expect(form.locator(f"input[name={option['name']}]")).to_have_count(1)
            elif isinstance(option["allowed"], list) and option["allowed"]:
                values = form.locator(f"select[name={option['name']}] option").evaluate_all(
                    "els => els.map(e => e.value)"
                )
                assert values == [str(v) for v in option["allowed"]], option["name"]
                seen.add((game["name"], option["name"]))
    assert {("mascarade", "matching"), ("maske", "auction")} <= seen
    for game, option, value, seats in (
        ("mascarade", "matching", "one", ["you", "random", "random"]),
        ("maske", "auction", "open", ["you", "random", "random", "random"]),
    ):
        match_id = e2e.create_match(page, base, game, options={option: value}, seats=seats)
        with httpx.Client(base_url=base, timeout=20) as api:
            summary = api.get(f"/api/matches/{match_id}").json()
        assert summary["options"][option] == value


def test_a_guest_who_types_no_name_is_named_in_the_pages_language(page: Page, web_server: object) -> None:
    """A French newcomer who leaves the name empty plays as "Invité", not the server's English
    default; joining another match with the name field emptied keeps that name (it does not become
    the seat's number)."""
    base = web_server.base_url  # type: ignore[attr-defined]
    me = "() => fetch('/api/me').then(r => r.json()).then(m => m.player && m.player.name)"
    page.goto(base + "/")
    page.get_by_test_id("lang").click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    e2e.create_match(page, base, "masker", seats=["you", "random"], name="")
    assert page.evaluate(me) == "Invité"
    with httpx.Client(base_url=base, timeout=20) as api:
        body = {"game": "masker", "options": {"players": 2}, "seats": [{"kind": "human"}, {"kind": "human"}]}
        match_id = api.post("/api/matches", json=body).json()["id"]
    page.goto(f"{base}/match/{match_id}")
    page.locator(".join-panel input[name=player-name]").fill("")
    page.locator(".join-panel button[data-seat='1']").click()
    expect(page.locator(".match-page")).to_have_attribute("data-seat", "1")
    assert page.evaluate(me) == "Invité"
    seat = httpx.get(f"{base}/api/matches/{match_id}", timeout=20).json()["seats"][1]
    assert seat["player"]["name"] == "Invité"
