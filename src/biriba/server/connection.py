"""One WebSocket at a table (docs/protocol.md): its messages read and checked, its queue written out.

A :class:`Connection` reads the client's messages, each checked for size,
rate and schema before the table sees it, and runs a writer that sends the
client's queue (:class:`~.audience.Client`) on at the pace the client
reads.  The table only ever queues; a client that falls behind is cut off
(:data:`~.audience.FELL_BEHIND`) without the table waiting on it.  Caps on
connections (per address, per address at a table, watchers per table) are
checked as it connects and joins (:data:`~.audience.TOO_MANY` beyond).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import TypeAdapter, ValidationError

from ..errors import BiribaError
from .audience import TOO_MANY, Client, Limits, encode
from .live import LiveTable
from .messages import TableError, store_away
from .metrics import Metrics
from .schema import (
    Act,
    ClientMessage,
    Explain,
    HandOver,
    Hint,
    Join,
    Leave,
    Next,
    Ping,
    Rematch,
    Say,
    refusal,
)
from .store import Unavailable

if TYPE_CHECKING:
    from .hall import Hall

#: The largest message a client may send, in bytes (docs/protocol.md).
MAX_MESSAGE = 4096
#: Messages a connection may send in one second before they are dropped.
RATE = 20
#: Seconds a new connection has to send ``join``.
JOIN_WITHIN = 10.0
#: Seconds a close frame may take to reach a client before its connection is dropped without one.
CLOSE_WITHIN = 2.0
#: Close codes (docs/protocol.md; those of falling behind and of the caps are :mod:`.audience`'s).
BAD_TOKEN, FORBIDDEN_ORIGIN, NO_TABLE, NO_JOIN = 4401, 4403, 4404, 4408
#: Close code of a connection whose table cannot be loaded just now (the store is away): come back shortly.
TRY_AGAIN_LATER = 1013
#: Where :class:`Abortable` leaves a WebSocket's way to drop its connection at once, in the ASGI scope.
ABORT = "biriba.abort"
MESSAGES: TypeAdapter[Any] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = ("join", "action", "next", "ping", "explain", "hint", "hand_over", "leave", "say", "rematch")


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


class Abortable:
    """Puts in a WebSocket's scope a way to drop its connection at once (``transport.abort``).

    A client that reads nothing never takes a close frame: the server's
    buffers stay full and a polite close waits for ever.  ASGI has no way
    to drop a connection, so this outermost middleware takes it from the
    server's protocol object (uvicorn's has a ``transport``); under another
    server the scope has none, and such a client is closed politely only.
    """

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            if transport is not None:
                scope[ABORT] = transport.abort
        await self.app(scope, receive, send)


class Connection:
    """One client's connection: join, then messages, each checked before the table sees it."""

    def __init__(
        self, websocket: WebSocket, live: LiveTable, metrics: Metrics, the_hall: Hall, address: str, limits: Limits
    ) -> None:
        self.websocket = websocket
        self.live = live
        self.metrics = metrics
        self.hall = the_hall
        self.address = address  # a hash of the client's address
        self.limits = limits
        self.client: Client | None = None
        self.writer: asyncio.Task[None] | None = None
        self.closing: asyncio.Task[None] | None = None
        self.recent: deque[float] = deque()

    async def send(self, message: dict[str, Any]) -> None:
        """A message for this client alone: in its queue once it has joined (after what waits there)."""
        if self.client is not None:
            self.client.post(encode(message))
            return
        try:
            async with asyncio.timeout(self.limits.seconds):
                await self.websocket.send_text(encode(message))
        except (RuntimeError, WebSocketDisconnect, TimeoutError) as exc:  # closed meanwhile, or reads nothing
            raise WebSocketDisconnect(1006) from exc

    async def write(self, client: Client) -> None:
        """Send the client's queue on, as fast as it reads; one message that takes too long cuts it off."""
        try:
            while (text := await client.next()) is not None:
                async with asyncio.timeout(client.limits.seconds):
                    await self.websocket.send_text(text)
        except TimeoutError:
            client.fall_behind()
        except (RuntimeError, WebSocketDisconnect, OSError):
            pass  # closed meanwhile: the reader hears of it

    def cut(self, code: int, reason: str) -> None:
        """Close the connection without waiting on the client (it connects again); dropped if it reads nothing."""
        if self.closing is None:
            self.metrics.cut.labels(str(code)).inc()
            self.closing = asyncio.ensure_future(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        if self.writer is not None:
            self.writer.cancel()
        try:
            async with asyncio.timeout(CLOSE_WITHIN):
                await self.websocket.close(code, reason)
        except (TimeoutError, RuntimeError, OSError):
            abort = self.websocket.scope.get(ABORT)
            if abort is not None:
                abort()

    async def refuse(self, refusal: TableError, code: int) -> NoReturn:
        """Refuse the connection: the error, then close with ``code``."""
        self.metrics.cut.labels(str(code)).inc()
        with contextlib.suppress(WebSocketDisconnect):
            await self.error(refusal)
        with contextlib.suppress(RuntimeError, OSError):
            await self.websocket.close(code, str(refusal)[:120])
        raise WebSocketDisconnect(code)

    async def error(self, refusal: TableError) -> None:
        self.metrics.refused.labels(refusal.code).inc()
        await self.send(refusal.message())

    async def run(self) -> None:
        try:
            try:
                await self.hall.connect(self.address)
            except TableError as exc:
                await self.refuse(exc, TOO_MANY)
            try:
                await self.join()
                while self.client is not None and not self.client.gone:
                    message = await self.receive()
                    if message is not None:
                        await self.handle(message)
            finally:
                self.hall.disconnect(self.address)
        except WebSocketDisconnect:
            pass
        finally:
            if self.writer is not None:
                self.writer.cancel()
            if self.closing is not None:  # its close frame, or the drop (held here: a task is held weakly)
                await self.closing
            if self.client is not None:
                self.client.cut = None  # the client's cut is this connection's: no cycle left for the collector
                await self.live.leave(self.client)
            self.client = None

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
                await self.refuse(exc, BAD_TOKEN)
            try:
                self.hall.admit(self.live, seat, self.address)
            except TableError as exc:
                await self.refuse(exc, TOO_MANY)
            since = min(message.since, self.live.version)
            client = Client(seat, since, message.name, self.address, self.limits, self.cut)
            client.same = message.same
            account = self.live.row.seats[seat].account if seat is not None else None
            if account is not None:
                try:
                    client.hidden = await self.hall.moderation.at_table(account)
                except TableError as exc:
                    await self.refuse(exc, BAD_TOKEN)
            self.writer = asyncio.create_task(self.write(client))
            self.client = client
            await self.live.join(client)

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
                await self.hall.pace("hint", self.live, client.seat, self.address)
                await self.send(await self.live.hint(client.seat))
            elif isinstance(message, HandOver):
                await self.live.hand_over(client.seat, message.bot)
            elif isinstance(message, Leave):
                await self.live.give_up(client)
            elif isinstance(message, Say):
                await self.hall.pace("say", self.live, client.seat, self.address)
                await self.live.say(client.seat, message.phrase, message.text)
            elif isinstance(message, Rematch):
                await self.rematch(message.seats)
            else:
                raise TableError("bad_message", "already joined")
        except TableError as exc:
            await self.error(exc)
        except BiribaError as exc:
            await self.error(TableError.illegal(exc))
        except Unavailable:  # a seat handed over, a rematch: said, and nothing changed
            await self.error(store_away())

    async def rematch(self, seats: str) -> None:
        """The rematch's id, and with ``same`` seats a token for this person's seat there (if still free)."""
        client = self.client
        assert client is not None
        if client.seat is None and seats == "same":
            raise TableError("spectator", 'a spectator has no seat to keep: ask with "seats": "new", or watch it')
        again = await self.hall.rematch(self.live, self.address)
        answer: dict[str, Any] = {"type": "rematch", "table": again.row.id}
        if seats == "same" and client.seat is not None:
            name = self.live.row.seats[client.seat].name or f"Seat {client.seat}"
            with contextlib.suppress(TableError):  # taken by someone quicker: the page offers the free seats
                answer.update(seat=client.seat, token=await again.sit(client.seat, name))
        await self.send(answer)
