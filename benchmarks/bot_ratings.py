"""The bots' fixed ratings (``BOT_RATINGS`` in src/biriba/server/ratings.py), measured from whole matches.

Two kinds of bot play whole matches against each other as partnerships (each
seed twice, the teams' seats swapped, as the tournament does), under the
classic rules.  For each pair of neighbouring kinds (random, easy, greedy,
hard) the share of matches the stronger pair won gives the gap between their
ratings on openskill's scale: the gap at which Plackett-Luce predicts that
share (``predict_win``).  The scale's anchor is greedy (the medium bot) at the
model's prior, 25: a new player starts as strong as the medium bot is.  A
bot's uncertainty is that of the measured gaps between it and greedy.

Run alone with ``python benchmarks/bot_ratings.py --matches 40 --jobs 2``;
the hard bot plays as at a web table (its time per decision bounded).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from concurrent.futures import ProcessPoolExecutor

from openskill.models import PlackettLuce

from biriba.bots import table_bot
from biriba.match import Match
from biriba.rules import PRESETS
from biriba.table import Table

KINDS = ("random", "easy", "greedy", "hard")
ANCHOR = "greedy"
MODEL = PlackettLuce()


def match(stronger: str, weaker: str, seed: str, swapped: bool) -> float:
    """One whole match of two pairs: 1 if the ``stronger`` pair won, 0.5 for a tie, else 0."""
    first, second = (weaker, stronger) if swapped else (stronger, weaker)
    bots = [table_bot(kind, f"{seed}/{seat}") for seat, kind in enumerate((first, second, first, second))]
    table = Table(Match(PRESETS["classic"], seed=seed, max_turns=400), list(bots))
    table.play_match()
    totals = table.match.totals
    ours, theirs = (totals[1], totals[0]) if swapped else (totals[0], totals[1])
    return 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0


def win_share(stronger: str, weaker: str, matches: int, jobs: int) -> tuple[float, int]:
    """The ``stronger`` pair's share of ``matches`` whole matches (each seed twice, seats swapped)."""
    seeds = [f"rating/{stronger}/{weaker}/{n // 2}" for n in range(matches)]
    with ProcessPoolExecutor(jobs) as pool:
        won = list(
            pool.map(match, [stronger] * matches, [weaker] * matches, seeds, [n % 2 == 1 for n in range(matches)])
        )
    return sum(won) / matches, matches


def gap(share: float) -> float:
    """The gap in rating between two bots at which a pair of the one beats a pair of the other ``share`` of the
    time, on the model's scale (bisection on ``predict_win``, the bots' own uncertainty left out)."""
    low, high = 0.0, 100.0
    for _ in range(60):
        middle = (low + high) / 2
        strong, weak = MODEL.rating(mu=25 + middle, sigma=1e-6), MODEL.rating(mu=25, sigma=1e-6)
        if MODEL.predict_win([[strong, strong], [weak, weak]])[0] < share:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40, help="matches for each pair of neighbouring kinds (even)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--kinds", default=",".join(KINDS), help="the kinds, weakest first (greedy among them)")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    gaps: dict[tuple[str, str], tuple[float, float, float]] = {}
    for weaker, stronger in itertools.pairwise(kinds):
        share, played = win_share(stronger, weaker, args.matches, args.jobs)
        kept = (share * played + 0.5) / (played + 1)  # a clean sweep measures a least gap, not an endless one
        # the gap's uncertainty: the share's (binomial) through the gap's slope
        spread = math.sqrt(kept * (1 - kept) / played)
        slope = (gap(min(kept + spread, 0.999)) - gap(max(kept - spread, 0.001))) / 2
        gaps[(weaker, stronger)] = (share, gap(kept), slope)
        print(f"{stronger} against {weaker}: {share:.1%} of {played} matches won; gap {gap(kept):.2f} ± {slope:.2f}")
    anchor = kinds.index(ANCHOR)
    ratings = {}
    for at, kind in enumerate(kinds):
        steps = [gaps[(kinds[n], kinds[n + 1])] for n in range(min(at, anchor), max(at, anchor))]
        sign = 1 if at > anchor else -1
        mu = MODEL.mu + sign * sum(step[1] for step in steps)
        sigma = math.sqrt(sum(step[2] ** 2 for step in steps)) if steps else 0.5
        ratings[kind] = (round(mu, 1), round(max(sigma, 0.5), 1))
    print(json.dumps(ratings))


if __name__ == "__main__":
    main()
