"""A slow, literal reading of the meld rules, to check the engine's fast enumeration.

New melds: every arrangement of a multiset as a set or a run (R7, R8, R10),
then R9 (a two of the run's suit played from the hand is natural when it can
be).  Adds: every order of adding the cards one at a time, each step obeying
R13 (a displaced wild moves to either end) and R14 (never two wilds), then
R9 again.  Results are compared as sets of final melds.
"""

from __future__ import annotations

from itertools import permutations

from biriba.cards import JOKER, rank_of, suit_of
from biriba.melds import POS_CODE, RunMeld, SetMeld, _normalize

Meld = RunMeld | SetMeld


def positions(card: int) -> tuple[int, ...]:
    rank = rank_of(card)
    return (1, 14) if rank == 0 else (rank + 1,)


def is_wild_card(card: int) -> bool:
    return card == JOKER or 4 <= card <= 7


def reference_melds(cards: list[int]) -> set[Meld]:
    out: set[Meld] = set()
    if len(cards) < 3:
        return out
    # sets: naturals of one rank (not two), at most one wild
    naturals = [c for c in cards if not is_wild_card(c)]
    wilds = [c for c in cards if is_wild_card(c)]
    if naturals and len({rank_of(c) for c in naturals}) == 1 and len(wilds) <= 1:
        out.add(SetMeld(rank_of(naturals[0]), tuple(sorted(naturals)), tuple(sorted(wilds))))
    # runs
    results: list[tuple[int, RunMeld]] = []  # (hand twos left wild, meld)
    for suit in range(4):
        two = 4 + suit
        n_two = cards.count(two)
        for natural_twos in range(0, min(1, n_two) + 1):
            nat = [c for c in cards if c != two and not is_wild_card(c)]
            wild = [c for c in cards if c != two and is_wild_card(c)] + [two] * (n_two - natural_twos)
            if any(suit_of(c) != suit for c in nat) or len(wild) > 1:
                continue
            nat = nat + [two] * natural_twos
            if len({rank_of(c) for c in nat}) != len(nat):
                continue
            for ace in (1, 14):
                pos = sorted(ace if rank_of(c) == 0 else rank_of(c) + 1 for c in nat)
                lo, hi = pos[0], pos[-1]
                if wild:
                    spots = [p for p in range(lo, hi + 1) if p not in pos]
                    if not spots:
                        spots = [p for p in (lo - 1, hi + 1) if 1 <= p <= 14]
                    if len(spots) > 1 and any(lo < p < hi for p in spots):
                        continue
                    for f in spots:
                        full = sorted([*pos, f])
                        if full[-1] - full[0] + 1 != len(full) or len(full) > 13:
                            continue
                        meld = _normalize(RunMeld(suit, full[0], full[-1], ((f, wild[0]),)))
                        results.append((wild.count(two), meld))
                elif hi - lo + 1 == len(pos) <= 13:
                    results.append((0, _normalize(RunMeld(suit, lo, hi))))
    if results:
        fewest = min(n for n, _ in results)
        out.update(m for n, m in results if n == fewest)
    return out


def _add_one(run: RunMeld, card: int, from_hand_wild: frozenset[int]) -> list[tuple[RunMeld, frozenset[int]]]:
    """Every state after adding one card to ``run`` (R13, R14).

    ``from_hand_wild`` holds the positions of wilds that are the run's own two
    played from the hand (R9 judges those at the end).
    """
    suit, lo, hi, wilds = run
    two = 4 + suit
    out = []
    wild_at = dict(wilds)
    ends = [p for p in (lo - 1, hi + 1) if 1 <= p <= 14 and hi - lo + 2 <= 13]
    if card == two or (not is_wild_card(card) and suit_of(card) == suit):
        for p in positions(card):
            if p in ends:
                out.append((RunMeld(suit, min(lo, p), max(hi, p), wilds), from_hand_wild))
            if p in wild_at:  # R13: the natural takes the slot, the wild moves to an end
                moved = wild_at[p]
                for e in ends:
                    rest = {q: c for q, c in wild_at.items() if q != p}
                    tracked = set(from_hand_wild) - {p}
                    if not (moved == two and e == 2):
                        rest[e] = moved
                        if p in from_hand_wild:
                            tracked.add(e)
                    new = RunMeld(suit, min(lo, e), max(hi, e), tuple(sorted(rest.items())))
                    out.append((new, frozenset(tracked)))
    if is_wild_card(card) and not wilds:  # R14: never a second wild
        for e in ends:
            tracked = from_hand_wild | {e} if card == two else from_hand_wild
            out.append((RunMeld(suit, min(lo, e), max(hi, e), ((e, card),)), tracked))
    return out


def reference_adds(meld: Meld, cards: list[int]) -> set[Meld]:
    if not cards:
        return set()
    if isinstance(meld, SetMeld):
        wilds = [c for c in cards if is_wild_card(c)]
        nat = [c for c in cards if not is_wild_card(c)]
        if any(rank_of(c) != meld.rank for c in nat) or len(wilds) + len(meld.wilds) > 1:
            return set()
        return {SetMeld(meld.rank, tuple(sorted(meld.naturals + tuple(nat))), tuple(sorted(meld.wilds + tuple(wilds))))}
    results: set[tuple[int, RunMeld]] = set()
    for order in set(permutations(cards)):
        states = [(meld, frozenset[int]())]
        for card in order:
            states = [nxt for run, tracked in states for nxt in _add_one(run, card, tracked)]
        for run, tracked in states:
            results.add((len(tracked), _normalize(run)))
    if not results:
        return set()
    fewest = min(n for n, _ in results)
    return {m for n, m in results if n == fewest}


__all__ = ["POS_CODE", "reference_adds", "reference_melds"]
