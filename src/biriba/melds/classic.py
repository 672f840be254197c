"""The fast enumerator for the classic limit of one wild per meld (R7..R14).

Runs are found as spans of positions of one suit with at most one missing
natural; sets as sub-multisets of one rank.  Both build the melds and adds
directly, without trying card orders: the engine's hottest path.
``tests/test_melds_paths.py`` checks them against the general enumerator.

The lists of melds per suit and rank and of adds per meld are remembered
by the part of the hand they read (:mod:`.memo`), as tuples of numbers: each
meld and add is made once, as plain tuples, in a table (:class:`~.memo.Numbered`),
and made into :class:`RunMeld` and :class:`SetMeld` values when asked for.
A miss then costs lookups rather than new tuples, and Python's garbage
collector, which never stops watching a named tuple or a tuple of tuples it
has not yet let go, need not walk hundreds of thousands of remembered melds.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from operator import itemgetter
from typing import Final

from .. import caches
from ..rules import Rules
from .memo import RANK_COUNTS, RANK_TOTALS, SUIT_COUNTS, Memos, Numbered, hand_keys, remember
from .types import (
    NO_SLOT,
    NO_SLOTS,
    POS_CODE,
    RUN_CODES,
    AddOption,
    Fields,
    Group,
    Meld,
    Placement,
    PlainAdd,
    RunMeld,
    SetMeld,
    naturals_of,
    normalize_run,
    one_slot,
    set_ranks,
)

#: A meld with its placement.
Placed = tuple[Meld, Placement]
_tuple_new: Final = tuple.__new__
#: Read once: compiled, a class from an interpreted definition is a dict lookup at every read.
_RUN_MELD: Final = RunMeld
_SET_MELD: Final = SetMeld
#: Every meld listed so far, by number: its fields and its placement.  Groups hold their numbers.
MELD_TABLE: Final[Numbered[tuple[Fields, Placement]]] = Numbered()
#: Every add listed so far, by number.  The remembered adds hold their numbers.
ADD_TABLE: Final[Numbered[PlainAdd]] = Numbered()
#: The remembered groups: for each shortest meld and list of usable wilds, a dict for each
#: suit's runs (0..3) and rank's sets (4..16), keyed by the part of the hand they read.
_GROUPS: Final = Memos()
_ADDS: Final[dict[tuple[object, ...], tuple[int, ...]]] = {}
#: The group of a suit or rank that gives no meld.
NO_GROUP: Final[Group] = ()
caches.register("meld table", lambda: len(MELD_TABLE.values), MELD_TABLE.clear)
caches.register("add table", lambda: len(ADD_TABLE.values), ADD_TABLE.clear)
caches.register("meld groups", lambda: _GROUPS.size, _GROUPS.clear)
caches.register("classic adds", lambda: len(_ADDS), _ADDS.clear)


def _listed(counts: Sequence[int]) -> list[int]:
    """The counts as a list, as a deal and a bot hold them: compiled, a list is read directly, a sequence not."""
    return counts if isinstance(counts, list) else list(counts)


def classic_melds(counts: Sequence[int], rules: Rules, wild_avail: list[int]) -> Iterator[Meld]:
    """New runs and sets with at most one wild (R7, R8), ``wild_avail`` the hand's wild kinds."""
    for meld, _placement in classic_placed_melds(counts, rules, wild_avail):
        yield meld


def classic_placed_melds(
    counts: Sequence[int], rules: Rules, wild_avail: list[int], keys: list[int] | None = None
) -> Iterator[Placed]:
    """The melds of :func:`classic_melds`, each with its placement (the cards and slots of its action)."""
    melds = MELD_TABLE.values
    kind: type[Meld]
    for number in classic_meld_numbers(counts, rules, wild_avail, keys):
        fields, placed = melds[number]
        kind = _RUN_MELD if len(fields) == 4 else _SET_MELD  # a run has four fields, a set three
        yield _tuple_new(kind, fields), placed


def classic_placements(
    counts: Sequence[int], rules: Rules, wild_avail: list[int], keys: list[int] | None = None
) -> list[Placement]:
    """The melds of :func:`classic_melds` as the cards and slots of ``meld`` actions, in the same order."""
    melds = MELD_TABLE.values
    return [melds[number][1] for number in classic_meld_numbers(counts, rules, wild_avail, keys)]


def classic_meld_numbers(
    counts: Sequence[int], rules: Rules, wild_avail: list[int], keys: list[int] | None = None
) -> list[int]:
    """The melds of :func:`classic_melds` by number in :data:`MELD_TABLE`: each suit's runs, then each rank's sets.

    The one place that fixes the order of the listed melds.  ``keys`` are
    :func:`~.memo.hand_keys` of ``counts``, if the caller has them.
    """
    runs, sets = _groups(_listed(counts), rules, wild_avail, hand_keys(counts) if keys is None else keys)
    out: list[int] = []
    for group in runs:
        out += group
    for group in sets:
        out += group
    return out


def classic_meld_of(
    counts: Sequence[int], rules: Rules, wild_avail: list[int], placement: Placement, keys: list[int] | None = None
) -> Meld | None:
    """The meld of :func:`classic_melds` laid down as ``placement``, or ``None``: only that one is built.

    Only the group it belongs to is looked up (:func:`_group`): a set's first
    two cards are naturals of its rank, a run's cards without a slot are
    naturals of its suit.
    """
    cards, slots = placement
    naturals = [card for card, slot in zip(cards, slots) if slot == NO_SLOT]
    if len(naturals) < 2:
        return None
    minimum = rules.min_meld
    if keys is None:
        keys = hand_keys(counts)
    memos = _group_memos(minimum, wild_avail)
    hand = _listed(counts)
    kind: type[Meld]
    if naturals[0] >> 2 == naturals[1] >> 2:
        rank = naturals[0] >> 2
        if rank not in set_ranks(rules):
            return None
        kind, group = SetMeld, _group(memos, hand, wild_avail, minimum, rank + 4, keys[4 + rank])
    else:
        suit = naturals[0] & 3
        kind, group = RunMeld, _group(memos, hand, wild_avail, minimum, suit, keys[suit])
    melds = MELD_TABLE.values
    for number in group:
        fields, placed = melds[number]
        if placed == placement:
            return _tuple_new(kind, fields)
    return None


def _groups(counts: list[int], rules: Rules, wild_avail: list[int], keys: list[int]) -> tuple[list[Group], list[Group]]:
    """The runs of each suit and the sets of each rank that the hand can lay down (remembered).

    ``keys`` are the hand's keys (:func:`~.memo.hand_keys`): the part of the
    hand a suit's runs or a rank's sets read, so each is a memo key.
    """
    minimum = rules.min_meld
    least = minimum - 1 if wild_avail else minimum  # naturals a meld needs at the least
    memos = _group_memos(minimum, wild_avail)
    runs: list[Group] = []
    for suit in range(4):
        key = keys[suit]
        if minimum == 3 and not _may_run(key, len(wild_avail) > 0):
            continue  # most suits, most turns: no pair of naturals near enough for a run
        found = _group(memos, counts, wild_avail, minimum, suit, key)
        if found:
            runs.append(found)
    sets: list[Group] = []
    for rank in set_ranks(rules):
        key = keys[4 + rank]
        if RANK_TOTALS[key] >= least:
            sets.append(_group(memos, counts, wild_avail, minimum, rank + 4, key))
    return runs, sets


#: In a suit's key shifted by :func:`_may_run`, a bit for each rank held, at the bottom of its four bits.
_NIBBLE_BOTTOMS: Final = 0x1111111111111


def _may_run(key: int, wild: bool) -> bool:
    """Could a suit's naturals (its key, :func:`~.memo.hand_keys`) make a run of three?

    Without a wild, only three neighbours can; with one, two naturals a
    position or two apart.  The ace sits at both ends.  A quick test, no
    more: a suit that passes is looked up (a wild two may not fill every cell).
    """
    held = key | (key >> 1)
    held = (held | (held >> 2)) & _NIBBLE_BOTTOMS
    held |= (held & 1) << 52  # the ace high, after the king
    if wild:
        return (held & (held >> 4) | held & (held >> 8)) != 0
    return (held & (held >> 4) & (held >> 8)) != 0


def _group(
    memos: list[dict[int, Group]], counts: list[int], wild_avail: list[int], minimum: int, tag: int, part: int
) -> Group:
    """The runs of suit ``tag`` (0..3) or the sets of rank ``tag - 4``, remembered by the ``part`` of the hand read."""
    memo = memos[tag]
    found = memo.get(part)
    if found is None:
        if tag < 4:
            found = _run_group(counts, tag, wild_avail, minimum)
        else:
            found = _set_group(tag - 4, RANK_COUNTS[tag - 4](counts), wild_avail, minimum)
        _GROUPS.keep(memo, part, found)
    return found


def _group_memos(minimum: int, wild_avail: list[int]) -> list[dict[int, Group]]:
    """The dicts of :func:`_group` for this shortest meld and these usable wilds, one per suit and rank."""
    key = (minimum, *wild_avail)
    found: list[dict[int, Group]] | None = _GROUPS.tables.get(key)
    if found is None:
        found = _GROUPS.tables[key] = [{} for _tag in range(17)]
    return found


#: The hand's count of each natural of a suit by run position, ace low to ace high.
RUN_COUNTS: Final = tuple(itemgetter(*RUN_CODES[suit]) for suit in range(4))


def _set_group(rank: int, have: tuple[int, ...], wild_avail: list[int], minimum: int) -> Group:
    group: list[int] = []
    numbers = MELD_TABLE.numbers
    for naturals in naturals_of(rank * 4, have):
        n = len(naturals)
        if n >= minimum:
            fields: Fields = (rank, naturals, ())
            number = numbers.get(fields)
            group.append(MELD_TABLE.add(fields, (fields, (naturals, NO_SLOTS[n]))) if number is None else number)
        if n >= minimum - 1:
            for w in wild_avail:
                fields = (rank, naturals, (w,))
                number = numbers.get(fields)
                if number is None:
                    number = MELD_TABLE.add(fields, (fields, ((*naturals, w), NO_SLOTS[n + 1])))
                group.append(number)
    return tuple(group)


def _run_group(counts: list[int], suit: int, wild_avail: list[int], minimum: int) -> Group:
    """Runs of ``suit`` found as spans of positions ``lo..hi`` with at most one missing natural."""
    nat: list[int] = [0, *RUN_COUNTS[suit](counts), 0]  # copies in hand by position 0..15
    if 16 - nat.count(0) + (1 if wild_avail else 0) < minimum:
        return NO_GROUP  # too few cards of this suit for any run
    codes = RUN_CODES[suit]
    group: list[int] = []
    numbers = MELD_TABLE.numbers  # a run is known by an integer: its suit, ends, and wild's cell and card
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
                key = suit | lo << 2 | hi << 6
                number = numbers.get(key)
                if number is None:
                    number = MELD_TABLE.add(key, ((suit, lo, hi, ()), (codes[lo - 1 : hi], NO_SLOTS[hi - lo + 1])))
                group.append(number)
                cells: Sequence[int] = range(lo, hi + 1)
            else:
                cells = (miss,)
            for m in cells:
                for w in wild_avail:
                    if w == two and not _wild_two_ok(counts, two, lo, hi, m, lo <= 2 <= hi, ace_movable=True):
                        continue
                    key = suit | lo << 2 | hi << 6 | m << 10 | w << 14
                    number = numbers.get(key)
                    if number is None:
                        cards = list(codes[lo - 1 : hi])
                        cards[m - lo] = w
                        placed = (tuple(cards), one_slot(hi - lo + 1, m - lo, codes[m - 1]))
                        number = MELD_TABLE.add(key, ((suit, lo, hi, ((m, w),)), placed))
                    group.append(number)
    return tuple(group)


def classic_adds(
    meld: Meld, counts: Sequence[int], wild_avail: list[int], keys: list[int] | None = None
) -> list[AddOption]:
    """Every add onto a set or run under the one-wild limit (R13, R14); ``keys``: see :func:`classic_add_numbers`."""
    kind = type(meld)
    values = ADD_TABLE.values
    out: list[AddOption] = []
    for number in classic_add_numbers(meld, counts, wild_avail, keys):
        cards, slots, end, fields = values[number]
        out.append(_tuple_new(AddOption, (cards, slots, end, _tuple_new(kind, fields))))
    return out


def classic_plain_adds(
    meld: Meld, counts: Sequence[int], wild_avail: list[int], keys: list[int] | None = None
) -> list[PlainAdd]:
    """:func:`classic_adds` with each add's meld as its plain fields (see :func:`classic_add_numbers`)."""
    values = ADD_TABLE.values
    return [values[number] for number in classic_add_numbers(meld, counts, wild_avail, keys)]


def classic_add_numbers(
    meld: Meld, counts: Sequence[int], wild_avail: list[int], keys: list[int] | None = None
) -> tuple[int, ...]:
    """:func:`classic_adds` as remembered: the numbers of the adds in :data:`ADD_TABLE`.

    ``keys`` are :func:`~.memo.hand_keys` of ``counts``, if the caller has
    them: the listing does.  A caller without them (a bot asking about a card
    or two) keys on the suit's or rank's counts instead, cheaper than making
    the keys; the two kinds of key never meet.
    """
    part: int | tuple[int, ...]
    hand = _listed(counts)
    if type(meld) is _RUN_MELD:
        suit, lo, hi, wilds = meld
        codes = POS_CODE[suit]
        if not (  # could anything in hand go onto it: a natural next to it or for its wild, or a wild?
            (lo > 1 and hand[codes[lo - 1]])
            or (hi < 14 and hand[codes[hi + 1]])
            or (hand[codes[wilds[0][0]]] if wilds else wild_avail)
        ):
            return ()  # most melds, most turns
        part = SUIT_COUNTS[suit](hand) if keys is None else keys[suit]
    elif isinstance(meld, SetMeld):
        rank = meld[0]
        if keys is None:
            have: tuple[int, ...] = RANK_COUNTS[rank](hand)
            part, held = have, any(have)
        else:
            part = keys[4 + rank]
            held = part > 0
        if not held and (meld.wilds or not wild_avail):
            return ()
    else:
        return ()
    key = (meld, tuple(wild_avail), part)
    found = _ADDS.get(key)
    if found is None:
        adds = _run_adds(meld, hand, wild_avail) if isinstance(meld, RunMeld) else _set_adds(meld, hand, wild_avail)
        numbers = ADD_TABLE.numbers
        group: list[int] = []
        for add in adds:
            number = numbers.get(add)
            group.append(ADD_TABLE.add(add, add) if number is None else number)
        found = remember(_ADDS, (tuple(meld), key[1], part), tuple(group))  # equal to ``key``: a lookup finds it
    return found


def _wild_two_ok(
    counts: list[int], two: int, lo: int, hi: int, m: int, natural_two_from_hand: bool, ace_movable: bool
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


def _set_adds(meld: SetMeld, counts: list[int], wild_avail: list[int]) -> Iterator[PlainAdd]:
    rank = meld.rank
    base = rank * 4
    have = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
    if meld.wilds:
        wild_avail = []  # one wild per meld (R7, R14): a wild below joins a set without one
    if not any(have):
        for w in wild_avail:
            yield (w,), (NO_SLOT,), None, (rank, meld.naturals, (w,))
        return
    for naturals in ((), *naturals_of(base, have)):
        merged = tuple(sorted(meld.naturals + naturals))
        if naturals:
            yield naturals, NO_SLOTS[len(naturals)], None, (rank, merged, meld.wilds)
        for w in wild_avail:
            yield (*naturals, w), NO_SLOTS[len(naturals) + 1], None, (rank, merged, (w,))


def _run_adds(run: RunMeld, counts: list[int], hand_wilds: list[int]) -> Iterator[PlainAdd]:
    """Adds to a run holding at most one wild, the classic limit (R13, R14)."""
    suit, lo, hi, wilds = run
    codes = POS_CODE[suit]
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
    gaps = 1 if wild_avail or displace else 0  # cells left without a natural: one if a wild can fill it
    for a in range(len(low_cells) + 1):
        lmiss = low_miss[a]
        if len(lmiss) > gaps:
            break
        for b in range(len(high_cells) + 1):
            if span + a + b > 13:
                break
            hmiss = high_miss[b]
            if len(lmiss) + len(hmiss) > gaps:
                break
            if a + b == 0 or (lo - a == 2 and hi + b == 14 and hi != 14):
                continue  # nothing added, or the 13-run already listed ace-low
            L, H = lo - a, hi + b
            cells = low_cells[:a] + high_cells[:b]
            missing = lmiss + hmiss
            if not has_wild:
                if not missing:
                    yield _run_option(run, L, H, cells, 0, -1, None, ())
                for m in missing or cells:
                    for w in wild_avail:
                        if w == two and not _wild_two_ok(counts, two, L, H, m, 2 in cells, ace_movable=14 in cells):
                            continue
                        yield _run_option(run, L, H, cells, m, w, None, ())
                continue
            if not missing:  # the wild stays in its slot (R9)
                yield _run_option(run, L, H, cells, 0, -1, None, wilds)
            if displace:  # R13: its natural comes in, it moves
                for f in missing or cells:
                    end = "low" if f < wild_pos else "high"
                    moved: tuple[tuple[int, int], ...] = () if (wild_card == two and f == 2) else ((f, wild_card),)
                    yield _run_option(run, L, H, cells, f, -1, end, moved, displaced_at=wild_pos)
    if displace and wild_card == two and wild_pos > 2 and lo >= 3 and hand_wilds:
        yield from _adds_after_two_lands(run, counts, hand_wilds)


def _adds_after_two_lands(run: RunMeld, counts: list[int], hand_wilds: list[int]) -> Iterator[PlainAdd]:
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
    for cards, slots, _end, fields in _run_adds(landed, rest, [w for w in hand_wilds if rest[w]]):
        # a second two of the suit could have been the natural one (R9): that add is listed already
        if any(slot >= 0 and card != two for card, slot in zip(cards, slots)):
            placed = sorted([(c, NO_SLOT) for c in lifted] + list(zip(cards, slots)))
            yield tuple(c for c, _ in placed), tuple(s for _, s in placed), "low", fields


def _misses(cells: list[int], counts: list[int], codes: tuple[int, ...]) -> list[list[int]]:
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
) -> PlainAdd:
    """Build the add that fills ``cells`` with naturals except ``free``.

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
        slots = one_slot(len(naturals), i, codes[free])
        wilds = ((free, wild),)
    else:
        slots = NO_SLOTS[len(naturals)]
    fields: Fields = (suit, L, H, wilds)
    if L == 2 and H == 14:
        fields = tuple(normalize_run(RunMeld(suit, L, H, wilds)))
    return tuple(naturals), slots, end, fields
