"""The HTTP routes of players: guests, sign-up, log-in and out, passwords, "my matches", player pages;
and the request dependencies that tell who a request comes from (see ``accounts.py``)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Request, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection

from ..engine import EngineError, game_class
from . import accounts
from .accounts import COOKIE, CSRF_HEADER, SECURE_COOKIE, LoginGuard
from .errors import ServerError, no_body
from .limits import client_key
from .matches import BAD_SESSION, Player, Registry
from .ratings import Skill
from .schema import errors
from .security import check_display_name, same_secret
from .storage import PlayerRow, Storage, aware

GUEST_NAMES = {"en": "Guest", "fr": "Invité"}
"""A guest's name when none is typed, in the language of the page that made the guest (each one is
reserved: nobody can type it as their own name)."""


class GuestBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: Annotated[str, AfterValidator(check_display_name)] | None = Field(
        default=None, min_length=1, max_length=40
    )
    lang: Literal["en", "fr"] = "en"


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    username: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=accounts.MAX_PASSWORD)


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    old_password: str = Field(min_length=1, max_length=accounts.MAX_PASSWORD)
    new_password: str = Field(min_length=1, max_length=accounts.MAX_PASSWORD)


@dataclass(frozen=True)
class SignedIn:
    """A request's live session: the player, the session's key (hashed) and its CSRF token."""

    player: Player
    token_hash: str
    csrf: str


def _player(row: PlayerRow) -> Player:
    return Player(row.id, row.name, row.kind)


def me(signed: SignedIn | None) -> dict[str, Any]:
    if signed is None:
        return {"player": None, "csrf": None}
    p = signed.player
    return {
        "player": {
            "id": p.id,
            "name": p.name,
            "kind": p.kind,
            "username": p.name if p.kind == "account" else None,
        },
        "csrf": signed.csrf,
    }


def session_cookie(connection: HTTPConnection) -> str:
    """The name of the session cookie for this connection: over HTTPS, :data:`SECURE_COOKIE`."""
    return SECURE_COOKIE if connection.url.scheme in ("https", "wss") else COOKIE


async def signed_in(connection: HTTPConnection) -> SignedIn | None:
    """The request's session, or None without a cookie.  A cookie that names no live session (forged,
    expired, logged out, a disabled account) is refused: 401 ``bad_session``."""
    token = connection.cookies.get(session_cookie(connection))
    if not token:
        return None
    storage: Storage = connection.app.state.storage
    digest = accounts.token_hash(token)
    found = await asyncio.to_thread(
        storage.auth_session, digest, accounts.SESSION_IDLE_SECONDS, accounts.SESSION_TOUCH_SECONDS
    )
    if found is None:
        raise ServerError(401, "bad_session", BAD_SESSION)
    session, player = found
    return SignedIn(_player(player), digest, session.csrf)


PAGE_SCHEMES = frozenset({"http", "https"})
"""The schemes of this site's pages (behind a proxy that ends TLS, its pages are https while the
server sees http: the request's own scheme only forbids a plain page acting on a secure site)."""


def same_origin(connection: HTTPConnection) -> bool:
    """Whether the request's Origin (if it sends one) is a page of this server's own host."""
    origin = connection.headers.get("origin")
    if origin is None:
        return True
    host = connection.headers.get("host", "")
    try:
        parts = urlsplit(origin)
    except ValueError:  # not a URL at all ("http://[oops"): not ours
        return False
    if parts.scheme not in PAGE_SCHEMES:  # an extension's, a custom scheme's, "null"
        return False
    if connection.url.scheme in ("https", "wss") and parts.scheme != "https":
        return False  # a plain page of the same name may be anybody's on the way
    return parts.netloc.lower() == host.lower()


FOREIGN_PAGE = "a request from another site's page is refused"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def counted(request: Request, *kinds: str, catch_all: bool = True) -> str:
    """The client's key, once this request is counted against the catch-all limit (unless it was
    already) and ``kinds``.  It comes before the session is looked up, so a flood of bad cookies
    meets the limits like any other.  A change sent from another site's page is refused before
    it is counted: a page elsewhere must not use up the limits of the address its visitors share
    with it."""
    if request.method not in SAFE_METHODS and not same_origin(request):
        raise ServerError(403, "csrf", FOREIGN_PAGE)
    key = client_key(request.client.host if request.client else None)
    registry: Registry = request.app.state.registry
    for kind in ("api", *kinds) if catch_all else kinds:
        await registry.rates.check(kind, key)
    return key


async def refuse_account_look(request: Request, name: str) -> None:
    """Refuse a name chosen by someone who is not an account (a guest, a seat without a session)
    when it looks like an account's username: at the table and in the chat, the seats are told
    apart by their names alone, so nobody may pass for an account."""
    storage: Storage = request.app.state.storage
    if await asyncio.to_thread(storage.account_looks_like, accounts.username_look(name)):
        raise ServerError(
            409, "name_taken", f"{name!r} is an account's name (or looks like one): choose another"
        )


async def acting(request: Request) -> SignedIn | None:
    """The session of a request that changes something: its CSRF token checked, its origin ours."""
    if not same_origin(request):
        raise ServerError(403, "csrf", FOREIGN_PAGE)
    signed = await signed_in(request)
    if signed is not None:
        given = request.headers.get(CSRF_HEADER, "")
        if not given or not same_secret(given, signed.csrf):
            raise ServerError(
                403, "csrf", f"a request with a session cookie needs the session's {CSRF_HEADER} header"
            )
    return signed


async def acting_afresh(request: Request) -> SignedIn | None:
    """:func:`acting` for log-in, sign-up and guest, which give the browser a new session: a
    cookie whose session has ended (a new password elsewhere) counts as none, not as a refusal."""
    try:
        return await acting(request)
    except ServerError as exc:
        if exc.code != "bad_session":
            raise
        return None


PLAYER_ID = re.compile(r"[0-9a-z_-]{1,32}")
"""What a player id can look like (the server makes 16 hex digits): anything else is no player, and
never reaches the database (PostgreSQL refuses a NUL in text with an error)."""


async def optional_session(request: Request) -> SignedIn | None:
    """For reads: a stale cookie counts as none (the page still loads)."""
    try:
        return await signed_in(request)
    except ServerError:
        return None


def _drop_cookie(request: Request, response: Response) -> None:
    """Tell the browser to forget the session cookie, with the same attributes as it was set."""
    response.delete_cookie(
        session_cookie(request), path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )


def _set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        session_cookie(request),
        token,
        max_age=accounts.SESSION_IDLE_SECONDS,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


async def _open_session(request: Request, response: Response, player: PlayerRow) -> dict[str, Any]:
    return (await _start_session(request, response, player))[0]


async def _start_session(
    request: Request, response: Response, player: PlayerRow
) -> tuple[dict[str, Any], str]:
    """A new session for the player, its cookie set: the answer, and the session's token hash."""
    storage: Storage = request.app.state.storage
    token, csrf = accounts.new_session_token(), accounts.new_csrf()
    await asyncio.to_thread(storage.create_auth_session, accounts.token_hash(token), player.id, csrf)
    _set_cookie(request, response, token)
    return me(SignedIn(_player(player), accounts.token_hash(token), csrf)), accounts.token_hash(token)


def router(guard: LoginGuard) -> APIRouter:
    api = APIRouter()

    def storage_of(request: Request) -> Storage:
        storage: Storage = request.app.state.storage
        return storage

    def registry_of(request: Request) -> Registry:
        registry: Registry = request.app.state.registry
        return registry

    async def known_device(request: Request, player_id: str) -> bool:
        """Whether this browser has logged in to the player before (its device cookie for them)."""
        token = request.cookies.get(accounts.device_cookie(player_id))
        if not token or len(token) > 100:
            return False
        return await asyncio.to_thread(
            storage_of(request).known_device, accounts.token_hash(token), player_id, accounts.DEVICE_SECONDS
        )

    async def remember_device(request: Request, response: Response, player_id: str) -> None:
        """Give this browser a cookie that names it to the account (its hash is kept): guesses at
        the username from elsewhere will not lock it out.  One cookie per account, each made here
        (a cookie planted by a page elsewhere names no one), sent to the log-in only."""
        token = accounts.new_session_token()
        await asyncio.to_thread(
            storage_of(request).remember_device,
            accounts.token_hash(token),
            player_id,
            accounts.DEVICE_SECONDS,
            accounts.DEVICES_KEPT,
        )
        response.set_cookie(
            accounts.device_cookie(player_id),
            token,
            max_age=accounts.DEVICE_SECONDS,
            path="/api/login",  # read by nothing else
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    limit = counted

    @api.get("/api/me")
    async def who_am_i(request: Request, response: Response) -> dict[str, Any]:
        """The signed-in player (null when none) and the CSRF token to send with changes."""
        await limit(request)
        try:
            signed = await signed_in(request)
        except ServerError:
            _drop_cookie(request, response)
            return me(None)
        if signed is not None:  # the page asks at each load: the cookie lives 30 days from the last use
            _set_cookie(request, response, request.cookies[session_cookie(request)])
        return me(signed)

    @api.post("/api/guest", responses=errors(400, 403, 409, 413))
    async def guest(body: GuestBody, request: Request, response: Response) -> dict[str, Any]:
        """Play without an account: a guest identity kept by a cookie (it may become an account),
        named ``name``, else the word for a guest in the page's ``lang``."""
        await limit(request)
        signed = await acting_afresh(request)
        name = body.name.strip() if body.name and body.name.strip() else None
        if signed is not None:  # a rename, counted as any other write
            if name and signed.player.kind == "guest":
                await refuse_account_look(request, name)
                await asyncio.to_thread(storage_of(request).rename_guest, signed.player.id, name)
                return me(SignedIn(Player(signed.player.id, name, "guest"), signed.token_hash, signed.csrf))
            return me(signed)
        await limit(request, "signup", catch_all=False)
        if name:
            await refuse_account_look(request, name)
        name = name or GUEST_NAMES[body.lang]
        player_id = accounts.new_player_id()
        row = await asyncio.to_thread(storage_of(request).create_player, player_id, "guest", name)
        return await _open_session(request, response, row)

    @api.post("/api/signup", status_code=201, responses=errors(400, 403, 409, 413))
    async def signup(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        """A new account; a guest who signs up keeps their matches."""
        await limit(request, "signup")
        signed = await acting_afresh(request)
        username = accounts.check_username(body.username)
        await asyncio.to_thread(accounts.check_password, body.password, username)  # off the event loop
        storage = storage_of(request)
        key, look = accounts.username_key(username), accounts.username_look(username)
        if await asyncio.to_thread(storage.player_by_username, key) is not None:
            raise ServerError(409, "username_taken", f"the username {username!r} is taken")
        twin = await asyncio.to_thread(storage.player_by_look, look)
        if twin is not None:
            raise ServerError(
                409, "username_taken", f"the username {username!r} looks like {twin.name!r}, which is taken"
            )
        digest = await accounts.hash_password(body.password)
        try:
            if signed is not None and signed.player.kind == "guest":
                moved = await asyncio.to_thread(
                    storage.make_account, signed.player.id, username, key, look, digest
                )
                await asyncio.to_thread(storage.end_auth_sessions, signed.player.id)
                await registry_of(request).signed_out(signed.player.id)
                await registry_of(request).reload_seats(moved)
                row = await asyncio.to_thread(storage.player, signed.player.id)
            else:
                row = await asyncio.to_thread(
                    storage.create_player,
                    accounts.new_player_id(),
                    "account",
                    username,
                    username_key=key,
                    username_look=look,
                    password_hash=digest,
                )
                if signed is not None:  # an account signing up another: this browser leaves the first
                    await asyncio.to_thread(
                        storage.end_auth_sessions, signed.player.id, only=signed.token_hash
                    )
                    await registry_of(request).signed_out(signed.player.id, only=signed.token_hash)
        except IntegrityError:
            raise ServerError(409, "username_taken", f"the username {username!r} is taken") from None
        except LookupError:  # the same guest signed up by another request a moment ago
            raise ServerError(
                409, "already_account", "this guest has just become an account: log in"
            ) from None
        assert row is not None
        await remember_device(request, response, row.id)
        return await _open_session(request, response, row)

    @api.post("/api/login", responses=errors(400, 401, 403, 413))
    async def login(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        """Log in; a guest's seats move to the account."""
        address = await limit(request, "login")
        signed = await acting_afresh(request)
        key = accounts.username_key(body.username)
        storage = storage_of(request)
        row = await asyncio.to_thread(storage.player_by_username, key)
        known = row is not None and await known_device(request, row.id)
        keys = accounts.attempt_keys(key, address, known_device=known)
        await guard.attempt(*keys)
        # An unknown username costs the same hash as a known one: no timing tells them apart.
        right = await accounts.verify_password(None if row is None else row.password_hash, body.password)
        if row is None or not right:
            raise ServerError(401, "bad_credentials", "wrong username or password")
        await guard.succeeded(*keys)
        if row.disabled:
            raise ServerError(403, "account_disabled", "this account is disabled")
        verified = row.password_hash
        if verified is not None and (
            accounts.needs_rehash(verified) or accounts.was_normalised(body.password)
        ):
            rehashed = await accounts.hash_password(body.password)
            # only if the password is still the one just checked (not changed meanwhile)
            if await asyncio.to_thread(storage.rehash_password, row.id, verified, rehashed):
                verified = rehashed
        if signed is not None:
            if signed.player.kind == "guest" and signed.player.id != row.id:
                # One transaction ends the guest's session and moves its seats: a seat the guest
                # claims meanwhile is moved or refused, and a move that fails keeps the session.
                moved = await asyncio.to_thread(
                    storage.move_seats, signed.player.id, row.id, row.name, end_session=signed.token_hash
                )
                await registry_of(request).reload_seats(moved)
            else:
                await asyncio.to_thread(storage.end_auth_sessions, signed.player.id, only=signed.token_hash)
            await registry_of(request).signed_out(signed.player.id, only=signed.token_hash)
        if not known:
            await remember_device(request, response, row.id)
        answer, opened = await _start_session(request, response, row)
        # A new password (or the operator disabling the account) while this log-in was checked
        # ends the sessions it finds; one opened after that would live on: look again.
        now = await asyncio.to_thread(storage.player, row.id)
        changed = now is None or now.disabled or now.password_hash != verified
        if changed and now is not None and not now.disabled:  # perhaps another log-in's rehash of it
            changed = not await accounts.verify_password(now.password_hash, body.password)
        if changed:
            await asyncio.to_thread(storage.end_auth_sessions, row.id, only=opened)
            raise ServerError(401, "bad_credentials", "the password changed while logging in: log in again")
        return answer

    @api.post(
        "/api/logout", status_code=204, responses=errors(400, 403, 413), dependencies=[Depends(no_body)]
    )
    async def logout(request: Request, response: Response) -> None:
        """End this browser's session; a session that had ended already still logs out (its cookie
        goes), so a shared computer is never left holding one."""
        await limit(request)
        try:
            signed = await acting(request)
        except ServerError as exc:
            if exc.code != "bad_session":
                raise
            signed = None
        if signed is not None:
            storage = storage_of(request)
            await asyncio.to_thread(storage.end_auth_sessions, signed.player.id, only=signed.token_hash)
            await registry_of(request).signed_out(signed.player.id, only=signed.token_hash)
        _drop_cookie(request, response)

    @api.post("/api/password", responses=errors(400, 401, 403, 413))
    async def change_password(body: PasswordChange, request: Request, response: Response) -> dict[str, Any]:
        """A new password.  Every session of the account ends, this browser's too, which gets a new
        one (a new cookie and CSRF token, in the answer): a copy of its cookie taken before, the
        usual reason to change a password, is worth nothing.  The seat tokens handed out end."""
        address = await limit(request, "login")
        signed = await acting(request)
        if signed is None:
            raise ServerError(401, "no_session", "log in first")
        if signed.player.kind != "account":
            raise ServerError(403, "not_an_account", "a guest has no password: sign up to choose one")
        storage = storage_of(request)
        # A signed-in browser is the account's own: only its address's guesses hold it up.
        keys = accounts.attempt_keys(accounts.username_key(signed.player.name), address, known_device=True)
        await guard.attempt(*keys)
        row = await asyncio.to_thread(storage.player, signed.player.id)
        if row is None or not await accounts.verify_password(row.password_hash, body.old_password):
            raise ServerError(401, "bad_credentials", "the current password is wrong")
        await guard.succeeded(*keys)
        await asyncio.to_thread(accounts.check_password, body.new_password, signed.player.name)
        digest = await accounts.hash_password(body.new_password)
        # One transaction: the sessions, the seat tokens handed out (whoever copied one plays no
        # more; this browser's new session, or a new log-in, still finds the seats) and the known
        # browsers end with the old password; and only if nobody changed it meanwhile (one of two
        # changes at once wins: the other's session has ended with it).
        matches = await asyncio.to_thread(storage.set_password, row.id, digest, was=row.password_hash)
        if matches is None:
            raise ServerError(
                409, "password_changed", "the password was changed meanwhile: log in with the new one"
            )
        await registry_of(request).reload_seats(matches)
        # This browser's connections end too, and its pages connect again with the new cookie.
        await registry_of(request).signed_out(row.id, seat_tokens=True)
        await remember_device(request, response, row.id)
        return await _open_session(request, response, row)

    @api.get("/api/me/matches", responses=errors(401))
    async def my_matches(request: Request) -> list[dict[str, Any]]:
        """The open and running matches the player holds a seat in, those waiting for them first."""
        await limit(request, "read")
        signed = await signed_in(request)
        if signed is None:
            return []
        return await registry_of(request).player_matches(signed.player)

    @api.get("/api/me/waiting", responses=errors(401))
    async def waiting(request: Request) -> dict[str, Any]:
        """How many running matches wait for the signed-in player's move, and which (poll it)."""
        await limit(request)
        signed = await signed_in(request)
        if signed is None:
            raise ServerError(401, "not_signed_in", "sign in to see the matches that wait for you")
        ids = await asyncio.to_thread(storage_of(request).waiting, signed.player.id)
        return {"count": len(ids), "matches": ids}

    @api.get("/api/players/{player_id}", responses=errors(404))
    async def player_page(player_id: str, request: Request) -> dict[str, Any]:
        """A player's finished matches (private ones only to the player), most recent first."""
        await limit(request, "read")
        storage = storage_of(request)
        row = await asyncio.to_thread(storage.player, player_id) if PLAYER_ID.fullmatch(player_id) else None
        if row is None:
            raise ServerError(404, "no_player", "no such player")
        viewer = await optional_session(request)
        own = viewer is not None and viewer.player.id == row.id
        history = await asyncio.to_thread(storage.history, row.id)
        matches = []
        for match, seats in history:
            if match.private and not own:
                continue
            mine = next(s for s in seats if s.player_id == row.id)
            try:
                title = game_class(match.game).title
            except EngineError:
                title = match.game
            matches.append(
                {
                    "id": match.id,
                    "game": match.game,
                    "title": title,
                    "options": match.options,
                    "created": aware(match.created).isoformat(),
                    "finished": None if match.finished is None else aware(match.finished).isoformat(),
                    "seat": mine.seat,
                    "opponents": [
                        {"seat": s.seat, "name": s.name, "kind": s.kind, "player": s.player_id}
                        for s in seats
                        if s.seat != mine.seat
                    ],
                    "result": result_for(match.end, mine.seat, len(seats)),
                    "end": match.end,
                }
            )
        ratings = await asyncio.to_thread(storage.player_ratings, row.id)
        return {
            "id": row.id,
            "name": row.name,
            "kind": row.kind,
            "created": aware(row.created).isoformat(),
            "matches": matches,
            "ratings": [
                {"game": r.game, "family": r.family, **Skill(r.mu, r.sigma, r.games).to_json()}
                for r in ratings
            ],
        }

    return api


def result_for(end: dict[str, Any] | None, seat: int, seats: int) -> str | None:
    """won, lost, draw (every seat won, or none did in a played end) or aborted; None if unknown."""
    if end is None:
        return None
    if end.get("reason") == "aborted":
        return "aborted"
    winners = list(end.get("winners", []))
    if len(winners) in (0, seats):
        return "draw"
    return "won" if seat in winners else "lost"
