"""The store of the web game: every table, its deals and its moves, in SQLite or PostgreSQL.

SQLAlchemy 2 Core over an async driver (aiosqlite, asyncpg), one code path
for both; the schema is made and migrated by Alembic (``migrations/``).  A
table's state is never stored as such: its deals (dealer and deck) and its
actions are, and they replay to the exact state (rules D9, the record).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    column,
    delete,
    event,
    func,
    insert,
    literal,
    select,
    text,
    update,
)
from sqlalchemy import exc as db_errors
from sqlalchemy import table as table_clause
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

LOG = logging.getLogger("biriba.server.store")
#: Seconds to open a connection to PostgreSQL, and that one statement may take: a database that answers
#: nothing (frozen, or cut off by the network) is told apart from a slow one.  Each statement here takes
#: milliseconds; a group commit of many tables' moves, a few more.
CONNECT_TIMEOUT = 3.0
STATEMENT_TIMEOUT = 5.0
#: Seconds a check that the database answers may take: a pooled connection's, each time it is taken (one
#: whose server went away without a word, its host gone, would otherwise hang), and that of a store marked away.
PROBE_TIMEOUT = 1.0
#: Seconds a client is asked to wait before trying again while the store is away (``Retry-After``).
RETRY_AFTER = 5
#: Seconds between two writes of ``/healthz``'s check (a visitor who calls it in a loop makes no more).
HEALTH_WRITE_EVERY = 1.0
#: Milliseconds a PostgreSQL session may sit idle inside a transaction before the server ends it
#: (a frozen process's locks are released; a live one's transactions take a few milliseconds).
IDLE_IN_TRANSACTION_MS = 3000
#: The PostgreSQL advisory lock that one migrating process holds while the others wait.
MIGRATION_LOCK = 0x62697269

metadata = MetaData()

tables = Table(
    "tables",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("created", Float, nullable=False),
    Column("rules", Text, nullable=False),  # the rules as a record names them (a preset or its options)
    Column("settings", Text, nullable=False),  # bot_delay, absent_after, turn_clock
    Column("seats", Text, nullable=False),  # per seat: kind, bot, name, token hash
    Column("seed", String(64), nullable=False),
    Column("status", String(8), nullable=False),  # open, playing, over, expired, broken
    Column("version", Integer, nullable=False),  # the table's events so far
    Column("creator", String(64)),  # a hash of the address that made it (open tables per address)
    Column("claimed", Integer, nullable=False, server_default="0"),  # 1 once a person has sat
    Column("touched", Float, nullable=False, server_default="0"),  # the last activity
    Column("deals", Integer, nullable=False, server_default="0"),
    Column("totals", Text, nullable=False, server_default="[]"),  # the match's totals, for the lobby
    Column("owner", String(40)),  # the server process that drives the table (its node id), while its lease lasts
    Column("lease_until", Float, nullable=False, server_default="0"),  # when the lease runs out unless renewed
    Column("epoch", Integer, nullable=False, server_default="0"),  # the takeovers so far: the writes' fence
)
deals = Table(
    "deals",
    metadata,
    Column("table_id", String(24), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("dealer", Integer, nullable=False),
    Column("deck", Text, nullable=False),  # card names, top first
)
health = Table(
    "health",
    metadata,
    Column("id", Integer, primary_key=True),  # one row, 1
    Column("checked", Float, nullable=False),  # when a server last wrote it (``/healthz``)
)
#: Which account holds which seat (from the seats' ``account``, kept with them in one transaction): a player's
#: tables and matches, found without reading every table's seats.
players = Table(
    "players",
    metadata,
    Column("table_id", String(24), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
)
Index("players_by_account", players.c.account)
_account_ids = table_clause("accounts", column("id"))  # the accounts' ids (the table is server/accounts.py's)
actions = Table(
    "actions",
    metadata,
    Column("table_id", String(24), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("deal", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("action", Text, nullable=False),
    Column("by", String(8)),  # who played a person's turn for them: "clock" or "absent" (else null)
)


def default_url() -> str:
    """The embedded default: an SQLite file in the user's data folder."""
    folder = Path(platformdirs.user_data_dir("biriba", appauthor=False))
    return f"sqlite:///{folder / 'tables.sqlite3'}"


def async_url(url: str) -> str:
    """The URL with the async driver of its database (``sqlite://`` to aiosqlite, ``postgresql://`` to asyncpg)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"--db {url!r}: write sqlite:///path/file.sqlite3 or postgresql://user@host/database")
    driver = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg"}
    base = scheme.split("+")[0]
    if base not in driver:
        raise ValueError(f"--db {url!r}: the store is SQLite or PostgreSQL")
    return f"{driver[base]}://{rest}"


class Unavailable(Exception):
    """The database cannot be reached or written just now (down, frozen, or its file gone): nothing was changed.

    The web answers 503 with ``Retry-After`` (code ``store``) at once, rather
    than keeping a request waiting for a database that does not answer.
    """


def unreachable(exc: BaseException) -> bool:
    """Whether a failure is the database's (away, frozen, shutting down, full, read-only), not one request's."""
    if isinstance(exc, (OSError, db_errors.TimeoutError, db_errors.OperationalError, db_errors.InterfaceError)):
        return True  # OSError: refused, or timed out (TimeoutError); OperationalError: SQLite's I/O, or its lock
    if isinstance(exc, db_errors.DBAPIError):
        if exc.connection_invalidated:
            return True
        state = str(getattr(exc.orig, "sqlstate", None) or "")
        # PostgreSQL's classes: 08 connection, 53 resources (disk full), 57 shutting down or starting, 58 I/O;
        # 25006 a read-only transaction (a standby)
        return state[:2] in ("08", "53", "57", "58") or state == "25006"
    return False


class Fenced(Exception):
    """A write from a process that no longer owns the table: another took it over (a newer epoch) meanwhile."""

    def __init__(self, table_id: str, epoch: int | None) -> None:
        super().__init__(f"table {table_id}: epoch {epoch} no longer owns it")
        self.table_id = table_id


@dataclass(frozen=True)
class Lease:
    """Who drives a table (``None``: nobody), until when, and how far its store has got."""

    owner: str | None
    until: float
    epoch: int
    version: int


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class SeatInfo:
    """A seat of a web table: a person's (with the hash of their token once taken) or a bot's."""

    kind: str  # "person" or "bot"
    bot: str | None = None
    name: str | None = None
    token_hash: str | None = None
    account: str | None = None  # the account the seat is bound to: its person takes it back from any device

    def to_data(self) -> dict[str, Any]:
        data = {"kind": self.kind, "bot": self.bot, "name": self.name, "token_hash": self.token_hash}
        if self.account is not None:  # only where there is one: a process of the release before reads the rest
            data["account"] = self.account
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SeatInfo:
        """A seat as stored or sent between processes; a field a later release adds is left out, not an error."""
        return cls(**{name: data[name] for name in _SEAT_FIELDS if name in data})


_SEAT_FIELDS = ("kind", "bot", "name", "token_hash", "account")


async def _hold(conn: AsyncConnection, table_id: str, held: list[tuple[int, str]]) -> None:
    """The table's seats bound to accounts are these (:data:`players`); an account deleted since is left out."""
    await conn.execute(delete(players).where(players.c.table_id == table_id))
    for seat, account in held:
        query = select(literal(table_id, String), literal(seat, Integer), _account_ids.c.id)
        await conn.execute(
            insert(players).from_select(["table_id", "seat", "account"], query.where(_account_ids.c.id == account))
        )


def new_table_id() -> str:
    """A new table's id: unguessable, as it is the table's address (its invite link)."""
    return secrets.token_urlsafe(9)


@dataclass
class TableRow:
    """A table as the store keeps it."""

    id: str
    rules: Any  # JSON: a preset name or an object of options
    settings: dict[str, Any]
    seats: list[SeatInfo]
    seed: str
    status: str = "open"
    version: int = 0
    created: float = field(default_factory=time.time)
    creator: str | None = None
    claimed: bool = False
    touched: float = 0.0
    deals: int = 0
    totals: list[int] = field(default_factory=list)


@dataclass
class StoredTable:
    """A table with its deals and actions, ready to replay."""

    row: TableRow
    deals: list[tuple[int, int, list[str]]]  # (number, dealer, deck)
    actions: list[tuple[int, int, int, str, str | None]]  # (seq, deal, seat, action, by)


@dataclass(eq=False)
class _Write:
    """One change waiting for the next commit: an action row or a deal row, and the table's new version."""

    table_id: str
    version: int
    status: str
    touched: float
    action: dict[str, Any] | None = None
    deal: dict[str, Any] | None = None
    match: tuple[int, list[int]] | None = None  # the deals so far and the totals, when they change
    epoch: int | None = None  # the writer's epoch: the write is refused (Fenced) unless it is still the table's
    done: asyncio.Future[None] | None = None


class Store:
    """The tables and their moves, in one database.

    Moves are committed in groups: every change waiting when a commit starts
    goes into that one transaction (one round trip to the database for many
    tables), and each caller resumes only once its change is committed.
    """

    def __init__(
        self, engine: AsyncEngine, file: Path | None = None, connect_args: dict[str, Any] | None = None
    ) -> None:
        self.engine = engine
        self.pending: list[_Write] = []
        self.wake = asyncio.Event()
        self.writer: asyncio.Task[None] | None = None
        self.fenced = 0  # writes refused because another process had taken their table over (``/metrics``)
        #: SQLite: the file, and its identity (device, inode) when opened; the health check compares them.
        self.file = file
        self.file_id = _identity(file) if file is not None else None
        self.connect_args = connect_args or {}
        #: A failure of the database itself was seen: each request checks it first (:meth:`_ready`).
        self.away = False
        self.probing: asyncio.Task[None] | None = None
        self.health_written = float("-inf")  # when ``/healthz`` last wrote (monotonic)

    @classmethod
    async def open(cls, url: str | None = None) -> Store:
        """Open (and create or migrate, by Alembic) the store at ``url``; SQLite in the data folder by default."""
        url = url or default_url()
        file = None
        if url.startswith("sqlite:///"):
            name = url.removeprefix("sqlite:///").partition("?")[0]
            Path(name).parent.mkdir(parents=True, exist_ok=True)
            file = None if name in ("", ":memory:") else Path(name).resolve()
        aurl = async_url(url)
        if aurl.startswith("sqlite"):
            await asyncio.to_thread(migrate, aurl)
            # one connection: SQLite has one writer; WAL with synchronous=NORMAL survives a killed
            # process (kill -9), and is fsynced at checkpoints
            engine = create_async_engine(aurl, pool_size=1, max_overflow=0)
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
            return cls(engine, file)
        # a process frozen inside a transaction would hold its tables' rows locked for ever, and no
        # other process could take them over: PostgreSQL ends such a session after a few seconds
        settings = {"idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_MS)}
        connect_args: dict[str, Any] = {"server_settings": settings, "timeout": CONNECT_TIMEOUT}
        # several server processes may start at once: one migrates, the others wait for it, however long
        starting = create_async_engine(aurl, poolclass=NullPool, connect_args=connect_args)
        try:
            async with starting.connect() as conn:
                await conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
                try:
                    await asyncio.to_thread(migrate, aurl)
                finally:
                    await conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
        finally:
            await starting.dispose()
        connect_args = {**connect_args, "command_timeout": STATEMENT_TIMEOUT}
        engine = create_async_engine(
            aurl, pool_size=5, max_overflow=5, pool_timeout=STATEMENT_TIMEOUT, connect_args=connect_args
        )
        event.listen(engine.sync_engine, "checkout", _ping)
        return cls(engine, connect_args=connect_args)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.writer
        await self.engine.dispose()

    # ------------------------------------------------------ availability
    @contextlib.asynccontextmanager
    async def _connect(self, write: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection (in a transaction if ``write``); a failure of the database itself is :class:`Unavailable`.

        Once one is seen the store is *away*, and each request checks it first
        (:meth:`_ready`): while it stays away, requests are refused within a
        second instead of each waiting out the timeouts, and the first one
        after it is back goes through.
        """
        await self._ready()
        try:
            async with self.engine.begin() if write else self.engine.connect() as conn:
                yield conn
        except Exception as exc:
            if isinstance(exc, Unavailable) or not unreachable(exc):
                raise
            if not self.away:
                LOG.warning("store: the database does not answer (%s); refusing until it does", _words(exc))
            self.away = True
            raise Unavailable(_words(exc)) from exc

    def connect(self, write: bool = False) -> contextlib.AbstractAsyncContextManager[AsyncConnection]:
        """A connection for the server's other tables (accounts), with the same availability checks as the tables'."""
        return self._connect(write)

    async def _ready(self) -> None:
        """Nothing to do unless the store is away; then one check (the requests of the moment share it)."""
        if not self.away:
            return
        if self.probing is None or self.probing.done():
            self.probing = asyncio.create_task(self._probe(), name="store probe")
        await asyncio.shield(self.probing)

    async def _probe(self) -> None:
        """Whether the database answers again, on a connection of its own (the pool's may be dead or stuck)."""
        self.check_file()
        if self.engine.dialect.name == "postgresql":
            import asyncpg  # type: ignore[import-untyped]

            args, options = self.engine.dialect.create_connect_args(self.engine.url)
            options = {k: v for k, v in options.items() if not k.startswith(("prepared_statement", "async_"))}
            options.update(self.connect_args, timeout=PROBE_TIMEOUT)
            options.pop("command_timeout", None)
            try:
                conn = await asyncpg.connect(*args, **options)
                try:
                    await conn.fetchval("SELECT 1", timeout=PROBE_TIMEOUT)
                except BaseException:
                    conn.terminate()
                    raise
                await conn.close(timeout=PROBE_TIMEOUT)
            except Exception as exc:
                raise Unavailable(_words(exc)) from exc
        self.away = False
        LOG.warning("store: the database answers again")

    def check_file(self) -> None:
        """SQLite: the file at the store's path is still the one this process writes (else :class:`Unavailable`).

        A file deleted or replaced while the server runs still takes every
        write (SQLite writes the file it has open, by then nameless), so
        writes go on succeeding, and a restart finds none of them.
        """
        if self.file is None:
            return
        try:
            now = _identity(self.file)
        except FileNotFoundError:
            raise Unavailable(f"the store's file {self.file} was deleted while the server ran") from None
        if now != self.file_id:
            raise Unavailable(f"the store's file {self.file} was replaced while the server ran")

    async def check(self) -> None:
        """``/healthz``: the store answers and can write (:class:`Unavailable` if not).

        A round trip each time, and a committed write to the ``health`` row
        at most once a second (a visitor who calls it in a loop makes no
        more writes); for SQLite, the file is still the one open.
        """
        self.check_file()
        now = time.monotonic()
        write = now >= self.health_written + HEALTH_WRITE_EVERY
        async with self._connect(write=write) as conn:
            if write:
                query = update(health).where(health.c.id == 1).values(checked=time.time())
                if (await conn.execute(query)).rowcount != 1:
                    await conn.execute(health.insert().values(id=1, checked=time.time()))
            else:
                await conn.execute(select(health.c.checked).where(health.c.id == 1))
        if write:
            self.health_written = now

    # ------------------------------------------------------------ tables
    async def create_table(self, row: TableRow) -> None:
        self.check_file()  # a table written where no restart would find it is lost: refused instead
        async with self._connect(write=True) as conn:
            await conn.execute(
                tables.insert().values(
                    id=row.id,
                    created=row.created,
                    rules=json.dumps(row.rules),
                    settings=json.dumps(row.settings),
                    seats=json.dumps([s.to_data() for s in row.seats]),
                    seed=row.seed,
                    status=row.status,
                    version=row.version,
                    creator=row.creator,
                    claimed=int(row.claimed),
                    touched=row.touched or row.created,
                    deals=row.deals,
                    totals=json.dumps(row.totals),
                )
            )
            held = [(seat, info.account) for seat, info in enumerate(row.seats) if info.account]
            if held:  # quick play's tables: their seats bound at once
                await _hold(conn, row.id, held)

    async def save_seats(self, table_id: str, seats: Sequence[SeatInfo], status: str, epoch: int | None = None) -> None:
        """The seats after a person sat down (the table is claimed from then on)."""
        seats_json = json.dumps([s.to_data() for s in seats])
        values = {"seats": seats_json, "status": status, "claimed": 1, "touched": time.time()}
        held = [(seat, info.account) for seat, info in enumerate(seats) if info.account]
        await self._fenced_update(table_id, epoch, players_held=held, **values)

    async def save_settings(self, table_id: str, settings: dict[str, Any], epoch: int | None = None) -> None:
        """A table's settings changed (its rematch's id, once asked for; the seats handed to the stand-in)."""
        await self._fenced_update(table_id, epoch, settings=json.dumps(settings))

    async def save_status(self, table_id: str, status: str, epoch: int | None = None) -> None:
        """A table's status set apart from its moves (``broken``: stopped by a fault of the server)."""
        await self._fenced_update(table_id, epoch, status=status)

    async def _fenced_update(
        self, table_id: str, epoch: int | None, players_held: list[tuple[int, str]] | None = None, **values: Any
    ) -> None:
        """Update the table's row unless another process has taken it over; ``players_held``: the seats bound to
        accounts now (:data:`players`), in the same transaction.  An account deleted since is left out."""
        where = tables.c.id == table_id
        if epoch is not None:
            where &= tables.c.epoch == epoch
        async with self._connect(write=True) as conn:
            changed = (await conn.execute(update(tables).where(where).values(**values))).rowcount
            if players_held is not None and (changed == 1 or epoch is None):
                await _hold(conn, table_id, players_held)
        if epoch is not None and changed != 1:
            self.fenced += 1
            raise Fenced(table_id, epoch)

    # ------------------------------------------------------- ownership
    async def claim(self, table_id: str, node: str, ttl: float, *, steal: bool = False) -> int | None:
        """Take the table's lease for ``ttl`` seconds if nobody holds it (or it ran out): the new epoch, else None.

        Each claim starts a new epoch, so that the writes of whoever held the
        table before are refused from then on.  ``steal`` takes it whoever
        holds it: a server alone on its store (one process) is every table's
        owner, and its own earlier life may still hold leases.
        """
        now = time.time()
        where = tables.c.id == table_id
        if not steal:
            where &= tables.c.owner.is_(None) | (tables.c.owner == node) | (tables.c.lease_until < now)
        query = (
            update(tables)
            .where(where)
            .values(owner=node, lease_until=now + ttl, epoch=tables.c.epoch + 1)
            .returning(tables.c.epoch)
        )
        async with self._connect(write=True) as conn:
            if conn.dialect.name == "postgresql":  # a row locked by a frozen process: give up, try next beat
                await conn.execute(text("SET LOCAL lock_timeout = '1s'"))
            epoch = (await conn.execute(query)).scalar_one_or_none()
        return None if epoch is None else int(epoch)

    async def renew(self, node: str, table_ids: Sequence[str], ttl: float) -> set[str]:
        """Renew this node's leases of these tables: the ids it still holds (the others were taken over)."""
        if not table_ids:
            return set()
        query = (
            update(tables)
            .where((tables.c.owner == node) & tables.c.id.in_(table_ids))
            .values(lease_until=time.time() + ttl)
            .returning(tables.c.id)
        )
        async with self._connect(write=True) as conn:
            return {r[0] for r in await conn.execute(query)}

    async def release(self, node: str, table_ids: Sequence[str]) -> None:
        """Give up this node's leases of these tables (unloaded, or the server stops): others may take them at once."""
        if table_ids:
            async with self._connect(write=True) as conn:
                await conn.execute(
                    update(tables)
                    .where((tables.c.owner == node) & tables.c.id.in_(table_ids))
                    .values(owner=None, lease_until=0)
                )

    async def orphans(self, limit: int) -> list[str]:
        """Tables in play whose owner's lease ran out without being given up: their process died or froze."""
        query = (
            select(tables.c.id)
            .where(
                tables.c.owner.is_not(None)
                & (tables.c.lease_until < time.time())
                & tables.c.status.in_(("open", "playing"))
            )
            .order_by(tables.c.lease_until)
            .limit(limit)
        )
        async with self._connect() as conn:
            return [r[0] for r in await conn.execute(query)]

    async def leases(self, table_ids: Sequence[str]) -> dict[str, Lease]:
        """Who drives each of these tables, until when, and the version its store has reached."""
        if not table_ids:
            return {}
        query = select(tables.c.id, tables.c.owner, tables.c.lease_until, tables.c.epoch, tables.c.version).where(
            tables.c.id.in_(table_ids)
        )
        async with self._connect() as conn:
            return {r[0]: Lease(r[1], r[2], r[3], r[4]) for r in await conn.execute(query)}

    async def record_deal(
        self,
        table_id: str,
        number: int,
        dealer: int,
        deck: Sequence[str],
        version: int,
        totals: list[int],
        epoch: int | None = None,
    ) -> None:
        """A new deal (its dealer and deck), committed before this returns (:class:`Fenced` if ``epoch`` is stale)."""
        deal = {"table_id": table_id, "number": number, "dealer": dealer, "deck": json.dumps(list(deck))}
        write = _Write(table_id, version, "playing", time.time(), deal=deal, match=(number, totals), epoch=epoch)
        await self._commit(write)

    async def record_action(
        self,
        table_id: str,
        seq: int,
        deal: int,
        seat: int,
        action: str,
        version: int,
        status: str = "playing",
        by: str | None = None,
        match: tuple[int, list[int]] | None = None,
        epoch: int | None = None,
    ) -> None:
        """One move and the table's new version and status, committed before this returns.

        ``by`` says who played a person's turn for them; ``match`` gives the deals and totals when a deal ends;
        ``epoch``, the writer's, is checked in the same transaction (:class:`Fenced` if another took the table).
        """
        row = {"table_id": table_id, "seq": seq, "deal": deal, "seat": seat, "action": action, "by": by}
        await self._commit(_Write(table_id, version, status, time.time(), action=row, match=match, epoch=epoch))

    async def touch(self, tables_ids: Sequence[str]) -> None:
        """Mark tables active now (someone is watching or playing), so that they do not expire."""
        if tables_ids:
            async with self._connect(write=True) as conn:
                await conn.execute(update(tables).where(tables.c.id.in_(tables_ids)).values(touched=time.time()))

    async def expire(self, unclaimed_before: float) -> list[str]:
        """Tables no person ever sat at, untouched since ``unclaimed_before``, expire: their ids."""
        where = (
            (tables.c.claimed == 0) & tables.c.status.in_(("open", "playing")) & (tables.c.touched < unclaimed_before)
        )
        async with self._connect(write=True) as conn:
            ids = [r[0] for r in await conn.execute(select(tables.c.id).where(where))]
            if ids:
                await conn.execute(update(tables).where(tables.c.id.in_(ids)).values(status="expired"))
        return ids

    async def open_tables_of(self, creator: str) -> int:
        """How many tables made from one address are not over yet."""
        query = select(func.count()).where((tables.c.creator == creator) & tables.c.status.in_(("open", "playing")))
        async with self._connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def _commit(self, write: _Write) -> None:
        write.done = asyncio.get_running_loop().create_future()
        self.pending.append(write)
        self.wake.set()
        if self.writer is None or self.writer.done():
            self.writer = asyncio.create_task(self._write_loop(), name="store writer")
        await write.done

    async def _write_loop(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            batch, self.pending = self.pending, []
            if not batch:
                continue
            try:
                fenced = await self._write(batch)
            except Exception as exc:
                for write in batch:
                    if write.done is not None and not write.done.done():
                        write.done.set_exception(exc)
            else:
                for write in batch:
                    if write.done is not None and not write.done.done():
                        if write in fenced:
                            self.fenced += 1
                            write.done.set_exception(Fenced(write.table_id, write.epoch))
                        else:
                            write.done.set_result(None)

    async def _write(self, batch: list[_Write]) -> list[_Write]:
        """One transaction for every waiting change: the deals, the actions, then the tables' versions.

        The epochs are read first, their rows locked until the commit (so that
        no claim slips in between): a write whose epoch is no longer its
        table's is left out, and returned.
        """
        async with self._connect(write=True) as conn:
            fenced = await _fenced(conn, batch)
            if fenced:
                batch = [w for w in batch if w not in fenced]
            if batch:
                await self._insert(conn, batch)
        return fenced

    async def _insert(self, conn: Any, batch: list[_Write]) -> None:
        new_deals = [w.deal for w in batch if w.deal is not None]
        new_actions = [w.action for w in batch if w.action is not None]
        latest: dict[str, _Write] = {}
        for write in batch:
            latest[write.table_id] = write
        versions = [{"tid": w.table_id, "v": w.version, "s": w.status, "t": w.touched} for w in latest.values()]
        matches: dict[str, tuple[int, list[int]]] = {w.table_id: w.match for w in batch if w.match is not None}
        if new_deals:
            await conn.execute(deals.insert(), new_deals)
        if new_actions:
            await conn.execute(actions.insert(), new_actions)
        await conn.execute(
            update(tables)
            .where(tables.c.id == bindparam("tid"))
            .values(version=bindparam("v"), status=bindparam("s"), touched=bindparam("t")),
            versions,
        )
        if matches:
            await conn.execute(
                update(tables)
                .where(tables.c.id == bindparam("tid"))
                .values(deals=bindparam("d"), totals=bindparam("m")),
                [{"tid": tid, "d": n, "m": json.dumps(totals)} for tid, (n, totals) in matches.items()],
            )

    async def load(self, table_id: str) -> StoredTable | None:
        async with self._connect() as conn:
            row = (await conn.execute(select(tables).where(tables.c.id == table_id))).first()
            if row is None:
                return None
            deal_rows = await conn.execute(
                select(deals.c.number, deals.c.dealer, deals.c.deck)
                .where(deals.c.table_id == table_id)
                .order_by(deals.c.number)
            )
            action_rows = await conn.execute(
                select(actions.c.seq, actions.c.deal, actions.c.seat, actions.c.action, actions.c.by)
                .where(actions.c.table_id == table_id)
                .order_by(actions.c.seq)
            )
            return StoredTable(
                table_row(row._mapping),
                [(n, d, json.loads(deck)) for n, d, deck in deal_rows],
                [(s, d, seat, a, by) for s, d, seat, a, by in action_rows],
            )

    async def deck(self, table_id: str, number: int) -> list[str] | None:
        """One deal's deck, for a follower that replays it (decks never cross the bus between the processes)."""
        query = select(deals.c.deck).where((deals.c.table_id == table_id) & (deals.c.number == number))
        async with self.engine.connect() as conn:
            deck = (await conn.execute(query)).scalar()
        return None if deck is None else list(json.loads(deck))

    async def list_tables(
        self, statuses: Sequence[str] = ("open", "playing"), limit: int = 100, before: tuple[float, str] | None = None
    ) -> list[TableRow]:
        """Tables with these statuses, the most recently active first; ``before`` (touched, id) pages on."""
        query = select(tables).where(tables.c.status.in_(statuses))
        if before is not None:
            touched, table_id = before
            query = query.where(
                (tables.c.touched < touched) | ((tables.c.touched == touched) & (tables.c.id < table_id))
            )
        query = query.order_by(tables.c.touched.desc(), tables.c.id.desc()).limit(limit)
        async with self._connect() as conn:
            return [table_row(r._mapping) for r in await conn.execute(query)]

    async def count(self) -> int:
        async with self._connect() as conn:
            return int((await conn.execute(select(func.count()).select_from(tables))).scalar_one())


async def _fenced(conn: Any, batch: list[_Write]) -> list[_Write]:
    """The writes whose epoch is no longer their table's (read with the rows locked: ``FOR UPDATE``)."""
    checked = {w.table_id for w in batch if w.epoch is not None}
    if not checked:
        return []
    query = select(tables.c.id, tables.c.epoch).where(tables.c.id.in_(checked)).with_for_update()
    epochs = {r[0]: r[1] for r in await conn.execute(query)}
    return [w for w in batch if w.epoch is not None and epochs.get(w.table_id) != w.epoch]


def _identity(path: Path) -> tuple[int, int]:
    stat = os.stat(path)
    return stat.st_dev, stat.st_ino


def _words(exc: BaseException) -> str:
    """An exception in a line (a timeout's own text is empty)."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _ping(connection: Any, _record: Any, _proxy: Any) -> None:
    """A pooled PostgreSQL connection answers before it is used, within a second; else every pooled connection is
    made anew (the pool's own pre-ping waits as long as the statement timeout, and a timeout fails the request
    instead of reconnecting).

    After PostgreSQL restarts every pooled connection is dead; after its host
    went away and came back they may hang, the server's end gone without a
    word: the first request after its return must not be the one to fail.
    """
    try:
        connection.run_async(lambda driver: driver.fetchval("SELECT 1", timeout=PROBE_TIMEOUT))
    except Exception as exc:
        raise db_errors.InvalidatePoolError(f"a pooled connection does not answer ({_words(exc)})") from exc


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def table_row(data: Any) -> TableRow:
    """A table as the store keeps it (a row of :data:`tables`)."""
    return TableRow(
        id=data["id"],
        rules=json.loads(data["rules"]),
        settings=json.loads(data["settings"]),
        seats=[SeatInfo.from_data(s) for s in json.loads(data["seats"])],
        seed=data["seed"],
        status=data["status"],
        version=data["version"],
        created=data["created"],
        creator=data["creator"],
        claimed=bool(data["claimed"]),
        touched=data["touched"],
        deals=data["deals"],
        totals=json.loads(data["totals"]),
    )


def migrate(url: str) -> None:
    """Bring the schema at ``url`` (an async URL) to Alembic's head revision."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(config, "head")
