"""Dealing a deck out (R4): hands, reserve packets, the upcard and the stock.

A deal is a function of the deck order and the dealer, so a record's deck
replays exactly.  The variant steps (the dealer's cut and the wilds found
past it, the redeal of a bad upcard) draw their randomness from the deck
itself for the same reason.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from .rules import Rules

#: Upcards that option ``upcard_redeal`` sends back into the stock: red threes (and wilds).
RED_THREES = (9, 10)

#: How far a person's cut lands from the aim: a normal spread of this many cards, rounded
#: (option ``cut_bonus``; rules D22: about 20% of cuts exact, 35% one card off).
CUT_SPREAD = 2.0


class Layout(NamedTuple):
    """A deck dealt out (R4): hands, packets, upcard and stock, and how the dealer cut."""

    hands: list[list[int]]
    packets: list[tuple[int, ...]]
    upcard: int
    stock: tuple[int, ...]
    cut: int | None  # cards the dealer's cut missed the aim by (signed); None if no cut is modelled
    cut_wilds: tuple[int, ...]  # wilds found just past the cut, in the dealer's hand (option bottom_wilds)


def deal_order(rules: Rules, deck: Sequence[int], dealer: int) -> Layout:
    """Split a deck, listed top first, into hands, packets, upcard and stock (R4).

    With ``cut_bonus`` or ``bottom_wilds`` the dealer cuts, aiming at the
    cards of the hands and the upcard; the cut misses by a rounded normal
    error of :data:`CUT_SPREAD` cards.  With ``bottom_wilds`` the three cards
    just past the cut are looked at: each wild among them goes to the
    dealer's hand and the next card comes into view, until the three hold no
    wild; the dealer is then dealt only the rest of the hand (rules D22).
    With ``upcard_redeal`` a wild or red-three upcard is shuffled back into
    the stock and the next card turned, unless no card of the stock could
    take its place (rules D38).  Both draw their randomness from the
    deck itself, so the deal stays a function of the deck order.
    """
    seats, size = rules.seats, rules.hand_size
    cards = list(deck)
    cut: int | None = None
    found: list[int] = []
    if rules.cut_bonus or rules.bottom_wilds:
        aim = seats * size + 1
        cut = round(random.Random("cut:" + ",".join(map(str, deck))).gauss(0, CUT_SPREAD))
        cut = max(1 - aim, min(cut, len(cards) - aim - 4))
        if rules.bottom_wilds:
            at = aim + cut
            while len(found) < size:
                seen = next((i for i in range(at, at + 3) if cards[i] in rules.wild_kinds), None)
                if seen is None:
                    break
                found.append(cards.pop(seen))
    hands: list[list[int]] = [[] for _ in range(seats)]
    hands[dealer].extend(found)
    at = 0
    for _ in range(size):
        for step in range(1, seats + 1):
            hand = hands[(dealer + step) % seats]
            if len(hand) < size:
                hand.append(cards[at])
                at += 1
    packets = []
    for _ in range(rules.packets):
        packets.append(tuple(cards[at : at + rules.packet_size]))
        at += rules.packet_size
    upcard = cards[at]
    stock = cards[at + 1 :]
    if rules.upcard_redeal:
        shuffle = random.Random(",".join(map(str, deck)))
        bad = {*rules.wild_kinds, *RED_THREES}
        while upcard in bad and not bad.issuperset(stock):  # no good card left to turn: it stays (D38)
            stock.insert(shuffle.randrange(len(stock) + 1), upcard)
            upcard = stock.pop(0)
    return Layout(hands, packets, upcard, tuple(stock), cut, tuple(found))
