"""A finished match's record and replay positions: computed once, kept, and asked for within limits per address.

Once a match is over its record never changes, nor any position of its
replay; but each is engine work (a position replays the record up to its
step: tens of milliseconds for a long match, in a bot worker, :mod:`.thinking`).
So each answer is kept, in bytes (an LRU within a budget, shared by every
client: a position asked for twice is computed once, even when asked at the
same moment), and sent with an ETag as immutable, for browsers and proxies
to keep too.  And one client address may have so many of these requests
under way at once, and have so many answers computed a minute (one already
kept costs nothing and is not counted): 429 with ``Retry-After`` beyond.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .messages import TableError
from .quotas import Quotas

#: What a kept answer is found by: ``("record", table, *names)`` or ``("replay", table, deal, step)``.
Key = tuple[Any, ...]
#: How long browsers and proxies may keep an answer without asking again (a day; it never changes).
CACHE_CONTROL = "public, max-age=86400, immutable"
#: A record names its players, and a deleted account's seat is renamed: a cache asks again each time (its ETag
#: makes that a 304 while the names stand).
NAMED = "public, no-cache"


@dataclass(frozen=True)
class Kept:
    """An answer as sent: its JSON body and its ETag (a hash of the body)."""

    body: bytes
    etag: str

    def matches(self, if_none_match: str | None) -> bool:
        """Whether a request's ``If-None-Match`` names this answer (the client has it: 304)."""
        if not if_none_match:
            return False
        tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
        return "*" in tags or self.etag in tags


class Replays:
    """The kept answers, and what each client address has under way and has had computed this last minute."""

    def __init__(self, budget: int, at_once: int, per_minute: int, quotas: Quotas) -> None:
        self.budget = budget  # bytes of kept bodies
        self.at_once = at_once
        self.per_minute = per_minute
        self.quotas = quotas  # where the answers computed for each address are counted
        self.kept: OrderedDict[Key, Kept] = OrderedDict()  # least recently asked for first
        self.size = 0
        self.computing: dict[Key, asyncio.Future[Kept]] = {}
        self.computed = 0  # answers computed so far (``/metrics``): the others came from what was kept
        self.under_way: Counter[str] = Counter()

    async def answer(
        self, address: str, key: Key | Callable[[], Awaitable[Key]], compute: Callable[[], Awaitable[bytes]]
    ) -> Kept:
        """One request of ``address``: the kept answer, else ``compute``'s, within the address's limits (finding
        the ``key`` counts: it may load the table)."""
        if self.under_way[address] >= self.at_once:
            raise TableError(
                "quota",
                f"this address has {self.at_once} records or replays under way, the most it may at once",
                retry_after=1,
            )
        self.under_way[address] += 1
        try:
            return await self.fetch(address, await key() if callable(key) else key, compute)
        finally:
            self.under_way[address] -= 1
            if not self.under_way[address]:
                del self.under_way[address]

    async def fetch(self, address: str, key: Key, compute: Callable[[], Awaitable[bytes]]) -> Kept:
        """The answer for ``key``: kept, or being computed for another request, else computed and charged to
        ``address`` (and kept, if it fits the budget)."""
        kept = self.kept.get(key)
        if kept is not None:
            self.kept.move_to_end(key)
            return kept
        pending = self.computing.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        await self._charge(address)
        future: asyncio.Future[Kept] = asyncio.get_running_loop().create_future()
        self.computing[key] = future
        try:
            body = await compute()
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # told to whoever waits for it: not logged as never retrieved
            raise
        except BaseException:
            future.cancel()
            raise
        finally:
            del self.computing[key]
        kept = Kept(body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
        self.computed += 1
        self._keep(key, kept)
        future.set_result(kept)
        return kept

    async def _charge(self, address: str) -> None:
        words = (
            f"this address had {self.per_minute} records or replay positions computed in the last minute,"
            " the most it may (those already computed are not counted)"
        )
        await self.quotas.charge(f"replays:{address}", self.per_minute, 60, "quota", words)

    def _keep(self, key: Key, kept: Kept) -> None:
        if len(kept.body) > self.budget:
            return
        self.kept[key] = kept
        self.size += len(kept.body)
        while self.size > self.budget:
            _key, old = self.kept.popitem(last=False)
            self.size -= len(old.body)
