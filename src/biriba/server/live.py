"""The tables in play on the server: a :class:`~biriba.table.Table` each, its seats, clients and store.

One :class:`LiveTable` per table holds the match at a table-loop
:class:`~biriba.table.Table`, the people and bots in its seats, and the
clients watching it.  Every change goes the same way, under the table's
lock: play it at the table, commit it to the store, then tell every client
what its seat may see.  One driver coroutine per table plays the bots (at
the table's pace), stands in for an absent person or an expired turn clock,
and deals the next hand: no thread per table.  :class:`Hall` is the set of
live tables, loaded from the store on demand, so a restarted server finds
every table as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..bots import BOT_KINDS, GreedyBot, SearchBot, table_bot
from ..cards import NAMES, parse_card
from ..errors import BiribaError, IllegalActionError, NotationError
from ..match import Match
from ..rules import OPTION_HELP, PRESET_HELP, PRESETS, Rules, format_option
from ..table import Agent, Event, EventKind, Table
from .store import SeatInfo, Store, StoredTable, TableRow, token_hash

#: How long after a deal ends the next one starts by itself (a seated person may start it sooner).
DEAL_PAUSE = 15.0
#: The bot that plays for an absent person, or when a turn clock runs out.
STAND_IN = "greedy"

Send = Callable[[dict[str, Any]], Awaitable[None]]


class TableError(BiribaError):
    """A request the table refuses; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule


@dataclass(eq=False)
class Client:
    """One connection: its seat (``None`` for a spectator), what it has been sent, how to send."""

    seat: int | None
    send: Send
    sent: int = 0  # the events it has been told, by number


@dataclass
class Settings:
    bot_delay: float = 1.0
    absent_after: float = 60.0
    turn_clock: float | None = None
    deal_pause: float = DEAL_PAUSE

    @classmethod
    def of(cls, data: dict[str, Any]) -> Settings:
        settings = cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
        if not 0 <= settings.bot_delay <= 10:
            raise TableError("bad_request", "bot_delay is 0 to 10 seconds")
        if not 1 <= settings.absent_after <= 3600:
            raise TableError("bad_request", "absent_after is 1 to 3600 seconds")
        if settings.turn_clock is not None and not 1 <= settings.turn_clock <= 3600:
            raise TableError("bad_request", "turn_clock is 1 to 3600 seconds, or null")
        if not 0 <= settings.deal_pause <= 600:
            raise TableError("bad_request", "deal_pause is 0 to 600 seconds")
        return settings

    def to_data(self) -> dict[str, Any]:
        return {
            "bot_delay": self.bot_delay,
            "absent_after": self.absent_after,
            "turn_clock": self.turn_clock,
            "deal_pause": self.deal_pause,
        }


class LiveTable:
    """A table in play: the match, the seats, the clients, and the one driver that plays its bots."""

    def __init__(self, row: TableRow, store: Store, base_url: str = "") -> None:
        self.row = row
        self.store = store
        self.base_url = base_url
        self.rules = Rules.from_json(row.rules)
        self.settings = Settings.of(row.settings)
        agents: list[Agent | None] = [
            table_bot(s.bot or STAND_IN, f"{row.seed}/bot/{i}") if s.kind == "bot" else None
            for i, s in enumerate(row.seats)
        ]
        self.table = Table(Match(self.rules, self.names(), seed=row.seed), agents)
        self.stand_in = GreedyBot(f"{row.seed}/stand-in")
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.connected_since: dict[int, float] = {}
        self.absent_since: dict[int, float] = {}
        self.last_event = time.monotonic()
        self.turn_started = time.monotonic()
        self.deal_ended = time.monotonic()
        self.kick = asyncio.Event()
        self.driver: asyncio.Task[None] | None = None

    # ---------------------------------------------------------- queries
    def names(self) -> list[str]:
        return [s.name or (f"{s.bot} bot" if s.kind == "bot" else f"Seat {i}") for i, s in enumerate(self.row.seats)]

    @property
    def version(self) -> int:
        return len(self.table.events)

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
        if self.table.match.is_over:
            return "over"
        return "playing" if self.seated else "open"

    def info(self) -> dict[str, Any]:
        """The table's public info (docs/protocol.md)."""
        rules = self.rules
        base = PRESETS.get(rules.name.rstrip("*"), PRESETS["classic"])
        words = [f"{base.name}: {PRESET_HELP.get(base.name, '')}"]
        for name in OPTION_HELP:
            value = getattr(rules, name)
            if value != getattr(base, name):
                words.append(f"{name}: {format_option(value)} ({OPTION_HELP[name]})")
        seats = []
        for seat, info in enumerate(self.row.seats):
            entry: dict[str, Any] = {"seat": seat, "kind": info.kind, "name": info.name, "team": rules.team_of[seat]}
            if info.kind == "bot":
                entry["bot"] = info.bot
            else:
                entry["connected"] = seat in self.connected_since
                entry["stand_in"] = seat in self.absent_since and self._absent_long(seat)
            seats.append(entry)
        match = self.table.match
        return {
            "id": self.row.id,
            "invite": f"{self.base_url}/t/{self.row.id}",
            "rules": {"name": rules.name, "data": rules.to_json(), "words": words},
            "seats": seats,
            "status": self.status(),
            "totals": match.totals,
            "deals": len(match.deals),
            "settings": self.settings.to_data(),
        }

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
        legal = []
        if deal is not None and not deal.is_over:
            legal = sorted(str(a) for a in deal.legal_actions())
        return {
            "version": self.version,
            "table": self.info(),
            "result": deal.result().to_json() if deal is not None and deal.is_over else None,
            "sheet": sheet,
            "clock": self.clock_left(),
            "winners": list(match.winners) if match.winners is not None else None,
            "legal": legal,
        }

    def state_for(self, client: Client, shared: dict[str, Any] | None = None) -> dict[str, Any]:
        """The state message for one client: only what its seat may see."""
        shared = shared or self.shared_state()
        seat = client.seat
        deal = self.table.deal
        mover = deal is not None and not deal.is_over and seat is not None and deal.to_move == seat
        events = [
            deal_event_json(event_json(e, seat), self.table) if e.kind == EventKind.DEAL else event_json(e, seat)
            for e in self.table.events[client.sent :]
        ]
        client.sent = self.version
        return {
            "type": "state",
            "version": shared["version"],
            "seat": seat,
            "table": shared["table"],
            "view": deal.view_for(seat).to_json() if deal is not None else None,
            "legal": shared["legal"] if mover else [],
            "events": events,
            "result": shared["result"],
            "sheet": shared["sheet"],
            "clock": shared["clock"],
            "winners": shared["winners"],
        }

    def clock_left(self) -> float | None:
        deal = self.table.match.current
        clock = self.settings.turn_clock
        if clock is None or deal is None or self.row.seats[deal.to_move].kind == "bot":
            return None
        return max(0.0, round(self.turn_started + clock - time.monotonic(), 1))

    # ---------------------------------------------------------- changes
    async def join(self, client: Client) -> None:
        async with self.lock:
            self.clients.add(client)
            if client.seat is not None:
                self.connected_since.setdefault(client.seat, time.monotonic())
                self.absent_since.pop(client.seat, None)
            await self._tell_all()
        self.kick.set()

    async def leave(self, client: Client) -> None:
        async with self.lock:
            self.clients.discard(client)
            seat = client.seat
            if seat is not None and not any(c.seat == seat for c in self.clients):
                self.connected_since.pop(seat, None)
                self.absent_since[seat] = time.monotonic()
                await self._tell_all()
        self.kick.set()

    async def act(self, seat: int | None, text: str, version: int) -> None:
        """A person's action: checked, played, committed, then told (or a :class:`TableError`)."""
        async with self.lock:
            if seat is None:
                raise TableError("spectator", "a spectator watches; sit down to play")
            deal = self.table.match.current
            if deal is None:
                raise TableError("no_deal", "no deal is in progress")
            if version != self.version:
                raise TableError("stale", f"the table has moved on (version {self.version}, yours {version})")
            if deal.to_move != seat:
                raise TableError("not_your_turn", f"it is {self.names()[deal.to_move]}'s turn")
            try:
                event = self.table.play(seat, text)
            except IllegalActionError as exc:
                raise TableError("illegal", str(exc), exc.rule) from None
            except NotationError as exc:
                raise TableError("illegal", str(exc), "notation") from None
            await self._committed(event)
        self.kick.set()

    async def next_deal(self, seat: int | None) -> None:
        async with self.lock:
            if seat is None:
                raise TableError("spectator", "a spectator watches; sit down to play")
            if not self.table.needs_deal or not self.table.match.deals:
                raise TableError(
                    "no_deal", "a deal is in progress" if not self.table.match.is_over else "the match is over"
                )
            await self._start_deal()
        self.kick.set()

    async def sit(self, seat: int, name: str) -> str:
        """Take a person's free seat under ``name``; returns the seat's token."""
        async with self.lock:
            if not 0 <= seat < len(self.row.seats):
                raise TableError("bad_request", f"a seat is 0..{len(self.row.seats) - 1}")
            info = self.row.seats[seat]
            if info.kind != "person":
                raise TableError("bad_request", "that seat is a bot's")
            if info.token_hash is not None:
                raise TableError("taken", "that seat is taken")
            token = secrets.token_urlsafe(24)
            info.name, info.token_hash = name, token_hash(token)
            self.table.match.players[seat] = name
            await self.store.save_seats(self.row.id, self.row.seats, self.status())
            await self._tell_all()
        self.kick.set()
        return token

    # ----------------------------------------------------------- driving
    def start(self) -> None:
        if self.driver is None:
            self.driver = asyncio.create_task(self._drive(), name=f"table {self.row.id}")

    async def stop(self) -> None:
        if self.driver is not None:
            self.driver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.driver

    async def _drive(self) -> None:
        """Play what is due (a bot's move, a stand-in's, the next deal), then wait until something is."""
        while True:
            self.kick.clear()  # a kick during the look below wakes the wait at once
            async with self.lock:
                wait = await self._due()
            if wait == 0:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.kick.wait(), timeout=wait)

    async def _due(self) -> float | None:
        """Do one thing if one is due; return 0 to look again at once, the seconds until one may be, or None."""
        match = self.table.match
        now = time.monotonic()
        if match.is_over or not self.seated:
            return None
        deal = match.current
        if deal is None:
            persons_here = any(s.kind == "person" for s in self.row.seats)
            pause = self.settings.deal_pause if match.deals and persons_here else 0.0
            if now >= self.deal_ended + pause:
                await self._start_deal()
                return 0
            return self.deal_ended + pause - now
        seat = deal.to_move
        if self.row.seats[seat].kind == "bot":
            due = self.last_event + self.settings.bot_delay
            if now >= due:
                await self._step(None)
                return 0
            return due - now
        waits = []
        if seat in self.absent_since:
            due = max(self.absent_since[seat], self.turn_started) + self.settings.absent_after
            if now >= due:
                await self._step(self.stand_in, pace=True)
                return 0
            waits.append(due - now)
        if self.settings.turn_clock is not None:
            due = self.turn_started + self.settings.turn_clock
            if now >= due:
                await self._step(self.stand_in, pace=True)
                return 0
            waits.append(due - now)
        return min(waits) if waits else None

    def _absent_long(self, seat: int) -> bool:
        return time.monotonic() >= self.absent_since.get(seat, float("inf")) + self.settings.absent_after

    async def _step(self, agent: Agent | None, pace: bool = False) -> None:
        if pace and time.monotonic() < self.last_event + self.settings.bot_delay:
            return
        deal = self.table.match.current
        event: Event | None
        if deal is not None and isinstance(agent or self.table.agents[deal.to_move], SearchBot):
            # A search takes a tenth of a second or more: it runs in a thread on the seat's view, so the
            # event loop serves every other table meanwhile (this one waits: its lock is held).
            choice = await asyncio.to_thread(self.table.choice, agent)
            event = self.table.play(*choice) if choice is not None else None
        else:
            event = self.table.step(agent)
        if event is not None:
            await self._committed(event)

    async def _start_deal(self) -> None:
        event = self.table.start_deal()
        deal = self.table.match.deals[-1]
        assert deal.deck is not None
        await self.store.record_deal(self.row.id, event.deal, deal.dealer, [NAMES[c] for c in deal.deck], self.version)
        self._turn_changed()
        await self._tell_all()

    async def _committed(self, event: Event) -> None:
        """Commit the action just played, then tell everyone; a store failure takes the table back to the store."""
        outcome = event.outcome
        assert outcome is not None
        mover_before = outcome.seat
        deal = self.table.match.deals[-1]
        seq = sum(len(d.history) for d in self.table.match.deals)
        status = self.status()
        try:
            await self.store.record_action(
                self.row.id, seq, event.deal, outcome.seat, str(outcome.action), self.version, status
            )
        except Exception:
            await self.reload()
            raise TableError("store", "the move could not be saved; the table is as it was") from None
        self.last_event = time.monotonic()
        if deal.is_over:
            self.deal_ended = self.last_event
        if deal.is_over or deal.to_move != mover_before:
            self._turn_changed()
        await self._tell_all()

    def _turn_changed(self) -> None:
        self.turn_started = time.monotonic()

    async def reload(self) -> None:
        """Rebuild the match from the store (after a failed write)."""
        stored = await self.store.load(self.row.id)
        assert stored is not None
        fresh = rebuild(stored, self.store, self.base_url)
        self.table = fresh.table
        self.row = fresh.row

    async def _tell_all(self) -> None:
        clients = list(self.clients)
        if not clients:
            return
        shared = self.shared_state()
        results = await asyncio.gather(*(c.send(self.state_for(c, shared)) for c in clients), return_exceptions=True)
        for client, result in zip(clients, results):
            if isinstance(result, Exception):
                self.clients.discard(client)


def event_json(event: Event, seat: int | None) -> dict[str, Any]:
    """An event as ``seat`` may see it (a spectator: as no seat)."""
    seen = event.seen_by(-1 if seat is None else seat)
    data: dict[str, Any] = {"number": seen.number, "deal": seen.deal, "kind": str(seen.kind)}
    outcome = seen.outcome
    if outcome is not None:
        data.update(
            seat=outcome.seat,
            action=str(outcome.action),
            drawn=NAMES[outcome.drawn] if outcome.drawn >= 0 else None,
            taken=[NAMES[c] for c in outcome.taken],
            reserve=str(outcome.reserve) if outcome.reserve is not None else None,
            packet=[NAMES[c] for c in outcome.packet],
            ended=str(outcome.ended) if outcome.ended is not None else None,
        )
    if seen.kind == EventKind.RESULT and seen.result is not None:
        data["result"] = seen.result.to_json()
    return data


def deal_event_json(data: dict[str, Any], table: Table) -> dict[str, Any]:
    """A deal event names its dealer and first player (public from the start)."""
    deal = table.match.deals[data["deal"] - 1]
    data.update(dealer=deal.dealer, first=(deal.dealer + 1) % deal.rules.seats)
    return data


def rebuild(stored: StoredTable, store: Store, base_url: str) -> LiveTable:
    """A live table from its stored deals and actions, replayed at the table (the same events, in order)."""
    live = LiveTable(stored.row, store, base_url)
    table = live.table
    by_deal: dict[int, list[tuple[int, str]]] = {}
    for _seq, deal, seat, action in stored.actions:
        by_deal.setdefault(deal, []).append((seat, action))
    for number, dealer, deck in stored.deals:
        table.start_deal([parse_card(c) for c in deck], dealer)
        for seat, action in by_deal.get(number, []):
            table.play(seat, action)
    return live


@dataclass
class Hall:
    """Every table the server knows: the live ones in memory, the rest in the store."""

    store: Store
    base_url: str = ""
    live: dict[str, LiveTable] = field(default_factory=dict)
    loading: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def create(self, spec: dict[str, Any]) -> LiveTable:
        rules = table_rules(spec)
        seats = seat_infos(spec.get("seats"), rules)
        settings = Settings.of(
            {k: spec[k] for k in ("bot_delay", "absent_after", "turn_clock", "deal_pause") if k in spec}
        )
        row = TableRow(secrets.token_urlsafe(9), rules.to_json(), settings.to_data(), seats, secrets.token_hex(8))
        row.status = "playing" if all(s.kind == "bot" for s in seats) else "open"
        await self.store.create_table(row)
        live = LiveTable(row, self.store, self.base_url)
        self.live[row.id] = live
        live.start()
        return live

    async def get(self, table_id: str) -> LiveTable | None:
        live = self.live.get(table_id)
        if live is not None:
            return live
        async with self.loading:
            live = self.live.get(table_id)
            if live is None:
                stored = await self.store.load(table_id)
                if stored is None:
                    return None
                live = rebuild(stored, self.store, self.base_url)
                self.live[table_id] = live
                live.start()
            return live

    async def restore(self) -> int:
        """Load every table that is open or in play (at start-up): their bots play on."""
        rows = await self.store.list_tables(("open", "playing"), limit=100_000)
        for row in rows:
            await self.get(row.id)
        return len(rows)

    async def close(self) -> None:
        for live in self.live.values():
            await live.stop()


def table_rules(spec: dict[str, Any]) -> Rules:
    """The rules a create request asks for: a preset and options, checked (errors name the option)."""
    name = spec.get("rules", "classic")
    if not isinstance(name, str) or name not in PRESETS:
        raise TableError("bad_request", f"rules: a preset, one of {', '.join(PRESETS)}")
    options = spec.get("options") or {}
    if not isinstance(options, dict):
        raise TableError("bad_request", "options: an object of option: value")
    try:
        texts = [
            f"{key}={value if not isinstance(value, bool) else str(value).lower()}" for key, value in options.items()
        ]
        return PRESETS[name].with_options(texts)
    except BiribaError as exc:
        raise TableError("bad_request", str(exc)) from None


def seat_infos(data: Any, rules: Rules) -> list[SeatInfo]:
    if data is None:
        data = [{"kind": "person"}] + [{"kind": "bot", "bot": STAND_IN}] * (rules.seats - 1)
    if not isinstance(data, list) or len(data) != rules.seats:
        raise TableError("bad_request", f"seats: {rules.seats} entries under these rules (option seats)")
    seats = []
    for entry in data:
        kind = entry.get("kind") if isinstance(entry, dict) else None
        if kind == "person":
            seats.append(SeatInfo("person"))
        elif kind == "bot":
            bot = entry.get("bot", STAND_IN)
            if bot not in BOT_KINDS:
                raise TableError("bad_request", f"bot: one of {', '.join(BOT_KINDS)}")
            seats.append(SeatInfo("bot", bot=bot, name=f"{bot} bot"))
        else:
            raise TableError("bad_request", 'a seat is {"kind": "person"} or {"kind": "bot", "bot": "greedy"}')
    return seats
