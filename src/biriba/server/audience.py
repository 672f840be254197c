"""Who is at a table: its connections, each with a bounded queue of what it is to be told, and who is away.

A table tells its clients every change by putting a message in each
client's queue, which never waits: a connection's own writer sends the
queue on, at the pace its client reads.  A client that falls too far
behind (too many messages or bytes waiting, or one message waiting too
long: :class:`Limits`) is cut off with close code :data:`FELL_BEHIND`; it
connects again and is told afresh from the events it saw.  So a client
that never reads costs its table nothing but its own queue.

The :class:`Audience` also keeps who is connected where: the seats and
watchers of this process, those the other processes told of (a cluster's
*presence*), and since when each seat's person has been away, which the
table's driver reads to stand in for them.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

#: Close code of a client that fell behind (docs/protocol.md): connect again, and be told afresh.
FELL_BEHIND = 4420
#: Close code of a connection over a cap: connections per address, per address at a table, or watchers.
TOO_MANY = 4429
#: Close code of a connection whose table's copy here was dropped (docs/protocol.md): connect again.
SERVICE_RESTART = 1012
#: The chat lines a table keeps in memory for whoever joins (chat is not stored).
CHAT_KEPT = 30
#: The most watchers' names a table's info and presence list (``watching`` counts them all).
WATCHERS_LISTED = 20
#: Beats after which a process that told nothing of its clients is taken for gone.
PRESENCE_BEATS = 3
#: The shortest time between two presence messages of a table (a burst of joins and leaves is told as one).
PRESENCE_EVERY = 1.0


@dataclass(frozen=True)
class Limits:
    """How far behind a client may fall before it is cut off (``biriba serve --send-queue`` and the like)."""

    messages: int = 100  # messages waiting to be sent
    bytes: int = 1 << 20  # their size, all told
    seconds: float = 15.0  # how long one message may wait, or take to hand to the network


class SeatLike(Protocol):
    kind: str
    token_hash: str | None


class Client:
    """One connection at a table: its seat (``None`` for a spectator), what it was told, and what waits for it.

    ``cut(code, reason)`` closes the connection at once, without waiting on
    it (the client connects again).  The connection's writer takes what
    waits with :meth:`next` and sends it on.
    """

    def __init__(
        self,
        seat: int | None,
        sent: int = 0,
        name: str | None = None,
        address: str = "",
        limits: Limits = Limits(),
        cut: Callable[[int, str], None] | None = None,
    ) -> None:
        self.seat = seat
        self.sent = sent  # the events it has been told, by number
        self.name = name  # a watcher's name, if it gave one
        self.address = address  # a hash of where it connected from, for the caps
        self.limits = limits
        self.cut = cut
        self.waiting: deque[tuple[str, float]] = deque()  # each message as sent, and when it was queued
        self.bytes = 0
        self.gone = False
        self.ready = asyncio.Event()  # something waits, or the client is gone
        self.hidden: frozenset[str] = frozenset()  # the accounts whose chat it is not told: its person blocks them
        self.same = False  # it fills in what a state message leaves out as the same (``same``: the table's info)
        self.info_told = -1  # the table's info it was told last (its stamp)

    def post(self, text: str) -> None:
        """Queue a message (JSON text); a client too far behind is cut off instead."""
        if self.gone:
            return
        now = time.monotonic()
        self.waiting.append((text, now))
        self.bytes += len(text)
        most = self.limits
        if len(self.waiting) > most.messages or self.bytes > most.bytes or now - self.waiting[0][1] > most.seconds:
            self.fall_behind()
        else:
            self.ready.set()

    async def next(self) -> str | None:
        """The oldest message waiting, once there is one; None once the client is gone (the writer's)."""
        while not self.waiting and not self.gone:
            self.ready.clear()
            await self.ready.wait()
        if self.gone:
            return None
        text, _ = self.waiting.popleft()
        self.bytes -= len(text)
        return text

    def fall_behind(self) -> None:
        """Cut off: too much waits for a client that reads too slowly, or not at all."""
        self.close(FELL_BEHIND, "you fell behind the table; connect again")

    def close(self, code: int, reason: str) -> None:
        """Tell it nothing more, drop what waits, and close its connection."""
        if self.gone:
            return
        self.gone = True
        self.waiting.clear()
        self.bytes = 0
        self.ready.set()
        if self.cut is not None:
            self.cut(code, reason)


def encode(message: dict[str, Any]) -> str:
    """A message as JSON text: orjson's, several times faster than the standard library's (a state message to
    every client after every action was the largest part of a server's work; docs/deploy.md).  Imported here:
    the command line reads this module's limits without the ``web`` extra."""
    import orjson

    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclass
class Audience:
    """The clients at one table on this process, the other processes' (as they told), and who is away."""

    clients: set[Client] = field(default_factory=set)
    #: Other processes' clients at the table: what each last told (its seats and watchers), and when.
    remote: dict[str, tuple[dict[str, Any], float]] = field(default_factory=dict)
    #: The owner's reckoning of the seats' people: connected since when, or away since when.
    connected_since: dict[int, float] = field(default_factory=dict)
    absent_since: dict[int, float] = field(default_factory=dict)
    chat: deque[tuple[dict[str, Any], str | None]] = field(default_factory=lambda: deque(maxlen=CHAT_KEPT))
    idle_since: float = field(default_factory=time.monotonic)  # since the last client here left
    told: tuple[float, dict[str, Any] | None] = (float("-inf"), None)  # the last presence told, and when
    due: asyncio.TimerHandle | None = None  # the next one, if it waits for its second

    # ---------------------------------------------------------- who
    def add(self, client: Client) -> None:
        self.clients.add(client)
        self.idle_since = float("inf")

    def discard(self, client: Client) -> None:
        self.clients.discard(client)
        if not self.clients:
            self.idle_since = time.monotonic()

    def present(self) -> bool:
        """Is anyone connected to the table, here or (as told) on another process?"""
        return bool(self.clients) or bool(self.remote)

    def seats_here(self) -> set[int]:
        return {c.seat for c in self.clients if c.seat is not None}

    def watchers_here(self) -> list[Client]:
        return [c for c in self.clients if c.seat is None]

    def watching(self) -> int:
        """How many watch, here and on the other processes."""
        return len(self.watchers_here()) + sum(int(data.get("watching", 0)) for data, _ in self.remote.values())

    def watcher_names(self) -> list[str | None]:
        """The names of who watches, here first, at most :data:`WATCHERS_LISTED`."""
        names = [c.name for c in self.watchers_here()[:WATCHERS_LISTED]]
        for data, _ in self.remote.values():
            names += data.get("watchers", [])
        return names[:WATCHERS_LISTED]

    def from_address(self, address: str) -> int:
        return sum(1 for c in self.clients if c.address == address)

    def here(self) -> dict[str, Any]:
        """What this process tells the others of its clients at the table."""
        watchers = self.watchers_here()
        return {
            "seats": sorted(self.seats_here()),
            "watchers": [c.name for c in watchers[:WATCHERS_LISTED]],
            "watching": len(watchers),
        }

    def heard(self, node: str, data: dict[str, Any]) -> None:
        """Another process told of its clients here (none: it has none left)."""
        if data.get("seats") or data.get("watching") or data.get("watchers"):
            self.remote[node] = (data, time.monotonic())
        else:
            self.remote.pop(node, None)

    def forget_silent(self, every: float) -> None:
        """Forget the processes that have told nothing for a few beats (gone, or cut off)."""
        stale = time.monotonic() - PRESENCE_BEATS * every
        for node in [n for n, (_, heard) in self.remote.items() if heard < stale]:
            del self.remote[node]

    def reckon(self, seats: Sequence[SeatLike]) -> None:
        """Who is connected, here and on the other processes, and since when each seat's person is away."""
        here = self.seats_here()
        for data, _ in self.remote.values():
            here.update(data.get("seats", ()))
        now = time.monotonic()
        for seat, info in enumerate(seats):
            if seat in here:
                self.connected_since.setdefault(seat, now)
                self.absent_since.pop(seat, None)
            elif self.connected_since.pop(seat, None) is not None or info.token_hash is not None:
                self.absent_since.setdefault(seat, now)  # away since they left, or since the table was loaded

    def seat_gone(self, seat: int) -> None:
        """The seat's person left it for good: neither here nor away."""
        self.absent_since.pop(seat, None)
        self.connected_since.pop(seat, None)

    # ---------------------------------------------------------- telling
    def tell(self, message_for: Callable[[int | None, int, bool], dict[str, Any]], version: int, info: int) -> None:
        """Each client its own message, made and encoded once for all who see the same: the same seat, told
        up to the same event (every watcher, once joined), and told the table's info as it stands (stamp
        ``info``) if it asked to be told what is the same by name only."""
        made: dict[tuple[int | None, int, bool], str] = {}
        for client in list(self.clients):
            key = (client.seat, client.sent, client.same and client.info_told == info)
            if key not in made:
                made[key] = encode(message_for(*key))
            client.sent, client.info_told = version, info
            client.post(made[key])

    def post(self, message: dict[str, Any], to: Iterable[Client] | None = None) -> None:
        """One message for every client (or those given), encoded once."""
        text = encode(message)
        for client in list(self.clients if to is None else to):
            client.post(text)

    def say(self, line: dict[str, Any], speaker: str | None = None) -> None:
        """A chat line (of the ``speaker``'s account, if theirs is bound): kept for who joins, and told to every
        client here but those whose person blocks the speaker."""
        self.chat.append((line, speaker))
        self.post(line, [c for c in self.clients if speaker is None or speaker not in c.hidden])

    def said(self, client: Client) -> list[dict[str, Any]]:
        """The chat lines kept, as ``client`` may read them."""
        return [line for line, speaker in self.chat if speaker is None or speaker not in client.hidden]

    def presence_changed(self, message: Callable[[], dict[str, Any]], told: Callable[[], None]) -> None:
        """Tell every client who is at the table now (``message()``) if that changed, at most once every
        :data:`PRESENCE_EVERY` seconds; ``told()`` after each time it is told."""
        if self.due is not None:
            return
        wait = self.told[0] + PRESENCE_EVERY - time.monotonic()
        if wait > 0:
            self.due = asyncio.get_running_loop().call_later(wait, self._tell_presence, message, told)
        else:
            self._tell_presence(message, told)

    def _tell_presence(self, message: Callable[[], dict[str, Any]], told: Callable[[], None]) -> None:
        self.due = None
        now = message()
        if _steady(now) != _steady(self.told[1]):
            self.told = (time.monotonic(), now)
            self.post(now)
            told()

    def cut_all(self, code: int, reason: str) -> None:
        """Every client here is cut off (the table's copy is dropped: they connect again to a fresh one)."""
        clients, self.clients = list(self.clients), set()
        for client in clients:
            client.close(code, reason)


def _steady(presence: dict[str, Any] | None) -> Any:
    """A presence message without its countdowns: a count to the stand-in that only runs down is no news (the
    page counts it down itself), so it is not told again every second."""
    if presence is None:
        return None
    seats = [{k: v for k, v in seat.items() if k != "stand_in_in"} for seat in presence.get("seats", [])]
    return {**presence, "seats": seats}
