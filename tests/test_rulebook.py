"""The rule book the package ships: every id it numbers found by it, its parts, the ids a refusal names."""

from __future__ import annotations

import re
from pathlib import Path

from biriba import rulebook

BOOK = Path(__file__).parents[1] / "docs" / "rules.md"


def test_the_package_ships_the_rule_book_of_docs() -> None:
    assert rulebook.text() == BOOK.read_text(encoding="utf-8")


def test_every_rule_and_decision_the_book_numbers_is_told_by_its_id_however_typed() -> None:
    ids = re.findall(r"^- \*?\*?([RD]\d+[a-z]?)\b", BOOK.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(ids) > 60 and {"R1", "R30", "D1", "D36"} <= set(ids)
    for rule_id in ids:
        words = rulebook.rule(rule_id.lower())
        assert words is not None and words.startswith(rule_id), rule_id
        assert "**" not in words and "\n" not in words
    assert rulebook.rule("R99") is None and rulebook.canonical("r23A") == "R23a"
    assert rulebook.unknown("r99") == "no rule R99: the rules are R1..R30 (some with a letter) and D1..D38"


def test_the_books_parts_are_its_second_level_headings_whole() -> None:
    parts = rulebook.sections()
    assert [title for title, _ in parts][:2] == ["In brief", "Classic profile (seed 000)"]
    classic = dict(parts)["Classic profile (seed 000)"]
    assert "### Melds" in classic and "- R1 " in classic and "## " not in classic.replace("### ", "")


def test_the_ids_a_refusal_names_in_order_each_once() -> None:
    assert rulebook.cited("Not allowed: R8: neither one rank (a set, R7) nor one suit (R8); see D36") == [
        "R8",
        "R7",
        "D36",
    ]
    assert rulebook.cited("Hint: draw (the only move)") == []
    assert rulebook.cited("RR8 R8xy 2D8") == []
