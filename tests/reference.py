"""A slow, literal reading of the meld rules, to check the engine's fast enumeration.

New melds: every arrangement of a multiset as a set, a run or (where the
rules allow) a meld of wilds only (R7, R8, R10), then R9 (a two of the run's
suit played from the hand is natural when it can be).  Adds: every order of
adding the cards one at a time, each step obeying R13 (a displaced wild
moves to either end); with one wild per meld R14 holds at every step, with
seed 004's one wild per two naturals the limit is judged on the result and
one add moves at most one wild (rules D10, D11).  Results are compared as
sets of final melds.
"""

from __future__ import annotations

from itertools import permutations

from biriba.cards import rank_of, suit_of
from biriba.melds import RunMeld, SetMeld, WildMeld
from biriba.melds.types import normalize_run
from biriba.rules import CLASSIC, Rules

Meld = RunMeld | SetMeld | WildMeld


def positions(card: int) -> tuple[int, ...]:
    rank = rank_of(card)
    return (1, 14) if rank == 0 else (rank + 1,)


def reference_melds(cards: list[int], rules: Rules = CLASSIC) -> set[Meld]:
    out: set[Meld] = set()
    if len(cards) < rules.min_meld:
        return out
    wild = rules.wild_kinds
    naturals = [c for c in cards if c not in wild]
    wilds = sorted(c for c in cards if c in wild)
    if not naturals and rules.wild_melds:
        out.add(WildMeld(tuple(wilds)))
    set_ok = (
        naturals and len({rank_of(c) for c in naturals}) == 1 and (rank_of(naturals[0]) != 1 or not rules.twos_wild)
    )
    if set_ok and len(wilds) <= rules.max_wilds(len(naturals)):
        out.add(SetMeld(rank_of(naturals[0]), tuple(sorted(naturals)), tuple(wilds)))
    results: list[tuple[int, RunMeld]] = []  # (hand twos left wild, meld)
    for suit in range(4):
        two = 4 + suit
        n_two = cards.count(two)
        for natural_twos in range(0, min(1, n_two) + 1) if two in wild else (n_two,):
            nat = [c for c in cards if c != two and c not in wild] + [two] * natural_twos
            run_wilds = [c for c in cards if c != two and c in wild] + [two] * (n_two - natural_twos)
            if any(suit_of(c) != suit for c in nat) or len({rank_of(c) for c in nat}) != len(nat) or not nat:
                continue
            for ace in (1, 14):
                pos = sorted(ace if rank_of(c) == 0 else rank_of(c) + 1 for c in nat)
                results += [(run_wilds.count(two), m) for m in _arrangements(suit, pos, run_wilds, rules)]
    if results:
        fewest = min(n for n, _ in results)
        out.update(m for n, m in results if n == fewest)
    return out


def _arrangements(suit: int, pos: list[int], wilds: list[int], rules: Rules) -> set[RunMeld]:
    """Runs with these natural positions and these wilds in the gaps and at the ends."""
    out: set[RunMeld] = set()
    lo, hi = pos[0], pos[-1]
    gaps = [p for p in range(lo, hi + 1) if p not in pos]
    if len(pos) != len(set(pos)) or len(gaps) > len(wilds) or len(wilds) > rules.max_wilds(len(pos)):
        return out
    spare = len(wilds) - len(gaps)
    for below in range(spare + 1):
        cells = gaps + list(range(lo - below, lo)) + list(range(hi + 1, hi + 1 + spare - below))
        L, H = lo - below, hi + spare - below
        if L < 1 or H > 14 or H - L + 1 > 13:
            continue
        for order in set(permutations(wilds)):
            out.add(normalize_run(RunMeld(suit, L, H, tuple(sorted(zip(cells, order))))))
    return out


def _add_one(
    run: RunMeld, card: int, state: tuple[frozenset[int], int], rules: Rules
) -> list[tuple[RunMeld, tuple[frozenset[int], int]]]:
    """Every state after adding one card to ``run`` (R13, and R14 under the one-wild limit).

    ``state`` tracks the positions of wilds that are the run's own two played
    from the hand (R9 judges those at the end) and how many wilds moved.
    """
    suit, lo, hi, wilds = run
    tracked, moves = state
    two = 4 + suit
    out = []
    wild_at = dict(wilds)
    ends = [p for p in (lo - 1, hi + 1) if 1 <= p <= 14 and hi - lo + 2 <= 13]
    if (card not in rules.wild_kinds or card == two) and (card == two or suit_of(card) == suit):
        for p in positions(card):
            if p in ends:
                out.append((RunMeld(suit, min(lo, p), max(hi, p), wilds), state))
            if p in wild_at:  # R13: the natural takes the slot, the wild moves to an end
                moved = wild_at[p]
                for e in ends:
                    rest = {q: c for q, c in wild_at.items() if q != p}
                    kept = set(tracked) - {p}
                    if not (moved == two and e == 2):
                        rest[e] = moved
                        if p in tracked:
                            kept.add(e)
                    new = RunMeld(suit, min(lo, e), max(hi, e), tuple(sorted(rest.items())))
                    out.append((new, (frozenset(kept), moves + 1)))
    if card in rules.wild_kinds and (rules.wild_limit != "one" or not wilds):  # R14
        for e in ends:
            kept = tracked | {e} if card == two else tracked
            out.append(
                (RunMeld(suit, min(lo, e), max(hi, e), tuple(sorted({**wild_at, e: card}.items()))), (kept, moves))
            )
    return out


def reference_adds(meld: Meld, cards: list[int], rules: Rules = CLASSIC) -> set[Meld]:
    if not cards:
        return set()
    wild = rules.wild_kinds
    if isinstance(meld, WildMeld):
        return {WildMeld(tuple(sorted(meld.wilds + tuple(cards))))} if all(c in wild for c in cards) else set()
    if isinstance(meld, SetMeld):
        wilds = [c for c in cards if c in wild]
        nat = [c for c in cards if c not in wild]
        if any(rank_of(c) != meld.rank for c in nat):
            return set()
        total = len(meld.wilds) + len(wilds)
        if rules.wild_limit == "one" and total > 1:
            return set()
        if total > rules.max_wilds(len(meld.naturals) + len(nat)):
            return set()
        return {SetMeld(meld.rank, tuple(sorted(meld.naturals + tuple(nat))), tuple(sorted(meld.wilds + tuple(wilds))))}
    results: set[tuple[int, RunMeld]] = set()
    for order in set(permutations(cards)):
        states = [(meld, (frozenset[int](), 0))]
        for card in order:
            states = [nxt for run, st in states for nxt in _add_one(run, card, st, rules)]
        for run, (tracked, moves) in states:
            over_limit = len(run.wilds) > rules.max_wilds(run.size - len(run.wilds))
            if rules.wild_limit != "one" and (moves > 1 or over_limit):
                continue
            results.add((len(tracked), normalize_run(run)))
    if not results:
        return set()
    fewest = min(n for n, _ in results)
    return {m for n, m in results if n == fewest}


__all__ = ["reference_adds", "reference_melds"]
