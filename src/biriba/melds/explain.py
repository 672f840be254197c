"""Why a meld or an add is refused, in words, naming the rule or the option (D32).

Only called once the enumeration has found nothing, to explain the refusal;
it never decides legality.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import JOKER, RANKS, SUITS, card_name, is_two, rank_of, suit_of
from ..errors import IllegalActionError
from ..rules import Rules, WildLimit
from .types import POS_CODE, Meld, RunMeld, SetMeld, WildMeld, format_placed


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
    if rules.wild_limit == WildLimit.ONE:
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
        if rules.wild_limit == WildLimit.ONE and meld.wilds and wild_like:
            return IllegalActionError("R14", f"the set {target} already holds a wild")
        if rules.wild_limit == WildLimit.ONE and len(wild_like) > 1:
            return IllegalActionError("R14", "never two wilds in a meld, not even for a moment")
        natural_count = len(meld.naturals) + len(cards) - len(wild_like)
        return too_many_wilds(rules, "set", natural_count, len(meld.wilds) + len(wild_like), text)
    assert isinstance(meld, RunMeld)
    suit, two = meld.suit, 4 + meld.suit
    not_wild = _slotted_naturals(cards, slots, rules)
    if not_wild is not None:
        return not_wild
    hand_wilds = [c for c, s in zip(cards, slots) if (c in rules.wild_kinds and c != two) or s >= 0]
    if rules.wild_limit == WildLimit.ONE and meld.wilds and hand_wilds:
        return IllegalActionError("R14", f"a wild may not be added to {target}, which already holds one")
    if rules.wild_limit == WildLimit.ONE and len(hand_wilds) > 1:
        return IllegalActionError("R14", "only 1 wild may go onto a run")
    naturals = [c for c in cards if c not in hand_wilds]
    if rules.wild_limit != WildLimit.ONE:
        wilds = len(meld.wilds) + len(hand_wilds)
        if wilds > rules.max_wilds(meld.size - len(meld.wilds) + len(naturals)):
            return too_many_wilds(rules, "run", meld.size - len(meld.wilds) + len(naturals), wilds, text)
    table = range(meld.lo, meld.hi + 1)
    if meld.wilds and two in naturals and not _two_fits_natural(table, [c for c in naturals if c != two]):
        if rules.wild_limit != WildLimit.ONE:  # the two would be a wild: judge it by the limit
            natural_count = meld.size - len(meld.wilds) + len(naturals) - 1
            wilds = len(meld.wilds) + len(hand_wilds) + 1
            return too_many_wilds(rules, "run", natural_count, wilds, text)
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
