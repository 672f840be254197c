"""Deals after the stock runs out: do the bots end them, and how do they loop when they do not?

Each deal is played by random bots until its stock is empty (deals that end
before are skipped), then on by the two bots named, seated as in a tournament
(A at seats 0 and 2), under the turn cap of simulations (D7).  It prints how
those endgames ended, the turns they took after the stock ran out, and for
each capped one the last turns before the cap: who took or passed, the pile's
size, and what the taker did with it.  Only the endgame is played by the bots
under test, so that a search bot's loops are found in minutes, not hours.

    python benchmarks/stock_out_loops.py hard greedy --deals 100 --rules classic --seed 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from typing import Any

from biriba.bots import RandomBot
from biriba.deal import Deal
from biriba.rules import preset
from biriba.table import agent_turn
from biriba.tournament import MAX_TURNS, agent


def endgame(kinds: tuple[str, str], rules_name: str, seed: str) -> dict[str, Any] | None:
    """One deal played to its empty stock by greedy, then by the bots under test; None if it ended before."""
    rules = preset(rules_name)
    deal = Deal.shuffled(seed, rules=rules, max_turns=MAX_TURNS)
    warmup = RandomBot(f"{seed}/warmup")  # greedy closes 99% of its deals before the stock runs out
    while deal.stock_count and not deal.is_over:
        agent_turn(deal, warmup)
    if deal.is_over:
        return None
    while deal.phase != "draw" and not deal.is_over:  # finish the turn of the last stock card
        agent_turn(deal, warmup)
    bots = [agent(kinds[seat % 2], f"{seed}/{seat}", lambda: deal) for seat in range(rules.seats)]
    start = deal.turn
    played: list[tuple[int, str, int]] = []  # seat, action, the pile's size before it
    while not deal.is_over:
        seat, pile = deal.to_move, len(deal.discard)
        played.append((seat, str(agent_turn(deal, bots[seat]).action), pile))
    return {"seed": seed, "ended_by": str(deal.ended_by), "turns": deal.turn - start, "tail": played[-24:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bots", nargs=2)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--seed", default="loops")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    games = [endgame(tuple(args.bots), args.rules, f"{args.seed}/{n}") for n in range(args.deals)]
    played = [g for g in games if g is not None]
    summary = {
        "bots": args.bots,
        "rules": args.rules,
        "deals": args.deals,
        "endgames": len(played),
        "ended_by": dict(Counter(g["ended_by"] for g in played)),
        "median_turns": statistics.median(g["turns"] for g in played) if played else None,
        "seconds": round(time.perf_counter() - started, 1),
        "capped": [g for g in played if g["ended_by"] == "capped"],
    }
    if args.json:
        print(json.dumps(summary))
        return
    print({k: v for k, v in summary.items() if k != "capped"})
    for game in summary["capped"]:
        print(f"capped: {game['seed']}")
        for seat, action, pile in game["tail"]:
            print(f"  seat {seat}: {action:<24} (pile of {pile})")


if __name__ == "__main__":
    main()
