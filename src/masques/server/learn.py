"""The HTTP routes of learning: each game's rules page and its guided first game.

``GET /api/rules/{page}?lang=`` renders ``docs/rules/<page>.md`` (or ``.fr.md``) to HTML on the
server.  An image of the page followed by a marker ``<!-- position: NAME -->`` becomes a
``<figure data-figure="NAME">`` that the client draws with the game's own board view: the answer
carries NAME's example position (from the game's ``lessons`` module) as a ``state`` message, the
same shape a seat receives in a match.  Every rule id tagged ``<sup>MK-5</sup>`` gets an anchor
(``#MK-5``), so that error messages can link to the rule they cite.

``GET /api/lessons/{game}?lang=`` is the game's guided first game: a few positions, each with its
legal moves, the moves to find, and what a wrong move is told; ``GET
/api/lessons/{game}/{step}/after?action=`` is the position after a move of that step.  Every
position is played by the engine from a seed, and shown as one seat's observation only.
"""

from __future__ import annotations

import asyncio
import functools
import html
import importlib
import re
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from markdown_it import MarkdownIt

from ..engine import State, game_class, game_names, load_game
from ..engine.teaching import Lesson, Position
from .errors import ServerError
from .limits import client_key
from .matches import Registry, state_view
from .schema import errors

RULES = Path(__file__).resolve().parents[3] / "docs" / "rules"
"""The rules pages in a checkout (docs/rules/)."""
PACKAGED_RULES = Path(__file__).resolve().parent / "rules"
"""Their copy in an installed package (the build backend puts it there)."""
EXTRA_PAGES = ("playing-online",)
"""Rules pages that are not a game's."""
LangQuery = Annotated[str, Query(pattern="^(en|fr)$", description="en or fr")]
FIGURE = re.compile(
    r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\)[ \t]*<!--\s*position:\s*(?P<name>[\w-]+)\s*-->", re.DOTALL
)
RULE_ID = re.compile(r"\b(?:MK|MS|MC|B3)-\d+[a-z]?\b")
SUP = re.compile(r"<sup>(.*?)</sup>", re.DOTALL)
LESSON_SEATS_KIND = "easy"
"""The bot level the lesson's other seats show, and the one the page offers to play next."""


def rules_dir() -> Path:
    """The checkout's pages when there is one (they are the source), else the package's copy."""
    return RULES if RULES.is_dir() else PACKAGED_RULES


def lessons_module(game: str) -> ModuleType | None:
    """The game's ``lessons`` module (next to its game module), or None if it has none."""
    package = game_class(game).__module__.rpartition(".")[0]
    if not package:
        return None
    try:
        return importlib.import_module(f"{package}.lessons")
    except ModuleNotFoundError:
        return None


def figures_of(game: str) -> dict[str, Position]:
    module = lessons_module(game) if game in game_names() else None
    return dict(getattr(module, "FIGURES", {})) if module else {}


def captions_of(game: str) -> dict[str, Mapping[str, str]]:
    """Captions that replace a figure's alternative text (which describes the drawing on GitHub)."""
    module = lessons_module(game) if game in game_names() else None
    return dict(getattr(module, "CAPTIONS", {})) if module else {}


def lesson_of(game: str) -> Lesson | None:
    module = lessons_module(game)
    lesson = getattr(module, "LESSON", None) if module else None
    return lesson if isinstance(lesson, Lesson) else None


def actors_of(position: Position) -> list[int]:
    """Who made each move of the position (the seat to move before it)."""
    state = load_game(position.game, dict(position.options)).new_initial_state(position.seed)
    actors = []
    for move in position.moves:
        actors.append(state.current_player)
        state.apply(state.action_from_str(move))
    return actors


def summary_of(position: Position, state: State) -> dict[str, Any]:
    """A match summary for a position shown outside any match: the lesson's seat is "human", the others
    are bots, nobody is connected and no clock runs."""
    game = state.game
    return {
        "id": "",
        "game": game.name,
        "title": type(game).title,
        "options": game.options,
        "status": "finished" if state.is_terminal() else "running",
        "version": len(state.history),
        "rematch_of": None,
        "turn_seconds": 0,
        "turn_deadline": None,
        "seats": [
            {
                "seat": i,
                "kind": "human" if i == position.seat else LESSON_SEATS_KIND,
                "name": None,
                "taken": True,
                "connected": True,
            }
            for i in range(game.num_players)
        ],
        "spectators": 0,
    }


def seat_view(position: Position, state: State, *, interactive: bool) -> dict[str, Any]:
    """The ``state`` message the position's seat would receive: its own observation only, with its
    legal moves when ``interactive`` and it is that seat's turn."""
    your_turn = interactive and not state.is_terminal() and state.current_player == position.seat
    return state_view(
        state, position.seat, summary_of(position, state), actors_of(position), your_turn=your_turn
    )


def _slug(text: str) -> str:
    """A heading's anchor, as GitHub makes it (so the pages' own #links work)."""
    text = re.sub(r"<[^>]+>", "", html.unescape(text)).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _figure_block(match: re.Match[str], captions: Mapping[str, Mapping[str, str]], lang: str) -> str:
    """A figure's placeholder, captioned for the position drawn in it: the image's alternative text
    describes the SVG the repository shows, which may hold more (a numbered layout, three boards)."""
    name = match.group("name")
    caption = captions.get(name, {}).get(lang) or " ".join(match.group("alt").split())
    return (
        f'<figure class="rules-figure" data-figure="{html.escape(name)}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>\n"
    )


def _link(match: re.Match[str], pages: set[str]) -> str:
    """A link to another rules page stays in the app; other local links are dropped to plain text."""
    target, label = match.group(1), match.group(2)
    page = re.fullmatch(r"(?P<page>[\w-]+?)(?P<fr>\.fr)?\.md(?P<hash>#[\w-]+)?", target)
    if page and page.group("page") in pages:
        lang = "fr" if page.group("fr") else "en"
        href = f"/rules/{page.group('page')}?lang={lang}{page.group('hash') or ''}"
        return f'<a href="{html.escape(href)}" data-rules-link="true">{label}</a>'
    if target.startswith("#") or re.match(r"^https?://", target):
        return match.group(0)
    return label


def render(
    text: str, pages: set[str], captions: Mapping[str, Mapping[str, str]] | None = None, lang: str = "en"
) -> str:
    """The page's HTML: figures as placeholders, anchors on headings and rule ids, in-app links."""
    text = FIGURE.sub(lambda match: _figure_block(match, captions or {}, lang), text)
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    out = md.render(text)
    out = re.sub(
        r"<h([1-6])>(.*?)</h\1>",
        lambda m: f'<h{m.group(1)} id="{_slug(m.group(2))}">{m.group(2)}</h{m.group(1)}>',
        out,
    )
    seen: set[str] = set()

    def anchor(rule: re.Match[str]) -> str:
        rid = rule.group(0)
        first = rid not in seen
        seen.add(rid)
        id_attr = f' id="{rid}"' if first else ""
        return f'<a class="rule-id"{id_attr} href="#{rid}">{rid}</a>'

    out = SUP.sub(lambda m: "<sup>" + RULE_ID.sub(anchor, m.group(1)) + "</sup>", out)
    out = re.sub(r'<a href="([^"]*)">(.*?)</a>', lambda m: _link(m, pages), out)
    out = re.sub(r"<img [^>]*>", "", out)  # an image without a position: nothing to draw it with
    return out


def pages() -> list[str]:
    return [*game_names(), *EXTRA_PAGES]


@functools.lru_cache(maxsize=32)
def rules_page(page: str, lang: str) -> dict[str, Any]:
    path = rules_dir() / (f"{page}.md" if lang == "en" else f"{page}.{lang}.md")
    if not path.is_file():
        raise ServerError(404, "no_rules", f"no rules page for {page!r}")
    text = path.read_text("utf-8")
    title = text.splitlines()[0].lstrip("# ").strip() if text else page
    body = render(text, set(pages()), captions_of(page), lang)
    figures = figures_of(page)
    used = re.findall(r'data-figure="([\w-]+)"', body)
    drawn = {}
    for name in used:
        if name not in figures:
            raise ServerError(
                500, "no_figure", f"the {page} page names a position {name!r} that no lesson defines"
            )
        drawn[name] = seat_view(figures[name], figures[name].state(), interactive=False)
    return {"game": page, "lang": lang, "title": title, "html": body, "figures": drawn}


@functools.lru_cache(maxsize=16)
def lesson_page(game: str, lang: str) -> dict[str, Any]:
    lesson = lesson_of(game)
    if lesson is None:
        raise ServerError(404, "no_lesson", f"no lesson for {game!r}")
    steps = []
    for step in lesson.steps:
        state = step.position.state()
        steps.append(
            {
                "text": step.text[lang],
                "wrong": step.wrong[lang],
                "done": step.done[lang],
                "state": seat_view(step.position, state, interactive=True),
                "right": step.right(state),
            }
        )
    players = game_class(game)().num_players
    return {
        "game": game,
        "lang": lang,
        "title": lesson.title[lang],
        "intro": lesson.intro[lang],
        "outro": lesson.outro[lang],
        "steps": steps,
        "play": {"options": {}, "seats": ["human", *[LESSON_SEATS_KIND] * (players - 1)]},
    }


def after_move(game: str, index: int, action: int) -> dict[str, Any]:
    lesson = lesson_of(game)
    if lesson is None:
        raise ServerError(404, "no_lesson", f"no lesson for {game!r}")
    if not 0 <= index < len(lesson.steps):
        raise ServerError(404, "no_step", f"the {game} lesson has steps 0 to {len(lesson.steps) - 1}")
    step = lesson.steps[index]
    state = step.position.state()
    if not state.is_legal(action):
        raise ServerError(400, "illegal_action", "that move is not legal in this position")
    right = action in step.right(state)
    moved = step.position.then(state.action_to_str(action))
    state.apply(action)
    return {
        "game": game,
        "step": index,
        "action": action,
        "right": right,
        "state": seat_view(moved, state, interactive=False),
    }


def router() -> APIRouter:
    api = APIRouter()

    async def limit(request: Request) -> None:
        registry: Registry = request.app.state.registry
        key = client_key(request.client.host if request.client else None)
        for kind in ("api", "read"):
            await registry.rates.check(kind, key)

    def check_game(game: str, *, extra: bool = False) -> None:
        known = pages() if extra else game_names()
        if game not in known:
            raise ServerError(404, "no_game", f"unknown game {game!r}; games are: {', '.join(game_names())}")

    @api.get("/api/rules/{game}", responses=errors(400, 404))
    async def rules(request: Request, game: str, lang: LangQuery = "en") -> dict[str, Any]:
        """A game's rules page as HTML, with each figure's example position as a seat's ``state``
        message (the client draws it with the game's board view); ``playing-online`` is the page
        shared by every game."""
        await limit(request)
        check_game(game, extra=True)
        return await asyncio.to_thread(rules_page, game, lang)

    @api.get("/api/lessons/{game}", responses=errors(400, 404))
    async def lesson(request: Request, game: str, lang: LangQuery = "en") -> dict[str, Any]:
        """A game's guided first game: each step's explanation, position (a seat's ``state``
        message with its legal moves), the moves to find (``right``), and the texts for a wrong and a
        right move; ``play`` is the casual match against the easy bot to offer at the end."""
        await limit(request)
        check_game(game)
        return await asyncio.to_thread(lesson_page, game, lang)

    @api.get("/api/lessons/{game}/{step}/after", responses=errors(400, 404))
    async def lesson_after(
        request: Request, game: str, step: int, action: Annotated[int, Query(ge=0, le=1_000_000)]
    ) -> dict[str, Any]:
        """The position after a legal move of a lesson step, seen by the lesson's seat, and whether it
        was a move to find."""
        await limit(request)
        check_game(game)
        return await asyncio.to_thread(after_move, game, step, action)

    return api
