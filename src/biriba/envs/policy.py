"""A trained policy as a Biriba bot: the bot kind ``policy:PATH`` (the ``train`` extra).

``PATH`` is a policy saved by sb3-contrib's ``MaskablePPO`` (what
``examples/train_ppo.py`` writes).  The bot builds its action a step at a
time, as the Gymnasium environment does: the observation of its view and
the steps so far, the policy's most likely step among the legal ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..actions import Action
from ..views import PlayerView
from .encoding import ACTIONS, TurnSteps
from .observation import observe

#: Policies loaded, by path and modification time: a tournament makes a bot for every game.
_LOADED: dict[tuple[str, float], Any] = {}


def load_policy(path: str | Path) -> Any:
    """The ``MaskablePPO`` saved at ``path``, loaded once (on the CPU, one thread: a small network per step)."""
    import torch
    from sb3_contrib import MaskablePPO

    if not Path(path).exists():
        raise ValueError(f"no saved policy at {path}")
    key = (str(Path(path).resolve()), Path(path).stat().st_mtime)
    if key not in _LOADED:
        torch.set_num_threads(1)
        _LOADED[key] = MaskablePPO.load(str(path), device="cpu")
    return _LOADED[key]


class PolicyPlayer:
    """Plays a saved ``MaskablePPO`` policy; ``deterministic`` takes its likeliest step, else it samples."""

    def __init__(self, path: str | Path, deterministic: bool = True) -> None:
        self.model = load_policy(path)
        self.deterministic = deterministic
        self.name = f"policy:{path}"

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        turn = TurnSteps(legal)
        while True:
            steps = turn.legal_steps()
            if len(steps) == 1:
                step = steps[0]
            else:
                mask = np.zeros(ACTIONS, dtype=bool)
                mask[steps] = True
                chosen, _ = self.model.predict(observe(view, turn), action_masks=mask, deterministic=self.deterministic)
                step = int(chosen)
            action = turn.push(step)
            if action is not None:
                return action


def policy_bot(seed: int | str | None, options: str = "", think_ms: float | None = None) -> PolicyPlayer:
    """The ``policy`` bot kind: ``policy:PATH`` plays the policy saved at PATH."""
    if not options:
        raise ValueError("policy:PATH names a saved policy, e.g. policy:runs/ppo/policy.zip")
    return PolicyPlayer(options)
