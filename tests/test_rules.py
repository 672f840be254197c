"""The rules configuration: presets, options as data, JSON, validation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from biriba.errors import NotationError
from biriba.melds import meld_bonus, parse_meld
from biriba.rules import (
    CLASSIC,
    OPTION_LENGTHS,
    OPTION_LIMITS,
    OPTION_NAMES,
    OPTION_NONE,
    PRESETS,
    TABLE_IDLE_ROUNDS,
    Bonus,
    CardValues,
    Rules,
    option_value,
    preset,
    range_words,
)


def test_classic_preset_holds_the_classic_numbers() -> None:
    rules = preset("classic")
    assert rules is CLASSIC and PRESETS["classic"] is CLASSIC
    assert (rules.seats, rules.teams, rules.packets, rules.hand_size, rules.packet_size) == (
        4,
        ((0, 2), (1, 3)),
        2,
        11,
        11,
    )
    assert rules.card_values == CardValues(joker=20, ace=15, two=10, high=10, low=5)
    assert (rules.run_bonus, rules.set_bonus, rules.full_run_bonus) == (
        Bonus(200, 100),
        Bonus(300, 150),
        Bonus(1000, 500),
    )
    assert (rules.target, rules.target_rule, rules.passes_to_end) == (5000, "exceed", 4)
    assert (rules.reserve_biribas, rules.closure_biribas, rules.max_wilds(10)) == (1, 1, 1)


def test_rules_json_is_a_preset_name_or_an_object_of_options() -> None:
    assert CLASSIC.to_json() == "classic"
    assert Rules.from_json("classic") == CLASSIC
    changed = CLASSIC.replace(target=3000)
    assert changed.name == "classic*" and changed.target == 3000
    data = changed.to_json()
    assert isinstance(data, dict) and data["target"] == 3000
    assert Rules.from_json(data) == changed
    assert Rules.from_json({"target": 2000}).name == "classic*"


def test_R26_meld_bonus_table() -> None:
    def bonus(text: str) -> int:
        return meld_bonus(parse_meld(text, CLASSIC), CLASSIC)

    assert bonus("3H 4H 5H 6H 7H 8H") == 0
    assert bonus("3H 4H 5H 6H 7H 8H 9H") == 200 and bonus("3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK=AH") == 100
    assert bonus("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH") == 1000
    assert bonus("AH 2H 3H 4H 5H 6H JK=7H 8H 9H TH JH QH KH") == 500
    assert bonus("9S 9S 9H 9H 9D 9D 9C 9C") == 300 and bonus("9S 9S 9H 9H 9D 9D JK") == 150


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("nope", "unknown rules preset"),
        ({"colour": "red"}, "unknown rule options"),
        ({"card_values": {"joker": 20, "queen": 3}}, "bad rule options"),
        ({"seats": 3}, r"partnerships need 4 or 6 seats .*for 3 players alone, also set partnerships=false"),
        ({"seats": 7, "partnerships": False}, "seats: 2 to 6, not 7"),
        ({"trump": "hearts"}, "trump must be one of"),
        ({"target_rule": "maybe"}, "target_rule"),
        ({"wild_limit": "two"}, "wild_limit must be one of"),
        ({"meld_out": "yes"}, "true or false"),
        ({"hand_size": 20, "packet_size": 20, "jokers": 0}, "the deal needs 121 cards and a stock"),
        ({"packs": 5}, "packs: 1 to 4, not 5"),
        ({"packs": 0}, "packs: 1 to 4, not 0"),
        (7, "preset name or an object"),
        ({"run_bonus": {"clean": float("inf"), "dirty": 100}}, "run_bonus: inf is not a whole number"),
        ({"set_bonus": {}}, "set_bonus has 'clean' and 'dirty' points"),
        ({"set_bonus": {"clean": 300, "dirty": 150, "in_hand": [600]}}, r"\[600\] is not a list of 2 whole numbers"),
        ({"card_values": {"joker": "50"}}, "card_values has the points of joker, ace, two, high, low"),
        ({"card_values": {"joker": 50, "ace": 20, "two": 20, "high": 10, "low": "5"}}, "'5' is not a whole number"),
        ({"card_values": {"joker": 50}}, "card_values has the points of joker, .*: every one, no other"),
        ({"card_values": None}, "card_values: null is not one of its values: it takes five values"),
        ({"run_bonus": None}, "run_bonus: null is not one of its values: it takes clean/dirty points"),
        ({"partnerships": None}, "partnerships: null is not one of its values: it takes true or false"),
        ({"hand_size": None}, "hand_size: null is not one of its values: it takes a whole number"),
        ({"set_bonus": {"clean": 300, "dirty": 150, "in_hand": []}}, r"\[\] is not a list of 2 whole numbers"),
        ({"opening_minimums": [[0, 1499]]}, r"\[0, 1499\] is not a list of 3 whole numbers"),
        ({"opening_minimums": [[0, 1499, float("inf")]]}, "opening_minimums: inf is not a whole number"),
        ({"cut_bonus": [100, 1.5]}, "cut_bonus: 1.5 is not a whole number"),
        ({"base": ["classic"]}, "'base' is a preset's name"),
    ],
)
def test_bad_rules_are_refused(data: object, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Rules.from_json(data)  # type: ignore[arg-type]


def test_the_options_that_may_be_none() -> None:
    """Six options have a "none" (a run like others, no super biriba, ...); null is no value of the others."""
    assert {"full_run_bonus", "long_run_bonus", "trump_run_bonus", "trump_full_run_bonus", "ace_set_bonus"} | {
        "inactive_reserve_penalty"
    } == OPTION_NONE


@pytest.mark.parametrize("option", OPTION_NAMES)
def test_null_is_refused_by_every_option_but_those_that_may_be_none(option: str) -> None:
    if option in OPTION_NONE:
        assert option_value(option, None) is None and getattr(Rules.from_json({option: None}), option) is None
        return
    with pytest.raises(NotationError, match=rf"^{option}: null is not one of its values: it takes "):
        option_value(option, None)
    with pytest.raises(NotationError, match=rf"^bad rule options: {option}: null is not one of its values"):
        Rules.from_json({"name": "classic*", option: None})


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("card_values=50", "card_values takes five values"),
        ("card_values=50,20,20,10", "card_values takes five values"),
        ("card_values=50,20,20,10,5,5", "card_values takes five values"),
        ("opening_minimums=", "opening_minimums takes from-to:minimum items"),
        ("opening_minimums=1000-1499:75,", "opening_minimums takes from-to:minimum items"),
        ("run_bonus=none", "run_bonus takes clean/dirty points"),
        ("card_values=none", "card_values takes five values"),
    ],
)
def test_set_refuses_a_value_of_the_wrong_shape(text: str, words: str) -> None:
    with pytest.raises(NotationError, match=words):
        CLASSIC.with_options([text])


@pytest.mark.parametrize("option", list(OPTION_LIMITS))
def test_D35_every_option_is_refused_one_past_its_limits(option: str) -> None:
    low, high = OPTION_LIMITS[option]
    current = getattr(CLASSIC, option)
    for outside in (low - 1, high + 1):
        value = _with_every_number(current, outside, option)
        with pytest.raises(NotationError, match=rf"^{option}: .*{low} to {high}, not "):
            CLASSIC.replace(**{option: value})
        assert CLASSIC.with_options([]) == CLASSIC  # nothing changed
    for inside in (low, high):
        value = _with_every_number(current, inside, option)
        try:
            rules = CLASSIC.replace(**{option: value})
        except NotationError as exc:  # another rule may still refuse an extreme (a deck too small for the deal)
            assert not str(exc).startswith(f"{option}:"), exc
        else:
            assert getattr(rules, option) == value


def _with_every_number(current: object, number: int, option: str) -> object:
    """A value of the option's kind holding ``number`` wherever it holds a number."""
    if option == "card_values":
        return CardValues(number, number, number, number, number)
    if option == "cut_bonus":
        return (number, number)
    if option == "opening_minimums":
        return ((number, number, number),)
    if isinstance(current, Bonus) or (option.endswith("_bonus") and option != "going_out_bonus"):
        return Bonus(number, number)
    return number


def test_D35_the_docs_list_the_limits_the_rules_module_states() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()
    for option in OPTION_LIMITS:
        extra = f", at most {OPTION_LENGTHS[option]} items" if option in OPTION_LENGTHS else ""
        assert f"| `{option}` | {range_words(option)}{extra} |" in text, option
    listed = re.findall(r"^\| `([a-z_]+)` \| (?:each number )?-?\d+ to \d+", text, re.MULTILINE)
    assert listed == list(OPTION_LIMITS)


def test_D36_tables_with_people_end_idle_deals_unless_their_options_say_otherwise() -> None:
    assert CLASSIC.idle_rounds == 0 and all(p.idle_rounds == 0 for p in PRESETS.values())  # as the seeds say
    table = CLASSIC.at_table()
    assert table.idle_rounds == TABLE_IDLE_ROUNDS == 2 and table.name == "classic*"
    assert table.idle_turns_to_end == 8
    assert PRESETS["italian"].at_table().idle_rounds == 2
    assert CLASSIC.replace(idle_rounds=0).at_table(["idle_rounds"]).idle_rounds == 0  # turned off on purpose
    assert CLASSIC.replace(idle_rounds=3).at_table().idle_rounds == 3
    assert PRESETS["kozi"].at_table() is PRESETS["kozi"]  # its deal ends with the stock anyway
