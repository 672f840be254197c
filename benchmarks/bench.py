"""``make bench``: how fast the engine is, as medians of several runs (never a test).

Measured side by side in one run, because this machine is shared and noisy:

- random playouts of the engine (legal_actions, a uniform choice, apply),
  and the same through the bot interface (a view per decision);
- RLCard's gin rummy environment under the same random policy (if installed);
- greedy self-play;
- ``clone()`` on mid-deal positions;
- ``legal_actions()`` on heavy positions: 22-card hands with wilds;
- environment steps per second: the PettingZoo environment beside RLCard's
  and OpenSpiel's gin rummy (``bench_envs.py``);
- the search bot's work: random and greedy rollouts from mid-deal positions
  (``rollouts.py``), determinizations, and the hard bot's decision time.
  ``--against REF`` plays the rollouts with an older commit's engine too (a
  git worktree), ``--compiled`` with this engine compiled by mypyc (``make
  fast``, in a temporary copy), interleaved run by run, with the ratios.

Usage: ``python benchmarks/bench.py [--quick] [--against REF] [--compiled] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import bench_envs
import rollouts

from biriba import compiled
from biriba.bots import SearchBot, make_bot
from biriba.deal import Deal
from biriba.knowledge import determinize
from biriba.table import play_deal
from helpers import position

HERE = Path(__file__).resolve().parent

HEAVY = {
    "hearts A-8, spades 9-K, 4 wilds": dict(
        hands={0: "AH 2H 3H 4H 5H 6H 7H 8H 9S TS JS QS KS 7D 7C 7S JK JK 2C 2D 5C 5D"},
        melds=(["9H TH JH", "8S 8D 8C", "3C 4C 5C 6C"], []),
    ),
    "pairs of spades and sevens, 5 wilds": dict(
        hands={0: "3S 3S 4S 4S 5S 5S 6S 6S 7S 7H 7H 7D 7D 7C JK JK JK 2H 2D KC KD KH"},
        melds=(["8S 9S TS", "7S 7C JK", "QH QD QC"], []),
    ),
    "four of a kind thrice, 4 wilds": dict(
        hands={0: "AS AH AD AC 3S 3H 3D 3C 4S 4H 5S 5H 6S 6H JK JK 2C 2D 9C 9D TC TD"},
        melds=(["7S 8S 9S TS JS QS", "7H 8H 9H", "KC KD KH"], []),
    ),
}


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def random_playouts(deals: int, seed: int, with_views: bool) -> dict[str, float]:
    """Uniform random play; returns deals, decisions and seconds."""
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for n in range(deals):
        deal = Deal.shuffled(seed * 100_003 + n, dealer=n % 4, max_turns=400)
        while deal.ended_by is None:
            actions = list(deal.legal_actions())
            if with_views:
                deal.view_for(deal.to_move)
            deal.apply(actions[rng.randrange(len(actions))], check=False)
            decisions += 1
    return {"deals": deals, "decisions": decisions, "seconds": time.perf_counter() - start}


def rlcard_playouts(seconds: float, seed: int) -> dict[str, float] | None:
    """RLCard's gin rummy environment under a uniform random policy, for ``seconds``."""
    try:
        import rlcard  # type: ignore[import-not-found]
    except ImportError:
        return None
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, _ = env.reset()
        games += 1
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.randrange(len(legal))])
            decisions += 1
    return {"deals": games, "decisions": decisions, "seconds": time.perf_counter() - start}


def greedy_selfplay(deals: int, seed: int) -> dict[str, float]:
    bots = [make_bot("greedy", f"{seed}/{s}") for s in range(4)]
    decisions = 0
    start = time.perf_counter()
    for n in range(deals):
        decisions += play_deal(Deal.shuffled(f"g{seed}/{n}", dealer=n % 4, max_turns=400), bots)
    return {"deals": deals, "decisions": decisions, "seconds": time.perf_counter() - start}


def mid_deal_positions(count: int) -> list[Deal]:
    out = []
    rng = random.Random(5)
    for n in range(count):
        deal = Deal.shuffled(n)
        for _ in range(rng.randrange(20, 120)):
            if deal.is_over:
                break
            deal.apply(rng.choice(list(deal.legal_actions())), check=False)
        if not deal.is_over:
            out.append(deal)
    return out


def time_call(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of one call."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rollouts_there(src: Path, workload: str, rules: str, positions: int, per_position: int, seed: int) -> dict:
    """``rollouts.py`` run against the engine in ``src`` (another commit's tree)."""
    command = [sys.executable, str(HERE / "rollouts.py"), workload, "--rules", rules]
    command += ["--positions", str(positions), "--per-position", str(per_position), "--seed", str(seed)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def search_rows(args: argparse.Namespace, runs: int, figures: dict[str, Any], rows: list[tuple[str, str, str]]) -> None:
    """Rollouts (here, compiled with ``--compiled``, an older tree with ``--against``), determinizations, decisions."""
    positions, per_position = (12, 2) if args.quick else (30, 3)
    here = "compiled" if compiled.built() else "pure Python"
    with rollouts.engine_at(args.against) as old_src, rollouts.compiled_engine(args.compiled) as fast_src:
        trees = {"now": HERE.parent / "src", "compiled": fast_src, args.against: old_src}
        trees = {name: src for name, src in trees.items() if src is not None}
        for workload, rules in rollouts.MEASURED:
            rates: dict[str, list[float]] = {name: [] for name in trees}
            decisions = []
            for run in range(runs):  # interleaved, so that the machine's moods fall on all trees alike
                for name, src in trees.items():
                    found = rollouts_there(src, workload, rules, positions, per_position, run)
                    rates[name].append(found["rollouts"] / found["seconds"])
                    if name == "now":
                        decisions.append(found["decisions"] / found["seconds"])
            key = f"{workload}_rollouts_{rules}"
            per_s = statistics.median(rates["now"])
            ms = 1000 / per_s
            figures[key] = {"engine": here, "rollouts_per_s": per_s, "decisions_per_s": statistics.median(decisions)}
            figures[key]["ms_per_rollout"] = ms
            notes = [f"{here}, {statistics.median(decisions):,.0f} decisions/s"]
            for name in trees:
                if name == "now":
                    continue
                then = statistics.median(rates[name])
                figures[key][f"{name}_rollouts_per_s"] = then
                notes.append(f"{name}: {then:,.0f}/s")
            if args.against:
                for name in (n for n in trees if n != args.against):
                    ratio = statistics.median(a / b for a, b in zip(rates[name], rates[args.against]))
                    figures[key][f"{name}_speedup"] = ratio
                    notes.append(f"{name} / {args.against} = {ratio:.2f}x")
            rows.append((f"{workload} rollouts, {rules}", f"{per_s:,.0f}/s ({ms:.2f} ms)", "; ".join(notes)))

    views = [deal.view_for(deal.to_move) for deal in rollouts.mid_deal_positions(positions)]
    rng = random.Random(1)
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        for view in views:
            for _ in range(10):
                determinize(view, rng)
        rates.append(10 * len(views) / (time.perf_counter() - start))
    figures["determinizations_per_s"] = statistics.median(rates)
    rows.append(("determinize(view)", f"{statistics.median(rates):,.0f}/s", "sampled deals consistent with a view"))

    bot = SearchBot(seed=1)
    times = []
    collecting = _CollectorClock()
    gc.callbacks.append(collecting)
    for deal in rollouts.mid_deal_positions(positions * 4, seed=9):
        legal = list(deal.legal_actions())
        if len(legal) > 1:
            collecting.on = True
            start = time.perf_counter()
            bot.choose(deal.view_for(deal.to_move), legal)
            times.append(time.perf_counter() - start)
            collecting.on = False
    gc.callbacks.remove(collecting)
    ms = statistics.median(times) * 1000
    share = collecting.seconds / sum(times)
    figures["hard_decision_ms"] = {"median": ms, "max": max(times) * 1000, "decisions": len(times)}
    figures["hard_decision_ms"] |= {"collector_share": share, "collector_max_ms": collecting.longest * 1000}
    note = f"median of {len(times)}, max {max(times) * 1000:.0f} ms; the garbage collector {share:.0%} of it"
    rows.append(("hard bot, one decision", f"{ms:.0f} ms", f"{note}, {collecting.longest * 1000:.0f} ms at most"))


class _CollectorClock:
    """A ``gc.callbacks`` hook that times Python's garbage collections while ``on``."""

    def __init__(self) -> None:
        self.on = False
        self.seconds = self.longest = self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if not self.on:
            return
        if phase == "start":
            self._start = time.perf_counter()
            return
        took = time.perf_counter() - self._start
        self.seconds += took
        self.longest = max(self.longest, took)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer and shorter runs")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median taken)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--against", metavar="REF", help="also time the rollouts with this commit's engine")
    parser.add_argument("--compiled", action="store_true", help="also time the rollouts compiled (make fast)")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    playout_deals = 60 if args.quick else 200
    console = Console()
    figures: dict[str, Any] = {"runs": runs}

    rows: list[tuple[str, str, str]] = []
    console.print(f"[b]biriba benchmark[/b]: medians of {runs} runs")

    plain = [random_playouts(playout_deals, r, with_views=False) for r in range(runs)]
    viewed = [random_playouts(playout_deals, r, with_views=True) for r in range(runs)]
    dec_s = statistics.median(p["decisions"] / p["seconds"] for p in plain)
    deal_s = statistics.median(p["deals"] / p["seconds"] for p in plain)
    per_deal = sum(p["decisions"] for p in plain) / sum(p["deals"] for p in plain)
    view_dec_s = statistics.median(p["decisions"] / p["seconds"] for p in viewed)
    figures["random"] = {"decisions_per_s": dec_s, "deals_per_s": deal_s, "decisions_per_deal": per_deal}
    figures["random_with_views"] = {"decisions_per_s": view_dec_s}
    rows.append(
        ("random playouts", f"{dec_s:,.0f} decisions/s", f"{deal_s:,.1f} deals/s, {per_deal:.0f} decisions/deal")
    )
    rows.append(("random playouts + a view per decision", f"{view_dec_s:,.0f} decisions/s", "what a bot costs to feed"))

    seconds = plain[0]["seconds"]
    rl = [rlcard_playouts(seconds, r) for r in range(runs)]
    if rl[0] is None:
        rows.append(("RLCard gin rummy (random)", "not installed", "pip install rlcard"))
    else:
        rl_dec_s = statistics.median(p["decisions"] / p["seconds"] for p in rl if p)
        ratio = statistics.median(
            (b["decisions"] / b["seconds"]) / (g["decisions"] / g["seconds"]) for b, g in zip(plain, rl) if g
        )
        figures["rlcard_gin_rummy"] = {"decisions_per_s": rl_dec_s, "biriba_over_rlcard": ratio}
        rows.append(
            ("RLCard gin rummy env (random)", f"{rl_dec_s:,.0f} decisions/s", f"biriba / RLCard = {ratio:.2f}x")
        )

    greedy_deals = 10 if args.quick else 30
    greedy = [greedy_selfplay(greedy_deals, r) for r in range(runs)]
    g_deal_s = statistics.median(p["deals"] / p["seconds"] for p in greedy)
    g_dec_s = statistics.median(p["decisions"] / p["seconds"] for p in greedy)
    figures["greedy"] = {"deals_per_s": g_deal_s, "decisions_per_s": g_dec_s}
    rows.append(("greedy self-play", f"{g_deal_s:,.1f} deals/s", f"{g_dec_s:,.0f} decisions/s"))

    positions = mid_deal_positions(20)
    clone_times = [statistics.median(time_call(d.clone, 200) for d in positions) for _ in range(runs)]
    clone_us = statistics.median(clone_times) * 1e6
    figures["clone_us"] = clone_us
    rows.append(("clone(), mid-deal positions", f"{clone_us:.1f} us", "target <= 50 us"))

    figures["legal_actions_ms"] = {}
    for name, spec in HEAVY.items():
        deal = position(phase="play", **spec)  # type: ignore[arg-type]
        count = sum(1 for _ in deal.legal_actions())
        ms = statistics.median(time_call(lambda d=deal: list(d.legal_actions()), 50) for _ in range(runs)) * 1e3
        figures["legal_actions_ms"][name] = {"ms": ms, "actions": count}
        rows.append((f"legal_actions(): {name}", f"{ms:.3f} ms", f"{count} actions; target <= 1 ms"))

    search_rows(args, runs, figures, rows)
    rows.extend(bench_envs.rows(runs, 1.0 if args.quick else 3.0, figures))

    table = Table(title="biriba benchmark")
    table.add_column("what")
    table.add_column("median", justify="right")
    table.add_column("notes")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
