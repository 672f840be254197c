"""The search workloads counted in machine instructions (valgrind), here and at another commit.

Wall-clock figures on a shared machine move from run to run; instruction
counts do not.  Each workload of ``rollouts.py`` (10 mid-deal positions, 2
rollouts each, unless ``--positions`` and ``--per-position`` say otherwise)
runs under ``valgrind --tool=callgrind`` twice, with and without its
rollouts, and the difference is the workload's count::

    python benchmarks/instructions.py --against 7b4ee6e [--compiled]

``--compiled`` also counts this engine compiled by mypyc (``make fast``).

Needs valgrind (``apt-get install -y valgrind``); a run takes a few minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import rollouts

HERE = Path(__file__).resolve().parent


def instructions(src: Path, workload: str, rules: str, positions: int, per_position: int) -> int:
    """valgrind's count of instructions for ``rollouts.py`` run against the engine in ``src``."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
    command += [str(HERE / "rollouts.py"), workload, "--rules", rules, "--positions", str(positions)]
    command += ["--per-position", str(per_position)]
    env = os.environ | {"PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def workload_millions(src: Path, workload: str, rules: str, positions: int, per_position: int) -> float:
    with_rollouts = instructions(src, workload, rules, positions, per_position)
    return (with_rollouts - instructions(src, workload, rules, positions, 0)) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", metavar="REF", help="also count with this commit's engine (a git worktree)")
    parser.add_argument("--compiled", action="store_true", help="also count this engine compiled (make fast)")
    parser.add_argument("--positions", type=int, default=10, help="mid-deal positions (default 10)")
    parser.add_argument("--per-position", type=int, default=2, help="rollouts from each (default 2)")
    args = parser.parse_args()
    with rollouts.engine_at(args.against) as old_src, rollouts.compiled_engine(args.compiled) as fast_src:
        trees = {"now": HERE.parent / "src", "compiled": fast_src, args.against: old_src}
        trees = {name: src for name, src in trees.items() if src is not None}
        ratios = [name for name in trees if args.against and name != args.against]
        header = ["workload", *trees, *(f"{name}: speed-up over {args.against}" for name in ratios)]
        print("| " + " | ".join(header) + " |")
        print("|---" * len(header) + "|")
        for workload, rules in rollouts.MEASURED:
            counts = {
                name: workload_millions(src, workload, rules, args.positions, args.per_position)
                for name, src in trees.items()
            }
            cells = [f"{n:,.0f} M" for n in counts.values()]
            cells += [f"{counts[args.against] / counts[name]:.2f}x" for name in ratios]
            print(f"| {workload} rollouts, {rules} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
