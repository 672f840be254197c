"""Melds: sets and runs, their notation, and every legal way to make or extend one.

A run is stored by *position*: positions 1..14 of its suit, where 1 is the
ace played low, 2 the suit's two, .. 13 the king and 14 the ace played high.
Every position from ``lo`` to ``hi`` holds the suit's natural card except the
positions listed in ``wilds``, as ``(position, card)`` pairs.  A two of the
run's suit at position 2 is therefore simply a natural (R9).  A 13-card run is
always stored ace-low, positions 1..13 (R8).

The functions :func:`meld_options` and :func:`add_options` enumerate every
distinct meld or add a multiset of cards allows.  The engine lists legal
actions with them, and checks a typed action by enumerating with exactly the
action's cards (:func:`resolve_meld`, :func:`resolve_add`), so the list and the
check cannot disagree; :func:`explain_meld` and :func:`explain_add` only find
the words for a refusal.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations, product
from typing import NamedTuple

from .cards import JOKER, NAMES, RANKS, SUITS, card_name, counts_of, format_cards, is_two, parse_card, rank_of, suit_of
from .errors import IllegalActionError, NotationError
from .rules import Rules

#: ``POS_CODE[suit][position]``: the natural card at a run position (0 and 15 are -1).
POS_CODE: tuple[tuple[int, ...], ...] = tuple(
    tuple(((p - 1) % 13) * 4 + s if 1 <= p <= 14 else -1 for p in range(16)) for s in range(4)
)
#: ``RUN_CODES[suit]``: the natural cards of positions 1..14.
RUN_CODES: tuple[tuple[int, ...], ...] = tuple(POS_CODE[s][1:15] for s in range(4))
#: Natural ranks that may form a set: every rank but the two (R7), unless twos are not wild.
SET_RANKS = (0, *range(2, 13))
ALL_RANKS = tuple(range(13))
NO_SLOT = -1


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


# ---------------------------------------------------------------- notation
def format_placed(cards: Sequence[int], slots: Sequence[int]) -> str:
    """Cards with their wild slots: ``3H 4H JK=5H``."""
    return " ".join(NAMES[c] if s < 0 else f"{NAMES[c]}={NAMES[s]}" for c, s in zip(cards, slots))


def parse_placed(tokens: Sequence[str]) -> tuple[list[int], list[int]]:
    """Parse ``["JK=6H", "5H"]`` into cards and parallel slots (-1 for none)."""
    cards: list[int] = []
    slots: list[int] = []
    for token in tokens:
        card_text, sep, slot_text = token.partition("=")
        card = parse_card(card_text)
        slot = NO_SLOT
        if sep:
            slot = parse_card(slot_text)
            if slot == JOKER:
                raise NotationError(f"{token!r}: a slot is a natural card such as 6H, not JK")
            if card != JOKER and not is_two(card):
                raise NotationError(f"{token!r}: only a wild (a joker or a two) takes a slot")
        cards.append(card)
        slots.append(slot)
    return cards, slots


def meld_value(meld: Meld, values: Sequence[int]) -> int:
    """Sum of the card values in a meld (R25): wilds count their own value."""
    return sum(values[c] for c in meld.cards())


def is_biriba(meld: Meld, rules: Rules) -> bool:
    """Does this meld count as a biriba, for the reserve, the closure and the bonus (R11)?"""
    if meld.size < rules.biriba_size:
        return False
    if isinstance(meld, SetMeld):
        return rules.set_biribas == "all" or (rules.set_biribas == "aces" and meld.rank == 0)
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


# ------------------------------------------------------------ table melds
def parse_meld(tokens: Sequence[str] | str, rules: Rules) -> Meld:
    """Read a meld lying on the table (positions, records).

    Unlike a meld made from the hand, a table meld may hold a wild two of its
    own suit while rank 2 is free (R9: it keeps its slot until moved).
    """
    if isinstance(tokens, str):
        tokens = tokens.split()
    cards, slots = parse_placed(tokens)
    where = " ".join(tokens)
    errors: list[str] = []
    wild_kinds = rules.wild_kinds
    naturals = [c for c, s in zip(cards, slots) if s < 0 and c not in wild_kinds]
    if rules.wild_melds and not naturals and not any(s >= 0 for s in slots):
        if len(cards) < rules.min_meld:
            raise NotationError(f"{where!r} is not a meld: a meld has at least {rules.min_meld} cards")
        return WildMeld(tuple(sorted(cards)))
    if not any(s >= 0 for s in slots) and naturals and len({rank_of(c) for c in naturals}) == 1:
        try:
            return _table_set(cards, rules)
        except NotationError as exc:
            errors.append(str(exc))
    try:
        return _table_run(cards, slots, rules)
    except NotationError as exc:
        errors.append(str(exc))
    raise NotationError(f"{where!r} is not a meld: {errors[0]}")


def _table_set(cards: list[int], rules: Rules) -> SetMeld:
    if not rules.sets:
        raise NotationError("these rules meld runs only, no sets (option sets)")
    naturals = tuple(sorted(c for c in cards if c not in rules.wild_kinds))
    wilds = tuple(sorted(c for c in cards if c in rules.wild_kinds))
    if rank_of(naturals[0]) == 1 and rules.twos_wild:
        raise NotationError("there is no set of twos while twos are wild (R7)")
    if len(wilds) > rules.max_wilds(len(naturals)):
        raise NotationError(str(too_many_wilds(rules, "set", len(naturals), len(wilds))))
    if len(cards) < rules.min_meld:
        raise NotationError(f"a meld has at least {rules.min_meld} cards (R7)")
    return SetMeld(rank_of(naturals[0]), naturals, wilds)


def _table_run(cards: list[int], slots: list[int], rules: Rules) -> RunMeld:
    suits = {suit_of(s) for s in slots if s >= 0}
    suits |= {suit_of(c) for c, s in zip(cards, slots) if s < 0 and c != JOKER}
    if len(suits) != 1:
        raise NotationError("a run is of one suit (R8)")
    suit = suits.pop()
    fixed: list[tuple[int, int]] = []  # (rank, card): naturals and slotted wilds
    loose: list[int] = []  # wilds without a slot
    for card, slot in zip(cards, slots):
        if slot >= 0 and slot != card:
            fixed.append((rank_of(slot), card))
        elif slot >= 0:  # "2H=2H": the run's own two at rank 2 is natural
            fixed.append((rank_of(card), -1))
        elif card in rules.wild_kinds and (card == JOKER or suit_of(card) != suit):
            loose.append(card)
        else:
            fixed.append((rank_of(card), -1))
    ranks = [r for r, _ in fixed]
    if len(set(ranks)) != len(ranks):
        raise NotationError("a run holds each rank once (R8)")
    best: RunMeld | None = None
    for ace_pos in (1, 14):
        placed = {(ace_pos if r == 0 else r + 1): card for r, card in fixed}
        lo, hi = min(placed), max(placed)
        gaps = [p for p in range(lo, hi + 1) if p not in placed]
        if len(gaps) > len(loose) or hi - lo + 1 + len(loose) - len(gaps) > 13:
            continue
        for card in loose:  # R10: a gap, else the high end, else the low end
            if gaps:
                placed[gaps.pop()] = card
            elif hi < 14 and hi - lo < 12:
                hi += 1
                placed[hi] = card
            elif lo > 1 and hi - lo < 12:
                lo -= 1
                placed[lo] = card
            else:
                break
        else:
            lo, hi = min(placed), max(placed)
            wilds = tuple(sorted((p, c) for p, c in placed.items() if c >= 0))
            best = _normalize(RunMeld(suit, lo, hi, wilds))
            break
    if best is None:
        raise NotationError("the cards are not consecutive ranks of one suit (R8)")
    if any(c not in rules.wild_kinds for _, c in best.wilds):
        raise NotationError("twos are not wild under these rules (R6)")
    naturals = best.size - len(best.wilds)
    if len(best.wilds) > rules.max_wilds(naturals):
        raise NotationError(str(too_many_wilds(rules, "run", naturals, len(best.wilds))))
    if best.size < rules.min_meld:
        raise NotationError(f"a meld has at least {rules.min_meld} cards (R8)")
    return best


def _normalize(run: RunMeld) -> RunMeld:
    """Write a 13-card run ace-low (R8)."""
    if run.hi == 14 and run.lo == 2:
        wilds = tuple(sorted(((1 if p == 14 else p), c) for p, c in run.wilds))
        return RunMeld(run.suit, 1, 13, wilds)
    return run


# ------------------------------------------------------------- new melds
def meld_options(counts: Sequence[int], rules: Rules, wilds_ok: bool = True) -> Iterator[Meld]:
    """Every distinct meld that the multiset ``counts`` can lay down (R6..R10).

    ``wilds_ok=False`` keeps wilds out of sets and runs (seed 002's three-handed
    game, while a wild-card meld is unfinished).
    """
    wild_avail = [w for w in rules.wild_kinds if counts[w]] if wilds_ok else []
    if rules.wild_limit == "one":
        minimum = rules.min_meld
        for suit in range(4):
            for lo, hi, m, w in _run_spans(counts, suit, wild_avail, minimum):
                yield RunMeld(suit, lo, hi, ((m, w),) if m else ())
        for rank, naturals, w in _set_groups(counts, wild_avail, minimum, _set_ranks(rules)):
            yield SetMeld(rank, naturals, (w,) if w >= 0 else ())
    else:
        yield from _general_melds(counts, rules, wild_avail)
    if rules.wild_melds:
        for wilds in _wild_multisets(counts, rules.wild_kinds, rules.min_meld):
            yield WildMeld(wilds)


def meld_placements(
    counts: Sequence[int], rules: Rules, wilds_ok: bool = True
) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The same melds as :func:`meld_options`, as the cards and slots of a ``meld`` action.

    Built straight from the enumeration, without meld objects, in the common
    one-wild case: listing legal actions is the engine's hottest path.
    """
    if rules.wild_limit != "one" or rules.wild_melds:
        for meld in meld_options(counts, rules, wilds_ok):
            yield meld.cards(), meld.slots()
        return
    wild_avail = [w for w in rules.wild_kinds if counts[w]] if wilds_ok else []
    minimum = rules.min_meld
    for suit in range(4):
        codes = RUN_CODES[suit]
        for lo, hi, m, w in _run_spans(counts, suit, wild_avail, minimum):
            if m:
                cards = list(codes[lo - 1 : hi])
                cards[m - lo] = w
                yield tuple(cards), _one_slot(hi - lo + 1, m - lo, codes[m - 1])
            else:
                yield codes[lo - 1 : hi], NO_SLOTS[hi - lo + 1]
    for _rank, naturals, w in _set_groups(counts, wild_avail, minimum, _set_ranks(rules)):
        if w >= 0:
            yield (*naturals, w), NO_SLOTS[len(naturals) + 1]
        else:
            yield naturals, NO_SLOTS[len(naturals)]


def _set_ranks(rules: Rules) -> tuple[int, ...]:
    """Ranks that form sets: not the two while twos are wild (R7), none when sets are off (option sets)."""
    if not rules.sets:
        return ()
    return SET_RANKS if rules.twos_wild else ALL_RANKS


#: ``NO_SLOTS[n]``: the slots of ``n`` cards none of which is a run's wild.
NO_SLOTS: tuple[tuple[int, ...], ...] = tuple((NO_SLOT,) * n for n in range(110))


@lru_cache(maxsize=4096)
def _one_slot(size: int, index: int, slot: int) -> tuple[int, ...]:
    """Slots of ``size`` cards where only the card at ``index`` is a wild, in ``slot``."""
    return (*NO_SLOTS[index], slot, *NO_SLOTS[size - index - 1])


def _run_spans(
    counts: Sequence[int], suit: int, wild_avail: list[int], minimum: int
) -> list[tuple[int, int, int, int]]:
    """Runs of ``suit`` as ``(lo, hi, m, w)``: positions ``lo..hi``, wild ``w`` at ``m`` (0 if none)."""
    nat = [0]  # copies in hand by position 0..15
    nat.extend(map(counts.__getitem__, RUN_CODES[suit]))
    nat.append(0)
    spans: list[tuple[int, int, int, int]] = []
    if 16 - nat.count(0) + (1 if wild_avail else 0) < minimum:
        return spans  # too few cards of this suit for any run
    add = spans.append
    two = 4 + suit
    for lo in range(1, 16 - minimum):
        if not nat[lo] and not (wild_avail and nat[lo + 1]):
            continue  # a run starts with a natural, or a wild then a natural
        miss = 0  # the one position without a natural, 0 if none yet
        for hi in range(lo, (lo + 12 if lo < 2 else 14) + 1):
            if not nat[hi]:
                if miss or not wild_avail:
                    break
                miss = hi
            if hi - lo + 1 < minimum or (lo == 2 and hi == 14):
                continue  # too short, or the 13-run already listed ace-low
            if not miss:
                add((lo, hi, 0, -1))
                cells: Sequence[int] = range(lo, hi + 1)
            else:
                cells = (miss,)
            for m in cells:
                for w in wild_avail:
                    if w == two and not _wild_two_ok(counts, two, lo, hi, m, lo <= 2 <= hi, ace_movable=True):
                        continue
                    add((lo, hi, m, w))
    return spans


def _wild_two_ok(
    counts: Sequence[int], two: int, lo: int, hi: int, m: int, natural_two_from_hand: bool, ace_movable: bool
) -> bool:
    """May the run's own two be a wild at position ``m`` of the final run ``lo..hi``?

    Not at position 2 (there it is natural); not when the hand also needs that
    two as the natural at rank 2 and holds only one; and not when the same
    cards could lay it natural instead (R9), which ``ace_movable`` widens: an
    ace from the hand sitting high could sit low, next to the two.
    """
    if m == 2:
        return False
    if natural_two_from_hand and counts[two] < 2:
        return False
    if lo <= 2 <= hi:
        return True  # rank 2 holds a natural two already: this one is a second copy
    naturals = [p for p in range(lo, hi + 1) if p != m]
    if ace_movable and naturals[-1] == 14:
        naturals[-1] = 1
    naturals.append(2)
    return max(naturals) - min(naturals) + 1 != len(naturals)


def _set_groups(
    counts: Sequence[int], wild_avail: list[int], minimum: int, ranks: Sequence[int]
) -> Iterator[tuple[int, tuple[int, ...], int]]:
    """Sets as ``(rank, naturals, w)``, ``w`` the wild or -1."""
    least = minimum - 1 if wild_avail else minimum
    for rank in ranks:
        base = rank * 4
        have = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
        if sum(have) < least:
            continue
        for naturals in _naturals_of(base, have):
            n = len(naturals)
            if n >= minimum:
                yield rank, naturals, -1
            if n >= minimum - 1:
                for w in wild_avail:
                    yield rank, naturals, w


@lru_cache(maxsize=4096)
def _naturals_of(base: int, have: tuple[int, int, int, int]) -> tuple[tuple[int, ...], ...]:
    """Every non-empty sub-multiset of the cards ``base + suit``, ``have[suit]`` copies each."""
    out = []
    for combo in product(*(range(n + 1) for n in have)):
        if any(combo):
            out.append(tuple(base + s for s in range(4) for _ in range(combo[s])))
    return tuple(out)


# ------------------------------------------------------------------- adds
def add_options(meld: Meld, counts: Sequence[int], rules: Rules, wilds_ok: bool = True) -> Iterator[AddOption]:
    """Every distinct multiset of ``counts`` that can go onto ``meld`` in one add.

    Adding several cards is adding them one at a time in some order, each step
    obeying R13 and R14; the options are the distinct results, told apart by
    the cards, the slot of an added wild and the end a displaced wild takes.
    ``wilds_ok=False`` keeps hand wilds off sets and runs (see :func:`meld_options`).
    """
    if isinstance(meld, WildMeld):
        for wilds in _wild_multisets(counts, rules.wild_kinds, 1):
            yield AddOption(wilds, NO_SLOTS[len(wilds)], None, WildMeld(tuple(sorted(meld.wilds + wilds))))
        return
    wild_avail = [w for w in rules.wild_kinds if counts[w]] if wilds_ok else []
    if rules.wild_limit != "one":
        yield from _general_adds(meld, counts, rules, wild_avail)
    elif isinstance(meld, RunMeld):
        yield from _run_adds(meld, counts, wild_avail)
    else:
        yield from _set_adds(meld, counts, wild_avail)


def _set_adds(meld: SetMeld, counts: Sequence[int], wild_avail: list[int]) -> Iterator[AddOption]:
    base = meld.rank * 4
    have = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
    if meld.wilds:
        wild_avail = []  # one wild per meld (R7, R14)
    if not any(have):
        if wild_avail:
            for w in wild_avail:
                yield AddOption(
                    (w,), (NO_SLOT,), None, SetMeld(meld.rank, meld.naturals, tuple(sorted((*meld.wilds, w))))
                )
        return
    for naturals in ((), *_naturals_of(base, have)):
        merged = tuple(sorted(meld.naturals + naturals))
        if naturals:
            yield AddOption(naturals, (NO_SLOT,) * len(naturals), None, SetMeld(meld.rank, merged, meld.wilds))
        for w in wild_avail:
            yield AddOption(
                (*naturals, w),
                (NO_SLOT,) * (len(naturals) + 1),
                None,
                SetMeld(meld.rank, merged, tuple(sorted((*meld.wilds, w)))),
            )


def _run_adds(run: RunMeld, counts: Sequence[int], hand_wilds: list[int]) -> Iterator[AddOption]:
    """Adds to a run holding at most one wild, the classic limit (R13, R14)."""
    suit, lo, hi, wilds = run
    codes = POS_CODE[suit]
    if not (
        (lo > 1 and counts[codes[lo - 1]])
        or (hi < 14 and counts[codes[hi + 1]])
        or (wilds and counts[codes[wilds[0][0]]])
        or (not wilds and hand_wilds)
    ):
        return  # nothing in hand touches this run
    two = 4 + suit
    span = hi - lo + 1
    low_cells = list(range(lo - 1, max(1, hi - 12) - 1, -1))  # outward from lo
    high_cells = list(range(hi + 1, min(14, lo + 12) + 1))  # outward from hi
    low_miss = _misses(low_cells, counts, codes)
    high_miss = _misses(high_cells, counts, codes)
    has_wild = len(wilds) > 0
    wild_avail = [] if has_wild else hand_wilds
    wild_pos, wild_card = wilds[0] if has_wild else (0, -1)
    displace = has_wild and counts[codes[wild_pos]] > 0
    for a in range(len(low_cells) + 1):
        lmiss = low_miss[a]
        if len(lmiss) > 1:
            break
        for b in range(len(high_cells) + 1):
            if span + a + b > 13:
                break
            hmiss = high_miss[b]
            if len(hmiss) > 1:
                break
            if a + b == 0 or (lo - a == 2 and hi + b == 14 and hi != 14):
                continue  # nothing added, or the 13-run already listed ace-low
            L, H = lo - a, hi + b
            cells = low_cells[:a] + high_cells[:b]
            missing = lmiss + hmiss
            if not has_wild:
                if not missing:
                    yield _run_option(run, L, H, cells, 0, -1, None, ())
                    wild_cells: Sequence[int] = cells
                elif len(missing) == 1:
                    wild_cells = missing
                else:
                    continue
                for m in wild_cells:
                    for w in wild_avail:
                        if w == two and not _wild_two_ok(counts, two, L, H, m, 2 in cells, ace_movable=14 in cells):
                            continue
                        yield _run_option(run, L, H, cells, m, w, None, ())
                continue
            if not missing:  # the wild stays in its slot (R9)
                yield _run_option(run, L, H, cells, 0, -1, None, wilds)
            if displace and len(missing) <= 1:  # R13: its natural comes in, it moves
                for f in missing or cells:
                    end = "low" if f < wild_pos else "high"
                    moved: tuple[tuple[int, int], ...] = () if (wild_card == two and f == 2) else ((f, wild_card),)
                    yield _run_option(run, L, H, cells, f, -1, end, moved, displaced_at=wild_pos)
    if displace and wild_card == two and wild_pos > 2 and lo >= 3 and hand_wilds:
        yield from _adds_after_two_lands(run, counts, hand_wilds)


def _adds_after_two_lands(run: RunMeld, counts: Sequence[int], hand_wilds: list[int]) -> Iterator[AddOption]:
    """Adds where the run's wild two lands on rank 2 and a hand wild then joins.

    Once the displaced two is natural (R9) the run holds no wild, so a wild
    from the hand may follow in the same action without ever making two
    wilds at once (R14).  The naturals of ranks 3 up to the run must come
    first, then the natural of the two's slot sends it to rank 2.
    """
    suit, lo, hi, ((wild_pos, _two),) = run
    codes = POS_CODE[suit]
    lifted = [codes[p] for p in range(3, lo)] + [codes[wild_pos]]
    rest = list(counts)
    for c in lifted:
        rest[c] -= 1
        if rest[c] < 0:
            return
    landed = RunMeld(suit, 2, hi)
    two = 4 + suit
    for option in _run_adds(landed, rest, [w for w in hand_wilds if rest[w]]):
        # a second two of the suit could have been the natural one (R9): that add is listed already
        if any(slot >= 0 and card != two for card, slot in zip(option.cards, option.slots)):
            placed = sorted([(c, NO_SLOT) for c in lifted] + list(zip(option.cards, option.slots)))
            yield AddOption(tuple(c for c, _ in placed), tuple(s for _, s in placed), "low", option.meld)


def _misses(cells: list[int], counts: Sequence[int], codes: Sequence[int]) -> list[list[int]]:
    """``out[k]``: the cells among the first ``k`` that the hand cannot fill (at most 2 kept)."""
    out: list[list[int]] = [[]]
    current: list[int] = []
    for p in cells:
        if not counts[codes[p]]:
            current = [*current, p]
        out.append(current)
        if len(current) > 1:
            break
    return out


def _run_option(
    run: RunMeld,
    L: int,
    H: int,
    cells: list[int],
    free: int,
    wild: int,
    end: str | None,
    wilds: tuple[tuple[int, int], ...],
    displaced_at: int = 0,
) -> AddOption:
    """Build the option that fills ``cells`` with naturals except ``free``.

    ``wild`` (if >= 0) is a hand wild put at ``free``; otherwise ``free`` is
    where the displaced table wild went (``wilds`` gives the new wild list).
    """
    suit = run.suit
    codes = POS_CODE[suit]
    naturals = [codes[p] for p in cells if p != free]
    if displaced_at:
        naturals.append(codes[displaced_at])
    naturals.sort()
    if wild >= 0:
        i = bisect_right(naturals, wild)  # canonical order: a natural before an equal wild
        naturals.insert(i, wild)
        slots = _one_slot(len(naturals), i, codes[free])
        wilds = ((free, wild),)
    else:
        slots = NO_SLOTS[len(naturals)]
    new = _tuple_new(RunMeld, (suit, L, H, wilds))  # the NamedTuple without its Python-level __new__
    if L == 2 and H == 14:
        new = _normalize(new)
    return _tuple_new(AddOption, (tuple(naturals), slots, end, new))


_tuple_new = tuple.__new__


# ---------------------------------- several wilds per meld (seed 004's limit)
def _wild_multisets(counts: Sequence[int], kinds: Sequence[int], least: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of the wild cards in ``counts`` with at least ``least`` cards (sorted)."""
    have = [(w, counts[w]) for w in kinds if counts[w]]
    for combo in product(*(range(n + 1) for _, n in have)):
        if sum(combo) >= max(least, 1):
            yield tuple(sorted(w for (w, _), k in zip(have, combo) for _ in range(k)))


def _wild_rows(
    cells: int, counts: Sequence[int], kinds: Sequence[int], spent: dict[int, int]
) -> Iterator[tuple[int, ...]]:
    """Every way to put one wild in each of ``cells`` positions (order matters), within ``counts``."""
    if cells == 0:
        yield ()
        return
    for w in kinds:
        if counts[w] - spent.get(w, 0) > 0:
            spent[w] = spent.get(w, 0) + 1
            for rest in _wild_rows(cells - 1, counts, kinds, spent):
                yield (w, *rest)
            spent[w] -= 1


def _fewest_wild_twos(found: list[tuple[Meld, tuple[int, ...], int]]) -> list[Meld]:
    """R9 across whole actions: of the arrangements of one multiset of hand cards,
    keep those that leave the fewest twos of the run's suit wild."""
    best: dict[tuple[int, ...], int] = {}
    for _meld, key, twos in found:
        best[key] = min(twos, best.get(key, twos))
    return [meld for meld, key, twos in found if twos == best[key]]


def _general_melds(counts: Sequence[int], rules: Rules, wild_avail: list[int]) -> Iterator[Meld]:
    """New sets and runs with up to one wild per two naturals."""
    minimum = rules.min_meld
    wild_total = sum(counts[w] for w in wild_avail)
    runs: list[tuple[Meld, tuple[int, ...], int]] = []
    for suit in range(4):
        nat = [0, *(counts[c] for c in RUN_CODES[suit]), 0]
        two = 4 + suit
        for lo in range(1, 16 - minimum):
            missing: list[int] = []
            for hi in range(lo, (lo + 12 if lo < 2 else 14) + 1):
                if not nat[hi]:
                    missing.append(hi)
                    if len(missing) > wild_total:
                        break
                size = hi - lo + 1
                if size < minimum or (lo == 2 and hi == 14):
                    continue
                present = [p for p in range(lo, hi + 1) if nat[p]]
                for extra in range(0, wild_total - len(missing) + 1):
                    n_wilds = len(missing) + extra
                    if n_wilds > rules.max_wilds(size - n_wilds):
                        break
                    for chosen in combinations(present, extra):
                        cells = sorted((*missing, *chosen))
                        spent = {two: 1} if lo <= 2 <= hi and 2 not in cells else {}
                        for row in _wild_rows(len(cells), counts, wild_avail, spent):
                            if 2 in cells and row[cells.index(2)] == two:
                                continue  # the run's own two on rank 2 is natural (R9)
                            run = _normalize(RunMeld(suit, lo, hi, tuple(zip(cells, row))))
                            runs.append((run, tuple(sorted(run.cards())), row.count(two)))
    yield from _fewest_wild_twos(runs)
    for rank in _set_ranks(rules):
        base = rank * 4
        have = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
        if not any(have):
            continue
        for naturals in _naturals_of(base, have):
            for wilds in ((), *_wild_multisets(counts, wild_avail, 1)):
                if len(naturals) + len(wilds) >= minimum and len(wilds) <= rules.max_wilds(len(naturals)):
                    yield SetMeld(rank, naturals, wilds)


def _general_adds(meld: Meld, counts: Sequence[int], rules: Rules, wild_avail: list[int]) -> Iterator[AddOption]:
    """Adds under a wild limit of one per two naturals, judged on the meld after the add.

    One add moves at most one wild (the natural of its slot comes in); it goes
    to an end or a gap beyond the run as at the moment it moved (R13).
    """
    if isinstance(meld, SetMeld):
        base = meld.rank * 4
        have = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
        for naturals in ((), *_naturals_of(base, have)):
            merged = tuple(sorted(meld.naturals + naturals))
            for hand_wilds in ((), *_wild_multisets(counts, wild_avail, 1)):
                total = meld.wilds + hand_wilds
                if (naturals or hand_wilds) and len(total) <= rules.max_wilds(len(merged)):
                    added = naturals + hand_wilds
                    yield AddOption(added, NO_SLOTS[len(added)], None, SetMeld(meld.rank, merged, tuple(sorted(total))))
        return
    assert isinstance(meld, RunMeld)
    suit, lo, hi, wilds = meld
    codes = POS_CODE[suit]
    two = 4 + suit
    wild_at = dict(wilds)
    wild_total = sum(counts[w] for w in wild_avail)
    low = list(range(lo - 1, max(1, hi - 12) - 1, -1))
    high = list(range(hi + 1, min(14, lo + 12) + 1))
    movable = [0] + [p for p in wild_at if counts[codes[p]]]
    found: dict[tuple[tuple[int, ...], tuple[int, ...], str | None], tuple[AddOption, int]] = {}
    for a in range(len(low) + 1):
        for b in range(len(high) + 1):
            if hi - lo + 1 + a + b > 13 or not a + b:
                continue
            if lo - a == 2 and hi + b == 14 and hi != 14:
                continue  # the 13-run is listed ace-low
            cells = low[:a] + high[:b]
            missing = [p for p in cells if not counts[codes[p]]]
            others = [p for p in cells if counts[codes[p]]]
            for moved in movable:
                budget = wild_total + (1 if moved else 0)
                if len(missing) > budget:
                    continue
                for extra in range(0, budget - len(missing) + 1):
                    for chosen in combinations(others, extra):
                        free = [*missing, *chosen]
                        for to in free if moved else (0,):
                            hand_cells = [p for p in free if p != to]
                            if not moved and not free and not cells:
                                continue
                            spent: dict[int, int] = {}
                            for p in (*(c for c in cells if c not in free), moved):
                                if p and codes[p] == two:
                                    spent[two] = spent.get(two, 0) + 1
                            for row in _wild_rows(len(hand_cells), counts, wild_avail, spent):
                                if 2 in hand_cells and row[hand_cells.index(2)] == two:
                                    continue  # natural on rank 2 (R9)
                                option = _general_run_option(
                                    meld, lo - a, hi + b, cells, free, moved, to, hand_cells, row
                                )
                                if option is not None and len(option.meld.wilds) <= rules.max_wilds(
                                    option.meld.size - len(option.meld.wilds)
                                ):
                                    found.setdefault((option.cards, option.slots, option.end), (option, row.count(two)))
    fewest: dict[tuple[int, ...], int] = {}
    for option, twos in found.values():
        key = tuple(sorted(option.cards))
        fewest[key] = min(twos, fewest.get(key, twos))
    for option, twos in found.values():
        if twos == fewest[tuple(sorted(option.cards))]:
            yield option


def _general_run_option(
    run: RunMeld,
    L: int,
    H: int,
    cells: list[int],
    free: list[int],
    moved: int,
    to: int,
    hand_cells: list[int],
    row: tuple[int, ...],
) -> AddOption | None:
    """The option where ``cells`` outside ``free`` get naturals, ``hand_cells`` get ``row``'s wilds,
    and (if ``moved``) the wild at ``moved`` goes to ``to`` as its natural comes in."""
    suit = run.suit
    codes = POS_CODE[suit]
    wild_at = dict(run.wilds)
    placed = [(codes[p], NO_SLOT) for p in cells if p not in free]
    end = None
    if moved:
        placed.append((codes[moved], NO_SLOT))
        card = wild_at.pop(moved)
        if not (card == 4 + suit and to == 2):
            wild_at[to] = card
        end = "low" if to < moved else "high"
    for p, w in zip(hand_cells, row):
        placed.append((w, codes[p]))
        wild_at[p] = w
    if not placed:
        return None
    placed.sort()
    new = _normalize(RunMeld(suit, L, H, tuple(sorted(wild_at.items()))))
    return AddOption(tuple(c for c, _ in placed), tuple(s for _, s in placed), end, new)


# ------------------------------------------------------ checking an action
def resolve_meld(cards: Sequence[int], slots: Sequence[int], rules: Rules) -> Meld:
    """The meld that these hand cards make, applying R10's default slot.

    Raises :class:`IllegalActionError` naming the rule when they make none.
    """
    options = [m for m in meld_options(counts_of(cards), rules) if m.size == len(cards)]
    options = [m for m in options if _slots_match(cards, slots, m)]
    if not options:
        raise explain_meld(cards, slots, rules)
    return max(options, key=_default_key)


def resolve_add(meld: Meld, cards: Sequence[int], slots: Sequence[int], end: str | None, rules: Rules) -> AddOption:
    """The result of adding these hand cards to ``meld`` (R12..R14 defaults applied)."""
    options = [o for o in add_options(meld, counts_of(cards), rules) if len(o.cards) == len(cards)]
    options = [o for o in options if _slots_match(cards, slots, o.meld, added=o)]
    if end is not None:
        options = [o for o in options if o.end == end or _ace_either_end(o)]
    if not options:
        raise explain_add(meld, cards, slots, end, rules)
    return max(options, key=lambda o: _default_key(o.meld))


def _slots_match(cards: Sequence[int], slots: Sequence[int], meld: Meld, added: AddOption | None = None) -> bool:
    """Do the slots the player named agree with this candidate?"""
    named = sorted((c, s) for c, s in zip(cards, slots) if s >= 0)
    if not named:
        return True
    if added is not None:
        have = sorted((c, s) for c, s in zip(added.cards, added.slots) if s >= 0)
    else:
        have = sorted((c, s) for c, s in zip(meld.cards(), meld.slots()) if s >= 0)
    return named == have


def _ace_either_end(option: AddOption) -> bool:
    """A wild displaced to the ace slot of a 13-run is at both ends at once."""
    run = option.meld
    return bool(option.end) and isinstance(run, RunMeld) and run.size == 13 and any(p == 1 for p, _ in run.wilds)


def _default_key(meld: Meld) -> tuple[int, int]:
    """R10/R13 defaults: a two landing natural first, then the wild highest."""
    if not isinstance(meld, RunMeld):
        return (0, 0)
    return (0, max(p for p, _ in meld.wilds)) if meld.wilds else (1, 0)


# ------------------------------------------------------------- explaining
def explain_meld(cards: Sequence[int], slots: Sequence[int], rules: Rules) -> IllegalActionError:
    """Why these cards make no legal meld, naming the rule."""
    text = format_placed(cards, slots)
    if len(cards) < rules.min_meld:
        return IllegalActionError(
            rules.cite("R7", "min_meld"), f"a meld needs at least {rules.min_meld} cards, not {len(cards)} ({text})"
        )
    wild_like = [c for c in cards if c in rules.wild_kinds]
    naturals = [c for c in cards if c not in rules.wild_kinds]
    limit = rules.max_wilds(len(naturals))
    has_slots = any(s >= 0 for s in slots)
    if has_slots and naturals and len({rank_of(c) for c in naturals}) == 1 and len(naturals) > 1:
        return IllegalActionError("R10", f"a wild in a set takes no slot ({text})")
    if not has_slots and not rules.sets and len(naturals) > 1 and len({rank_of(c) for c in naturals}) == 1:
        return IllegalActionError("sets", f"these rules meld runs only, no sets ({text})")
    if not has_slots and naturals and len({rank_of(c) for c in naturals}) == 1:
        rank = RANKS[rank_of(naturals[0])]
        if len(wild_like) > limit and rules.sets:
            return too_many_wilds(rules, "set", len(naturals), len(wild_like), text)
        if len(naturals) + min(len(wild_like), limit) < rules.min_meld and rules.sets:
            return IllegalActionError("R7", f"not enough {rank}s for a set: {text}")
    if not naturals and not any(is_two(c) for c in cards):
        return IllegalActionError("R7", f"a meld needs natural cards; no set of jokers ({text})")
    if all(is_two(c) or c == JOKER for c in cards) and len({suit_of(c) for c in cards if c != JOKER}) > 1:
        return IllegalActionError("R7", f"there is no set of twos ({text})")
    reason = _run_reason(cards, slots, rules)
    return IllegalActionError(reason[0], f"{reason[1]} ({text})")


def too_many_wilds(rules: Rules, kind: str, naturals: int, wilds: int, text: str = "") -> IllegalActionError:
    """A meld that would hold more wilds than its naturals allow: R7/R8, or option ``wild_limit`` in words."""
    where = f" ({text})" if text else ""
    if rules.wild_limit == "one":
        rule = "R7" if kind == "set" else "R8"
        extra = " besides a natural two" if kind == "run" else ""
        return IllegalActionError(rule, f"a {kind} holds at most one wild{extra}; this one would hold {wilds}{where}")
    limit = rules.max_wilds(naturals)
    return IllegalActionError(
        "wild_limit",
        f"a meld holds at most one wild per two naturals: {_count(naturals, 'natural')} allow"
        f"{'s' if naturals == 1 else ''} {_count(limit, 'wild')}, and this {kind} would hold {wilds}{where}",
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _slotted_naturals(cards: Sequence[int], slots: Sequence[int], rules: Rules) -> IllegalActionError | None:
    """A slot named for a card that is no wild under these rules (option ``twos_wild``)."""
    for card, slot in zip(cards, slots):
        if slot >= 0 and card not in rules.wild_kinds:
            return IllegalActionError(
                "twos_wild",
                f"only jokers are wild under these rules: {card_name(card)} cannot stand for {card_name(slot)}",
            )
    return None


def _run_reason(cards: Sequence[int], slots: Sequence[int], rules: Rules) -> tuple[str, str]:
    """The first rule a would-be run breaks."""
    not_wild = _slotted_naturals(cards, slots, rules)
    if not_wild is not None:
        return not_wild.rule, not_wild.reason
    slot_suits = {suit_of(s) for s in slots if s >= 0}
    plain = [c for c, s in zip(cards, slots) if s < 0]
    candidate_suits = slot_suits or {suit_of(c) for c in plain if c != JOKER and not is_two(c)}
    if len(candidate_suits) != 1:
        return "R8", "these cards are neither one rank (a set, R7) nor one suit (a run)"
    suit = candidate_suits.pop()
    two = 4 + suit
    naturals = [c for c in plain if c != JOKER and suit_of(c) == suit]
    if len([c for c in naturals if c == two]) > 1:
        naturals.remove(two)
    foreign = [c for c in plain if c not in rules.wild_kinds and suit_of(c) != suit]
    if foreign:
        if is_two(foreign[0]):
            return "twos_wild", f"only jokers are wild under these rules: {card_name(foreign[0])} is no wild"
        return "R8", f"{card_name(foreign[0])} is not of the run's suit {SUITS[suit]}"
    ranks = [rank_of(c) for c in naturals]
    if len(set(ranks)) != len(ranks):
        return "R8", "a run holds each rank once"
    wild_count = len(cards) - len(naturals)
    if wild_count > rules.max_wilds(len(naturals)):
        error = too_many_wilds(rules, "run", len(naturals), wild_count)
        return error.rule, error.reason
    if len(cards) > 13:
        return "R8", "a run has at most 13 cards"
    if 0 in ranks and 12 in ranks and (1 in ranks or 2 in ranks):
        return "R8", "a run never wraps from K through A to 2"
    for card, slot in zip(cards, slots):
        if slot >= 0 and card == two and slot != two and _two_fits_natural((), [c for c in naturals if c != two]):
            return "R9", f"{card_name(two)} can be natural at rank 2 here, so it cannot stand for {card_name(slot)}"
        if slot >= 0 and (suit_of(slot) != suit or rank_of(slot) in ranks):
            return "R10", f"{card_name(card)} cannot stand for {card_name(slot)}: not a free rank of this run"
    if any(s >= 0 for s in slots):
        return "R10", "the named slot is neither a gap nor an end of the run"
    return "R8", "the ranks are not consecutive, even with the wild allowed"


def _two_fits_natural(table: Sequence[int], hand: Sequence[int]) -> bool:
    """Could the run's two lie natural on rank 2 next to these naturals (R9)?

    ``table`` are positions already on the table; ``hand`` natural cards
    from the hand, where an ace would sit low, next to the two.
    """
    positions = set(table) | {1 if rank_of(c) == 0 else rank_of(c) + 1 for c in hand}
    if 2 in positions:
        return False
    positions.add(2)
    return max(positions) - min(positions) + 1 == len(positions)


def explain_add(
    meld: Meld, cards: Sequence[int], slots: Sequence[int], end: str | None, rules: Rules
) -> IllegalActionError:
    """Why these cards cannot go onto ``meld`` in one add, naming the rule."""
    text = format_placed(cards, slots)
    target = meld.text()
    wild_like = [c for c in cards if c in rules.wild_kinds]
    if isinstance(meld, WildMeld):
        return IllegalActionError("wild_melds", f"only wilds go onto the wild-card meld {target}")
    if isinstance(meld, SetMeld):
        rank = meld.rank
        wrong = [c for c in cards if c not in rules.wild_kinds and rank_of(c) != rank]
        if wrong:
            return IllegalActionError("R7", f"{card_name(wrong[0])} does not fit the set of {RANKS[rank]}s ({target})")
        if any(s >= 0 for s in slots):
            return IllegalActionError("R10", "a wild in a set takes no slot")
        if rules.wild_limit == "one" and meld.wilds and wild_like:
            return IllegalActionError("R14", f"the set {target} already holds a wild")
        if rules.wild_limit == "one" and len(wild_like) > 1:
            return IllegalActionError("R14", "never two wilds in a meld, not even for a moment")
        natural_count = len(meld.naturals) + len(cards) - len(wild_like)
        return too_many_wilds(rules, "set", natural_count, len(meld.wilds) + len(wild_like), text)
    assert isinstance(meld, RunMeld)
    suit, two = meld.suit, 4 + meld.suit
    not_wild = _slotted_naturals(cards, slots, rules)
    if not_wild is not None:
        return not_wild
    hand_wilds = [c for c, s in zip(cards, slots) if (c in rules.wild_kinds and c != two) or s >= 0]
    if rules.wild_limit == "one" and meld.wilds and hand_wilds:
        return IllegalActionError("R14", f"a wild may not be added to {target}, which already holds one")
    if rules.wild_limit == "one" and len(hand_wilds) > 1:
        return IllegalActionError("R14", "only 1 wild may go onto a run")
    naturals = [c for c in cards if c not in hand_wilds]
    if rules.wild_limit != "one":
        wilds = len(meld.wilds) + len(hand_wilds)
        if wilds > rules.max_wilds(meld.size - len(meld.wilds) + len(naturals)):
            return too_many_wilds(rules, "run", meld.size - len(meld.wilds) + len(naturals), wilds, text)
    table = range(meld.lo, meld.hi + 1)
    if meld.wilds and two in naturals and not _two_fits_natural(table, [c for c in naturals if c != two]):
        return IllegalActionError("R14", f"{card_name(two)} cannot be natural here, and {target} already holds a wild")
    wrong = [c for c in naturals if suit_of(c) != suit]
    if wrong and is_two(wrong[0]) and not rules.twos_wild:
        return IllegalActionError(
            "twos_wild", f"only jokers are wild under these rules: {card_name(wrong[0])} is no wild"
        )
    if wrong:
        return IllegalActionError("R8", f"{card_name(wrong[0])} is not of the run's suit {SUITS[suit]} ({target})")
    table_ranks = {rank_of(POS_CODE[suit][p]) for p in range(meld.lo, meld.hi + 1)}
    displaced = [p for p, _ in meld.wilds if POS_CODE[suit][p] in naturals]
    occupied = [c for c in naturals if rank_of(c) in table_ranks and not any(POS_CODE[suit][p] == c for p in displaced)]
    if occupied:
        return IllegalActionError("R8", f"{card_name(occupied[0])} is already in the run {target}")
    if displaced and end is None:
        return IllegalActionError("R13", f"no end of {target} can take the displaced wild")
    if displaced:
        return IllegalActionError("R13", f"the displaced wild cannot go to the {end} end of {target}")
    if meld.size + len(cards) > 13:
        return IllegalActionError("R8", f"the run {target} would pass 13 cards")
    for card, slot in zip(cards, slots):
        if slot >= 0 and card == two and _two_fits_natural(table, naturals):
            return IllegalActionError(
                "R9", f"{card_name(two)} can be natural at rank 2 here, so it takes no other slot"
            )
        if slot >= 0:
            return IllegalActionError("R10", f"{card_name(card)} cannot stand for {card_name(slot)} on {target}")
    if end is not None:
        return IllegalActionError("R13", f"wild={end} names an end, but this add displaces no wild")
    return IllegalActionError("R8", f"{text} does not extend {target} into one run of consecutive ranks")


__all__ = [
    "AddOption",
    "Meld",
    "RunMeld",
    "SetMeld",
    "add_options",
    "explain_add",
    "explain_meld",
    "format_placed",
    "meld_options",
    "meld_placements",
    "meld_state",
    "meld_value",
    "parse_meld",
    "parse_placed",
    "resolve_add",
    "resolve_meld",
]
