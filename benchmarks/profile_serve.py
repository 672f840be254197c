"""Where one ``biriba serve`` process spends its time under play: py-spy's samples, summed by function.

Starts ``biriba serve`` (SQLite) in its own process, opens N tables of four
people with two watchers each (make bench-serve's clients, who join with
"same" as the page does), plays them for S seconds with players who act
T seconds after their turn comes, and reports the server's CPU-seconds per
thousand actions.  With ``--profile FILE``, py-spy samples the server
meanwhile (only while it holds the interpreter's lock: the work, not the
waits) and the functions that took the most samples are printed, by their
own time and with what they called (docs/deploy.md, "Where a server's time
goes").  py-spy is in the ``bench`` extra.

Usage: ``python benchmarks/profile_serve.py [--tables 40] [--seconds 20] [--think 0.25] [--profile FILE]``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_serve as bench

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serverkit import BIRIBA, server_process


async def played(url: str, seats: list[tuple[str, list[str], int]], seconds: float, think: float) -> dict[str, Any]:
    stop = time.monotonic() + seconds
    watching = [bench.watcher(url, table_id, stop, []) for table_id, _, _ in seats for _ in range(2)]
    figures, *_ = await asyncio.gather(bench.play(url, seats, [], seconds, think), *watching)
    return figures  # type: ignore[no-any-return]


def summed(raw: Path, top: int) -> str:
    """py-spy's raw stacks summed by function: the share of the samples each took by itself, and with callees."""
    own: collections.Counter[str] = collections.Counter()
    within: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = [frame.rsplit(":", 1)[0] for frame in stack.split(";")]
        total += int(count)
        own[frames[-1]] += int(count)
        for frame in set(frames):
            within[frame] += int(count)
    lines = [f"{total} samples; by own time:"]
    lines += [f"{100 * n / total:5.1f}%  {frame}" for frame, n in own.most_common(top)]
    lines += ["with what they called:"]
    lines += [f"{100 * n / total:5.1f}%  {frame}" for frame, n in within.most_common(top * 2)]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--think", type=float, default=0.25)
    parser.add_argument("--profile", metavar="FILE", help="py-spy's raw samples, written here and summed")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    spy_tool = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    with tempfile.TemporaryDirectory() as folder:
        db = f"sqlite:///{folder}/profile.sqlite3"
        with server_process(db, None, None, BIRIBA, "--bot-workers", "1", *bench.ROOMY) as (url, process):
            seats, _ = asyncio.run(bench.make_tables(url, args.tables, 0, 0))
            before = bench.tree_cpu(process.pid)
            spy = None
            if args.profile:
                command = [spy_tool, "record", "-p", str(process.pid), "-d", str(int(args.seconds)), "-r", "250"]
                command += ["-f", "raw", "-o", args.profile, "--nonblocking", "--gil"]
                spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            figures = asyncio.run(played(url, seats, args.seconds, args.think))
            used = bench.tree_cpu(process.pid) - before
            if spy is not None:
                spy.wait()
    shown = {key: figures[key] for key in ("actions", "actions_per_s", "round_trip_ms_p50", "round_trip_ms_p99")}
    print({**shown, "servers_cpu_s_per_1000": round(used * 1000 / max(1, figures["actions"]), 2)})
    if args.profile:
        print(summed(Path(args.profile), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
