"""The engine's memory over many random deals, with its caches held to a budget or left to grow.

Plays random deals of every preset in turn (random legal actions, a turn
cap of 400) and prints the process's RSS and the caches' entries every
``--every`` deals.  With ``--budget N`` the caches are trimmed between
deals (``biriba.caches.trim``, as a simulation or the web server does);
with ``--budget 0`` they are never cleared, as before the registry.

Usage: ``python benchmarks/cache_memory.py [--deals 12000] [--every 1000] [--budget 1000000] [--presets all|classic]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from biriba import caches
from biriba.deal import Deal
from biriba.rules import PRESETS


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=12_000)
    parser.add_argument("--every", type=int, default=1_000)
    parser.add_argument("--budget", type=int, default=caches.DEFAULT_BUDGET, help="0: never clear")
    parser.add_argument("--presets", choices=["all", "classic"], default="all")
    args = parser.parse_args()
    names = list(PRESETS) if args.presets == "all" else ["classic"]
    if args.budget:
        caches.set_budget(args.budget)
    rng = random.Random(0)
    for number in range(1, args.deals + 1):
        deal = Deal.shuffled(seed=number, rules=PRESETS[names[number % len(names)]], max_turns=400)
        while not deal.is_over:
            legal = list(deal.legal_actions())
            deal.apply(legal[rng.randrange(len(legal))], check=False)
        if args.budget:
            caches.trim()
        if number % args.every == 0:
            row = {"deals": number, "rss_mib": rss_mib(), "entries": caches.total(), "clears": caches.clears()}
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
