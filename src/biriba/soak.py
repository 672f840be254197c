"""The soak: random and greedy players over random tables, every invariant checked after every action.

A bug that shows once in a hundred thousand deals is a bug some table meets
every day, so ``biriba soak`` (``make soak``) plays deals by the hundred
thousand, over every preset and over option combinations drawn from each
option's declared range, and after every action checks what the engine
promises (docs/reliability.md):

- every card is somewhere exactly once (R23a);
- no seat's view, nor a spectator's, names a card that seat may not see;
- a deal not over has a legal action, and one that is over has none;
- a listed action, drawn at random, applies, unchecked as checked;
- the deal's score equals the sum of its breakdown;

and on every ``sample``-th deal also: cards put together at random make an
action exactly when it is listed, and a refused one changes nothing; the
position's JSON reads back to the same position; the general meld
enumerator lists what the fast one lists; the deal's record replays to the
same end.

Deal ``i`` of seed ``S`` is drawn from ``random.Random(f"{S}/{i}")`` alone:
its table, its players and its deck.  A failure is written as JSON with the
position before the action, the action and the command that plays that
deal again (``biriba soak --seed S --first i --deals 1``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import operator
import os
import random
import signal
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import caches
from .actions import Action
from .bots import make_bot
from .cards import NAMES, counts_of
from .compiled import built
from .deal import Deal
from .errors import BiribaError, IllegalActionError, NotationError
from .melds.classic import classic_adds, classic_melds
from .melds.general import general_adds, general_melds
from .melds.options import hand_wilds
from .melds.types import Meld
from .parallel import run_all
from .records import position_from_json, position_to_json, record_to_json
from .replay import replay_record
from .rules import CHOICES, OPTION_LIMITS, OPTION_NAMES, PRESETS, Bonus, CardValues, Rules
from .scoring import PARTS
from .simulate import DEFAULT_MAX_TURNS
from .state import PublicState

SOAK_FORMAT = "biriba-soak/2"
#: The players a soak deal seats, each seat drawn at random.
PLAYERS = ("random", "greedy")
#: Deals a worker plays before it reports (and the resume file records them).
CHUNK = 50
#: One deal in this many also gets the costly checks (refusals, JSON, enumerators, the record's replay).
SAMPLE = 10
#: A deal that takes longer has hung somewhere: a failure (seed million, deal 36704 ran for an hour).
DEAL_SECONDS = 300.0
#: A deal that raises its worker's peak memory by this much is named in the run's state (``memory_steps``).
STEP_MB = 40.0
_CODES = {name: code for code, name in enumerate(NAMES)}
PUBLIC_FIELDS = tuple(f.name for f in dataclasses.fields(PublicState))
PUBLIC_PART = operator.attrgetter(*PUBLIC_FIELDS)
_TYPES = {f.name: str(f.type) for f in dataclasses.fields(Rules)}


class InvariantBroken(AssertionError):
    """A promise of the engine found broken; the message says which."""


# ---------------------------------------------------------------- tables
def random_option(name: str, rng: random.Random) -> Any:
    """A value of option ``name`` drawn from its declared range (``OPTION_LIMITS``, ``CHOICES``, its type)."""
    kind = _TYPES[name]
    if name in CHOICES:
        return rng.choice(list(CHOICES[name]))
    if kind == "bool":
        return rng.random() < 0.5
    if name == "dealer_step":
        return rng.choice((1, -1))
    if "None" in kind and rng.random() < 0.3:
        return None
    low, high = OPTION_LIMITS[name]

    def number() -> int:
        return rng.randint(low, high)

    if "Bonus" in kind:
        return Bonus(number(), number(), (number(), number()) if rng.random() < 0.3 else None)
    if "CardValues" in kind:
        return CardValues(*(number() for _ in range(5)))
    if name == "opening_minimums":
        edges = sorted(rng.sample(range(low, min(high, 20_000)), 2 * rng.randint(0, 3)))
        return tuple((edges[i], edges[i + 1], rng.randint(0, 200)) for i in range(0, len(edges), 2))
    if name == "cut_bonus":
        return tuple(number() for _ in range(rng.randint(0, 3)))
    return number()


def random_rules(rng: random.Random) -> Rules:
    """A preset, half the time with one to four options drawn at random (combinations the engine refuses redrawn)."""
    base = PRESETS[rng.choice(sorted(PRESETS))]
    if rng.random() < 0.5:
        return base
    while True:
        names = rng.sample(OPTION_NAMES, rng.randint(1, 4))
        with contextlib.suppress(BiribaError):
            return base.replace(**{name: random_option(name, rng) for name in names})


# ---------------------------------------------------------------- checks
def _check(condition: bool, message: str) -> None:
    if not condition:
        raise InvariantBroken(message)


def named_cards(data: Any) -> Counter[int]:
    """Every card named anywhere in JSON data (a slotted wild counts as the wild's card only)."""
    found: list[int] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            code = _CODES.get(item.partition("=")[0])
            if code is not None:
                found.append(code)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(value for key, value in item.items() if key not in ("format", "rules", "phase"))
    return Counter(found)


def check_views(deal: Deal, as_json: bool = True) -> None:
    """Each view shows the public state, its own hand and packet, and counts of the rest; no JSON names more.

    Every seat's view must hold exactly the deal's public fields, its own
    hand, the stock's count and the packets' sizes, and a packet only if it
    is the seat's own (R27).  ``as_json`` also reads the JSON a player is
    sent: the spectator's names no card beyond the table and what all have
    seen, and each seat's adds only its own hand and packet.
    """
    public = PUBLIC_PART(deal)
    packets = [len(p) for p in deal.packets_left]
    for seat in range(deal.rules.seats):
        view = deal.view_for(seat)
        if PUBLIC_PART(view) != public:
            wrong = [name for name in PUBLIC_FIELDS if getattr(view, name) != getattr(deal, name)]
            raise InvariantBroken(f"seat {seat}'s view shows another {', '.join(wrong)}")
        _check(counts_of(view.hand) == deal.hands[seat], f"seat {seat}'s view has another hand")
        _check(not view.packet or not Counter(view.packet) - Counter(view.hand), f"seat {seat}'s view shows a packet")
        _check(view.stock_count == deal.stock_count, f"seat {seat}'s view miscounts the stock")
        _check(list(view.packet_sizes) == packets, f"seat {seat}'s view miscounts the packets")
    if as_json:
        check_views_json(deal)


def check_views_json(deal: Deal) -> None:
    """The JSON of every view: the spectator's names only public cards; a seat's adds its hand and packet."""
    public: Counter[int] = Counter(deal.discard)
    for team in deal.melds:
        for meld in team:
            public.update(meld.cards())
    if deal.took_single >= 0:
        public[deal.took_single] += 1  # everyone saw the one-card pile taken
    public.update(deal.cut_wilds)  # the wilds the dealer found past the cut (D22)
    for known in deal.known:  # what all have seen go into a hand (a taken pile, found wilds)
        for code, count in enumerate(known):
            public[code] += count
    seen = deal.view_for(None).to_json()
    del seen["viewer"]
    leaked = named_cards(seen) - public
    _check(not leaked, f"a spectator's view names {[NAMES[c] for c in leaked]}")
    _check("packet" not in seen, "a spectator's view shows a reserve packet")
    shared = {key: value for key, value in seen.items() if key != "hands"}
    for seat in range(deal.rules.seats):
        own = Counter(deal.hand(seat))
        data = deal.view_for(seat).to_json()
        hands, packet, _viewer = data.pop("hands"), data.pop("packet", []), data.pop("viewer")
        _check(data == shared, f"seat {seat}'s view shows another public part than a spectator's")
        _check(not named_cards(packet) - own, f"seat {seat}'s view shows a packet that is not in its hand")
        _check(named_cards(hands) == own, f"seat {seat}'s view names cards other than its own hand")


def check_result(deal: Deal) -> None:
    """Each team's score is the sum of its breakdown (R24..R28)."""
    result = deal.result()
    for team, part in enumerate(result.breakdown):
        _check(set(part) - {"total"} <= set(PARTS), f"team {team}'s breakdown has parts {sorted(part)}")
        parts = sum(part.get(k, 0) for k in PARTS)
        _check(
            part["total"] == parts == result.team_scores[team],
            f"team {team} scores {result.team_scores[team]}, its breakdown sums to {parts} (total {part['total']})",
        )


def check_replay(deal: Deal, players: list[str]) -> None:
    """The deal's record, through JSON text, replays to the same result and history."""
    record = json.loads(json.dumps(record_to_json(deal.rules, players, [deal])))
    replayed = replay_record(record).deals[0]
    _check(replayed.result() == deal.result(), "the record replays to another result")
    _check(replayed.history == deal.history, "the record replays to another history")


def check_json(deal: Deal, listed: list[Action]) -> None:
    """The position's JSON reads back to the same position, with the same legal actions."""
    again = position_from_json(json.loads(json.dumps(position_to_json(deal))))
    _check(position_to_json(again) == position_to_json(deal), "the position's JSON reads back to another position")
    _check(sorted(map(str, again.legal_actions())) == sorted(map(str, listed)), "read back, it lists other actions")


def check_enumerators(deal: Deal) -> None:
    """Under one wild per meld, the general enumerator lists the fast one's melds and adds, slot for slot."""
    if not deal.rules.simple_wilds:
        return
    counts = deal.hands[deal.to_move]
    wilds = hand_wilds(counts, deal.rules)

    def key(meld: Meld) -> tuple[object, ...]:
        return (meld.kind, meld.cards(), meld.slots())

    fast = sorted(map(key, classic_melds(counts, deal.rules, wilds)))
    _check(fast == sorted(map(key, general_melds(counts, deal.rules, wilds))), "the enumerators list other melds")
    for meld in deal.melds[deal.rules.team_of[deal.to_move]]:
        fast_adds = sorted((c, s, e, key(m)) for c, s, e, m in classic_adds(meld, counts, wilds))
        general = sorted((c, s, e, key(m)) for c, s, e, m in general_adds(meld, counts, deal.rules, wilds))
        _check(fast_adds == general, f"the enumerators list other adds to {meld.text()}")


def check_candidates(deal: Deal, listed: list[Action], rng: random.Random) -> None:
    """Actions put together from the mover's cards pass the check exactly when listed; a refusal changes nothing.

    A candidate names no slot or end, so it is compared as the engine reads
    it: R10..R14's defaults decide where its wilds go, and the same cards
    placed otherwise may be legal when these are not (a wild at the low end
    that lets an ace join toward an opening minimum, soak deal 365,500).
    """
    hand = deal.hand(deal.to_move)
    team = deal.rules.team_of[deal.to_move]
    candidates = [Action("draw"), Action("take"), Action("pass")]
    for _ in range(4):
        n = rng.randint(1, min(4, len(hand))) if hand else 1
        cards = tuple(sorted(rng.sample(hand, n))) if hand else (0,)
        candidates.append(Action("meld", cards, (-1,) * n))
        candidates.append(Action("add", cards, (-1,) * n, rng.randint(0, len(deal.melds[team]))))
        candidates.append(Action("discard", (rng.choice(range(53)),), (-1,)))
    shapes = {(a.kind, tuple(sorted(a.cards)), a.meld) for a in listed}
    before = position_to_json(deal)
    for action in candidates:
        try:  # the action as the engine reads it: R10..R14's defaults for the slots and ends it leaves unnamed
            read = deal.parse_action(str(action))
        except IllegalActionError:
            read = None  # no meld, or cards not held: listed in no form
        try:
            deal.check(action)
        except IllegalActionError as error:
            if read is None:
                _check((action.kind, tuple(sorted(action.cards)), action.meld) not in shapes, f"{action} is listed")
            _check(read not in listed, f"{action} is refused ({error}) but listed as {read}")
            _check(error.rule.startswith("R") or error.rule in OPTION_NAMES, f"{action}'s refusal cites {error.rule}")
        else:
            _check(read in listed, f"{action} passes the check but is not listed (read as {read})")
        _check(position_to_json(deal) == before, f"checking {action} changed the position")


def check_sample_applies(deal: Deal, action: Action, unchecked: bool = True) -> None:
    """A listed action applies, keeping every card; ``unchecked``: unchecked (self-play's path) it does the same."""
    checked = deal.clone()
    outcome = checked.apply(action)
    checked.assert_consistent()
    if unchecked:
        fast = deal.clone()
        _check(fast.apply(action, check=False) == outcome, f"{action} unchecked has another outcome")
        _check(position_to_json(fast) == position_to_json(checked), f"{action} unchecked leaves another position")


# ---------------------------------------------------------------- deals
@dataclass
class DealReport:
    """One soak deal: how it ended, its actions, and its failure if it had one."""

    rules: str
    custom: bool
    actions: int
    ended_by: str
    failure: dict[str, Any] | None = None


def _too_long(_signal: int, _frame: object) -> None:
    raise InvariantBroken("the deal took too long: a hang (DEAL_SECONDS)")


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the deal after ``seconds`` (where the platform has interval timers and this is the main thread)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGALRM, _too_long)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def soak_deal(seed: int | str, index: int, sample: int = SAMPLE, seconds: float = DEAL_SECONDS) -> DealReport:
    """Play deal ``index`` of ``seed`` with every check; a failure (a hang too) is returned, never raised."""
    rng = random.Random(f"{seed}/{index}")
    rules = random_rules(rng)
    players = [rng.choice(PLAYERS) for _ in range(rules.seats)]
    bots = [make_bot(kind, f"{seed}/{index}/{s}") for s, kind in enumerate(players)]
    deal = Deal.shuffled(rng, dealer=rng.randrange(rules.seats), rules=rules, max_turns=DEFAULT_MAX_TURNS)
    deal.match_scores = tuple(rng.choice((0, rng.randint(0, rules.target))) for _ in rules.teams)
    heavy = index % sample == 0
    preset, custom = rules.name.removesuffix("*"), rules.name.endswith("*")
    action: Action | None = None
    step = "the deal"
    try:
        with _time_limit(seconds):
            while True:
                step = "the card count"
                deal.assert_consistent()
                step = "the views"
                check_views(deal, as_json=heavy)
                step = "the legal actions"
                listed = list(deal.legal_actions())
                if deal.is_over:
                    _check(not listed, "a deal that is over lists actions")
                    break
                _check(bool(listed), "a deal not over lists no legal action (R23a)")
                step = "a sampled action"
                action = rng.choice(listed)
                check_sample_applies(deal, action, unchecked=heavy)
                action = None
                if heavy:
                    step = "the refusals"
                    check_candidates(deal, listed, rng)
                    step = "the position's JSON"
                    check_json(deal, listed)
                    step = "the enumerators"
                    check_enumerators(deal)
                step = "the player's choice"
                seat = deal.to_move
                action = bots[seat].choose(deal.view_for(seat), listed)
                _check(action in listed, f"a {players[seat]} bot chose {action}, which is not listed")
                step = "the action"
                deal.apply(action)
                action = None
            step = "the score"
            check_result(deal)
            if heavy:
                step = "the record's replay"
                check_replay(deal, players)
    except Exception as error:  # any exception is what the soak looks for
        failure = _failure(seed, index, deal, action, step, error)
        return DealReport(preset, custom, len(deal.history), "failed", failure)
    return DealReport(preset, custom, len(deal.history), str(deal.ended_by))


def _failure(
    seed: int | str, index: int, deal: Deal, action: Action | None, step: str, error: Exception
) -> dict[str, Any]:
    """What a failure file holds: how to play it again, the position before the action, the action, the error."""
    try:  # the position before the failing action, played again from the deck: the deal itself may be half-changed
        before = Deal(deal.deck or (), deal.dealer, deal.rules, deal.max_turns)
        before.match_scores = deal.match_scores
        for _seat, done in deal.history:
            before.apply(done)
        position: Any = position_to_json(before)
    except Exception as again:
        position = f"not rebuilt: {type(again).__name__}: {again}"
    return {
        "seed": seed,
        "deal": index,
        "replay": f"biriba soak --seed {seed} --first {index} --deals 1",
        "check": step,
        "error": f"{type(error).__name__}: {error}",
        "action": None if action is None else str(action),
        "position": position,
        "traceback": traceback.format_exc(),
    }


# ---------------------------------------------------------------- runs
@dataclass
class Tally:
    """What some deals came to: a worker's chunk reports one, a run sums them."""

    played: int = 0
    actions: int = 0
    ended_by: Counter[str] = field(default_factory=Counter)
    presets: Counter[str] = field(default_factory=Counter)
    custom: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    cache_clears: int = 0

    def count(self, report: DealReport) -> None:
        self.played += 1
        self.actions += report.actions
        self.ended_by[report.ended_by] += 1
        self.presets[report.rules] += 1
        self.custom += report.custom
        if report.failure is not None:
            self.failures.append(report.failure)

    def add(self, other: Tally) -> None:
        self.played += other.played
        self.actions += other.actions
        self.ended_by.update(other.ended_by)
        self.presets.update(other.presets)
        self.custom += other.custom
        self.failures.extend(other.failures)
        self.cache_clears += other.cache_clears


@dataclass(kw_only=True)
class Chunk(Tally):
    """What a worker reports of a run of consecutive deals."""

    number: int
    seconds: float = 0.0
    rss_mb: float = 0.0
    #: Deals that raised the worker's peak memory by :data:`STEP_MB` or more: (deal, MB before, MB after).
    steps: list[tuple[int, float, float]] = field(default_factory=list)


def soak_chunk(args: tuple[int | str, int, int, int, int]) -> Chunk:
    """Deals ``first .. first+count-1`` of ``seed`` (a worker's piece of a run); the engine's caches trimmed."""
    seed, number, first, count, sample = args
    chunk = Chunk(number=number)
    start = time.perf_counter()
    clears = caches.clears()
    peak = peak_mb()
    for index in range(first, first + count):
        chunk.count(soak_deal(seed, index, sample))
        caches.trim()
        before, peak = peak, peak_mb()
        if peak - before >= STEP_MB:
            chunk.steps.append((index, before, peak))
    chunk.seconds = time.perf_counter() - start
    chunk.rss_mb = rss_mb()
    chunk.cache_clears = caches.clears() - clears
    return chunk


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (0 where the system does not say)."""
    try:
        import resource
    except ImportError:
        return 0.0
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, 1)


def rss_mb() -> float:
    """This process's resident memory now, in MB (its peak where /proc is missing)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / 1e6, 1)
    except (OSError, ValueError, IndexError):
        return peak_mb()


@dataclass(kw_only=True)
class Run(Tally):
    """A soak run's state: what is done, what it found.  Saved after every chunk, so that a run resumes."""

    seed: int | str
    first: int
    deals: int
    sample: int = SAMPLE
    chunk: int = CHUNK
    done: set[int] = field(default_factory=set)
    seconds: float = 0.0
    rss: list[tuple[int, float]] = field(default_factory=list)
    #: Every deal that raised a worker's peak memory by :data:`STEP_MB` or more (deal, MB before, MB after):
    #: where to look when memory steps up (docs/reliability.md).
    memory_steps: list[tuple[int, float, float]] = field(default_factory=list)

    @classmethod
    def new(cls, seed: int | str, first: int, deals: int, sample: int = SAMPLE, jobs: int = 1) -> Run:
        """A run not yet started; its chunks small enough that every job gets several and the progress bar
        moves at most a hundredth of the run at a time (smaller chunks measured no slower: docs/reliability.md)."""
        chunk = max(1, min(CHUNK, deals // (4 * jobs), deals // 100))
        return cls(seed=seed, first=first, deals=deals, sample=sample, chunk=chunk)

    @property
    def chunks(self) -> int:
        return -(-self.deals // self.chunk)

    def work(self) -> Iterator[tuple[int | str, int, int, int, int]]:
        """The chunks still to play."""
        for number in range(self.chunks):
            if number not in self.done:
                start = number * self.chunk
                yield self.seed, number, self.first + start, min(self.chunk, self.deals - start), self.sample

    def record(self, chunk: Chunk) -> None:
        """A chunk done: its tally added, a memory reading now and then."""
        self.add(chunk)
        self.done.add(chunk.number)
        self.memory_steps.extend(chunk.steps)
        if not self.rss or len(self.done) % max(1, self.chunks // 100) == 0:  # about a hundred readings a run
            self.rss.append((self.played, chunk.rss_mb))

    def summary(self, jobs: int) -> dict[str, Any]:
        """The JSON summary (docs/reliability.md)."""
        seconds = max(self.seconds, 1e-9)
        memory = [mb for _, mb in self.rss]
        return {
            "format": SOAK_FORMAT,
            "seed": self.seed,
            "first": self.first,
            "deals": self.played,
            "of": self.deals,
            "failures": len(self.failures),
            "failed_deals": [f["deal"] for f in self.failures][:100],
            "deals_per_s": round(self.played / seconds, 2),
            "actions": self.actions,
            "actions_per_s": round(self.actions / seconds, 1),
            "seconds": round(self.seconds, 1),
            "jobs": jobs,
            "compiled": bool(built()),
            "ended_by": dict(sorted(self.ended_by.items())),
            "presets": dict(sorted(self.presets.items())),
            "custom_tables": self.custom,
            "cache_budget": caches.budget(),
            "cache_clears": self.cache_clears,
            "rss_mb": {"first": memory[0], "last": memory[-1], "peak": max(memory)} if memory else None,
            "rss_readings": [{"deals": n, "mb": mb} for n, mb in self.rss],
            "memory_steps": [{"deal": n, "from_mb": a, "to_mb": b} for n, a, b in self.memory_steps],
        }

    def to_json(self) -> dict[str, Any]:
        """The run as the ``--state`` file keeps it: the chunks done as ranges ``[first, last]``."""
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        done: list[list[int]] = []
        for number in sorted(self.done):
            if done and done[-1][1] == number - 1:
                done[-1][1] = number
            else:
                done.append([number, number])
        steps = [list(step) for step in self.memory_steps]
        return {**data, "format": SOAK_FORMAT, "done": done, "rss": [list(r) for r in self.rss], "memory_steps": steps}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Run:
        if not isinstance(data, dict) or data.get("format") != SOAK_FORMAT:
            raise NotationError(f"not a soak run's state: 'format' must be {SOAK_FORMAT!r}")
        run = cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name != "memory_steps"})
        run.done = {number for first, last in data["done"] for number in range(first, last + 1)}
        run.ended_by, run.presets = Counter(data["ended_by"]), Counter(data["presets"])
        run.rss = [(n, mb) for n, mb in data["rss"]]
        run.memory_steps = [(n, a, b) for n, a, b in data.get("memory_steps", [])]  # runs saved before it was kept
        return run


def soak(
    run: Run,
    jobs: int = 1,
    ray_address: str | None = None,
    save: Path | None = None,
    on_chunk: Callable[[Chunk], None] | None = None,
) -> Run:
    """Play the run's chunks not yet done (in ``jobs`` processes, or on Ray), saving the run after each one."""
    started = time.perf_counter()
    base = run.seconds
    for chunk in run_all(soak_chunk, run.work(), jobs, ray_address):
        run.record(chunk)
        run.seconds = base + time.perf_counter() - started
        if save is not None:
            temporary = save.with_suffix(".tmp")
            temporary.write_text(json.dumps(run.to_json()))
            temporary.replace(save)
        if on_chunk is not None:
            on_chunk(chunk)
    run.seconds = base + time.perf_counter() - started
    return run
