"""Bots that think hard do it in other processes: a search never holds up the event loop or another table.

So do a finished match's analyses (a few decisions at a time, through the
bots' slots, in turn with their decisions) and its replay positions (a replay of its record up to a
step): in a thread of the server's process, each would hold the
interpreter's lock that every table needs.

A hard bot's decision (a search of a second or so) runs in a pool of worker
processes at a lower CPU priority, so the server's own process, which
answers every message, keeps the processor whenever it needs it.  Each
table asks for one decision at a time and the pool's slots go to the
tables in the order they asked (an asyncio semaphore is first come, first
served): a table of hard bots at full speed takes its turn like any other.
The queue is bounded: past it a decision is made at once by the bot's own
quick judgement (greedy) in the server's process, and counted.

A worker is given what the seat may see (its view and the legal actions),
never the deal.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from .. import caches
from ..actions import Action
from ..analysis import Decision, PlayedDeal, analyse_steps, decision_steps
from ..bots import GreedyBot, make_bot
from ..records import position_to_json
from ..replay import replay_record
from ..scoring import team_tables
from ..views import PlayerView

#: How much lower the workers' CPU priority is than the server's (``nice``).
NICENESS = 19  # the lowest: measured, 10 still let a busy worker lift the people's p99 past 100 ms


#: How often a worker looks whether the server that started it is still there.
PARENT_CHECK_S = 2.0


def _start_worker(cache_budget: int) -> None:
    os.nice(NICENESS)
    caches.set_budget(cache_budget)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """End this worker once its server is gone: a server killed outright (``kill -9``) cannot stop its pool."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


def _decide(kind: str, seed: str, think_ms: float, view: PlayerView, legal: Sequence[Action]) -> int:
    """In a worker: the bot's choice, as its index in ``legal``; the caches are trimmed between decisions."""
    bot = make_bot(kind, seed, think_ms)
    index = list(legal).index(bot.choose(view, legal))
    caches.trim()
    return index


def _decision_steps(played: PlayedDeal) -> list[int]:
    """In a worker: the deal's decisions, every seat's (:func:`~biriba.analysis.decision_steps`)."""
    return decision_steps(played, range(played.rules.seats))


def _analyse(played: PlayedDeal, steps: list[int], samples: int, seed: str) -> list[Decision]:
    """In a worker: these decisions of the deal valued (:func:`~biriba.analysis.analyse_steps`)."""
    found = list(analyse_steps(played, set(steps), samples, seed))
    caches.trim()
    return found


def _ready() -> int:
    return os.getpid()


class OutOfRange(ValueError):
    """A replay's deal or step past the match's; the message says the range."""


def replay_position(record: bytes, deal: int, step: int) -> bytes:
    """A finished match's deal ``deal`` after ``step`` actions, every hand open, as the replay's answer (JSON)."""
    data = json.loads(record)
    if deal > len(data["deals"]):
        raise OutOfRange(f"deal: 1..{len(data['deals'])}")
    total = len(data["deals"][deal - 1]["actions"])
    if step > total:
        raise OutOfRange(f"step: 0..{total}")
    return json.dumps(replayed_position(data, deal, step), ensure_ascii=False, separators=(",", ":")).encode()


def replayed_position(record: dict[str, Any], deal: int, step: int) -> dict[str, Any]:
    """The complete position of a finished match's deal after ``step`` actions, for the replay viewer."""
    history = record["deals"][deal - 1]["actions"]
    record["deals"] = record["deals"][:deal]
    record["deals"][-1] = {**record["deals"][-1], "actions": history[:step]}
    record["deals"][-1].pop("result", None)
    replayed = replay_record(record).deals[-1]
    body = position_to_json(replayed)  # every hand open: the match is over
    body.update(
        over=replayed.is_over,
        board=[team.to_json() for team in team_tables(replayed)],
        result=replayed.result().to_json() if replayed.is_over else None,
        actions=step,
        total=len(history),
        action=history[step - 1][1] if step else None,
        seat=history[step - 1][0] if step else None,
    )
    return body


def _replay(record: bytes, deal: int, step: int) -> bytes:
    """In a worker: :func:`replay_position`; the caches are trimmed after it."""
    body = replay_position(record, deal, step)
    caches.trim()
    return body


@dataclass
class ThinkingStats:
    """What ``/metrics`` reports of the pool."""

    decisions: int = 0
    waiting: int = 0
    thinking: int = 0
    quick: int = 0  # decisions made at once because the queue was full
    wait_seconds: float = 0.0  # the sum of the time decisions waited for a slot


class Thinkers:
    """A pool of worker processes for bot decisions, shared fairly between tables."""

    def __init__(self, workers: int, queue: int, cache_budget: int = caches.DEFAULT_BUDGET) -> None:
        self.workers = max(1, workers)
        self.queue = queue
        self.cache_budget = cache_budget
        self.pool = self._pool()
        self.slots = asyncio.Semaphore(self.workers)
        self.stats = ThinkingStats()

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers, mp_context=get_context("spawn"), initializer=_start_worker, initargs=(self.cache_budget,)
        )

    async def start(self) -> None:
        """Start every worker now (each imports the engine once), not at the first decision."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self.pool, _ready) for _ in range(self.workers)))

    async def choose(self, kind: str, seed: str, think_ms: float, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The bot's choice among ``legal``, thought out in a worker (or at once, by greedy, past the queue)."""
        stats = self.stats
        if stats.waiting >= self.queue:
            stats.quick += 1
            return GreedyBot(seed).choose(view, legal)
        loop = asyncio.get_running_loop()
        asked = loop.time()
        stats.waiting += 1
        try:
            await self.slots.acquire()
        finally:
            stats.waiting -= 1
        stats.wait_seconds += loop.time() - asked
        stats.thinking += 1
        try:
            index: int = await self._run(_decide, kind, seed, think_ms, view, list(legal))
        finally:
            stats.thinking -= 1
            self.slots.release()
        stats.decisions += 1
        return legal[index]

    async def decision_steps(self, played: PlayedDeal) -> list[int]:
        """The deal's decisions (a replay of it, some tens of milliseconds), in a worker, not through the slots."""
        steps: list[int] = await self._run(_decision_steps, played)
        return steps

    async def analyse(self, played: PlayedDeal, steps: list[int], samples: int, seed: str) -> list[Decision]:
        """A few decisions of a finished deal valued in a worker, through the bots' slots: a table whose hard bot
        asks meanwhile waits for this chunk at most, as for another table's decision."""
        await self.slots.acquire()
        try:
            found: list[Decision] = await self._run(_analyse, played, steps, samples, seed)
        finally:
            self.slots.release()
        return found

    async def replay(self, record: bytes, deal: int, step: int) -> bytes:
        """:func:`replay_position` in a worker (:class:`OutOfRange` if there is no such deal or step).

        Not through the bots' slots: it waits for the work already given to
        the workers (a decision is a second at most), and takes a worker for
        some tens of milliseconds.
        """
        body: bytes = await self._run(_replay, record, deal, step)
        return body

    async def _run(self, work: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, work, *args)
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool for the next work
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._pool()
            raise

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
