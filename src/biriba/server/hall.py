"""The tables a server knows: the live ones in memory, the rest in the store, and the house rules for both.

A table is loaded when someone asks for it (replayed from the store in a
thread, off the event loop) and leaves memory when nobody has been
connected to it for a while; its driver then stops, and it goes on where
it stood when it is loaded again.  A table no person ever sat at expires.
Each client address may create so many tables a minute and hold so many
open at once; beyond, a 429 says when to try again.  A janitor task does
the rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .. import caches
from ..errors import BiribaError
from ..rules import PRESETS, Rules, option_value
from .config import ServerConfig
from .live import STAND_IN, LiveTable, Settings, TableError, rebuild, row_info
from .schema import BotSeat, CreateTable
from .store import SeatInfo, Store, TableRow
from .thinking import Thinkers


def address_key(address: str | None) -> str:
    """What the store keeps of a client's address: a hash, for the quotas, never the address itself."""
    return hashlib.sha256(f"biriba:{address or '-'}".encode()).hexdigest()[:32]


@dataclass
class Hall:
    """Every table the server knows."""

    store: Store
    config: ServerConfig = field(default_factory=ServerConfig)
    thinkers: Thinkers | None = None
    live: dict[str, LiveTable] = field(default_factory=dict)
    loading: dict[str, asyncio.Future[LiveTable | None]] = field(default_factory=dict)
    created: dict[str, deque[float]] = field(default_factory=dict)  # per address: when its recent tables were made
    janitor: asyncio.Task[None] | None = None
    #: Engine work running in threads (table loads); the engine's caches are trimmed only when there is none.
    engine_threads: int = 0
    collected: float = field(default_factory=time.monotonic)  # when the janitor last collected the old garbage
    last_pause: float = 0.0  # how long that took, in seconds

    @property
    def public_url(self) -> str:
        return (self.config.public_url or "").rstrip("/")

    # ----------------------------------------------------------- tables
    async def create(self, spec: CreateTable, address: str | None) -> LiveTable:
        """A new table, within the address's quotas (429 beyond, with the seconds to wait)."""
        creator = address_key(address)
        self._check_rate(creator)
        if await self.store.open_tables_of(creator) >= self.config.open_tables:
            raise TableError(
                "quota",
                f"this address has {self.config.open_tables} tables open or in play, the most it may;"
                " finish or leave one first",
                retry_after=60,
            )
        rules = table_rules(spec)
        settings = Settings(spec.bot_delay, spec.absent_after, spec.turn_clock, spec.deal_pause, spec.chat)
        return await self._open(rules.to_json(), settings.to_data(), seat_infos(spec, rules), creator)

    async def _open(self, rules: Any, settings: dict[str, Any], seats: list[SeatInfo], creator: str) -> LiveTable:
        row = TableRow(secrets.token_urlsafe(9), rules, settings, seats, secrets.token_hex(8), touched=time.time())
        row.creator = creator
        row.status = "playing" if all(s.kind == "bot" for s in seats) else "open"
        row.totals = [0] * len(Rules.from_json(rules).teams)
        await self.store.create_table(row)
        self.created.setdefault(creator, deque()).append(time.monotonic())
        live = LiveTable(row, self.store, self.thinkers, self.public_url)
        self.live[row.id] = live
        live.start()
        return live

    async def rematch(self, live: LiveTable, address: str | None) -> LiveTable:
        """The finished match's rematch: the same rules, pace and kinds of seat, every person's seat free.

        The first person to ask makes it (within their address's quotas); the others find it made.
        """
        async with live.lock:
            if not live.table.match.is_over:
                raise TableError("not_over", "a rematch is for a finished match")
            if live.rematch is None:
                creator = address_key(address)
                self._check_rate(creator)
                seats = [SeatInfo(s.kind, s.bot) for s in live.row.seats]
                settings = Settings.of(live.row.settings).to_data()
                fresh = await self._open(live.row.rules, settings, seats, creator)
                live.rematch = fresh.row.id
                live.row.settings = {**live.row.settings, "rematch": fresh.row.id}
                await self.store.save_settings(live.row.id, live.row.settings)
                await live.tell_all()
        again = await self.get(live.rematch)
        if again is None:
            raise TableError("no_table", "the rematch has expired; make a new table")
        return again

    def _check_rate(self, creator: str) -> None:
        recent = self.created.get(creator)
        if recent is None:
            return
        now = time.monotonic()
        while recent and recent[0] < now - 60:
            recent.popleft()
        if len(recent) >= self.config.tables_per_minute:
            wait = max(1, round(recent[0] + 60 - now))
            raise TableError(
                "quota",
                f"this address made {self.config.tables_per_minute} tables in the last minute, the most it may",
                retry_after=wait,
            )

    async def get(self, table_id: str) -> LiveTable | None:
        """The live table, loaded from the store (in a thread) if it is not in memory; None if there is none."""
        live = self.live.get(table_id)
        if live is not None:
            return live
        pending = self.loading.get(table_id)
        if pending is not None:  # someone else is loading it: wait for the same table
            return await asyncio.shield(pending)
        future: asyncio.Future[LiveTable | None] = asyncio.get_running_loop().create_future()
        self.loading[table_id] = future
        try:
            live = await self._load(table_id)
            future.set_result(live)
        except BaseException as exc:
            future.set_exception(exc)
            raise
        finally:
            del self.loading[table_id]
        return live

    async def _load(self, table_id: str) -> LiveTable | None:
        stored = await self.store.load(table_id)
        if stored is None or stored.row.status == "expired":
            return None
        self.engine_threads += 1
        try:
            live = await asyncio.to_thread(rebuild, stored, self.store, self.thinkers, self.public_url)
        finally:
            self.engine_threads -= 1
        self.live[table_id] = live
        live.start()
        return live

    async def lobby(
        self, statuses: tuple[str, ...], limit: int, after: str | None, base: str
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the tables with these statuses, most recently active first, and the cursor of the next."""
        before = _cursor(after)
        rows = await self.store.list_tables(statuses, limit=limit + 1, before=before)
        page, more = rows[:limit], len(rows) > limit
        out = []
        for row in page:
            live = self.live.get(row.id)
            out.append(live.info(base) if live is not None else row_info(row, row.status, row.totals, row.deals, base))
        cursor = f"{page[-1].touched!r}:{page[-1].id}" if more and page else None
        return out, cursor

    # ---------------------------------------------------------- janitor
    def start(self) -> None:
        if self.janitor is None:
            self.janitor = asyncio.create_task(self._rounds(), name="janitor")

    async def _rounds(self) -> None:
        while True:
            await asyncio.sleep(self.config.janitor_every)
            with contextlib.suppress(Exception):  # a round that fails (the store is down) is tried again later
                await self.round()

    async def round(self) -> None:
        """One round: keep watched tables from expiring, expire unclaimed ones, unload the idle, trim the caches."""
        now = time.monotonic()
        await self.store.touch([tid for tid, live in self.live.items() if live.clients])
        for table_id in await self.store.expire(time.time() - self.config.unclaimed_after):
            await self.unload(table_id)
        for table_id, live in list(self.live.items()):
            if not live.clients and now - live.idle_since >= self.config.idle_after:
                await self.unload(table_id)
        if not self.engine_threads:  # no listing under way in a thread: the loop's own work is between steps
            caches.trim()
        if now >= self.collected + self.config.collect_every:
            self.collect()

        for creator in [c for c, times in self.created.items() if not times or times[-1] < now - 60]:
            del self.created[creator]  # the addresses that made no table this last minute

    def collect(self) -> None:
        """A full collection of cyclic garbage, every ``collect_every`` seconds, timed (``/metrics``).

        The server collects young objects seldom and old ones almost never
        (``gc.set_threshold`` at start-up: a collection pauses every table).
        But each closed HTTP or WebSocket connection leaves a cycle in
        uvicorn's protocol objects, and those that reached the old generation
        would wait for a full collection that hardly ever comes: measured in
        ``make soak-serve``, the server's memory then grew some 6 MB a minute
        while the memory its live objects held stayed flat.
        """
        started = time.perf_counter()
        gc.collect()
        self.collected = time.monotonic()
        self.last_pause = time.perf_counter() - started

    async def unload(self, table_id: str) -> None:
        """The table leaves memory (its driver stops); it is loaded again when someone asks for it."""
        live = self.live.pop(table_id, None)
        if live is not None:
            await live.stop()

    async def close(self) -> None:
        if self.janitor is not None:
            self.janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.janitor
        for live in list(self.live.values()):
            await live.stop()


def _cursor(text: str | None) -> tuple[float, str] | None:
    if not text:
        return None
    touched, sep, table_id = text.partition(":")
    try:
        if not sep or not table_id:
            raise ValueError(text)
        return float(touched), table_id
    except ValueError:
        raise TableError("invalid", "after: a cursor from a lobby page's next") from None


def table_rules(spec: CreateTable) -> Rules:
    """The rules a create request asks for: the preset and its options (a refusal names the option).

    A table with people ends idle deals (D36) unless its options say otherwise.
    """
    try:
        values = {key: option_value(key, value) for key, value in spec.option_values().items()}
        rules = PRESETS[spec.rules].replace(**values) if values else PRESETS[spec.rules]
        return rules.at_table(values)
    except BiribaError as exc:
        raise TableError("invalid", f"options: {exc}") from None


def seat_infos(spec: CreateTable, rules: Rules) -> list[SeatInfo]:
    if spec.seats is None:
        return [SeatInfo("person")] + [
            SeatInfo("bot", bot=STAND_IN, name=f"{STAND_IN} bot") for _ in range(rules.seats - 1)
        ]
    if len(spec.seats) != rules.seats:
        raise TableError("invalid", f"seats: {rules.seats} entries under these rules (option seats)")
    return [
        SeatInfo("bot", bot=seat.bot, name=f"{seat.bot} bot") if isinstance(seat, BotSeat) else SeatInfo("person")
        for seat in spec.seats
    ]
