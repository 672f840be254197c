"""Many server processes on one store: who drives each table, and the messages between the processes.

Modelled on what game sites run (docs/deploy.md): as in Colyseus, a table
is driven by one process at a time, its *owner*, which plays its bots, runs
its clocks and commits its actions; as in lila-ws, every other process that
has clients at the table keeps a *follower* copy of it, sends its clients'
requests to the owner and relays the owner's changes to them.  Any process
accepts any client, so a load balancer needs no stickiness.

- **Ownership** is a lease in the store (:meth:`~.store.Store.claim`):
  the owner renews it every beat; when it stops (killed, frozen, cut off),
  the lease runs out and a follower takes the table over within seconds.
  Each claim starts a new *epoch*, and the store refuses a write whose
  epoch is not the table's (:class:`~.store.Fenced`), so an owner that lost
  its lease while frozen can never commit to that table again.
- **Changes** go out through Redis pub/sub, one channel per table, after
  their commit: the deal (its deck: the message stays between servers),
  each action, the seats and settings, and what the owner knows of who is
  connected.  A follower replays them on its copy in order of version;
  a gap (a lost message, Redis restarted) is filled from the store, as a
  reconnecting client's is, and every beat compares its version with the
  store's.
- **Requests** (an action, a seat taken, the next deal...) go to the
  owner's own channel and are answered on the sender's once committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

LOG = logging.getLogger("biriba.server.cluster")

#: The prefix of every channel (so that one Redis may serve other things too).
PREFIX = "biriba"

Handler = Callable[[dict[str, Any]], Awaitable[None]]


def new_node() -> str:
    """A process's name in the cluster and in the store's leases: random, so that a restart is another node.

    Never the host's name or the process id: ``/healthz`` tells it to whoever asks.
    """
    return secrets.token_hex(8)


class Unreachable(Exception):
    """The owner did not answer in time (dead, frozen, or Redis down)."""


@dataclass
class Bus:
    """Redis pub/sub: the node's own channel, and a channel per table it follows or owns.

    One subscriber connection reads every channel in order; if Redis goes
    away it is opened again (every second until it answers) and the
    channels subscribed again, and ``on_reconnect`` lets the tables fill
    what they missed from the store.
    """

    url: str
    node: str
    on_message: Handler
    on_reconnect: Callable[[], Awaitable[None]]
    channels: set[str] = field(default_factory=set)
    client: Any = None
    pubsub: Any = None
    reader: asyncio.Task[None] | None = None
    connected: bool = False

    async def start(self) -> None:
        import redis.asyncio as aioredis

        self.client = aioredis.from_url(self.url, socket_timeout=5, socket_connect_timeout=2)
        self.channels.add(node_channel(self.node))
        await self._subscribe()  # the first connection must work: a wrong --redis is told at start
        self.reader = asyncio.create_task(self._read(), name="bus reader")

    async def _subscribe(self) -> None:
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(*self.channels)
        self.connected = True

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.client.aclose()

    async def publish(self, channel: str, message: dict[str, Any]) -> bool:
        """Send; False if Redis is away (the store still holds every change: followers catch up from it)."""
        try:
            await self.client.publish(channel, json.dumps(message))
            return True
        except Exception as exc:
            LOG.warning("bus: cannot publish to %s (%s)", channel, exc)
            return False

    async def follow(self, channel: str) -> None:
        if channel not in self.channels:
            self.channels.add(channel)
            with contextlib.suppress(Exception):  # Redis away: subscribed again on reconnecting
                await self.pubsub.subscribe(channel)

    async def unfollow(self, channel: str) -> None:
        if channel in self.channels:
            self.channels.discard(channel)
            with contextlib.suppress(Exception):
                await self.pubsub.unsubscribe(channel)

    async def _read(self) -> None:
        while True:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
                if message is not None and message.get("type") == "message":
                    try:
                        await self.on_message(json.loads(message["data"]))
                    except Exception:
                        LOG.exception("bus: a message failed to apply")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.connected = False
                LOG.warning("bus: Redis is away (%s); connecting again", exc)
                await self._reconnect()

    async def _reconnect(self) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()
            await asyncio.sleep(1.0)
            try:
                await self._subscribe()
            except Exception:
                continue
            LOG.warning("bus: Redis is back")
            with contextlib.suppress(Exception):
                await self.on_reconnect()
            return


def node_channel(node: str) -> str:
    return f"{PREFIX}:node:{node}"


def table_channel(table_id: str) -> str:
    return f"{PREFIX}:table:{table_id}"


@dataclass
class Cluster:
    """This process's part in the cluster: its node id, its bus, and the requests it waits answers to."""

    redis_url: str
    request_timeout: float = 5.0  # seconds an owner may take to answer before the client is told to try again
    node: str = field(default_factory=new_node)
    bus: Bus | None = None
    waiting: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    on_table: Handler | None = None  # another process's message about a table
    on_request: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None  # answers {"result"|"error"}

    async def start(
        self,
        on_table: Handler,
        on_request: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
        on_reconnect: Callable[[], Awaitable[None]],
    ) -> None:
        self.on_table = on_table
        self.on_request = on_request
        self.bus = Bus(self.redis_url, self.node, self._dispatch, on_reconnect)
        await self.bus.start()

    async def close(self) -> None:
        if self.bus is not None:
            await self.bus.close()

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "reply":
            future = self.waiting.pop(message["id"], None)
            if future is not None and not future.done():
                future.set_result(message)
        elif kind == "request":
            asyncio.create_task(self._answer(message))  # noqa: RUF006 (the answer is sent when it is done)
        elif message.get("node") != self.node and self.on_table is not None:  # a change, presence, chat
            await self.on_table(message)

    async def _answer(self, request: dict[str, Any]) -> None:
        assert self.bus is not None and self.on_request is not None
        try:
            answer = await self.on_request(request)
        except Exception as exc:
            LOG.exception("a request from %s failed", request.get("from"))
            answer = {"error": {"code": "failed", "message": str(exc)}}
        await self.bus.publish(node_channel(request["from"]), {"t": "reply", "id": request["id"], **answer})

    async def request(self, owner: str, table_id: str, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """Ask the table's owner to do ``op``; its reply (``result`` or ``error``) once committed."""
        assert self.bus is not None
        rid = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = future
        message = {"t": "request", "id": rid, "from": self.node, "table": table_id, "op": op, "args": args}
        try:
            if not await self.bus.publish(node_channel(owner), message):
                raise Unreachable(owner)
            return await asyncio.wait_for(future, self.request_timeout)
        except TimeoutError:
            raise Unreachable(owner) from None
        finally:
            self.waiting.pop(rid, None)

    async def publish(self, table_id: str, message: dict[str, Any]) -> None:
        """A table's change, or this node's presence at it, to every other process that follows it."""
        assert self.bus is not None
        await self.bus.publish(table_channel(table_id), {**message, "table": table_id, "node": self.node})

    async def follow(self, table_id: str) -> None:
        assert self.bus is not None
        await self.bus.follow(table_channel(table_id))

    async def unfollow(self, table_id: str) -> None:
        assert self.bus is not None
        await self.bus.unfollow(table_channel(table_id))
