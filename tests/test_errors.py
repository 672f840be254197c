"""The whole-number check every reader of JSON input uses (positions, records, rule options)."""

from __future__ import annotations

import json

import pytest

from biriba.errors import is_whole_number


@pytest.mark.parametrize("text", ["0", "-3", "5000", "10000000000000000000000"])
def test_json_integers_are_whole_numbers(text: str) -> None:
    assert is_whole_number(json.loads(text))


@pytest.mark.parametrize("text", ["true", "false", "1.0", "1e400", "null", '"5"', "[5]"])
def test_true_fractions_infinity_text_and_lists_are_not(text: str) -> None:
    assert not is_whole_number(json.loads(text))
