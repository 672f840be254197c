"""Melds in the notation: cards with their wild slots, and melds lying on the table."""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import JOKER, format_cards, is_two, parse_card, rank_of, suit_of
from ..errors import NotationError
from ..rules import Rules
from .explain import too_many_wilds
from .types import NO_SLOT, Meld, RunMeld, SetMeld, WildMeld, normalize_run


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
        raise NotationError(str(too_many_wilds(rules, "set", len(naturals), len(wilds), format_cards(cards))))
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
            best = normalize_run(RunMeld(suit, lo, hi, wilds))
            break
    if best is None:
        raise NotationError("the cards are not consecutive ranks of one suit (R8)")
    if any(c not in rules.wild_kinds for _, c in best.wilds):
        raise NotationError("twos are not wild under these rules (R6)")
    naturals = best.size - len(best.wilds)
    if len(best.wilds) > rules.max_wilds(naturals):
        raise NotationError(str(too_many_wilds(rules, "run", naturals, len(best.wilds), best.text())))
    if best.size < rules.min_meld:
        raise NotationError(f"a meld has at least {rules.min_meld} cards (R8)")
    return best
