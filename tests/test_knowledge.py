"""What a seat knows, and the deals search samples from that knowledge (determinization)."""

from __future__ import annotations

import math
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biriba.cards import parse_card
from biriba.deal import Deal
from biriba.knowledge import determinize, known_hands, unseen
from biriba.rules import PRESETS
from helpers import play, position


def midgame(seed: int, preset: str = "classic", steps: int | None = None) -> Deal:
    rng = random.Random(seed)
    deal = Deal.shuffled(seed, rules=PRESETS[preset], max_turns=300)
    for _ in range(steps if steps is not None else rng.randrange(5, 120)):
        if deal.is_over:
            break
        actions = list(deal.legal_actions())
        takes = [a for a in actions if a.kind == "take"]
        deal.apply(takes[0] if takes and rng.random() < 0.4 else rng.choice(actions), check=False)
    return deal


def test_a_taken_pile_is_known_until_it_is_played() -> None:
    deal = position({0: "9C QD KS", 1: "5H 6H 8D"}, discard="4C 7H", phase="draw", to_move=1)
    play(deal, "take")
    view = deal.view_for(0)
    assert known_hands(view)[1][parse_card("7H")] == 1 and known_hands(view)[1][parse_card("4C")] == 1
    play(deal, "meld 5H 6H 7H")
    assert deal.view_for(0).known[1][parse_card("7H")] == 0  # played: no longer in the hand
    play(deal, "discard 4C")
    assert sum(deal.view_for(0).known[1]) == 0
    assert unseen(deal.view_for(0))[parse_card("9C")] == 1  # the second copy, wherever it is


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from(sorted(PRESETS)), st.integers(0, 5))
def test_every_sample_is_a_legal_deal_that_looks_the_same_from_the_seat(seed: int, preset: str, which: int) -> None:
    deal = midgame(seed, preset)
    if deal.is_over:
        return
    seat = which % deal.rules.seats
    view = deal.view_for(seat)
    sample = determinize(view, random.Random(seed))
    sample.assert_consistent()
    assert sample.view_for(seat) == view
    for other in range(deal.rules.seats):
        for code, count in enumerate(view.known[other]):
            assert sample.hands[other][code] >= count  # seen cards stay where they were seen
    if seat == deal.to_move:
        assert sorted(map(str, sample.legal_actions())) == sorted(map(str, deal.legal_actions()))


def test_unseen_cards_are_spread_uniformly() -> None:
    deal = midgame(7, steps=40)
    view = deal.view_for(0)
    pool = unseen(view)
    total = sum(pool)
    east_slots = view.sizes[1] - sum(view.known[1])
    runs = 3000
    landed = [0] * len(pool)
    rng = random.Random(11)
    for _ in range(runs):
        sample = determinize(view, rng)
        for code, count in enumerate(sample.hands[1]):
            landed[code] += count - view.known[1][code]
    chi2 = 0.0
    kinds = 0
    for code, count in enumerate(pool):
        if count:
            expected = runs * count * east_slots / total
            chi2 += (landed[code] - expected) ** 2 / expected
            kinds += 1
    df = kinds - 1
    critical = df * (1 - 2 / (9 * df) + 3.09 * math.sqrt(2 / (9 * df))) ** 3  # p = 0.001, Wilson-Hilferty
    assert chi2 < critical, (chi2, critical)
    assert sum(landed) == runs * east_slots


def test_an_inactive_reserve_keeps_its_packet_in_every_sample() -> None:
    """R27 prices an inactive reserve by its packet: the taker saw it, the others sample it from its hand."""
    from biriba.bots import make_bot

    deal = Deal.shuffled(1, max_turns=300)
    bots = [make_bot("greedy", s) for s in range(4)]
    while not any(r is not None and not r.active for r in deal.reserves):
        deal.apply(bots[deal.to_move].choose(deal.view_for(deal.to_move), list(deal.legal_actions())))
    team = next(t for t, r in enumerate(deal.reserves) if r is not None and not r.active)
    holder = deal.reserves[team].seat  # type: ignore[union-attr]
    packet = deal.reserve_packets[team]
    own = deal.view_for(holder)
    assert own.packet == packet and "packet" in own.to_json()
    assert determinize(own, random.Random(1)).reserve_packets[team] == packet
    other = deal.view_for((holder + 1) % 4)
    assert other.packet == () and "packet" not in other.to_json()
    rng = random.Random(2)
    for _ in range(20):
        sample = determinize(other, rng)
        sampled = sample.reserve_packets[team]
        assert len(sampled) == len(packet)
        hand = list(sample.hands[holder])
        for card in sampled:
            hand[card] -= 1
        assert min(hand) >= 0  # the sampled packet is in the taker's hand
