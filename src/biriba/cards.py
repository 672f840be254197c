"""Cards: integer codes inside, notation outside.

A card kind is a small integer, ``code = rank * 4 + suit``, with ranks
``A 2 3 .. K`` numbered 0..12 and suits ``S H D C`` numbered 0..3; the joker
is 52.  Sorting codes therefore gives the canonical hand order of the
notation (rank, then suit, jokers last).  Identical copies are not told
apart: hands, piles and melds are multisets, held as *count arrays* of
length :data:`KINDS` (``counts[code]`` = copies held).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain, compress, repeat
from typing import Final

from .errors import NotationError

SUITS = "SHDC"
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = "♠♥♦♣"
JOKER = 52
KINDS: Final = 53

NAMES: tuple[str, ...] = (*tuple(r + s for r in RANKS for s in SUITS), "JK")

_PARSE: dict[str, int] = {}
for _code, _name in enumerate(NAMES):
    _PARSE[_name] = _code
    if _code != JOKER:
        _r, _s = _name[0], _name[1]
        _PARSE[_r + SUIT_SYMBOLS[SUITS.index(_s)]] = _code
        if _r == "T":
            _PARSE["10" + _s] = _code
            _PARSE["10" + SUIT_SYMBOLS[SUITS.index(_s)]] = _code


def card_code(rank: int, suit: int) -> int:
    """The code of the card of rank index ``rank`` (0 = ace) and ``suit``."""
    return rank * 4 + suit


def rank_of(code: int) -> int:
    """Rank index 0..12 (A..K); 13 for the joker."""
    return code >> 2


def suit_of(code: int) -> int:
    """Suit index 0..3; meaningless for the joker."""
    return code & 3


def is_two(code: int) -> bool:
    return 4 <= code <= 7


def card_name(code: int) -> str:
    """Canonical notation of one card: ``7H``, ``TS``, ``JK``."""
    return NAMES[code]


def parse_card(text: str) -> int:
    """Parse one card; accepts ``10`` for ``T``, lower case and suit symbols.

    >>> parse_card("TH"), parse_card("10h"), parse_card("10♥"), parse_card("JK")
    (37, 37, 37, 52)
    >>> card_name(parse_card("q♠"))
    'QS'
    """
    key = text.strip().upper()
    code = _PARSE.get(key)
    if code is None:
        shown = text if len(text) <= 12 else text[:12] + "..."
        raise NotationError(f"{shown!r} is not a card: write rank A 2-9 T J Q K then suit S H D C, or JK")
    return code


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse a space-separated string or an iterable of card names."""
    items = text.split() if isinstance(text, str) else list(text)
    return [parse_card(item) for item in items]


def format_cards(codes: Iterable[int]) -> str:
    return " ".join(NAMES[c] for c in codes)


def counts_of(codes: Iterable[int]) -> list[int]:
    """The count array of a multiset of codes."""
    counts = [0] * KINDS
    for c in codes:
        counts[c] += 1
    return counts


def cards_of(counts: Sequence[int]) -> list[int]:
    """The sorted codes of a count array (canonical hand order).

    Every view reads its hand through this, so the common case of no kind
    held twice takes one pass in C over the kinds held.
    """
    codes = list(compress(range(len(counts)), counts))
    if len(codes) == sum(counts):
        return codes
    return list(chain.from_iterable(map(repeat, codes, map(counts.__getitem__, codes))))


def deck_counts(packs: int, jokers: int) -> list[int]:
    """How many copies of each kind a deck of ``packs`` packs and ``jokers`` holds."""
    counts = [packs] * KINDS
    counts[JOKER] = jokers
    return counts


def full_deck(packs: int = 2, jokers: int = 4) -> list[int]:
    """Every card of a deck of ``packs`` packs and ``jokers`` jokers, in canonical order."""
    return cards_of(deck_counts(packs, jokers))


class Card(int):
    """A card kind as a readable value: an ``int`` code that prints as notation.

    ``Card.parse("10h") == Card(37)`` and ``str(Card(37)) == "TH"``.  The
    engine works on plain codes; :class:`Card` is for code outside it.
    """

    __slots__ = ()

    @classmethod
    def parse(cls, text: str) -> Card:
        return cls(parse_card(text))

    @property
    def rank(self) -> int:
        return rank_of(self)

    @property
    def suit(self) -> int:
        return suit_of(self)

    @property
    def is_joker(self) -> bool:
        return self == JOKER

    def __str__(self) -> str:
        return NAMES[self]

    def __repr__(self) -> str:
        return f"Card({NAMES[self]!r})"
