"""A finished match's analysis at the web table (issue 53): asked for once, made in the bot workers, kept.

``POST /api/tables/{id}/analysis`` asks for it; the match must be over (an
analysis reads every hidden card through its second opinion, and the decks
through the replay).  A match is analysed once: the store keeps the
analysis (:data:`analyses`), and whoever asks next, on any process, reads
it with ``GET``, or where it stands while it is made (queued; running, so
many decisions of so many done).

It is made in the bot workers' pool, never on the event loop: each deal's
decisions are listed in a worker, then valued :data:`CHUNK` at a time, each
chunk through the bots' slots in turn with the hard bots' decisions, so
that a table of hard bots waits a chunk (about a second) at most.  A
process makes one analysis at a time; the others wait their turn, at most
:data:`QUEUE_MOST` of them.  Each address may ask for :data:`PER_HOUR` new
analyses an hour (reading one made is free).  A process stopped while
making one leaves its row: once it has not moved for :data:`STALE` seconds,
the next ask starts it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, Text, delete, insert, select, update
from sqlalchemy import exc as db_errors

from ..analysis import SAMPLES, Analysis, Decision, PlayedDeal, analyse_steps, decision_steps
from .messages import TableError
from .quotas import Quotas
from .store import Store, metadata

if TYPE_CHECKING:
    from .live import LiveTable
    from .thinking import Thinkers

LOG = logging.getLogger(__name__)

#: Decisions valued in one worker job (about 120 ms each at the default budget).
CHUNK = 8
#: Analyses a process may have waiting for its turn; past it an ask is refused (429) until one is done.
QUEUE_MOST = 20
#: New analyses an address may ask for in an hour.
PER_HOUR = 10
#: Seconds without progress after which an analysis is taken as abandoned (its process stopped) and made anew.
STALE = 120.0

analyses = Table(
    "analyses",
    metadata,
    Column("table_id", String(24), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("status", String(8), nullable=False),  # queued, running, done, failed
    Column("done", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("touched", Float, nullable=False),  # the last progress
    Column("body", Text),  # the analysis (biriba-analysis/1), once done
    Column("maker", String(16), nullable=False),  # the token of the ask making it: only it writes its progress
)


class Analyses:
    """The analyses kept in the store, and the ones this process is making."""

    def __init__(self, store: Store, quotas: Quotas, thinkers: Thinkers | None, samples: int = SAMPLES) -> None:
        self.store = store
        self.quotas = quotas
        self.thinkers = thinkers  # the bot workers (None: threads of this process, as in some tests)
        self.samples = samples
        self.turn = asyncio.Semaphore(1)
        self.waiting = 0
        self.tasks: set[asyncio.Task[None]] = set()

    async def status(self, table_id: str, players: list[str] | None = None) -> dict[str, Any]:
        """Where the match's analysis stands: the analysis itself once done, under the seats' names as they are
        now (``players``: a deleted account's seat is a former player's); ``none`` if nobody asked for it."""
        async with self.store.connect() as conn:
            row = (await conn.execute(select(analyses).where(analyses.c.table_id == table_id))).first()
        if row is None:
            return {"status": "none", "done": 0, "total": 0}
        shown: dict[str, Any] = {"status": row.status, "done": row.done, "total": row.total}
        if row.status == "done":
            shown["analysis"] = made = json.loads(row.body)
            if players is not None:
                made["players"] = players
                for seat in made["seats"]:
                    seat["name"] = players[seat["seat"]]
        elif row.status != "failed" and row.touched < time.time() - STALE:
            shown["status"] = "stalled"  # its process stopped: asking again starts it anew
        return shown

    async def ask(self, live: LiveTable, address: str) -> dict[str, Any]:
        """Start the finished match's analysis unless it is made or being made; where it stands."""
        if not live.table.match.is_over:
            raise TableError("not_over", "a match is analysed once it is over: its analysis reads every hand")
        table_id, names = live.row.id, list(live.table.match.players)
        now = await self.status(table_id, names)
        if now["status"] in ("done", "queued", "running"):
            return now
        if self.waiting >= QUEUE_MOST:
            raise TableError("quota", "the server has many analyses to make just now: ask again later", retry_after=60)
        maker = await self._claim(table_id, fresh=now["status"] == "none")
        if maker is None:
            return await self.status(table_id, names)  # another process claimed it meanwhile
        words = f"{PER_HOUR} analyses asked for from one address in an hour, the most it may"
        try:
            await self.quotas.charge(f"analyses:{address}", PER_HOUR, 3600, "quota", words)
        except TableError:
            mine = (analyses.c.table_id == table_id) & (analyses.c.maker == maker) & (analyses.c.status != "done")
            async with self.store.connect(write=True) as conn:  # let go, as if never asked: the next ask claims it
                await conn.execute(delete(analyses).where(mine))
            raise
        match = live.table.match
        deals = [PlayedDeal.of(number, deal) for number, deal in enumerate(match.deals, 1)]
        seats = [f"Seat {seat}" for seat in range(match.rules.seats)]  # the names are the table's, when read
        made = Analysis(match.rules, seats, self.samples, table_id)
        task = asyncio.create_task(self._make(table_id, maker, deals, made), name=f"analysis {table_id}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return await self.status(table_id, names)

    async def _claim(self, table_id: str, fresh: bool) -> str | None:
        """The row marked queued under a new maker's token (every later write names it): a new row, or one
        stalled or failed; None if another ask has it."""
        maker = secrets.token_hex(8)
        values = {"status": "queued", "done": 0, "total": 0, "touched": time.time(), "body": None, "maker": maker}
        try:
            async with self.store.connect(write=True) as conn:
                if fresh:
                    await conn.execute(insert(analyses).values(table_id=table_id, **values))
                    return maker
                again = (analyses.c.status == "failed") | (analyses.c.touched < time.time() - STALE)
                where = (analyses.c.table_id == table_id) & (analyses.c.status != "done") & again
                claimed = (await conn.execute(update(analyses).where(where).values(**values))).rowcount
        except db_errors.IntegrityError:  # made at once by another ask
            return None
        return maker if claimed else None

    async def _make(self, table_id: str, maker: str, deals: list[PlayedDeal], made: Analysis) -> None:
        self.waiting += 1
        fresh = asyncio.create_task(self._kept_fresh(table_id, maker))  # waiting, it is not taken for abandoned
        try:
            await self.turn.acquire()
        finally:
            fresh.cancel()
            self.waiting -= 1
        try:
            await self._progress(table_id, maker, "running", 0, 0)
            work = [(played, await self._steps(played)) for played in deals]
            total = sum(len(steps) for _, steps in work)
            for played, steps in work:
                for at in range(0, len(steps), CHUNK):
                    made.decisions += await self._value(played, steps[at : at + CHUNK], table_id)
                    await self._progress(table_id, maker, "running", len(made.decisions), total)
            body = json.dumps(made.to_json(), separators=(",", ":"))
            await self._progress(table_id, maker, "done", total, total, body)
            LOG.info("table %s: analysed, %d decisions", table_id, total)
        except Exception:
            LOG.exception("table %s: the analysis failed", table_id)
            await self._progress(table_id, maker, "failed", 0, 0)
        finally:
            self.turn.release()

    async def _kept_fresh(self, table_id: str, maker: str) -> None:
        while True:
            await asyncio.sleep(STALE / 4)
            with contextlib.suppress(Exception):  # the store away: tried again at the next beat
                await self._progress(table_id, maker, "queued", 0, 0)

    async def _steps(self, played: PlayedDeal) -> list[int]:
        if self.thinkers is not None:
            return await self.thinkers.decision_steps(played)
        return await asyncio.to_thread(decision_steps, played, range(played.rules.seats))

    async def _value(self, played: PlayedDeal, steps: list[int], seed: str) -> list[Decision]:
        if self.thinkers is not None:
            return await self.thinkers.analyse(played, steps, self.samples, seed)
        return await asyncio.to_thread(lambda: list(analyse_steps(played, set(steps), self.samples, seed)))

    async def _progress(
        self, table_id: str, maker: str, status: str, done: int, total: int, body: str | None = None
    ) -> None:
        """Where the analysis stands, written by its maker only (another that took a stalled row over has a new
        token), and never over one done."""
        values: dict[str, Any] = {"status": status, "done": done, "total": total, "touched": time.time()}
        if body is not None:
            values["body"] = body
        mine = (analyses.c.table_id == table_id) & (analyses.c.maker == maker) & (analyses.c.status != "done")
        async with self.store.connect(write=True) as conn:
            await conn.execute(update(analyses).where(mine).values(**values))

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()


__all__ = ["Analyses", "analyses"]
