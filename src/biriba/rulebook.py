"""The rule book shipped with the package (``docs/rules.md``): a rule's words by its id, and its sections.

Refusals cite rule ids (R8, D36); a player reads the rule behind one with
``biriba rules R8``, or from the terminal table.  The words are read from
the one file the tests also check, never copied.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

#: A rule's or a decision's id, as the rule book numbers them: R13, R23a, D12.
RULE_ID = re.compile(r"[RD]\d+[a-z]?", re.IGNORECASE)


@cache
def text() -> str:
    """The whole rule book, as Markdown."""
    return files("biriba").joinpath("rules.md").read_text(encoding="utf-8")


def canonical(rule_id: str) -> str:
    """An id as the book writes it, however it was typed: r23A is R23a."""
    return rule_id[:1].upper() + rule_id[1:].lower()


def rule(rule_id: str) -> str | None:
    """The words of rule or decision ``rule_id`` (one paragraph, without Markdown's emphasis), or None.

    A rule is a list item (``- R15 ...`` and its indented lines) or a paragraph of its own (``**D35 ...``).
    """
    wanted = canonical(rule_id)
    lines = text().splitlines()
    start = re.compile(rf"^(- )?(\*\*)?{re.escape(wanted)}\b")
    for at, line in enumerate(lines):
        if match := start.match(line):
            item = bool(match.group(1))
            told = [line.removeprefix("- ")]
            for more in lines[at + 1 :]:
                if not more.strip() or (item and not more.startswith("  ")):  # the item's own lines are indented
                    break
                told.append(more.strip())
            return " ".join(told).replace("**", "")
    return None


def asked(command: str) -> str | None:
    """What ``rule R13`` (or ``R13`` alone) typed at the table answers: the rule's words, or which ids there are;
    None when the command is not about a rule."""
    rule_id = command.strip().removeprefix("rule ").strip()
    if not RULE_ID.fullmatch(rule_id):
        return None
    return rule(rule_id) or unknown(rule_id)


def unknown(rule_id: str) -> str:
    """What to say of an id the book does not hold: the ids it does, counted from the book itself."""
    highest = {kind: max(int(n) for n in re.findall(rf"^- \*?\*?{kind}(\d+)", text(), re.MULTILINE)) for kind in "RD"}
    return (
        f"no rule {canonical(rule_id)}: the rules are R1..R{highest['R']} (some with a letter) and D1..D{highest['D']}"
    )


def sections() -> list[tuple[str, str]]:
    """The book's parts in order: its opening (what the ids are), then each ``##`` part with its subsections:
    (title, Markdown)."""
    opening, *parts = re.split(r"^## ", text(), flags=re.MULTILINE)
    found = [("About this book", opening.partition("\n")[2].strip())]
    for chunk in parts:
        title, _, body = chunk.partition("\n")
        found.append((title.strip(), body.strip()))
    return found


def cited(message: str) -> list[str]:
    """The rule ids a refusal or a remark names, in order, each once (``R8``, ``D36``)."""
    found = [match.group(0) for match in re.finditer(rf"\b{RULE_ID.pattern}\b", message)]
    return list(dict.fromkeys(found))


__all__ = ["RULE_ID", "asked", "canonical", "cited", "rule", "sections", "text", "unknown"]
