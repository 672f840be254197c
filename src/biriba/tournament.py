"""Tournaments between bots, with duplicate deals and honest intervals (``biriba tournament``).

Every deck is played once per team, bot A taking each team's seats in turn
and bot B every other seat (twice, the sides swapped, in a partnership game),
so the luck of the cards cancels: a pair's score is bot A's mean lead over
bot B across its games.  Dealers rotate from pair to pair.  Pairs are independent and
seeded by their number, so the results do not depend on how many processes
(``jobs``) or Ray workers play them.  Reported: the mean lead per deal with
a 95% interval, the share of games won with a Wilson interval, and the Elo
difference that share implies, with its interval; and each bot's median
time per decision (decisions with a choice only), which is the one figure
that depends on the machine.

A long tournament resumes: ``--state FILE`` (:func:`save_pairs`,
:func:`load_pairs`) keeps every pair played, and the same command run again
plays only the pairs still missing, with more ``--deals`` if asked.  A
file named ``*.gz`` is kept gzipped (a thousand pairs of a search bot keep
about 2 MB of decision times, a quarter of that gzipped).  A capped game (a
loop the turn cap ended) keeps its record, so that the loop can be replayed
and looked into: bots that spend a clock seldom choose the same twice.
"""

from __future__ import annotations

import gzip
import json
import math
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .actions import Action
from .bots import bot_settings, make_bot, plugin_kinds
from .bots.search import PerfectBot, SearchBot
from .deal import Deal
from .errors import NotationError
from .match import Match
from .parallel import run_all
from .records import record_to_json
from .rules import CLASSIC, Rules
from .table import Agent, Table, play_deal
from .terms import Ending
from .views import PlayerView

#: The turn cap of tournament deals (R23: a simulation must have one).
MAX_TURNS = 400
Z95 = 1.959964
#: The ``format`` of a ``--state`` file.
STATE_FORMAT = "biriba-tournament/1"


@dataclass(frozen=True)
class Spec:
    """What every pair needs: both bots, the rules, the seed, deals or whole matches."""

    bot_a: str
    bot_b: str
    rules: Rules = CLASSIC
    seed: str = "0"
    matches: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"bot_a": self.bot_a, "bot_b": self.bot_b, "rules": self.rules.to_json(), "seed": self.seed,
                "matches": self.matches}  # fmt: skip


@dataclass
class Game:
    """One game of a pair: bot A's team score and the other teams' (bot B's), a deal's or a match's totals."""

    a: int
    others: tuple[int, ...]
    ended_by: str
    #: The game record (notation.md) of a capped game, or of a match with a capped deal; None for the rest.
    record: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"a": self.a, "others": list(self.others), "ended_by": self.ended_by}
        return data if self.record is None else {**data, "record": self.record}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        return cls(data["a"], tuple(data["others"]), data["ended_by"], data.get("record"))

    @property
    def lead(self) -> float:
        """A's lead over the mean of the B teams."""
        return self.a - statistics.mean(self.others)

    @property
    def won(self) -> float:
        """A's share of wins against each B team (ties count half): 0.5 between equals at any table size."""
        return statistics.mean(1.0 if self.a > b else 0.5 if self.a == b else 0.0 for b in self.others)


@dataclass
class Pair:
    number: int
    games: list[Game]
    #: Milliseconds per decision with a choice, bot A's and bot B's.
    ms: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))

    @property
    def lead(self) -> float:
        """Bot A's mean lead over bot B in this pair's games."""
        return statistics.mean(g.lead for g in self.games)

    def to_json(self) -> dict[str, Any]:
        return {"pair": self.number, "games": [g.to_json() for g in self.games], "ms": list(self.ms)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pair:
        ms_a, ms_b = data["ms"]
        return cls(data["pair"], [Game.from_json(g) for g in data["games"]], (ms_a, ms_b))


def agent(kind: str, seed: str, truth: Callable[[], Deal]) -> Agent:
    """A bot by its tournament name: ``greedy``, ``hard``, ``hard:samples=64,think_ms=500``, ``perfect``..."""
    name, _, options = kind.partition(":")
    if name in plugin_kinds():
        return make_bot(kind, seed)
    settings: dict[str, Any] = bot_settings(options)
    if name == "perfect":
        return PerfectBot(truth, seed, **settings)
    if name == "hard":
        return SearchBot(seed, **settings)
    if settings:
        raise ValueError(f"bot {name!r} takes no settings")
    return make_bot(name, seed)


def check_agent(kind: str) -> None:
    """Build the bot once, so that bad settings are refused (``ValueError``, ``TypeError``) before any deal."""

    def no_truth() -> Deal:
        raise AssertionError("a bot built to check its settings does not play")

    agent(kind, "check", no_truth)


@dataclass
class Timed:
    """A bot whose decisions with a choice are timed, in milliseconds."""

    bot: Agent
    ms: list[float]

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return self.bot.choose(view, legal)
        start = time.perf_counter()
        action = self.bot.choose(view, legal)
        self.ms.append(round((time.perf_counter() - start) * 1000, 2))
        return action


def play_pair(spec: Spec, number: int) -> Pair:
    """Pair ``number``: one deck (or match seed), played once with A in each team's seats (B in the rest)."""
    rules = spec.rules
    games = []
    ms_a: list[float] = []
    ms_b: list[float] = []
    for a_team in range(len(rules.teams)):
        holder: list[Deal] = []
        truth = _last(holder)
        kinds = [spec.bot_a if rules.team_of[s] == a_team else spec.bot_b for s in range(rules.seats)]
        agents: list[Agent] = []
        for s, kind in enumerate(kinds):
            bot = agent(kind, f"{spec.seed}/{number}/{a_team}/{s}", truth)
            agents.append(Timed(bot, ms_a if rules.team_of[s] == a_team else ms_b))
        seed = f"{spec.seed}/{number}"
        if spec.matches:
            match = Match(rules, kinds, seed=seed, max_turns=MAX_TURNS)
            table = Table(match, agents)
            while not match.is_over:
                table.start_deal()
                holder.append(match.deals[-1])
                table.run()
            totals = match.totals
            ended = "match"
        else:
            deal = Deal.shuffled(seed, dealer=number % rules.seats, rules=rules, max_turns=MAX_TURNS)
            holder.append(deal)
            play_deal(deal, agents)
            totals = list(deal.result().team_scores)
            ended = str(deal.ended_by)
        record = None
        if any(d.ended_by == Ending.CAPPED for d in holder):
            played = match.to_record() if spec.matches else record_to_json(rules, kinds, holder)
            record = {**played, "tournament": {"seed": spec.seed, "pair": number, "game": a_team + 1}}
        others = tuple(totals[t] for t in range(len(rules.teams)) if t != a_team)
        games.append(Game(totals[a_team], others, ended, record))
    return Pair(number, games, (ms_a, ms_b))


def _last(holder: list[Deal]) -> Callable[[], Deal]:
    """The deal being played (for the perfect-information bot, which sees it all)."""
    return lambda: holder[-1]


def _play(args: tuple[Spec, int]) -> Pair:
    return play_pair(*args)


def play_pairs(
    spec: Spec,
    pairs: int,
    jobs: int = 1,
    ray_address: str | None = None,
    on_pair: Callable[[Pair], None] | None = None,
    done: Iterable[Pair] = (),
) -> list[Pair]:
    """Pairs 0..pairs-1 in pair order, those not ``done`` played (in this process, in ``jobs`` processes, or on a
    Ray cluster), each passed to ``on_pair`` as it ends."""
    results = {p.number: p for p in done if p.number < pairs}
    work = [(spec, n) for n in range(pairs) if n not in results]
    for pair in run_all(_play, work, jobs, ray_address):
        results[pair.number] = pair
        if on_pair:
            on_pair(pair)
    return [results[n] for n in sorted(results)]


def save_pairs(path: Path, spec: Spec, pairs: Iterable[Pair]) -> None:
    """Write a tournament's pairs so far to its ``--state`` file (whole, or not at all)."""
    kept = sorted(pairs, key=lambda p: p.number)
    data = {"format": STATE_FORMAT, **spec.to_json(), "pairs": [p.to_json() for p in kept]}
    text = json.dumps(data) + "\n"
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(gzip.compress(text.encode(), mtime=0) if path.suffix == ".gz" else text.encode())
    temporary.replace(path)


def load_pairs(path: Path, spec: Spec) -> list[Pair]:
    """The pairs a ``--state`` file holds for this tournament.

    :class:`~biriba.errors.NotationError` if it holds no tournament's state,
    :class:`ValueError` (naming the one it holds) if it holds another's:
    pairs played by other bots, rules or seed cannot be pooled.
    """
    try:
        data = json.loads(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_text())
    except (ValueError, OSError) as exc:  # gzip's BadGzipFile is an OSError
        raise NotationError(f"{path} is not {'gzipped ' if path.suffix == '.gz' else ''}JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise NotationError(f"{path} is not a tournament's state: 'format' must be {STATE_FORMAT!r}")
    held = {key: data.get(key) for key in spec.to_json()}
    if held != spec.to_json():
        rules = held["rules"] if isinstance(held["rules"], str) else "custom rules"
        raise ValueError(
            f"{path} holds another tournament ({held['bot_a']} against {held['bot_b']}, {rules}, seed"
            f" {held['seed']}{', whole matches' if held['matches'] else ''}): give the same, or another --state file"
        )
    try:
        return [Pair.from_json(p) for p in data["pairs"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise NotationError(f"{path}: a pair is not as a tournament's state keeps it ({exc!r})") from None


@dataclass
class Summary:
    """What a tournament shows, with its intervals."""

    bot_a: str
    bot_b: str
    pairs: int
    games: int
    mean_lead: float
    lead_low: float
    lead_high: float
    win_share: float
    win_low: float
    win_high: float
    elo: float
    elo_low: float
    elo_high: float
    ended_by: dict[str, int] = field(default_factory=dict)
    #: The games that keep a record (capped, or a match with a capped deal) as (pair, game), games counted from 1.
    capped: list[tuple[int, int]] = field(default_factory=list)
    #: Median milliseconds per decision with a choice, of bot A and bot B: the machine's figure, not the bots'.
    median_ms: tuple[float, float] = field(default=(0.0, 0.0), compare=False)

    def to_json(self) -> dict[str, Any]:
        data = {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}
        data["median_ms"] = [round(ms, 2) for ms in self.median_ms]
        return data

    def lines(self) -> Iterator[str]:
        yield f"{self.bot_a} against {self.bot_b}: {self.pairs} duplicate pairs, {self.games} games"
        yield (
            f"mean lead of {self.bot_a}: {self.mean_lead:+.1f} points a game"
            f" (95% interval {self.lead_low:+.1f} to {self.lead_high:+.1f})"
        )
        yield (
            f"games won by {self.bot_a}: {self.win_share:.1%} (95% Wilson interval {self.win_low:.1%} to"
            f" {self.win_high:.1%}; ties count half)"
        )
        if self.win_share in (0.0, 1.0):  # Elo has no finite estimate: only the interval's other end is a figure
            side, end = ("below", self.elo_high) if self.win_share == 0 else ("above", self.elo_low)
            every = "lost" if self.win_share == 0 else "won"
            yield f"Elo difference: {side} {end:+.0f} (every game {every}: no finite estimate of the difference)"
        else:
            yield f"Elo difference: {self.elo:+.0f} ({self.elo_low:+.0f} to {self.elo_high:+.0f})"
        yield "games ended by: " + ", ".join(f"{k} {v}" for k, v in sorted(self.ended_by.items()))
        if self.capped:
            games = ", ".join(f"pair {pair} game {game}" for pair, game in self.capped)
            yield f"records kept of games with a capped deal: {games} (--save DIR writes them for 'biriba replay')"
        a_ms, b_ms = self.median_ms
        yield f"median time per decision: {self.bot_a} {a_ms:.1f} ms, {self.bot_b} {b_ms:.1f} ms"


def kept_records(pairs: Iterable[Pair]) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """The records kept of games with a capped deal: (pair, game counted from 1, record)."""
    for pair in pairs:
        for number, game in enumerate(pair.games, 1):
            if game.record is not None:
                yield pair.number, number, game.record


def summarize(spec: Spec, pairs: Sequence[Pair]) -> Summary:
    """The mean lead with a t-based 95% interval over pairs, the win share's Wilson interval, and Elo."""
    leads = [p.lead for p in pairs]
    n = len(leads)
    mean = statistics.mean(leads)
    half = _t95(n - 1) * statistics.stdev(leads) / math.sqrt(n) if n > 1 else math.inf
    games = [g for p in pairs for g in p.games]
    wins = sum(g.won for g in games)
    share = wins / len(games)
    low, high = wilson(share, len(games))
    ended: dict[str, int] = {}
    for g in games:
        ended[g.ended_by] = ended.get(g.ended_by, 0) + 1
    capped = [(pair, game) for pair, game, _ in kept_records(pairs)]
    median_ms = tuple(statistics.median([ms for p in pairs for ms in p.ms[side]] or [0.0]) for side in (0, 1))
    return Summary(
        spec.bot_a, spec.bot_b, n, len(games), mean, mean - half, mean + half,
        share, low, high, elo(share), elo(low), elo(high), ended, capped, median_ms,  # type: ignore[arg-type]
    )  # fmt: skip


def wilson(share: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    centre = share + z * z / (2 * n)
    spread = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return (centre - spread) / scale, (centre + spread) / scale


def elo(share: float) -> float:
    """The Elo difference that wins this share of games."""
    share = min(max(share, 1e-6), 1 - 1e-6)
    return 400 * math.log10(share / (1 - share))


def _t95(df: int) -> float:
    """Student's t for a two-sided 95% interval: the table's value at or below ``df`` (never too narrow)."""
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
             15: 2.131, 20: 2.086, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980, 1000: 1.962}  # fmt: skip
    return table[max(k for k in table if k <= df)] if df >= 1 else math.inf
