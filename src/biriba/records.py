"""Positions and game records as JSON (``docs/notation.md``).

A *position* is a snapshot of one deal in progress (``biriba-position/1``);
a *record* is a whole match, replayable and checkable (``biriba-record/1``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from .cards import NAMES, parse_card
from .deal import Deal
from .errors import BiribaError, InvalidPositionError, NotationError
from .rules import PRESET_VERSION, Rules
from .scoring import DealResult
from .state import read_fields, write_fields
from .terms import Phase
from .views import POSITION_FORMAT

RECORD_FORMAT = "biriba-record/1"


# -------------------------------------------------------------- positions
def position_to_json(deal: Deal) -> dict[str, Any]:
    """The complete position of a deal in progress (the truth: every card's place)."""
    return {"format": POSITION_FORMAT, "rules": deal.rules.to_json(), **write_fields(deal)}


def position_from_json(data: dict[str, Any]) -> Deal:
    """Build a playable deal from a complete position; refuses hidden (view) positions."""
    if not isinstance(data, dict) or data.get("format") != POSITION_FORMAT:
        raise NotationError(f"not a position: 'format' must be {POSITION_FORMAT!r}")
    try:
        rules = Rules.from_json(data.get("rules", "classic"))
        fields = read_fields(data, rules)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
        if isinstance(exc, BiribaError):
            raise
        raise NotationError(f"malformed position: {exc!r}") from None
    _check_position(fields, rules)
    return Deal.from_fields(rules, **fields)


def _check_position(fields: dict[str, Any], rules: Rules) -> None:
    """What a position's parts must agree on before it is a deal (R20, R21, R16)."""
    teams = len(rules.teams)
    hands = fields["hands"]
    if len(hands) != rules.seats:
        raise InvalidPositionError(f"'hands' must list {rules.seats} hands")
    for seat, hand in enumerate(hands):
        if not any(hand):
            raise InvalidPositionError(f"seat {seat} has no cards: a deal in progress never leaves a hand empty (R21)")
    if len(fields["melds"]) != teams:
        raise InvalidPositionError(f"'melds' must list {teams} teams")
    for name, count, of in (
        ("match_scores", teams, "teams"),
        ("laid_whole", teams, "teams"),
        ("reserve_packets", teams, "teams"),
        ("known", rules.seats, "seats"),
    ):
        if fields.get(name) and len(fields[name]) != count:
            raise InvalidPositionError(f"{name!r} must list {count} {of} (or be left out)")
    for team, indexes in enumerate(fields.get("laid_whole", ())):
        if any(not 0 <= i < len(fields["melds"][team]) for i in indexes):
            raise InvalidPositionError(f"'laid_whole' of team {team} names a meld the team does not have")
    reserves = fields["reserves"]
    if len(reserves) != teams:
        raise InvalidPositionError(f"'reserves' must list {teams} teams")
    for team, r in enumerate(reserves):
        if r is not None and rules.team_of[r.seat] != team:
            raise InvalidPositionError(f"team {team}'s reserve was taken by seat {r.seat} of another team (R20)")
    if sum(r is not None for r in reserves) + len(fields["packets"]) != rules.packets:
        raise InvalidPositionError(f"taken reserves and packets left must add up to {rules.packets} (R20)")
    if fields.get("took_single", -1) >= 0 and fields["phase"] != Phase.PLAY:
        raise InvalidPositionError("'took_single' is set only in the play phase, after a take (R16)")


def card_list(items: Any, what: str) -> list[int]:
    """A JSON list of card names as codes; says what it was meant to be when it is no list."""
    if not isinstance(items, list):
        raise InvalidPositionError(f"{what} must be a list of cards")
    return [parse_card(x) for x in items]


def load_json(path: str | Path) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise NotationError(f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise NotationError(f"{path} is not JSON: {exc}") from None


# ---------------------------------------------------------------- records
class DealRecord(NamedTuple):
    """One deal of a record: its deck and dealer fix the deal (R4), actions replay it."""

    dealer: int
    deck: tuple[int, ...]
    actions: tuple[tuple[int, str], ...]
    result: DealResult | None
    max_turns: int | None = None  # the simulation's turn cap, if one was set (R23)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "dealer": self.dealer,
            "deck": [NAMES[c] for c in self.deck],
            "actions": [[seat, text] for seat, text in self.actions],
        }
        if self.max_turns is not None:
            data["max_turns"] = self.max_turns
        if self.result is not None:
            data["result"] = self.result.to_json()
        return data


def deal_record(deal: Deal) -> DealRecord:
    """The record of a deal played from its deck (its result once it is over)."""
    if deal.deck is None:
        raise InvalidPositionError("a deal set up from a position has no deck to record")
    actions = tuple((seat, str(action)) for seat, action in deal.history)
    return DealRecord(deal.dealer, deal.deck, actions, deal.result() if deal.is_over else None, deal.max_turns)


def record_to_json(rules: Rules, players: Sequence[str], deals: Sequence[Deal], **extra: Any) -> dict[str, Any]:
    """A record of a match (or of a few deals) as JSON data."""
    return {
        "format": RECORD_FORMAT,
        "preset_version": PRESET_VERSION,
        "rules": rules.to_json(),
        "players": list(players),
        **extra,
        "deals": [deal_record(d).to_json() for d in deals],
    }
