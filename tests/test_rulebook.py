"""The rule book the package ships: every id it numbers found by it, its parts, the ids a refusal names."""

from __future__ import annotations

import re
from pathlib import Path

from biriba import rulebook

BOOK = Path(__file__).parents[1] / "docs" / "rules.md"


def test_the_package_ships_the_rule_book_of_docs() -> None:
    assert rulebook.text() == BOOK.read_text(encoding="utf-8")


def test_every_rule_and_decision_the_book_numbers_is_told_by_its_id_however_typed() -> None:
    book = BOOK.read_text(encoding="utf-8")
    items = re.findall(r"^- \*?\*?([RD]\d+[a-z]?)\b", book, re.MULTILINE)  # a list item, its lines indented
    paragraphs = re.findall(r"^\*\*([RD]\d+[a-z]?)\b", book, re.MULTILINE)  # a paragraph of its own
    assert len(items) > 60 and {"R1", "R30", "D1", "D36"} <= set(items) and "D35" in paragraphs
    for rule_id in items + paragraphs:
        words = rulebook.rule(rule_id.lower())
        assert words is not None and words.startswith(rule_id), rule_id
        assert "**" not in words and "\n" not in words
    assert rulebook.rule("D35").endswith("test_D35_the_docs_list_the_limits_the_rules_module_states`.")  # type: ignore[union-attr]
    for named in set(re.findall(r"\b([RD]\d+[a-z]?)\b", book)) - set(items) - set(paragraphs):
        assert rulebook.rule(named) is None or rulebook.rule(named).startswith(named)  # type: ignore[union-attr]
    assert rulebook.rule("R99") is None and rulebook.canonical("r23A") == "R23a"
    assert rulebook.unknown("r99") == "no rule R99: the rules are R1..R30 (some with a letter) and D1..D38"


def test_a_rule_asked_at_the_table_by_its_id_alone_or_after_rule() -> None:
    assert rulebook.asked("rule r15") == rulebook.asked("R15") == rulebook.rule("R15")
    assert rulebook.asked("rule R99") == rulebook.unknown("R99")
    assert rulebook.asked("x 9C") is None and rulebook.asked("rules") is None and rulebook.asked("d") is None


def test_the_books_parts_are_its_second_level_headings_whole() -> None:
    parts = rulebook.sections()
    assert [title for title, _ in parts][:3] == ["About this book", "In brief", "Classic profile (seed 000)"]
    assert "Every rule has an id" in parts[0][1]
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
