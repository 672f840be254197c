"""A table's driver: the one coroutine that plays what is due at a table the server owns.

It plays the bots at the table's pace, stands in for a person who is
away, has handed the seat over or left it free, or whose turn clock ran
out, and deals the next hand after a deal's pause: no thread per table.
A hard bot's search runs in a worker process (:mod:`.thinking`) with the
table's lock released meanwhile.  A store that takes no moves is waited
out; anything else that raises is a fault of the server, which trying
again would only repeat: the table stops, broken
(:meth:`~.live.LiveTable.fault`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..actions import Action
from ..bots import TABLE_THINK_MS, GreedyBot, SearchBot
from ..deal import Deal
from ..table import Agent
from ..views import PlayerView
from .messages import Moved, TableError

if TYPE_CHECKING:
    from .live import LiveTable

#: The bot that plays for an absent person, or when a turn clock runs out.
STAND_IN = "greedy"
LOG = logging.getLogger("biriba.server")


@dataclass(frozen=True)
class Think:
    """A hard bot's decision to make away from the table's lock: what its seat sees, and the table's version."""

    seat: int
    version: int
    seed: str
    think_ms: float
    view: PlayerView
    legal: list[Action]
    by: str | None  # played for a person: "clock" or "absent"


class Driver:
    """What is due at one table, and when: the bots' moves at their pace, the stand-in's, the next deal."""

    def __init__(self, live: LiveTable) -> None:
        self.live = live
        self.stand_in = GreedyBot(f"{live.row.seed}/stand-in")
        self.kick = asyncio.Event()  # something changed: look again at once
        self.task: asyncio.Task[None] | None = None
        self.last_event = time.monotonic()  # the bots' pace runs from the last move
        self.turn_started = time.monotonic()  # the turn clock, from the turn's first move
        self.deal_ended = time.monotonic()  # the deal's pause, from its end

    def start(self) -> None:
        """Drive the table, if this process owns it (and no fault stopped it)."""
        live = self.live
        if live.owned and not live.broken and (self.task is None or self.task.done()):
            self.task = asyncio.create_task(self._drive(), name=f"table {live.row.id}")

    async def stop(self) -> None:
        task, self.task = self.task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def wake(self) -> None:
        self.kick.set()

    def moved(self, turn_changed: bool, deal_over: bool) -> None:
        """A move was committed: the pace, the turn clock and the deal's pause run from it."""
        self.last_event = time.monotonic()
        if deal_over:
            self.deal_ended = self.last_event
        if turn_changed or deal_over:
            self.turn_started = self.last_event

    def new_turn(self) -> None:
        self.turn_started = time.monotonic()

    def clock_left(self) -> float | None:
        """Seconds left on the turn clock of the person to move, if the table has one."""
        live = self.live
        deal = live.table.match.current
        clock = live.settings.turn_clock
        if clock is None or deal is None or live.row.seats[deal.to_move].kind == "bot":
            return None
        return max(0.0, round(self.turn_started + clock - time.monotonic(), 1))

    def standing_in(self, seat: int) -> tuple[str, float] | None:
        """Why the stand-in plays a person's seat, and from when: at once for a seat handed over or left free,
        ``absent_after`` seconds into an absence."""
        live = self.live
        if seat in live.handed:
            return "handed", 0.0
        if live.row.seats[seat].token_hash is None:
            return "left", 0.0
        if seat in live.audience.absent_since:
            return "absent", live.audience.absent_since[seat] + live.settings.absent_after
        return None

    async def _drive(self) -> None:
        """Play what is due, then wait until something is; the store away is waited out, a fault stops all."""
        live = self.live
        store_away = False
        while live.owned and not live.dropped and not live.broken:
            self.kick.clear()  # a kick during the look below wakes the wait at once
            try:
                async with live.lock:
                    wait = await self._due() if live.owned and not live.dropped else None
                if isinstance(wait, Think):
                    await self._think(wait)
                    continue
                store_away = False
            except Moved:
                return  # another process drives the table now
            except Exception as exc:
                if not (isinstance(exc, TableError) and exc.code == "store"):
                    LOG.exception("table %s: its driver failed; the table is stopped (broken)", live.row.id)
                    await live.fault()
                    return
                if not store_away:
                    LOG.warning("table %s: the store takes no moves; the table tries again each second", live.row.id)
                store_away, wait = True, 1.0
            if wait == 0:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.kick.wait(), timeout=wait)

    async def _think(self, think: Think) -> None:
        """A hard bot's search in a worker, the table free meanwhile; its move is played if the table has not moved."""
        live = self.live
        assert live.thinkers is not None
        try:
            action = await live.thinkers.choose("hard", think.seed, think.think_ms, think.view, think.legal)
        except Exception:  # the workers are gone (killed, out of memory): the bot plays its quick move
            LOG.exception("table %s: a bot worker failed; the bot plays greedy's move", live.row.id)
            action = GreedyBot(think.seed).choose(think.view, think.legal)
        async with live.lock:
            if live.owned and live.version == think.version:
                await live.committed(live.table.play(think.seat, action), think.by)

    async def _due(self) -> float | Think | None:
        """Do one thing if one is due; return 0 to look again at once, the seconds until one may be, None,
        or a hard bot's decision to make without the lock."""
        live = self.live
        match, settings = live.table.match, live.settings
        now = time.monotonic()
        if match.is_over or (not live.seated and not match.deals):
            return None  # the first deal waits for every person; later a seat left free is the stand-in's
        deal = match.current
        if deal is None:
            persons_here = any(s.kind == "person" for s in live.row.seats)
            pause = settings.deal_pause if match.deals and persons_here else 0.0
            if now >= self.deal_ended + pause:
                await live.start_deal()
                return 0
            return self.deal_ended + pause - now
        seat = deal.to_move
        paced = self.last_event + settings.bot_delay
        if live.row.seats[seat].kind == "bot":
            return await self._step(None) if now >= paced else paced - now
        waits = []
        standing_in = self.standing_in(seat)
        if standing_in is not None and live.audience.connected_since:
            # the stand-in plays each turn at the bots' pace (after a long absence, or at once for a seat handed
            # over or left free), for the people who wait; with nobody at the table it waits too, and the match
            # is where they left it when they return
            by, since = standing_in
            due = max(since, paced)
            if now >= due:
                return await self._step(self.stand_in, by)
            waits.append(due - now)
        if settings.turn_clock is not None:  # the clock's turn is played on at the bots' pace
            due = max(self.turn_started + settings.turn_clock, paced)
            if now >= due:
                return await self._step(self.stand_in, "clock")
            waits.append(due - now)
        return min(waits) if waits else None

    async def _step(self, agent: Agent | None, by: str | None = None) -> float | Think:
        """One move of the seat to move by its bot (or ``agent``, standing in ``by`` the clock or an absence).

        A search is handed back to the driver as a :class:`Think`, to run without the table's lock.
        """
        live = self.live
        deal = live.table.match.current
        assert deal is not None
        chooser = agent or live.table.agents[deal.to_move]
        if isinstance(chooser, SearchBot) and live.thinkers is not None:
            think = self.search_due(chooser, deal, by)
            if think is not None:
                return think
        event = live.table.step(agent)
        if event is not None:
            await live.committed(event, by)
        return 0

    def search_due(self, bot: SearchBot, deal: Deal, by: str | None) -> Think | None:
        """The search a hard bot's move needs, for a worker; None if the bot settles it here without one.

        The bot here keeps its memory of the draws faced since the stock ran out (a worker's bot is new
        at every decision), so that it never takes the same pile round a loop twice (docs/bots.md).
        """
        live = self.live
        seat = deal.to_move
        view, legal = deal.view_for(seat), list(deal.legal_actions())
        if bot.settled(view, legal) is not None:
            return None  # the table's step asks the bot again, which answers the same
        seed = f"{live.row.seed}/bot/{seat}/{live.version}"
        return Think(seat, live.version, seed, bot.think_ms or TABLE_THINK_MS, view, legal, by)
