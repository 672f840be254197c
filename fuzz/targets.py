"""What the fuzzers feed: every parser that reads what people and files send.

Each target takes the fuzzer's bytes and must end in one of two ways: a
value (which then writes back to the same text or JSON), or the project's
own error (:class:`biriba.errors.BiribaError`, a server's ``TableError``
among them) with a message.  Any other exception is a finding.  A position
that refuses an action must be unchanged by it.

``fuzz/fuzz.py`` runs them under atheris, coverage-guided; ``tests/test_fuzz.py``
runs them over their seed corpora and every finding kept in ``fuzz/findings``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

from biriba.actions import Action
from biriba.cards import NAMES, parse_card, parse_cards
from biriba.deal import Deal
from biriba.errors import BiribaError
from biriba.melds import parse_meld
from biriba.records import position_from_json, position_to_json
from biriba.replay import replay_record
from biriba.rules import CLASSIC, OPTION_NAMES, PRESETS, Rules, option_value

#: Longest input a target reads: a record of a few deals, a position, a message.
MAX_LEN = 1 << 16


class Finding(AssertionError):
    """A target's input led somewhere the project promises it never goes."""


def refused(error: BiribaError) -> None:
    """A refusal must say what was wrong."""
    if not str(error).strip():
        raise Finding(f"{type(error).__name__} without a message")


def text_of(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def json_of(data: bytes) -> Any:
    """The input as JSON, or None where it is none (Python's own parser is not under test)."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


@cache
def positions() -> tuple[Deal, ...]:
    """Positions to read actions in: the deal's first draw, and mid-deal play phases with melds on the table."""
    found = []
    for name in ("classic", "italian", "three-handed"):
        deal = Deal.shuffled(f"fuzz/{name}", rules=PRESETS[name])
        found.append(deal.clone())
        for number in range(60):
            legal = sorted(deal.legal_actions(), key=lambda a: (a.kind not in ("meld", "add"), len(a.cards), str(a)))
            deal.apply(legal[-1] if number % 3 == 0 else legal[0])
            if deal.is_over:
                break
            if deal.phase == "play" and any(deal.melds):
                found.append(deal.clone())
    return tuple(found)


def try_action(deal: Deal, text: str) -> None:
    """Read ``text`` as an action in ``deal`` and play it on a copy; a refusal leaves the copy as it was."""
    copy = deal.clone()
    before = position_to_json(copy)
    try:
        action = copy.parse_action(text)
    except BiribaError as error:
        refused(error)
        if position_to_json(copy) != before:
            raise Finding(f"reading {text!r} changed the position") from None
        return
    if copy.parse_action(str(action)) != action:
        raise Finding(f"{text!r} reads as {action}, which reads back as another action")
    try:
        copy.apply(action)
    except BiribaError as error:
        refused(error)
        if position_to_json(copy) != before:
            raise Finding(f"the refused {action} changed the position") from None
        return
    copy.assert_consistent()


def notation(data: bytes) -> None:
    """Cards, card lists, melds and actions as people type them."""
    if not data:
        return
    which, text = data[0] % 4, text_of(data[1:])
    try:
        if which == 0:
            card = parse_card(text)
            if parse_card(NAMES[card]) != card:
                raise Finding(f"{text!r} reads as {NAMES[card]}, which reads back as another card")
        elif which == 1:
            cards = parse_cards(text)
            if parse_cards(" ".join(NAMES[c] for c in cards)) != cards:
                raise Finding(f"{text!r} reads as cards that read back otherwise")
        elif which == 2:
            rules = (CLASSIC, PRESETS["italian"], PRESETS["three-handed"])[len(text) % 3]
            meld = parse_meld(text, rules)
            if parse_meld(meld.text(), rules) != meld:
                raise Finding(f"{text!r} reads as {meld.text()}, which reads back as another meld")
        else:
            action = Action.parse(text)
            if Action.parse(str(action)) != action:
                raise Finding(f"{text!r} reads as {action}, which reads back as another action")
            table = positions()
            try_action(table[len(text) % len(table)], text)
    except BiribaError as error:
        refused(error)


def position(data: bytes) -> None:
    """A position's JSON (``biriba position``, the web game's saved tables)."""
    value = json_of(data)
    if value is None:
        return
    try:
        deal = position_from_json(value)
    except BiribaError as error:
        refused(error)
        return
    written = position_to_json(deal)
    if position_to_json(position_from_json(json.loads(json.dumps(written)))) != written:
        raise Finding("a position read back from its own JSON is another position")
    deal.assert_consistent()
    listed = list(deal.legal_actions())
    for seat in range(deal.rules.seats):
        deal.view_for(seat).to_json()
    for action in listed[:3]:
        try_action(deal, str(action))


def record(data: bytes) -> None:
    """A game record's JSON (``biriba replay``, ``biriba resume``, uploads to the web game)."""
    value = json_of(data)
    if value is None:
        return
    try:
        replay_record(value)
    except BiribaError as error:
        refused(error)


def options(data: bytes) -> None:
    """``--set option=value`` lines over a preset, an option's JSON value, and rules as JSON."""
    if not data:
        return
    which, text = data[0] % 3, text_of(data[1:])
    base = PRESETS[sorted(PRESETS)[data[0] // 3 % len(PRESETS)]]
    try:
        if which == 0:
            rules = base.with_options(text.splitlines())
        elif which == 1:
            key, _, raw = text.partition("\n")
            value = json_of(raw.encode())
            name = key if key in OPTION_NAMES else OPTION_NAMES[len(key) % len(OPTION_NAMES)]
            rules = base.replace(**{name: option_value(name, raw if value is None else value)})
        else:
            value = json_of(text.encode())
            if value is None:
                return
            rules = Rules.from_json(value)
    except BiribaError as error:
        refused(error)
        return
    if Rules.from_json(json.loads(json.dumps(rules.to_json()))) != rules:
        raise Finding(f"rules read back from their own JSON are other rules: {rules.to_json()}")


def protocol(data: bytes) -> None:
    """A WebSocket message of the web game (docs/protocol.md), and the action an ``act`` carries."""
    from biriba.server.connection import read_message
    from biriba.server.schema import Act

    text = text_of(data)
    try:
        message = read_message(text)
    except BiribaError as error:
        refused(error)
        return
    if isinstance(message, Act):
        table = positions()
        try_action(table[len(text) % len(table)], message.action)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "notation": notation,
    "position": position,
    "record": record,
    "options": options,
    "protocol": protocol,
}
