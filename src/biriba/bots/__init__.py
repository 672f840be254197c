"""Bots: players that see only a :class:`~biriba.views.PlayerView` and the legal actions.

``make_bot("greedy", seed=1)`` builds one by kind; :data:`BOT_KINDS` lists them.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .greedy import GreedyBot
from .random_bot import RandomBot

BOT_KINDS: dict[str, Callable[[int | str | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
}


def make_bot(kind: str, seed: int | str | None = None) -> Bot:
    """A bot of the named kind; raises ``ValueError`` naming the known kinds."""
    try:
        factory = BOT_KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown bot kind {kind!r}; known: {', '.join(sorted(BOT_KINDS))}") from None
    return factory(seed)


__all__ = ["BOT_KINDS", "Bot", "GreedyBot", "RandomBot", "make_bot"]
