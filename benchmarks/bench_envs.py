"""Environment steps per second: Biriba's PettingZoo environment beside RLCard's and OpenSpiel's gin rummy.

Each is played by a uniform random policy over its legal actions, with an
observation each step, for the same number of seconds, run by run
interleaved (this machine is shared): ``biriba_v0.env()`` as users get it
(PettingZoo's wrappers included) and ``raw_env()`` bare; RLCard's
``gin-rummy`` environment (what PettingZoo's gin_rummy_v4 wrapped: its step
returns the next player's observation); OpenSpiel's C++ ``gin_rummy``,
asking for ``observation_tensor()`` each step.  Each loop runs on one
thread, so its rate is counted in the process's CPU seconds: what another
program takes of this shared machine's cores then slows no contender's
count.  Run alone with ``python benchmarks/bench_envs.py``; ``make bench``
runs it too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

Measure = Callable[[float, int], float]


def biriba_steps(seconds: float, seed: int, wrapped: bool = True) -> float:
    """Steps per CPU second, from the engine's caches emptied: the wrapped and bare runs play the same deals,
    and the second would otherwise find the first one's melds remembered."""
    from biriba import caches
    from biriba.envs import biriba_v0

    caches.clear()
    env = biriba_v0.env() if wrapped else biriba_v0.raw_env()
    rng = random.Random(seed)
    steps = episodes = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        env.reset(seed=seed * 100_003 + episodes)
        episodes += 1
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps / (time.process_time() - start)


def biriba_raw_steps(seconds: float, seed: int) -> float:
    return biriba_steps(seconds, seed, wrapped=False)


def rlcard_steps(seconds: float, seed: int) -> float:
    import rlcard  # type: ignore[import-not-found]

    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.randrange(len(legal))])  # the state holds the next observation
            steps += 1
    return steps / (time.process_time() - start)


def openspiel_steps(seconds: float, seed: int) -> float:
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = np.random.RandomState(seed)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=chances)))
                continue
            state.observation_tensor()
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])
            steps += 1
    return steps / (time.process_time() - start)


CONTENDERS: dict[str, Measure] = {
    "biriba_v0.env() (PettingZoo, wrapped)": biriba_steps,
    "biriba_v0.raw_env()": biriba_raw_steps,
    "RLCard gin-rummy": rlcard_steps,
    "OpenSpiel gin_rummy (C++)": openspiel_steps,
}


def measure(runs: int, seconds: float) -> dict[str, float | None]:
    """Median steps per second of each contender over ``runs`` interleaved runs (None: not installed)."""
    rates: dict[str, list[float]] = {name: [] for name in CONTENDERS}
    missing: set[str] = set()
    for run in range(runs):
        for name, contender in CONTENDERS.items():
            if name in missing:
                continue
            try:
                rates[name].append(contender(seconds, run))
            except ImportError:
                missing.add(name)
    return {name: statistics.median(r) if r else None for name, r in rates.items()}


def rows(runs: int, seconds: float, figures: dict[str, object]) -> list[tuple[str, str, str]]:
    """The table rows of ``make bench``, with the figures kept in ``figures["envs"]``."""
    found = measure(runs, seconds)
    figures["envs_steps_per_s"] = found
    ours = found["biriba_v0.env() (PettingZoo, wrapped)"] or 0.0
    out = []
    for name, rate in found.items():
        if rate is None:
            out.append((f"env steps: {name}", "not installed", "pip install 'biriba[rl,bench]'"))
        else:
            out.append(
                (f"env steps: {name}", f"{rate:,.0f} steps/CPU s", f"biriba_v0.env() / this = {ours / rate:.2f}x")
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    for name, rate in measure(args.runs, args.seconds).items():
        print(f"{name:40} {'not installed' if rate is None else f'{rate:,.0f} steps/CPU s'}")


if __name__ == "__main__":
    main()
