"""Blocks, reports and bans (issue 52): what a player can do about another, and what an operator can.

A block is the blocker's own: the blocked player is never seated with them
by quick play, and their chat lines never reach the blocker's connections.
Nobody is told who blocked them.  A report is kept for an operator, who
reads the reports and bans with ``biriba moderate`` (docs/operations.md);
a banned account cannot sign in, its sessions end at once, its seats refuse
its connections, and it leaves quick play's waiting list.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, and_, delete, func, insert, select, update

from .accounts import Account, accounts, named, sessions
from .messages import TableError
from .quotas import Quotas
from .store import Store, metadata

#: Reports one account may make in a day (429 beyond): enough for every table of a bad day, not for a flood.
REPORTS_PER_DAY = 20
#: Players one account may block.
MOST_BLOCKS = 500

blocks = Table(
    "blocks",
    metadata,
    Column("account", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("blocked", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("since", Float, nullable=False),
)
reports = Table(
    "reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("reporter", String(24), ForeignKey("accounts.id", ondelete="SET NULL")),
    Column("reported", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("table_id", String(24)),  # the table it happened at, if the reporter gave it
    Column("reason", String(500), nullable=False),
    Column("made", Float, nullable=False),
    Column("handled", Float),  # when an operator marked it handled
)


@dataclass(frozen=True)
class Report:
    """A report as an operator reads it: who, by whom, where, why, and whether it was handled."""

    id: int
    reported: str
    reporter: str | None
    table: str | None
    reason: str
    made: float
    handled: float | None
    banned: bool


class Moderation:
    """A player's blocks and reports, and an operator's bans, in the server's store."""

    def __init__(self, store: Store, quotas: Quotas | None = None) -> None:
        self.store = store
        self.quotas = quotas

    async def _other(self, account: Account, name: str) -> Account:
        """Another player's account, by name (404 ``no_player``; one's own name is refused)."""
        other = await named(self.store, name)
        if other.id == account.id:
            raise TableError("invalid", "that is your own name")
        return other

    async def block(self, account: Account, name: str) -> dict[str, Any]:
        """``account`` blocks the player called ``name`` (blocking again changes nothing)."""
        other = await self._other(account, name)
        since = time.time()
        mine = blocks.c.account == account.id
        async with self.store.connect(write=True) as conn:
            if (await conn.execute(select(blocks.c.since).where(mine & (blocks.c.blocked == other.id)))).first():
                return {"name": other.name, "since": since}
            if (await conn.execute(select(func.count()).where(mine))).scalar_one() >= MOST_BLOCKS:
                raise TableError("invalid", f"an account blocks at most {MOST_BLOCKS} players: unblock one first")
            await conn.execute(insert(blocks).values(account=account.id, blocked=other.id, since=since))
        return {"name": other.name, "since": since}

    async def unblock(self, account: Account, name: str) -> None:
        other = await self._other(account, name)
        async with self.store.connect(write=True) as conn:
            await conn.execute(delete(blocks).where((blocks.c.account == account.id) & (blocks.c.blocked == other.id)))

    async def blocked_by(self, account: Account) -> list[dict[str, Any]]:
        """The players ``account`` blocks, by name, the latest first."""
        query = (
            select(accounts.c.name, blocks.c.since)
            .join(accounts, accounts.c.id == blocks.c.blocked)
            .where(blocks.c.account == account.id)
            .order_by(blocks.c.since.desc())
        )
        async with self.store.connect() as conn:
            return [{"name": name, "since": since} for name, since in await conn.execute(query)]

    async def hidden_from(self, account_id: str) -> frozenset[str]:
        """The accounts whose chat lines ``account_id`` does not see: those it blocks."""
        async with self.store.connect() as conn:
            query = select(blocks.c.blocked).where(blocks.c.account == account_id)
            return frozenset(row[0] for row in await conn.execute(query))

    async def at_table(self, account_id: str) -> frozenset[str]:
        """What a connection of this account's seat is not told (the accounts it blocks); refused if the account
        is banned (its seats are its no more).  The store away: nothing hidden, as before any block."""
        try:
            async with self.store.connect() as conn:
                banned = (await conn.execute(select(accounts.c.banned).where(accounts.c.id == account_id))).scalar()
            if banned is not None:
                raise TableError("banned", "this seat's account is banned")
            return await self.hidden_from(account_id)
        except TableError:
            raise
        except Exception:
            return frozenset()

    async def reports_by(self, account: Account) -> list[dict[str, Any]]:
        """The reports the account made (its export): about whom, where, why and when."""
        query = (
            select(accounts.c.name, reports.c.table_id, reports.c.reason, reports.c.made)
            .join(accounts, accounts.c.id == reports.c.reported)
            .where(reports.c.reporter == account.id)
            .order_by(reports.c.id)
        )
        async with self.store.connect() as conn:
            rows = await conn.execute(query)
            return [{"name": n, "table": t, "reason": r, "made": m} for n, t, r, m in rows]

    async def report(self, account: Account, name: str, table_id: str | None, reason: str) -> int:
        """Keep a report of ``account`` about the player called ``name``, for an operator; its number."""
        other = (await self._other(account, name)).id
        if self.quotas is not None:
            words = "too many reports today; an operator reads those you made"
            await self.quotas.charge(f"report:{account.id}", REPORTS_PER_DAY, 86400.0, "quota", words)
        row = {"reporter": account.id, "reported": other, "table_id": table_id, "reason": reason, "made": time.time()}
        async with self.store.connect(write=True) as conn:
            made = await conn.execute(insert(reports).values(**row).returning(reports.c.id))
            return int(made.scalar_one())

    # ------------------------------------------------------------ operators
    async def reports(self, everything: bool = False) -> list[Report]:
        """The reports not handled yet (``everything``: all), the oldest first."""
        reporter = accounts.alias("reporter")
        query = (
            select(reports, accounts.c.name, accounts.c.banned, reporter.c.name.label("by"))
            .join(accounts, accounts.c.id == reports.c.reported)
            .outerjoin(reporter, reporter.c.id == reports.c.reporter)
            .order_by(reports.c.id)
        )
        if not everything:
            query = query.where(reports.c.handled.is_(None))
        async with self.store.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [Report(r.id, r.name, r.by, r.table_id, r.reason, r.made, r.handled, r.banned is not None) for r in rows]

    async def handled(self, report_id: int) -> None:
        async with self.store.connect(write=True) as conn:
            done = await conn.execute(update(reports).where(reports.c.id == report_id).values(handled=time.time()))
        if done.rowcount != 1:
            raise TableError("invalid", f"there is no report {report_id}")

    async def ban(self, name: str, reason: str) -> str:
        """Ban the account called ``name``: it cannot sign in and its sessions end (so it waits for no quick
        table); its seats refuse its next joins (:meth:`at_table`); the reports about it are handled.  Its name
        as written."""
        account = await named(self.store, name)
        now = time.time()
        async with self.store.connect(write=True) as conn:
            await conn.execute(
                update(accounts).where(accounts.c.id == account.id).values(banned=now, ban_reason=reason)
            )
            await conn.execute(delete(sessions).where(sessions.c.account == account.id))
            handled = and_(reports.c.reported == account.id, reports.c.handled.is_(None))
            await conn.execute(update(reports).where(handled).values(handled=now))
        return account.name

    async def unban(self, name: str) -> str:
        account = await named(self.store, name)
        async with self.store.connect(write=True) as conn:
            await conn.execute(update(accounts).where(accounts.c.id == account.id).values(banned=None, ban_reason=None))
        return account.name


__all__ = ["Moderation", "Report", "blocks", "reports"]
