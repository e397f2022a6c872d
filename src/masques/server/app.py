"""The HTTP and WebSocket API (FastAPI).  OpenAPI schema at /openapi.json, docs at /docs.

REST (JSON): ``GET /api/games``; ``POST /api/matches``; ``GET /api/matches``; ``GET /api/matches/{id}``;
``POST /api/matches/{id}/join``, ``/leave``, ``/rematch``; ``GET /api/matches/{id}/record``;
``GET /api/matches/{id}/replay``.  The browser client (built from ``web/`` into ``static/``) is served
at ``/`` and on its own routes (``/match/{id}``, ``/match/{id}/replay``, ``/player/{id}``, ``/me``).
WebSocket: ``/ws/matches/{id}``.  A client first sends ``{"type": "hello", "token": <seat token>}``
(no token: spectator), so that the token stays out of URLs and logs; the server sends nothing before
it.  ``?token=...`` in the URL still works (then no hello).  The server sends ``state`` messages (the
connection's own view) and ``presence``/``error`` messages; a client sends
``{"type": "action", "action": <id>, "version": <n>}``.  The REST routes that read a seat's view take
its token in the ``X-Seat-Token`` header (or ``?token=``).  Every refusal is a clear error with a
stable code, and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..engine import (
    EngineError,
    GameRecord,
    RecordError,
    game_catalogue,
    game_class,
    game_names,
    redacted_record,
)
from ..extras import require
from . import boards, heap, learn, people
from .accounts import LoginGuard, SharedLoginGuard
from .analysis import Analyses
from .analysis import hint as give_hint
from .errors import DATABASE_AWAY, REFUSED_OR_AWAY, ServerError, Unhandled, no_body, unavailable
from .limits import Limits, client_key, use_client_secret
from .logs import RequestLog
from .matches import BOT_QUEUES, HUMAN, Client, LiveMatch, Player, Registry
from .metrics import CONTENT_TYPE as METRICS_TYPE
from .protocol import WRITE_NOW
from .schema import documented_openapi, errors
from .security import (
    DOCS_ASSETS,
    LONE_SURROGATE,
    SecurityHeaders,
    check_display_name,
    docs_assets,
    docs_page,
    lone_surrogates,
)
from .storage import FileOwner, Storage, hash_token

MAX_BODY = 64 * 1024
PAGE_METHODS = ["GET", "HEAD"]
"""The pages and the health checks answer HEAD too: uptime monitors and link checkers send it."""
READY_TIMEOUT = 2.0
"""Seconds the database and Redis get to answer a readiness check."""
MAX_MESSAGE = 4 * 1024
TURN_SECONDS_MAX = 3600
"""The longest per-turn clock, in seconds (a person's turn; then a bot moves for them)."""
FLOOD_CLOSE = 50
"""Refused messages in a row after which a WebSocket is closed (code 1008)."""
FLOODED = {
    "type": "error",
    "code": "flooded",
    "message": f"over {FLOOD_CLOSE} messages in a row were refused as too many: this connection is closed",
}
FLUSH_SECONDS = 2.0
"""How long a connection closed for a flood has to take the messages queued before the close."""
HELLO_TIMEOUT = 3.0
"""Seconds the server waits for a connection's hello before it takes it for a spectator's."""
STATIC = Path(__file__).with_name("static")
"""The built browser client (``scripts/build_web.sh``); shipped in the package, ignored by git."""
NO_OPEN_TELEMETRY: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters
    else {}
)
"""FastAPI's own OpenTelemetry, off: the server has its Prometheus metrics and JSON logs, and
FastAPI releases that have it look up the global providers on every request to see whether any
was set."""


class SeatSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    kind: str = Field(
        description="'human', or a bot: random, greedy, easy, medium, hard, expert, openspiel "
        "(OpenSpiel's search, with the extra masques[openspiel])"
    )


class CreateMatch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    game: str
    options: dict[str, Any] = Field(default_factory=dict)
    seats: list[SeatSpec] | None = Field(default=None, description="one per seat; default: all human")
    seed: int | None = Field(
        default=None,
        ge=0,
        lt=2**256,
        description="practice only: allowed when at most one seat is a person (default: a secret deal)",
    )
    turn_seconds: int = Field(
        default=0, ge=0, le=TURN_SECONDS_MAX, description="per-turn clock for humans; 0 = none"
    )
    private: bool = Field(
        default=False, description="not listed in the lobby; joined by its invite link only"
    )
    rated: bool = Field(
        default=False, description="rated: only accounts (and bots) play it; needs an account to create"
    )
    clock: dict[str, Any] | None = Field(
        default=None,
        description='{"kind": "fischer", "base": 60..10800, "increment": 0..180} (seconds), '
        '{"kind": "correspondence", "days": 1|3|7}, or {"kind": "turn", "seconds": n} (as turn_seconds)',
    )
    at_zero: Literal["lose", "bot"] | None = Field(
        default=None,
        description="when a person's time runs out: the seat loses, or a bot plays it on "
        "(default: lose when rated, bot when casual)",
    )


class JoinMatch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: Annotated[str, AfterValidator(check_display_name)] | None = Field(
        default=None, min_length=1, max_length=40, description="required without a session"
    )
    seat: int | None = Field(default=None, ge=0, lt=16)
    invite: str | None = Field(default=None, max_length=64, description="a private match's invite code")


class RematchAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    accept: bool = True


class TokenBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    token: str | None = Field(default=None, min_length=1, max_length=200, description="without a session")


class HashedFiles(StaticFiles):
    """The built client's assets: their names carry a hash of their content, so a browser may keep
    each one for a year without asking again (a new build has new names)."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["cache-control"] = "public, max-age=31536000, immutable"
        return response

    async def check_config(self) -> None:
        """A copy whose client is not built has no assets: each is not found (404), as ``/``
        says the client is not built, rather than a server error."""
        if self.directory is not None and not Path(self.directory).is_dir():
            return
        await super().check_config()


class HeadAsGet:
    """Answer HEAD on the API's GET routes as GET would, headers alone: monitors and link checkers
    send HEAD, and a resource that can be read can be asked about.  (The pages and the health
    checks are routed for HEAD themselves.)  Only the API's paths: nothing else is routed twice."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] != "http.response.body":
                await send(message)
            elif not message.get("more_body", False):
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class BodyLimit:
    """Refuse request bodies over MAX_BODY bytes with 413, whether or not they declare a length."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
            await self._refuse(scope, receive, send)
            return
        # Read the body here (it is small or refused), then hand it to the app unchanged.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its body was whole: nothing to answer, nothing done
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if LONE_SURROGATE.search(body) and _not_unicode(body):
            reason = "the body holds text that is not Unicode (a lone surrogate)"
            response = JSONResponse({"code": "bad_json", "message": reason}, 400)
            await response(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse(
            {"code": "too_large", "message": f"bodies are limited to {MAX_BODY} bytes"}, 413
        )
        await response(scope, receive, send)


def _not_unicode(body: bytes) -> bool:
    """Whether a JSON body holds a string that is no Unicode text (refused before any route sees it,
    as it could be neither stored nor written into an answer)."""
    try:
        return lone_surrogates(json.loads(body))
    except (ValueError, RecursionError):
        return False  # not JSON at all: the route's own parsing refuses it


HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}
"""The refusal codes of the HTTP framework's own errors (an unknown path, a wrong method, a body
that cannot be parsed)."""


def create_app(
    database_url: str,
    *,
    bot_workers: int | None = None,
    redis_url: str | None = None,
    limits: Limits | None = None,
    bot_pool: Any = None,
    bot_queue: str = "embedded",
    clock: Callable[[], float] = time.time,
    settle_heap: bool = False,
    writer: str | None = None,
) -> FastAPI:
    """The server.  ``limits`` defaults to :meth:`Limits.from_env` (on by default); ``bot_pool`` makes
    the executor bots run in (default: a pool of worker processes; ``bot_queue="redis"``: the
    ``masques worker`` processes fed through Redis); ``clock`` is the time the match
    clocks read (epoch seconds; tests set it); ``settle_heap`` tunes the cycle collector once
    started (:mod:`.heap`: for a server process of its own, not an app among others); ``writer``
    is where the database is written from (:data:`.commits.WRITERS`; default: the database's own,
    :func:`.commits.default_writer`)."""
    if bot_queue not in BOT_QUEUES:
        raise ValueError(f"the bot queue is one of {', '.join(BOT_QUEUES)}, not {bot_queue!r}")
    if bot_queue == "redis":
        if not redis_url:
            raise ValueError("bots on the Redis queue need a Redis URL (--redis)")
        require("arq", "bots on the Redis queue")
    storage = Storage(database_url)
    limits = limits or Limits.from_env()
    owner = FileOwner(database_url)
    guard = SharedLoginGuard(redis_url) if redis_url else LoginGuard()  # every process counts the same

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owner.acquire()  # one process per SQLite file: DatabaseInUseError if another one has it
        try:
            storage.migrate()
            use_client_secret(storage.site_secret("client_key"))
            registry = Registry(
                storage,
                bot_workers=bot_workers,
                redis_url=redis_url,
                limits=limits,
                bot_pool=bot_pool,
                bot_queue=bot_queue,
                clock=clock,
                writer=writer,
            )
            app.state.registry = registry
            app.state.storage = storage
            app.state.login_guard = guard
            app.state.analyses = Analyses(registry)
            await registry.start()
            young: asyncio.Task[None] | None = None
            if settle_heap:
                heap.settle()
                young = asyncio.get_running_loop().create_task(heap.keep_young())
            try:
                yield
            finally:
                if young is not None:
                    young.cancel()
                app.state.analyses.close()
                await registry.stop()
                await guard.close()
                storage.dispose()
        finally:
            owner.release()

    # A path with a trailing slash is not one of the API's: a JSON 404 like any unknown path, not
    # an empty redirect built from the request's Host header.
    app = FastAPI(
        title="Masques",
        version="1",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        redirect_slashes=False,
        **NO_OPEN_TELEMETRY,
    )
    app.openapi = documented_openapi(app)  # type: ignore[method-assign]
    app.add_middleware(GZipMiddleware, minimum_size=1024)  # the client's script and style, big listings
    app.add_middleware(HeadAsGet)  # the routes and compression see GET: the headers are GET's
    app.add_middleware(BodyLimit)
    app.add_middleware(Unhandled, count=lambda: count_fault(app))
    app.add_middleware(SecurityHeaders)  # outermost: on every response, refusals included
    app.add_middleware(RequestLog)  # around everything: ids for every log line, the access log
    app.include_router(people.router(guard))
    app.include_router(boards.router())
    app.include_router(learn.router())

    def count_fault(app: FastAPI) -> None:
        registry: Registry | None = getattr(app.state, "registry", None)  # none before start-up
        if registry is not None:
            registry.metrics.errors.labels(code="server_error").inc()

    def registry_of(request: Request | WebSocket) -> Registry:
        registry: Registry = request.app.state.registry
        return registry

    @app.exception_handler(ServerError)
    async def server_error(request: Request, exc: ServerError) -> JSONResponse:
        registry_of(request).metrics.errors.labels(code=exc.code).inc()
        body = {k: v for k, v in exc.payload().items() if k != "type"}
        return JSONResponse(body, exc.status, headers=exc.headers())

    async def database_away(request: Request, exc: Exception) -> JSONResponse:
        """A request the database could not serve (it is down, or its connections were cut): 503
        with Retry-After, not a server fault; logged as a warning, without the driver's message."""
        return await server_error(request, unavailable(f"{request.method} {request.url.path}", exc))

    for away in DATABASE_AWAY:
        app.add_exception_handler(away, database_away)

    client_of = people.counted

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """The framework's own refusals in the API's shape, ``{"code", "message"}``."""
        if exc.status_code < 400:  # pragma: no cover - the framework raises these for errors only
            return Response(status_code=exc.status_code, headers=exc.headers)
        headers = exc.headers
        if exc.status_code == 405:  # the framework names the methods of one route of the path
            headers = {**(headers or {}), "Allow": ", ".join(allowed_methods(app, request.url.path))}
        code = HTTP_CODES.get(exc.status_code, "bad_request" if exc.status_code < 500 else "server_error")
        message = {
            404: "no such page or API route",
            405: "this route does not take that method",
        }.get(exc.status_code, str(exc.detail))
        if exc.status_code == 400 and "parsing the body" in str(exc.detail):
            message = "the body is not valid JSON (or is nested too deeply, or holds a number too long)"
            code = "bad_json"
        return JSONResponse({"code": code, "message": message}, exc.status_code, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        if any(e.get("type") == "json_invalid" for e in exc.errors()):
            return JSONResponse({"code": "bad_json", "message": "the body is not valid JSON"}, 400)
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'] if p != 'body') or 'the body'}: {e['msg']}"
            for e in exc.errors()
        )
        kind = request.headers.get("content-type", "")
        if any(e["loc"] == ("body",) for e in exc.errors()) and "json" not in kind:
            problems += " (send the body as JSON, with Content-Type: application/json)"
        return JSONResponse({"code": "bad_request", "message": problems or "malformed request"}, 400)

    @app.api_route("/", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/match/{match_id}", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/match/{match_id}/replay", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/match/{match_id}/analysis/{seat}", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/player/{player_id}", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/me", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/leaderboard", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/rules", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/rules/{game}", methods=PAGE_METHODS, include_in_schema=False)
    @app.api_route("/learn/{game}", methods=PAGE_METHODS, include_in_schema=False)
    async def client() -> Response:
        """The single-page client: every page of it is the same document."""
        index = STATIC / "index.html"
        if not index.is_file():
            return HTMLResponse(NOT_BUILT_PAGE, 503)
        return FileResponse(index, headers={"cache-control": "no-cache"})

    @app.api_route("/healthz", methods=PAGE_METHODS, include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """Alive: the process answers."""
        return {"status": "ok"}

    pinging: list[asyncio.Future[None]] = []  # the database ping in flight, if any

    def database_ping(registry: Registry) -> asyncio.Future[None]:
        """One ping of the database at a time: a probe that gives up waiting leaves its ping
        running, and the next probes wait for that one instead of each taking another thread of
        the pool that hashes passwords and loads matches, which a hung database would fill."""
        if not pinging or pinging[0].done():
            ping = asyncio.ensure_future(asyncio.to_thread(registry.storage.ping))
            ping.add_done_callback(lambda done: done.cancelled() or done.exception())  # read once
            pinging[:] = [ping]
        return pinging[0]

    @app.api_route("/readyz", methods=PAGE_METHODS, include_in_schema=False)
    async def readyz(request: Request) -> JSONResponse:
        """Ready to serve: the database answers, and Redis where the server uses one (503 if not)."""
        registry = registry_of(request)
        checks = {"database": "ok", "redis": "off" if registry.fanout is None else "ok"}
        try:
            await asyncio.wait_for(asyncio.shield(database_ping(registry)), READY_TIMEOUT)
        except Exception as exc:
            checks["database"] = f"failing: {type(exc).__name__}"
        if registry.fanout is not None:
            try:
                await asyncio.wait_for(registry.fanout.ping(), READY_TIMEOUT)
            except Exception as exc:
                checks["redis"] = f"failing: {type(exc).__name__}"
        ready = all(v in ("ok", "off") for v in checks.values())
        return JSONResponse({"status": "ready" if ready else "not ready", **checks}, 200 if ready else 503)

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        """Prometheus metrics of this process."""
        return Response(registry_of(request).metrics.exposition(), media_type=METRICS_TYPE)

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Response:
        """Swagger UI (from its CDN), under a policy of its own."""
        return docs_page(app.openapi_url or "/openapi.json", f"{app.title} - API")

    # Built assets have content-hashed names.  Mounted even before a build (checked per request).
    app.mount("/assets", HashedFiles(directory=STATIC / "assets", check_dir=False), name="assets")
    app.mount(DOCS_ASSETS, StaticFiles(directory=docs_assets()), name="docs-assets")

    @app.get("/api/games")
    async def games(request: Request) -> list[dict[str, Any]]:
        """Every game with its options, defaults and allowed values, and its number of players with
        the default options (the lobby's seats for a game whose options do not set it)."""
        await client_of(request)
        return [{**g, "players": game_class(str(g["name"]))().num_players} for g in game_catalogue()]

    @app.post("/api/matches", status_code=201, responses=errors(400, 401, 403, 404, 413))
    async def create_match(body: CreateMatch, request: Request) -> dict[str, Any]:
        """Create a match: each seat open for a human, or a bot at a level.  A ``seed`` may be chosen
        only when at most one seat is a person.  A private match's answer carries its invite code.
        A rated match needs an account; a clock is a time control (see the field)."""
        owner = await client_of(request, "create")  # counted first: a bad cookie is a request too
        signed = await people.acting(request)
        if body.game not in game_names():
            raise ServerError(
                404, "no_game", f"unknown game {body.game!r}; games are: {', '.join(game_names())}"
            )
        try:
            game = game_class(body.game)(body.options)
        except EngineError as exc:
            raise ServerError(400, "bad_options", str(exc)) from None
        seats = [s.kind for s in body.seats] if body.seats is not None else [HUMAN] * game.num_players
        if body.rated and (signed is None or signed.player.kind != "account"):
            raise ServerError(
                403, "account_required", "only an account can create a rated match: sign up or log in"
            )
        turn_seconds = body.turn_seconds
        if body.clock is not None and body.clock.get("kind") == "turn":
            seconds = body.clock.get("seconds")
            if (
                set(body.clock) != {"kind", "seconds"}
                or not isinstance(seconds, int)
                or isinstance(seconds, bool)
                or not 1 <= seconds <= TURN_SECONDS_MAX
            ):
                raise ServerError(
                    400,
                    "bad_clock",
                    f"a per-turn clock is {{'kind': 'turn', 'seconds': 1..{TURN_SECONDS_MAX}}} "
                    "(as turn_seconds)",
                )
            if turn_seconds and turn_seconds != seconds:
                raise ServerError(
                    400, "bad_clock", "a match has one clock: give either turn_seconds or a clock"
                )
            turn_seconds = seconds
        if body.at_zero is not None and (body.clock is None or body.clock.get("kind") == "turn"):
            raise ServerError(
                400,
                "bad_clock",
                "at_zero applies to a fischer or correspondence clock: a per-turn clock always lets a "
                "bot move for a person whose turn runs out",
            )
        match = await registry_of(request).create(
            body.game,
            body.options,
            seats,
            seed=body.seed,
            turn_seconds=turn_seconds,
            owner=owner,
            private=body.private,
            rated=body.rated,
            clock=body.clock,
            at_zero=body.at_zero,
        )
        return {**match.summary(), "invite": match.invite} if match.private else match.summary()

    @app.get("/api/matches", responses=errors(400))
    async def list_matches(
        request: Request, status: Annotated[str, Query(pattern="^(open|running|finished|all)$")] = "all"
    ) -> list[dict[str, Any]]:
        """Open, running and finished matches (most recent first)."""
        await client_of(request, "read")
        statuses = ("open", "running", "finished") if status == "all" else (status,)
        return await registry_of(request).listing(statuses)

    @app.get("/api/matches/{match_id}", responses=errors(404))
    async def get_match(match_id: str, request: Request) -> dict[str, Any]:
        await client_of(request)
        return (await registry_of(request).get(match_id)).summary()

    @app.post("/api/matches/{match_id}/join", responses=errors(400, 401, 403, 404, 409, 413))
    async def join(
        match_id: str,
        body: JoinMatch,
        request: Request,
        idempotency_key: Annotated[str | None, Header(min_length=16, max_length=200)] = None,
    ) -> dict[str, Any]:
        """Take a free human seat.  With a session (cookie) the seat is the player's, on any device;
        without one the token is the only key to it (keep it secret).  Send an ``Idempotency-Key``
        (16 to 200 characters, random, kept like a password) to retry safely: a retry of a join
        that went through gets the same seat and token.  A private match needs its ``invite``."""
        key = await client_of(request, "join")
        signed = await people.acting(request)
        registry = registry_of(request)
        match = await registry.get(match_id)
        if match.seeded and match.owner not in (None, key) and not registry.limits.any_seed:
            raise ServerError(
                403,
                "chosen_deal",
                "this match's creator chose its deal and knows the cards: only they may play it "
                "(practice); watch it, or start a match of your own",
            )
        player = None if signed is None else signed.player
        given = body.name.strip() if body.name else ""
        if player is None and not given:
            raise ServerError(400, "bad_request", "name: a name is needed to join without a session")
        name = player.name if player is not None and (player.kind == "account" or not given) else given
        if player is None or player.kind != "account":
            await people.refuse_account_look(request, name)
        guest_session = signed.token_hash if signed is not None and signed.player.kind == "guest" else None
        seat, token = await registry.join(
            match, name, body.seat, idempotency_key, player=player, invite=body.invite, session=guest_session
        )
        return {"match": match.id, "seat": seat, "token": token}

    @app.post(
        "/api/matches/{match_id}/leave", status_code=204, responses=errors(400, 401, 403, 404, 409, 413)
    )
    async def leave(match_id: str, body: TokenBody, request: Request) -> None:
        """Give a seat back before the match starts (by its token, or the session's player)."""
        match, seat, player, token = await seat_holder(request, match_id, body.token)
        await registry_of(request).leave(match, seat, player=player, token=token)

    async def seat_request(
        request: Request, match_id: str, token: str | None, *, left: bool = False
    ) -> tuple[LiveMatch, int]:
        """The match and the person's seat a request acts for (its token, else its session)."""
        match, seat, _player, _token = await seat_holder(request, match_id, token, left=left)
        return match, seat

    async def seat_holder(
        request: Request, match_id: str, token: str | None, *, left: bool = False
    ) -> tuple[LiveMatch, int, Player | None, str | None]:
        """:func:`seat_request`, with who asks (the session's player, the seat token given)."""
        await client_of(request)
        token = one_token(token, request.headers.get("x-seat-token"))
        # With a seat token, a cookie whose session has ended counts as none (the token holds the
        # seat, as on the WebSocket); without one, it is refused (401 bad_session).
        signed = await (people.acting_afresh(request) if token else people.acting(request))
        registry = registry_of(request)
        match = await registry.get(match_id)
        player = None if signed is None else signed.player
        seat = await registry.fresh_seat_for(match, player, token, left=left)
        await registry.check_seat_account(match, seat, token)
        return match, seat, player, token

    @app.post(
        "/api/matches/{match_id}/resign",
        responses=errors(400, 401, 403, 404, 409, 413),
        dependencies=[Depends(no_body)],
    )
    async def resign(match_id: str, request: Request) -> dict[str, Any]:
        """Give up: the match ends at once and the other seats win (with teams, the team gives up)."""
        match, seat = await seat_request(request, match_id, None)
        await registry_of(request).resign(match, seat)
        return match.summary()

    @app.post(
        "/api/matches/{match_id}/abort",
        responses=errors(400, 401, 403, 404, 409, 413),
        dependencies=[Depends(no_body)],
    )
    async def abort(match_id: str, request: Request) -> dict[str, Any]:
        """Call the match off, with no result, while some person has not moved yet."""
        match, seat = await seat_request(request, match_id, None)
        await registry_of(request).abort(match, seat)
        return match.summary()

    @app.post(
        "/api/matches/{match_id}/claim",
        responses=errors(400, 401, 403, 404, 409, 413),
        dependencies=[Depends(no_body)],
    )
    async def claim(match_id: str, request: Request) -> dict[str, Any]:
        """End a match that absent players hold up (away longer than the grace period): they lose."""
        match, seat = await seat_request(request, match_id, None)
        await registry_of(request).claim(match, seat)
        return match.summary()

    @app.post(
        "/api/matches/{match_id}/seats/{seat}/bot",
        responses=errors(400, 401, 403, 404, 409, 413),
        dependencies=[Depends(no_body)],
    )
    async def seat_to_bot(match_id: str, seat: int, request: Request) -> dict[str, Any]:
        """Give an absent player's seat (away longer than the grace period) to a bot."""
        match, mine = await seat_request(request, match_id, None)
        await registry_of(request).hand_to_bot(match, mine, seat)
        return match.summary()

    @app.post("/api/matches/{match_id}/rematch", responses=errors(400, 401, 403, 404, 409, 413))
    async def rematch(match_id: str, request: Request, body: RematchAnswer | None = None) -> dict[str, Any]:
        """Answer the finished match's one rematch offer (the first acceptance makes it).  When every
        person has accepted, one new match starts with the same people and bots, seats turned by
        one; the old match's ``rematch.match`` names it.  A decline ends the offer."""
        await client_of(request, "create")  # a rematch may create a match: counted first
        match, seat = await seat_request(request, match_id, None, left=True)
        accept = True if body is None else body.accept
        await registry_of(request).answer_rematch(match, seat, accept)
        return match.summary()

    @app.get("/api/matches/{match_id}/record", responses=errors(400, 403, 404, 409))
    async def record(
        match_id: str,
        request: Request,
        token: Annotated[str | None, Query(max_length=200, description="prefer X-Seat-Token")] = None,
        x_seat_token: Annotated[str | None, Header(max_length=200, description="the seat's token")] = None,
        full: bool = False,
    ) -> dict[str, Any]:
        """The record as the token's seat saw it, as a spectator (no token), or in full (seed and
        every action) once the match is over, for a game that hides nothing after its end."""
        key = await client_of(request, "read")
        token = one_token(token, x_seat_token)
        registry = registry_of(request)
        match = await registry.get(match_id)
        rec = GameRecord.of(match.state)
        if full:
            if match.status != "finished":
                raise ServerError(409, "not_finished", "the full record is available once the match is over")
            kept = match.game.hidden_after_the_end()
            if kept:
                raise ServerError(
                    403,
                    "hidden_for_good",
                    f"{match.game.name} keeps {', '.join(part.field for part in kept)} hidden after the end: "
                    "a seat's record (with its token) or a spectator's is what may be downloaded",
                )
            return rec.to_json()
        seat = await viewer_seat(request, match, token)
        eyes = seat if match.dealt else None  # before the start, a seat sees what a spectator sees
        try:
            redacted: dict[str, Any] = await registry.heavy_read(lambda: redacted_record(rec, eyes), key)
        except RecordError as exc:  # pragma: no cover - the log always replays
            raise ServerError(500, "bad_record", str(exc)) from None
        return redacted

    @app.get("/api/matches/{match_id}/replay", responses=errors(400, 403, 404))
    async def replay(
        match_id: str,
        request: Request,
        token: Annotated[str | None, Query(max_length=200, description="prefer X-Seat-Token")] = None,
        x_seat_token: Annotated[str | None, Header(max_length=200, description="the seat's token")] = None,
    ) -> list[dict[str, Any]]:
        """Every step of the match as the token's seat (or a spectator, without a token) saw it: one
        ``state`` view per version, from the first position to the current one, none actionable."""
        key = await client_of(request, "read")
        token = one_token(token, x_seat_token)
        registry = registry_of(request)
        match = await registry.get(match_id)
        seat = await viewer_seat(request, match, token)
        views: list[dict[str, Any]] = await registry.heavy_read(match.replay(seat), key)
        return views

    def analyses_of(request: Request) -> Analyses:
        analyses: Analyses = request.app.state.analyses
        return analyses

    async def own_seat(request: Request, match_id: str, seat: int | None) -> tuple[LiveMatch, int]:
        """The match and the caller's own seat (a seat it held, also one a bot took over)."""
        match, mine = await seat_request(request, match_id, None, left=True)
        if seat is not None and seat != mine:
            raise ServerError(403, "not_your_seat", "you may ask only about your own seat")
        return match, mine

    @app.post(
        "/api/matches/{match_id}/analysis",
        responses={**errors(400, 401, 403, 404, 409, 413), 202: {"description": "running: its progress"}},
        dependencies=[Depends(no_body)],
    )
    async def analyse(
        match_id: str, request: Request, seat: Annotated[int | None, Query(ge=0, le=7)] = None
    ) -> JSONResponse:
        """Analyse the caller's decisions in a finished match with the analysis bot, from the caller's
        own view only: 202 with the progress while it runs, 200 with the analysis once done."""
        await client_of(request, "analysis")
        match, mine = await own_seat(request, match_id, seat)
        status, body = await analyses_of(request).start(match, mine)
        return JSONResponse(body, status)

    @app.get(
        "/api/matches/{match_id}/analysis",
        responses={**errors(400, 403, 404, 503), 202: {"description": "still running: its progress"}},
    )
    async def analysis(
        match_id: str,
        request: Request,
        seat: Annotated[int | None, Query(ge=0, le=7)] = None,
        token: Annotated[str | None, Query(max_length=200, description="prefer X-Seat-Token")] = None,
        x_seat_token: Annotated[str | None, Header(max_length=200, description="the seat's token")] = None,
    ) -> JSONResponse:
        """A seat's analysis: for its player, or for anyone once the player has shared it.  Its player
        is told ``{"status": "none"}`` while it has not been asked for."""
        await client_of(request)
        token = one_token(token, x_seat_token)
        match = await registry_of(request).get(match_id)
        viewer = await viewer_seat(request, match, token)
        if seat is None:
            seat = viewer
        if seat is None:
            raise ServerError(400, "bad_seat", "say which seat's analysis (?seat=)")
        status, body = await analyses_of(request).read(match, seat, viewer)
        return JSONResponse(body, status)

    @app.post(
        "/api/matches/{match_id}/analysis/share",
        responses=errors(400, 401, 403, 404, 413),
        dependencies=[Depends(no_body)],
    )
    async def share_analysis(
        match_id: str, request: Request, seat: Annotated[int | None, Query(ge=0, le=7)] = None
    ) -> dict[str, Any]:
        """Let anyone with the link read the caller's analysis of this match."""
        match, mine = await own_seat(request, match_id, seat)
        return await analyses_of(request).share(match, mine)

    @app.post(
        "/api/matches/{match_id}/hint",
        responses=errors(400, 401, 403, 404, 409, 413, 503),
        dependencies=[Depends(no_body)],
    )
    async def hint(
        match_id: str, request: Request, seat: Annotated[int | None, Query(ge=0, le=7)] = None
    ) -> dict[str, Any]:
        """The hard bot's move for the caller's current decision (casual matches against bots only)."""
        await client_of(request, "analysis")
        match, mine = await own_seat(request, match_id, seat)
        return await give_hint(registry_of(request), match, mine)

    @app.get("/api/matches/{match_id}/chat", responses=errors(400, 403, 404))
    async def chat(
        match_id: str,
        request: Request,
        x_seat_token: Annotated[str | None, Header(max_length=200, description="the seat's token")] = None,
    ) -> dict[str, Any]:
        """The match's chat as the token's seat (or the session's player, or a spectator) may read it:
        ``players`` and ``spectators`` lines, oldest first.  While the match is played, ``spectators``
        is null for a player and for a reader without a session."""
        await client_of(request, "read")
        registry = registry_of(request)
        match = await registry.get(match_id)
        seat = await viewer_seat(request, match, x_seat_token)
        signed = x_seat_token is None and await people.optional_session(request) is not None
        return await registry.chat_lines(match, seat, signed=signed)

    async def viewer_seat(request: Request, match: LiveMatch, token: str | None) -> int | None:
        """Whose eyes a read uses: the token's seat, else the session's player's, else a spectator's."""
        signed = None if token else await people.optional_session(request)
        registry = registry_of(request)
        seat = await registry.seat_of(match, token, None if signed is None else signed.player)
        if seat is not None and match.bot_took_over(seat):
            return None  # a bot plays it or played it to the end: its person reads as a spectator does
        if seat is not None and token:  # a disabled account's, or an ended, seat token reads nothing
            await registry.check_seat_account(match, seat, token)
        return seat

    @app.websocket("/ws/matches/{match_id}")
    async def play(websocket: WebSocket, match_id: str, token: str | None = None) -> None:
        await websocket.accept()
        registry = registry_of(websocket)
        key = client_key(websocket.client.host if websocket.client else None)
        first: Message | None = None  # a first message that was not a hello, handled once connected
        try:
            if token is None:
                token, first = await read_hello(websocket)  # nothing is sent before the hello
            await registry.rates.check("connect", key)
            match = await registry.get(match_id)
            signed = await session_of(websocket)
            player = None if signed is None else signed.player
            seat = await registry.seat_of(match, token, player)
            held = None
            if seat is not None and match.bot_took_over(seat):
                held, seat = seat, None  # its person watches as a spectator does, as its reads are
            if seat is not None:
                await registry.check_seat_account(match, seat, token)
            client = Client(
                seat,
                websocket.send_text,
                player,
                None if signed is None else signed.token_hash,
                None if not token or seat is None else hash_token(token),
                held=held,
                write_now=websocket.scope.get("extensions", {}).get(WRITE_NOW, {}).get("write"),
            )
            await registry.connect(match, client)
        except WebSocketDisconnect:
            return
        except REFUSED_OR_AWAY as caught:
            exc = caught if isinstance(caught, ServerError) else unavailable(websocket.url.path, caught)
            await websocket.send_json(exc.payload())
            close = (
                4409
                if exc.code == "seat_changed"
                else {400: 4400, 404: 4404, 429: 4429, 503: 4503}.get(exc.status, 4403)
            )
            await websocket.close(code=close)
            return
        pump = asyncio.get_running_loop().create_task(_pump(websocket, client))
        refused = 0
        try:
            while True:
                message = first or await websocket.receive()
                first = None
                if message["type"] == "websocket.disconnect":
                    break
                try:
                    try:
                        await registry.rates.check("message", key)
                        if message.get("text") is None:
                            raise ServerError(400, "bad_message", "send messages as text frames of JSON")
                        await _handle(registry, match, client, message["text"], key)
                    except DATABASE_AWAY as away:  # the move was not made: the client may send it again
                        raise unavailable(websocket.url.path, away) from None
                    refused = 0
                except ServerError as exc:
                    registry.metrics.errors.labels(code=exc.code).inc()
                    if exc.code == "signed_out":
                        await registry.end_connection(match, client)
                        continue
                    refused = refused + 1 if exc.status == 429 else 0
                    client.deliver({**exc.payload(), "version": match.version})
                    if refused > FLOOD_CLOSE:  # the refusals queued go out first, then the close
                        client.deliver(FLOODED)
                        client.close_after_sending(1008)
                        await _flushed(pump, websocket)
                        break
        except WebSocketDisconnect:
            pass
        finally:
            await registry.disconnect(match, client)
            client.drop()
            pump.cancel()

    async def session_of(websocket: WebSocket) -> people.SignedIn | None:
        """The connection's session and signed-in player (their seat, their name in the spectators'
        chat): only for a page of this site (a page elsewhere must not use a visitor's cookie to
        play for them)."""
        if people.session_cookie(websocket) not in websocket.cookies:
            return None
        if not people.same_origin(websocket):
            raise ServerError(403, "csrf", "a connection from another site's page is refused")
        try:
            return await people.signed_in(websocket)
        except ServerError:
            return None  # a stale cookie watches

    async def _flushed(pump: asyncio.Task[None], websocket: WebSocket) -> None:
        """Wait for the pump to write what is queued and close; a client too slow to read it
        within ``FLUSH_SECONDS`` is closed at once."""
        done, _ = await asyncio.wait({pump}, timeout=FLUSH_SECONDS)
        if not done:
            with contextlib.suppress(Exception):
                await websocket.close(code=1008)

    async def _pump(websocket: WebSocket, client: Client) -> None:
        """Write the connection's messages; one too slow to take them is closed (it may reconnect),
        as is one whose session ended."""
        await client.pump()
        if client.dropped:
            with contextlib.suppress(Exception):
                await websocket.close(code=client.close_code)

    async def _handle(registry: Registry, match: LiveMatch, client: Client, text: str, key: str) -> None:
        if len(text.encode("utf-8")) > MAX_MESSAGE:
            raise ServerError(413, "too_large", f"messages are limited to {MAX_MESSAGE} bytes")
        try:
            message = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise ServerError(
                400, "bad_json", "the message is not valid JSON (or nested too deeply)"
            ) from None
        if not isinstance(message, dict):
            raise ServerError(400, "bad_message", "a message is a JSON object with a 'type'")
        kind = message.get("type")
        if kind == "hello":
            raise ServerError(400, "bad_message", "hello is the first message of a connection, and only it")
        allowed = {"action": {"type", "action", "version"}, "chat": {"type", "text"}}.get(str(kind), {"type"})
        unknown = set(message) - allowed
        if unknown:
            raise ServerError(400, "bad_message", f"unknown field(s): {', '.join(sorted(map(str, unknown)))}")
        if kind == "ping":
            return
        if kind == "sync":
            await registry.sync(match, client)
            return
        if kind == "chat":
            await registry.rates.check("chat", key)
            await registry.check_allowed(match, client)
            await registry.say(match, client, message.get("text"))
            return
        if kind != "action":
            raise ServerError(400, "bad_message", "message types are 'action', 'chat', 'sync' and 'ping'")
        started = time.perf_counter()
        await registry.check_allowed(match, client)
        await registry.submit(
            match, client.seat, message.get("action"), message.get("version"), holder=client
        )
        registry.metrics.move_latency.observe(time.perf_counter() - started)

    tables_first(app)
    return app


def allowed_methods(app: FastAPI, path: str) -> list[str]:
    """Every method some route takes at ``path`` (several routes may share a path, one per method)."""
    methods: set[str] = set()
    routes = list(app.router.routes)
    while routes:
        route = routes.pop()
        included = getattr(route, "original_router", None)  # an included router (no prefix here)
        if included is not None:
            routes.extend(included.routes)
            continue
        regex, taken = getattr(route, "path_regex", None), getattr(route, "methods", None)
        if isinstance(getattr(route, "app", None), StaticFiles):
            taken = {"GET", "HEAD"}  # a mount of files (the client's assets, the docs' files)
        if regex is not None and taken and regex.match(path):
            methods.update(taken)
    if "GET" in methods and path.startswith("/api/"):
        methods.add("HEAD")  # answered by HeadAsGet
    return sorted(methods)


TABLE_PATHS = ("/api/matches", "/ws/")
"""The paths every table's next game calls (a match made, its seats taken, its players connected)."""


def tables_first(app: FastAPI) -> None:
    """Let the router try the match API and its WebSocket before the pages and the account routes.

    The router tries routes in order, and an included router scans its own routes each time, so a
    join went past some forty routes first.  No two routes take the same path and method, so the
    order changes only which route a request is matched against first; the sort is stable, so
    routes sharing a path (which say 405 with their methods) keep their order."""
    app.router.routes.sort(key=lambda route: not getattr(route, "path", "").startswith(TABLE_PATHS))


def one_token(query: str | None, header: str | None) -> str | None:
    """A seat token from the ``X-Seat-Token`` header or the ``token`` query (kept for API clients)."""
    if query is not None and header is not None and query != header:
        raise ServerError(400, "bad_request", "two different seat tokens: send it once, in X-Seat-Token")
    return header if header is not None else query


async def read_hello(websocket: WebSocket) -> tuple[str | None, Message | None]:
    """Wait, a bounded time, for a connection's first message: ``{"type": "hello", "token": ...}``.

    A hello gives its token (none: a spectator).  Anything else, or nothing within HELLO_TIMEOUT,
    makes the connection a spectator's (clients from before the hello), and a message that came is
    handed back to be handled as usual."""
    try:
        message = await asyncio.wait_for(websocket.receive(), HELLO_TIMEOUT)
    except TimeoutError:
        return None, None
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    try:
        data = json.loads(text) if text is not None and len(text) <= MAX_MESSAGE else None
    except (json.JSONDecodeError, RecursionError):
        data = None
    if not isinstance(data, dict) or data.get("type") != "hello":
        return None, message
    token = data.get("token")
    well_formed = token is None or (
        isinstance(token, str) and 0 < len(token) <= 200 and not lone_surrogates(token)
    )
    if set(data) - {"type", "token"} or not well_formed:
        raise ServerError(
            400, "bad_hello", 'a hello is {"type": "hello"} or {"type": "hello", "token": "<seat token>"}'
        )
    return token, None


NOT_BUILT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Masques</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem">
<h1>Masques</h1>
<p>The server is running, but this copy has no built browser client. From a checkout, run
<code>bash scripts/build_web.sh</code> (or <code>bash scripts/run.sh</code>) and reload.</p>
<p>The API is at <a href="/docs">/docs</a>.</p></body></html>
"""
