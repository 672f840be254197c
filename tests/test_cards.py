"""Cards and their notation (notation.md, R2)."""

from __future__ import annotations

import pytest

from biriba.cards import JOKER, Card, card_name, counts_of, full_deck, parse_card, parse_cards
from biriba.errors import NotationError


@pytest.mark.parametrize(
    ("text", "name"),
    [("7H", "7H"), ("7h", "7H"), ("10s", "TS"), ("TS", "TS"), ("7♥", "7H"), ("q♣", "QC"), ("jk", "JK"), (" AD ", "AD")],
)
def test_card_input_forms_and_canonical_output(text: str, name: str) -> None:
    assert card_name(parse_card(text)) == name


@pytest.mark.parametrize("text", ["", "1H", "11S", "7X", "JOKER", "H7", "7HH"])
def test_bad_cards_are_refused_with_a_hint(text: str) -> None:
    with pytest.raises(NotationError, match="not a card"):
        parse_card(text)


def test_sorting_codes_gives_canonical_hand_order() -> None:
    cards = parse_cards("JK KC 2H AS 2S 9D AD")
    assert [card_name(c) for c in sorted(cards)] == ["AS", "AD", "2S", "2H", "9D", "KC", "JK"]


def test_R2_the_deck_and_identical_copies() -> None:
    deck = full_deck()
    counts = counts_of(deck)
    assert len(deck) == 108 and counts[JOKER] == 4 and set(counts[:JOKER]) == {2}


def test_card_value_type_reads_and_prints() -> None:
    card = Card.parse("10h")
    assert card == parse_card("TH") and str(card) == "TH" and repr(card) == "Card('TH')"
    assert card.rank == 9 and card.suit == 1 and not card.is_joker
