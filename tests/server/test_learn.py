"""Rules pages and guided first games: the routes, both languages, and the positions behind them.

Every figure and lesson position is played by the engine from its seed, each lesson step's moves to
find are legal and leave a wrong move to answer, and a position shows its seat nothing more than that
seat's own observation (MK-15, MC-3, MS-17: varying what the seat cannot see changes nothing sent).
"""

from __future__ import annotations

import json
import random
import re
from html import escape as html_escape
from typing import Any

import httpx
import pytest

from masques.engine import game_class, load_game
from masques.engine.teaching import LANGS, Lesson, Position
from masques.server import learn

GAMES = ("masker", "maske", "mascarade", "blokus3d")
FIGURE_MARK = re.compile(r"\]\(figures/([\w-]+)\.svg\)(<!-- position: ([\w-]+) -->)?")


def _positions(game: str) -> list[tuple[str, Position]]:
    lesson = learn.lesson_of(game)
    assert isinstance(lesson, Lesson)
    named = [(f"figure {name}", p) for name, p in learn.figures_of(game).items()]
    return named + [(f"step {i}", step.position) for i, step in enumerate(lesson.steps)]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", GAMES)
def test_a_rules_page_renders_with_its_figures_as_positions(api: httpx.Client, game: str, lang: str) -> None:
    response = api.get(f"/api/rules/{game}", params={"lang": lang})
    assert response.status_code == 200, response.text
    page = response.json()
    assert (page["game"], page["lang"]) == (game, lang)
    assert page["title"] and "<h1" in page["html"] and "<img" not in page["html"]
    placed = re.findall(r'<figure class="rules-figure" data-figure="([\w-]+)">', page["html"])
    assert placed and set(placed) == set(page["figures"])
    for name, view in page["figures"].items():
        position = learn.figures_of(game)[name]
        state = position.state()
        assert view["type"] == "state" and view["match"]["game"] == game
        assert view["seat"] == position.seat and view["legal"] == [] and not view["your_turn"]
        assert view["observation"] == json.loads(json.dumps(state.observation(position.seat)))
    # Every rule id tagged on the page has an anchor that error messages can link to.
    source = (learn.rules_dir() / (f"{game}.md" if lang == "en" else f"{game}.fr.md")).read_text("utf-8")
    tagged = {m for sup in re.findall(r"<sup>(.*?)</sup>", source, re.S) for m in learn.RULE_ID.findall(sup)}
    anchors = set(re.findall(r'id="((?:MK|MS|MC|B3)-\d+[a-z]?)"', page["html"]))
    assert tagged and tagged == anchors


def test_rules_pages_link_each_other_in_the_app_and_refuse_bad_requests(api: httpx.Client) -> None:
    page = api.get("/api/rules/masker", params={"lang": "en"}).json()
    assert 'href="/rules/masker?lang=fr"' in page["html"]
    assert 'href="/rules/playing-online?lang=en"' in page["html"]  # MK's resigning rules
    assert 'id="full-piles"' in page["html"] and 'href="#full-piles"' in page["html"]
    assert api.get("/api/rules/playing-online", params={"lang": "fr"}).status_code == 200
    missing = api.get("/api/rules/chess")
    assert missing.status_code == 404 and missing.json()["code"] == "no_game"
    assert api.get("/api/rules/masker", params={"lang": "de"}).status_code == 400
    assert api.get("/api/lessons/chess").status_code == 404
    assert api.get("/api/lessons/pips").status_code == 404  # a game without a lesson
    assert api.get("/api/lessons/masker", params={"lang": "xx"}).status_code == 400
    for path in ("/rules", "/rules/masker", "/learn/maske"):
        client_page = api.get(path)
        assert client_page.status_code in (200, 503) and "text/html" in client_page.headers["content-type"]


@pytest.mark.parametrize("game", GAMES)
def test_a_lesson_gives_each_step_its_position_moves_and_answers(api: httpx.Client, game: str) -> None:
    english = api.get(f"/api/lessons/{game}", params={"lang": "en"}).json()
    french = api.get(f"/api/lessons/{game}", params={"lang": "fr"}).json()
    assert 3 <= len(english["steps"]) <= 6 and len(french["steps"]) == len(english["steps"])
    assert english["title"] != french["title"] and english["intro"] and french["outro"]
    seats = english["play"]["seats"]
    assert seats[0] == "human" and set(seats[1:]) == {"easy"}
    assert len(seats) == load_game(game).num_players
    for index, (en, fr) in enumerate(zip(english["steps"], french["steps"], strict=True)):
        assert en["state"] == fr["state"] and en["right"] == fr["right"]
        for key in ("text", "wrong", "done"):
            assert en[key] and fr[key] and en[key] != fr[key]
        view = en["state"]
        assert view["your_turn"] and view["to_move"] == view["seat"]
        legal = {a["id"] for a in view["legal"]}
        right = set(en["right"])
        assert right and right <= legal and legal - right, "a right move to find and a wrong one to answer"
        first = en["right"][0]
        after = api.get(f"/api/lessons/{game}/{index}/after", params={"action": first}).json()
        assert after["right"] is True and after["state"]["version"] == view["version"] + 1
        assert after["state"]["legal"] == []
        wrong = min(legal - right)
        assert (
            api.get(f"/api/lessons/{game}/{index}/after", params={"action": wrong}).json()["right"] is False
        )
    steps = len(english["steps"])
    assert api.get(f"/api/lessons/{game}/{steps}/after", params={"action": 0}).status_code == 404


def test_an_illegal_move_has_no_position_after(api: httpx.Client) -> None:
    view = api.get("/api/lessons/masker").json()["steps"][0]["state"]
    legal = {a["id"] for a in view["legal"]}
    illegal = next(a for a in range(1000) if a not in legal)
    response = api.get("/api/lessons/masker/0/after", params={"action": illegal})
    assert response.status_code == 400 and response.json()["code"] == "illegal_action"


@pytest.mark.parametrize("game", GAMES)
def test_every_position_is_played_by_the_engine_and_legal(game: str) -> None:
    for label, position in _positions(game):
        state = position.state()  # an illegal move raises
        replay = load_game(game, dict(position.options)).new_initial_state(position.seed)
        for move in position.moves:
            action = replay.action_from_str(move)
            assert replay.is_legal(action), f"{game} {label}: {move} is illegal"
            replay.apply(action)
        assert replay.observation(position.seat) == state.observation(position.seat)
        assert not state.is_terminal()


@pytest.mark.parametrize("game", GAMES)
def test_a_position_shows_nothing_its_seat_cannot_see(game: str) -> None:
    """Vary each hidden part the seat cannot see (as the conformance kit does): the message sent for
    that seat is the same, byte for byte."""
    parts = game_class(game).hidden_information
    rng = random.Random(21)
    varied = 0
    for label, position in _positions(game):
        state = position.state()
        sent = json.dumps(learn.seat_view(position, state, interactive=True), sort_keys=True)
        for part in parts:
            for _ in range(3):
                variation = state.game.vary_hidden(state, part, rng)
                if variation is None or position.seat in variation.seen_by:
                    continue
                other = json.dumps(
                    learn.seat_view(position, variation.state, interactive=True), sort_keys=True
                )
                assert other == sent, f"{game} {label}: {part.field} leaks to seat {position.seat}"
                varied += 1
    assert varied or not parts, f"{game}: no hidden part was varied"


@pytest.mark.parametrize("game", GAMES)
def test_every_figure_of_the_docs_names_a_position_of_its_game(game: str) -> None:
    """The pages keep their SVG for readers of the repository and name the example position beside it."""
    for suffix in ("", ".fr"):
        text = (learn.rules_dir() / f"{game}{suffix}.md").read_text("utf-8")
        marks = FIGURE_MARK.findall(text)
        assert marks
        for svg, _, name in marks:
            assert name == svg, f"{game}{suffix}.md: figures/{svg}.svg has no position marker"
            assert name in learn.figures_of(game)


def test_the_figure_marker_becomes_a_placeholder_and_ids_get_anchors() -> None:
    one, two = (f"MK-{n}" for n in ("91", "92a"))  # made up, and built at run time: this file cites neither
    text = (
        f"Rule one.<sup>{one}</sup> Again <sup>{one}, {two}</sup>\n\n"
        "  ![A grid\n  here](figures/x.svg)<!-- position: x -->\n"
    )
    html = learn.render(text, set())
    assert (
        '<figure class="rules-figure" data-figure="x"><figcaption>A grid here</figcaption></figure>' in html
    )
    assert html.count(f'id="{one}"') == 1 and f'id="{two}"' in html and html.count(f'href="#{one}"') == 2


def test_a_figure_is_captioned_for_the_position_drawn_not_for_the_svg() -> None:
    """The image's alternative text describes the repository's SVG (three boards, numbered cards); the
    page draws one position, so it takes the game's caption of that position, in the page's language."""
    html = learn.render(
        "![Three boards](figures/x.svg)<!-- position: x -->\n", set(), {"x": {"fr": "Un plateau"}}, "fr"
    )
    assert "<figcaption>Un plateau</figcaption>" in html and "Three boards" not in html
    assert "<figcaption>Three boards</figcaption>" in learn.render(
        "![Three boards](figures/x.svg)<!-- position: x -->\n", set(), {"x": {"fr": "Un plateau"}}, "en"
    )
    for game in GAMES:
        for lang in LANGS:
            page = learn.rules_page(game, lang)["html"]
            for name, caption in learn.captions_of(game).items():
                assert f'data-figure="{name}"><figcaption>{html_escape(caption[lang])}</figcaption>' in page


def test_the_mascarade_sample_board_is_the_game_its_drawing_shows() -> None:
    """The page says its example holds twenty cards, the first on the start square (MC-4, MC-5): the
    position drawn in the app is the sample game of the SVG, card for card."""
    from masques.games.mascarade.figures import SAMPLE_SEED, sample_layout
    from masques.games.mascarade.game import PASS, SQUARES

    position = learn.figures_of("mascarade")["mascarade-layout"]
    assert position.seed == SAMPLE_SEED
    state = position.state()
    drawn = [(a // SQUARES, a % SQUARES) for a in state.history if a != PASS]
    placed = [(card, square) for card, square, _ in sample_layout()]
    assert len(placed) == 20 and [state.action_to_str(a) for a in state.history] == list(position.moves)
    assert sorted(drawn) == sorted(placed) and drawn == placed


def test_lesson_answers_follow_the_engine() -> None:
    """The moves to find are computed, not listed: each game's answer in its first position."""
    expected: dict[str, Any] = {
        "masker": ["f5"],  # MK-8: the white cross next to the runner
        "maske": ["lay 0"],  # MS-8, MS-13: the turn that puts a double ring over a stick
        "mascarade": ["21@e4", "21@d5", "21@f5", "21@e6"],  # MC-9: two shared features
    }
    for game, moves in expected.items():
        lesson = learn.lesson_of(game)
        assert lesson is not None
        state = lesson.steps[0].position.state()
        assert sorted(state.action_to_str(a) for a in lesson.steps[0].right(state)) == sorted(moves)
