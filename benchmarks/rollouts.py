"""The search bot's workloads, through the engine's stable interface only.

``bench.py`` imports this for the current tree and, with ``--against REF``,
runs it as a script against an older commit's ``src`` (a git worktree), so
both engines play the same workloads in one run, interleaved.

- random rollouts: from a mid-deal position, clone, play uniformly random
  legal actions to the deal's end, score it;
- greedy rollouts: clone, 16 decisions of the greedy bot (a view per
  decision), score the deal as it stands: what the hard bot does per
  candidate and sampled deal.

The positions are the same in both trees: they are reached by choosing among
the legal actions sorted by their text, so a change of the engine's order of
legal actions changes nothing.  A rollout's own choices index the engine's
order; a uniform choice is the same distribution in any order.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from biriba.bots import make_bot
from biriba.deal import Deal
from biriba.rules import preset

#: Decisions of a greedy rollout, as in the hard bot.
GREEDY_DECISIONS = 16


def mid_deal_positions(count: int, rules: str = "classic", seed: int = 5) -> list[Deal]:
    """Deals some 20-120 random actions in, none over."""
    out: list[Deal] = []
    rng = random.Random(seed)
    n = 0
    while len(out) < count:
        deal = Deal.shuffled(f"{rules}/{n}", rules=preset(rules), dealer=n % 4, max_turns=400)
        n += 1
        for _ in range(rng.randrange(20, 120)):
            if deal.is_over:
                break
            deal.apply(rng.choice(sorted(deal.legal_actions(), key=str)), check=False)
        if not deal.is_over:
            out.append(deal)
    return out


def random_rollouts(positions: list[Deal], per_position: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    decisions = rollouts = 0
    start = time.perf_counter()
    for deal in positions:
        for _ in range(per_position):
            trial = deal.clone()
            while trial.ended_by is None:
                actions = list(trial.legal_actions())
                trial.apply(actions[rng.randrange(len(actions))], check=False)
                decisions += 1
            trial.result()
            rollouts += 1
    return {"rollouts": rollouts, "decisions": decisions, "seconds": time.perf_counter() - start}


def greedy_rollouts(positions: list[Deal], per_position: int, seed: int) -> dict[str, float]:
    bot = make_bot("greedy", f"rollout/{seed}")
    decisions = rollouts = 0
    start = time.perf_counter()
    for deal in positions:
        for _ in range(per_position):
            trial = deal.clone()
            for _ in range(GREEDY_DECISIONS):
                if trial.ended_by is not None:
                    break
                legal = list(trial.legal_actions())
                trial.apply(bot.choose(trial.view_for(trial.to_move), legal), check=False)
                decisions += 1
            trial.result()
            rollouts += 1
    return {"rollouts": rollouts, "decisions": decisions, "seconds": time.perf_counter() - start}


WORKLOADS = {"random": random_rollouts, "greedy": greedy_rollouts}
#: The workloads the benchmarks report, with the rules each is played under.
MEASURED = (("random", "classic"), ("random", "italian"), ("greedy", "classic"))


@contextmanager
def engine_at(ref: str | None) -> Iterator[Path | None]:
    """The ``src`` folder of commit ``ref`` in a git worktree, removed afterwards (``None``: no ref)."""
    if ref is None:
        yield None
        return
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "against"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), ref], check=True, cwd=here)
        try:
            yield tree / "src"
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], check=False, cwd=here)


@contextmanager
def compiled_engine(wanted: bool) -> Iterator[Path | None]:
    """A copy of this tree's engine in a temporary folder, compiled by mypyc (``make fast``); ``None`` if not wanted."""
    if not wanted:
        yield None
        return
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as scratch:
        src = Path(scratch) / "src"
        skip = shutil.ignore_patterns("*.so", "__pycache__")
        shutil.copytree(here.parent / "src" / "biriba", src / "biriba", ignore=skip)
        tool = str(src / "biriba" / "compiled.py")
        done = subprocess.run([sys.executable, tool, "build"], capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"the compiled engine could not be built:\n{done.stderr}")
        yield src


def run(
    workload: str, rules: str, positions: int, per_position: int, seed: int, warm: str = "none"
) -> dict[str, float]:
    """Time the workload; ``warm``: first play it untimed (``same``) or from other positions (``other``)."""
    chosen = mid_deal_positions(positions, rules)
    if warm == "same":  # every list the timed run asks for is then remembered: the memos' best case
        WORKLOADS[workload](chosen, per_position, seed)
    elif warm == "other":  # a process that has searched before, as the hard bot's has
        WORKLOADS[workload](mid_deal_positions(2 * positions, rules, seed=77), per_position, seed)
    gc.collect()  # what the setup left for the collector is not the rollouts' cost: collected before the clock starts
    return WORKLOADS[workload](chosen, per_position, seed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--per-position", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warm", choices=("none", "other", "same"), default="none", help="see run()")
    args = parser.parse_args()
    print(json.dumps(run(args.workload, args.rules, args.positions, args.per_position, args.seed, args.warm)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
