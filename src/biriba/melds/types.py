"""The meld value types, and what a meld is worth (R6..R11, R26).

A run is stored by *position*: positions 1..14 of its suit, where 1 is the
ace played low, 2 the suit's two, .. 13 the king and 14 the ace played high.
Every position from ``lo`` to ``hi`` holds the suit's natural card except the
positions listed in ``wilds``, as ``(position, card)`` pairs.  A two of the
run's suit at position 2 is therefore simply a natural (R9).  A 13-card run is
always stored ace-low, positions 1..13 (R8).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Final, NamedTuple

from ..cards import NAMES, format_cards
from ..rules import Rules, SetBiribas

POS_CODE: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(((p - 1) % 13) * 4 + s if 1 <= p <= 14 else -1 for p in range(16)) for s in range(4)
)
#: ``RUN_CODES[suit]``: the natural cards of positions 1..14.
RUN_CODES: Final[tuple[tuple[int, ...], ...]] = tuple(POS_CODE[s][1:15] for s in range(4))
#: Natural ranks that may form a set: every rank but the two (R7), unless twos are not wild.
SET_RANKS: Final = (0, *range(2, 13))
ALL_RANKS: Final = tuple(range(13))
NO_SLOT: Final = -1
#: The cards and slots of a ``meld`` action.
Placement = tuple[tuple[int, ...], tuple[int, ...]]
#: A meld's fields as a plain tuple, what :func:`tuple` gives of a :class:`RunMeld` or :class:`SetMeld`:
#: the garbage collector lets go of it, never of a named tuple, so the memos keep melds this way.
Fields = tuple[Any, ...]
#: A suit's runs or a rank's sets, as the numbers of the melds in :mod:`.classic`'s table.
Group = tuple[int, ...]
#: An add with its resulting meld's fields: ``(cards, slots, end, fields)``.
PlainAdd = tuple[tuple[int, ...], tuple[int, ...], str | None, Fields]


def format_placed(cards: Sequence[int], slots: Sequence[int]) -> str:
    """Cards with their wild slots: ``3H 4H JK=5H``."""
    return " ".join(NAMES[c] if s < 0 else f"{NAMES[c]}={NAMES[s]}" for c, s in zip(cards, slots))


class RunMeld(NamedTuple):
    """A run of one suit, positions ``lo..hi`` (see the module docstring)."""

    suit: int
    lo: int
    hi: int
    wilds: tuple[tuple[int, int], ...] = ()

    @property
    def kind(self) -> str:
        return "run"

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1

    @property
    def clean(self) -> bool:
        return not self.wilds

    def cards(self) -> tuple[int, ...]:
        """The cards low to high, wilds in their slots."""
        codes = POS_CODE[self.suit]
        out = list(codes[self.lo : self.hi + 1])
        for position, card in self.wilds:
            out[position - self.lo] = card
        return tuple(out)

    def slots(self) -> tuple[int, ...]:
        """Parallel to :meth:`cards`: the slot (card code) of each wild, else -1."""
        out = [NO_SLOT] * self.size
        codes = POS_CODE[self.suit]
        for position, _card in self.wilds:
            out[position - self.lo] = codes[position]
        return tuple(out)

    def text(self) -> str:
        return format_placed(self.cards(), self.slots())


class SetMeld(NamedTuple):
    """A set of one natural rank: its naturals (sorted codes) and its wilds."""

    rank: int
    naturals: tuple[int, ...]
    wilds: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        return "set"

    @property
    def size(self) -> int:
        return len(self.naturals) + len(self.wilds)

    @property
    def clean(self) -> bool:
        return not self.wilds

    def cards(self) -> tuple[int, ...]:
        """Naturals in suit order, then the wilds."""
        return self.naturals + self.wilds

    def slots(self) -> tuple[int, ...]:
        return (NO_SLOT,) * self.size

    def text(self) -> str:
        return format_cards(self.cards())


class WildMeld(NamedTuple):
    """A meld of wilds only: the wild-card biriba of seed 002's three-handed game."""

    wilds: tuple[int, ...]

    @property
    def kind(self) -> str:
        return "wild"

    @property
    def size(self) -> int:
        return len(self.wilds)

    @property
    def clean(self) -> bool:
        return True

    def cards(self) -> tuple[int, ...]:
        return self.wilds

    def slots(self) -> tuple[int, ...]:
        return (NO_SLOT,) * len(self.wilds)

    def text(self) -> str:
        return format_cards(self.wilds)


Meld = RunMeld | SetMeld | WildMeld


class AddOption(NamedTuple):
    """One distinct way to add cards to a meld: what goes on and what results."""

    cards: tuple[int, ...]  # hand cards added, canonical hand order
    slots: tuple[int, ...]  # parallel: slot of an added wild in a run, else -1
    end: str | None  # "low"/"high" when the add displaces the run's wild (R13)
    meld: Meld  # the meld after the add


def meld_value(meld: Meld, values: Sequence[int]) -> int:
    """Sum of the card values in a meld (R25): wilds count their own value."""
    return sum(values[c] for c in meld.cards())


def is_biriba(meld: Meld, rules: Rules) -> bool:
    """Does this meld count as a biriba, for the reserve, the closure and the bonus (R11)?"""
    if meld.size < rules.biriba_size:
        return False
    if isinstance(meld, SetMeld):
        return rules.set_biribas == SetBiribas.ALL or (rules.set_biribas == SetBiribas.ACES and meld.rank == 0)
    return True


def meld_bonus(meld: Meld, rules: Rules, trump: int = -1, in_hand: bool = False) -> int:
    """The bonus of one meld by its final state (R26); ``trump`` is the trump suit or -1.

    ``in_hand``: the meld was laid down a biriba in one action (seed 002's
    three-handed table pays more for that).
    """
    if not is_biriba(meld, rules):
        return 0
    if isinstance(meld, WildMeld):
        return rules.wild_meld_bonus.of(True, in_hand)
    if isinstance(meld, SetMeld):
        bonus = rules.ace_set_bonus if rules.ace_set_bonus and meld.rank == 0 else rules.set_bonus
        return bonus.of(meld.clean, in_hand)
    trumps = meld.suit == trump
    full = rules.trump_full_run_bonus if trumps and rules.trump_full_run_bonus else rules.full_run_bonus
    if meld.size == 13 and full is not None:
        return full.of(meld.clean, in_hand)
    long = rules.long_run_bonus is not None and meld.size >= rules.long_run_size
    bonus = (rules.long_run_bonus if long else None) or rules.run_bonus
    value = bonus.of(meld.clean, in_hand)
    if trumps and rules.trump_run_bonus:  # the better of the trump and the (super) run bonus (D24)
        value = max(value, rules.trump_run_bonus.of(meld.clean, in_hand))
    return value


def meld_state(meld: Meld, rules: Rules) -> str:
    """A short description for players: ``run``, ``clean biriba``, ``dirty 13-run``..."""
    if not is_biriba(meld, rules):
        return meld.kind
    if meld.kind == "wild":
        return "wild-card biriba"
    kind = "clean" if meld.clean else "dirty"
    if meld.kind == "run" and meld.size == 13:
        return f"{kind} 13-run"
    return f"{kind} biriba"


def normalize_run(run: RunMeld) -> RunMeld:
    """Write a 13-card run ace-low (R8)."""
    if run.hi == 14 and run.lo == 2:
        wilds = tuple(sorted(((1 if p == 14 else p), c) for p, c in run.wilds))
        return RunMeld(run.suit, 1, 13, wilds)
    return run


def set_ranks(rules: Rules) -> tuple[int, ...]:
    """Ranks that form sets: not the two while twos are wild (R7), none when sets are off (option sets)."""
    if not rules.sets:
        return ()
    return SET_RANKS if rules.twos_wild else ALL_RANKS


#: ``NO_SLOTS[n]``: the slots of ``n`` cards none of which is a run's wild.
NO_SLOTS: Final[tuple[tuple[int, ...], ...]] = tuple((NO_SLOT,) * n for n in range(110))


@lru_cache(maxsize=4096)
def one_slot(size: int, index: int, slot: int) -> tuple[int, ...]:
    """Slots of ``size`` cards where only the card at ``index`` is a wild, in ``slot``."""
    return (*NO_SLOTS[index], slot, *NO_SLOTS[size - index - 1])


@lru_cache(maxsize=4096)
def naturals_of(base: int, have: tuple[int, int, int, int]) -> tuple[tuple[int, ...], ...]:
    """Every non-empty sub-multiset of the cards ``base + suit``, ``have[suit]`` copies each."""
    subsets: list[tuple[int, ...]] = [()]
    for suit in range(4):  # the last suit's count varies fastest, as in itertools.product
        card = (base + suit,)
        subsets = [subset + card * n for subset in subsets for n in range(have[suit] + 1)]
    return tuple(subsets[1:])  # all but the empty one
