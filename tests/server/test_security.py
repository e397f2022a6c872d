"""Security headers on every response (a CSP the client can live with, nosniff, no referrer, no
framing), a policy of its own for the API docs page, display names without control or invisible
format characters, and a custom structure that used to answer 500."""

from __future__ import annotations

import base64
import hashlib
import logging
import re
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.server.app import MAX_BODY, STATIC

HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


def _directives(csp: str) -> dict[str, list[str]]:
    out = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def _check_headers(response: httpx.Response, host: str) -> dict[str, list[str]]:
    for name, value in HEADERS.items():
        assert response.headers.get(name) == value, (response.url, name)
    csp = _directives(response.headers["content-security-policy"])
    assert csp["frame-ancestors"] == ["'none'"]
    assert all("unsafe-eval" not in v for values in csp.values() for v in values)
    assert csp["default-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"]
    if "swagger" not in response.text.lower():
        assert csp["script-src"] == ["'self'"], "no inline script and no other origin for the client"
        assert csp["connect-src"] == ["'self'", f"ws://{host}", f"wss://{host}"]
    return csp


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),
        ("GET", "/match/0123456789abcdef", 200),
        ("GET", "/match/0123456789abcdef/replay", 200),
        ("GET", "/api/games", 200),
        ("GET", "/api/matches/0123456789abcdef", 404),
        ("GET", "/openapi.json", 200),
        ("GET", "/assets/none.js", 404),
        ("GET", "/nowhere", 404),
        ("POST", "/api/matches", 400),
    ],
)
def test_every_response_carries_the_security_headers(
    api: httpx.Client, server: object, method: str, path: str, status: int
) -> None:
    response = api.request(method, path, json={} if method == "POST" else None)
    assert response.status_code == status
    _check_headers(response, f"{support.HOST}:{server.port}")  # type: ignore[attr-defined]


def test_a_refused_oversize_body_and_a_built_asset_carry_them_too(api: httpx.Client, server: object) -> None:
    host = f"{support.HOST}:{server.port}"  # type: ignore[attr-defined]
    refused = api.post(
        "/api/matches", content=b"x" * (MAX_BODY + 1), headers={"content-type": "application/json"}
    )
    assert refused.status_code == 413
    _check_headers(refused, host)
    page = api.get("/")
    assets = re.findall(r'(?:src|href)="(/assets/[^"]+)"', page.text)
    assert assets, "the built client links its assets"
    for asset in assets:
        served = api.get(asset)
        _check_headers(served, host)
        assert served.headers["cache-control"] == "public, max-age=31536000, immutable"  # hashed names
    assert "no-cache" in page.headers["cache-control"]  # the page itself is asked for each time


def test_the_apis_answers_are_kept_by_no_cache(api: httpx.Client, server: Any) -> None:
    """They carry CSRF tokens, seat tokens, invite codes and a seat's records: no browser cache or
    shared proxy may keep them for the next user."""
    with support.browser(server) as browser:
        guest = browser.post("/api/guest", json={})
        me = browser.get("/api/me")
    assert guest.status_code == 200 and "csrf" in guest.json()
    match = support.create_match(api, "masker", {"players": 2}, ["human", "human"])
    joined = api.post(f"/api/matches/{match['id']}/join", json={"name": "Cy", "seat": 0})
    record = api.get(f"/api/matches/{match['id']}/record", params={"token": joined.json()["token"]})
    refused = api.get("/api/matches/0123456789abcdef")
    for response in (guest, me, joined, record, refused, api.get("/api/games")):
        assert response.headers["cache-control"] == "no-store", response.url
    assert "no-store" not in api.get("/").headers["cache-control"]  # the page and its assets are not private


def test_an_unexpected_fault_is_a_json_500_with_the_headers_counted_and_logged(
    api: httpx.Client, server: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    registry = server.app.state.registry

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a fault nobody expected, with secret-ish detail")

    before = registry.metrics.errors.labels(code="server_error")._value.get()
    monkeypatch.setattr(registry.storage, "listing", broken)
    with caplog.at_level(logging.ERROR, logger="masques.server"):
        response = api.get("/api/matches", headers={"x-request-id": "fault-1"})
    assert response.status_code == 500
    assert response.json()["code"] == "server_error"
    assert "secret-ish" not in response.text  # the cause stays in the log
    assert response.headers["x-request-id"] == "fault-1"
    assert response.headers["cache-control"] == "no-store"
    _check_headers(response, f"{support.HOST}:{server.port}")
    assert registry.metrics.errors.labels(code="server_error")._value.get() == before + 1
    assert any("secret-ish" in (r.exc_text or "") or r.exc_info for r in caplog.records)
    monkeypatch.undo()
    assert api.get("/api/matches").status_code == 200  # and the server goes on


def test_text_is_sent_compressed_to_a_client_that_accepts_it(api: httpx.Client) -> None:
    page = api.get("/")
    script = next(a for a in re.findall(r'src="(/assets/[^"]+\.js)"', page.text))
    for path in (script, "/openapi.json"):
        plain = api.get(path, headers={"accept-encoding": "identity"})
        packed = api.get(path, headers={"accept-encoding": "gzip"})
        assert "content-encoding" not in plain.headers
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.content == plain.content  # httpx unpacks it
        assert packed.num_bytes_downloaded < len(plain.content) / 2  # the bytes that crossed the wire


def test_the_built_page_has_no_inline_script_or_style_the_policy_would_block() -> None:
    index = (STATIC / "index.html").read_text("utf-8")
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", index, flags=re.DOTALL)
    assert scripts and all('src="/assets/' in attrs and not body.strip() for attrs, body in scripts)
    assert not re.search(r"\son[a-z]+=", index), "inline event handlers need 'unsafe-inline' scripts"
    for url in re.findall(r'(?:src|href)="([^"]+)"', index):
        assert url.startswith(("/assets/", "data:")), f"{url}: from another origin"


def test_the_docs_page_has_its_own_policy_with_the_hash_of_its_inline_script(
    api: httpx.Client, server: object
) -> None:
    response = api.get("/docs")
    assert response.status_code == 200
    csp = _check_headers(response, f"{support.HOST}:{server.port}")  # type: ignore[attr-defined]
    inline = re.findall(r"<script>(.*?)</script>", response.text, flags=re.DOTALL)
    assert len(inline) == 1
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp["script-src"]
    assert "'unsafe-inline'" not in csp["script-src"]
    assert "https://" not in csp["script-src"] + csp["style-src"] + csp["img-src"]
    linked = re.findall(r'(?:src|href)="([^"]+)"', response.text)
    assert len(linked) == 3  # the script, the style sheet and the icon: all the server's own
    for url in linked:
        assert url.startswith("/docs/assets/"), url
        served = api.get(url)
        assert served.status_code == 200 and len(served.content) > 1000, url
    assert api.get("/redoc").status_code == 404  # one docs page, the one with a policy


# -- display names --------------------------------------------------------------------------------

ACCEPTED = [
    "Zoë Ågren",
    "Łukasz Żółć",
    "李小龍",
    "さくら",
    "Дмитрий",
    "محمد",  # right-to-left by itself, with no override
    "नमस्ते",
    "می‌خواهم",  # Persian, with a zero-width non-joiner
    "👩‍💻 Ada",  # an emoji sequence with zero-width joiners
    "🇫🇷 Marie",
    "🏴󠁧󠁢󠁳󠁣󠁴󠁿 Iain",  # a subdivision flag (tag characters)
    "  spaced  out  ",
]
REFUSED = [
    ("\u202eevil", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("left\u202dright", "U+202D LEFT-TO-RIGHT OVERRIDE"),
    ("a\u2066b\u2069", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ("a\u2067b", "U+2067 RIGHT-TO-LEFT ISOLATE"),
    ("mark\u200f", "U+200F RIGHT-TO-LEFT MARK"),
    ("zero\u200bwidth", "U+200B ZERO WIDTH SPACE"),
    ("\ufeffbom", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ("hidden\U000e0041", "U+E0041 TAG LATIN CAPITAL LETTER A"),
    ("soft\u00adhyphen", "U+00AD SOFT HYPHEN"),
    ("new\nline", "U+000A"),
    ("tab\there", "U+0009"),
    ("nul\x00", "U+0000"),
    ("del\x7f", "U+007F"),
    ("c1\x85", "U+0085"),
    ("line\u2028sep", "U+2028 LINE SEPARATOR"),
    ("para\u2029sep", "U+2029 PARAGRAPH SEPARATOR"),
]


@pytest.mark.parametrize("name", ACCEPTED)
def test_display_names_in_any_script_with_emoji_are_accepted_and_kept(api: httpx.Client, name: str) -> None:
    match = support.create_match(api, "masker", {"players": 2}, ["human", "human"])
    support.join(api, match["id"], name, 1)
    assert support.summary(api, match["id"])["seats"][1]["name"] == name.strip()


@pytest.mark.parametrize(("name", "character"), REFUSED)
def test_display_names_with_control_or_format_characters_are_refused_naming_the_rule(
    api: httpx.Client, name: str, character: str
) -> None:
    match = support.create_match(api, "masker", {"players": 2}, ["human", "human"])
    response = api.post(f"/api/matches/{match['id']}/join", json={"name": name})
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["code"] == "bad_request"
    message = error["message"]
    assert "display names may not contain control characters, invisible format characters" in message
    assert (
        "bidi overrides and isolates" in message and "(Unicode categories Cc, Cf, Zl, Zp, Co, Cn)" in message
    )
    assert f"is {character}," in message
    assert not any(seat["taken"] for seat in support.summary(api, match["id"])["seats"])


def test_a_lone_surrogate_in_a_name_is_a_400_too(api: httpx.Client) -> None:
    match = support.create_match(api, "masker", {"players": 2}, ["human", "human"])
    response = api.post(
        f"/api/matches/{match['id']}/join",
        content=b'{"name": "a\\ud800b"}',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert set(response.json()) == {"code", "message"}


# -- the 500 that was -------------------------------------------------------------------------------


@pytest.mark.parametrize("row", ["1²", "²²", "٣٣"])
def test_b3_2_a_custom_structure_with_a_superscript_or_foreign_digit_is_a_400(
    api: httpx.Client, row: str
) -> None:
    response = api.post(
        "/api/matches",
        json={
            "game": "blokus3d",
            "options": {"structure": "custom", "custom_structure": {"heights": [row, "11"]}},
        },
    )
    assert response.status_code == 400, response.text
    assert response.json() == {
        "code": "bad_options",
        "message": f"blokus3d: option 'custom_structure' is invalid: row 1: {row[-1]!r} is not a digit 0-9",
    }
