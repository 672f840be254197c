"""The match, R29: deals until a team is strictly above 5000 after a complete deal."""

from __future__ import annotations

from biriba.match import Match
from biriba.rules import CLASSIC


def test_R29_exactly_the_target_is_not_enough() -> None:
    assert not CLASSIC.match_over([5000, 4000])
    assert CLASSIC.match_over([5001, 4000])


def test_R29_higher_total_wins_and_equal_totals_play_on() -> None:
    assert not CLASSIC.match_over([5100, 5100])
    assert CLASSIC.match_over([5200, 5100])
    match = Match(seed=2)
    deal = match.new_deal()
    deal.ended_by = "passes"
    match.finish_deal()
    match.totals = [5200, 5300]
    assert match.is_over and match.winner == 1


def test_R29_match_goes_on_below_the_target() -> None:
    match = Match(seed=3)
    deal = match.new_deal()
    deal.ended_by = "passes"
    match.finish_deal()
    assert not match.is_over and match.winner is None
    assert match.new_deal().match_scores == tuple(match.totals)


def test_match_decks_are_reproducible_from_the_seed() -> None:
    a, b = Match(seed="x"), Match(seed="x")
    assert a.new_deal().deck == b.new_deal().deck
    assert Match(seed="y").new_deal().deck != Match(seed="x").new_deal().deck
