"""Remembered enumerations: the meld and add lists, keyed by the part of the hand they read.

A hand changes by a card or two between decisions, so search and self-play
mostly ask for lists already made.  A run reads one suit's naturals, a set
one rank's cards, and both the hand's usable wilds; the enumerators key
their lists on exactly those (see :mod:`.classic` and :mod:`.general`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import itemgetter
from threading import Lock
from typing import Any, Final, Generic, TypeVar

from .types import RUN_CODES

T = TypeVar("T")

#: The hand's count of each natural card of a suit, ace to king: all a run reads.
SUIT_COUNTS: Final = tuple(itemgetter(*RUN_CODES[suit][:13]) for suit in range(4))
#: The hand's count of each card of a rank: all a set reads.
RANK_COUNTS: Final = tuple(itemgetter(*range(rank * 4, rank * 4 + 4)) for rank in range(13))
#: A memo that reaches this many entries starts afresh.
MEMO_LIMIT: Final = 100_000


def _probe() -> None:
    """A function whose type tells whether the engine runs compiled."""


#: Is the engine compiled (``make fast``)?  A few hot loops are written one way for each: a compiled loop
#: is quicker than ``compress`` and its kind, which are quicker interpreted.
NATIVE: Final = not hasattr(_probe, "__code__")
_NATURALS: Final = range(52)
#: Bits a card kind takes in a hand's keys: room for 15 copies (the rules allow at most 15 packs).
KEY_BITS: Final = 4
#: A hand's keys: each suit's naturals, the part its runs read, then each rank's cards, the part its sets read.
HAND_KEYS: Final = 17
#: What one natural card of each kind adds to its suit's key and to its rank's key.
SUIT_UNITS: Final = tuple(1 << (KEY_BITS * (code >> 2)) for code in range(52))
RANK_UNITS: Final = tuple(1 << (KEY_BITS * (code & 3)) for code in range(52))
_PAIR_TOTALS: Final = bytes((key & 15) + (key >> 4) for key in range(256))
#: ``RANK_TOTALS[key]``: the cards of a rank in hand, from the rank's key.
RANK_TOTALS: Final = bytes(high + low for high in _PAIR_TOTALS for low in _PAIR_TOTALS)


def hand_keys(counts: Sequence[int]) -> list[int]:
    """The hand as :data:`HAND_KEYS` small integers, :data:`KEY_BITS` bits a card kind.

    Keys 0..3 hold each suit's natural cards, ace to king, and keys 4..16 each
    rank's cards, spades to clubs: the part a suit's runs or a rank's sets
    read, so the memo keys are small integers.  A deal keeps them as its
    cards move (:attr:`biriba.state.DealState.hand_keys`).
    """
    keys = [0] * HAND_KEYS
    held = _NATURALS if NATIVE else compress(_NATURALS, counts)  # interpreted, only the kinds held
    for code in held:
        n = counts[code]
        if n:
            count_in(keys, code, n)
    return keys


def count_in(keys: list[int], card: int, n: int) -> None:
    """Count ``n`` more of ``card`` in a hand's keys (:func:`hand_keys`), as a deal does when cards move."""
    if card < 52:  # a natural: the joker (52) is in no key
        suit, rank = card & 3, 4 + (card >> 2)  # written out, not +=: compiled, that is Python's generic addition
        keys[suit] = keys[suit] + n * SUIT_UNITS[card]
        keys[rank] = keys[rank] + n * RANK_UNITS[card]


class Memos:
    """Memos split by what was asked besides the hand, under one limit: at ``MEMO_LIMIT`` entries, all start afresh.

    ``tables`` holds, under each question, the dict (or dicts) keyed by the
    part of the hand read; a dict whose key is one integer is looked up
    faster than one dict keyed by tuples of both.
    """

    def __init__(self) -> None:
        self.tables: dict[Any, Any] = {}
        self.size = 0

    def keep(self, memo: dict[Any, T], key: object, found: T) -> T:
        """Remember ``found`` in ``memo`` (one of :attr:`tables`) under ``key``."""
        if self.size >= MEMO_LIMIT:
            self.tables.clear()  # a dict a caller holds fills on for the listing under way, then goes
            self.size = 0
        memo[key] = found
        self.size += 1
        return found

    def clear(self) -> None:
        self.tables.clear()
        self.size = 0


class Numbered(Generic[T]):
    """Values told apart by number, each made once, so that a remembered list of them is a flat tuple of numbers.

    Python's collector stops watching a tuple of numbers the first time it
    looks at it, but never one that holds tuples it still watches, and it
    walks every watched tuple at each full collection: remembered lists of
    melds made those collections the slowest moments of a search, and
    making each list's melds anew was most of a miss's cost.

    A table grows to the melds and adds play has met, at most every one the
    cards allow (after 3,000 random classic deals some 75,000 adds); the
    registry of caches (:mod:`biriba.caches`) clears it with the memos that
    hold its numbers, at a moment when no listing is under way.
    """

    __slots__ = ("_lock", "numbers", "values")

    def __init__(self) -> None:
        self.values: list[T] = []
        self.numbers: dict[Any, int] = {}
        self._lock = Lock()

    def add(self, key: object, value: T) -> int:
        """Number ``value``, known by ``key``: look the key up in :attr:`numbers` first.

        Bots think in threads at a web table: the number is given under a
        lock, and published only once its value is in :attr:`values`.
        """
        with self._lock:
            number = self.numbers.get(key)
            if number is None:
                self.values.append(value)
                number = self.numbers[key] = len(self.values) - 1
            return number

    def clear(self) -> None:
        with self._lock:
            self.values = []
            self.numbers = {}


def remember(memo: dict[tuple[object, ...], T], key: tuple[object, ...], found: T) -> T:
    """Keep ``found`` under ``key``; a memo that reaches ``MEMO_LIMIT`` entries starts afresh."""
    if len(memo) >= MEMO_LIMIT:
        memo.clear()
    memo[key] = found
    return found
