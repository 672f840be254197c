"""Refusals under a variant option name that option (notation.md), and say the limit in words.

Each row is a position, an action and the option it breaks under these
rules; under classic the same action is legal or cites an R number.
"""

from __future__ import annotations

from typing import Any

import pytest

from biriba.deal import Deal
from biriba.errors import IllegalActionError, NotationError
from biriba.melds import parse_meld
from biriba.rules import CLASSIC, PRESETS, Rules
from helpers import position

ITALIAN = PRESETS["italian"]
RUN = "3S 4S 5S 6S 7S 8S 9S"
KINGS = "KS KS KH KH KD KD KC"

ROWS: list[tuple[str, Rules, dict[str, Any], str, str, str]] = [
    # (id, rules, position, action, option, words the reason must hold)
    (
        "wild_limit run",
        ITALIAN,
        {0: "3H JK JK 9C QD"},
        "meld 3H JK=4H JK=5H",
        "wild_limit",
        "one wild per two naturals",
    ),
    ("wild_limit set", ITALIAN, {0: "7S 7H JK JK 9C QD"}, "meld 7S 7H JK JK", "wild_limit", "2 naturals allow 1 wild"),
    ("twos_wild slot", CLASSIC.replace(twos_wild=False), {0: "7H 2C 9H 5S QD"}, "meld 7H 2C=8H 9H", "twos_wild", "2C"),
    ("twos_wild run", CLASSIC.replace(twos_wild=False), {0: "7H 2C 9H 5S QD"}, "meld 7H 9H 2C", "twos_wild", "no wild"),
    ("min_meld", CLASSIC.replace(min_meld=4), {0: "3H 4H 5H 9C QD"}, "meld 3H 4H 5H", "min_meld", "at least 4 cards"),
    ("sets", PRESETS["kozi"], {0: "7S 7H 7D 9C QD"}, "meld 7S 7H 7D", "sets", "runs only"),
]


@pytest.mark.parametrize(
    ("rules", "hands", "action", "option", "words"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_option_refusals_name_the_option(
    rules: Rules, hands: dict[int, str], action: str, option: str, words: str
) -> None:
    deal = position(hands, phase="play", rules=rules)
    with pytest.raises(IllegalActionError) as info:
        deal.apply(deal.parse_action(action))
    assert info.value.rule == option and words in info.value.reason, str(info.value)
    classic = position(hands, phase="play")
    try:
        classic.apply(classic.parse_action(action))
    except IllegalActionError as exc:
        assert exc.rule.startswith("R"), str(exc)


def refusal(deal: Deal, action: str) -> IllegalActionError:
    with pytest.raises(IllegalActionError) as info:
        deal.apply(deal.parse_action(action))
    return info.value


def test_wild_limit_refusal_of_an_add_says_the_limit() -> None:
    deal = position({0: "JK 9C QD TC"}, melds=(["4H 5H JK=6H"], []), phase="play", rules=ITALIAN)
    error = refusal(deal, "add 1 JK")
    assert error.rule == "wild_limit" and "2 naturals allow 1 wild, and this run would hold 2" in error.reason
    sets = position({0: "JK 9C QD TC"}, melds=(["7S 7H 7D JK"], []), phase="play", rules=ITALIAN)
    error = refusal(sets, "add 1 JK")
    assert error.rule == "wild_limit" and "3 naturals allow 1 wild" in error.reason


def test_twos_wild_refusal_of_an_add() -> None:
    deal = position({0: "2C 9C QD TC"}, melds=(["4H 5H 6H"], []), phase="play", rules=CLASSIC.replace(twos_wild=False))
    assert refusal(deal, "add 1 2C").rule == "twos_wild"
    assert refusal(deal, "add 1 2C=7H").rule == "twos_wild"


def test_wild_melds_refusal_of_a_natural_on_a_wild_meld() -> None:
    three = PRESETS["three-handed"]
    deal = position({0: "5H 9C QD TC"}, melds=(["2S 2D JK"], [], []), phase="play", rules=three)
    assert refusal(deal, "add 1 5H").rule == "wild_melds"


def test_biriba_count_refusals_name_their_options() -> None:
    city = CLASSIC.replace(closure_biribas=2)
    deal = position({0: "9C"}, melds=([RUN], []), reserves=((0, True), None), phase="play", rules=city)
    error = refusal(deal, "discard 9C")
    assert error.rule == "closure_biribas" and "going out needs 2 biribas" in error.reason
    two = CLASSIC.replace(reserve_biribas=2)
    deal = position({0: "9C"}, melds=([RUN], []), phase="play", rules=two)
    error = refusal(deal, "discard 9C")
    assert error.rule == "reserve_biribas" and "2 biribas" in error.reason
    assert refusal(position({0: "9C"}, phase="play"), "discard 9C").rule == "R21"  # classic: the R number


def test_set_biribas_refusal_when_a_long_set_does_not_count() -> None:
    aces_only = CLASSIC.replace(set_biribas="aces")
    deal = position({0: "9C"}, melds=([KINGS], []), phase="play", rules=aces_only)
    error = refusal(deal, "discard 9C")
    assert error.rule == "set_biribas" and "only runs and sets of aces are biribas" in error.reason


def test_closure_options_refuse_the_meld_that_would_leave_one_card() -> None:
    city = CLASSIC.replace(closure_biribas=2)
    deal = position({0: "TS 9C"}, melds=([RUN], []), reserves=((0, True), None), phase="play", rules=city)
    error = refusal(deal, "add 1 TS")
    assert error.rule == "closure_biribas" and error.reason.startswith("keep at least 2 cards")


def test_table_melds_name_the_option_too() -> None:
    with pytest.raises(NotationError, match="wild_limit: a meld holds at most one wild per two naturals"):
        parse_meld("3H JK=4H JK=5H", ITALIAN)
    with pytest.raises(NotationError, match=r"option sets"):
        parse_meld("7S 7H 7D", PRESETS["kozi"])


def test_keeping_one_card_names_the_reserve_options() -> None:
    italian = position({0: "TS 9C"}, melds=([RUN], []), phase="play", rules=ITALIAN)
    error = refusal(italian, "add 1 TS")
    assert error.rule == "reserve_access" and "could not take your reserve" in error.reason
    two = position({0: "TS 9C"}, melds=([RUN], []), phase="play", rules=CLASSIC.replace(reserve_biribas=2))
    assert refusal(two, "add 1 TS").rule == "reserve_biribas"
    classic = position({0: "6S 9C"}, phase="play", melds=(["3S 4S 5S"], []))
    assert refusal(classic, "add 1 6S").rule == "R17"  # no biriba: the classic rule


def test_biriba_size_refusal_names_the_option() -> None:
    eight = CLASSIC.replace(biriba_size=8)
    deal = position({0: "9C"}, melds=([RUN], []), reserves=((0, True), None), phase="play", rules=eight)
    error = refusal(deal, "discard 9C")
    assert error.rule == "biriba_size" and "at least 8 cards" in error.reason
    assert (
        refusal(position({0: "9C"}, melds=([RUN], []), phase="play", rules=eight), "discard 9C").rule == "biriba_size"
    )


def test_closure_by_comes_before_the_way_of_going_out() -> None:
    deal = position({0: "TS"}, melds=([RUN], []), reserves=((2, True), None), phase="play", rules=PRESETS["atout"])
    assert refusal(deal, "add 1 TS").rule == "closure_by"


def test_wild_limit_judges_a_two_that_cannot_be_natural() -> None:
    deal = position({0: "2H 9C QD TC"}, melds=(["4H 5H 6H JK=7H"], []), phase="play", rules=ITALIAN)
    for action in ("add 1 2H", "add 1 2H=8H"):
        error = refusal(deal, action)
        assert error.rule == "wild_limit" and "3 naturals allow 1 wild" in error.reason, str(error)
