"""Quotas that hold over every connection and every process: so many of a kind in a window, per key.

A key names who is counted: a seat at a table (``hint:TABLE:SEAT``) or a
client address's hash (``tables:ADDRESS``).  Counting per connection would
let one seat with thirty tabs ask thirty hints at once, and counting per
process would let one address make its tables on each process in turn; so
the processes of a cluster count in their shared Redis, and a process
alone counts in its memory.  Windows are fixed (a new one starts with the
first count after the last ended), which is what a quota needs: at most
``most`` in any window, and when the next one opens.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from .cluster import PREFIX, Cluster

LOG = logging.getLogger("biriba.server")


class Quotas:
    """At most ``most`` of a kind per ``window`` seconds per key: in Redis when the processes share one."""

    def __init__(self, cluster: Cluster | None = None) -> None:
        self.cluster = cluster
        self.windows: dict[str, tuple[float, int]] = {}  # key: when its window started, and the count in it

    async def take(self, key: str, most: int, window: float) -> float | None:
        """Count one for ``key``: None while within its quota, else the seconds until the next window opens.

        With Redis away, each process counts alone until it is back (a quota then holds per process).
        """
        bus = self.cluster.bus if self.cluster is not None else None
        if bus is not None and bus.connected:
            try:
                return await _take_in(bus.client, f"{PREFIX}:quota:{key}", most, window)
            except Exception as exc:
                LOG.warning("quotas: Redis did not answer (%s); counted in this process meanwhile", exc)
        return self._take_here(key, most, window)

    def _take_here(self, key: str, most: int, window: float) -> float | None:
        now = time.monotonic()
        started, count = self.windows.get(key, (now, 0))
        if now >= started + window:
            started, count = now, 0
        if count >= most:
            return started + window - now
        self.windows[key] = (started, count + 1)
        return None

    def forget_old(self, longest: float) -> None:
        """Drop the windows that ended (the janitor's): none is longer than ``longest`` seconds."""
        ended = time.monotonic() - longest
        for key in [k for k, (started, _) in self.windows.items() if started < ended]:
            del self.windows[key]


async def _take_in(redis: Any, name: str, most: int, window: float) -> float | None:
    """One count in Redis, in one transaction: the window's key made with its expiry if new, then counted."""
    async with redis.pipeline(transaction=True) as pipe:
        pipe.set(name, 0, nx=True, px=max(1, round(window * 1000)))
        pipe.incr(name)
        pipe.pttl(name)
        _, count, left = await pipe.execute()
    return None if count <= most else max(left, 0) / 1000
