"""Coverage-guided fuzzing of the parsers with atheris: ``make fuzz`` (docs/reliability.md).

``python fuzz/fuzz.py --seconds 600`` runs every target of ``fuzz/targets.py``
for ten minutes each, one after another, each in its own process; its
corpus grows in ``.fuzz/corpus/<target>`` (seeded from the tests' data) and
a finding is written to ``.fuzz/findings/<target>``.  The summary, as JSON,
goes to ``.fuzz/summary.json``; the exit status is 1 if anything was found.

``python fuzz/fuzz.py --one TARGET [libFuzzer flags]`` is the harness
itself, as atheris runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = ("notation", "position", "record", "options", "protocol")


def harness(target: str, flags: list[str]) -> None:
    """Run one target under atheris, its Python code (the project's included) instrumented for coverage."""
    import atheris

    sys.path.insert(0, str(HERE))
    with atheris.instrument_imports(include=["biriba", "targets"]):
        import targets

        if target == "protocol":
            import biriba.server.connection  # noqa: F401  (instrumented too: the protocol's reader lives there)
    test = targets.TARGETS[target]
    atheris.Setup([sys.argv[0], *flags], test)
    atheris.Fuzz()


def run(target: str, seconds: int, work: Path, runs: int = 0, seed: int = 0) -> dict[str, object]:
    """Fuzz ``target`` for ``seconds`` in a child process; what it ran, covered and found.

    ``runs`` inputs at most and a fixed ``seed`` (0: libFuzzer picks one) make a run repeatable, as
    ``make test`` needs: the same inputs every time, whatever the machine's speed.
    """
    sys.path.insert(0, str(HERE))
    import seeds

    corpus, findings = work / "corpus" / target, work / "findings" / target
    if not corpus.exists() or not any(corpus.iterdir()):
        seeds.write(work / "corpus")
    findings.mkdir(parents=True, exist_ok=True)
    flags = [
        f"-max_total_time={seconds}",
        f"-runs={runs or -1}",
        f"-seed={seed}",
        "-max_len=65536",
        "-timeout=20",
        "-rss_limit_mb=4096",
        f"-artifact_prefix={findings}/",
        "-print_final_stats=1",
        str(corpus),
    ]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, __file__, "--one", target, *flags], capture_output=True, text=True, check=False
    )
    log = done.stdout + done.stderr
    (work / f"{target}.log").write_text(log)
    stats = dict(re.findall(r"stat::(\w+):\s*(\d+)", log))
    last = re.findall(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)", log)
    found = sorted(str(p) for p in findings.iterdir())
    return {
        "target": target,
        "seconds": round(time.monotonic() - started, 1),
        "runs": int(stats.get("number_of_executed_units", last[-1][0] if last else 0)),
        "runs_per_s": int(stats.get("average_exec_per_sec", 0)),
        "coverage": int(last[-1][1]) if last else 0,
        "features": int(last[-1][2]) if last else 0,
        "corpus": len(list(corpus.iterdir())),
        "exit": done.returncode,
        "findings": found,
    }


def traceback_in(log: Path, lines: int = 30) -> list[str]:
    """Atheris's traceback of what a target found, else the end of its log (a timeout, memory)."""
    text = log.read_text(errors="replace").splitlines()
    starts = [i for i, line in enumerate(text) if "Uncaught Python exception" in line]
    return text[starts[0] : starts[0] + lines] if starts else text[-lines:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help=f"targets to fuzz (default: all of {', '.join(NAMES)})")
    parser.add_argument("--seconds", type=int, default=60, help="time per target (default: %(default)s)")
    parser.add_argument("--work", default=".fuzz", help="corpus, findings and logs (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=0, help="inputs per target at most (default: no limit)")
    parser.add_argument("--seed", type=int, default=0, help="libFuzzer's seed, for a repeatable run (default: random)")
    if sys.argv[1:2] == ["--one"]:  # the child process: the target, then libFuzzer's own flags and corpus
        harness(sys.argv[2], sys.argv[3:])
        return 0
    args = parser.parse_args()
    unknown = set(args.targets) - set(NAMES)
    if unknown:
        parser.error(f"no target {', '.join(sorted(unknown))}; the targets: {', '.join(NAMES)}")
    work = Path(args.work)
    work.mkdir(exist_ok=True)
    results = []
    for target in args.targets or NAMES:
        result = run(target, args.seconds, work, args.runs, args.seed)
        results.append(result)
        print(
            f"{target:9} {result['seconds']:7.1f} s {result['runs']:>10,} runs ({result['runs_per_s']}/s)"
            f"  cov {result['coverage']}  corpus {result['corpus']}  findings {len(result['findings'])}",  # type: ignore[arg-type]
            flush=True,
        )
        if result["findings"] or result["exit"]:  # what a CI log needs to reproduce it: the input and the traceback
            for found in result["findings"]:  # type: ignore[attr-defined]
                print(f"  found {found}: {Path(found).read_bytes()[:400]!r}")
            print(*traceback_in(work / f"{target}.log"), sep="\n  ")
    (work / "summary.json").write_text(json.dumps(results, indent=1))
    return 1 if any(r["findings"] or r["exit"] not in (0,) for r in results) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
