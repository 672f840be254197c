"""Listing every meld and add a hand allows, and resolving a typed one (R6..R14).

The engine lists legal actions with :func:`meld_options` / :func:`add_options`
and checks a typed action by enumerating with exactly the action's cards
(:func:`resolve_meld`, :func:`resolve_add`), so the list and the check cannot
disagree.  Each dispatches to the fast one-wild enumerator
(:mod:`.classic`) or the general one (:mod:`.general`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from ..cards import counts_of
from ..rules import Rules, WildLimit
from .classic import (
    Placed,
    classic_adds,
    classic_meld_of,
    classic_melds,
    classic_placed_melds,
    classic_placements,
    classic_plain_adds,
)
from .explain import explain_add, explain_meld
from .general import general_adds, general_melds, wild_meld_adds, wild_melds
from .memo import hand_keys
from .types import AddOption, Meld, Placement, PlainAdd, RunMeld, WildMeld


def meld_options(counts: Sequence[int], rules: Rules, wilds_ok: bool = True) -> Iterator[Meld]:
    """Every distinct meld that the multiset ``counts`` can lay down (R6..R10).

    ``wilds_ok=False`` keeps wilds out of sets and runs (seed 002's three-handed
    game, while a wild-card meld is unfinished).

    >>> from biriba.cards import counts_of, parse_cards
    >>> from biriba.rules import CLASSIC
    >>> sorted(m.text() for m in meld_options(counts_of(parse_cards("7H 8H 9H JK")), CLASSIC))[:3]
    ['7H 8H 9H', '7H 8H 9H JK=TH', '7H 8H JK=9H']
    """
    return melds_with(counts, rules, hand_wilds(counts, rules, wilds_ok))


def melds_with(counts: Sequence[int], rules: Rules, wild_avail: list[int]) -> Iterator[Meld]:
    """:func:`meld_options` with the hand's usable wilds worked out once (:func:`hand_wilds`)."""
    if rules.wild_limit == WildLimit.ONE:
        yield from classic_melds(counts, rules, wild_avail)
    else:
        yield from general_melds(counts, rules, wild_avail)
    if rules.wild_melds:
        yield from wild_melds(counts, rules)


def meld_placements(
    counts: Sequence[int], rules: Rules, wild_avail: list[int], keys: list[int] | None = None
) -> Iterable[Placement]:
    """The same melds as :func:`meld_options`, as the cards and slots of ``meld`` actions.

    ``wild_avail`` is the hand's usable wilds (:func:`hand_wilds`), ``keys``
    the hand's keys if the caller has them (:func:`~.memo.hand_keys`).  In
    the common one-wild case they are built straight from the enumeration,
    without meld objects: listing legal actions is the engine's hottest path.
    """
    if not rules.simple_wilds:
        return ((meld.cards(), meld.slots()) for meld in melds_with(counts, rules, wild_avail))
    return classic_placements(counts, rules, wild_avail, keys)


def placed_melds(
    counts: Sequence[int], rules: Rules, wild_avail: list[int], keys: list[int] | None = None
) -> Iterator[Placed]:
    """The melds of :func:`melds_with`, each with its placement: for a bot that weighs melds as actions."""
    if rules.simple_wilds:
        return classic_placed_melds(counts, rules, wild_avail, keys)
    return ((meld, (meld.cards(), meld.slots())) for meld in melds_with(counts, rules, wild_avail))


def hand_wilds(counts: Sequence[int], rules: Rules, wilds_ok: bool = True) -> list[int]:
    """The wild kinds in the hand that may go into sets and runs (``wilds_ok``: see :func:`meld_options`)."""
    found: list[int] = []
    if wilds_ok:
        for w in rules.wild_kinds:  # a loop, not a comprehension: this runs at every decision
            if counts[w]:
                found.append(w)
    return found


def add_options(meld: Meld, counts: Sequence[int], rules: Rules, wilds_ok: bool = True) -> Iterator[AddOption]:
    """Every distinct multiset of ``counts`` that can go onto ``meld`` in one add.

    Adding several cards is adding them one at a time in some order, each step
    obeying R13 and R14; the options are the distinct results, told apart by
    the cards, the slot of an added wild and the end a displaced wild takes.
    ``wilds_ok=False`` keeps hand wilds off sets and runs (see :func:`meld_options`).
    """
    return iter(adds_with(meld, counts, rules, hand_wilds(counts, rules, wilds_ok)))


def adds_with(
    meld: Meld, counts: Sequence[int], rules: Rules, wild_avail: list[int], keys: list[int] | None = None
) -> Iterable[AddOption]:
    """:func:`add_options` with the hand's usable wilds worked out once (:func:`hand_wilds`).

    ``keys``: the hand's keys (:func:`~.memo.hand_keys`), if the caller lists many adds.
    """
    if isinstance(meld, WildMeld):
        return wild_meld_adds(meld, counts, rules)
    if rules.wild_limit != WildLimit.ONE:
        return general_adds(meld, counts, rules, wild_avail)
    return classic_adds(meld, counts, wild_avail, keys)


def adds_under(
    rules: Rules,
) -> Callable[[Meld, Sequence[int], list[int], list[int] | None], Iterable[PlainAdd]]:
    """:func:`adds_with` for these rules as a function of ``(meld, counts, wild_avail, keys)``, dispatched once.

    Listing legal actions asks it of every team meld at every decision, and
    reads only each add's cards, slots and end, its first three fields: in
    the one-wild case the adds come as remembered, the melds as plain tuples.
    """
    if rules.simple_wilds:
        return classic_plain_adds
    return lambda meld, counts, wild_avail, _keys: adds_with(meld, counts, rules, wild_avail)


def listed_meld(
    cards: Sequence[int], slots: Sequence[int], counts: Sequence[int], rules: Rules, keys: list[int] | None = None
) -> Meld | None:
    """The meld a ``meld`` action from the listing lays down, looked up in the hand's remembered lists.

    ``None`` when the action is not among them as written, or for rules
    without the fast lists: then :func:`resolve_meld` decides.  Playing a
    listed action this way skips enumerating its cards again.  ``keys``:
    :func:`~.memo.hand_keys` of ``counts``, if the caller has them.
    """
    if not rules.simple_wilds:
        return None
    return classic_meld_of(counts, rules, hand_wilds(counts, rules), (tuple(cards), tuple(slots)), keys)


def listed_add(
    meld: Meld,
    cards: Sequence[int],
    slots: Sequence[int],
    end: str | None,
    counts: Sequence[int],
    rules: Rules,
    keys: list[int] | None = None,
) -> Meld | None:
    """The meld an ``add`` action from the listing leaves, looked up like :func:`listed_meld`."""
    cards, slots = tuple(cards), tuple(slots)
    if keys is None:
        keys = hand_keys(counts)
    for option in adds_under(rules)(meld, counts, hand_wilds(counts, rules), keys):  # as listed
        if option[0] == cards and option[1] == slots and option[2] == end:
            return tuple.__new__(type(meld), option[3])  # an add keeps the meld's kind; only the match is built
    return None


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
