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
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, Text, insert, select, update
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
        now (``players``: a deleted account's seat is a former player's); 404 ``no_analysis`` if never asked."""
        async with self.store.connect() as conn:
            row = (await conn.execute(select(analyses).where(analyses.c.table_id == table_id))).first()
        if row is None:
            raise TableError("no_analysis", "this match has not been analysed: ask for its analysis first")
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
        table_id = live.row.id
        try:
            now = await self.status(table_id)
            if now["status"] in ("done", "queued", "running"):
                return await self.status(table_id, list(live.table.match.players))
        except TableError:
            now = None
        if self.waiting >= QUEUE_MOST:
            raise TableError(
                "busy", "the server has many analyses to make just now: ask again in a while", retry_after=60
            )
        words = f"{PER_HOUR} analyses asked for from one address in an hour, the most it may"
        await self.quotas.charge(f"analyses:{address}", PER_HOUR, 3600, "quota", words)
        if not await self._claim(table_id, fresh=now is None):
            return await self.status(table_id, list(live.table.match.players))  # another process claimed it
        match = live.table.match
        deals = [PlayedDeal.of(number, deal) for number, deal in enumerate(match.deals, 1)]
        seats = [f"Seat {seat}" for seat in range(match.rules.seats)]  # the names are the table's, when read
        made = Analysis(match.rules, seats, self.samples, table_id)
        task = asyncio.create_task(self._make(table_id, deals, made), name=f"analysis {table_id}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return await self.status(table_id, list(live.table.match.players))

    async def _claim(self, table_id: str, fresh: bool) -> bool:
        """The row marked queued by this process: a new one, or one stalled or failed; False if another has it."""
        values = {"status": "queued", "done": 0, "total": 0, "touched": time.time(), "body": None}
        async with self.store.connect(write=True) as conn:
            if fresh:
                try:
                    await conn.execute(insert(analyses).values(table_id=table_id, **values))
                except db_errors.IntegrityError:
                    return False
                return True
            again = (analyses.c.status == "failed") | (analyses.c.touched < time.time() - STALE)
            where = (analyses.c.table_id == table_id) & (analyses.c.status != "done") & again
            return bool((await conn.execute(update(analyses).where(where).values(**values))).rowcount)

    async def _make(self, table_id: str, deals: list[PlayedDeal], made: Analysis) -> None:
        self.waiting += 1
        try:
            await self.turn.acquire()
        finally:
            self.waiting -= 1
        try:
            await self._progress(table_id, "running", 0, 0)
            work = [(played, await self._steps(played)) for played in deals]
            total = sum(len(steps) for _, steps in work)
            for played, steps in work:
                for at in range(0, len(steps), CHUNK):
                    made.decisions += await self._value(played, steps[at : at + CHUNK], table_id)
                    await self._progress(table_id, "running", len(made.decisions), total)
            body = json.dumps(made.to_json(), separators=(",", ":"))
            await self._progress(table_id, "done", total, total, body)
            LOG.info("table %s: analysed, %d decisions", table_id, total)
        except Exception:
            LOG.exception("table %s: the analysis failed", table_id)
            await self._progress(table_id, "failed", 0, 0)
        finally:
            self.turn.release()

    async def _steps(self, played: PlayedDeal) -> list[int]:
        if self.thinkers is not None:
            return await self.thinkers.decision_steps(played)
        return await asyncio.to_thread(decision_steps, played, range(played.rules.seats))

    async def _value(self, played: PlayedDeal, steps: list[int], seed: str) -> list[Decision]:
        if self.thinkers is not None:
            return await self.thinkers.analyse(played, steps, self.samples, seed)
        return await asyncio.to_thread(lambda: list(analyse_steps(played, set(steps), self.samples, seed)))

    async def _progress(self, table_id: str, status: str, done: int, total: int, body: str | None = None) -> None:
        values: dict[str, Any] = {"status": status, "done": done, "total": total, "touched": time.time()}
        if body is not None:
            values["body"] = body
        async with self.store.connect(write=True) as conn:
            await conn.execute(update(analyses).where(analyses.c.table_id == table_id).values(**values))

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()


__all__ = ["Analyses", "analyses"]
