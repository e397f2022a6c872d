"""What the server does to be a safe web page: security headers on every response, and display names
without invisible or text-reordering characters.

The Content-Security-Policy fits the built client (``web/``): its scripts and stylesheet come from
``/assets``, it builds its DOM, SVG and three.js canvas in script, sets inline styles and ``<style>``
elements from script (hence ``'unsafe-inline'`` for styles only), and talks to the same host over
fetch and WebSocket.  No ``'unsafe-eval'``, no inline script, no other origin, no framing.  The API
docs page (``/docs``: Swagger UI, its files served here) gets a policy of its own, which also names
the hash of its one inline script.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import unicodedata
from collections.abc import Collection, Iterator
from pathlib import Path

from confusable_homoglyphs import confusables
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from pydantic_core import PydanticCustomError
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

APP_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'{ws}; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The pages' policy; ``{ws}`` adds ``ws://`` and ``wss://`` of the request's own host for browsers
whose ``'self'`` does not cover WebSocket URLs (CSP 3 says it does)."""

DOCS_ASSETS = "/docs/assets"
"""Where the server serves Swagger UI's own files (from the fastapi-offline package): the docs page
needs nothing from another site, so it works offline."""
DOCS_CSP = (
    "default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


def docs_assets() -> Path:
    """The folder of Swagger UI's script, style sheet and icon."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).with_name("static")


HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}

_HOST = re.compile(
    r"(?:[A-Za-z0-9-]{1,63}\.)*[A-Za-z0-9-]{1,63}(?::\d{1,5})?"  # a name or IPv4 address
    r"|\[[0-9A-Fa-f:.]{2,45}\](?::\d{1,5})?"  # an IPv6 address
)
"""A Host header that can be written into a policy as it is (a name or address, and a port)."""


def app_csp(host: str | None) -> str:
    if host is not None and _HOST.fullmatch(host):
        return APP_CSP.format(ws=f" ws://{host} wss://{host}")
    return APP_CSP.format(ws="")


class SecurityHeaders:
    """Adds the security headers to every HTTP response (a pure ASGI middleware, so WebSockets and
    streamed responses pass untouched).  A response that sets its own Content-Security-Policy keeps it.

    The API's answers are ``Cache-Control: no-store`` unless they say otherwise: they carry a
    session's CSRF token, seat tokens, invite codes, a seat's records and analyses, which no
    browser cache or shared proxy may keep or hand to the next user."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), None)
        api = str(scope.get("path", "")).startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
                headers.setdefault("content-security-policy", app_csp(host))
                if api:
                    headers.setdefault("cache-control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_headers)


def docs_page(openapi_url: str, title: str) -> HTMLResponse:
    """FastAPI's Swagger UI page on the server's own copy of its files, with a policy that lets it run
    its inline script (by hash) and load nothing from elsewhere."""
    page = get_swagger_ui_html(
        openapi_url=openapi_url,
        title=title,
        swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        swagger_ui_parameters=None,
    )
    html = bytes(page.body).decode("utf-8")
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.DOTALL)
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(s.encode('utf-8')).digest()).decode()}'" for s in scripts
    )
    csp = DOCS_CSP.format(hashes=hashes)
    return HTMLResponse(html, headers={"content-security-policy": csp})


# -- display names ----------------------------------------------------------------------------------

REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible format character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Cs": "a lone surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
}
JOINERS = {"\u200c", "\u200d"}
"""Zero-width (non-)joiners are format characters that names need: emoji sequences (👩‍💻) and the
spelling of several scripts (Persian, Indic)."""
EMOJI_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
"""A flag of a subdivision (🏴 + tag letters + cancel tag); tag characters are refused elsewhere."""
NAME_RULE = (
    "display names may not contain control characters, invisible format characters such as bidi "
    "overrides and isolates, line and paragraph separators, private-use characters or unassigned "
    "code points (Unicode categories Cc, Cf, Zl, Zp, Co, Cn)"
)


def hidden_characters(text: str, refused: Collection[str]) -> Iterator[tuple[int, str, str]]:
    """(position from 1, character, category) of each character of a category in ``refused``, but
    for those that text written by people needs: zero-width joiners and the tags of flag emoji."""
    flags = {i for m in EMOJI_TAGS.finditer(text) for i in range(m.start(), m.end())}
    for position, char in enumerate(text, start=1):
        category = unicodedata.category(char)
        if category in refused and char not in JOINERS and position - 1 not in flags:
            yield position, char, category


BOT_LEVEL_WORDS = (  # the bot levels, as the client names them in English and in French
    *("random", "hasard", "greedy", "glouton", "easy", "facile"),
    *("medium", "moyen", "hard", "fort", "expert"),
)
RESERVED_NAMES = frozenset(
    {"admin", "administrator", "root", "system", "masques", "moderator", "support", "staff"}
    # a guest's name when none is typed (people.GUEST_NAMES), and its other forms
    | {"guest", "guests", "invite", "invitee", "invites", "invitees"}
    | {"bot", "robot", *BOT_LEVEL_WORDS}
    | {f"{level}{bot}" for level in BOT_LEVEL_WORDS for bot in ("bot", "robot")}
    | {f"{bot}{level}" for level in BOT_LEVEL_WORDS for bot in ("bot", "robot")}
)
"""Names, compared by their letters and digits alone, that would pass for the site's own staff or
for a bot as the client labels bots ("Expert bot", "robot fort")."""


def reserved_name(name: str) -> bool:
    """Whether ``name`` would read as a bot or as the site itself (a number after it too, in any
    script's digits or in characters that pass for digits: the client numbers a level's second
    bot, "Expert bot 2"), letters that look alike read as one: a Greek or Cyrillic "Е", a "0" for
    an "o", an accented letter for the plain one."""
    drawn = unicodedata.normalize("NFKC", name)
    letters = "".join(c for c in drawn if c.isalnum() and c not in BLANKS and not ignorable(c))
    looks = (skeleton(_without_number(letters)), _without_number(skeleton(letters)))
    return any(look in _RESERVED_SKELETONS for look in looks)


def _without_number(text: str) -> str:
    """``text`` without the digits (of any script) it ends with."""
    end = len(text)
    while end and text[end - 1].isdecimal():
        end -= 1
    return text[:end]


BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols drawn as blank space alone: the Hangul fillers, the Braille blank."""

_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
"""Unicode's default-ignorable code points (DerivedCoreProperties): drawn as nothing at all."""


def ignorable(char: str) -> bool:
    """Whether ``char`` is default-ignorable: a joiner, a variation selector, a filler, a tag."""
    point = ord(char)
    return any(low <= point <= high for low, high in _IGNORABLE)


def visible(text: str) -> bool:
    """Whether some character of ``text`` is drawn: not a space, a blank, an ignorable character
    nor a mark with no letter."""
    return any(
        not (c.isspace() or c in BLANKS or ignorable(c) or unicodedata.category(c).startswith("M"))
        for c in unicodedata.normalize("NFKC", text)
    )


def skeleton(text: str) -> str:
    """What ``text`` looks like: in its compatibility form (full-width and mathematical letters as
    the plain ones), characters drawn as nothing dropped and blanks as one space, each letter,
    digit or dash that passes for a Latin letter, an ASCII digit or a dash (by Unicode's
    confusables: a Cyrillic "З" for a 3, a hyphen for "-") written as that one, marks dropped, in
    lower case, and the Latin letters that pass for each other ("I" and "l", "rn" and "m", "vv"
    and "w") written alike.  Characters are also read so before their compatibility form, which
    can lose the look (a Greek lunate sigma, drawn as a "c", is a final sigma in that form).  Two
    names with one skeleton read as one name."""
    text = "".join(_latin_look_alike(c) for c in text)
    drawn = "".join(
        " " if c in BLANKS else c
        for c in unicodedata.normalize("NFKC", text)
        if c in BLANKS or not ignorable(c)
    )
    drawn = " ".join(drawn.split())
    plain = "".join(c for c in unicodedata.normalize("NFD", drawn) if not unicodedata.combining(c))
    latin = "".join(_latin_look_alike(c) for c in plain).casefold()
    return latin.replace("i", "l").replace("rn", "m").replace("vv", "w")


@functools.cache
def _latin_look_alike(char: str) -> str:
    """The ASCII letter ``char`` passes for; else, for a character that is not ASCII, the ASCII
    digit, dash or underline it passes for (those of usernames: an ASCII one stays itself, and
    the looks of usernames kept in storage stay what they were); else ``char``."""
    if char.isascii() and char.isalpha():
        return char
    glyphs = [
        str(glyph["c"])
        for glyph in confusables.confusables_data.get(char, ())
        if len(glyph["c"]) == 1 and glyph["c"].isascii()
    ]
    for glyph in glyphs:
        if glyph.isalpha():
            return glyph
    if not char.isascii():
        for glyph in glyphs:
            if glyph.isdigit() or glyph in "-_":
                return _latin_look_alike(glyph)
    return char


_RESERVED_SKELETONS = frozenset(skeleton(name) for name in RESERVED_NAMES)
"""The reserved names as they look: a name whose skeleton is one of them reads as it."""


def check_display_name(name: str) -> str:
    """The name unchanged, or a validation error that names the rule and the first character it
    breaks.  Such characters could reorder or hide what the lobby and the other players see; a name
    that reads as a bot's or the site's would mislead the players at the table."""
    if reserved_name(name):
        raise PydanticCustomError(
            "display_name", "{name} reads as a bot's or the site's name: choose another", {"name": repr(name)}
        )
    if not visible(name):
        raise PydanticCustomError("display_name", "a display name needs a character that shows", {})
    if MARKS.search(name):
        raise PydanticCustomError(
            "display_name",
            "a letter of a display name carries at most {n} accents or marks",
            {"n": MAX_MARKS},
        )
    for position, char, category in hidden_characters(name, REFUSED_CATEGORIES):
        what = " ".join(filter(None, (f"U+{ord(char):04X}", unicodedata.name(char, ""))))
        raise PydanticCustomError(
            "display_name",
            "{rule}: character {position} is {what}, {kind}",
            {"rule": NAME_RULE, "position": position, "what": what, "kind": REFUSED_CATEGORIES[category]},
        )
    return name


MAX_MARKS = 4
MARKS = re.compile(f"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]{{{MAX_MARKS + 1},}}")
"""More combining marks on one letter than any script writes: text that spills over its neighbours."""


def same_secret(given: str, expected: str) -> bool:
    """Whether a secret a client sent (a CSRF token, an invite code) is the expected one, in constant
    time; any text compares (``secrets.compare_digest`` refuses strings that are not ASCII)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8"))


LONE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of a UTF-16 surrogate: either half of a pair, or a lone one that is no character."""


def lone_surrogates(value: object) -> bool:
    """Whether a decoded JSON value holds text that is not Unicode (a lone surrogate escape, which
    Python decodes but which can be neither stored nor sent on as UTF-8).  Walked without
    recursion: a value nested as deep as the decoder allows is still looked at whole."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
    if isinstance(value, dict):
        return any(lone_surrogates(k) or lone_surrogates(v) for k, v in value.items())
    if isinstance(value, list):
        return any(lone_surrogates(v) for v in value)
    return False
