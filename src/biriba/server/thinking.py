"""Bots that think hard do it in other processes: a search never holds up the event loop or another table.

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
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context

from .. import caches
from ..actions import Action
from ..bots import GreedyBot, make_bot
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


def _ready() -> int:
    return os.getpid()


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
            index = await loop.run_in_executor(self.pool, _decide, kind, seed, think_ms, view, list(legal))
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool for the next decisions
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._pool()
            raise
        finally:
            stats.thinking -= 1
            self.slots.release()
        stats.decisions += 1
        return legal[index]

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
