"""What each sampling budget of ``biriba analyse`` costs in time, and how steady its labels are.

For each budget, each record is analysed twice with different seeds: the
seconds each took (one core), and how far the two agree on which decisions
are blunders, and on which carry any label (the share of the decisions
labelled by either run that both label alike).  The records are whole
classic deals of one random seat against three hard ones, played here.

Run alone with ``python benchmarks/analysis_budget.py --records 2``
(docs/analysis.md gives its figures).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from biriba.analysis import Analysis, analyse_record
from biriba.bots import table_bot
from biriba.match import Match
from biriba.rules import PRESETS
from biriba.table import Table


def played(seed: str) -> dict[str, Any]:
    bots = [table_bot(kind, f"{seed}/{seat}") for seat, kind in enumerate(["random", "hard", "hard", "hard"])]
    match = Match(PRESETS["classic"].replace(target=1), seed=seed, max_turns=400)
    Table(match, list(bots)).play_match()
    return match.to_record()


def agreement(one: Analysis, two: Analysis, labels: set[str]) -> float:
    """Of the decisions either run gives one of ``labels``, the share both give the same label."""
    first = {(d.deal, d.index): d.label for d in one.decisions if d.label in labels}
    second = {(d.deal, d.index): d.label for d in two.decisions if d.label in labels}
    either = set(first) | set(second)
    return sum(first.get(k) == second.get(k) for k in either) / len(either) if either else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2)
    parser.add_argument("--budgets", default="8,16,32,64")
    args = parser.parse_args()
    records = [played(f"budget/{n}") for n in range(args.records)]
    sizes = [sum(len(deal["actions"]) for deal in record["deals"]) for record in records]
    print(f"{args.records} records of {', '.join(map(str, sizes))} actions")
    print(f"{'samples':>7} {'seconds a deal':>15} {'ms a decision':>14} {'blunders agree':>15} {'labels agree':>13}")
    for budget in map(int, args.budgets.split(",")):
        seconds, per_decision, blunders, labelled = [], [], [], []
        for record in records:
            runs = []
            for seed in ("a", "b"):
                start = time.perf_counter()
                runs.append(analyse_record(record, samples=budget, seed=seed))
                seconds.append(time.perf_counter() - start)
                per_decision.append(seconds[-1] * 1000 / len(runs[-1].decisions))
            blunders.append(agreement(*runs, {"blunder"}))
            labelled.append(agreement(*runs, {"blunder", "mistake", "inaccuracy"}))
        print(
            f"{budget:>7} {statistics.median(seconds):>15.1f} {statistics.median(per_decision):>14.0f}"
            f" {statistics.mean(blunders):>15.0%} {statistics.mean(labelled):>13.0%}"
        )


if __name__ == "__main__":
    main()
