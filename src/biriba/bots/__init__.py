"""Bots: players that see only a :class:`~biriba.views.PlayerView` and the legal actions.

``make_bot("greedy", seed=1)`` builds one by kind; :data:`BOT_KINDS` lists them.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .easy import EasyBot
from .greedy import GreedyBot
from .random_bot import RandomBot
from .search import TABLE_THINK_MS, SearchBot

#: The bots players may choose, by kind.  The levels are easy, medium (greedy) and hard (search).
BOT_KINDS: dict[str, Callable[[int | str | None], Bot]] = {
    "random": RandomBot,
    "easy": EasyBot,
    "greedy": GreedyBot,
    "medium": GreedyBot,
    "hard": SearchBot,
}
#: One line per kind, for the players who choose them (``biriba play --bots``).
BOT_HELP: dict[str, str] = {
    "random": "plays any legal action at random: a table for learning the rules",
    "easy": "plays like greedy but slips about one move in three",
    "greedy": "medium: melds toward biribas, takes the pile when it pays, goes out when ahead",
    "medium": "the same as greedy",
    "hard": "searches: tries its best moves in deals dealt as it might be, and keeps the one that does best",
}


def make_bot(kind: str, seed: int | str | None = None, think_ms: float | None = None) -> Bot:
    """A bot of the named kind; raises ``ValueError`` naming the known kinds.

    ``think_ms`` bounds a search bot's time per decision; without it the
    search's work is fixed, so that a seed fixes every choice.
    """
    try:
        factory = BOT_KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown bot kind {kind!r}; known: {', '.join(sorted(BOT_KINDS))}") from None
    bot = factory(seed)
    if isinstance(bot, SearchBot):
        bot.think_ms = think_ms
    return bot


def table_bot(kind: str, seed: int | str | None = None, think_ms: float = TABLE_THINK_MS) -> Bot:
    """A bot of the named kind to play with people, terminal or web: a search bot's time is bounded."""
    return make_bot(kind, seed, think_ms)


__all__ = [
    "BOT_HELP",
    "BOT_KINDS",
    "TABLE_THINK_MS",
    "Bot",
    "EasyBot",
    "GreedyBot",
    "RandomBot",
    "SearchBot",
    "make_bot",
    "table_bot",
]
