"""The match, R29: deals until a team is strictly above 5000 after a complete deal."""

from __future__ import annotations

import pytest

from biriba.match import Match
from biriba.rules import CLASSIC


def test_R29_exactly_the_target_is_not_enough() -> None:
    assert CLASSIC.winner([5000, 4000]) is None
    assert CLASSIC.winner([5001, 4000]) == 0


def test_R29_higher_total_wins_and_equal_totals_play_on() -> None:
    assert CLASSIC.winner([5100, 5100]) is None
    assert CLASSIC.winner([5200, 5300]) == 1
    assert CLASSIC.replace(target_rule="reach").winner([5000, 4000]) == 0


def test_R29_match_goes_on_below_the_target() -> None:
    match = Match(seed=3)
    deal = match.new_deal()
    deal.ended_by = "passes"
    assert match.totals == list(deal.result().team_scores)
    assert not match.is_over and match.winner is None
    assert match.new_deal().match_scores == tuple(match.totals)


def test_R29_a_match_ends_once_a_finished_deal_takes_a_team_past_the_target() -> None:
    from helpers import position

    match = Match(seed=4)
    rich = position({0: "9C"}, melds=(["AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"], []), reserves=((0, True), None))
    rich.ended_by = "passes"
    match.deals = [rich] * 5  # five deals of over 1000 points each for team 0
    assert match.totals[0] > 5000 and match.is_over and match.winner == 0


def test_match_totals_count_each_finished_deal_once() -> None:
    match = Match(seed=6)
    deal = match.new_deal()
    deal.ended_by = "passes"
    once = match.totals
    assert match.totals == once  # reading the totals twice changes nothing
    with pytest.raises(RuntimeError):
        match.deals[-1].ended_by = None
        match.new_deal()  # the current deal is not over


def test_match_decks_are_reproducible_from_the_seed() -> None:
    a, b = Match(seed="x"), Match(seed="x")
    assert a.new_deal().deck == b.new_deal().deck
    assert Match(seed="y").new_deal().deck != Match(seed="x").new_deal().deck
