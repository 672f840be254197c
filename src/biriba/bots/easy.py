"""The easy bot: the greedy bot's judgement with a beginner's slips, reproducible under a seed."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import Action
from ..views import PlayerView
from .base import derived_seed
from .greedy import GreedyBot

#: How often it plays one of its next few favourites instead of its best.
SLIP = 0.35


class EasyBot:
    """Plays greedy's choice most of the time, and one of its next few favourites otherwise."""

    name = "easy"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(derived_seed(seed, "slip"))
        self.greedy = GreedyBot(seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return self.greedy.choose(view, legal)  # which notes a forced take (DrawMemory)
        owed = self.greedy.owed_play(view, legal, self.greedy.draws)
        if owed is not None:
            return owed  # no slip here: it would only go round the loop again
        if self.rng.random() >= SLIP:
            return self.greedy.choose(view, legal)
        return self.rng.choice(self.greedy.ranked(view, legal)[1:4])
