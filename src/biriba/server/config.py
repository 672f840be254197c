"""A server's limits and addresses: ``biriba serve``'s flags, with the defaults of a well-run game site.

Every limit is listed in docs/protocol.md and docs/operations.md; each
refusal it causes says which (429 with ``Retry-After`` for a quota).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..analysis import SAMPLES as ANALYSIS_SAMPLES
from .audience import Limits

SERVER_CACHE_BUDGET = 50_000


def default_workers() -> int:
    """Bot workers: every core but one, which the server's own process keeps."""
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass(frozen=True)
class ServerConfig:
    #: The site's address as people reach it (``https://biriba.example``): invite links are made with it.
    #: Unset, each request's own host makes them.
    public_url: str | None = None
    #: Other sites whose pages may open a WebSocket here, besides the server's own (``--allow-origin``).
    origins: tuple[str, ...] = ()
    #: The largest request body, in bytes (413 beyond).
    max_body: int = 16 * 1024
    #: Tables one client address may create in a minute (429 beyond).
    tables_per_minute: int = 10
    #: Tables one client address may have open or in play at once (429 beyond).
    open_tables: int = 20
    #: Hints the seats of one client address may ask for in a minute (each seat: one every 5 seconds).
    hints_per_minute: int = 12
    #: Chat lines the seats of one client address may say in a minute (each seat: one every 2 seconds).
    chat_per_minute: int = 30
    #: WebSocket connections one client address may hold at once, to any tables (closed with 4429 beyond).
    connections_per_address: int = 32
    #: WebSocket connections one client address may open in a minute (a page reconnecting opens one a second).
    connections_per_minute: int = 120
    #: Connections one client address may hold to one table (its people's tabs and its watchers).
    connections_per_table: int = 8
    #: Watchers one table may have, on all its processes.
    watchers: int = 200
    #: Messages that may wait for one client before it is cut off as fallen behind (4420).
    send_queue: int = Limits.messages
    #: Their bytes, all told.
    send_queue_bytes: int = Limits.bytes
    #: Seconds one message may wait for a client, or take to hand to the network, before it is cut off.
    send_timeout: float = Limits.seconds
    #: Seconds after which a table no person ever sat at expires (bots alone included, unless watched).
    unclaimed_after: float = 1800.0
    #: Seconds after which a table nobody is connected to leaves memory (it is loaded again on demand).
    idle_after: float = 300.0
    #: Worker processes for hard bots' decisions (and finished matches' replay positions).
    bot_workers: int = 0  # 0: default_workers()
    #: Decisions that may wait for a worker; past it a hard bot plays its quick (greedy) move.
    bot_queue: int = 200
    #: Entries the engine's shared caches may hold, in the server and in each bot worker (``biriba.caches``).
    #: Less than the engine's default: at about 1.2 kB an entry in a server's process (measured in the soak,
    #: ``make soak-serve``), 200,000 would take some 240 MB, and under load they fill at 6,000 a minute.
    cache_budget: int = SERVER_CACHE_BUDGET
    #: Record and replay requests one client address may have under way at once (429 beyond): the page asks
    #: for a position and, at first, the record.
    replays_at_once: int = 2
    #: Records and replay positions computed for one client address in a minute (429 beyond); those already
    #: kept are not counted.  A position is up to some 50 ms of a bot worker's time (a long match's last deal).
    replays_per_minute: int = 300
    #: Bytes of finished matches' records and replay positions kept, to answer again without the engine (a
    #: position is some 3 KB, a record 20 to 40 KB).
    replay_cache: int = 32 * 1024 * 1024
    #: The points a quick-play match is played to, over its preset's own (``--quick-target``: a site of short
    #: matches); unset, the preset's.
    quick_target: int | None = None
    #: Deals sampled a decision in a finished match's analysis (``--analysis-samples``; docs/analysis.md).
    analysis_samples: int = ANALYSIS_SAMPLES
    #: Seconds between the janitor's rounds (expiry, unloading idle tables, trimming the caches).
    janitor_every: float = 30.0
    #: Seconds between the janitor's full collections of cyclic garbage (each a pause of every table).
    collect_every: float = 300.0

    #: Redis for the events between server processes (``--redis``): unset, one process serves alone.
    redis_url: str | None = None
    #: Seconds a table's lease lasts unless renewed: how long a dead process's tables wait for a takeover.
    lease_ttl: float = 5.0
    #: Seconds between a clustered process's beats: leases renewed, other owners watched, presence told again.
    beat_every: float = 1.0

    @property
    def workers(self) -> int:
        return self.bot_workers or default_workers()

    @property
    def send_limits(self) -> Limits:
        return Limits(self.send_queue, self.send_queue_bytes, self.send_timeout)
