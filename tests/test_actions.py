"""Actions: parsing, canonical form, and the defaults a deal applies (notation.md, R10, R13)."""

from __future__ import annotations

import pytest

from biriba.actions import Action
from biriba.errors import IllegalActionError, NotationError
from helpers import position


@pytest.mark.parametrize(
    "text",
    ["draw", "take", "pass", "discard 9C", "meld 3H 4H 5H JK=6H", "meld 7S 7H 7H JK", "add 2 7S", "add 1 6H wild=low"],
)
def test_canonical_text_round_trips(text: str) -> None:
    assert str(Action.parse(text)) == text


def test_input_is_forgiving_output_is_canonical() -> None:
    assert str(Action.parse("DISCARD 10♣")) == "discard TC"
    assert str(Action.parse("add 3 jk=8h wild=HIGH")) == "add 3 JK=8H wild=high"
    assert Action.parse("add 3 7S").meld == 2  # the notation counts melds from 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty action"),
        ("jump", "unknown action"),
        ("draw 7H", "takes no cards"),
        ("discard", "exactly one card"),
        ("discard 7H 8H", "exactly one card"),
        ("meld", "needs its cards"),
        ("add 7S", "meld number"),
        ("add 0 7S", "meld number"),
        ("add 1 7S wild=left", "wild=low or wild=high"),
        ("meld 7H=8H 9H", "only a wild"),
        ("meld JK=JK 5H 6H", "natural card"),
    ],
)
def test_malformed_actions_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Action.parse(text)


def test_deal_makes_actions_canonical() -> None:
    deal = position({0: "5H 6H JK 9C 9D"}, melds=(["4S 5S 2S=6S"], []), phase="play")
    assert str(deal.parse_action("meld jk 6h 5h")) == "meld 5H 6H JK=7H"
    assert str(deal.parse_action("meld JK=4H 6H 5H")) == "meld JK=4H 5H 6H"
    deal2 = position({0: "6S 9C 9D"}, melds=(["4S 5S 2S=6S"], []), phase="play")
    assert str(deal2.parse_action("add 1 6S")) == "add 1 6S wild=high"  # R13 default written out


def test_deal_refuses_adds_to_melds_the_team_does_not_have() -> None:
    deal = position({0: "5H 6H JK 9C 9D"}, phase="play")
    with pytest.raises(IllegalActionError) as info:
        deal.parse_action("add 1 5H")
    assert info.value.rule == "R12"


def test_str_of_every_legal_action_parses_back_to_itself() -> None:
    deal = position({0: "3H 4H 5H 6H 7H 2H JK 7S 7D 9C"}, melds=(["8H 9H TH"], []), phase="play")
    for action in deal.legal_actions():
        assert deal.parse_action(str(action)) == action
