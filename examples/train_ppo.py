"""Train a Biriba policy with sb3-contrib's MaskablePPO, on the CPU (``pip install 'biriba[rl,train]'``).

The agent plays seat 0 of the Gymnasium environment ``biriba/Biriba-v0``
(one deal an episode, its team's points less the other team's, in
thousands, at the end), first against random bots and then against greedy
ones, with the legal-step mask.  It writes, into ``--out``:

- ``policy.zip``: the trained policy, which ``biriba tournament
  policy:OUT/policy.zip greedy`` plays (the bot kind ``policy:PATH``);
- ``curve.png``: the learning curve, the mean episode reward over the last
  hundred deals against the number of steps, a line per phase;
- ``training.json``: the steps, the seconds and the curve's points.

    python examples/train_ppo.py --steps 200000 --out runs/ppo
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import gymnasium
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor

import biriba.envs  # registers biriba/Biriba-v0


class Curve(BaseCallback):
    """The mean reward of the last hundred finished deals, every few episodes."""

    def __init__(self, phase: str, offset: int, points: list[dict[str, Any]]) -> None:
        super().__init__()
        self.phase, self.offset, self.points = phase, offset, points
        self.rewards: list[float] = []

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []):
            episode = info.get("episode")
            if episode:
                self.rewards.append(float(episode["r"]))
                if len(self.rewards) % 20 == 0:
                    last = self.rewards[-100:]
                    steps = self.offset + self.num_timesteps
                    self.points.append({"phase": self.phase, "steps": steps, "reward": sum(last) / len(last)})
        return True


def make_env(opponents: str, seed: int) -> gymnasium.Env[Any, Any]:
    env = gymnasium.make(biriba.envs.GYMNASIUM_ID, opponents=opponents, seat=0)
    env.reset(seed=seed)
    return Monitor(env)


def plot_curve(points: list[dict[str, Any]], path: Path) -> None:
    """The learning curve: a line per phase, the mean reward of the last hundred deals against the steps."""
    figure, axes = plt.subplots(figsize=(7, 4))
    for phase in ("random", "greedy"):
        mine = [p for p in points if p["phase"] == phase]
        axes.plot([p["steps"] for p in mine], [p["reward"] for p in mine], label=f"against {phase} bots")
    axes.axhline(0, color="grey", linewidth=0.5)
    axes.set_xlabel("environment steps")
    axes.set_ylabel("mean reward, last 100 deals (thousands of points)")
    axes.set_title("MaskablePPO on biriba/Biriba-v0 (classic)")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def train(steps: int, out: Path, seed: int = 0) -> dict[str, Any]:
    """Half the steps against random bots, half against greedy ones; returns what training.json holds."""
    out.mkdir(parents=True, exist_ok=True)
    points: list[dict[str, Any]] = []
    started = time.perf_counter()
    model = MaskablePPO("MlpPolicy", make_env("random", seed), seed=seed, n_steps=512, batch_size=128, verbose=0)
    half = steps // 2
    model.learn(half, callback=Curve("random", 0, points))
    model.set_env(make_env("greedy", seed + 1))
    model.learn(steps - half, callback=Curve("greedy", 0, points), reset_num_timesteps=False)  # counts on
    seconds = time.perf_counter() - started
    model.save(out / "policy.zip")
    plot_curve(points, out / "curve.png")
    summary = {"steps": steps, "seconds": seconds, "curve": points}
    (out / "training.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200_000, help="environment steps in all (default: 200000)")
    parser.add_argument("--out", type=Path, default=Path("runs/ppo"), help="where to write (default: runs/ppo)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    summary = train(args.steps, args.out, args.seed)
    print(f"{summary['steps']} steps in {summary['seconds']:.0f} s; wrote {args.out}/policy.zip and curve.png")


if __name__ == "__main__":
    main()
