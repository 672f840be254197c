"""The engine's shared caches under one registry: their sizes, a budget, and a way to clear them.

The engine remembers the melds and adds it has listed (:mod:`biriba.melds.memo`),
numbers each meld and add once in shared tables, and makes each action
once: that is what makes search fast.  Left alone, those grow toward every
meld the cards allow (hundreds of megabytes over every preset), which a
server running for weeks cannot afford.  So every such cache registers
here: :func:`stats` counts their entries, :func:`clear` empties them all at
once (they hold each other's numbers, so they go together), and
:func:`trim` does so when their total passes the budget.

Clearing is for a moment when no listing is under way in another thread:
a single-threaded program (simulations, a bot worker) calls :func:`trim`
between decisions or deals; the web server calls it from its event loop
when no engine work runs in a thread.  A cleared cache fills again as play
goes on; nothing but speed depends on it.

>>> from biriba import Deal
>>> deal = Deal.shuffled(seed=4)
>>> _ = list(deal.legal_actions())
>>> clear()
>>> sum(stats().values())
0
>>> len(list(deal.legal_actions())) > 0
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from threading import Lock

#: The entries the registered caches may hold in all before :func:`trim` clears them.  Measured over
#: 12,000 random deals of every preset (``benchmarks/cache_memory.py``): left alone the caches reach
#: 615,000 entries and the process 459 MB; trimmed at 200,000 they are cleared every thousand deals
#: or so and the process stays between 113 and 142 MB.  Since the general enumerator's lists count by their
#: melds, 2,000 of those deals clear them three times, not once, and end at 75 MB, not 111.
DEFAULT_BUDGET = 200_000


@dataclass(frozen=True)
class _Cache:
    entries: Callable[[], int]
    clear: Callable[[], None]


_CACHES: dict[str, _Cache] = {}
_LOCK = Lock()
_budget = DEFAULT_BUDGET
_clears = 0


def register(name: str, entries: Callable[[], int], clear: Callable[[], None]) -> None:
    """Add a cache: how to count its entries, and how to empty it."""
    _CACHES[name] = _Cache(entries, clear)


def stats() -> dict[str, int]:
    """Each registered cache's entries."""
    return {name: cache.entries() for name, cache in _CACHES.items()}


def total() -> int:
    return sum(cache.entries() for cache in _CACHES.values())


def clear() -> None:
    """Empty every cache at once (not while a listing is under way in another thread)."""
    global _clears
    with _LOCK:
        for cache in _CACHES.values():
            cache.clear()
        _clears += 1


def clears() -> int:
    """How many times the caches were cleared, by :func:`clear` or :func:`trim`."""
    return _clears


def set_budget(entries: int) -> None:
    global _budget
    if entries < 1:
        raise ValueError("a cache budget is at least one entry")
    _budget = entries


def budget() -> int:
    return _budget


def trim() -> bool:
    """Clear the caches if their entries pass the budget; True if they were cleared."""
    if total() <= _budget:
        return False
    clear()
    return True
