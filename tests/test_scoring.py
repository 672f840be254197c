"""Scoring, R24..R28: card values, meld values, bonuses, going out and the reserve penalties."""

from __future__ import annotations

import random

from biriba.bots import GreedyBot
from biriba.cards import parse_card
from biriba.deal import Deal
from biriba.rules import CLASSIC, PRESETS, SetBiribas
from biriba.scoring import PARTS, MeldScore, TeamTable, team_tables
from biriba.terms import Reserve
from helpers import play, position

BIRIBA = "3S 4S 5S 6S 7S 8S 9S"


def over(deal):  # type: ignore[no-untyped-def]
    deal.ended_by = "passes"
    return deal.result()


def test_R24_card_values() -> None:
    values = CLASSIC.values
    expect = {"JK": 20, "AS": 15, "2H": 10, "8D": 10, "9C": 10, "TS": 10, "JH": 10, "QD": 10, "KC": 10}
    expect.update({f"{r}S": 5 for r in "34567"})
    for name, value in expect.items():
        assert values[parse_card(name)] == value, name


def test_R25_melded_cards_plus_minus_both_partners_hands() -> None:
    deal = position({0: "KS QS", 2: "JK 3C"}, melds=(["4H 5H 6H JK=7H"], []), reserves=((0, True), None))
    part = over(deal).breakdown[0]
    assert part["melds"] == 5 + 5 + 5 + 20
    assert part["hands"] == -(10 + 10) - (20 + 5)


def test_R26_run_bonuses_by_final_state() -> None:
    melds = [
        "3H 4H 5H 6H 7H 8H 9H",  # clean run 200
        "3D 4D 5D JK=6D 7D 8D 9D",  # dirty run 100
        "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",  # clean 13-run 1000 instead of 200
        "AS 2S 3S 4S 5S 2D=6S 7S 8S 9S TS JS QS KS",  # dirty 13-run 500 instead of 100
        "JK=9H TH JH QH KH AH",  # six cards: no bonus
    ]
    deal = position({0: "TD JD", 2: "QD KD"}, melds=(melds, []), reserves=((0, True), None))
    assert over(deal).breakdown[0]["bonuses"] == 200 + 100 + 1000 + 500


def test_R26_set_bonuses_by_final_state() -> None:
    melds = [
        "KS KS KH KH KD KD KC",  # clean set 300
        "QS QH QD QC QS QH JK",  # dirty set 150
        "8H 8D 8C 8H 8D 8C",  # six cards: no bonus
    ]
    deal = position({0: "TD JD", 2: "3D 4D"}, melds=(melds, []), reserves=((0, True), None))
    assert over(deal).breakdown[0]["bonuses"] == 300 + 150


def test_R27_going_out_bonus() -> None:
    deal = position({0: "9C"}, melds=([BIRIBA], []), reserves=((0, True), None), phase="play")
    play(deal, "discard 9C")
    result = deal.result()
    assert result.breakdown[0]["going_out"] == 100 and result.breakdown[1]["going_out"] == 0


def test_R27_untaken_reserve_costs_100_and_its_cards_are_not_counted() -> None:
    deal = position({1: "KC", 3: "QC"}, melds=([BIRIBA], []), reserves=((0, True), None))
    part = over(deal).breakdown[1]
    assert part["reserve"] == -100 and part["hands"] == -20  # the packet's 11 cards are not counted


def test_R27_inactive_reserve_costs_100_instead_of_the_hand() -> None:
    deal = position({2: "9C"}, melds=([BIRIBA], []), reserves=((0, False), None), to_move=2)
    play(deal, "discard 9C")  # partner closes before seat 0's reserve is activated
    part = deal.result().breakdown[0]
    assert part["reserve"] == -100 and part["hands"] == 0  # seat 0's packet is not counted
    assert part["going_out"] == 100


def test_R27_activated_reserve_cards_count_normally() -> None:
    deal = position({0: "KC QC", 2: "3D"}, melds=([BIRIBA], []), reserves=((0, True), None))
    part = over(deal).breakdown[0]
    assert part["reserve"] == 0 and part["hands"] == -(10 + 10 + 5)


def test_R28_worked_example_seed_000_section_09() -> None:
    deal = position({0: "9H KC QD"}, melds=(["3H 4H 5H 6H 7H 8H"], []), phase="draw")
    play(deal, "draw", "add 1 9H")
    run = deal.melds[0][0]
    assert run.text() == "3H 4H 5H 6H 7H 8H 9H" and run.clean and run.size == 7
    part = over(deal.clone()).breakdown[0]
    assert part["bonuses"] == 200 and part["melds"] == 45
    assert deal.reserves[0] is None  # the biriba alone gives no reserve: a hand must legally empty
    later = position({0: "TH"}, melds=(["3H 4H 5H 6H 7H 8H 9H"], []), phase="play")
    out = later.apply(later.parse_action("add 1 TH"))
    assert out.reserve == "meld" and later.reserves[0] == Reserve(0, True) and later.sizes[0] == 11
    assert later.phase == "play" and later.to_move == 0  # continues, then the compulsory discard


def test_score_equals_the_sum_of_its_breakdown() -> None:
    deal = position({0: "KC JK", 1: "AS"}, melds=([BIRIBA, "7H 7D JK"], ["QS QH QD"]), reserves=((0, True), None))
    result = over(deal)
    for team, part in enumerate(result.breakdown):
        assert set(part) - {"total"} <= set(PARTS)
        assert part["total"] == sum(part.get(k, 0) for k in PARTS) == result.team_scores[team]


def test_hand_values_use_every_copy() -> None:
    deal = position({0: "KC KC"}, melds=([BIRIBA], []), reserves=((0, True), None))
    hands = [c for s in (0, 2) for c in deal.hand(s)]
    assert over(deal).breakdown[0]["hands"] == -sum(CLASSIC.values[c] for c in hands)


def test_deal_result_names_the_deal_winner_or_a_tie() -> None:
    # seed 004: "a deal is won by the pair with the highest net score in that deal"
    from biriba.scoring import DealResult

    won = DealResult((120, 340), ({}, {}), "closure")
    assert won.winners == (1,) and won.to_json()["winners"] == [1]
    tied = DealResult((200, 150, 200), ({}, {}, {}), "passes")
    assert tied.winners == (0, 2) and tied.to_json()["winners"] == [0, 2]
    deal = position({0: "KC"}, melds=([BIRIBA], []), reserves=((0, True), None))
    result = over(deal)
    assert result.winners == (0,) and result.team_scores[0] > result.team_scores[1]


# ------------------------------------------------------------ the table so far (what front ends show)
def test_R26_team_tables_give_each_melds_facts_and_the_points_so_far() -> None:
    melds = ["3H 4H 5H 6H 7H 8H 9H", "QS QH QD QC QS QH JK", "JK=9D TD JD"]
    deal = position({0: "TD JD", 2: "3D 4D"}, melds=(melds, []), reserves=((0, True), None))
    table, other = team_tables(deal.view_for(1))  # a seat of the other team sees the same
    run, dirty_set, short = table.melds
    assert run == MeldScore("run", 7, True, True, points=5 * 5 + 2 * 10, bonus=200, to_biriba=0)
    assert dirty_set == MeldScore("set", 7, False, True, points=6 * 10 + 20, bonus=150, to_biriba=0)
    assert short == MeldScore("run", 3, False, False, points=20 + 2 * 10, bonus=0, to_biriba=4)
    assert table.points == sum(m.points + m.bonus for m in table.melds) and other == TeamTable((), 0, 0)


def test_R11_a_set_that_can_never_be_a_biriba_lacks_nothing() -> None:
    rules = PRESETS["italian"].replace(set_biribas=SetBiribas.ACES)
    melds = ["KS KH KD", "AS AH AD"]
    deal = position({0: "TD JD"}, melds=(melds, []), rules=rules)
    kings, aces = team_tables(deal)[0].melds
    assert (kings.to_biriba, aces.to_biriba) == (0, rules.biriba_size - 3)


def test_team_tables_show_the_opening_minimum_until_the_team_has_opened() -> None:
    rules = CLASSIC.replace(opening_minimums=((1000, 1499, 75),))
    deal = position({0: "AS AH AD KC KC KH 9S 8D 4C 6H"}, rules=rules, match_scores=(1200, 800))
    assert [t.opening_minimum for t in team_tables(deal)] == [75, 0]
    play(deal, "meld AS AH AD")  # worth 45: still opening this turn, the minimum still shows
    assert team_tables(deal)[0].opening_minimum == 75
    play(deal, "meld KC KC KH")
    play(deal, "discard 9S")  # opened on an earlier turn now
    assert team_tables(deal)[0].opening_minimum == 0


def test_team_tables_agree_with_the_deal_score_at_its_end() -> None:
    """The board's points are the score sheet's melds and bonuses, from one computation."""
    for seed in range(6):
        deal = Deal.shuffled(seed, rules=CLASSIC, max_turns=250)
        bot, rng = GreedyBot(), random.Random(seed)
        while not deal.is_over:
            legal = list(deal.legal_actions())
            deal.apply(bot.choose(deal.view_for(deal.to_move), legal) if rng.random() < 0.8 else rng.choice(legal))
        result = deal.result()
        for team, table in enumerate(team_tables(deal)):
            assert table.points == result.breakdown[team]["melds"] + result.breakdown[team]["bonuses"], seed
