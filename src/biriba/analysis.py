"""After the match, what each decision cost: every decision of a record valued by the search bot (issue 53).

A decision is a move made where the rules allowed more than one.  It is
valued from the mover's own view, as the hard bot would value it: the cards
the seat could not see are dealt out ``samples`` times in every way its
view allows (:func:`biriba.knowledge.determinize`), and in each deal the
move made and the greedy bot's favourite moves are each played and rolled
out a few turns (:meth:`SearchBot.rollout`): a move's value is its mean
margin, in points, of the mover's team over the best other team.  Every
move is tried in the same deals, so the difference between two moves is
far steadier than either value; its standard error is the figure's
uncertainty.

The cost of a move is the best move's value less its own, never negative.
A cost is labelled (inaccuracy, mistake, blunder: :data:`LABELS`) only
when it is clear of the noise: at least two uncertainties above nought.
A seat's accuracy is the share of its decisions left without a label.

A second opinion, marked as such, plays the same moves in the true deal,
every hand and the stock known (:class:`~biriba.bots.search.PerfectBot`'s
world): what a player who saw everything would have played.  It reads
hidden cards, so analysis is for finished matches only (the web server
refuses a live table's).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .bots.greedy import GreedyBot
from .bots.search import PERFECT_SAMPLES, WIDTH, SearchBot
from .cards import NAMES
from .deal import Deal
from .knowledge import determinize
from .replay import replay_record
from .rules import Rules

ANALYSIS_FORMAT = "biriba-analysis/1"
#: Deals sampled per decision by default: a whole classic deal in well under a minute on one core
#: (docs/analysis.md gives what each budget costs and how steady its labels are).
SAMPLES = 32
#: The labels, the worst first, by the least cost in points each needs (and a cost clear of noise).
LABELS = (("blunder", 120.0), ("mistake", 60.0), ("inaccuracy", 25.0))
PLURALS = {"blunder": "blunders", "mistake": "mistakes", "inaccuracy": "inaccuracies"}
#: Each label's mark beside a move, as chess writes them.
MARKS = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}
#: How many uncertainties above nought a cost must be to carry a label.
CLEAR = 2.0


@dataclass(frozen=True)
class Candidate:
    """One move tried at a decision: its mean value over the sampled deals and that mean's standard error."""

    action: str
    value: float
    spread: float


@dataclass(frozen=True)
class Decision:
    """One decision of a seat, valued: the move made, the best move found, and what the difference cost."""

    deal: int  # the deal's number in the match, from 1
    index: int  # the action's number in the deal, from 1 (as the replay counts steps: the position after it)
    seat: int
    team: int
    action: str
    best: str
    best_cards: tuple[str, ...]  # the better move's cards from the hand, for a front end to point at
    value: float  # the move made: the mover's team's expected margin a few turns on
    best_value: float
    cost: float  # best_value - value, never negative
    uncertainty: float  # the cost's standard error (the paired difference's)
    label: str | None
    candidates: tuple[Candidate, ...]
    perfect_best: str  # the second opinion: the best move with every card known
    perfect_cost: float

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "index": self.index,
            "seat": self.seat,
            "team": self.team,
            "action": self.action,
            "best": self.best,
            "best_cards": list(self.best_cards),
            "value": round(self.value, 1),
            "best_value": round(self.best_value, 1),
            "cost": round(self.cost, 1),
            "uncertainty": round(self.uncertainty, 1),
            "label": self.label,
            "candidates": [
                {"action": c.action, "value": round(c.value, 1), "spread": round(c.spread, 1)} for c in self.candidates
            ],
            "perfect": {"best": self.perfect_best, "cost": round(self.perfect_cost, 1)},
        }


@dataclass(frozen=True)
class SeatSummary:
    """A seat's decisions in all: how many, the share without a label, the total cost and each label's count."""

    seat: int
    name: str
    decisions: int
    accuracy: float
    total_cost: float
    labels: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "decisions": self.decisions,
            "accuracy": round(self.accuracy, 1),
            "total_cost": round(self.total_cost, 1),
            "mean_cost": round(self.total_cost / self.decisions, 1) if self.decisions else 0.0,
            "labels": self.labels,
        }


@dataclass
class Analysis:
    """A record's analysis: every decision of the chosen seats, and each seat's summary."""

    rules: Rules
    players: list[str]
    samples: int
    seed: int | str
    decisions: list[Decision] = field(default_factory=list)

    def seats(self) -> list[SeatSummary]:
        out = []
        for seat in sorted({d.seat for d in self.decisions}):
            mine = [d for d in self.decisions if d.seat == seat]
            labels = {name: sum(d.label == name for d in mine) for name, _ in LABELS}
            accuracy = 100.0 * sum(d.label is None for d in mine) / len(mine)
            out.append(SeatSummary(seat, self.players[seat], len(mine), accuracy, sum(d.cost for d in mine), labels))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "format": ANALYSIS_FORMAT,
            "samples": self.samples,
            "seed": self.seed,
            "labels": {name: least for name, least in LABELS},
            "players": self.players,
            "seats": [s.to_json() for s in self.seats()],
            "decisions": [d.to_json() for d in self.decisions],
        }

    def to_text(self) -> str:
        """A plain table: the labelled decisions, then each seat's figures."""
        lines = [f"{'deal':>4} {'step':>4} {'seat':>4}  {'played':<24} {'better':<24} {'cost':>12}  label"]
        for d in self.decisions:
            if d.label is not None:
                cost = f"{d.cost:.0f} ± {d.uncertainty:.0f}"
                lines.append(f"{d.deal:>4} {d.index:>4} {d.seat:>4}  {d.action:<24} {d.best:<24} {cost:>12}  {d.label}")
        lines.append("")
        lines.append(
            f"{'seat':>4}  {'player':<16} {'decisions':>9} {'accuracy':>9} {'total cost':>11} {'per decision':>13}"
        )
        for s in self.seats():
            mean = s.total_cost / s.decisions if s.decisions else 0.0
            line = f"{s.seat:>4}  {s.name:<16} {s.decisions:>9} {s.accuracy:>8.1f}% {s.total_cost:>11.0f} {mean:>13.1f}"
            lines.append(
                line + "  " + ", ".join(f"{n} {PLURALS[name] if n > 1 else name}" for name, n in s.labels.items() if n)
            )
        lines.append("")
        lines.append(
            f"{self.samples} sampled deals a decision, seed {self.seed}; costs in points, ± one standard error"
        )
        return "\n".join(lines)


def label(cost: float, uncertainty: float) -> str | None:
    """The label a cost earns: the worst whose threshold it reaches, if it is clear of the noise."""
    if cost <= CLEAR * uncertainty:
        return None
    return next((name for name, least in LABELS if cost >= least), None)


def decide(deal: Deal, taken: Action, samples: int = SAMPLES, seed: int | str = 0) -> Decision | None:
    """The decision of the seat to move in ``deal``, which played ``taken``, valued; None if it had no choice.

    ``deal`` is the true position: only the mover's view of it goes into the first opinion; the second
    opinion plays the true deal."""
    legal = list(deal.legal_actions())
    if len(legal) < 2:
        return None
    seat = deal.to_move
    view = deal.view_for(seat)
    ranker = GreedyBot(f"{seed}/rank", remember=False)
    moves = ranker.ranked(view, legal)[:WIDTH]
    if not any(str(move) == str(taken) for move in moves):
        moves.append(taken)
    searcher = SearchBot(f"{seed}/rollouts")
    rng = random.Random(f"{seed}/deals")
    values = _values(searcher, moves, seat, lambda: determinize(view, rng), samples)
    truth = _values(searcher, moves, seat, deal.clone, PERFECT_SAMPLES)
    taken_at = next(i for i, move in enumerate(moves) if str(move) == str(taken))
    best = max(range(len(moves)), key=lambda i: (_mean(values[i]), -i))
    differences = [b - t for b, t in zip(values[best], values[taken_at])]
    cost = max(0.0, _mean(differences))
    uncertainty = _spread(differences)
    perfect = max(range(len(moves)), key=lambda i: (_mean(truth[i]), -i))
    return Decision(
        deal=0,
        index=len(deal.history) + 1,
        seat=seat,
        team=deal.rules.team_of[seat],
        action=str(taken),
        best=str(moves[best]),
        best_cards=tuple(NAMES[card] for card in moves[best].cards),
        value=_mean(values[taken_at]),
        best_value=_mean(values[best]),
        cost=cost,
        uncertainty=uncertainty,
        label=label(cost, uncertainty),
        candidates=tuple(Candidate(str(m), _mean(v), _spread(v)) for m, v in zip(moves, values)),
        perfect_best=str(moves[perfect]),
        perfect_cost=max(0.0, _mean(truth[perfect]) - _mean(truth[taken_at])),
    )


@dataclass(frozen=True)
class PlayedDeal:
    """A deal as it was played: enough to replay it anywhere, a worker process included."""

    number: int  # in the match, from 1
    rules: Rules
    deck: tuple[int, ...]
    dealer: int
    max_turns: int | None
    actions: tuple[tuple[int, str], ...]

    @classmethod
    def of(cls, number: int, deal: Deal) -> PlayedDeal:
        if deal.deck is None:
            raise ValueError(f"deal {number} was set up from a position: it has no deck to replay")
        actions = tuple((seat, str(action)) for seat, action in deal.history)
        return cls(number, deal.rules, deal.deck, deal.dealer, deal.max_turns, actions)

    def positions(self) -> Iterator[tuple[int, Deal, str]]:
        """Each action's index (from 0), the position it was made in, and the action; the position is reused:
        clone it to keep it."""
        position = Deal(self.deck, self.dealer, self.rules, self.max_turns)
        for index, (_, text) in enumerate(self.actions):
            yield index, position, text
            position.apply(position.parse_action(text))


def decision_steps(played: PlayedDeal, seats: Collection[int]) -> list[int]:
    """The indexes of the deal's actions made by ``seats`` where the rules allowed more than one."""
    return [
        index
        for index, position, _ in played.positions()
        if position.to_move in seats and position.legal_actions().count() > 1
    ]


def analyse_steps(played: PlayedDeal, steps: Collection[int], samples: int, seed: int | str) -> Iterator[Decision]:
    """The decisions at these action indexes, valued (:func:`decide`), as each is done.  Each is seeded by
    ``seed`` and its place in the match, so that it is the same however the work is cut up."""
    for index, position, text in played.positions():
        if index in steps:
            found = decide(position, position.parse_action(text), samples, f"{seed}/{played.number}/{index}")
            if found is not None:
                yield dataclasses.replace(found, deal=played.number)


def analyse_record(
    data: dict[str, Any],
    seats: Sequence[int] | None = None,
    samples: int = SAMPLES,
    seed: int | str = 0,
    progress: Callable[[int, int], None] | None = None,
    deal: int | None = None,
) -> Analysis:
    """Every decision of ``seats`` (all by default) in a record (``biriba-record/1``) or in its ``deal``, valued.

    The same record and seed give the same analysis, whichever seats and deals are asked for.
    ``progress(done, total)`` is told after each decision."""
    replay = replay_record(data)
    chosen = set(range(replay.rules.seats) if seats is None else seats)
    for seat in chosen:
        if not 0 <= seat < replay.rules.seats:
            raise ValueError(f"a seat is 0..{replay.rules.seats - 1}, not {seat}")
    if deal is not None and not 1 <= deal <= len(replay.deals):
        raise ValueError(f"the record has deals 1..{len(replay.deals)}, not {deal}")
    deals = [PlayedDeal.of(n, d) for n, d in enumerate(replay.deals, 1) if deal is None or n == deal]
    work = [(played, decision_steps(played, chosen)) for played in deals]
    total = sum(len(steps) for _, steps in work)
    analysis = Analysis(replay.rules, list(replay.players), samples, seed)
    for played, steps in work:
        for decision in analyse_steps(played, set(steps), samples, seed):
            analysis.decisions.append(decision)
            if progress is not None:
                progress(len(analysis.decisions), total)
    return analysis


def _values(
    searcher: SearchBot, moves: list[Action], seat: int, world: Callable[[], Deal], samples: int
) -> list[list[float]]:
    """Each move's rollout values, one per deal drawn from ``world``: the same deals for every move."""
    values: list[list[float]] = [[] for _ in moves]
    for _ in range(samples):
        deal = world()
        for index, move in enumerate(moves):
            trial = deal.clone()
            trial.apply(move, check=False)
            values[index].append(searcher.rollout(trial, seat))
    return values


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _spread(values: list[float]) -> float:
    """The standard error of the values' mean."""
    if len(values) < 2:
        return 0.0
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))


__all__ = [
    "ANALYSIS_FORMAT",
    "LABELS",
    "MARKS",
    "SAMPLES",
    "Analysis",
    "Candidate",
    "Decision",
    "PlayedDeal",
    "SeatSummary",
    "analyse_record",
    "analyse_steps",
    "decide",
    "decision_steps",
    "label",
]
