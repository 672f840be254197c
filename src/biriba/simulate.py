"""Self-play: bots play matches against each other, with statistics.

Used by ``biriba simulate`` and the benchmarks.  The matches are played at
a :class:`~biriba.table.Table` of bots, which see only their views.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bots import make_bot
from .match import Match
from .rules import CLASSIC, Rules
from .table import Table
from .terms import Ending

#: Default turn cap for self-play (R23: the rules set none; a simulation must).
DEFAULT_MAX_TURNS = 400


def team_labels(kinds: Sequence[str], rules: Rules) -> list[str]:
    """A label per team: its bots' kinds (``greedy``, or ``greedy+random`` if mixed)."""
    return ["+".join(sorted({kinds[s] for s in team})) for team in rules.teams]


@dataclass
class Stats:
    """What a simulation measured."""

    kinds: list[str]
    labels: list[str]
    deals: int = 0
    decisions: int = 0
    seconds: float = 0.0
    ended_by: Counter[str] = field(default_factory=Counter)
    score_sums: list[int] = field(default_factory=list)
    turn_sum: int = 0
    matches: int = 0

    def to_json(self) -> dict[str, Any]:
        seconds = max(self.seconds, 1e-9)
        per_team = [s / max(self.deals, 1) for s in self.score_sums]
        by_label: dict[str, list[float]] = {}
        for label, mean in zip(self.labels, per_team):
            by_label.setdefault(label, []).append(mean)
        data: dict[str, Any] = {
            "deals": self.deals,
            "matches": self.matches,
            "decisions": self.decisions,
            "seconds": round(self.seconds, 3),
            "deals_per_s": round(self.deals / seconds, 2),
            "decisions_per_s": round(self.decisions / seconds, 1),
            "mean_decisions_per_deal": round(self.decisions / max(self.deals, 1), 1),
            "mean_turns_per_deal": round(self.turn_sum / max(self.deals, 1), 1),
            "ended_by": {str(k): self.ended_by.get(k, 0) for k in Ending},
            "bots": self.kinds,
            "mean_team_scores": {label: round(sum(v) / len(v), 1) for label, v in by_label.items()},
            "mean_team_scores_by_team": [round(m, 1) for m in per_team],
        }
        if len(by_label) == 2:
            (a, ma), (b, mb) = by_label.items()
            data["margin"] = {"teams": [a, b], "points_per_deal": round(sum(ma) / len(ma) - sum(mb) / len(mb), 1)}
        return data


@dataclass
class _DealSummary:
    ended_by: str
    scores: tuple[int, ...]
    decisions: int
    turns: int


def _play_match(args: tuple[Sequence[str], Rules, str, int, int, int]) -> tuple[list[_DealSummary], dict[str, Any]]:
    """One match of self-play (at most ``limit`` deals): each deal's summary, and the match's record."""
    seat_kinds, rules, seed, number, max_turns, limit = args
    match = Match(rules, [f"{k} {s}" for s, k in enumerate(seat_kinds)], seed=f"{seed}/{number}", max_turns=max_turns)
    table = Table(match, [make_bot(k, f"{seed}/{number}/{s}") for s, k in enumerate(seat_kinds)])
    summaries: list[_DealSummary] = []
    while not match.is_over and len(summaries) < limit:
        table.start_deal()
        table.run()
        deal = match.deals[-1]
        result = deal.result()
        summaries.append(_DealSummary(str(result.ended_by), result.team_scores, len(deal.history), deal.turn))
    return summaries, match.to_record()


def simulate(
    deals: int,
    kinds: Sequence[str],
    seed: int | str = 0,
    rules: Rules = CLASSIC,
    max_turns: int = DEFAULT_MAX_TURNS,
    save: str | Path | None = None,
    on_deal: Callable[[], None] | None = None,
    jobs: int = 1,
) -> Stats:
    """Play ``deals`` deals in matches to the target; ``kinds`` is cycled over the seats.

    Matches are seeded by their number and played whole (up to ``deals``
    deals), in ``jobs`` processes; the statistics count the first ``deals``
    deals in match order, so they do not depend on ``jobs``.  ``save``
    writes each match's record, the last one cut to the deals counted.
    """
    seat_kinds = [kinds[s % len(kinds)] for s in range(rules.seats)]
    stats = Stats(seat_kinds, team_labels(seat_kinds, rules), score_sums=[0] * len(rules.teams))
    save_dir = Path(save) if save is not None else None
    if save_dir is not None:
        save_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    number = 0
    pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
    try:
        while stats.deals < deals:
            batch = [(seat_kinds, rules, str(seed), n, max_turns, deals) for n in range(number, number + max(jobs, 1))]
            played = pool.map(_play_match, batch) if pool is not None else map(_play_match, batch)
            for summaries, record in played:
                if stats.deals >= deals:
                    break
                counted = summaries[: deals - stats.deals]
                if save_dir is not None and len(counted) < len(summaries):  # save only the deals counted
                    record = _play_match((seat_kinds, rules, str(seed), number, max_turns, len(counted)))[1]
                for summary in counted:
                    stats.deals += 1
                    stats.decisions += summary.decisions
                    stats.turn_sum += summary.turns
                    stats.ended_by[summary.ended_by] += 1
                    for team, points in enumerate(summary.scores):
                        stats.score_sums[team] += points
                    if on_deal is not None:
                        on_deal()
                stats.matches += 1
                if save_dir is not None:
                    (save_dir / f"match-{number:04d}.json").write_text(json.dumps(record) + "\n")
                number += 1
    finally:
        if pool is not None:
            pool.shutdown()
    stats.seconds = time.perf_counter() - start
    return stats
