"""What a bot is: something that picks one legal action from what its seat can see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..actions import Action
from ..views import PlayerView


class Bot(Protocol):
    """A player.  It never sees the deal itself, only its seat's view (no hidden cards)."""

    name: str

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """One of ``legal`` (the mover's legal actions, never empty)."""
        ...


def derived_seed(seed: int | str | None, part: str) -> str | None:
    """The seed of one of a bot's own random streams: distinct per part, and unseeded if the bot is."""
    return None if seed is None else f"{seed}/{part}"
