"""Quotas that hold over every connection and every process: at most so many of a kind in any window, per key.

A key names who is counted: a seat at a table (``hint:TABLE:SEAT``) or a
client address's hash (``tables:ADDRESS``).  Counting per connection would
let one seat with thirty tabs ask thirty hints at once, and counting per
process would let one address make its tables on each process in turn; so
the processes of a cluster count in their shared Redis, and a process
alone counts in its memory.  The window slides: at most ``most`` in any
``window`` seconds (a fixed window would let twice that through across
its edge), and a refusal says when the oldest one counted leaves it.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections import deque
from typing import Any

from .cluster import PREFIX, Cluster
from .messages import TableError

LOG = logging.getLogger("biriba.server")


class Quotas:
    """At most ``most`` of a kind per ``window`` seconds per key: in Redis when the processes share one."""

    def __init__(self, cluster: Cluster | None = None) -> None:
        self.cluster = cluster
        self.counted: dict[str, deque[float]] = {}  # key: when its recent ones were counted (monotonic)
        self.windows: dict[str, float] = {}  # key: its window, so that it is forgotten only once it has passed

    async def take(self, key: str, most: int, window: float) -> float | None:
        """Count one for ``key``: None while within its quota, else the seconds until one more may be.

        With Redis away, each process counts alone until it is back (a quota then holds per process).
        """
        bus = self.cluster.bus if self.cluster is not None else None
        if bus is not None and bus.connected:
            try:
                return await _take_in(bus.client, f"{PREFIX}:quota:{key}", most, window)
            except Exception as exc:
                LOG.warning("quotas: Redis did not answer (%s); counted in this process meanwhile", exc)
        return self._take_here(key, most, window)

    async def charge(self, key: str, most: int, window: float, code: str, words: str) -> None:
        """Count one for ``key``, or refuse it beyond its quota: the protocol's ``code`` with ``words``, and the
        seconds to wait (``Retry-After``)."""
        wait = await self.take(key, most, window)
        if wait is not None:
            raise TableError(code, words, retry_after=max(1, math.ceil(wait)))

    def _take_here(self, key: str, most: int, window: float) -> float | None:
        now = time.monotonic()
        recent = self.counted.setdefault(key, deque())
        self.windows[key] = window
        while recent and recent[0] <= now - window:
            recent.popleft()
        if len(recent) >= most:
            return recent[0] + window - now
        recent.append(now)
        return None

    def forget_old(self) -> None:
        """Drop the keys with nothing counted within their own window (the janitor's): a sign-in's window is
        15 minutes, a table's a minute."""
        now = time.monotonic()
        for key in [k for k, recent in self.counted.items() if not recent or recent[-1] <= now - self.windows[k]]:
            del self.counted[key], self.windows[key]

    async def over(self, key: str, most: int, window: float) -> float | None:
        """Whether ``key`` is at its quota now, counting nothing: None if not, else the seconds until it is not."""
        bus = self.cluster.bus if self.cluster is not None else None
        if bus is not None and bus.connected:
            try:
                return await _over_in(bus.client, f"{PREFIX}:quota:{key}", most, window)
            except Exception as exc:
                LOG.warning("quotas: Redis did not answer (%s); counted in this process meanwhile", exc)
        now = time.monotonic()
        recent = [t for t in self.counted.get(key, ()) if t > now - window]
        return recent[-most] + window - now if len(recent) >= most else None


async def _take_in(redis: Any, name: str, most: int, window: float) -> float | None:
    """One count in Redis: a sorted set of the times counted, in one transaction; a refused one is taken back."""
    now = time.time()
    member = f"{now}:{secrets.token_hex(4)}"
    async with redis.pipeline(transaction=True) as pipe:
        pipe.zremrangebyscore(name, 0, now - window)
        pipe.zadd(name, {member: now})
        pipe.zcard(name)
        pipe.zrange(name, 0, 0, withscores=True)
        pipe.pexpire(name, max(1, round(window * 1000)))
        _, _, count, oldest, _ = await pipe.execute()
    if count <= most:
        return None
    await redis.zrem(name, member)
    return max(0.0, float(oldest[0][1]) + window - now)


async def _over_in(redis: Any, name: str, most: int, window: float) -> float | None:
    """Whether the sorted set of times counted holds ``most`` within the window, counting nothing."""
    now = time.time()
    recent = await redis.zrangebyscore(name, now - window, "+inf", withscores=True)
    return float(recent[-most][1]) + window - now if len(recent) >= most else None
