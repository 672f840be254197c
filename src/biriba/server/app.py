"""The web game's HTTP API and WebSocket endpoint (``docs/protocol.md``), as a FastAPI app.

The app checks every message (its size, its form, the seat's token, the
turn, the version, the rate) before the table does, and answers a bad one
with an error to its sender only; the table's state never changes for it.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from ..errors import BiribaError
from ..records import position_to_json
from ..replay import replay_record
from ..rules import OPTION_HELP, OPTION_NAMES, PRESET_HELP, PRESETS, format_option
from .live import Client, Hall, LiveTable, TableError
from .store import Store

STATIC = Path(__file__).parent / "static"
#: The largest message a client may send, in bytes (docs/protocol.md).
MAX_MESSAGE = 4096
#: Messages a connection may send in one second before they are dropped.
RATE = 20
#: Seconds a new connection has to send ``join``.
JOIN_WITHIN = 10.0
#: Close codes (docs/protocol.md).
BAD_TOKEN, NO_TABLE, NO_JOIN = 4401, 4404, 4408


def create_app(db: str | None = None, base_url: str = "") -> FastAPI:
    """The app over the store at ``db`` (default: SQLite in the user's data folder)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await Store.open(db)
        hall = Hall(store, base_url)
        await hall.restore()
        app.state.hall = hall
        # long-lived tables hold many small objects: collect the young ones less often, and leave
        # the start-up's objects out of the collections, so that no full collection stalls a move
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        try:
            yield
        finally:
            await hall.close()
            await store.close()

    app = FastAPI(title="biriba", lifespan=lifespan, docs_url=None, redoc_url=None)

    def hall(request: Request | WebSocket) -> Hall:
        return request.app.state.hall  # type: ignore[no-any-return]

    def refused(exc: TableError, status: int = 400) -> JSONResponse:
        body: dict[str, Any] = {"error": str(exc), "code": exc.code}
        if exc.rule:
            body["rule"] = exc.rule
        return JSONResponse(body, status_code=404 if exc.code == "no_table" else status)

    async def live_table(request: Request, table_id: str) -> LiveTable:
        live = await hall(request).get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        return live

    def with_base(request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Make the invite link absolute (the server learns its address from its first request)."""
        learn(request.app.state.hall, str(request.base_url))
        if data["invite"].startswith("/"):
            data["invite"] = hall(request).base_url + data["invite"]
        return data

    # --------------------------------------------------------------- pages
    @app.get("/", include_in_schema=False)
    @app.get("/t/{table_id}", include_in_schema=False)
    async def page(table_id: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    # ----------------------------------------------------------------- API
    @app.get("/api/rules")
    async def rules() -> dict[str, Any]:
        presets = {
            name: {
                "help": PRESET_HELP.get(name, ""),
                "options": {k: format_option(getattr(preset, k)) for k in OPTION_NAMES},
            }
            for name, preset in PRESETS.items()
        }
        options = {
            name: {"help": OPTION_HELP[name], "value": format_option(getattr(PRESETS["classic"], name))}
            for name in OPTION_NAMES
        }
        return {"presets": presets, "options": options}

    @app.post("/api/tables")
    async def create(request: Request) -> JSONResponse:
        try:
            spec = await request.json()
        except ValueError:
            return refused(TableError("bad_request", "the body is not JSON"))
        if not isinstance(spec, dict):
            return refused(TableError("bad_request", "the body is a JSON object"))
        try:
            live = await hall(request).create(spec)
        except TableError as exc:
            return refused(exc)
        return JSONResponse(with_base(request, live.info()), status_code=201)

    @app.get("/api/tables")
    async def lobby(request: Request, status: str = "open,playing") -> list[dict[str, Any]]:
        wanted = tuple(s for s in status.split(",") if s in ("open", "playing", "over")) or ("open", "playing")
        rows = await hall(request).store.list_tables(wanted, limit=100)
        out = []
        for row in rows:
            live = await hall(request).get(row.id)
            if live is not None:
                out.append(with_base(request, live.info()))
        return out

    @app.get("/api/tables/{table_id}")
    async def table_info(request: Request, table_id: str) -> JSONResponse:
        try:
            live = await live_table(request, table_id)
        except TableError as exc:
            return refused(exc)
        return JSONResponse(with_base(request, live.info()))

    @app.post("/api/tables/{table_id}/seats/{seat}")
    async def sit(request: Request, table_id: str, seat: int) -> JSONResponse:
        try:
            live = await live_table(request, table_id)
            try:
                body = await request.json()
            except ValueError:
                body = None
            name = body.get("name") if isinstance(body, dict) else None
            if not isinstance(name, str) or not 1 <= len(name.strip()) <= 30:
                raise TableError("bad_request", "name: 1 to 30 characters")
            token = await live.sit(seat, name.strip())
        except TableError as exc:
            return refused(exc, 409 if exc.code == "taken" else 400)
        return JSONResponse({"seat": seat, "token": token})

    @app.get("/api/tables/{table_id}/record")
    async def record(request: Request, table_id: str) -> JSONResponse:
        try:
            live = await live_table(request, table_id)
        except TableError as exc:
            return refused(exc)
        if not live.table.match.is_over:
            return JSONResponse({"error": "the record holds the decks: it is given once the match is over"}, 403)
        return JSONResponse(live.table.match.to_record())

    @app.get("/api/tables/{table_id}/replay")
    async def replay(request: Request, table_id: str, deal: int = 1, step: int = 0) -> JSONResponse:
        try:
            live = await live_table(request, table_id)
        except TableError as exc:
            return refused(exc)
        match = live.table.match
        if not match.is_over:
            return JSONResponse({"error": "the replay opens once the match is over"}, 403)
        if not 1 <= deal <= len(match.deals):
            return JSONResponse({"error": f"deal: 1..{len(match.deals)}"}, 400)
        history = match.deals[deal - 1].history
        if not 0 <= step <= len(history):
            return JSONResponse({"error": f"step: 0..{len(history)}"}, 400)
        record = match.to_record()
        record["deals"] = record["deals"][:deal]
        record["deals"][-1] = {**record["deals"][-1], "actions": record["deals"][-1]["actions"][:step]}
        record["deals"][-1].pop("result", None)
        replayed = replay_record(record).deals[-1]
        body = position_to_json(replayed)  # every hand open: the match is over
        body.update(
            over=replayed.is_over,
            result=replayed.result().to_json() if replayed.is_over else None,
            actions=step,
            total=len(history),
            action=str(history[step - 1][1]) if step else None,
            seat=history[step - 1][0] if step else None,
        )
        return JSONResponse(body)

    # ----------------------------------------------------------- WebSocket
    @app.websocket("/ws/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        learn(hall(websocket), str(websocket.base_url).replace("ws", "http", 1))
        live = await hall(websocket).get(table_id)
        if live is None:
            await websocket.close(NO_TABLE, "no such table")
            return
        connection = Connection(websocket, live)
        await connection.run()

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def learn(the_hall: Hall, base: str) -> None:
    """The server's own address, from the first request, for absolute invite links."""
    if not the_hall.base_url:
        the_hall.base_url = base.rstrip("/")
        for live in the_hall.live.values():
            live.base_url = the_hall.base_url


class Connection:
    """One client's connection: join, then messages, each checked before the table sees it."""

    def __init__(self, websocket: WebSocket, live: LiveTable) -> None:
        self.websocket = websocket
        self.live = live
        self.client: Client | None = None
        self.recent: deque[float] = deque()

    async def send(self, message: dict[str, Any]) -> None:
        await self.websocket.send_text(json.dumps(message))

    async def error(self, code: str, message: str, rule: str | None = None) -> None:
        body = {"type": "error", "code": code, "message": message}
        if rule:
            body["rule"] = rule
        await self.send(body)

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
            if message.get("type") != "join":
                await self.error("not_joined", 'join first: {"type": "join", "token": ..., "since": 0}')
                continue
            token = message.get("token")
            since = message.get("since", 0)
            if (token is not None and not isinstance(token, str)) or not isinstance(since, int) or since < 0:
                await self.error("bad_message", "join: token is a string or null, since a number from 0")
                continue
            try:
                seat = self.live.seat_of(token)
            except TableError as exc:
                await self.error(exc.code, str(exc))
                await self.websocket.close(BAD_TOKEN, "bad token")
                raise WebSocketDisconnect(BAD_TOKEN) from None
            self.client = Client(seat, self.send, sent=min(since, self.live.version))
            await self.live.join(self.client)

    async def receive(self) -> dict[str, Any] | None:
        """The next message, checked for form, size and rate; None (after an error to the client) if bad."""
        raw = await self.websocket.receive()
        if raw["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(raw.get("code", 1000))
        now = time.monotonic()
        self.recent.append(now)
        while self.recent and self.recent[0] < now - 1:
            self.recent.popleft()
        if len(self.recent) > RATE:
            if len(self.recent) == RATE + 1:
                await self.error("rate_limited", f"more than {RATE} messages in a second: dropped")
            return None
        text = raw.get("text")
        if text is None:
            await self.error("bad_message", "messages are JSON text frames, not binary")
            return None
        if len(text.encode()) > MAX_MESSAGE:
            await self.error("too_large", f"a message is at most {MAX_MESSAGE} bytes")
            return None
        try:
            message = json.loads(text)
        except ValueError:
            await self.error("bad_message", "not JSON")
            return None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self.error("bad_message", 'a message is a JSON object with a "type"')
            return None
        return message

    async def handle(self, message: dict[str, Any]) -> None:
        assert self.client is not None
        kind = message["type"]
        try:
            if kind == "action":
                action, version = message.get("action"), message.get("version")
                if not isinstance(action, str) or not isinstance(version, int):
                    raise TableError("bad_message", 'action: {"type": "action", "action": "draw", "version": 12}')
                await self.live.act(self.client.seat, action, version)
            elif kind == "next":
                await self.live.next_deal(self.client.seat)
            elif kind == "ping":
                await self.send({"type": "pong"})
            elif kind == "join":
                raise TableError("bad_message", "already joined")
            else:
                raise TableError("bad_message", f"unknown message type {kind[:20]!r}")
        except TableError as exc:
            await self.error(exc.code, str(exc), exc.rule)
        except BiribaError as exc:
            await self.error("illegal", str(exc))
