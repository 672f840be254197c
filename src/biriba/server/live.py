"""The tables in play on the server: a :class:`~biriba.table.Table` each, its seats, clients and store.

One :class:`LiveTable` per table holds the match at a table-loop
:class:`~biriba.table.Table`, the people and bots in its seats, its
:class:`~.audience.Audience` (the clients, each with its own queue) and
its :class:`~.driver.Driver` (the one coroutine that plays its bots, its
stand-in and its next deal).  Every change goes the same way, under the
table's lock: play it at the table, commit it to the store, then put in
every client's queue what its seat may see (never waiting for a client).
The set of live tables is :class:`~.hall.Hall`'s; the form of the
messages a table sends is in :mod:`.messages`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..bots import TABLE_THINK_MS, table_bot
from ..cards import NAMES, parse_card
from ..deal import Deal
from ..errors import IllegalActionError, NotationError
from ..match import Match
from ..rules import Rules
from ..scoring import team_tables
from ..table import Agent, Event, EventKind, Table
from .accounts import FORMER_PLAYER, forgotten_leaver
from .audience import SERVICE_RESTART, Audience, Client, encode
from .cluster import Cluster, Unreachable
from .driver import STAND_IN, Driver
from .messages import Moved, Settings, TableError, deal_event_json, event_json, row_info
from .names import looks_alike
from .store import Fenced, SeatInfo, Store, StoredTable, TableRow, token_hash
from .thinking import Thinkers

#: How long a hint's search may think (the hard bot's, at a web table).
HINT_MS = TABLE_THINK_MS

#: What the clients of a table stopped by a fault of the server are told (its status is then ``broken``).
BROKEN = TableError("broken", "this table stopped on a fault of the server; its moves so far are kept")

#: A follower's name for an owner it does not know yet (it lost the table, and has not read who took it).
UNKNOWN = "?"

LOG = logging.getLogger("biriba.server")


class LiveTable:
    """A table in play: the match, the seats, the clients, and the one driver that plays its bots.

    With several server processes (:mod:`.cluster`) one of them *owns* the
    table: its driver plays, and every change is committed there with its
    epoch.  The others *follow* it: they replay its changes on their copy
    for their own clients, and send those clients' requests to the owner.
    A process alone owns all its tables.
    """

    def __init__(
        self,
        row: TableRow,
        store: Store,
        thinkers: Thinkers | None = None,
        public_url: str = "",
        cluster: Cluster | None = None,
    ) -> None:
        self.row = row
        self.store = store
        self.thinkers = thinkers
        self.public_url = public_url
        self.cluster = cluster
        self.epoch: int | None = None  # this process's lease of the table, which its writes name
        self.owner: str | None = None  # the node that drives the table, when this process follows it
        self.resolve: Callable[[], Awaitable[None]] | None = None  # finds the owner (or takes over): the hall's
        self.meta: dict[str, Any] = {}  # a follower's: what the owner last told of seats, watchers and clock
        self.meta_at = 0.0
        self.outbox: list[dict[str, Any]] = []  # the owner's changes since it last told them
        self.told = 0  # the version the owner last published
        self.info_told: dict[str, Any] | None = None  # the table's info as the clients here were last told it
        self.info_stamp = 0  # and its stamp: a client told that stamp may be told the info is the same
        self.lagging = False  # behind the store at the last beat (a change not heard yet)
        #: A write failed and the store could not be read back: this copy may hold a move the store lacks, so it
        #: is dropped (its clients cut off, to connect again) and the table loaded afresh when the store is back.
        self.dropped = False
        self.on_dropped: Callable[[], Awaitable[None]] | None = None
        #: The driver raised (a fault in the server, not the store): the table is stopped, and says so.
        self.broken = row.status == "broken"
        self.on_broken: Callable[[], None] | None = None
        #: The match just finished here (the hall rates it).
        self.on_over: Callable[[], Awaitable[None]] | None = None
        self.rules = Rules.from_json(row.rules)
        self.settings = Settings.of(row.settings)
        agents: list[Agent | None] = [
            table_bot(s.bot or STAND_IN, f"{row.seed}/bot/{i}") if s.kind == "bot" else None
            for i, s in enumerate(row.seats)
        ]
        self.table = Table(Match(self.rules, self.names(), seed=row.seed), agents)
        self.lock = asyncio.Lock()
        self.audience = Audience()
        self.tasks: set[asyncio.Future[None]] = set()  # messages to the other processes, under way
        self.driver = Driver(self)
        self.played_for: dict[int, str] = {}  # event number: who played a person's turn ("clock", "absent")
        self.handed: set[int] = set(row.settings.get("handed", []))  # seats handed to the stand-in by their person
        self.rematch: str | None = row.settings.get("rematch")

    # ---------------------------------------------------------- queries
    def names(self) -> list[str]:
        return [s.name or (f"{s.bot} bot" if s.kind == "bot" else f"Seat {i}") for i, s in enumerate(self.row.seats)]

    @property
    def version(self) -> int:
        return len(self.table.events)

    @property
    def owned(self) -> bool:
        """Does this process drive the table?"""
        return self.owner is None

    def present(self) -> bool:
        """Is anyone connected to the table, on this process or (for its owner) on another?"""
        return self.audience.present()

    def watching(self) -> int:
        """How many watch the table, on every process (a follower: as its owner last told)."""
        here = len(self.audience.watchers_here())
        return self.audience.watching() if self.owned else max(here, int(self.meta.get("watching", 0)))

    @property
    def seated(self) -> bool:
        """Is every person's seat taken?"""
        return all(s.kind == "bot" or s.token_hash for s in self.row.seats)

    def seat_of(self, token: str | None) -> int | None:
        if token is None:
            return None
        digest = token_hash(token)
        for seat, info in enumerate(self.row.seats):
            if info.token_hash is not None and secrets.compare_digest(info.token_hash, digest):
                return seat
        raise TableError("bad_token", "this token is not a seat's token at this table")

    def status(self) -> str:
        return self._status_with(self.row.seats)

    def info(self, base: str | None = None) -> dict[str, Any]:
        """The table's public info (docs/protocol.md); the invite link on ``base`` (else the public URL, or a path)."""
        match = self.table.match
        data = row_info(self.row, self.status(), match.totals, len(match.deals), base or self.public_url)
        told = self.presence_message()
        people = {entry["seat"]: entry for entry in told["seats"]}
        for entry in data["seats"]:
            entry.update(people.get(entry["seat"], {}))
        data["watchers"], data["watching"] = told["watchers"], told["watching"]
        data["rematch"] = self.rematch
        return data

    def presence(self) -> dict[str, Any]:
        """The owner's word on who is here: the seats connected (on any process), stood in for, and the watchers."""
        now, match = time.monotonic(), self.table.match
        standing = [seat for seat in range(len(self.row.seats)) if self.row.seats[seat].kind == "person"]
        why = {seat: self.driver.standing_in(seat) for seat in standing}
        return {
            "connected": sorted(self.audience.connected_since),
            "stand_in": [seat for seat, s in why.items() if s is not None and now >= s[1] and bool(match.deals)],
            # an absent person's seat: the seconds left before the stand-in plays it
            "stand_in_in": {
                str(seat): round(s[1] - now, 1)
                for seat, s in why.items()
                if s is not None and s[0] == "absent" and now < s[1] and bool(match.deals)
            },
            "watchers": self.audience.watcher_names(),
            "watching": self.audience.watching(),
            "clock": self.clock_left(),
        }

    def presence_message(self) -> dict[str, Any]:
        """Who is at the table, as the protocol's ``presence`` message tells it (and a table's info holds it)."""
        seen = self.presence() if self.owned else self.meta
        age = 0.0 if self.owned else time.monotonic() - self.meta_at  # a follower's word is as old as the owner's
        waiting = seen.get("stand_in_in", {})
        seats = [
            {
                "seat": seat,
                "connected": seat in seen.get("connected", ()),
                "stand_in": seat in seen.get("stand_in", ()),
                "handed": seat in self.handed,
            }
            for seat, info in enumerate(self.row.seats)
            if info.kind == "person"
        ]
        for entry in seats:
            if str(entry["seat"]) in waiting and not entry["connected"]:
                entry["stand_in_in"] = max(0.0, round(waiting[str(entry["seat"])] - age, 1))
        watchers = list(seen.get("watchers", ()))
        return {"type": "presence", "seats": seats, "watchers": watchers, "watching": seen.get("watching", 0)}

    def shared_state(self) -> dict[str, Any]:
        """The parts of a state message that every client gets alike, made once per change."""
        match = self.table.match
        deal = self.table.deal
        sheet = []
        totals = [0] * len(self.rules.teams)
        for number, result in enumerate(match.results(), 1):
            totals = [t + s for t, s in zip(totals, result.team_scores)]
            sheet.append(
                {
                    "deal": number,
                    "scores": list(result.team_scores),
                    "totals": totals,
                    "breakdown": list(result.breakdown),
                }
            )
        legal: list[str] = []
        wild_to: dict[str, str] = {}
        if deal is not None and not deal.is_over:
            actions = list(deal.legal_actions())
            legal = sorted(str(a) for a in actions)
            for action in actions:
                slot = deal.displaced_to(action)
                if slot is not None:
                    wild_to[str(action)] = NAMES[slot]
        info = self.info()
        if info != self.info_told:  # most changes leave the table's info as it was
            self.info_told, self.info_stamp = info, self.info_stamp + 1
        return {
            "version": self.version,
            "info": self.info_stamp,
            "table": info,
            "result": deal.result().to_json() if deal is not None and deal.is_over else None,
            "board": [team.to_json() for team in team_tables(deal)] if deal is not None else None,
            "sheet": sheet,
            "clock": self.clock_left(),
            "winners": list(match.winners) if match.winners is not None else None,
            "legal": legal,
            "wild_to": wild_to,
            "idle_left": deal.idle_turns_left() if deal is not None else None,
        }

    def state_for(self, seat: int | None, since: int, shared: dict[str, Any], same: bool = False) -> dict[str, Any]:
        """The state message for a seat's clients (``None``: a spectator's) told up to event ``since``; ``same``:
        without the table's info, which those clients were told as it stands (the message says so)."""
        deal = self.table.deal
        mover = deal is not None and not deal.is_over and seat is not None and deal.to_move == seat
        events = [
            deal_event_json(event_json(e, seat), self.table)
            if e.kind == EventKind.DEAL
            else event_json(e, seat, self.played_for.get(e.number))
            for e in self.table.events[since:]
        ]
        message = {
            "type": "state",
            "version": shared["version"],
            "seat": seat,
            "table": shared["table"],
            "view": deal.view_for(seat).to_json() if deal is not None else None,
            "legal": shared["legal"] if mover else [],
            "wild_to": shared["wild_to"] if mover else {},
            "idle_left": shared["idle_left"],
            "events": events,
            "result": shared["result"],
            "board": shared["board"],
            "sheet": shared["sheet"],
            "clock": shared["clock"],
            "winners": shared["winners"],
        }
        if same:
            del message["table"]
            message["same"] = ["table"]
        return message

    def clock_left(self) -> float | None:
        if self.owned:
            return self.driver.clock_left()
        told = self.meta.get("clock")  # the owner's clock, as it told it, run on since
        return None if told is None else max(0.0, round(told - (time.monotonic() - self.meta_at), 1))

    # ---------------------------------------------------------- changes
    async def join(self, client: Client) -> None:
        """A client joins: it is told the table as its seat sees it and what was said lately; the others,
        who is here now (a small ``presence`` message, not the state)."""
        async with self.lock:
            self.audience.add(client)
            self._refresh_presence()
            shared = self.shared_state()
            client.post(encode(self.state_for(client.seat, client.sent, shared)))
            client.sent, client.info_told = self.version, shared["info"]
            for line in self.audience.said(client):
                client.post(encode(line))
            if self.broken:
                client.post(encode(BROKEN.message()))
        self.presence_changed()
        await self.tell_presence()
        self.driver.wake()

    async def leave(self, client: Client) -> None:
        self.audience.discard(client)
        self._refresh_presence()
        self.presence_changed()
        await self.tell_presence()
        self.driver.wake()

    def _refresh_presence(self) -> None:
        """Who is connected, from this process's clients and (for the owner) the others': away since when."""
        if self.owned:
            self.audience.reckon(self.row.seats)

    def presence_changed(self) -> None:
        """Tell every client here who is at the table now (at most once a second); the owner tells the followers."""
        self.audience.presence_changed(self.presence_message, self._tell_followers)

    def _tell_followers(self) -> None:
        if self.owned and self.cluster is not None:
            task = asyncio.ensure_future(self.cluster.publish(self.row.id, {"t": "meta", "meta": self.presence()}))
            self.tasks.add(task)  # kept until sent
            task.add_done_callback(self.tasks.discard)

    async def tell_presence(self) -> None:
        """Tell the other processes which seats and watchers this one has at the table (each beat, and on change)."""
        if self.cluster is not None:
            await self.cluster.publish(self.row.id, {"t": "presence", **self.audience.here()})

    # --------------------------------------------------- owner or follower
    async def _run(self, op: str, args: dict[str, Any]) -> Any:
        """Do ``op`` here if this process drives the table, else at the process that does (once committed there)."""
        for _ in range(3):
            if self.owned:
                try:
                    return await self.do(op, args)
                except Moved:
                    continue  # taken over meanwhile: the new owner does it
            if self.owner != UNKNOWN and self.cluster is not None:
                try:
                    reply = await self.cluster.request(str(self.owner), self.row.id, op, args)
                except Unreachable:
                    reply = {"error": {"code": "moved"}}
                error = reply.get("error")
                if error is None:
                    return reply.get("result")
                if error.get("code") not in ("moved", "moving"):  # else: not the owner (any more); look again
                    raise TableError(
                        error["code"],
                        error.get("message", ""),
                        error.get("rule"),
                        error.get("retry_after"),
                        error.get("reason"),
                    )
            if self.resolve is not None:
                await self.resolve()  # who drives it now (this process, if nobody does)
        if self.cluster is not None and self.cluster.bus is not None and not self.cluster.bus.connected:
            why = "the servers cannot reach each other just now (their message bus is away): try again in a moment"
        else:
            why = "the server that drives this table does not answer; another takes it over within seconds: try again"
        raise TableError("moving", why, retry_after=2)

    async def do(self, op: str, args: dict[str, Any]) -> Any:
        """A change this process makes as the table's owner (:class:`Moved` if it is not, or stops being)."""
        changes: dict[str, Callable[..., Awaitable[Any]]] = {
            "act": self._act,
            "next": self._next_deal,
            "sit": self._sit,
            "bind": self._bind,
            "take_back": self._take_back,
            "forget": self._forget,
            "hand_over": self._hand_over,
            "give_up": self._give_up,
        }
        if op not in changes:
            raise TableError("bad_request", f"no such change: {op}")
        result = await changes[op](**args)
        self.driver.wake()
        return result

    def _own(self) -> None:
        """A change is made by the table's owner only, and never at a table stopped by a fault."""
        if self.broken:
            raise BROKEN
        if not self.owned:
            raise Moved

    async def act(self, seat: int | None, text: str, version: int) -> None:
        """A person's action: checked, played, committed, then told (or a :class:`TableError`)."""
        await self._run("act", {"seat": seat, "text": text, "version": version})

    async def _act(self, seat: int | None, text: str, version: int) -> None:
        async with self.lock:
            self._own()
            deal = self._mover(seat)
            if version != self.version:
                raise TableError("stale", f"the table has moved on (version {self.version}, yours {version})")
            try:
                event = self.table.play(deal.to_move, text)
            except (IllegalActionError, NotationError) as exc:
                raise TableError.illegal(exc) from None
            await self.committed(event)

    async def next_deal(self, seat: int | None) -> None:
        await self._run("next", {"seat": seat})

    async def _next_deal(self, seat: int | None) -> None:
        async with self.lock:
            self._own()
            if seat is None:
                raise TableError("spectator", "a spectator watches; sit down to play")
            if not self.table.needs_deal or not self.table.match.deals:
                raise TableError(
                    "no_deal", "a deal is in progress" if not self.table.match.is_over else "the match is over"
                )
            await self.start_deal()

    def _mover(self, seat: int | None) -> Deal:
        """The deal in progress, if ``seat`` is to move in it (else the protocol's refusal)."""
        if seat is None:
            raise TableError("spectator", "a spectator watches; sit down to play")
        deal = self.table.match.current
        if deal is None:
            raise TableError("no_deal", "no deal is in progress")
        if deal.to_move != seat:
            raise TableError("not_your_turn", f"it is {self.names()[deal.to_move]}'s turn")
        return deal

    async def explain(self, seat: int | None, text: str) -> dict[str, Any]:
        """Would ``text`` be legal for ``seat`` now, and if not, why: the refusal :meth:`act` would give, unplayed."""
        async with self.lock:
            deal = self._mover(seat)
            answer: dict[str, Any] = {"type": "explained", "action": text, "version": self.version}
            try:
                deal.check(deal.parse_action(text))
            except (IllegalActionError, NotationError) as exc:
                refusal = TableError.illegal(exc).message()
                del refusal["type"], refusal["code"]
                return {**answer, "legal": False, **refusal}
            return {**answer, "legal": True}

    async def hint(self, seat: int | None) -> dict[str, Any]:
        """The hard bot's choice for ``seat``, from what the seat sees, thought out in the bot pool."""
        async with self.lock:
            deal = self._mover(seat)
            assert seat is not None
            version, view, legal = self.version, deal.view_for(seat), list(deal.legal_actions())
        seed = f"{self.row.seed}/hint/{seat}/{version}"
        if self.thinkers is not None:
            action = await self.thinkers.choose("hard", seed, HINT_MS, view, legal)
        else:
            action = await asyncio.to_thread(table_bot("hard", seed, HINT_MS).choose, view, legal)
        return {"type": "hint", "action": str(action), "version": version}

    async def hand_over(self, seat: int | None, bot: bool) -> None:
        """Hand the seat to the stand-in bot, which plays its turns at the bots' pace, or take it back."""
        await self._run("hand_over", {"seat": seat, "bot": bot})

    async def _hand_over(self, seat: int | None, bot: bool) -> None:
        async with self.lock:
            self._own()
            if seat is None:
                raise TableError("spectator", "a spectator has no seat to hand over")
            handed = self.handed | {seat} if bot else self.handed - {seat}
            await self._save_settings({**self.row.settings, "handed": sorted(handed)})
            await self.tell_all()

    async def _save_settings(self, settings: dict[str, Any]) -> None:
        """The settings changed (a seat handed to the stand-in, the rematch made): stored, then told."""
        await self._fenced(self.store.save_settings(self.row.id, settings, self.epoch))
        self._set_settings(settings)
        self.outbox.append({"op": "settings", "settings": settings})

    def _set_settings(self, settings: dict[str, Any]) -> None:
        self.row.settings = settings
        self.handed = set(settings.get("handed", []))
        self.rematch = settings.get("rematch")

    async def save_rematch(self, table_id: str) -> None:
        """The owner notes the rematch's id (under the table's lock)."""
        self._own()
        self.rematch = table_id
        await self._save_settings({**self.row.settings, "rematch": table_id})
        await self.tell_all()

    async def _fenced(self, write: Awaitable[None]) -> None:
        """A write of this owner's; if another process took the table over meanwhile, this one follows it now."""
        try:
            await write
        except Fenced:
            await self.lost()
            raise Moved from None

    async def give_up(self, client: Client) -> None:
        """The person leaves the seat for good: it is free for another, and the stand-in's until one sits."""
        await self._run("give_up", {"seat": client.seat})

    async def _give_up(self, seat: int | None) -> None:
        async with self.lock:
            self._own()
            if seat is None:
                raise TableError("spectator", "a spectator has no seat to leave")
            if self.table.match.is_over:
                raise TableError("over", "the match is over: the seat is yours in its record")
            if self.row.seats[seat].token_hash is None:
                raise TableError("spectator", "that seat is free already")  # a second leave, come the long way
            seats = self._seats_copy()
            name, account = seats[seat].name, seats[seat].account
            seats[seat].name, seats[seat].token_hash, seats[seat].account = None, None, None
            await self._save_seats(seats)
            settings = {**self.row.settings, "handed": sorted(self.handed - {seat})}
            settings["left"] = {**settings.get("left", {}), str(seat): name}  # the seat's info says who left it
            if account is not None:  # kept from the clients (Settings.of), for the account's deletion (_forget)
                settings["left_accounts"] = {**settings.get("left_accounts", {}), str(seat): account}
            await self._save_settings(settings)
            self.audience.seat_gone(seat)
            await self.tell_all()

    async def _save_seats(self, seats: list[SeatInfo]) -> None:
        """The seats changed (a person sat down, or left for good): stored, then told."""
        await self._fenced(self.store.save_seats(self.row.id, seats, self._status_with(seats), self.epoch))
        self._set_seats(seats)
        self.outbox.append({"op": "seats", "seats": [s.to_data() for s in seats]})

    def _status_with(self, seats: list[SeatInfo]) -> str:
        if self.broken:
            return "broken"
        if self.table.match.is_over:
            return "over"
        return "playing" if all(s.kind == "bot" or s.token_hash for s in seats) else "open"

    def _set_seats(self, seats: list[SeatInfo]) -> None:
        """New seats; the connections of a seat whose person left (or was replaced) watch from now on."""
        for seat, (old, new) in enumerate(zip(self.row.seats, seats)):
            if old.token_hash is not None and old.token_hash != new.token_hash:
                for client in self.audience.clients:
                    if client.seat == seat:
                        client.seat = None
                        client.name = client.name or old.name  # who left watches under their own name
        self.row.seats = seats
        self.table.match.players[:] = self.names()

    async def say(self, seat: int | None, phrase: str | None, text: str | None) -> None:
        """A chat line from a seated person to everyone at the table (phrases by id; free text where allowed)."""
        if seat is None:
            raise TableError("spectator", "watchers read the table's chat; sit down to speak")
        chat = self.settings.chat
        if chat == "off" or (text is not None and chat != "text"):
            allowed = "no chat" if chat == "off" else "quick phrases only"
            raise TableError("chat", f"this table has {allowed}")
        if (phrase is None) == (text is None):
            raise TableError("bad_message", 'say one thing: a "phrase" or a "text"')
        line: dict[str, Any] = {"type": "said", "seat": seat, "name": self.names()[seat], "at": time.time()}
        line.update({"phrase": phrase} if phrase is not None else {"text": text})
        await self.hear(line)
        if self.cluster is not None:
            await self.cluster.publish(self.row.id, {"t": "said", "line": line})

    async def hear(self, line: dict[str, Any]) -> None:
        """A chat line said here or on another process: kept for who joins, and sent to this process's clients
        (not to those who block the speaker's account)."""
        seats = self.row.seats
        speaker = seats[line["seat"]].account if 0 <= line["seat"] < len(seats) else None
        self.audience.say(line, speaker)

    async def sit(self, seat: int, name: str, account: str | None = None) -> str:
        """Take a person's free seat under ``name`` (bound to ``account`` if one is signed in); returns the seat's
        token, made here: the owner is sent its hash only, so that no token ever crosses the bus between the
        processes."""
        token = secrets.token_urlsafe(24)
        await self._run("sit", {"seat": seat, "name": name, "digest": token_hash(token), "account": account})
        return token

    async def bind(self, seat: int, token: str, account: str) -> None:
        """Bind the seat that ``token`` holds to ``account``: a guest who signs up keeps their seat."""
        await self._run("bind", {"seat": seat, "digest": token_hash(token), "account": account})

    async def take_back(self, seat: int, account: str) -> str:
        """A new token for a seat bound to ``account``, for the device its person is on now: the old one is void,
        and a connection made with it watches from then on."""
        token = secrets.token_urlsafe(24)
        await self._run("take_back", {"seat": seat, "digest": token_hash(token), "account": account})
        return token

    def _person_seat(self, seat: int) -> SeatInfo:
        if not 0 <= seat < len(self.row.seats):
            raise TableError("bad_request", f"a seat is 0..{len(self.row.seats) - 1}")
        info = self.row.seats[seat]
        if info.kind != "person":
            raise TableError("bad_request", "that seat is a bot's")
        return info

    def _seats_copy(self) -> list[SeatInfo]:
        """The seats, to change and save (:meth:`_save_seats`) without touching the ones in use meanwhile."""
        return [SeatInfo.from_data(s.to_data()) for s in self.row.seats]

    def _held_by(self, account: str) -> int | None:
        return next((n for n, s in enumerate(self.row.seats) if s.account == account), None)

    async def _sit(self, seat: int, name: str, digest: str, account: str | None = None) -> None:
        async with self.lock:
            self._own()
            if self._person_seat(seat).token_hash is not None:
                raise TableError("taken", "that seat is taken")
            if account is not None and (held := self._held_by(account)) is not None:
                raise TableError("taken", f"your account holds seat {held} at this table already: one seat each")
            if any(s.kind == "person" and s.name and looks_alike(s.name, name) for s in self.row.seats):
                raise TableError("name_taken", f"{name!r} looks like a name already at this table: choose another")
            seats = self._seats_copy()
            seats[seat].name, seats[seat].token_hash, seats[seat].account = name, digest, account
            await self._save_seats(seats)
            if str(seat) in self.row.settings.get("left", {}):
                settings = dict(self.row.settings)
                for key in ("left", "left_accounts"):
                    settings[key] = {k: v for k, v in settings.get(key, {}).items() if k != str(seat)}
                await self._save_settings(settings)
            self.audience.absent_since.setdefault(seat, time.monotonic())  # until they connect: away, as one who left
            await self.tell_all()

    async def _bind(self, seat: int, digest: str, account: str) -> None:
        async with self.lock:
            self._own()
            info = self._person_seat(seat)
            if info.token_hash is None or not secrets.compare_digest(info.token_hash, digest):
                raise TableError("bad_token", "this token is not a seat's token at this table")
            if info.account == account:
                return
            if info.account is not None or self._held_by(account) is not None:
                raise TableError("taken", "that seat, or another at this table, is bound to an account already")
            seats = self._seats_copy()
            seats[seat].account = account
            await self._save_seats(seats)

    async def _take_back(self, seat: int, digest: str, account: str) -> None:
        async with self.lock:
            self._own()
            if self._person_seat(seat).account != account:
                raise TableError("not_yours", "that seat is not bound to your account")
            seats = self._seats_copy()
            seats[seat].token_hash = digest
            await self._save_seats(seats)
            await self.tell_all()

    async def forget(self, seat: int, account: str) -> None:
        """The seat's account is being deleted: the seat shows :data:`FORMER_PLAYER` from now on, bound to no
        account (whoever holds its token plays on, as a guest)."""
        await self._run("forget", {"seat": seat, "account": account})

    async def _forget(self, seat: int, account: str) -> None:
        async with self.lock:
            self._own()
            if self._person_seat(seat).account == account:
                seats = self._seats_copy()
                seats[seat].name, seats[seat].account = FORMER_PLAYER, None
                await self._save_seats(seats)
            elif self.row.settings.get("left_accounts", {}).get(str(seat)) == account:  # the seat it gave up
                await self._save_settings(forgotten_leaver(self.row.settings, seat))
            else:
                return  # forgotten already
            await self.tell_all()

    # ----------------------------------------------------------- driving
    async def take_over(self, epoch: int) -> None:
        """This process drives the table from now on (its lease, ``epoch``): from where the store stands."""
        async with self.lock:
            await self.reload()
            self.owner, self.epoch, self.told = None, epoch, self.version
            self.lagging = False
            self.driver.new_turn()
            self.audience.connected_since.clear()
            self._refresh_presence()
            await self.tell_all()  # and the followers hear who drives it now
        self.driver.start()
        LOG.info("table %s: taken over (epoch %s)", self.row.id, epoch)

    async def lost(self, passed: bool = False) -> None:
        """Another process took the table over (this one was frozen or cut off), or this one ``passed`` it on:
        follow it, from the store."""
        if self.owned and not passed:
            LOG.warning("table %s: another process drives it now (epoch %s was ours)", self.row.id, self.epoch)
        self.owner, self.epoch = UNKNOWN, None
        self.outbox.clear()
        self.driver.wake()  # the driver sees it and stops
        await self.roll_back()
        if not self.dropped:
            await self.tell_all()

    async def pass_on(self) -> None:
        """An owner with no client here, whose clients are all on one other process, lets the table go to it.

        That process takes it over at its next beat: a table is then kept by
        one process instead of two (a proxy that sends a table's clients to
        one process, docs/deploy.md, makes that the rule).
        """
        async with self.lock:
            if not self.owned or self.audience.clients or len(self.audience.remote) != 1 or self.cluster is None:
                return
            await self.store.release(self.cluster.node, [self.row.id])
            await self.lost(passed=True)

    async def roll_back(self) -> None:
        """After a write that failed: the table as the store has it; if the store cannot say, this copy breaks."""
        try:
            await self.reload()
        except Exception:
            LOG.warning("table %s: the store cannot be read back; the table is dropped until it can", self.row.id)
            self.dropped = True
            self.driver.wake()
            self.audience.cut_all(SERVICE_RESTART, "the table is reloading; connect again")
            if self.on_dropped is not None:
                await self.on_dropped()

    async def fault(self) -> None:
        """The driver raised: a fault of the server, which playing on would only repeat.  The table stops, its
        status ``broken`` in the store and for everyone at it (the moves so far are kept)."""
        self.broken = True
        self.row.status = "broken"
        if self.on_broken is not None:
            self.on_broken()
        async with self.lock:
            with contextlib.suppress(Exception):  # the store away: the table stays stopped on this process anyway
                await self.store.save_status(self.row.id, "broken", self.epoch)
            self.outbox.append({"op": "broken"})
            self.audience.post(BROKEN.message())
            with contextlib.suppress(Exception):  # a table left half-changed by the fault may not even say itself
                await self.tell_all()

    # ---------------------------------------------------------- following
    async def heard(self, message: dict[str, Any]) -> None:
        """A message of another process about this table: a change, its clients here, or a chat line."""
        kind = message.get("t")
        if kind == "presence":
            self.audience.heard(message["node"], message)
            if self.owned:
                self._refresh_presence()
                self.presence_changed()
                self.driver.wake()
        elif kind == "meta" and not self.owned:
            self.meta, self.meta_at = message["meta"], time.monotonic()
            self.presence_changed()
        elif kind == "said":
            await self.hear(message["line"])
        elif kind == "change" and not self.owned:
            async with self.lock:
                await self._follow(message)

    async def _follow(self, change: dict[str, Any]) -> None:
        """The owner's change, replayed here in order of version; a gap is filled from the store."""
        if self.owned:
            return
        self.owner = change["node"]
        if change["v0"] == self.version:
            for op in change["ops"]:
                if op["op"] == "deal":
                    op["deck"] = await self.store.deck(self.row.id, op["deal"])
                    if op["deck"] is None:  # the store cannot say (yet): the whole table from it, in order
                        await self.reload()
                        break
                self._replay(op)
        elif change["v"] > self.version:
            await self.reload()  # missed something: the store has every committed change
        else:  # an old version's message: only what does not count versions (seats, settings) is still news
            for op in change["ops"]:
                if op["op"] in ("seats", "settings"):
                    self._replay(op)
        self.meta, self.meta_at = change["meta"], time.monotonic()
        self.lagging = False
        await self.tell_all()

    def _replay(self, op: dict[str, Any]) -> None:
        kind = op["op"]
        if kind == "deal":
            self.table.start_deal([parse_card(c) for c in op["deck"]], op["dealer"])
        elif kind == "action":
            event = self.table.play(op["seat"], op["action"])
            if op.get("by") is not None:
                self.played_for[event.number] = op["by"]
        elif kind == "seats":
            self._set_seats([SeatInfo.from_data(s) for s in op["seats"]])
        elif kind == "settings":
            self._set_settings(op["settings"])
        elif kind == "broken":
            self.broken = True
            self.row.status = "broken"
            self.audience.post(BROKEN.message())

    async def catch_up(self) -> None:
        """A follower behind the store (a change it did not hear, Redis away): from the store."""
        async with self.lock:
            if not self.owned:
                await self.reload()
                await self.tell_all()

    def beat(self, every: float) -> None:
        """Forget the nodes that have told nothing of their clients for a few beats (gone, or cut off)."""
        self.audience.forget_silent(every)
        if self.owned:
            self._refresh_presence()
            self.presence_changed()
            self.driver.wake()

    async def start_deal(self) -> None:
        event = self.table.start_deal()
        deal = self.table.match.deals[-1]
        assert deal.deck is not None
        totals = self.table.match.totals
        deck = [NAMES[c] for c in deal.deck]
        try:
            await self.store.record_deal(self.row.id, event.deal, deal.dealer, deck, self.version, totals, self.epoch)
        except Fenced:
            await self.lost()
            raise Moved from None
        except Exception:
            await self.roll_back()
            raise TableError("store", "the deal could not be saved; the table is as it was") from None
        self.outbox.append({"op": "deal", "deal": event.deal, "dealer": deal.dealer})
        self.driver.new_turn()
        await self.tell_all()

    async def committed(self, event: Event, by: str | None = None) -> None:
        """Commit the action just played, then tell everyone; a store failure takes the table back to the store.

        ``by`` says who played a person's turn for them (the clock, or the stand-in of an absence).
        """
        outcome = event.outcome
        assert outcome is not None
        mover_before = outcome.seat
        match = self.table.match
        deal = match.deals[-1]
        seq = sum(len(d.history) for d in match.deals)
        status = self.status()
        if by is not None:
            self.played_for[event.number] = by
        try:
            await self.store.record_action(
                self.row.id,
                seq,
                event.deal,
                outcome.seat,
                str(outcome.action),
                self.version,
                status,
                by=by,
                match=(len(match.deals), match.totals) if deal.is_over else None,
                epoch=self.epoch,
            )
        except Fenced:
            await self.lost()
            raise Moved from None
        except Exception:
            await self.roll_back()
            raise TableError("store", "the move could not be saved; the table is as it was") from None
        self.outbox.append({"op": "action", "seat": outcome.seat, "action": str(outcome.action), "by": by})
        self.driver.moved(deal.to_move != mover_before, deal.is_over)
        await self.tell_all()
        if match.is_over and self.on_over is not None:
            await self.on_over()

    async def reload(self) -> None:
        """Rebuild the match from the store (after a failed write, a takeover, or a change not heard)."""
        stored = await self.store.load(self.row.id)
        assert stored is not None
        fresh = rebuild(stored, self.store, self.thinkers, self.public_url)
        self._set_seats(fresh.row.seats)
        self._set_settings(fresh.row.settings)
        self.table = fresh.table
        self.row = fresh.row
        self.played_for = fresh.played_for
        for client in self.audience.clients:
            client.sent = min(client.sent, self.version)

    async def tell_all(self) -> None:
        """Tell every client here what its seat may see; the owner tells the other processes the changes first."""
        if self.owned and self.cluster is not None:
            change = {"t": "change", "v0": self.told, "v": self.version, "ops": self.outbox, "meta": self.presence()}
            self.outbox, self.told = [], self.version
            await self.cluster.publish(self.row.id, change)
        if self.audience.clients:
            shared = self.shared_state()
            self.audience.tell(
                lambda seat, since, same: self.state_for(seat, since, shared, same), self.version, shared["info"]
            )


def rebuild(
    stored: StoredTable,
    store: Store,
    thinkers: Thinkers | None = None,
    public_url: str = "",
    cluster: Cluster | None = None,
) -> LiveTable:
    """A live table from its stored deals and actions, replayed at the table (the same events, in order)."""
    live = LiveTable(stored.row, store, thinkers, public_url, cluster)
    table = live.table
    by_deal: dict[int, list[tuple[int, str, str | None]]] = {}
    for _seq, deal, seat, action, by in stored.actions:
        by_deal.setdefault(deal, []).append((seat, action, by))
    for number, dealer, deck in stored.deals:
        table.start_deal([parse_card(c) for c in deck], dealer)
        for seat, action, by in by_deal.get(number, []):
            event = table.play(seat, action)
            if by is not None:
                live.played_for[event.number] = by
    live.told = live.version
    return live
