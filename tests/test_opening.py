"""The opening-minimum search (D18) and its bound, biriba.opening, against a plain search of every order."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biriba.actions import Action
from biriba.bots import make_bot
from biriba.cards import NAMES
from biriba.deal import Deal
from biriba.errors import IllegalActionError
from biriba.opening import Choices
from biriba.records import position_from_json
from biriba.rules import CLASSIC, PRESETS, CardValues, Rules
from helpers import position, texts

POSITIONS = Path(__file__).parent / "positions"
LONG = bool(os.environ.get("BIRIBA_LONG"))

# The table of seed "million", deal 36704 of the soak: a 27-card hand worth 190, a minimum of 187.
HUNG = CLASSIC.replace(
    opening_minimums=((0, 100_000, 187),),
    packet_size=16,
    card_values=CardValues(joker=20, ace=15, two=10, high=10, low=5),
)
HUNG_HAND = "AS 2S 2H 2D 3S 3H 3D 3C 4D 5D 5D 6S 6H 6H 6D 6D 6C 6C 7S 7H 7D 9S TS TH TD JS QH"


def plain_reachable(deal: Deal, need: int, known: dict[object, bool] | None = None) -> bool:
    """Every order of every meld and add of the turn, no bound: D18 read literally (slow)."""
    known = {} if known is None else known
    seat, team = deal.to_move, deal.rules.team_of[deal.to_move]
    key = (tuple(deal.hands[seat]), tuple(map(str, deal.melds[team])), deal.opening_value)
    if key not in known:
        known[key] = False
        for action in deal._play_actions(opening_check=False):
            if action.kind == "discard":
                continue
            trial = deal.clone()
            trial._place(action)
            if trial.opening_value >= need or (trial.sizes[seat] and plain_reachable(trial, need, known)):
                known[key] = True
                break
    return known[key]


def plain_plays(deal: Deal) -> set[str]:
    """The melds and adds D18 allows now, by :func:`plain_reachable`."""
    need = deal._opening_minimum(deal.rules.team_of[deal.to_move])
    allowed = set()
    for action in deal._play_actions(opening_check=False):
        if action.kind == "discard":
            continue
        trial = deal.clone()
        trial._place(action)
        if trial.opening_value >= need or (trial.sizes[deal.to_move] and plain_reachable(trial, need)):
            allowed.add(str(action))
    return allowed


def engine_plays(deal: Deal) -> set[str]:
    return {str(a) for a in deal.legal_actions() if a.kind != "discard"}


def test_D18_the_hand_that_stalled_the_soak_is_decided_by_the_bound() -> None:
    """All 27 cards are worth 190, but no choice of melds lays 187: no meld, every discard."""
    deal = position({0: HUNG_HAND}, rules=HUNG)
    seat = deal.to_move
    candidates = list(deal._plays())
    assert len(candidates) > 400
    assert Choices(candidates, HUNG.values).find(deal.hands[seat], 187, lambda chosen: True) is None
    assert texts(deal) == sorted({f"discard {NAMES[c]}" for c in range(len(NAMES)) if deal.hands[seat][c]})
    assert not deal.is_legal(Action.parse("meld 6S 6H 6H 6D 6D 6C 6C"))


def test_D18_laying_every_card_needs_a_table_that_lets_the_hand_empty() -> None:
    """22 cards worth exactly the minimum: every one must be laid, so the last meld must pick up the
    reserve (R18), which needs a biriba; no choice of melds here makes one."""
    rules = CLASSIC.replace(opening_minimums=((0, 100_000, 150),), card_values=HUNG.card_values)
    hand = "2S 2H 2D 2C 4H 4D 4C 5H 5D 5C 6H 6H 6D 6D 6C 7S 7D 7C 8H 9H 9H TH"
    deal = position({0: hand}, rules=rules)
    candidates = list(deal._plays())
    hand_counts = deal.hands[0]
    assert Choices(candidates, rules.values).find(hand_counts, 150, lambda chosen: True) is not None
    assert Choices(candidates, rules.values).find(hand_counts, 150, lambda chosen: False) is None
    assert engine_plays(deal) == set()  # (a search of every order takes hours here)


def test_D18_a_choice_found_is_made_one_play_after_another() -> None:
    """Where the bound's choice can be played in turn, the meld is allowed without a search."""
    rules = CLASSIC.replace(opening_minimums=((0, 100_000, 75),))
    deal = position({0: "AS AH AD KS KH KD 9C 9D 3C"}, rules=rules)  # aces 45 and kings 30, three cards kept
    assert engine_plays(deal) == plain_plays(deal) == {"meld AS AH AD", "meld KS KH KD"}
    seat = deal.to_move
    choice = Choices(list(deal._plays()), rules.values).find(deal.hands[seat], 75, lambda chosen: False)
    assert choice is not None and len(choice) == 2
    short = position({0: "AS AH AD KS KH KD 9C 9D 3C"}, rules=rules.replace(opening_minimums=((0, 100_000, 80),)))
    assert engine_plays(short) == plain_plays(short) == set()  # 75 of 80: the nines and the three make no meld


def opening_positions(rules: Rules, seed: int, most: int) -> list[Deal]:
    """Positions of a greedy and random deal where a team is opening with at most ``most`` cards in hand."""
    rng = random.Random(seed)
    deal = Deal.shuffled(rng, dealer=0, rules=rules, max_turns=120)
    bots = [make_bot(rng.choice(("greedy", "random")), seed * 10 + s) for s in range(rules.seats)]
    found = []
    while not deal.is_over:
        legal = list(deal.legal_actions())
        if deal.phase == "play" and deal._opening_due() and deal.sizes[deal.to_move] <= most:
            found.append(deal.clone())
        deal.apply(bots[deal.to_move].choose(deal.view_for(deal.to_move), legal))
    return found


def test_D18_the_bound_gives_the_plain_search_answers_under_every_preset() -> None:
    """Random and greedy deals under every preset with a minimum for every total: the melds and adds
    listed are those a search of every order allows (hands of up to 13 cards; make test-long: many more)."""
    compared = differ = 0
    for number, name in enumerate(sorted(PRESETS)):
        for minimum in (60, 120, 150, 200) if LONG else (60, 120):
            rules = PRESETS[name].replace(opening_minimums=((0, 100_000, minimum),))
            for seed in range(10 if LONG else 1):
                found = opening_positions(rules, 1000 * seed + 10 * number + minimum, most=13)
                for deal in found if LONG else found[:12]:
                    compared += 1
                    differ += engine_plays(deal) != plain_plays(deal)
    assert compared > 100 and differ == 0


def best_lay(hand: list[int], candidates: list[Action], start: int) -> int:
    """The most that plays sharing no card can lay, trying every such set of plays."""
    best = 0
    for index in range(start, len(candidates)):
        cards = candidates[index].cards
        if all(hand[card] >= cards.count(card) for card in cards):
            rest = hand.copy()
            for card in cards:
                rest[card] -= 1
            best = max(best, sum(CLASSIC.values[card] for card in cards) + best_lay(rest, candidates, index + 1))
    return best


card_lists = st.lists(st.integers(0, len(NAMES) - 1), min_size=4, max_size=12)


@settings(max_examples=60, deadline=None)
@given(cards=card_lists, target=st.integers(1, 150))
def test_D18_a_choice_lays_disjoint_listed_plays_worth_the_target(cards: list[int], target: int) -> None:
    hand = [0] * len(NAMES)
    for card in cards:
        hand[card] = min(2, hand[card] + 1)
    text = " ".join(NAMES[c] for c in range(len(NAMES)) for _ in range(hand[c]))
    deal = position({0: text}, rules=CLASSIC.replace(opening_minimums=((0, 100_000, 500),)))
    candidates = list(deal._plays())
    choice = Choices(candidates, CLASSIC.values).find(deal.hands[0], target, lambda chosen: True)
    if choice is None:
        assert best_lay(list(deal.hands[0]), candidates, 0) < target
        return
    laid = [card for index in choice for card in candidates[index].cards]
    assert all(laid.count(card) <= deal.hands[0][card] for card in laid)
    assert sum(CLASSIC.values[card] for card in laid) >= target


def test_D18_wilds_a_wild_card_meld_holds_back_count_once_it_can_be_finished() -> None:
    """Seed 002's three-handed game (option wild_melds): while the team's meld of wilds is short, wilds go
    nowhere else; finished in the same turn, they may. The bound must count the melds they make then."""
    rules = PRESETS["three-handed"].replace(opening_minimums=((0, 100_000, 260),))
    deal = position({0: "2S 2H 2D 2C 2S 2H JK JK 5S 6S 9C 9D"}, rules=rules)
    assert deal.is_legal(deal.parse_action("meld 2S 2H 2D"))  # then add 2C 2S 2H JK (7 wilds), meld 5S 6S JK=7S
    assert engine_plays(deal) == plain_plays(deal)
    after = deal.clone()
    after.apply(after.parse_action("meld 2S 2H 2D"))
    assert engine_plays(after) == plain_plays(after) != set()


def test_D18_a_choice_refused_twice_is_not_taken_for_the_hand_left() -> None:
    """Two orders reach the same hand left and the same choice; a failure found so depends on the plays
    chosen, and must not be remembered as the hand's (the choice (1, 1, 4) settles)."""
    plays = [
        Action("meld", cards, (-1,) * len(cards), -1, None)
        for cards in ((0, 1, 1), (0,), (0, 1), (1,), (0,), (0, 1, 1))
    ]
    settling = {(1, 1, 4), (1, 4, 4), (4, 4, 4)}
    choice = Choices(plays, [4, 4]).find([3, 1], 11, lambda chosen: tuple(sorted(chosen)) in settling)
    assert choice is not None and tuple(sorted(choice)) in settling


def test_D18_two_adds_onto_one_meld_are_one_add_under_one_wild_per_meld() -> None:
    """A kozi hand worth exactly its 200 (every card must be laid). After `meld 7D 8D JK=9D TD JD` the bound
    counted both copies of 9D added to the run (the second has no room): a choice no table can make, so every
    meld's check fell back on the search of every order, for minutes. Under one wild per meld, a meld gains one
    listed add (an add of several cards is one at a time, D2); the search of every order agrees: no way."""
    deal = position_from_json(json.loads((POSITIONS / "kozi-opening-every-card.json").read_text()))
    meld = deal.parse_action("meld 7D 8D JK=9D TD JD")
    after = deal.clone()
    after._place(meld)
    candidates = list(after._plays(every_wild=True))
    rest = 200 - after.opening_value
    loose = Choices(candidates, deal.rules.values, 0).find(after.hands[0], rest, lambda chosen: True)
    assert loose is not None and not after._makes([candidates[i] for i in loose])
    assert after._opening_choice(200) is None and not plain_reachable(after, 200)
    assert not deal.is_legal(meld) and "meld 6H 2S=7H 8H 9H TH JH QH" in texts(deal)


def test_D37_a_wild_placed_where_the_minimum_is_out_of_reach_is_refused_naming_the_place_that_reaches_it() -> None:
    """Soak deal 365,500: 2C high (R10's default) leaves no room for the AD the team's 90 points need; 2C low does."""
    deal = position_from_json(json.loads((POSITIONS / "soak-365500-wild-placed-high.json").read_text()))
    high, low = deal.parse_action("meld 2C 3D 4D 5D"), deal.parse_action("meld 2C=2D 3D 4D 5D")
    assert str(high) == "meld 3D 4D 5D 2C=6D"
    with pytest.raises(IllegalActionError) as refused:
        deal.check(high)
    assert (refused.value.rule, refused.value.key) == ("opening_minimums", "opening_unreachable_placed")
    assert "as meld 2C=2D 3D 4D 5D they can" in str(refused.value)
    assert deal.is_legal(low) and low in list(deal.legal_actions()) and high not in list(deal.legal_actions())
    before = deal.clone()
    with pytest.raises(IllegalActionError):
        deal.apply(high)
    assert deal.history == before.history and deal.hands == before.hands


def test_D37_a_refusal_names_no_place_when_none_reaches_the_minimum() -> None:
    deal = position_from_json(json.loads((POSITIONS / "soak-365500-wild-placed-high.json").read_text()))
    with pytest.raises(IllegalActionError) as refused:
        deal.check(deal.parse_action("meld 8H 8D 2C"))
    assert refused.value.key == "opening_unreachable"
