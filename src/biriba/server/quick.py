"""Quick play (issue 52, row 4): "play now" for a preset; the server seats waiting players of similar rating.

A signed-in player asks to play a preset (``POST /api/quick``) and waits.
The waiting list is the store's (:data:`queue`), so players who wait on
different server processes are seated together: every process looks for a
table to make every :data:`MATCH_EVERY` seconds, one at a time (a
PostgreSQL advisory lock; SQLite takes one writer at once).  The player who
has waited longest is seated first, with the others nearest their rating,
within a window that widens as they wait (:func:`window`).  If nobody comes
within the player's wait (``wait``, 20 seconds by default) and every player
found allowed it, bots fill the empty seats: the measured kind nearest the
people's mean rating.  Partners are paired so that the teams' ratings are
as even as they can be.  Two friends may queue as a partnership: each names
the other (``partner``), and once both wait for the same preset they are
seated together, on one team, as one waiter of their mean rating.

A seat made this way is bound to its player's account under a token nobody
holds; the page takes it (``POST /api/tables/{id}/seats/{seat}/token``, as
a player takes a seat back on another device) once ``GET /api/quick`` says
where it is.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, delete, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..rules import PRESETS
from .accounts import Account, accounts, named
from .messages import Settings, TableError
from .moderation import blocks
from .ratings import BOT_RATINGS, MODEL, ratings
from .store import SeatInfo, Store, metadata, new_table_id, token_hash

if TYPE_CHECKING:
    from .hall import Hall

#: Seconds between two looks for a table to make, in every process.
MATCH_EVERY = 1.0
#: The rating window at first (either side of the longest waiter's rating), and its widening each second.
WINDOW, WIDENING = 3.0, 0.5
#: A player's place in the list is forgotten this many seconds after they asked (seated or not; a seat found and
#: never taken plays on with the stand-in).
FORGET_AFTER = 1200.0
#: The PostgreSQL advisory lock the process making tables holds.
MATCH_LOCK = 0x71756963

queue = Table(
    "quick_queue",
    metadata,
    Column("account", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("name", String(120), nullable=False),
    Column("family", String(32), nullable=False),
    Column("mu", Float, nullable=False),
    Column("bots", Integer, nullable=False),  # 1: bots may fill the seats nobody comes to
    Column("wait", Float, nullable=False),  # seconds before they may
    Column("since", Float, nullable=False),
    Column("table_id", String(24)),  # once seated
    Column("seat", Integer),
    Column("partner", String(24)),  # the account of the friend they queue with (the friend must name them too)
)


@dataclass(frozen=True)
class Waiting:
    account: str
    name: str
    family: str
    mu: float
    bots: bool
    wait: float
    since: float
    partner: str | None = None


#: Who is seated as one: a player alone, or two friends who named each other (a partnership, on one team).
Group = tuple[Waiting, ...]


def groups(waiting: list[Waiting]) -> list[Group]:
    """The waiters as they may be seated: alone, or as a partnership of two who named each other for the same
    preset.  One whose friend has not (yet) named them back for that preset waits on, seated with nobody."""
    by_account = {w.account: w for w in waiting}
    found: list[Group] = []
    for w in waiting:
        if w.partner is None or not PRESETS[w.family].partnerships:  # a partner named for a game played alone
            found.append((w,))
            continue
        friend = by_account.get(w.partner)
        if friend is None or friend.partner != w.account or friend.family != w.family:
            continue  # not named back (yet) for this preset
        if (w.since, w.account) < (friend.since, friend.account):  # the pair once: who asked first
            found.append((w, friend))
    return found


def since(group: Group) -> float:
    """When the group could first be seated: when its last member asked."""
    return max(w.since for w in group)


def rating(group: Group) -> float:
    return sum(w.mu for w in group) / len(group)


def window(waited: float) -> float:
    """How far from the longest waiter's rating a player may be to sit with them, after ``waited`` seconds."""
    return WINDOW + WIDENING * waited


def partnerships(chosen: list[Group], team_of: tuple[int, ...]) -> list[Waiting | None]:
    """Seats for the ``chosen`` (the rest None: bots): a partnership on a team of its own, then the players alone
    so that the teams' ratings are as even as they can be: the strongest and the weakest together, as a snake
    draft does."""
    teams = sorted(set(team_of))
    free = {team: [seat for seat, t in enumerate(team_of) if t == team] for team in teams}
    seats: list[Waiting | None] = [None] * len(team_of)
    for pair in (g for g in chosen if len(g) > 1):
        team = next(t for t in teams if len(free[t]) == len(team_of) // len(teams))
        for person in pair:
            seats[free[team].pop(0)] = person
    teams = [t for t in teams if free[t]]
    alone = sorted((g[0] for g in chosen if len(g) == 1), key=lambda p: -p.mu)
    for n, person in enumerate(alone):
        round_, at = divmod(n, len(teams))
        team = teams[at] if round_ % 2 == 0 else teams[-1 - at]
        if not free[team]:
            team = next(t for t in teams if free[t])
        seats[free[team].pop(0)] = person
    return seats


def nearest_bot(mu: float) -> str:
    """The measured bot kind whose rating is nearest ``mu``."""
    return min((kind for kind in BOT_RATINGS if kind != "medium"), key=lambda kind: abs(BOT_RATINGS[kind][0] - mu))


def choose(
    waiting: list[Waiting], now: float, blocked: frozenset[tuple[str, str]] = frozenset()
) -> tuple[list[Group], bool] | None:
    """The groups to seat at one table, and whether bots fill it; None if no table can be made yet.

    The longest waiting group first; the others of its family nearest its rating, within the window of its
    wait, that fit the seats left, and none with one who blocks or is blocked by one already chosen
    (``blocked``: (blocker, blocked) account pairs)."""

    def apart(group: Group, chosen: list[Group]) -> bool:
        pairs = [(a.account, b.account) for a in group for g in chosen for b in g]
        return not any(pair in blocked or pair[::-1] in blocked for pair in pairs)

    every = groups(waiting)
    for first in sorted(every, key=since):
        family = first[0].family
        seats = PRESETS[family].seats
        waited = now - since(first)
        near = sorted(
            (g for g in every if g[0].family == family and g is not first), key=lambda g: abs(rating(g) - rating(first))
        )
        found, count = [first], len(first)
        for other in near:
            if count == seats or abs(rating(other) - rating(first)) > window(waited):
                break
            if count + len(other) <= seats and apart(other, found):
                found.append(other)
                count += len(other)
        if count == seats:
            return found, False
        if waited >= max(w.wait for w in first) and all(w.bots for g in found for w in g):
            return found, True
    return None


class QuickPlay:
    """The waiting list in the store, and the tables made from it."""

    def __init__(self, store: Store, target: int | None = None) -> None:
        self.store = store
        self.target = target  # the points its matches are played to, over the preset's (``--quick-target``)

    async def join(
        self, account: Account, family: str, bots: bool, wait: float, partner: str | None = None
    ) -> dict[str, Any]:
        """Wait for a table of ``family`` (a preset), with the friend called ``partner`` as a partnership if
        given; a player already waiting waits anew with these wishes."""
        if family not in PRESETS:
            raise TableError("invalid", f"rules: no preset is called {family!r} (the presets: {', '.join(PRESETS)})")
        friend = None
        if partner is not None:
            if not PRESETS[family].partnerships:
                raise TableError(
                    "invalid",
                    f"partner: {family} is played alone (R1: partners where the preset has teams)",
                )
            friend = await named(self.store, partner)
            if friend.id == account.id:
                raise TableError("invalid", "partner: name a friend, not yourself")
        async with self.store.connect() as conn:
            query = select(ratings.c.mu).where((ratings.c.account == account.id) & (ratings.c.family == family))
            mu = (await conn.execute(query)).scalar()
        row = {"name": account.name, "family": family, "mu": MODEL.mu if mu is None else mu, "bots": int(bots)}
        row["partner"] = friend.id if friend else None
        async with self.store.connect(write=True) as conn:
            await conn.execute(delete(queue).where(queue.c.account == account.id))
            await conn.execute(insert(queue).values(account=account.id, wait=wait, since=time.time(), **row))
        return await self.status(account)

    async def leave(self, account: Account) -> None:
        async with self.store.connect(write=True) as conn:
            await conn.execute(delete(queue).where(queue.c.account == account.id))

    async def status(self, account: Account) -> dict[str, Any]:
        """Where the player stands: waiting (and for how long; whether the friend they named waits for them
        too), or seated (the table and seat to take)."""
        async with self.store.connect() as conn:
            row = (await conn.execute(select(queue).where(queue.c.account == account.id))).first()
            friend = None
            if row is not None and row.partner is not None:
                friend = (
                    await conn.execute(
                        select(accounts.c.name, queue.c.partner, queue.c.family)
                        .select_from(accounts.outerjoin(queue, queue.c.account == accounts.c.id))
                        .where(accounts.c.id == row.partner)
                    )
                ).first()
        if row is None:
            raise TableError("not_waiting", "you are not waiting for a table: ask for one first")
        shown: dict[str, Any] = {"rules": row.family, "bots": bool(row.bots), "wait": row.wait}
        if friend is not None:
            shown["partner"] = friend.name
            shown["partner_waiting"] = friend.partner == account.id and friend.family == row.family
        if row.table_id is None:
            return {"status": "waiting", "waited": round(time.time() - row.since, 1), **shown}
        return {"status": "seated", "table": row.table_id, "seat": row.seat, **shown}

    async def forget_old(self) -> None:
        """The places asked for more than :data:`FORGET_AFTER` seconds ago, forgotten (the janitor's)."""
        async with self.store.connect(write=True) as conn:
            await conn.execute(delete(queue).where(queue.c.since < time.time() - FORGET_AFTER))

    async def seated(self, account: Account, table_id: str) -> None:
        """The player has taken the seat found for them: their ticket is done."""
        async with self.store.connect(write=True) as conn:
            await conn.execute(delete(queue).where((queue.c.account == account.id) & (queue.c.table_id == table_id)))

    async def match(self, hall: Hall) -> str | None:
        """Make one table of waiting players if one can be made now; its id, else None.

        The players are marked seated at a table id chosen here, in one transaction under the lock (so that
        no other process seats them too); the table is made after, and if that fails they wait again."""
        async with self.store.connect() as conn:  # most looks find nothing to do: they write nothing
            waiting, blocked = await _waiting(conn)
            if choose(waiting, time.time(), blocked) is None:
                return None
        async with self.store.connect(write=True) as conn:
            if self.store.engine.dialect.name == "postgresql":
                lock = text("SELECT pg_try_advisory_xact_lock(:key)")
                if not (await conn.execute(lock, {"key": MATCH_LOCK})).scalar():
                    return None  # another process is at it
            waiting, blocked = await _waiting(conn)
            chosen = choose(waiting, time.time(), blocked)
            if chosen is None:
                return None
            people = [person for group in chosen[0] for person in group]
            rules = PRESETS[people[0].family]
            if self.target is not None:
                rules = rules.replace(target=self.target)
            placed = partnerships(chosen[0], rules.team_of)
            table_id = new_table_id()
            for seat, person in enumerate(placed):
                if person is not None:
                    where = queue.c.account == person.account
                    await conn.execute(update(queue).where(where).values(table_id=table_id, seat=seat))
        bot = nearest_bot(sum(p.mu for p in people) / len(people))
        seats = [
            SeatInfo("person", name=p.name, token_hash=token_hash(secrets.token_urlsafe(24)), account=p.account)
            if p is not None
            else SeatInfo("bot", bot=bot, name=f"{bot} bot")
            for p in placed
        ]
        try:
            await hall.open_table(rules.to_json(), Settings().to_data(), seats, "quick", table_id)
        except Exception:
            async with self.store.connect(write=True) as conn:
                await conn.execute(update(queue).where(queue.c.table_id == table_id).values(table_id=None, seat=None))
            raise
        return table_id


async def _waiting(conn: AsyncConnection) -> tuple[list[Waiting], frozenset[tuple[str, str]]]:
    """Who waits for a table (a banned account no longer does), and the blocks among them."""
    query = (
        select(queue)
        .join(accounts, accounts.c.id == queue.c.account)
        .where(queue.c.table_id.is_(None) & accounts.c.banned.is_(None))
    )
    rows = (await conn.execute(query)).all()
    waiting = [Waiting(r.account, r.name, r.family, r.mu, bool(r.bots), r.wait, r.since, r.partner) for r in rows]
    ids = [w.account for w in waiting]
    among = select(blocks.c.account, blocks.c.blocked).where(blocks.c.account.in_(ids) & blocks.c.blocked.in_(ids))
    return waiting, frozenset((a, b) for a, b in await conn.execute(among))


__all__ = ["Group", "QuickPlay", "Waiting", "choose", "groups", "partnerships", "queue", "window"]
