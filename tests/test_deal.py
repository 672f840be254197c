"""The rules of play, one group of tests per rule id of docs/rules.md (R1..R23, R30)."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from biriba.actions import Action
from biriba.cards import NAMES, counts_of, full_deck, parse_card, parse_cards
from biriba.deal import Deal
from biriba.errors import IllegalActionError, InvalidPositionError
from biriba.records import position_from_json, position_to_json
from biriba.rules import CLASSIC
from biriba.terms import Ending, Reserve
from helpers import play, position, texts

BIRIBA = "3S 4S 5S 6S 7S 8S 9S"  # a clean 7-card run of spades


def refused(deal: Deal, text: str, rule: str) -> None:
    """``text`` is refused citing ``rule``, and the deal is left exactly as it was."""
    before = deal.clone()
    with pytest.raises(IllegalActionError) as info:
        deal.apply(deal.parse_action(text))
    assert info.value.rule == rule, str(info.value)
    assert deal.hands == before.hands and deal.melds == before.melds and deal.discard == before.discard
    assert (deal.phase, deal.to_move, deal.reserves) == (before.phase, before.to_move, before.reserves)


# ------------------------------------------------------------ R1 .. R4
def test_R1_four_seats_partners_opposite_play_to_the_right() -> None:
    deal = Deal.shuffled(1, dealer=0)
    assert CLASSIC.teams == ((0, 2), (1, 3))
    assert [deal.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    order = []
    for _ in range(5):
        order.append(deal.to_move)
        deal.apply(deal.parse_action("draw"))
        card = next(a for a in deal.legal_actions() if a.kind == "discard")
        deal.apply(card)
    assert order == [1, 2, 3, 0, 1]


def test_R2_deck_of_108_with_identical_copies_as_multisets() -> None:
    deck = full_deck()
    assert len(deck) == 108 and deck.count(parse_card("7H")) == 2 and deck.count(parse_card("JK")) == 4
    with pytest.raises(InvalidPositionError, match="R2"):
        Deal([*deck[:-1], parse_card("7H")])
    deal = position({0: "7H 7H 9C"}, phase="play")
    assert texts(deal).count("discard 7H") == 1  # two identical copies: one action


def test_R3_first_player_is_right_of_dealer_and_deal_rotates() -> None:
    from biriba.match import Match

    match = Match(seed=5)
    first = match.new_deal()
    assert first.to_move == (first.dealer + 1) % 4
    first.ended_by = "passes"  # end it by hand to see the next dealer
    second = match.new_deal()
    assert second.dealer == (first.dealer + 1) % 4
    assert {Match(seed=s).first_dealer for s in range(40)} == {0, 1, 2, 3}


def test_R4_deal_order_from_the_deck() -> None:
    deck = full_deck()
    random.Random(4).shuffle(deck)
    deal = Deal(deck, dealer=2)
    # 11 rounds of one card to seats 3, 0, 1, 2
    assert deal.hands[3] == counts_of(deck[0:44:4])
    assert deal.hands[0] == counts_of(deck[1:44:4])
    assert deal.hands[1] == counts_of(deck[2:44:4])
    assert deal.hands[2] == counts_of(deck[3:44:4])
    assert deal.packets == (tuple(deck[44:55]), tuple(deck[55:66]))
    assert deal.discard == [deck[66]]
    assert deal.stock_cards == tuple(deck[67:]) and deal.stock_count == 41
    assert Deal(deck, dealer=2).hands == deal.hands  # reproducible


def test_R5_no_trump_suit_the_upcard_means_nothing() -> None:
    spade_up = position(melds=([BIRIBA], []), discard="KS")
    heart_up = position(melds=([BIRIBA], []), discard="KH")
    for deal in (spade_up, heart_up):
        deal.ended_by = "passes"
    assert spade_up.result().breakdown[0]["bonuses"] == heart_up.result().breakdown[0]["bonuses"] == 200


# ------------------------------------------------------------- R12, R15
def test_R12_cards_go_only_onto_own_team_melds() -> None:
    deal = position({2: "TS 7D JC QC"}, melds=([BIRIBA], ["4D 5D 6D"]), to_move=2)
    assert "add 1 TS" in texts(deal)  # the partner's meld is the team's meld
    assert not [t for t in texts(deal) if t.startswith("add") and "7D" in t]
    refused(deal, "add 2 7D", "R12")  # team 0 has one meld; 4D 5D 6D is team 1's


def test_R12_melds_are_never_split_or_taken_back() -> None:
    deal = position({0: "4S 5S 6S 9H 9D"}, phase="play")
    play(deal, "meld 4S 5S 6S")
    assert deal.melds[0][0].text() == "4S 5S 6S"
    assert all(a.kind in ("meld", "add", "discard") for a in deal.legal_actions())
    assert deal.hands[0] == counts_of(parse_cards("9H 9D"))


def test_R15_turn_is_draw_then_melds_then_discard() -> None:
    deal = position({0: "4S 5S 6S 9H 9D"}, phase="draw", discard="KC")
    assert texts(deal) == ["draw", "take"]
    refused(deal, "meld 4S 5S 6S", "R15")
    refused(deal, "discard 9H", "R15")
    play(deal, "draw")
    refused(deal, "draw", "R15")
    refused(deal, "take", "R15")
    play(deal, "meld 4S 5S 6S")
    play(deal, "discard 9H")
    assert deal.to_move == 1 and deal.phase == "draw"


def test_R15_take_takes_the_whole_pile_with_no_condition() -> None:
    deal = position({0: "4S 9H"}, phase="draw", discard="KC 2D 7H")
    play(deal, "take")
    assert deal.discard == [] and deal.sizes[0] == 5
    assert deal.took_single == -1


def test_R15_cards_must_be_in_hand() -> None:
    deal = position({0: "4S 5S 9H 9D"}, phase="play")
    refused(deal, "meld 4S 5S 6S", "R15")
    refused(deal, "discard KC", "R15")


@pytest.mark.parametrize(
    ("hand", "text", "refusal"),
    [
        ("4S 9H 9D", "meld 7S 8H 9D", "R15: you do not hold 7S"),  # neither run nor set (R7, R8), and not held
        ("9H 9D JK", "meld 9H 9D JK 2S", "R15: you do not hold 2S"),  # two wilds (R9), and not held
        ("4S 5S 9H", "meld 4S 5S 5S", "R15: you do not hold enough 5S"),
        ("4S 9H 9D", "meld 4S 5S 6S", "R15: you do not hold 5S"),
        ("4S 9H 9D", "add 1 9H", "R12: add 1: your team has no melds yet; cards go only onto your team's melds"),
    ],
)
def test_R15_cards_not_held_are_refused_before_what_they_would_make(hand: str, text: str, refusal: str) -> None:
    """A player is told first that the cards are not in the hand, not that they would make no meld."""
    deal = position({0: hand}, phase="play")
    with pytest.raises(IllegalActionError) as info:
        deal.parse_action(text)
    assert str(info.value) == refusal


# ------------------------------------------------------------------ R16
def test_R16_single_card_taken_may_not_be_discarded_nor_its_copy() -> None:
    deal = position({0: "7H 9C QD"}, phase="draw", discard="7H")
    play(deal, "take")
    assert deal.took_single == parse_card("7H")
    refused(deal, "discard 7H", "R16")
    assert "discard 7H" not in texts(deal)
    assert "discard 9C" in texts(deal)


def test_R16_card_drawn_from_stock_may_be_discarded_at_once() -> None:
    deal = position({0: "9C QD"}, phase="draw")
    drawn = deal.apply(deal.parse_action("draw")).drawn
    assert f"discard {NAMES[drawn]}" in texts(deal)


def test_R16_larger_pile_has_no_restriction() -> None:
    deal = position({0: "9C QD"}, phase="draw", discard="7H 8H")
    play(deal, "take", "discard 7H")
    assert deal.discard == [parse_card("7H")]


def test_R16_take_with_no_way_to_finish_the_turn_is_illegal() -> None:
    deal = position({0: "7H"}, phase="draw", discard="7H")
    assert texts(deal) == ["draw"]
    refused(deal, "take", "R30")


def test_R16_decision_the_bar_outlasts_a_reserve_pickup_by_melding() -> None:
    # docs/rules.md D4: after taking the single 9C and melding out, the 9C copy in the packet stays barred
    packet = "9C KS KH QD JC 8S 8H 6D 5C 4S 3D"
    deal = position(
        {0: "3H 4H 5H"}, melds=([BIRIBA, "9S 9H 9D"], []), phase="draw", discard="9C", packets=[packet, None]
    )
    play(deal, "take", "add 2 9C", "meld 3H 4H 5H")
    assert deal.reserves[0] == Reserve(0, True) and deal.hands[0] == counts_of(parse_cards(packet))
    assert "discard 9C" not in texts(deal) and "discard KS" in texts(deal)
    refused(deal, "discard 9C", "R16")


# ------------------------------------------------------------------ R17
def test_R17_keep_two_cards_after_melding() -> None:
    deal = position({0: "3H 4H 5H 9C"}, phase="play")
    refused(deal, "meld 3H 4H 5H", "R17")
    assert "meld 3H 4H 5H" not in texts(deal)


def test_R17a_one_card_left_when_its_discard_picks_up_the_reserve() -> None:
    deal = position({0: "3H 4H 5H 9C"}, melds=([BIRIBA], []), phase="play")
    play(deal, "meld 3H 4H 5H")
    assert texts(deal) == ["discard 9C"]
    out = deal.apply(deal.parse_action("discard 9C"))
    assert out.reserve == "discard" and deal.reserves[0] == Reserve(0, False)


def test_R17a_one_card_left_when_its_discard_closes() -> None:
    deal = position({0: "3H 4H 5H 9C"}, melds=([BIRIBA], []), reserves=((2, True), None), phase="play")
    play(deal, "meld 3H 4H 5H", "discard 9C")
    assert deal.ended_by == "closure"


def test_R17a_not_when_the_last_card_is_barred_by_R16() -> None:
    deal = position({0: "3H 4H 5H"}, melds=([BIRIBA], []), phase="draw", discard="9C")
    play(deal, "take")
    refused(deal, "meld 3H 4H 5H", "R17")


def test_R17b_zero_cards_when_the_reserve_is_picked_up_by_melding() -> None:
    deal = position({0: "3H 4H 5H"}, melds=([BIRIBA], []), phase="play")
    assert "meld 3H 4H 5H" in texts(deal)


# ------------------------------------------------------------- R18, R19, R20
def test_R18_reserve_pickup_by_melding_continues_the_turn() -> None:
    deal = position({0: "3H 4H 5H"}, melds=([BIRIBA], []), phase="play")
    packet = deal.packets[0]
    out = deal.apply(deal.parse_action("meld 3H 4H 5H"))
    assert out.reserve == "meld" and out.packet == packet
    assert deal.hands[0] == counts_of(packet) and deal.phase == "play" and deal.to_move == 0
    assert deal.reserves[0] == Reserve(0, True)
    assert all(a.kind != "draw" for a in deal.legal_actions())  # no second draw; must discard


def test_R18_the_emptying_action_may_itself_make_the_biriba() -> None:
    deal = position({0: "9S TS"}, melds=(["3S 4S 5S 6S 7S 8S"], []), phase="play")
    out = deal.apply(deal.parse_action("add 1 9S TS"))
    assert out.reserve == "meld" and deal.biribas[0] == 1


def test_R18_no_pickup_by_melding_without_a_biriba() -> None:
    deal = position({0: "3H 4H 5H"}, phase="play")
    refused(deal, "meld 3H 4H 5H", "R18")


def test_R19_reserve_by_discard_ends_the_turn_and_is_inactive() -> None:
    deal = position({0: "9C"}, melds=([BIRIBA], []), phase="play")
    out = deal.apply(deal.parse_action("discard 9C"))
    assert out.reserve == "discard" and deal.reserves[0] == Reserve(0, False)
    assert deal.to_move == 1 and deal.sizes[0] == 11
    for _ in range(3):  # seats 1, 2, 3 play
        play(deal, "draw")
        deal.apply(next(a for a in deal.legal_actions() if a.kind == "discard"))
        assert deal.reserves[0] == Reserve(0, False)
    play(deal, "draw")  # the owner's next turn begins: the reserve is active
    assert deal.reserves[0] == Reserve(0, True)


def test_R19_pass_also_activates_the_reserve() -> None:
    deal = position({0: "9C QD"}, reserves=((0, False), None), phase="draw", stock=0)
    assert "pass" in texts(deal)
    play(deal, "pass")
    assert deal.reserves[0] == Reserve(0, True)


def test_R20_one_reserve_per_team_the_other_packet_is_the_other_teams() -> None:
    deal = position({0: "9C"}, melds=([BIRIBA], ["3H 4H 5H 6H 7H 8H 9H"]), phase="play")
    first, second = deal.packets
    play(deal, "discard 9C")
    assert deal.hands[0] == counts_of(first) and deal.packets_left == (second,)
    later = position({1: "8D"}, melds=([BIRIBA], ["3H 4H 5H 6H 7H 8H 9H"]), reserves=((0, True), None), to_move=1)
    (remaining,) = later.packets_left
    play(later, "discard 8D")
    assert later.hands[1] == counts_of(remaining) and later.reserves[1] == Reserve(1, False)


def test_R20_partner_of_reserve_taker_cannot_take_a_second() -> None:
    deal = position({2: "3H 4H 5H"}, melds=([BIRIBA], []), reserves=((0, True), None), to_move=2)
    refused(deal, "meld 3H 4H 5H", "R22")  # emptying by melding is never a closure, and no packet is for them
    play(deal, "discard 5H")
    assert deal.reserves[0] == Reserve(0, True) and deal.packets_left == deal.packets[:1]


# ------------------------------------------------------------- R21, R22
def test_R21_emptying_the_hand_any_other_way_is_illegal() -> None:
    deal = position({0: "9C"}, phase="play")
    assert texts(deal) == []  # never reached in play: R17 keeps two cards
    refused(deal, "discard 9C", "R21")


def test_R22_closure_by_final_discard_with_biriba_and_reserve() -> None:
    deal = position({0: "9C"}, melds=([BIRIBA], []), reserves=((0, True), None), phase="play")
    out = deal.apply(deal.parse_action("discard 9C"))
    assert out.ended == "closure" and deal.is_over and deal.closer == 0
    assert deal.result().breakdown[0]["going_out"] == 100


def test_R22_either_partner_may_close_even_with_the_reserve_inactive() -> None:
    deal = position({2: "9C"}, melds=([BIRIBA], []), reserves=((0, False), None), to_move=2)
    play(deal, "discard 9C")
    assert deal.ended_by == "closure" and deal.closer == 2
    assert deal.result().breakdown[0]["reserve"] == -100  # R27: the inactive packet costs 100


def test_R22_emptying_by_meld_is_never_a_closure() -> None:
    deal = position({0: "3H 4H 5H"}, melds=([BIRIBA], []), reserves=((0, True), None), phase="play")
    refused(deal, "meld 3H 4H 5H", "R22")


def test_R22_no_closure_without_a_biriba() -> None:
    deal = position({0: "9C"}, melds=(["3S 4S 5S"], []), reserves=((0, True), None), phase="play")
    refused(deal, "discard 9C", "R22")


def test_R15_malformed_action_objects_are_refused() -> None:
    deal = position({0: "9C QD KH"}, phase="play")
    nine, queen = parse_cards("9C QD")
    for bad in [
        Action("discard", (nine, queen), (-1, -1)),
        Action("discard"),
        Action("draw", (nine,), (-1,)),
        Action("meld"),
        Action("discard", (nine,), (-1,), end="low"),
        Action("shuffle"),
    ]:
        with pytest.raises(IllegalActionError) as info:
            deal.check(bad)
        assert info.value.rule in ("R15", "R13") and not deal.is_legal(bad)


def test_R22_actions_after_the_end_are_refused() -> None:
    deal = position({0: "9C"}, melds=([BIRIBA], []), reserves=((0, True), None), phase="play")
    play(deal, "discard 9C")
    assert list(deal.legal_actions()) == []
    with pytest.raises(IllegalActionError, match="over"):
        deal.apply(Action("draw"))


# ------------------------------------------------------------------ R23
def test_R23_empty_stock_take_or_pass() -> None:
    deal = position({0: "9C QD"}, phase="draw", stock=0, discard="KH")
    assert texts(deal) == ["pass", "take"]
    refused(deal, "draw", "R23")
    deal2 = position({0: "9C QD"}, phase="draw", stock=3)
    refused(deal2, "pass", "R23")


def test_R23_drawing_the_last_stock_card_is_a_normal_turn() -> None:
    deal = position({0: "9C QD"}, phase="draw", stock=1)
    play(deal, "draw")
    assert deal.stock_count == 0 and deal.phase == "play"
    play(deal, "discard 9C")
    assert texts(deal) == ["pass", "take"]


def test_R23_four_consecutive_passes_end_the_deal_without_going_out() -> None:
    deal = position({0: "9C QD"}, phase="draw", stock=0, discard="")
    for i in range(4):
        assert not deal.is_over
        play(deal, "pass")
        assert deal.passes == i + 1
    assert deal.ended_by == "passes"
    assert all(b["going_out"] == 0 for b in deal.result().breakdown)


def test_R23_a_take_resets_the_passes_and_discards_are_never_recycled() -> None:
    deal = position({1: "9C QD"}, phase="draw", stock=0, discard="KH", to_move=0)
    play(deal, "pass")
    play(deal, "take", "discard 9C")
    assert deal.passes == 0 and deal.stock_count == 0


def test_R23_simulations_cap_a_deal_and_report_it_as_capped() -> None:
    deal = Deal.shuffled(3, max_turns=6)
    rng = random.Random(0)
    while not deal.is_over:
        deal.apply(rng.choice(list(deal.legal_actions())))
    assert deal.ended_by == "capped" and deal.turn == 6


# ------------------------------------------------------------------ D36
IDLE = CLASSIC.replace(idle_rounds=1)


def idle_turn(deal: Deal) -> None:
    """Take the pile and discard, melding nothing: a turn that changes nothing on the table."""
    play(deal, "take")
    play(deal, next(t for t in texts(deal) if t.startswith("discard")))


def test_D36_a_whole_round_on_an_empty_stock_with_no_meld_or_add_ends_the_deal_as_passes_do() -> None:
    deal = position({0: "9C QD"}, phase="draw", stock=0, discard="KH", rules=IDLE)
    for turn in range(1, 4):
        idle_turn(deal)
        assert deal.idle_turns == turn and not deal.is_over
        assert deal.view_for(turn).idle_turns == turn  # every seat sees the count
        assert deal.view_for(turn).idle_turns_left() == 4 - turn
    idle_turn(deal)
    assert deal.ended_by == Ending.IDLE and deal.is_over and deal.idle_turns_left() is None
    assert all(b["going_out"] == 0 for b in deal.result().breakdown)


def test_D36_a_meld_or_add_starts_the_count_again_and_a_pass_is_idle() -> None:
    deal = position({0: "9C QD"}, phase="draw", stock=0, discard="KH", rules=IDLE)
    play(deal, "pass")
    idle_turn(deal)
    idle_turn(deal)
    assert deal.idle_turns == 3
    play(deal, "take")
    play(deal, next(t for t in texts(deal) if t.startswith("meld")))
    assert deal.idle_turns == 0
    play(deal, next(t for t in texts(deal) if t.startswith("discard")))
    assert not deal.is_over and deal.idle_turns == 0


def test_D36_the_turn_that_draws_the_last_stock_card_is_not_counted_and_0_never_ends() -> None:
    deal = position({0: "9C QD"}, phase="draw", stock=1, rules=IDLE)
    play(deal, "draw", "discard 9C")
    assert deal.idle_turns == 0
    endless = position({0: "9C QD"}, phase="draw", stock=0, discard="KH")
    for _ in range(40):
        idle_turn(endless)
    assert not endless.is_over and endless.idle_turns == 40


def test_D36_the_count_is_part_of_a_position() -> None:
    deal = position({0: "9C QD"}, phase="draw", stock=0, discard="KH", rules=IDLE)
    idle_turn(deal)
    again = position_from_json(position_to_json(deal))
    assert again.idle_turns == 1 and position_to_json(deal)["idle_turns"] == 1
    for _ in range(3):
        idle_turn(again)
    assert again.ended_by == Ending.IDLE


# ------------------------------------------------------------------ R30
def test_R30_meld_leaving_only_barred_cards_is_illegal() -> None:
    deal = position({0: "4S 5S 6S 7H"}, phase="draw", discard="7H")
    play(deal, "take")
    refused(deal, "meld 4S 5S 6S", "R30")


def test_R30_unless_the_barred_cards_can_still_go_onto_a_meld() -> None:
    deal = position({0: "4C 5C 6C 7H"}, melds=([BIRIBA, "7S 7D 7C"], []), phase="draw", discard="7H")
    play(deal, "take")
    assert "meld 4C 5C 6C" in texts(deal)
    play(deal, "meld 4C 5C 6C")
    assert texts(deal) == ["add 2 7H 7H"]  # then the reserve by melding (R18)
    play(deal, "add 2 7H 7H")
    assert deal.reserves[0] == Reserve(0, True)


def test_R30_the_look_ahead_sees_the_meld_just_made() -> None:
    # after the meld, both barred 7H can go onto the new set of 7s, emptying the hand for the reserve (R18)
    deal = position({0: "7S 7D 7C 7H"}, melds=([BIRIBA], []), phase="draw", discard="7H")
    play(deal, "take")
    assert "meld 7S 7D 7C" in texts(deal)
    play(deal, "meld 7S 7D 7C", "add 2 7H 7H")
    assert deal.reserves[0] == Reserve(0, True)


def test_R30_take_is_legal_when_a_way_to_finish_exists() -> None:
    deal = position({0: "7H"}, melds=([BIRIBA, "7S 7D 7C"], []), phase="draw", discard="7H")
    assert texts(deal) == ["draw", "take"]


def test_the_longest_minimum_meld_lists_only_melds_that_long() -> None:
    """Option min_meld above 15 once crashed the listing; it is 3 to 5 now, and 5 lists melds of five or more."""
    rules = CLASSIC.replace(min_meld=5)
    deal = Deal.shuffled(seed=3, rules=rules)
    deal.apply(deal.parse_action("draw"))
    assert all(len(a.cards) >= 5 for a in deal.legal_actions() if a.kind == "meld")
    with pytest.raises(ValueError, match="min_meld: 3 to 5, not 6"):
        CLASSIC.replace(min_meld=6)


def test_outcomes_are_made_with_every_field_of_outcome_and_its_defaults() -> None:
    """``deal._outcome`` skips the named tuple's constructor for speed, so it must list the same fields."""
    import inspect

    from biriba.deal import _outcome
    from biriba.terms import Outcome

    parameters = inspect.signature(_outcome).parameters
    assert tuple(parameters) == Outcome._fields
    assert {name: p.default for name, p in parameters.items() if p.default is not p.empty} == Outcome._field_defaults
    deal = Deal.shuffled(seed=3)
    outcome = deal.apply(deal.parse_action("draw"))
    assert type(outcome) is Outcome and outcome == Outcome(outcome.seat, outcome.action, drawn=outcome.drawn)


def test_a_deal_pickled_or_deep_copied_is_an_equal_and_independent_deal() -> None:
    deal = Deal.shuffled(seed=6)
    rng = random.Random(2)
    for _ in range(25):
        deal.apply(rng.choice(list(deal.legal_actions())))
    before = deal.legal_actions().count()
    for twin in (pickle.loads(pickle.dumps(deal)), copy.deepcopy(deal)):
        assert type(twin) is Deal
        assert twin.hands == deal.hands and twin.melds == deal.melds and twin.history == deal.history
        assert list(twin.legal_actions()) == list(deal.legal_actions())
        twin.apply(next(iter(twin.legal_actions())))
        assert twin.hands[0] is not deal.hands[0] and deal.legal_actions().count() == before


def test_a_deal_pickled_before_it_kept_the_hands_keys_makes_them_again() -> None:
    deal = Deal.shuffled(seed=6)
    rebuild, (cls, values) = deal.__reduce__()
    del values["hand_keys"]
    old = rebuild(cls, values)
    assert old.hand_keys == deal.hand_keys and list(old.legal_actions()) == list(deal.legal_actions())


def test_an_empty_deck_is_refused_and_not_taken_for_the_blank_deal_of_a_clone() -> None:
    with pytest.raises(InvalidPositionError, match="R2"):
        Deal([])
    deal = Deal.shuffled(seed=4)
    copy = deal.clone()
    assert type(copy) is Deal and copy.hands == deal.hands and copy.hands[0] is not deal.hands[0]


def test_displaced_to_names_the_slot_a_displaced_wild_takes_at_either_end_R13() -> None:
    """The natural 7H displaces the joker of 5H 6H JK=7H: to 8H above the run or 4H below it; nothing else moves."""
    deal = position({0: "7H 9C 9D KS"}, melds=(["5H 6H JK=7H"], []), phase="play")
    adds = {str(a): deal.displaced_to(a) for a in deal.legal_actions() if a.kind == "add"}
    assert adds == {"add 1 7H wild=high": parse_card("8H"), "add 1 7H wild=low": parse_card("4H")}
    assert deal.displaced_to(deal.parse_action("discard 9C")) is None
    plain = position({0: "8H 9C 9D KS"}, melds=(["5H 6H JK=7H"], []), phase="play")
    assert [plain.displaced_to(a) for a in plain.legal_actions() if a.kind == "add"] == [None]
