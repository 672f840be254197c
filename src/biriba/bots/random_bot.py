"""The random bot: a uniform choice among the legal actions, reproducible under a seed."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import Action
from ..views import PlayerView


class RandomBot:
    name = "random"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]
