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
#: One line per kind, for the players who choose them (``biriba play --bots``).
BOT_HELP: dict[str, str] = {
    "random": "plays any legal action at random: a beginner's table",
    "greedy": "melds toward biribas, takes the pile when it pays, goes out when ahead",
}


def make_bot(kind: str, seed: int | str | None = None) -> Bot:
    """A bot of the named kind; raises ``ValueError`` naming the known kinds."""
    try:
        factory = BOT_KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown bot kind {kind!r}; known: {', '.join(sorted(BOT_KINDS))}") from None
    return factory(seed)


__all__ = ["BOT_HELP", "BOT_KINDS", "Bot", "GreedyBot", "RandomBot", "make_bot"]
