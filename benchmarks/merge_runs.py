"""Merge tournament runs saved with ``--save DIR`` into one summary (their pairs are independent).

Usage: ``python benchmarks/merge_runs.py A B DIR [DIR ...]``, where each DIR
holds a run's ``pairs.json`` and, for the median decision time, its
``--json`` output as ``out.json``: the merged median is the median of the
runs' medians (the runs do not save each decision's time).  How
docs/bots.md's results were put together from runs of 100 pairs.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from biriba.tournament import Game, Pair, Spec, summarize


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bot_a, bot_b, *folders = argv
    pairs: list[Pair] = []
    medians: list[float] = []
    for run, folder in enumerate(map(Path, folders)):
        if not (folder / "pairs.json").exists():
            print(f"{folder}: no pairs.json here (is it a finished run saved with --save?)", file=sys.stderr)
            return 1
        for pair in json.loads((folder / "pairs.json").read_text()):
            pairs.append(Pair(run * 1_000_000 + pair["pair"], [Game.from_json(g) for g in pair["games"]]))
        if (folder / "out.json").exists():
            medians.append(json.loads((folder / "out.json").read_text())["median_ms"][0])
    summary = summarize(Spec(bot_a, bot_b), pairs)
    print(f"{len(folders)} runs merged")
    for line in summary.lines():
        if not line.startswith("median time"):
            print(line)
    if medians:
        print(f"median decision of {bot_a}: {statistics.median(medians):.0f} ms (the median of the runs' medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
