"""Bots: players that see only a :class:`~biriba.views.PlayerView` and the legal actions.

``make_bot("greedy", seed=1)`` builds one by kind; :data:`BOT_KINDS` lists
the project's own.  Other kinds come from installed packages, as entry
points in the group ``biriba.bots`` (:func:`plugin_kinds`): biriba's ``rl``
extra brings ``openspiel-ismcts`` (OpenSpiel's IS-MCTS), and anyone's
package can bring a bot to the table the same way, without the engine
importing it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from importlib.metadata import EntryPoint, PackageNotFoundError, entry_points, version

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


#: The entry-point group of bot kinds from other packages: ``name = "module:factory"``, where
#: ``factory(seed, options, think_ms)`` makes the bot (``options``: what follows the kind's colon, or "").
PLUGIN_GROUP = "biriba.bots"


@functools.cache
def plugin_kinds() -> dict[str, EntryPoint]:
    """The bot kinds installed packages provide, by name: those whose extras are installed too.

    An entry point may name the extras it needs (``module:factory [rl]``, as
    biriba's own do): a kind whose extra is missing is not offered, rather
    than offered and then failing to import.  Read once a process (a server's
    workers make a bot for every decision); do not change the dict returned.
    """
    return {point.name: point for point in entry_points(group=PLUGIN_GROUP) if _extras_installed(point)}


def missing_extras(kind: str) -> list[str]:
    """The extras of biriba (or of the package that declares the kind) a known but uninstalled kind needs."""
    name = kind.partition(":")[0]
    for point in entry_points(group=PLUGIN_GROUP):
        if point.name == name and not _extras_installed(point):
            return list(point.extras)
    return []


def _extras_installed(point: EntryPoint) -> bool:
    """Is every requirement of the extras ``point`` names installed?  (Read from metadata: nothing imported.)"""
    if not point.extras or point.dist is None:
        return True
    for requirement in point.dist.requires or ():
        name, _, marker = requirement.partition(";")
        if any(f'extra == "{extra}"' in marker.replace("'", '"') for extra in point.extras):
            try:
                version(re.split(r"[\s\[<>=!~(]", name.strip(), maxsplit=1)[0])
            except PackageNotFoundError:
                return False
    return True


def bot_settings(options: str) -> dict[str, int | float]:
    """A kind's settings after its colon, ``samples=64,think_ms=500``, as numbers (``ValueError`` if not)."""
    settings: dict[str, int | float] = {}
    for item in filter(None, options.split(",")):
        key, _, value = item.partition("=")
        try:
            settings[key.strip()] = int(value)
        except ValueError:
            settings[key.strip()] = float(value)
    return settings


def known_kinds() -> list[str]:
    """Every bot kind that can be made here: the project's own, then the installed plugins'."""
    return [*BOT_KINDS, *sorted(set(plugin_kinds()) - set(BOT_KINDS))]


def make_bot(kind: str, seed: int | str | None = None, think_ms: float | None = None) -> Bot:
    """A bot of the named kind; raises ``ValueError`` naming the known kinds.

    ``think_ms`` bounds a search bot's time per decision; without it the
    search's work is fixed, so that a seed fixes every choice.  A plugin's
    kind may carry options after a colon (``openspiel-ismcts:simulations=50``).
    """
    factory = BOT_KINDS.get(kind)
    if factory is None:
        name, _, options = kind.partition(":")
        point = plugin_kinds().get(name)
        if point is None:
            raise ValueError(f"unknown bot kind {kind!r}; known: {', '.join(sorted(known_kinds()))}")
        made: Bot = point.load()(seed, options, think_ms)
        return made
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
    "PLUGIN_GROUP",
    "TABLE_THINK_MS",
    "Bot",
    "EasyBot",
    "GreedyBot",
    "RandomBot",
    "SearchBot",
    "bot_settings",
    "known_kinds",
    "make_bot",
    "plugin_kinds",
    "table_bot",
]
