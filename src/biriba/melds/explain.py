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
            rules.cite("R7", "min_meld"), "meld_too_small", minimum=rules.min_meld, count=len(cards), cards=text
        )
    wild_like = [c for c in cards if c in rules.wild_kinds]
    naturals = [c for c in cards if c not in rules.wild_kinds]
    limit = rules.max_wilds(len(naturals))
    has_slots = any(s >= 0 for s in slots)
    if has_slots and naturals and len({rank_of(c) for c in naturals}) == 1 and len(naturals) > 1:
        return IllegalActionError("R10", "set_wild_no_slot", cards=text)
    if not has_slots and not rules.sets and len(naturals) > 1 and len({rank_of(c) for c in naturals}) == 1:
        return IllegalActionError("sets", "runs_only", cards=text)
    if not has_slots and naturals and len({rank_of(c) for c in naturals}) == 1:
        rank = RANKS[rank_of(naturals[0])]
        if len(wild_like) > limit and rules.sets:
            return too_many_wilds(rules, "set", len(naturals), len(wild_like), text)
        if len(naturals) + min(len(wild_like), limit) < rules.min_meld and rules.sets:
            return IllegalActionError("R7", "set_short", rank=rank, cards=text)
    if not naturals and not any(is_two(c) for c in cards):
        return IllegalActionError("R7", "no_joker_set", cards=text)
    if all(is_two(c) or c == JOKER for c in cards) and len({suit_of(c) for c in cards if c != JOKER}) > 1:
        return IllegalActionError("R7", "no_set_of_twos", cards=text)
    return _run_reason(cards, slots, rules)


def too_many_wilds(rules: Rules, kind: str, naturals: int, wilds: int, text: str) -> IllegalActionError:
    """A meld that would hold more wilds than its naturals allow: R7/R8, or option ``wild_limit`` in words."""
    if rules.wild_limit == WildLimit.ONE:
        if kind == "set":
            return IllegalActionError("R7", "set_one_wild", wilds=wilds, cards=text)
        return IllegalActionError("R8", "run_one_wild", wilds=wilds, cards=text)
    limit = rules.max_wilds(naturals)
    return IllegalActionError(
        "wild_limit", "wild_per_two_naturals", naturals=naturals, limit=limit, kind=kind, wilds=wilds, cards=text
    )


def _slotted_naturals(cards: Sequence[int], slots: Sequence[int], rules: Rules) -> IllegalActionError | None:
    """A slot named for a card that is no wild under these rules (option ``twos_wild``)."""
    for card, slot in zip(cards, slots):
        if slot >= 0 and card not in rules.wild_kinds:
            return IllegalActionError(
                "twos_wild",
                "only_jokers_stand_in",
                card=card_name(card),
                slot=card_name(slot),
                cards=format_placed(cards, slots),
            )
    return None


def _run_reason(cards: Sequence[int], slots: Sequence[int], rules: Rules) -> IllegalActionError:
    """The first rule a would-be run breaks."""
    text = format_placed(cards, slots)
    not_wild = _slotted_naturals(cards, slots, rules)
    if not_wild is not None:
        return not_wild
    slot_suits = {suit_of(s) for s in slots if s >= 0}
    plain = [c for c, s in zip(cards, slots) if s < 0]
    candidate_suits = slot_suits or {suit_of(c) for c in plain if c != JOKER and not is_two(c)}
    if len(candidate_suits) != 1:
        return IllegalActionError("R8", "no_rank_no_suit", cards=text)
    suit = candidate_suits.pop()
    two = 4 + suit
    naturals = [c for c in plain if c != JOKER and suit_of(c) == suit]
    if len([c for c in naturals if c == two]) > 1:
        naturals.remove(two)
    foreign = [c for c in plain if c not in rules.wild_kinds and suit_of(c) != suit]
    if foreign:
        if is_two(foreign[0]):
            return IllegalActionError("twos_wild", "only_jokers_wild", card=card_name(foreign[0]), cards=text)
        return IllegalActionError("R8", "wrong_suit", card=card_name(foreign[0]), suit=SUITS[suit], cards=text)
    ranks = [rank_of(c) for c in naturals]
    if len(set(ranks)) != len(ranks):
        return IllegalActionError("R8", "rank_twice", cards=text)
    wild_count = len(cards) - len(naturals)
    if wild_count > rules.max_wilds(len(naturals)):
        return too_many_wilds(rules, "run", len(naturals), wild_count, text)
    if len(cards) > 13:
        return IllegalActionError("R8", "run_too_long", cards=text)
    if 0 in ranks and 12 in ranks and (1 in ranks or 2 in ranks):
        return IllegalActionError("R8", "run_wraps", cards=text)
    for card, slot in zip(cards, slots):
        if slot >= 0 and card == two and slot != two and _two_fits_natural((), [c for c in naturals if c != two]):
            return IllegalActionError("R9", "two_natural_here", two=card_name(two), slot=card_name(slot), cards=text)
        if slot >= 0 and (suit_of(slot) != suit or rank_of(slot) in ranks):
            return IllegalActionError("R10", "not_a_free_rank", card=card_name(card), slot=card_name(slot), cards=text)
    if any(s >= 0 for s in slots):
        return IllegalActionError("R10", "slot_not_gap_or_end", cards=text)
    return IllegalActionError("R8", "not_consecutive", cards=text)


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
        return IllegalActionError("wild_melds", "wild_meld_takes_wilds", meld=target)
    if isinstance(meld, SetMeld):
        rank = meld.rank
        wrong = [c for c in cards if c not in rules.wild_kinds and rank_of(c) != rank]
        if wrong:
            return IllegalActionError("R7", "not_of_the_set", card=card_name(wrong[0]), rank=RANKS[rank], meld=target)
        if any(s >= 0 for s in slots):
            return IllegalActionError("R10", "set_wild_no_slot", cards=text)
        if rules.wild_limit == WildLimit.ONE and meld.wilds and wild_like:
            return IllegalActionError("R14", "set_holds_a_wild", meld=target)
        if rules.wild_limit == WildLimit.ONE and len(wild_like) > 1:
            return IllegalActionError("R14", "never_two_wilds")
        natural_count = len(meld.naturals) + len(cards) - len(wild_like)
        return too_many_wilds(rules, "set", natural_count, len(meld.wilds) + len(wild_like), text)
    assert isinstance(meld, RunMeld)
    suit, two = meld.suit, 4 + meld.suit
    not_wild = _slotted_naturals(cards, slots, rules)
    if not_wild is not None:
        return not_wild
    hand_wilds = [c for c, s in zip(cards, slots) if (c in rules.wild_kinds and c != two) or s >= 0]
    if rules.wild_limit == WildLimit.ONE and meld.wilds and hand_wilds:
        return IllegalActionError("R14", "run_holds_a_wild", meld=target)
    if rules.wild_limit == WildLimit.ONE and len(hand_wilds) > 1:
        return IllegalActionError("R14", "one_wild_onto_a_run")
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
        return IllegalActionError("R14", "two_not_natural_here", two=card_name(two), meld=target)
    wrong = [c for c in naturals if suit_of(c) != suit]
    if wrong and is_two(wrong[0]) and not rules.twos_wild:
        return IllegalActionError("twos_wild", "only_jokers_wild", card=card_name(wrong[0]), cards=text)
    if wrong:
        return IllegalActionError("R8", "not_of_the_run", card=card_name(wrong[0]), suit=SUITS[suit], meld=target)
    table_ranks = {rank_of(POS_CODE[suit][p]) for p in range(meld.lo, meld.hi + 1)}
    displaced = [p for p, _ in meld.wilds if POS_CODE[suit][p] in naturals]
    occupied = [c for c in naturals if rank_of(c) in table_ranks and not any(POS_CODE[suit][p] == c for p in displaced)]
    if occupied:
        return IllegalActionError("R8", "already_in_the_run", card=card_name(occupied[0]), meld=target)
    if displaced and end is None:
        return IllegalActionError("R13", "no_end_for_the_wild", meld=target)
    if displaced:
        return IllegalActionError("R13", "end_cannot_take_the_wild", end=end, meld=target)
    if meld.size + len(cards) > 13:
        return IllegalActionError("R8", "run_would_pass_13", meld=target)
    for card, slot in zip(cards, slots):
        if slot >= 0 and card == two and _two_fits_natural(table, naturals):
            return IllegalActionError("R9", "two_natural_no_slot", two=card_name(two))
        if slot >= 0:
            return IllegalActionError("R10", "cannot_stand_on", card=card_name(card), slot=card_name(slot), meld=target)
    if end is not None:
        return IllegalActionError("R13", "end_without_displacement", end=end)
    return IllegalActionError("R8", "does_not_extend", cards=text, meld=target)
