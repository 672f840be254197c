"""The general enumerator: several wilds per meld (seed 004's limit) and melds of wilds only.

Slower than :mod:`.classic` because it tries each way to fill the missing
positions with wilds, then keeps, per multiset of hand cards, the
arrangements that leave the fewest twos of the run's suit wild (R9 judged on
the whole action, D1).  It serves every limit, the classic one included,
which is how ``tests/test_melds_paths.py`` checks the fast path against it.
Its lists of runs per suit, sets per rank and adds per meld are remembered
by the part of the hand they read and the wild limit (:mod:`.memo`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, product
from typing import Final

from .. import caches
from ..rules import Rules, WildLimit
from .memo import RANK_COUNTS, SUIT_COUNTS, remember
from .types import (
    NO_SLOT,
    NO_SLOTS,
    POS_CODE,
    RUN_CODES,
    AddOption,
    Meld,
    RunMeld,
    SetMeld,
    WildMeld,
    naturals_of,
    normalize_run,
    set_ranks,
)


def wild_melds(counts: Sequence[int], rules: Rules) -> Iterator[WildMeld]:
    """Melds of wilds only: the wild-card biriba of seed 002's three-handed game (option wild_melds)."""
    for wilds in _wild_multisets(counts, rules.wild_kinds, rules.min_meld):
        yield WildMeld(wilds)


def wild_meld_adds(meld: WildMeld, counts: Sequence[int], rules: Rules) -> Iterator[AddOption]:
    """Wilds added to a wild-card meld."""
    for wilds in _wild_multisets(counts, rules.wild_kinds, 1):
        yield AddOption(wilds, NO_SLOTS[len(wilds)], None, WildMeld(tuple(sorted(meld.wilds + wilds))))


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


_MELDS: Final[dict[tuple[object, ...], tuple[Meld, ...]]] = {}
_ADDS: Final[dict[tuple[object, ...], tuple[AddOption, ...]]] = {}
# Counted by the melds and adds they hold, not their lists: one suit's runs of a huge hand under the half wild
# limit are a single list of hundreds of thousands of melds (soak deal 733970), which the budget must see.
caches.register("general melds", lambda: sum(map(len, _MELDS.values())), _MELDS.clear)
caches.register("general adds", lambda: sum(map(len, _ADDS.values())), _ADDS.clear)


def general_melds(counts: Sequence[int], rules: Rules, wild_avail: list[int]) -> Iterator[Meld]:
    """New sets and runs with up to one wild per two naturals (remembered per suit and rank)."""
    head = (rules.wild_limit, rules.min_meld, tuple((w, counts[w]) for w in wild_avail))
    memo = _MELDS
    for suit in range(4):
        key = (*head, suit, SUIT_COUNTS[suit](counts))
        found = memo.get(key)
        if found is None:
            found = remember(memo, key, tuple(_fewest_wild_twos(list(_suit_runs(counts, suit, rules, wild_avail)))))
        yield from found
    for rank in set_ranks(rules):
        have = RANK_COUNTS[rank](counts)
        if not any(have):
            continue
        key = (*head, rank + 4, have)
        found = memo.get(key)
        if found is None:
            found = remember(memo, key, tuple(_rank_sets(rank, have, counts, rules, wild_avail)))
        yield from found


def _suit_runs(
    counts: Sequence[int], suit: int, rules: Rules, wild_avail: list[int]
) -> Iterator[tuple[Meld, tuple[int, ...], int]]:
    """Every run of ``suit`` with its multiset of hand cards and its count of wild twos of the suit."""
    minimum = rules.min_meld
    wild_total = sum(counts[w] for w in wild_avail)
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
                        run = normalize_run(RunMeld(suit, lo, hi, tuple(zip(cells, row))))
                        yield run, tuple(sorted(run.cards())), row.count(two)


def _rank_sets(
    rank: int, have: tuple[int, ...], counts: Sequence[int], rules: Rules, wild_avail: list[int]
) -> Iterator[Meld]:
    for naturals in naturals_of(rank * 4, have):
        for wilds in ((), *_wild_multisets(counts, wild_avail, 1)):
            if len(naturals) + len(wilds) >= rules.min_meld and len(wilds) <= rules.max_wilds(len(naturals)):
                yield SetMeld(rank, naturals, wilds)


def general_adds(meld: Meld, counts: Sequence[int], rules: Rules, wild_avail: list[int]) -> tuple[AddOption, ...]:
    """Adds under a wild limit of one per two naturals, judged on the meld after the add (remembered).

    One add moves at most one wild (the natural of its slot comes in); it goes
    to an end or a gap beyond the run as at the moment it moved (R13).
    """
    if isinstance(meld, SetMeld):
        part = RANK_COUNTS[meld.rank](counts)
    elif isinstance(meld, RunMeld):
        suit, lo, hi, wilds = meld
        codes = POS_CODE[suit]
        if not wild_avail and not (
            (lo > 1 and counts[codes[lo - 1]])
            or (hi < 14 and counts[codes[hi + 1]])
            or any(counts[codes[p]] for p, _ in wilds)
        ):
            return ()  # no wild in hand and no natural next to the run or for its wilds' places
        part = SUIT_COUNTS[suit](counts)
    else:
        return ()  # wild-card melds: wild_meld_adds
    key = (meld, rules.wild_limit, tuple((w, counts[w]) for w in wild_avail), part)
    found = _ADDS.get(key)
    if found is None:
        found = remember(_ADDS, key, tuple(_general_adds(meld, counts, rules, wild_avail)))
    return found


def _general_adds(meld: Meld, counts: Sequence[int], rules: Rules, wild_avail: list[int]) -> Iterator[AddOption]:
    if isinstance(meld, SetMeld):
        base = meld.rank * 4
        have = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
        for naturals in ((), *naturals_of(base, have)):
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
    one_wild = rules.wild_limit == WildLimit.ONE  # R14: never two wilds, not even for a moment of the add
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
                            if one_wild and moved and hand_cells and any(3 <= p < lo for p in hand_cells):
                                continue  # the moved two reaches rank 2 only over naturals, before any wild (D2)
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
    new = normalize_run(RunMeld(suit, L, H, tuple(sorted(wild_at.items()))))
    return AddOption(tuple(c for c, _ in placed), tuple(s for _, s in placed), end, new)
