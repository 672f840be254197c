"""Hard bots think in worker processes (``server/thinking.py``): a legal choice, tables served in turn, a full queue
answered at once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from biriba.bots import GreedyBot
from biriba.deal import Deal
from biriba.server.thinking import PARENT_CHECK_S, Thinkers


def position(seed: int) -> tuple[Deal, int]:
    deal = Deal.shuffled(seed=seed)
    deal.apply(deal.parse_action("draw"))
    return deal, deal.to_move


def test_a_worker_chooses_a_legal_action_from_the_seats_view_and_tables_take_turns() -> None:
    async def main() -> None:
        thinkers = Thinkers(workers=1, queue=10)
        try:
            await thinkers.start()
            deal, seat = position(1)
            legal = list(deal.legal_actions())
            choice = await thinkers.choose("hard", "s", 30, deal.view_for(seat), legal)
            assert choice in legal and thinkers.stats.decisions == 1

            served: list[str] = []

            async def table(name: str) -> None:  # a table asks one decision at a time
                for turn in range(3):
                    await thinkers.choose("hard", f"{name}{turn}", 20, deal.view_for(seat), legal)
                    served.append(name)

            await asyncio.gather(table("a"), table("b"), table("c"))
            assert served == ["a", "b", "c"] * 3  # in turn: no table passes another twice
        finally:
            thinkers.close()

    asyncio.run(main())


def test_past_the_queue_a_hard_bot_plays_its_quick_move_at_once() -> None:
    async def main() -> None:
        thinkers = Thinkers(workers=1, queue=0)
        try:
            deal, seat = position(2)
            legal = list(deal.legal_actions())
            choice = await thinkers.choose("hard", "q", 1000, deal.view_for(seat), legal)
            assert choice == GreedyBot("q").choose(deal.view_for(seat), legal)
            assert (thinkers.stats.quick, thinkers.stats.decisions) == (1, 0)
        finally:
            thinkers.close()

    asyncio.run(main())


def test_a_worker_that_dies_is_replaced() -> None:
    async def main() -> None:
        thinkers = Thinkers(workers=1, queue=10)
        try:
            await thinkers.start()
            deal, seat = position(3)
            legal = list(deal.legal_actions())
            for process in list(thinkers.pool._processes.values()):  # killed, as by the out-of-memory killer
                os.kill(process.pid, signal.SIGKILL)
            with pytest.raises(BrokenProcessPool):
                await thinkers.choose("hard", "k", 20, deal.view_for(seat), legal)
            assert await thinkers.choose("hard", "k", 20, deal.view_for(seat), legal) in legal  # a new pool
        finally:
            thinkers.close()

    asyncio.run(main())


POOL_OWNER = """
import asyncio, os, sys, time
from biriba.server.thinking import Thinkers, _ready

async def main():
    thinkers = Thinkers(workers=2, queue=4)
    await thinkers.start()
    loop = asyncio.get_running_loop()
    pids = await asyncio.gather(*(loop.run_in_executor(thinkers.pool, _ready) for _ in range(4)))
    print(" ".join(map(str, sorted(set(pids)))), flush=True)
    time.sleep(60)

asyncio.run(main())
"""


def test_workers_end_when_their_server_is_killed_outright() -> None:
    """kill -9 of a server leaves its pool no chance to stop: each worker sees its parent gone and ends."""
    owner = subprocess.Popen([sys.executable, "-c", POOL_OWNER], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        workers = [int(p) for p in owner.stdout.readline().split()]
        assert workers and all(Path(f"/proc/{p}").exists() for p in workers)
    finally:
        owner.kill()
        owner.wait()
    deadline = time.monotonic() + PARENT_CHECK_S + 10
    while any(Path(f"/proc/{p}").exists() and not zombie(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{p}").exists() and not zombie(p) for p in workers), "a worker outlived its server"


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] == "Z"
    except OSError:
        return False
