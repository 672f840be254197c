"""The tables a server knows: the live ones in memory, the rest in the store, and the house rules for both.

A table is loaded when someone asks for it (replayed from the store in a
thread, off the event loop) and leaves memory when nobody has been
connected to it for a while; its driver then stops, and it goes on where
it stood when it is loaded again.  A table no person ever sat at expires.
Each client address may create so many tables a minute and hold so many
open at once; beyond, a 429 says when to try again.  A janitor task does
the rounds.

With several processes (:mod:`.cluster`) a process loading a table claims
its lease: if no other process drives it, this one does; else it follows
the owner.  A beat each second renews the leases of the tables it drives
and watches the owners of those it follows: when one's lease runs out, the
first follower to claim it takes the table over.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import hashlib
import logging
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .. import caches
from ..bots import make_bot
from ..errors import BiribaError
from ..rules import PRESETS, Rules, option_value
from .accounts import Account, Accounts
from .analyses import Analyses
from .cluster import Cluster, new_node
from .config import ServerConfig
from .driver import STAND_IN
from .live import UNKNOWN, LiveTable, rebuild
from .messages import Settings, TableError, row_info, store_away
from .moderation import Moderation
from .passkeys import Passkeys
from .quick import MATCH_EVERY, QuickPlay
from .quotas import Quotas
from .ratings import Ratings
from .replays import Replays
from .schema import BotSeat, CreateTable
from .store import SeatInfo, Store, TableRow, Unavailable, new_table_id
from .thinking import Thinkers

LOG = logging.getLogger("biriba.server")
#: The requests paced per seat and counted per address: the seconds between two of a seat's, and the
#: :class:`ServerConfig` field of how many an address may make in a minute.
PACES = {"hint": (5.0, "hints_per_minute"), "say": (2.0, "chat_per_minute")}
#: Orphaned tables one process takes over in one beat (the others take the rest).
ADOPT_PER_BEAT = 20


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
    janitor: asyncio.Task[None] | None = None
    #: Engine work running in threads (table loads); the engine's caches are trimmed only when there is none.
    engine_threads: int = 0
    collected: float = field(default_factory=time.monotonic)  # when the janitor last collected the old garbage
    last_pause: float = 0.0  # how long that took, in seconds
    #: The other server processes, and the messages to and from them (None: this process serves alone).
    cluster: Cluster | None = None
    beats: asyncio.Task[None] | None = None
    matcher: asyncio.Task[None] | None = None  # quick play's: makes tables of the waiting players
    takeovers: int = 0  # tables this process took over from another (``/metrics``)
    broken: int = 0  # tables whose driver raised, stopped (``/metrics``)
    connections: Counter[str] = field(default_factory=Counter)  # WebSockets open here, by address hash

    alone: str = field(default_factory=new_node)  # the node's name when it serves alone
    accounts: Accounts = field(init=False)  # signing up, in and out (issue 52)
    passkeys: Passkeys = field(init=False)  # signing in with a device's own lock instead of a password
    moderation: Moderation = field(init=False)  # blocks, reports and bans
    quotas: Quotas = field(init=False)  # the tables a minute, hints and chat lines, over every process
    #: Finished matches' records and replay positions, kept, and asked for within limits per address.
    replays: Replays = field(init=False)

    def __post_init__(self) -> None:
        config = self.config
        self.quotas = Quotas(self.cluster)
        self.accounts = Accounts(self.store, self.quotas)
        self.passkeys = Passkeys(self.store, self.accounts, self.quotas)
        self.moderation = Moderation(self.store, self.quotas)
        self.ratings = Ratings(self.store)
        self.quick = QuickPlay(self.store, config.quick_target)
        self.replays = Replays(config.replay_cache, config.replays_at_once, config.replays_per_minute, self.quotas)
        self.analyses = Analyses(self.store, self.quotas, self.thinkers, config.analysis_samples)

    @property
    def node(self) -> str:
        """This process's name in the store's leases."""
        return self.cluster.node if self.cluster is not None else self.alone

    @property
    def public_url(self) -> str:
        return (self.config.public_url or "").rstrip("/")

    # ----------------------------------------------------------- tables
    async def create(self, spec: CreateTable, address: str | None) -> LiveTable:
        """A new table, within the address's quotas (429 beyond, with the seconds to wait; 503 if the store is away)."""
        creator = address_key(address)
        rules = table_rules(spec)
        settings = Settings(spec.bot_delay, spec.absent_after, spec.turn_clock, spec.deal_pause, spec.chat)
        try:
            if await self.store.open_tables_of(creator) >= self.config.open_tables:
                raise TableError(
                    "quota",
                    f"this address has {self.config.open_tables} tables open or in play, the most it may;"
                    " finish or leave one first",
                    retry_after=60,
                )
            await self._check_rate(creator)
            return await self.open_table(rules.to_json(), settings.to_data(), seat_infos(spec, rules), creator)
        except Unavailable:
            raise store_away() from None

    async def open_table(
        self, rules: Any, settings: dict[str, Any], seats: list[SeatInfo], creator: str, table_id: str | None = None
    ) -> LiveTable:
        """A new table, driven by this process (``table_id``: one chosen beforehand, as quick play does)."""
        table_id = table_id or new_table_id()
        row = TableRow(table_id, rules, settings, seats, secrets.token_hex(8), touched=time.time())
        row.creator = creator
        row.status = "playing" if all(s.kind == "bot" for s in seats) else "open"
        row.totals = [0] * len(Rules.from_json(rules).teams)
        await self.store.create_table(row)
        live = self._live(LiveTable(row, self.store, self.thinkers, self.public_url, self.cluster))
        if self.cluster is not None:
            await self.cluster.follow(row.id)
        live.epoch = await self.store.claim(row.id, self.node, self.config.lease_ttl, steal=True)
        self.live[row.id] = live
        live.driver.start()
        return live

    def _live(self, live: LiveTable) -> LiveTable:
        live.resolve = lambda: self.watch([live.row.id])
        live.on_dropped = lambda: self.drop(live)
        live.on_broken = self._count_broken
        live.on_over = lambda: self.rate(live)
        return live

    async def rate(self, live: LiveTable) -> None:
        """A match just finished at a table this process drives: rated if its players are all signed in."""
        try:
            changes = await self.ratings.rate_match(live.row, list(live.table.match.totals))
        except Exception:  # a rating lost is no reason to stop the table: said in the log
            LOG.exception("table %s: the match could not be rated", live.row.id)
            return
        if changes:
            LOG.info("table %s: rated %d players", live.row.id, len(changes))

    def _count_broken(self) -> None:
        self.broken += 1

    async def drop(self, live: LiveTable) -> None:
        """A dropped copy leaves memory (it is loaded afresh when asked for again)."""
        if self.live.get(live.row.id) is live:
            del self.live[live.row.id]
        await live.driver.stop()

    async def rematch(self, live: LiveTable, creator: str) -> LiveTable:
        """The finished match's rematch: the same rules, pace and kinds of seat, every person's seat free.

        The first person to ask makes it (within the quotas of their address, ``creator``: its hash); the
        others find it made.
        """
        if not live.owned:  # the owner makes it, so that two processes never make two
            made = await live._run("rematch", {"creator": creator})
        else:
            async with live.lock:
                if not live.table.match.is_over:
                    raise TableError("not_over", "a rematch is for a finished match")
                if live.rematch is None:
                    await self._check_rate(creator)
                    seats = [SeatInfo(s.kind, s.bot) for s in live.row.seats]
                    settings = Settings.of(live.row.settings).to_data()
                    try:
                        fresh = await self.open_table(live.row.rules, settings, seats, creator)
                        await live.save_rematch(fresh.row.id)
                    except Unavailable:
                        raise store_away() from None
                made = live.rematch
        again = await self.get(str(made))
        if again is None:
            raise TableError("no_table", "the rematch has expired; make a new table")
        return again

    async def _check_rate(self, creator: str) -> None:
        """One more table for the address ``creator``, within the tables it may make a minute (on any process)."""
        most = self.config.tables_per_minute
        words = f"this address made {most} tables in the last minute, the most it may"
        await self.quotas.charge(f"tables:{creator}", most, 60, "quota", words)

    async def pace(self, kind: str, live: LiveTable, seat: int | None, address: str) -> None:
        """A hint or a chat line, within its seat's pace and its address's quota a minute, over every connection
        and process (``rate_limited`` beyond)."""
        every, per_minute = PACES[kind]
        most = getattr(self.config, per_minute)
        for key, count, window, words in (
            (f"{kind}:{live.row.id}:{seat}", 1, every, f"one {kind} every {every:g} seconds for a seat"),
            (f"{kind}:{address}", most, 60.0, f"{most} of them a minute from one address"),
        ):
            await self.quotas.charge(key, count, window, "rate_limited", words)

    async def get(self, table_id: str) -> LiveTable | None:
        """The live table, loaded from the store (in a thread) if it is not in memory; None if there is none.

        With the store away, a table not in memory is refused at once (``store``, 503), not waited for.
        """
        live = self.live.get(table_id)
        if live is not None and not live.dropped:
            return live
        pending = self.loading.get(table_id)
        if pending is not None:  # someone else is loading it: wait for the same table
            return await asyncio.shield(pending)
        future: asyncio.Future[LiveTable | None] = asyncio.get_running_loop().create_future()
        self.loading[table_id] = future
        try:
            live = await self._load(table_id)
            future.set_result(live)
        except Unavailable:
            refusal = store_away()
            future.set_exception(refusal)
            future.exception()  # told to whoever waits for it: not logged as never retrieved
            raise refusal from None
        except BaseException as exc:
            future.set_exception(exc)
            raise
        finally:
            del self.loading[table_id]
        return live

    async def _load(self, table_id: str, epoch: int | None = None) -> LiveTable | None:
        """The table from the store: driven here if no other process drives it (its lease claimed), else followed.

        The table's channel is followed before the store is read, so that no
        change committed in between goes unheard.  ``epoch``: the lease was
        claimed already.
        """
        if self.cluster is not None:
            await self.cluster.follow(table_id)
        if epoch is None:
            epoch = await self.store.claim(table_id, self.node, self.config.lease_ttl, steal=self.cluster is None)
        stored = await self.store.load(table_id)
        if stored is None or stored.row.status == "expired":
            await self._forget(table_id, epoch is not None)
            return None
        self.engine_threads += 1
        try:
            live = await asyncio.to_thread(rebuild, stored, self.store, self.thinkers, self.public_url, self.cluster)
        finally:
            self.engine_threads -= 1
        live = self._live(live)
        if epoch is None:
            owner = (await self.store.leases([table_id])).get(table_id)
            live.owner = owner.owner if owner is not None and owner.owner else UNKNOWN
        else:
            live.epoch = epoch
        self.live[table_id] = live
        live.driver.start()
        await live.tell_presence()
        return live

    async def _forget(self, table_id: str, owned: bool) -> None:
        """This process is done with the table: its channel unfollowed, its lease (if it held it) given up."""
        if self.cluster is not None:
            await self.cluster.unfollow(table_id)
        if owned:
            await self.store.release(self.node, [table_id])

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

    # ------------------------------------------------------ connections
    async def connect(self, address: str) -> None:
        """A WebSocket from ``address`` (a hash), within the connections it may hold at once and open a minute."""
        most = self.config.connections_per_address
        if self.connections[address] >= most:
            raise TableError("too_many", f"this address holds {most} connections, the most it may; close one first")
        per_minute = self.config.connections_per_minute
        words = f"this address opened {per_minute} connections in the last minute, the most it may"
        await self.quotas.charge(f"connect:{address}", per_minute, 60, "too_many", words)
        self.connections[address] += 1

    def disconnect(self, address: str) -> None:
        self.connections[address] -= 1
        if self.connections[address] <= 0:
            del self.connections[address]

    def admit(self, live: LiveTable, seat: int | None, address: str) -> None:
        """A connection may join the table: within its address's connections there, and the table's watchers."""
        most = self.config.connections_per_table
        if live.audience.from_address(address) >= most:
            raise TableError("too_many", f"this address holds {most} connections to this table, the most it may")
        if seat is None and live.watching() >= self.config.watchers:
            raise TableError("too_many", f"this table has {self.config.watchers} watchers, the most it may")

    # ---------------------------------------------------------- janitor
    def start(self) -> None:
        if self.janitor is None:
            self.janitor = asyncio.create_task(self._rounds(), name="janitor")
        if self.cluster is not None and self.beats is None:
            self.beats = asyncio.create_task(self._beats(), name="beats")
        if self.matcher is None:
            self.matcher = asyncio.create_task(self._matches(), name="quick play")

    async def _matches(self) -> None:
        """Quick play: a table made of waiting players whenever one can be (every process looks, one at once)."""
        while True:
            await asyncio.sleep(MATCH_EVERY)
            try:
                while await self.quick.match(self) is not None:
                    pass
            except Exception as exc:  # the store is away, or the table could not be made: the next look tries again
                LOG.warning("quick play: %s", exc)

    # ----------------------------------------------------------- cluster
    async def _beats(self) -> None:
        while True:
            await asyncio.sleep(self.config.beat_every)
            try:
                await self.beat()
            except Exception as exc:  # the store is away: the next beat tries again
                LOG.warning("beat: %s", exc)

    async def beat(self) -> None:
        """Renew the leases of the tables driven here, watch the owners of the others, tell who is connected."""
        owned = [tid for tid, live in self.live.items() if live.owned]
        held = await self.store.renew(self.node, owned, self.config.lease_ttl)
        for table_id in owned:
            live = self.live.get(table_id)
            if table_id not in held and live is not None and live.owned:
                await live.lost()
        await self.watch([tid for tid, live in self.live.items() if not live.owned])
        await self.adopt()
        for live in list(self.live.values()):
            if live.owned and not live.audience.clients and live.audience.remote:
                await live.pass_on()
        for live in list(self.live.values()):
            live.beat(self.config.beat_every)
            if live.audience.clients:
                await live.tell_presence()

    async def watch(self, table_ids: list[str]) -> None:
        """For the tables followed here: who drives each now; one whose lease ran out is taken over here."""
        now = time.time()
        for table_id, lease in (await self.store.leases(table_ids)).items():
            live = self.live.get(table_id)
            if live is None or live.owned:
                continue
            if lease.owner is None or lease.until < now:
                epoch = await self._claim(table_id)
                if epoch is not None:
                    self.takeovers += 1
                    await live.take_over(epoch)
                    continue
                lease = (await self.store.leases([table_id]))[table_id]
            live.owner = lease.owner or UNKNOWN
            if lease.version > live.version:  # behind the store for two beats running: a change not heard
                if live.lagging:
                    await live.catch_up()
                live.lagging = True
            else:
                live.lagging = False

    async def adopt(self) -> None:
        """Take over the tables whose process died or froze and that no process here follows: play goes on.

        Every process looks each beat; the claim in the store decides which
        one drives each table, and only that one loads it.
        """
        for table_id in await self.store.orphans(ADOPT_PER_BEAT):
            if table_id in self.live or table_id in self.loading:
                continue
            epoch = await self._claim(table_id)
            if epoch is not None:
                self.takeovers += 1
                live = await self._load(table_id, epoch)
                if live is None:
                    continue
                LOG.info("table %s: adopted (epoch %s)", table_id, epoch)

    async def _claim(self, table_id: str) -> int | None:
        """A takeover's claim; None if another process got there first, or the row is still locked by the old owner
        (frozen inside a transaction, until PostgreSQL ends its session)."""
        try:
            return await self.store.claim(table_id, self.node, self.config.lease_ttl)
        except Exception as exc:
            LOG.info("table %s: not claimed this beat (%s)", table_id, exc)
            return None

    async def on_table(self, message: dict[str, Any]) -> None:
        """Another process's message about a table: the copy here hears it."""
        live = self.live.get(str(message.get("table")))
        if live is not None:
            await live.heard(message)

    async def on_request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Another process asks the owner here to make a change: done and committed, the answer is its result,
        or the refusal's protocol message (``moved`` when this process does not drive the table)."""
        live = self.live.get(str(message.get("table")))
        try:
            if live is None or not live.owned:
                raise TableError("moved", "this process does not drive that table")
            op, args = message["op"], message["args"]
            if op == "rematch":
                return {"result": (await self.rematch(live, args["creator"])).row.id}
            return {"result": await live.do(op, args)}
        except TableError as exc:
            error = exc.message()
            if exc.retry_after is not None:
                error["retry_after"] = exc.retry_after
            return {"error": error}

    async def on_reconnect(self) -> None:
        """Redis is back: every table here tells its clients again, and followers read what they missed."""
        for live in list(self.live.values()):
            if live.owned:
                async with live.lock:
                    await live.tell_all()
            else:
                await live.catch_up()
            await live.tell_presence()

    async def _rounds(self) -> None:
        while True:
            await asyncio.sleep(self.config.janitor_every)
            with contextlib.suppress(Exception):  # a round that fails (the store is down) is tried again later
                await self.round()

    async def round(self) -> None:
        """One round: keep watched tables from expiring, expire unclaimed ones, rate the matches left unrated,
        unload the idle, trim the caches, drop the quotas' old counts and the sessions that ended."""
        now = time.monotonic()
        await self.store.touch([tid for tid, live in self.live.items() if live.present()])
        for table_id in await self.store.expire(time.time() - self.config.unclaimed_after):
            await self.unload(table_id)
        if rated := await self.ratings.catch_up():
            LOG.info("rated %d matches that ended unrated (their process stopped first)", rated)
        for table_id, live in list(self.live.items()):
            if not live.present() and now - live.audience.idle_since >= self.config.idle_after:
                await self.unload(table_id)
        if not self.engine_threads:  # no listing under way in a thread: the loop's own work is between steps
            caches.trim()
        if now >= self.collected + self.config.collect_every:
            self.collect()

        self.quotas.forget_old()
        await self.accounts.forget_expired()
        await self.passkeys.forget_expired()
        await self.quick.forget_old()

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

    async def hidden_changed(self, account_id: str) -> None:
        """A player blocked or unblocked someone: their connections here read the chat anew from now on (on
        other processes, from their next join)."""
        hidden = await self.moderation.hidden_from(account_id)
        for live in self.live.values():
            for client in live.audience.clients:
                if client.seat is not None and live.row.seats[client.seat].account == account_id:
                    client.hidden = hidden

    async def delete_account(self, account: Account) -> None:
        """The account deleted, its matches kept and anonymised (``Accounts.delete``).  Its seats at tables held
        in memory, here or on another process (a lease runs), are forgotten by their owner, before the store's
        rows and again after (a copy loaded meanwhile from the old rows), so that no copy shows or writes back its
        name."""
        bound = await self.accounts.bound(account)
        await self._forget_in_memory(account, bound)
        await self.accounts.delete(account)
        await self._forget_in_memory(account, bound)

    async def _forget_in_memory(self, account: Account, bound: list[tuple[str, int]]) -> None:
        leases = await self.store.leases([table_id for table_id, _ in bound])
        for table_id, seat in bound:
            lease = leases.get(table_id)
            if table_id in self.live or (lease is not None and lease.owner and lease.until > time.time()):
                live = await self.get(table_id)
                if live is not None and not live.broken:
                    await live.forget(seat, account.id)

    async def unload(self, table_id: str) -> None:
        """The table leaves memory (its driver stops); it is loaded again when someone asks for it."""
        live = self.live.pop(table_id, None)
        if live is not None:
            await live.driver.stop()
            with contextlib.suppress(Exception):  # the store away: the lease runs out by itself
                await self._forget(table_id, live.owned)

    async def close(self) -> None:
        """The server stops: the tables it drives are let go at once, for the other processes to take over."""
        await self.analyses.close()
        for task in (self.janitor, self.beats, self.matcher):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for live in list(self.live.values()):
            await live.driver.stop()
        owned = [tid for tid, live in self.live.items() if live.owned]
        with contextlib.suppress(Exception):
            await self.store.release(self.node, owned)


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


@functools.cache
def unmakeable(kind: str) -> str | None:
    """Why a bot of this kind cannot be made as the server makes it (with no options), or None if it can: a
    plugin's kind may need options no request can give (``policy:PATH``)."""
    try:
        make_bot(kind)
    except ValueError as exc:
        return str(exc)
    return None


def seat_infos(spec: CreateTable, rules: Rules) -> list[SeatInfo]:
    if spec.seats is None:
        return [SeatInfo("person")] + [
            SeatInfo("bot", bot=STAND_IN, name=f"{STAND_IN} bot") for _ in range(rules.seats - 1)
        ]
    if len(spec.seats) != rules.seats:
        raise TableError("invalid", f"seats: {rules.seats} entries under these rules (option seats)")
    for number, seat in enumerate(spec.seats):
        if isinstance(seat, BotSeat) and (why := unmakeable(seat.bot)) is not None:
            raise TableError("invalid", f"seats.{number}.bot: {why}")
    return [
        SeatInfo("bot", bot=seat.bot, name=f"{seat.bot} bot") if isinstance(seat, BotSeat) else SeatInfo("person")
        for seat in spec.seats
    ]
