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
import gc
import json
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Query, Request, WebSocket
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection
from starlette.routing import Match

from .. import caches
from ..bots import known_kinds
from ..rules import OPTION_HELP, OPTION_LIMITS, OPTION_NAMES, PRESET_HELP, PRESETS, format_option
from .accounts import SESSION_SECONDS, Account, SignedIn, named
from .cluster import Cluster
from .config import ServerConfig
from .connection import FORBIDDEN_ORIGIN, NO_TABLE, TRY_AGAIN_LATER, Abortable, Connection
from .hall import Hall, address_key
from .live import LiveTable
from .messages import STATUS, TableError, store_away
from .metrics import Metrics
from .passkeys import Site
from .ratings import LEADERBOARD_MATCHES
from .replays import CACHE_CONTROL, NAMED, Kept
from .schema import (
    BlockAsk,
    Blocked,
    BlockList,
    BoundSeat,
    BoundSeats,
    CreateTable,
    Credentials,
    Error,
    Health,
    Leaderboard,
    Lobby,
    Me,
    PasskeyAnswer,
    PasskeyInfo,
    PasskeyList,
    PasskeyOptions,
    PasswordChange,
    PasswordOnly,
    Profile,
    QuickAsk,
    QuickStatus,
    ReportAsk,
    ReportMade,
    RulesCatalogue,
    Seated,
    SeatHeld,
    SitDown,
    TableInfo,
    refusal,
)
from .store import RETRY_AFTER, Store, Unavailable
from .thinking import OutOfRange, Thinkers, replay_position

STATIC = Path(__file__).parent / "static"
#: The session cookie's name (its value: the session's token, which the store keeps only as a hash).
SESSION_COOKIE = "biriba_session"
#: The most tables a lobby page holds.
LOBBY_PAGE = 100
#: Seconds between the WebSocket ping frames ``biriba serve`` sends each client (browsers answer them by
#: themselves): no connection to a live process is silent longer, so a proxy's read timeout (10 s in
#: deploy/nginx/biriba.conf) closes only a frozen process's connections.
KEEPALIVE_EVERY = 5.0
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
#: What an account's own request may meet besides: not signed in, or a write without its CSRF token.
SIGNED_ERRORS: dict[int | str, dict[str, Any]] = {401: {"model": Error}, 403: {"model": Error}, **ERRORS}


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
    app.add_middleware(Abortable)
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
        headers = exc.headers
        if exc.status_code == 405 and (methods := allowed_methods(request)):
            headers = {**(headers or {}), "Allow": methods}
        return JSONResponse({"error": message, "code": code}, status_code=exc.status_code, headers=headers)

    async def live_table(request: Request, table_id: str) -> LiveTable:
        live = await hall(request).get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        return live

    # --------------------------------------------------------------- pages
    @app.get("/", include_in_schema=False)
    @app.get("/t/{table_id}", include_in_schema=False)
    @app.get("/p/{name}", include_in_schema=False)
    @app.get("/leaderboard", include_in_schema=False)
    @app.get("/play", include_in_schema=False)
    async def page(table_id: str | None = None, name: str | None = None) -> FileResponse:
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

    @app.post("/api/tables/{table_id}/seats/{seat}", response_model=Seated, responses={403: {"model": Error}, **ERRORS})
    async def sit(
        request: Request, table_id: TableId, seat: Annotated[int, PathParam(ge=0, le=5)], body: SitDown
    ) -> dict[str, Any]:
        """Sit down at a person's free seat under a name; the token that comes back is the seat's key.  Signed in
        (with ``X-CSRF-Token``), the seat is bound to the account and sits under its name."""
        live = await live_table(request, table_id)
        found = await hall(request).accounts.who(request.cookies.get(SESSION_COOKIE))
        if found is None:
            return {"seat": seat, "token": await live.sit(seat, body.name)}
        account, csrf = found
        check_csrf(request, csrf)
        return {"seat": seat, "token": await live.sit(seat, account.name, account.id)}

    @app.post(
        "/api/tables/{table_id}/seats/{seat}/token",
        response_model=Seated,
        responses=SIGNED_ERRORS,
    )
    async def take_back(request: Request, table_id: TableId, seat: Annotated[int, PathParam(ge=0, le=5)]) -> Any:
        """A new token for a seat bound to the signed-in account, on the device they are on now: the old token
        is void, and a connection made with it watches from then on."""
        account, _ = await account_of(request, write=True)
        live = await live_table(request, table_id)
        token = await live.take_back(seat, account.id)
        await hall(request).quick.seated(account, table_id)  # a seat quick play found: taken
        return {"seat": seat, "token": token}

    @app.post("/api/quick", response_model=QuickStatus, responses=SIGNED_ERRORS)
    async def quick_play(request: Request, body: QuickAsk) -> dict[str, Any]:
        """Play now: wait for a table of this preset with players of a similar rating (bots fill the seats nobody
        comes to within ``wait`` seconds, if ``bots``); ``GET /api/quick`` says when it is found."""
        account, _ = await account_of(request, write=True)
        return await hall(request).quick.join(account, body.rules, body.bots, body.wait, body.partner)

    @app.get("/api/quick", response_model=QuickStatus, response_model_exclude_none=True, responses=SIGNED_ERRORS)
    async def quick_status(request: Request) -> dict[str, Any]:
        """Where the signed-in player's quick play stands: waiting, or seated (take the seat with ``.../token``)."""
        account, _ = await account_of(request)
        return await hall(request).quick.status(account)

    @app.delete("/api/quick", status_code=204, responses=SIGNED_ERRORS)
    async def quick_leave(request: Request) -> Response:
        """Stop waiting."""
        account, _ = await account_of(request, write=True)
        await hall(request).quick.leave(account)
        return Response(status_code=204)

    @app.get("/api/tables/{table_id}/record", responses={403: {"model": Error}, **ERRORS})
    async def record(request: Request, table_id: TableId) -> Response:
        """The game record (``biriba-record/1``) once the match is over: before, it would show the decks."""
        address = client_address(request)
        kept = await hall(request).replays.answer(
            address, lambda: record_key(request, table_id), lambda: record_body(request, table_id)
        )
        return kept_response(request, kept, NAMED)

    @app.post("/api/tables/{table_id}/analysis", status_code=202, responses={403: {"model": Error}, **ERRORS})
    async def ask_analysis(request: Request, table_id: TableId) -> dict[str, Any]:
        """Analyse the finished match (once: whoever asks next reads it); where the analysis stands."""
        live = await live_table(request, table_id)
        return await hall(request).analyses.ask(live, client_address(request))

    @app.get("/api/tables/{table_id}/analysis", responses={403: {"model": Error}, **ERRORS})
    async def analysis(request: Request, table_id: TableId) -> dict[str, Any]:
        """The match's analysis (``biriba-analysis/1``) once made, else where it stands; 404 if never asked."""
        live = await live_table(request, table_id)
        return await hall(request).analyses.status(table_id, list(live.table.match.players))

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
            key = await record_key(request, table_id)
            kept = await replays.fetch(address, key, lambda: record_body(request, table_id))
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

    async def record_key(request: Request, table_id: str) -> tuple[str, ...]:
        """What the record is kept by: the table and its seats' names now (a deleted account's seat is renamed)."""
        live = await live_table(request, table_id)
        return ("record", table_id, *live.table.match.players)

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

    # ------------------------------------------------------------ accounts
    def signed_in(response: Response, request: Request, session: SignedIn) -> dict[str, Any]:
        """Set the session cookie: not for scripts (HttpOnly), not sent with other sites' writes (Lax), Secure
        over TLS (behind a proxy, the scheme it forwards: ``--forwarded-allow-ips``); the answer is never cached."""
        response.headers["Cache-Control"] = "no-store"  # it holds the CSRF token
        response.set_cookie(
            SESSION_COOKIE,
            session.token,
            max_age=int(SESSION_SECONDS),
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
            path="/",
        )
        return {"name": session.account.name, "csrf": session.csrf}

    def same_site(request: Request) -> None:
        """A sign-up or sign-in from another site's page is refused (login CSRF): browsers send an Origin."""
        if not origin_allowed(request, config):
            raise TableError("csrf", "this site's pages only")

    @app.post("/api/accounts", status_code=201, response_model=Me, responses={403: {"model": Error}, **ERRORS})
    async def sign_up(request: Request, response: Response, body: Credentials) -> dict[str, Any]:
        """A new account, signed in: the session cookie comes with the answer."""
        same_site(request)
        the_hall = hall(request)
        session = await the_hall.accounts.sign_up(body.name, body.password, client_address(request))
        if old := request.cookies.get(SESSION_COOKIE):
            await the_hall.accounts.sign_out(old)  # a session the client came with ends, as at sign-in
        return signed_in(response, request, session)

    @app.post("/api/session", response_model=Me, responses=SIGNED_ERRORS)
    async def sign_in(request: Request, response: Response, body: Credentials) -> dict[str, Any]:
        """Sign in: a new session (any the client had ends).  An unknown name and a wrong password are told alike."""
        same_site(request)
        old = request.cookies.get(SESSION_COOKIE)
        session = await hall(request).accounts.sign_in(body.name, body.password, client_address(request), old)
        return signed_in(response, request, session)

    async def account_of(request: Request, write: bool = False) -> tuple[Account, str]:
        """The account the session cookie signs in, and its CSRF token (401 if nobody); a write made with the
        cookie must carry that token in ``X-CSRF-Token`` (403 without), which another site's page cannot read."""
        found = await hall(request).accounts.who(request.cookies.get(SESSION_COOKIE))
        if found is None:
            raise TableError("signed_out", "not signed in")
        if write:
            check_csrf(request, found[1])
        return found

    def check_csrf(request: Request, csrf: str) -> None:
        if not secrets.compare_digest(request.headers.get("x-csrf-token", ""), csrf):
            raise TableError("csrf", "a write signed in with the cookie carries its X-CSRF-Token")

    def signed_out() -> Response:
        response = Response(status_code=204)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
        return response

    @app.delete("/api/session", status_code=204, responses={403: {"model": Error}, **ERRORS})
    async def sign_out(request: Request) -> Response:
        """Sign out: the session ends here and on every device that held its cookie (with ``X-CSRF-Token``)."""
        token = request.cookies.get(SESSION_COOKIE)
        if token is not None and await hall(request).accounts.who(token) is not None:
            await account_of(request, write=True)  # the CSRF token checked
            await hall(request).accounts.sign_out(token)
        return signed_out()

    @app.get("/api/me", response_model=Me, responses=ERRORS)
    async def me(request: Request, response: Response) -> dict[str, Any]:
        """Who the session cookie signs in, and the session's CSRF token for the page's writes; nulls for a guest
        (a guest is no error: the page asks at every visit)."""
        response.headers["Cache-Control"] = "no-store"  # the CSRF token: never kept by a cache
        found = await hall(request).accounts.who(request.cookies.get(SESSION_COOKIE))
        account, csrf = found if found is not None else (None, None)
        return {"name": account.name if account else None, "csrf": csrf}

    @app.get("/api/players/{name}", response_model=Profile, response_model_exclude_none=True, responses=ERRORS)
    async def profile(request: Request, name: Annotated[str, PathParam(min_length=1, max_length=60)]) -> Any:
        """A player's public profile: ratings by preset family, and their latest finished matches."""
        the_hall = hall(request)
        account = await named(the_hall.store, name)
        return {"name": account.name, **await the_hall.ratings.profile(account.id)}

    @app.get("/api/leaderboard", response_model=Leaderboard, responses=ERRORS)
    async def leaderboard(
        request: Request, rules: Annotated[str, Query(pattern=r"^[a-z-]{1,32}$")] = "classic"
    ) -> dict[str, Any]:
        """The players of a preset family with enough rated matches, the surest strongest first."""
        if rules not in PRESETS:
            raise TableError("invalid", f"rules: no preset is called {rules!r} (the presets: {', '.join(PRESETS)})")
        players = await hall(request).ratings.leaderboard(rules)
        return {"rules": rules, "least_matches": LEADERBOARD_MATCHES, "players": players}

    @app.get("/api/me/seats", response_model=BoundSeats, responses={401: {"model": Error}, **ERRORS})
    async def my_seats(request: Request) -> dict[str, Any]:
        """The seats bound to the signed-in account at tables not yet over (``.../token`` takes one back)."""
        account, _ = await account_of(request)
        return {"seats": await hall(request).accounts.seats_of(account)}

    @app.post("/api/me/seats", response_model=BoundSeat, responses=SIGNED_ERRORS)
    async def bind_seat(request: Request, body: SeatHeld) -> dict[str, Any]:
        """Bind a seat this device holds (its token) to the signed-in account: a guest who signs up keeps it."""
        account, _ = await account_of(request, write=True)
        live = await live_table(request, body.table)
        await live.bind(body.seat, body.token, account.id)
        return {"table": body.table, "seat": body.seat, "name": live.row.seats[body.seat].name, "status": live.status()}

    @app.post("/api/me/password", response_model=Me, responses=SIGNED_ERRORS)
    async def change_password(request: Request, response: Response, body: PasswordChange) -> dict[str, Any]:
        """A new password (the present one asked again): every session of the account ends, this one starts anew."""
        account, _ = await account_of(request, write=True)
        accounts = hall(request).accounts
        session = await accounts.change_password(account, body.password, body.new_password, client_address(request))
        return signed_in(response, request, session)

    @app.delete("/api/me", status_code=204, responses=SIGNED_ERRORS)
    async def delete_account(request: Request, body: PasswordOnly) -> Response:
        """The account deleted (its password asked again), its sessions ended, its name free again; its matches
        stay, its seats at them named "former player"."""
        account, _ = await account_of(request, write=True)
        await hall(request).accounts.confirm(account, body.password, client_address(request))
        await hall(request).delete_account(account)
        return signed_out()

    @app.get("/api/me/export", responses={401: {"model": Error}, **ERRORS})
    async def export(request: Request) -> dict[str, Any]:
        """Everything the server keeps of the account, as JSON (``biriba-account/1``)."""
        account, _ = await account_of(request)
        the_hall = hall(request)
        return {
            **await the_hall.accounts.export(account),
            "passkeys": await the_hall.passkeys.of(account),
            "blocks": await the_hall.moderation.blocked_by(account),
            "reports": await the_hall.moderation.reports_by(account),
        }

    # ------------------------------------------------------- blocks, reports
    @app.get("/api/me/blocks", response_model=BlockList, responses=SIGNED_ERRORS)
    async def my_blocks(request: Request) -> dict[str, Any]:
        """The players the signed-in account blocks."""
        account, _ = await account_of(request)
        return {"blocks": await hall(request).moderation.blocked_by(account)}

    @app.post("/api/me/blocks", status_code=201, response_model=Blocked, responses=SIGNED_ERRORS)
    async def block(request: Request, body: BlockAsk) -> dict[str, Any]:
        """Block a player: never seated together by quick play, their chat hidden from this account."""
        account, _ = await account_of(request, write=True)
        the_hall = hall(request)
        blocked = await the_hall.moderation.block(account, body.name)
        await the_hall.hidden_changed(account.id)
        return blocked

    @app.delete("/api/me/blocks/{name}", status_code=204, responses=SIGNED_ERRORS)
    async def unblock(request: Request, name: Annotated[str, PathParam(min_length=1, max_length=60)]) -> Response:
        account, _ = await account_of(request, write=True)
        the_hall = hall(request)
        await the_hall.moderation.unblock(account, name)
        await the_hall.hidden_changed(account.id)
        return Response(status_code=204)

    @app.post("/api/reports", status_code=201, response_model=ReportMade, responses=SIGNED_ERRORS)
    async def report(request: Request, body: ReportAsk) -> dict[str, Any]:
        """Report a player to the site's operators (``biriba moderate reports`` lists them)."""
        account, _ = await account_of(request, write=True)
        return {"id": await hall(request).moderation.report(account, body.name, body.table, body.reason)}

    # ------------------------------------------------------------ passkeys
    def site(request: Request) -> Site:
        """The relying party: the configured public address, else this request's own (behind a proxy, the Host
        and scheme it forwards)."""
        return Site.of(base(request))

    @app.post("/api/me/passkey-options", response_model=PasskeyOptions, responses=SIGNED_ERRORS)
    async def passkey_options(request: Request, response: Response, body: PasswordOnly) -> dict[str, Any]:
        """The options for ``navigator.credentials.create``: a passkey for the signed-in account (its password
        asked again)."""
        account, _ = await account_of(request, write=True)
        response.headers["Cache-Control"] = "no-store"
        passkeys = hall(request).passkeys
        return await passkeys.register_options(account, body.password, site(request), client_address(request))

    @app.post("/api/me/passkeys", status_code=201, response_model=PasskeyInfo, responses=SIGNED_ERRORS)
    async def add_passkey(request: Request, body: PasskeyAnswer) -> dict[str, Any]:
        """Keep the passkey the browser made for the options' challenge: it signs this account in from now on."""
        account, _ = await account_of(request, write=True)
        return await hall(request).passkeys.register(account, body.handle, body.credential, site(request))

    @app.get("/api/me/passkeys", response_model=PasskeyList, responses=SIGNED_ERRORS)
    async def my_passkeys(request: Request) -> dict[str, Any]:
        """The signed-in account's passkeys."""
        account, _ = await account_of(request)
        return {"passkeys": await hall(request).passkeys.of(account)}

    @app.delete("/api/me/passkeys/{key_id}", status_code=204, responses=SIGNED_ERRORS)
    async def remove_passkey(
        request: Request, key_id: Annotated[str, PathParam(min_length=1, max_length=1400)]
    ) -> Response:
        """One of the account's passkeys signs in no more."""
        account, _ = await account_of(request, write=True)
        await hall(request).passkeys.remove(account, key_id)
        return Response(status_code=204)

    @app.post("/api/session/passkey-options", response_model=PasskeyOptions, responses=SIGNED_ERRORS)
    async def passkey_sign_in_options(request: Request, response: Response) -> dict[str, Any]:
        """The options for ``navigator.credentials.get``: the browser offers the passkeys it holds for this site."""
        same_site(request)
        response.headers["Cache-Control"] = "no-store"
        return await hall(request).passkeys.sign_in_options(site(request), client_address(request))

    @app.post("/api/session/passkey", response_model=Me, responses=SIGNED_ERRORS)
    async def passkey_sign_in(request: Request, response: Response, body: PasskeyAnswer) -> dict[str, Any]:
        """Sign in with a passkey: a new session (any the client had ends), as a password's sign-in."""
        same_site(request)
        old = request.cookies.get(SESSION_COOKIE)
        session = await hall(request).passkeys.sign_in(
            body.handle, body.credential, site(request), client_address(request), old
        )
        return signed_in(response, request, session)

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
        await Connection(websocket, live, metrics, hall(websocket), client_address(websocket), config.send_limits).run()

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


def client_address(connection: HTTPConnection) -> str:
    """Whom the quotas count: a hash of the client's address (behind a named proxy, the one it forwards), as
    the store and Redis keep it."""
    return address_key(connection.client.host if connection.client else None)


def json_bytes(data: Any) -> bytes:
    """JSON as the API's answers write it (compact, UTF-8)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def kept_response(request: Request, kept: Kept, cache_control: str = CACHE_CONTROL) -> Response:
    """A finished match's answer with its ETag (immutable unless told otherwise); 304 to a client that has it."""
    headers = {"ETag": kept.etag, "Cache-Control": cache_control}
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
        "connections": ("WebSocket connections", sum(the_hall.connections.values())),
        "clients_queued": (
            "Messages waiting in the clients' queues, all told",
            sum(len(c.waiting) for t in live for c in t.audience.clients),
        ),
        "engine_cache_total": ("Entries in the engine's caches, all told", caches.total()),
        "engine_cache_budget": ("The entries the engine's caches may hold before they are cleared", caches.budget()),
        "engine_cache_clears": ("Times the engine's caches were cleared", caches.clears()),
        "gc_pause_seconds": ("How long the janitor's last full collection of garbage took", the_hall.last_pause),
        "tables_driven": ("Live tables this process drives (owns)", sum(1 for t in live if t.owned)),
        "tables_followed": ("Live tables another process drives, followed here", sum(1 for t in live if not t.owned)),
        "takeovers": ("Tables this process took over from another whose lease ran out", the_hall.takeovers),
        "tables_broken": ("Tables stopped because their driver raised (a fault of the server)", the_hall.broken),
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


def allowed_methods(request: Request) -> str:
    """Every method the request's path takes, for a 405's ``Allow``: Starlette's names only the first route's
    (``POST`` alone for ``/api/tables``, which takes ``GET`` too)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _child = route.matches(request.scope)
        if match is not Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return ", ".join(sorted(methods))


def origin_allowed(websocket: HTTPConnection, config: ServerConfig) -> bool:
    """A browser's WebSocket or sign-in comes from a page of this site (its own host, the public URL, or one allowed).

    Without this check any site a player visits could open a socket in the
    player's name (cross-site WebSocket hijacking).  A client that is not a
    browser sends no Origin, and has no one's cookies or tokens to abuse.
    Behind a proxy, the Host is what the proxy passes on: the browser's own,
    port included (nginx's ``$http_host``, as deploy/nginx/biriba.conf does),
    so that no ``--public-url`` is needed for the page's Origin to match.
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
    """Refuses a request body larger than ``most`` bytes with a 413 in the protocol's shape, reading no further.

    A declared length is checked before anything is read.  A chunked body
    (no length) is read here, up to the limit, and handed on whole: refused
    while the app reads it, it would be FastAPI's 400 (any error while a
    body is read becomes one).
    """

    def __init__(self, app: Callable[..., Awaitable[None]], most: int) -> None:
        self.app = app
        self.most = most

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.most:
            await self.refuse(send)
            return
        if declared is not None or b"transfer-encoding" not in headers:  # held to its length by the server, or none
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message: MutableMapping[str, Any] = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > self.most:
                await self.refuse(send)
                return
            if not message.get("more_body", False):
                break
        whole: list[MutableMapping[str, Any]] = [{"type": "http.request", "body": bytes(body), "more_body": False}]

        async def replayed() -> MutableMapping[str, Any]:
            return whole.pop() if whole else await receive()

        await self.app(scope, replayed, send)

    async def refuse(self, send: Any) -> None:
        body = json.dumps({"error": f"the body is larger than {self.most} bytes", "code": "too_large"}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": [*headers, *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})
