"""The web game's HTTP API and WebSocket endpoint (``docs/protocol.md``), as a FastAPI app.

Every request and message is checked against its declared schema
(:mod:`.schema`) before a table sees it, and every refusal has the
protocol's shape, ``{"error", "code"}`` (``"rule"`` when a rule decides),
with its HTTP status: 400 malformed, 404 no such table, 409 taken, 413 too
large, 422 invalid, 429 over a quota (with ``Retry-After``).  A bad
WebSocket message gets an error to its sender only; the table's state never
changes for it.  The page is served with a Content-Security-Policy and the
WebSocket accepts only pages of this site (or of ``--allow-origin``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import TypeAdapter, ValidationError
from starlette.exceptions import HTTPException

from .. import caches
from ..bots import known_kinds
from ..errors import BiribaError
from ..rules import OPTION_HELP, OPTION_LIMITS, OPTION_NAMES, PRESET_HELP, PRESETS, format_option
from .cluster import Cluster
from .config import ServerConfig
from .hall import Hall
from .live import Client, LiveTable
from .messages import STATUS, TableError, store_away
from .metrics import Metrics
from .replays import CACHE_CONTROL, Kept
from .schema import (
    Act,
    ClientMessage,
    CreateTable,
    Error,
    Explain,
    HandOver,
    Health,
    Hint,
    Join,
    Leave,
    Lobby,
    Next,
    Ping,
    Rematch,
    RulesCatalogue,
    Say,
    Seated,
    SitDown,
    TableInfo,
    refusal,
)
from .store import RETRY_AFTER, Store, Unavailable
from .thinking import OutOfRange, Thinkers, replay_position

STATIC = Path(__file__).parent / "static"
#: The largest message a client may send, in bytes (docs/protocol.md).
MAX_MESSAGE = 4096
#: Messages a connection may send in one second before they are dropped.
RATE = 20
#: The most tables a lobby page holds.
LOBBY_PAGE = 100
#: Seconds a new connection has to send ``join``.
JOIN_WITHIN = 10.0
#: Seconds between two hints a connection may ask for (each is up to a second of a worker's search).
HINT_EVERY = 5.0
#: Seconds between two chat lines of a connection.
SAY_EVERY = 2.0
#: Close codes (docs/protocol.md).
BAD_TOKEN, FORBIDDEN_ORIGIN, NO_TABLE, NO_JOIN = 4401, 4403, 4404, 4408
SERVICE_RESTART, TRY_AGAIN_LATER = 1012, 1013
#: What the page may load and where it may connect: its own files, nothing inline, no frames around it.
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self';"
        b" connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
TableId = Annotated[str, PathParam(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
MESSAGES: TypeAdapter[Any] = TypeAdapter(ClientMessage)


def read_message(text: str) -> Any:
    """A client's message (one of :data:`ClientMessage`) from its text; :class:`TableError` says what is wrong."""
    if len(text.encode(errors="replace")) > MAX_MESSAGE:
        raise TableError("too_large", f"a message is at most {MAX_MESSAGE} bytes")
    try:
        return MESSAGES.validate_json(text)
    except ValidationError as exc:
        errors = exc.errors()
    if any(e["type"] == "json_invalid" for e in errors):
        raise TableError("bad_message", "not JSON")
    if any(e["type"] in ("union_tag_not_found", "model_attributes_type", "dict_type") for e in errors):
        raise TableError("bad_message", 'a message is a JSON object with a "type"')
    if any(e["type"] == "union_tag_invalid" for e in errors):
        raise TableError("bad_message", f"unknown message type: one of {', '.join(MESSAGE_TYPES)}")
    raise TableError("bad_message", refusal(errors))


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": Error, "description": words}
    for status, words in (
        (400, "malformed"),
        (404, "no such table"),
        (409, "taken"),
        (413, "too large"),
        (422, "invalid"),
        (429, "over a quota: Retry-After says when to try again"),
        (503, "the store cannot be reached just now: Retry-After says when to try again"),
    )
}


def create_app(db: str | None = None, config: ServerConfig | None = None) -> FastAPI:
    """The app over the store at ``db`` (default: SQLite in the user's data folder)."""
    config = config or ServerConfig()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await Store.open(db)
        caches.set_budget(config.cache_budget)
        thinkers = Thinkers(config.workers, config.bot_queue, config.cache_budget)
        await thinkers.start()
        cluster = Cluster(config.redis_url) if config.redis_url else None
        hall = Hall(store, config, thinkers, cluster=cluster)
        if cluster is not None:
            await cluster.start(hall.on_table, hall.on_request, hall.on_reconnect)
        hall.start()
        app.state.hall = hall
        # long-lived tables hold many small objects: collect the young ones less often, and leave
        # the start-up's objects out of the collections, so that no full collection stalls a move
        thresholds = gc.get_threshold()
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        try:
            yield
        finally:
            await hall.close()
            if cluster is not None:
                await cluster.close()
            thinkers.close()
            await store.close()
            gc.unfreeze()  # the process may go on without the server (tests, an embedding program)
            gc.set_threshold(*thresholds)

    app = FastAPI(
        title="biriba",
        summary="The web game of Biriba: tables, seats, and a WebSocket per player (docs/protocol.md).",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(BodyLimit, most=config.max_body)
    app.add_middleware(SecurityHeaders)
    metrics = Metrics(lambda: gauges(app))
    app.state.metrics = metrics

    def hall(request: Request | WebSocket) -> Hall:
        return request.app.state.hall  # type: ignore[no-any-return]

    def base(request: Request) -> str:
        """The site's address for links: the configured public one, else this request's own host."""
        return config.public_url or str(request.base_url)

    # ---------------------------------------------------------- refusals
    def refused(exc: TableError) -> JSONResponse:
        metrics.refused.labels(exc.code).inc()
        body = Error(error=str(exc), code=exc.code, rule=exc.rule).model_dump(exclude_none=True)
        headers = {"Retry-After": str(round(exc.retry_after))} if exc.retry_after is not None else None
        return JSONResponse(body, status_code=STATUS.get(exc.code, 400), headers=headers)

    @app.exception_handler(TableError)
    async def table_error(request: Request, exc: TableError) -> JSONResponse:
        return refused(exc)

    @app.exception_handler(Unavailable)
    async def store_is_away(request: Request, exc: Unavailable) -> JSONResponse:
        return refused(store_away())

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        malformed = any(e.get("type") == "json_invalid" for e in errors)
        code = "bad_request" if malformed else "invalid"
        message = "the body is not JSON" if malformed else refusal(errors)
        return refused(TableError(code, message))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed"}
        message = str(exc.detail)
        code = codes.get(exc.status_code, "bad_request")
        metrics.refused.labels(code).inc()
        return JSONResponse({"error": message, "code": code}, status_code=exc.status_code, headers=exc.headers)

    async def live_table(request: Request, table_id: str) -> LiveTable:
        live = await hall(request).get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        return live

    # --------------------------------------------------------------- pages
    @app.get("/", include_in_schema=False)
    @app.get("/t/{table_id}", include_in_schema=False)
    async def page(table_id: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    # ----------------------------------------------------------------- API
    @app.get("/api/rules", response_model=RulesCatalogue)
    async def rules() -> dict[str, Any]:
        """The presets and options, as ``biriba rules`` lists them, with each option's limits; the bot kinds."""
        presets = {
            name: {
                "help": PRESET_HELP.get(name, ""),
                "options": {k: format_option(getattr(preset, k)) for k in OPTION_NAMES},
            }
            for name, preset in PRESETS.items()
        }
        options = {
            name: {
                "help": OPTION_HELP[name],
                "value": format_option(getattr(PRESETS["classic"], name)),
                "limits": OPTION_LIMITS.get(name),
            }
            for name in OPTION_NAMES
        }
        return {"presets": presets, "options": options, "bots": known_kinds()}

    @app.post("/api/tables", status_code=201, response_model=TableInfo, responses=ERRORS)
    async def create(request: Request, spec: CreateTable) -> dict[str, Any]:
        """Create a table; its info holds ``invite``, the link to share."""
        address = request.client.host if request.client else None
        live = await hall(request).create(spec, address)
        return live.info(base(request))

    @app.get("/api/tables", response_model=Lobby, responses=ERRORS)
    async def lobby(
        request: Request,
        status: Annotated[str, Query(pattern=r"^(open|playing|over)(,(open|playing|over)){0,2}$")] = "open,playing",
        limit: Annotated[int, Query(ge=1, le=LOBBY_PAGE)] = 20,
        after: Annotated[str | None, Query(max_length=80)] = None,
    ) -> dict[str, Any]:
        """The tables with these statuses, the most recently active first, a page at a time."""
        wanted = tuple(dict.fromkeys(status.split(",")))
        tables, cursor = await hall(request).lobby(wanted, limit, after, base(request))
        return {"tables": tables, "next": cursor}

    @app.get("/api/tables/{table_id}", response_model=TableInfo, responses=ERRORS)
    async def table_info(request: Request, table_id: TableId) -> dict[str, Any]:
        live = await live_table(request, table_id)
        return live.info(base(request))

    @app.post("/api/tables/{table_id}/seats/{seat}", response_model=Seated, responses=ERRORS)
    async def sit(
        request: Request, table_id: TableId, seat: Annotated[int, PathParam(ge=0, le=5)], body: SitDown
    ) -> dict[str, Any]:
        """Sit down at a person's free seat under a name; the token that comes back is the seat's key."""
        live = await live_table(request, table_id)
        return {"seat": seat, "token": await live.sit(seat, body.name)}

    @app.get("/api/tables/{table_id}/record", responses={403: {"model": Error}, **ERRORS})
    async def record(request: Request, table_id: TableId) -> Response:
        """The game record (``biriba-record/1``) once the match is over: before, it would show the decks."""
        address = client_address(request)
        kept = await hall(request).replays.answer(address, ("record", table_id), lambda: record_body(request, table_id))
        return kept_response(request, kept)

    @app.get("/api/tables/{table_id}/replay", responses={403: {"model": Error}, **ERRORS})
    async def replay(
        request: Request,
        table_id: TableId,
        deal: Annotated[int, Query(ge=1, le=10_000)] = 1,
        step: Annotated[int, Query(ge=0, le=100_000)] = 0,
    ) -> Response:
        """Once the match is over: deal N's position after K actions, every hand open."""
        replays = hall(request).replays
        address = client_address(request)

        async def position() -> bytes:
            kept = await replays.fetch(address, ("record", table_id), lambda: record_body(request, table_id))
            thinkers = hall(request).thinkers
            try:
                if thinkers is not None:
                    return await thinkers.replay(kept.body, deal, step)
                body: bytes = await in_thread(request, lambda: replay_position(kept.body, deal, step))
                return body
            except OutOfRange as exc:
                raise TableError("invalid", str(exc)) from None

        kept = await replays.answer(address, ("replay", table_id, deal, step), position)
        return kept_response(request, kept)

    async def record_body(request: Request, table_id: str) -> bytes:
        match = await finished(request, table_id)
        body: bytes = await in_thread(request, lambda: json_bytes(match.to_record()))
        return body

    async def finished(request: Request, table_id: str) -> Any:
        live = await live_table(request, table_id)
        if not live.table.match.is_over:
            raise TableError("not_over", "the record and the replay open once the match is over: they hold the decks")
        return live.table.match

    async def in_thread(request: Request, work: Callable[[], Any]) -> Any:
        """Engine work off the event loop (the caches are not trimmed meanwhile)."""
        the_hall = hall(request)
        the_hall.engine_threads += 1
        try:
            return await asyncio.to_thread(work)
        finally:
            the_hall.engine_threads -= 1

    @app.get("/healthz", response_model=Health, response_model_exclude_none=True, responses={503: {"model": Error}})
    async def healthz(request: Request) -> Any:
        """Up, and the store answers and can write (every bound in time by the store's own timeouts)."""
        the_hall = hall(request)
        try:
            await the_hall.store.check()
        except Unavailable as exc:
            return refused(TableError("store", f"the store cannot be written: {exc}", retry_after=RETRY_AFTER))
        body: dict[str, Any] = {"status": "ok", "store": "ok", "live_tables": len(the_hall.live), "node": the_hall.node}
        if the_hall.cluster is not None and the_hall.cluster.bus is not None:
            body["bus"] = "ok" if the_hall.cluster.bus.connected else "away"
        return body

    @app.get("/metrics", response_class=Response, include_in_schema=False)
    async def prometheus() -> Response:
        return Response(metrics.text(), media_type="text/plain; version=0.0.4; charset=utf-8")

    # ----------------------------------------------------------- WebSocket
    @app.websocket("/ws/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        if not origin_allowed(websocket, config):
            await websocket.close(FORBIDDEN_ORIGIN, "this site's pages only")  # before accepting: a 403
            return
        await websocket.accept()
        try:
            live = await hall(websocket).get(table_id) if len(table_id) <= 32 else None
        except TableError as exc:  # the store is away: said at once, and the client comes back later
            metrics.refused.labels(exc.code).inc()
            await websocket.send_text(json.dumps(exc.message()))
            await websocket.close(TRY_AGAIN_LATER, "the store cannot be reached just now; connect again shortly")
            return
        if live is None:
            await websocket.close(NO_TABLE, "no such table")
            return
        connection = Connection(websocket, live, metrics, hall(websocket))
        await connection.run()

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


#: The environment variable through which ``biriba serve --workers N`` hands each process its store and limits.
ENVIRONMENT = "BIRIBA_SERVE"


def app_from_environment() -> FastAPI:
    """The app of one of ``biriba serve --workers N``'s processes (uvicorn's factory), from :data:`ENVIRONMENT`."""
    settings = json.loads(os.environ[ENVIRONMENT])
    values = settings["config"]
    values["origins"] = tuple(values.get("origins", ()))
    return create_app(settings["db"], ServerConfig(**values))


def client_address(request: Request) -> str:
    """Whom the quotas count: the client's address (behind a named proxy, the one it forwards)."""
    return request.client.host if request.client else "-"


def json_bytes(data: Any) -> bytes:
    """JSON as the API's answers write it (compact, UTF-8)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def kept_response(request: Request, kept: Kept) -> Response:
    """A finished match's answer: immutable, with its ETag; 304 to a client that has it already."""
    headers = {"ETag": kept.etag, "Cache-Control": CACHE_CONTROL}
    if kept.matches(request.headers.get("if-none-match")):
        return Response(status_code=304, headers=headers)
    return Response(kept.body, media_type="application/json", headers=headers)


def gauges(app: FastAPI) -> dict[str, tuple[str, float]]:
    """The numbers ``/metrics`` reads at each scrape."""
    the_hall: Hall | None = getattr(app.state, "hall", None)
    if the_hall is None:
        return {}
    thinking = the_hall.thinkers.stats if the_hall.thinkers is not None else None
    live = the_hall.live.values()
    numbers: dict[str, tuple[str, float]] = {
        "live_tables": ("Tables in memory", len(the_hall.live)),
        "connections": ("WebSocket connections", sum(len(t.clients) for t in live)),
        "engine_cache_total": ("Entries in the engine's caches, all told", caches.total()),
        "engine_cache_budget": ("The entries the engine's caches may hold before they are cleared", caches.budget()),
        "engine_cache_clears": ("Times the engine's caches were cleared", caches.clears()),
        "gc_pause_seconds": ("How long the janitor's last full collection of garbage took", the_hall.last_pause),
        "tables_driven": ("Live tables this process drives (owns)", sum(1 for t in live if t.owned)),
        "tables_followed": ("Live tables another process drives, followed here", sum(1 for t in live if not t.owned)),
        "takeovers": ("Tables this process took over from another whose lease ran out", the_hall.takeovers),
        "replays_computed": (
            "Records and replay positions computed (the others were answered from those kept)",
            the_hall.replays.computed,
        ),
        "replay_cache_bytes": ("Bytes of records and replay positions kept", the_hall.replays.size),
        "replays_under_way": ("Record and replay requests under way", the_hall.replays.under_way.total()),
        "fenced_writes": (
            "Writes the store refused: another process had taken their table over",
            the_hall.store.fenced,
        ),
    }
    if thinking is not None:
        numbers.update(
            bot_queue=("Bot decisions waiting for a worker", thinking.waiting),
            bot_thinking=("Bot decisions being thought out", thinking.thinking),
            bot_decisions=("Bot decisions made in workers", thinking.decisions),
            bot_quick=("Bot decisions made at once because the queue was full", thinking.quick),
            bot_wait_seconds=("Seconds bot decisions waited for a worker, all told", thinking.wait_seconds),
        )
    return {name: (words, float(value)) for name, (words, value) in numbers.items()}


def origin_allowed(websocket: WebSocket, config: ServerConfig) -> bool:
    """A browser's WebSocket comes from a page of this site (its own host, the public URL, or an allowed origin).

    Without this check any site a player visits could open a socket in the
    player's name (cross-site WebSocket hijacking).  A client that is not a
    browser sends no Origin, and has no one's cookies or tokens to abuse.
    """
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    host = urlsplit(origin).netloc.lower()
    own = {websocket.headers.get("host", "").lower()}
    for url in (config.public_url, *config.origins):
        if url:
            own.add(urlsplit(url).netloc.lower())
    return host in own


class SecurityHeaders:
    """Adds the page's security headers to every HTTP response (pure ASGI: no cost to WebSockets)."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit:
    """Refuses a request body larger than ``most`` bytes with a 413 in the protocol's shape, reading no further."""

    def __init__(self, app: Callable[..., Awaitable[None]], most: int) -> None:
        self.app = app
        self.most = most

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.most:
            await self.refuse(send)
            return
        seen = 0
        started = False

        async def counted() -> MutableMapping[str, Any]:
            nonlocal seen
            message: MutableMapping[str, Any] = await receive()
            seen += len(message.get("body", b""))
            if seen > self.most:
                raise _TooLarge
            return message

        async def watched(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not started:
                await self.refuse(send)

    async def refuse(self, send: Any) -> None:
        body = json.dumps({"error": f"the body is larger than {self.most} bytes", "code": "too_large"}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": [*headers, *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    """A body that went past the limit while it was read."""


MESSAGE_TYPES = ("join", "action", "next", "ping", "explain", "hint", "hand_over", "leave", "say", "rematch")


class Connection:
    """One client's connection: join, then messages, each checked before the table sees it."""

    def __init__(self, websocket: WebSocket, live: LiveTable, metrics: Metrics, the_hall: Hall) -> None:
        self.websocket = websocket
        self.live = live
        self.metrics = metrics
        self.hall = the_hall
        self.client: Client | None = None
        self.recent: deque[float] = deque()
        self.last: dict[str, float] = {}  # when this connection last asked for a hint, or said something

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await self.websocket.send_text(json.dumps(message))
        except (RuntimeError, WebSocketDisconnect) as exc:  # closed meanwhile (by the client, or cut)
            raise WebSocketDisconnect(1006) from exc

    async def cut(self) -> None:
        """Close the connection for the client to connect again (its table is reloaded from the store)."""
        await self.websocket.close(SERVICE_RESTART, "the table is reloading; connect again")

    async def error(self, refusal: TableError) -> None:
        self.metrics.refused.labels(refusal.code).inc()
        await self.send(refusal.message())

    async def run(self) -> None:
        try:
            await self.join()
            while self.client is not None:
                message = await self.receive()
                if message is not None:
                    await self.handle(message)
        except WebSocketDisconnect:
            pass
        finally:
            if self.client is not None:
                await self.live.leave(self.client)
            self.client = None  # the client's send is this connection's: no cycle left for the collector

    async def join(self) -> None:
        deadline = time.monotonic() + JOIN_WITHIN
        while self.client is None:
            try:
                message = await asyncio.wait_for(self.receive(), timeout=max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                await self.websocket.close(NO_JOIN, "no join in time")
                raise WebSocketDisconnect(NO_JOIN) from None
            if message is None:
                continue
            if not isinstance(message, Join):
                await self.error(TableError("not_joined", 'join first: {"type": "join", "token": ..., "since": 0}'))
                continue
            try:
                seat = self.live.seat_of(message.token)
            except TableError as exc:
                await self.error(exc)
                await self.websocket.close(BAD_TOKEN, "bad token")
                raise WebSocketDisconnect(BAD_TOKEN) from None
            since = min(message.since, self.live.version)
            self.client = Client(seat, self.send, sent=since, name=message.name, cut=self.cut)
            await self.live.join(self.client)

    async def receive(self) -> Any:
        """The next message, checked for size, rate and schema; None (after an error to the client) if bad."""
        raw = await self.websocket.receive()
        if raw["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(raw.get("code", 1000))
        now = time.monotonic()
        self.recent.append(now)
        while self.recent and self.recent[0] < now - 1:
            self.recent.popleft()
        if len(self.recent) > RATE:
            if len(self.recent) == RATE + 1:
                await self.error(TableError("rate_limited", f"more than {RATE} messages in a second: dropped"))
            return None
        text = raw.get("text")
        try:
            if text is None:
                raise TableError("bad_message", "messages are JSON text frames, not binary")
            return read_message(text)
        except TableError as exc:
            await self.error(exc)
            return None

    async def handle(self, message: Any) -> None:
        client = self.client
        assert client is not None
        try:
            if isinstance(message, Act):
                started = time.perf_counter()
                await self.live.act(client.seat, message.action, message.version)
                self.metrics.round_trip.observe(time.perf_counter() - started)
                self.metrics.actions.labels("person").inc()
            elif isinstance(message, Next):
                await self.live.next_deal(client.seat)
            elif isinstance(message, Ping):
                await self.send({"type": "pong"})
            elif isinstance(message, Explain):
                await self.send(await self.live.explain(client.seat, message.action))
            elif isinstance(message, Hint):
                self.pace("hint", HINT_EVERY)
                await self.send(await self.live.hint(client.seat))
            elif isinstance(message, HandOver):
                await self.live.hand_over(client.seat, message.bot)
            elif isinstance(message, Leave):
                await self.live.give_up(client)
            elif isinstance(message, Say):
                self.pace("say", SAY_EVERY)
                await self.live.say(client.seat, message.phrase, message.text)
            elif isinstance(message, Rematch):
                await self.rematch(message.seats)
            else:
                raise TableError("bad_message", "already joined")
        except TableError as exc:
            await self.error(exc)
        except BiribaError as exc:
            await self.error(TableError.illegal(exc))

    def pace(self, kind: str, every: float) -> None:
        """At most one ``kind`` of request every ``every`` seconds from this connection."""
        now = time.monotonic()
        if now < self.last.get(kind, float("-inf")) + every:
            raise TableError("rate_limited", f"one {kind} every {every:g} seconds")
        self.last[kind] = now

    async def rematch(self, seats: str) -> None:
        """The rematch's id, and with ``same`` seats a token for this person's seat there (if still free)."""
        client = self.client
        assert client is not None
        if client.seat is None and seats == "same":
            raise TableError("spectator", 'a spectator has no seat to keep: ask with "seats": "new", or watch it')
        address = self.websocket.client.host if self.websocket.client else None
        again = await self.hall.rematch(self.live, address)
        answer: dict[str, Any] = {"type": "rematch", "table": again.row.id}
        if seats == "same" and client.seat is not None:
            name = self.live.row.seats[client.seat].name or f"Seat {client.seat}"
            with contextlib.suppress(TableError):  # taken by someone quicker: the page offers the free seats
                answer.update(seat=client.seat, token=await again.sit(client.seat, name))
        await self.send(answer)
