"""Melds: notation, the rules R6..R14, and the enumeration against a brute-force reference."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from biriba.cards import JOKER, counts_of, parse_card, parse_cards
from biriba.errors import IllegalActionError, NotationError
from biriba.melds import (
    POS_CODE,
    RunMeld,
    SetMeld,
    add_options,
    meld_options,
    meld_state,
    meld_value,
    parse_meld,
    parse_placed,
    resolve_add,
    resolve_meld,
)
from biriba.rules import CLASSIC
from reference import reference_adds, reference_melds


def meld(text: str) -> RunMeld | SetMeld:
    return parse_meld(text, CLASSIC)


def make(text: str) -> str:
    """Meld the cards as typed (slots allowed) and return the canonical meld."""
    cards, slots = parse_placed(text.split())
    return resolve_meld(cards, slots, CLASSIC).text()


def add(table: str, text: str, end: str | None = None) -> str:
    cards, slots = parse_placed(text.split())
    return resolve_add(meld(table), cards, slots, end, CLASSIC).meld.text()


def refused(rule: str, fn, *args) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalActionError) as info:
        fn(*args)
    assert info.value.rule == rule, str(info.value)


# --------------------------------------------------------------- R6, R7
def test_R6_jokers_and_twos_are_wild() -> None:
    assert make("7S 7H JK") == "7S 7H JK"
    assert make("7S 7H 2D") == "7S 7H 2D"
    assert make("5C 6C 2D") == "5C 6C 2D=7C"


def test_R7_set_of_one_rank_with_identical_copies() -> None:
    assert make("7H 7S 7H") == "7S 7H 7H"
    assert isinstance(meld("7S 7H 7H"), SetMeld)


def test_R7_set_needs_three_cards_and_at_most_one_wild() -> None:
    refused("R7", make, "7H 7S")
    refused("R7", make, "7H 7S JK 2C")
    refused("R7", make, "7H JK 2C")


def test_R7_no_set_of_twos_or_jokers() -> None:
    refused("R7", make, "2S 2H 2D")
    refused("R7", make, "JK JK JK")


def test_R7_set_of_aces_is_a_set() -> None:
    assert make("AS AH AD") == "AS AH AD"


# ------------------------------------------------------------------- R8
def test_R8_run_of_one_suit_consecutive() -> None:
    assert make("3H 4H 5H") == "3H 4H 5H"
    refused("R8", make, "3H 4H 5S")
    refused("R8", make, "3H 4H 6H")


def test_R8_ace_low_or_high_never_wrapping() -> None:
    assert make("AH 2H 3H") == "AH 2H 3H"
    assert make("QH KH AH") == "QH KH AH"
    refused("R8", make, "KH AH 2H 3H")


def test_R8_thirteen_card_run_is_written_ace_low() -> None:
    high = meld("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    low = meld("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    assert high == low and low.size == 13 and low.lo == 1
    assert add("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "2H") == low.text()
    # nothing can go onto a 13-run: no rank is free and no end remains
    assert not list(add_options(low, counts_of(parse_cards("AH JK 2S")), CLASSIC))


def test_R8_no_run_longer_than_thirteen_nor_two_aces() -> None:
    refused("R8", add, "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH", "KH AH")
    refused("R8", make, "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")


# ------------------------------------------------------------------- R9
def test_R9_own_two_at_rank_two_is_natural() -> None:
    run = meld("2H 3H 4H")
    assert run.clean and run.lo == 2
    assert make("2H 3H 4H JK") == "2H 3H 4H JK=5H"  # a natural two and one wild


def test_R9_two_that_can_be_natural_is_natural_and_other_slot_refused() -> None:
    assert make("2H 3H 4H") == "2H 3H 4H"
    refused("R9", make, "3H 4H 2H=5H")
    assert add("3H 4H 5H", "2H") == "2H 3H 4H 5H"
    refused("R9", add, "3H 4H 5H", "2H=6H")


def test_R9_two_that_cannot_be_natural_is_a_wild() -> None:
    assert make("5H 6H 2H") == "5H 6H 2H=7H"
    assert make("3H 5H 2H") == "3H 2H=4H 5H"


def test_R9_wild_two_on_table_keeps_its_slot_while_rank_two_is_free() -> None:
    # 2H=7H stays wild when 3H extends the run down to rank 3
    assert add("4H 5H 6H 2H=7H", "3H") == "3H 4H 5H 6H 2H=7H"
    table = meld("3H 4H 5H 6H 2H=7H")
    assert not table.clean and table.lo == 3


def test_R9_second_copy_of_the_two_is_a_wild() -> None:
    assert make("2H 2H 3H 4H") == "2H 3H 4H 2H=5H"


# ------------------------------------------------------------------ R10
def test_R10_wild_in_a_gap_takes_the_gap() -> None:
    assert make("5H JK 7H") == "5H JK=6H 7H"
    refused("R10", make, "5H JK=8H 7H")


def test_R10_wild_at_an_end_goes_where_named_else_high_else_low() -> None:
    assert make("5H 6H JK") == "5H 6H JK=7H"
    assert make("5H 6H JK=4H") == "JK=4H 5H 6H"
    assert make("KH AH JK") == "JK=QH KH AH"  # the high end is impossible


# ------------------------------------------------------------------ R11
def test_R11_biriba_clean_or_dirty_judged_as_it_stands() -> None:
    clean = meld("3H 4H 5H 6H 7H 8H 9H")
    assert meld_state(clean, CLASSIC) == "clean biriba"
    dirty = resolve_add(clean, [JOKER], [-1], None, CLASSIC).meld
    assert meld_state(dirty, CLASSIC) == "dirty biriba"
    six = meld("4H 5H 6H 7H 8H 2H=9H")
    assert meld_state(six, CLASSIC) == "run"
    # a wild two slides to rank 2: the run becomes clean
    became = resolve_add(meld("3H 4H 5H 6H 7H 8H 2H=9H"), parse_cards("9H"), [-1], "low", CLASSIC).meld
    assert became.clean and became.size == 8 and meld_state(became, CLASSIC) == "clean biriba"
    assert meld_state(meld("7S 7S 7H 7H 7D 7D 7C"), CLASSIC) == "clean biriba"


# ------------------------------------------------------------------ R13
def test_R13_natural_takes_the_slot_and_wild_moves_to_named_end() -> None:
    assert add("5H JK=6H 7H", "6H", "low") == "JK=4H 5H 6H 7H"
    assert add("5H JK=6H 7H", "6H", "high") == "5H 6H 7H JK=8H"
    assert add("5H JK=6H 7H", "6H") == "5H 6H 7H JK=8H"  # default: high end


def test_R13_default_sends_a_two_of_the_suit_to_rank_two() -> None:
    assert add("3H 4H 2H=5H", "5H") == "2H 3H 4H 5H"
    assert add("3H 4H 2H=5H", "5H", "high") == "3H 4H 5H 2H=6H"


def test_R13_default_goes_low_when_high_is_impossible() -> None:
    assert add("JH QH JK=KH AH", "KH") == "JK=TH JH QH KH AH"


def test_R13_no_end_can_take_the_wild_makes_the_add_illegal() -> None:
    full = "AH 2H 3H 4H 5H 6H JK=7H 8H 9H TH JH QH KH"
    refused("R13", add, full, "7H")


def test_R13_multi_card_add_displaced_wild_then_extended_beyond() -> None:
    # 6H sends the joker to the high end (8), then 9H extends beyond it
    assert add("5H JK=6H 7H", "6H 9H", "high") == "5H 6H 7H JK=8H 9H"
    # the wild is named at the moment it is displaced: "low" then 3H goes beyond it
    assert add("5H JK=6H 7H", "6H 3H", "low") == "3H JK=4H 5H 6H 7H"


def test_R13_multi_card_add_can_turn_a_wild_two_natural() -> None:
    # 3H first, then 6H displaces 2H, which lands on rank 2 and becomes natural
    assert add("4H 5H 2H=6H", "3H 6H") == "2H 3H 4H 5H 6H"


# ------------------------------------------------------------------ R14
def test_R14_no_wild_onto_a_meld_with_a_wild() -> None:
    refused("R14", add, "5H JK=6H 7H", "2S")
    refused("R14", add, "7S 7H JK", "2S")


def test_R14_not_even_for_a_moment_to_turn_a_two_natural() -> None:
    # JK at rank 3 and then 6H would send 2H to rank 2: two wilds for a moment
    refused("R14", add, "4H 5H 2H=6H", "JK=3H 6H")


def test_R14_decision_a_wild_may_follow_once_the_two_has_turned_natural() -> None:
    # docs/rules.md D2: 3H sends 2H to rank 2 (natural), then the run holds no wild and JK may join
    assert add("2H=3H 4H 5H", "3H JK=6H") == "2H 3H 4H 5H JK=6H"
    assert add("2H=3H 4H 5H", "3H JK=AH") == "JK=AH 2H 3H 4H 5H"
    # but not the other way round: the joker first would make two wilds at once
    refused("R14", add, "4H 5H 2H=6H", "JK=3H 6H")


def test_R9_decision_judged_on_the_whole_action_with_the_ace_free_to_move() -> None:
    # docs/rules.md D1: AH 2H onto 3H..QH: the two can be natural (A-2-3..Q), so 2H=KH with AH high is refused
    assert add("3H 4H 5H 6H 7H 8H 9H TH JH QH", "AH 2H") == "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"
    refused("R9", add, "3H 4H 5H 6H 7H 8H 9H TH JH QH", "AH 2H=KH")
    refused("R9", make, "3H 4H 5H 6H 7H 8H 9H TH JH QH AH 2H=KH")


def test_R13_decision_wild_end_of_a_thirteen_run_ace_slot_is_either_end() -> None:
    # docs/rules.md D3: the ace slot of a 13-run is both the low and the high end
    table = "2H 3H 4H 5H 6H JK=7H 8H 9H TH JH QH KH"
    assert add(table, "7H", "low") == add(table, "7H", "high") == "JK=AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"


def test_refusals_cite_the_rule_that_decides() -> None:
    refused("R9", add, "4H 5H 6H", "3H 2H=7H")  # with 3H the two can lie natural on rank 2
    refused("R14", add, "5H JK=6H 7H", "2H")  # 2H could only be a second wild
    refused("R14", add, "7S 7H 7D", "2C JK")  # two wilds at once
    refused("R8", make, "KH AH 3H 2H=QH")  # K-A-2-3 wraps


# --------------------------------------------------------- notation, values
def test_meld_notation_round_trips() -> None:
    for text in ["3H 4H 5H JK=6H", "7S 7H 7H JK", "2C 3C 4C", "JK=QH KH AH", "4D 2S=5D 6D 7D"]:
        assert meld(text).text() == text


def test_table_meld_errors_are_notation_errors() -> None:
    with pytest.raises(NotationError):
        meld("3H 4H 6H")
    with pytest.raises(NotationError):
        meld("3H 4H 5H JK JK")


def test_R25_meld_value_counts_wilds_at_their_own_value() -> None:
    assert meld_value(meld("3H 4H 5H JK=6H"), CLASSIC.values) == 5 + 5 + 5 + 20
    assert meld_value(meld("AS AH 2C"), CLASSIC.values) == 15 + 15 + 10


# -------------------------------------------------- against the reference
SUIT = 1  # hearts; suits are symmetric in the rules
HEARTS = [POS_CODE[SUIT][p] for p in range(1, 14)]
POOL = [*HEARTS, JOKER, 4, 5, parse_card("7S"), parse_card("7D")]


def sub_multisets(cards: list[int]) -> list[list[int]]:
    counter = Counter(cards)
    kinds = sorted(counter)
    out = []
    for combo in product(*(range(counter[k] + 1) for k in kinds)):
        out.append([k for k, n in zip(kinds, combo) for _ in range(n)])
    return out


@st.composite
def table_runs(draw: st.DrawFn) -> RunMeld:
    size = draw(st.integers(3, 12))
    lo = draw(st.integers(1, 15 - size))
    hi = lo + size - 1
    if lo == 1 and hi == 14:
        hi = 13
    wild = draw(st.sampled_from([None, JOKER, 4, 4 + SUIT]))
    if wild is None:
        return RunMeld(SUIT, lo, hi)
    slot = draw(st.integers(lo, hi))
    if wild == 4 + SUIT and slot == 2:
        return RunMeld(SUIT, lo, hi)
    return RunMeld(SUIT, lo, hi, ((slot, wild),))


hands = st.lists(st.sampled_from(POOL), min_size=1, max_size=5).filter(
    lambda cs: all(cs.count(c) <= (4 if c == JOKER else 2) for c in cs)
)


@settings(max_examples=300, deadline=None)
@given(table_runs(), hands)
def test_run_adds_match_the_reference(run: RunMeld, hand: list[int]) -> None:
    by_cards: dict[tuple[int, ...], set[RunMeld | SetMeld]] = {}
    for option in add_options(run, counts_of(hand), CLASSIC):
        by_cards.setdefault(tuple(sorted(option.cards)), set()).add(option.meld)
    for subset in sub_multisets(hand):
        assert by_cards.get(tuple(subset), set()) == reference_adds(run, subset), (run.text(), subset)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(POOL + [parse_card("7H")] * 3), min_size=3, max_size=6))
def test_new_melds_match_the_reference(hand: list[int]) -> None:
    assume(all(hand.count(c) <= (4 if c == JOKER else 2) for c in hand))
    by_cards: dict[tuple[int, ...], set[RunMeld | SetMeld]] = {}
    for m in meld_options(counts_of(hand), CLASSIC):
        by_cards.setdefault(tuple(sorted(m.cards())), set()).add(m)
    for subset in sub_multisets(hand):
        assert by_cards.get(tuple(subset), set()) == reference_melds(subset), subset


@settings(max_examples=200, deadline=None)
@given(table_runs(), hands)
def test_every_add_option_is_distinct_and_resolves_to_itself(run: RunMeld, hand: list[int]) -> None:
    seen = set()
    for option in add_options(run, counts_of(hand), CLASSIC):
        key = (option.cards, option.slots, option.end)
        assert key not in seen
        seen.add(key)
        assert resolve_add(run, list(option.cards), list(option.slots), option.end, CLASSIC) == option
