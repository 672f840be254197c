"""What a seat knows of the cards it cannot see, and deals consistent with that knowledge.

A seat sees its own hand, every meld, the whole pile, and what the table saw
go into other hands (``view.known``: a taken pile, the wilds a dealer found
past the cut) until they are played.  :func:`unseen` is every other card:
somewhere in another hand, the stock or a reserve packet.
:func:`determinize` deals those unseen cards out at random into the places
and sizes the view gives, so that search can play a whole deal as if it saw
everything ("determinization", used by the search bot): the result is a
legal position whose view from the seat is the seat's own view.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import fields

from .cards import cards_of, deck_counts
from .deal import Deal
from .state import PublicState
from .views import PlayerView


def known_hands(view: PlayerView) -> list[list[int]]:
    """The cards each seat is known by ``view.seat`` to hold: its own hand whole, the others' seen cards."""
    out = [row[:] for row in view.known]
    if view.seat is not None:
        out[view.seat] = view.hand_counts()
    return out


def unseen(view: PlayerView) -> list[int]:
    """Counts of the cards ``view.seat`` cannot place: not in its hand, on the table, or seen going into a hand."""
    rules = view.rules
    counts = deck_counts(rules.packs, rules.jokers)
    gone: list[int] = []
    for row in known_hands(view):
        gone.extend(cards_of(row))
    for team in view.melds:
        for meld in team:
            gone.extend(meld.cards())
    gone.extend(view.discard)
    for card in gone:
        counts[card] -= 1
    if min(counts) < 0:
        raise ValueError("the view holds more copies of a card than the deck")
    return counts


def determinize(view: PlayerView, rng: random.Random, max_turns: int | None = None) -> Deal:
    """A full deal consistent with ``view``: every unseen card dealt at random to the hidden places.

    Another seat's hand is its known cards plus unseen ones up to its size;
    the stock and the packets not yet taken get the rest.  The seat's own
    view of the result is ``view`` itself.
    """
    if view.seat is None:
        raise ValueError("a spectator has no hand to build around")
    pool = cards_of(unseen(view))
    rng.shuffle(pool)
    hands = known_hands(view)
    for seat, size in enumerate(view.sizes):
        missing = size - sum(hands[seat])
        if missing < 0:
            raise ValueError(f"seat {seat} is known to hold more than its {size} cards")
        for card in pool[:missing]:
            hands[seat][card] += 1
        del pool[:missing]
    stock = tuple(pool[: view.stock_count])
    del pool[: view.stock_count]
    packets = []
    for size in view.packet_sizes:
        packets.append(tuple(pool[:size]))
        del pool[:size]
    if pool:
        raise ValueError(f"{len(pool)} unseen cards have no place: the view does not add up")
    return Deal.from_fields(
        view.rules,
        **_public_fields(view),
        hands=hands,
        stock=stock,
        packets=tuple(packets),
        reserve_packets=_inactive_packets(view, hands, rng),
        max_turns=max_turns,
    )


def _inactive_packets(view: PlayerView, hands: list[list[int]], rng: random.Random) -> list[tuple[int, ...]]:
    """The packet of each inactive reserve (R27 prices it): the seat's own as seen, another's sampled.

    Another holder's packet is cards of its hand that nobody has seen there.
    """
    out: list[tuple[int, ...]] = [() for _ in view.rules.teams]
    for team, reserve in enumerate(view.reserves):
        if reserve is None or reserve.active:
            continue
        if reserve.seat == view.seat:
            out[team] = view.packet
            continue
        counts = [n - k for n, k in zip(hands[reserve.seat], view.known[reserve.seat], strict=True)]
        out[team] = tuple(sorted(rng.sample(cards_of(counts), view.rules.packet_size)))
    return out


def _public_fields(view: PlayerView) -> dict[str, object]:
    """The view's public fields, as a deal's (copied: the deal will change them)."""
    out: dict[str, object] = {}
    for field in fields(PublicState):
        if field.name == "rules":
            continue
        value = getattr(view, field.name)
        if isinstance(value, list):
            value = [v[:] if isinstance(v, list) else v for v in value]
        out[field.name] = value
    return out


__all__: Sequence[str] = ["determinize", "known_hands", "unseen"]
