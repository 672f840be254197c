"""Melds under the variant options, checked against the brute-force reference.

- seed 004's wild limit, one wild per two naturals (``wild_limit="half"``),
- twos that are not wild (004's house rule, ``twos_wild=False``),
- melds of wilds only (002's three-handed wild-card biriba, ``wild_melds``).
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from biriba.cards import JOKER, counts_of, parse_card
from biriba.melds import POS_CODE, RunMeld, SetMeld, WildMeld, add_options, meld_options, parse_meld, resolve_add
from biriba.rules import PRESETS
from reference import reference_adds, reference_melds

ITALIAN = PRESETS["italian"]
NO_WILD_TWOS = PRESETS["classic"].replace(twos_wild=False)
THREE = PRESETS["three-handed"]
SUIT = 1
HEARTS = [POS_CODE[SUIT][p] for p in range(1, 14)]
POOL = [*HEARTS, JOKER, 4, 5, parse_card("7S"), parse_card("7D"), parse_card("2S")]


def sub_multisets(cards: list[int]) -> list[list[int]]:
    counter = Counter(cards)
    kinds = sorted(counter)
    return [
        [k for k, n in zip(kinds, combo) for _ in range(n)]
        for combo in product(*(range(counter[k] + 1) for k in kinds))
    ]


def legal_copies(cards: list[int]) -> bool:
    return all(cards.count(c) <= (4 if c == JOKER else 2) for c in cards)


@st.composite
def table_runs(draw: st.DrawFn, max_wilds: int) -> RunMeld:
    size = draw(st.integers(3, 12))
    lo = draw(st.integers(1, 15 - size))
    hi = min(lo + size - 1, 13 if lo == 1 else 14)
    n = draw(st.integers(0, min(max_wilds, (hi - lo + 1) // 3)))
    cells = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n, unique=True))
    wilds = []
    for cell in sorted(cells):
        card = draw(st.sampled_from([JOKER, 4, 4 + SUIT]))
        if not (card == 4 + SUIT and cell == 2):
            wilds.append((cell, card))
    return RunMeld(SUIT, lo, hi, tuple(wilds))


def compare_adds(meld: RunMeld | SetMeld | WildMeld, hand: list[int], rules) -> None:  # type: ignore[no-untyped-def]
    by_cards: dict[tuple[int, ...], set[object]] = {}
    for option in add_options(meld, counts_of(hand), rules):
        by_cards.setdefault(tuple(sorted(option.cards)), set()).add(option.meld)
    for subset in sub_multisets(hand):
        assert by_cards.get(tuple(subset), set()) == reference_adds(meld, subset, rules), (meld.text(), subset)


def compare_melds(hand: list[int], rules) -> None:  # type: ignore[no-untyped-def]
    by_cards: dict[tuple[int, ...], set[object]] = {}
    for m in meld_options(counts_of(hand), rules):
        by_cards.setdefault(tuple(sorted(m.cards())), set()).add(m)
    for subset in sub_multisets(hand):
        assert by_cards.get(tuple(subset), set()) == reference_melds(subset, rules), subset


settings_ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings_
@given(table_runs(3), st.lists(st.sampled_from(POOL), min_size=1, max_size=5))
def test_half_wild_limit_run_adds_match_the_reference(run: RunMeld, hand: list[int]) -> None:
    assume(legal_copies(hand) and len(run.wilds) <= ITALIAN.max_wilds(run.size - len(run.wilds)))
    compare_adds(run, hand, ITALIAN)


@settings_
@given(st.lists(st.sampled_from(POOL + [parse_card("7H")] * 2), min_size=3, max_size=7))
def test_half_wild_limit_new_melds_match_the_reference(hand: list[int]) -> None:
    assume(legal_copies(hand))
    compare_melds(hand, ITALIAN)


@settings_
@given(st.lists(st.sampled_from([*POOL, parse_card("2D"), parse_card("2C")]), min_size=3, max_size=6))
def test_twos_not_wild_melds_match_the_reference(hand: list[int]) -> None:
    assume(legal_copies(hand))
    compare_melds(hand, NO_WILD_TWOS)


@settings_
@given(table_runs(0), st.lists(st.sampled_from(POOL), min_size=1, max_size=5))
def test_twos_not_wild_run_adds_match_the_reference(run: RunMeld, hand: list[int]) -> None:
    assume(legal_copies(hand))
    compare_adds(run, hand, NO_WILD_TWOS)


@settings_
@given(st.lists(st.sampled_from([*POOL, JOKER, 6, 7]), min_size=3, max_size=6))
def test_wild_melds_match_the_reference(hand: list[int]) -> None:
    assume(legal_copies(hand))
    compare_melds(hand, THREE)


def test_option_wild_limit_half_allows_one_wild_per_two_naturals() -> None:
    run = parse_meld("4H 5H JK=6H 7H 2C=8H 9H", ITALIAN)  # 4 naturals, 2 wilds
    assert len(run.wilds) == 2
    with pytest.raises(ValueError, match=r"wild_limit: .*allow 1 wild"):
        parse_meld("4H JK=5H 6H 2C=7H", ITALIAN)  # 2 naturals may carry only 1
    options = {
        m.text()
        for m in meld_options(counts_of([parse_card(c) for c in ["5H", "6H", "7H", "8H", "JK", "2C"]]), ITALIAN)
    }
    assert "5H 6H 7H 8H JK=9H 2C=TH" in options or "5H 6H 7H 8H 2C=9H JK=TH" in options
    assert not {
        m.text()
        for m in meld_options(
            counts_of([parse_card(c) for c in ["5H", "6H", "7H", "8H", "JK", "2C"]]), PRESETS["classic"]
        )
        if len(m.wilds) > 1
    }


def test_option_wild_limit_half_sets_never_more_wilds_than_one_per_two_naturals() -> None:
    hand = counts_of([parse_card(c) for c in ["7S", "7H", "7D", "7C", "JK", "JK", "JK"]])
    sets = [m for m in meld_options(hand, ITALIAN) if isinstance(m, SetMeld)]
    assert max(len(m.wilds) for m in sets) == 2 and all(len(m.wilds) <= len(m.naturals) // 2 for m in sets)


def test_option_twos_not_wild_twos_are_naturals_and_form_sets() -> None:
    hand = counts_of([parse_card(c) for c in ["2S", "2H", "2D", "5H", "6H"]])
    texts = {m.text() for m in meld_options(hand, NO_WILD_TWOS)}
    assert "2S 2H 2D" in texts and "5H 6H 2S=7H" not in texts
    assert "2S 2H 2D" not in {m.text() for m in meld_options(hand, PRESETS["classic"])}


def test_option_wild_melds_lay_and_grow_a_meld_of_wilds() -> None:
    hand = counts_of([parse_card(c) for c in ["JK", "JK", "2C", "2D", "9S"]])
    wild = [m for m in meld_options(hand, THREE) if isinstance(m, WildMeld)]
    assert WildMeld((6, 7, 52)) in wild and all(m.size >= 3 for m in wild)
    meld = WildMeld((6, 7, 52))
    grown = resolve_add(meld, [JOKER], [-1], None, THREE).meld
    assert grown == WildMeld((6, 7, 52, 52))
    assert not [m for m in meld_options(hand, PRESETS["classic"]) if isinstance(m, WildMeld)]
