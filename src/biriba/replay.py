"""Replaying a game record through the table, checking every action and result.

A record (``biriba-record/1``, ``docs/notation.md``) is played back at a
:class:`~biriba.table.Table` whose seats are all played from outside: the
record's actions, in order.  :func:`load_match` resumes a saved match from it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .deal import Deal
from .errors import BiribaError, IllegalActionError, NotationError, is_whole_number
from .match import Match
from .records import RECORD_FORMAT, card_list
from .rules import Rules
from .table import Table


class ReplayError(BiribaError):
    """A record whose actions or results do not replay; says where."""


class Replay(NamedTuple):
    """A record read back: the rules, the players, every deal as replayed."""

    rules: Rules
    players: list[str]
    deals: list[Deal]
    extra: dict[str, Any]  # optional fields of the record (seed, ...)
    match: Match


def replay_record(data: dict[str, Any], max_turns: int | None = None) -> Replay:
    """Replay every action of a record, checking each one and each stored result."""
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise NotationError(f"not a game record: 'format' must be {RECORD_FORMAT!r}")
    version = data.get("preset_version", 1)  # records before the field named version-1 presets
    if not is_whole_number(version):
        raise NotationError(f"a record's 'preset_version' is a whole number, not {version!r:.40}")
    rules = Rules.from_json(data.get("rules", "classic"), version)
    players = data.get("players", [f"Seat {s}" for s in range(rules.seats)])
    if not isinstance(players, list) or len(players) != rules.seats or not all(isinstance(p, str) for p in players):
        raise NotationError(f"a record's 'players' lists {rules.seats} names, one per seat")
    extra = {k: v for k, v in data.items() if k not in ("format", "preset_version", "rules", "players", "deals")}
    match = Match(rules, players, extra.get("seed"), max_turns)
    table = Table(match, [None] * rules.seats)
    raw_deals = data.get("deals", [])
    if not isinstance(raw_deals, list):
        raise NotationError("a record's 'deals' is a list")
    for number, raw in enumerate(raw_deals, 1):
        if match.is_over:
            raise ReplayError(f"deal {number}: the match was already over")
        try:
            table.start_deal(card_list(raw["deck"], "deck"), raw["dealer"])
            actions = [_seat_and_action(pair) for pair in raw.get("actions", [])]
            cap = raw.get("max_turns", max_turns)
            if cap is not None and (not is_whole_number(cap) or cap < 1):
                raise ValueError(f"'max_turns' is a number of turns, not {cap!r:.40}")
        except (BiribaError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReplayError(f"deal {number}: a deal has a deck, a dealer and [seat, action] pairs ({exc})") from None
        deal = match.deals[-1]
        deal.max_turns = cap
        for index, (seat, text) in enumerate(actions, 1):
            where = f"deal {number}, action {index} ({seat}: {text!r})"
            if deal.is_over:
                raise ReplayError(f"{where}: the deal is already over")
            try:
                table.play(seat, text)
            except (IllegalActionError, NotationError) as exc:
                raise ReplayError(f"{where}: {exc}") from None
        stored = raw.get("result")
        if stored is not None:
            if not deal.is_over:
                raise ReplayError(f"deal {number}: the record gives a result but the actions do not end the deal")
            got = deal.result().to_json()
            try:
                differs = _normalize_result(stored) != _normalize_result(got)
            except (TypeError, ValueError, AttributeError):
                raise ReplayError(f"deal {number}: a stored result is an object like {got}") from None
            if differs:
                raise ReplayError(f"deal {number}: recorded result {stored} differs from the replay's {got}")
        elif number < len(raw_deals) and not deal.is_over:
            raise ReplayError(f"deal {number}: not finished, yet another deal follows")
    return Replay(rules, players, match.deals, extra, match)


def load_match(data: dict[str, Any], max_turns: int | None = None) -> Match:
    """Resume a match from its record: every deal replayed, the last one left open if unfinished."""
    return replay_record(data, max_turns=max_turns).match


def _seat_and_action(pair: Any) -> tuple[int, str]:
    """One ``[seat, action]`` pair of a deal's actions."""
    if not isinstance(pair, list) or len(pair) != 2:
        raise ValueError(f"{pair!r:.40} is not a [seat, action] pair")
    seat, text = pair
    if not is_whole_number(seat) or not isinstance(text, str):
        raise ValueError(f"{pair!r:.40}: a seat is a whole number and an action is text")
    return seat, text


def _normalize_result(result: dict[str, Any]) -> tuple[Any, ...]:
    """What a replay checks of a stored result (``winners`` is derived, so older records lack it)."""
    return (
        list(result.get("team_scores", [])),
        [dict(b) for b in result.get("breakdown", [])],
        result.get("ended_by"),
    )


__all__ = ["Replay", "ReplayError", "load_match", "replay_record"]
