"""The terminal game's words: what the screen says about a move, a meld, a hand."""

from __future__ import annotations

from biriba.cards import parse_card, parse_cards
from biriba.melds import parse_meld
from biriba.rules import CLASSIC
from biriba.tui.words import Words, help_text
from helpers import play, position


def test_a_pickup_by_the_last_discard_says_what_the_screen_shows() -> None:
    deal = position({1: "9C"}, melds=([], ["3S 4S 5S 6S 7S 8S 9S"]), phase="play", to_move=1)
    outcome = deal.apply(deal.parse_action("discard 9C"))
    line = Words(CLASSIC).describe(deal.view_for(0), outcome.seen_by(0)).plain
    assert line.startswith("East: discards 9")
    assert "that was the last card" in line and "reserve (11 cards) to play next turn" in line
    assert deal.view_for(0).sizes[1] == 11  # what the screen shows for East


def test_a_pickup_by_melding_plays_on() -> None:
    deal = position({0: "TS"}, melds=(["3S 4S 5S 6S 7S 8S 9S"], []), phase="play")
    outcome = deal.apply(deal.parse_action("add 1 TS"))
    line = Words(CLASSIC).describe(deal.view_for(0), outcome).plain
    assert "empty your hand and pick up the reserve (11 cards) and play on" in line


def test_compact_runs_keep_their_ends_and_wild() -> None:
    words = Words(CLASSIC, plain=True)
    run = parse_meld("3H 4H 5H JK=6H 7H 8H 9H", CLASSIC)
    assert words.meld(run, compact=True).plain == "3H..9H JK=6H"
    assert words.meld(run).plain == "3H 4H 5H JK=6H 7H 8H 9H"
    assert words.short_state(run) == "dirty 7" and words.meld_state(run) == "dirty biriba (run of 7)"


def test_the_hand_is_shown_by_suit_with_the_wilds_last() -> None:
    groups = Words(CLASSIC).hand_groups(parse_cards("KH 2C JK 3S AH 7D"))
    assert [key for key, _ in groups] == ["S", "H", "D", "wild"]
    assert groups[1][1] == parse_cards("AH KH") and groups[-1][1] == [parse_card("2C"), parse_card("JK")]


def test_table_points_count_cards_and_bonuses_so_far() -> None:
    deal = position(melds=(["3S 4S 5S 6S 7S 8S 9S", "KH KD KC"], []))
    assert Words(CLASSIC).table_points(deal.view_for(0), 0) == 45 + 200 + 30


def test_help_lists_the_bot_kinds_and_the_keys() -> None:
    text = help_text(keys=True)
    assert "greedy" in text and "random" in text and "space select" in text
    assert "space select" not in help_text(keys=False)


def test_fresh_cards_are_marked_in_plain_text() -> None:
    deal = position({0: "9C QD"}, phase="draw")
    play(deal, "draw")
    assert Words(CLASSIC, plain=True).card(parse_card("QD"), fresh=True).plain == "*QD"
