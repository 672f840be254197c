"""Quotas over every connection and process (server/quotas.py): a sliding window, in memory and in Redis."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from biriba.server.messages import TableError
from biriba.server.quotas import Quotas
from clusterkit import redis_server


async def at_most_two_in_any_window(quotas: Quotas) -> None:
    """Two in any two seconds: a third waits for the first to leave the window, not for a window's edge."""
    assert await quotas.take("k", 2, 2.0) is None
    await asyncio.sleep(1.0)
    assert await quotas.take("k", 2, 2.0) is None
    wait = await quotas.take("k", 2, 2.0)
    assert wait is not None and 0 < wait <= 1.0  # the first leaves two seconds after it came
    await asyncio.sleep(wait + 0.05)
    assert await quotas.take("k", 2, 2.0) is None  # one left: one more
    assert await quotas.take("k", 2, 2.0) is not None  # the second is still in (a fixed window would let it by)
    assert await quotas.take("other", 2, 2.0) is None  # each key its own
    with pytest.raises(TableError) as refused:
        await quotas.charge("k", 2, 2.0, "quota", "two in two seconds")
    assert refused.value.code == "quota" and refused.value.retry_after == 1


def test_a_quota_in_memory_slides() -> None:
    asyncio.run(at_most_two_in_any_window(Quotas()))


@pytest.mark.needs("redis")
def test_a_quota_in_redis_slides_and_holds_for_every_process(tmp_path: Path) -> None:
    import redis.asyncio as aioredis

    async def main(url: str) -> None:
        client = aioredis.from_url(url)
        cluster: Any = SimpleNamespace(bus=SimpleNamespace(client=client, connected=True))
        one, other = Quotas(cluster), Quotas(cluster)  # two processes' counts, in one Redis
        await at_most_two_in_any_window(one)
        started = time.monotonic()
        assert await one.take("shared", 1, 5) is None
        assert await other.take("shared", 1, 5) is not None
        assert not one.counted and time.monotonic() - started < 5  # nothing counted in memory meanwhile
        await client.aclose()

    with redis_server(tmp_path) as redis:
        asyncio.run(main(redis.url))
