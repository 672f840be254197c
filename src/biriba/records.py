"""Positions and game records as JSON (``docs/notation.md``).

A *position* is a snapshot of one deal in progress (``biriba-position/1``);
a *record* is a whole match, replayable and checkable (``biriba-record/1``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from .cards import NAMES, SUITS, counts_of, parse_card
from .deal import DRAW_PHASE, PLAY_PHASE, Deal, Reserve
from .errors import BiribaError, IllegalActionError, InvalidPositionError, NotationError
from .melds import parse_meld
from .rules import Rules
from .scoring import DealResult
from .views import POSITION_FORMAT, position_json

RECORD_FORMAT = "biriba-record/1"


# -------------------------------------------------------------- positions
def position_to_json(deal: Deal) -> dict[str, Any]:
    """The complete position of a deal in progress (the truth: every card's place)."""
    data = position_json(
        deal,
        hands=[[NAMES[c] for c in deal.hand(s)] for s in range(deal.rules.seats)],
        stock=[NAMES[c] for c in deal.stock_cards],
        packets=[[NAMES[c] for c in p] for p in deal.packets_left],
    )
    data["reserve_packets"] = [[NAMES[c] for c in p] if p else None for p in deal.reserve_packets]
    return data


def position_from_json(data: dict[str, Any]) -> Deal:
    """Build a playable deal from a complete position; refuses hidden (view) positions."""
    if not isinstance(data, dict) or data.get("format") != POSITION_FORMAT:
        raise NotationError(f"not a position: 'format' must be {POSITION_FORMAT!r}")
    try:
        return _position(data)
    except (KeyError, TypeError, IndexError) as exc:
        raise NotationError(f"malformed position: {exc!r}") from None


def _cards(items: Any, what: str) -> list[int]:
    if not isinstance(items, list):
        raise InvalidPositionError(f"{what} must be a list of cards; a player's view hides it and cannot be played on")
    return [parse_card(x) for x in items]


def _position(data: dict[str, Any]) -> Deal:
    rules = Rules.from_json(data.get("rules", "classic"))
    teams = len(rules.teams)
    hands = [counts_of(_cards(h, f"hand {i}")) for i, h in enumerate(data["hands"])]
    if len(hands) != rules.seats:
        raise InvalidPositionError(f"'hands' must list {rules.seats} hands")
    for seat, hand in enumerate(hands):
        if not any(hand):
            raise InvalidPositionError(f"seat {seat} has no cards: a deal in progress never leaves a hand empty (R21)")
    melds = [[parse_meld(m, rules) for m in team] for team in data["melds"]]
    if len(melds) != teams:
        raise InvalidPositionError(f"'melds' must list {teams} teams")
    packets = tuple(tuple(_cards(p, "packet")) for p in data["packets"])
    reserves: list[Reserve | None] = []
    for r in data["reserves"]:
        reserves.append(None if r is None else Reserve(_seat(r["seat"], rules, "reserve seat"), bool(r["active"])))
    if len(reserves) != teams:
        raise InvalidPositionError(f"'reserves' must list {teams} teams")
    for team, r in enumerate(reserves):
        if r is not None and rules.team_of[r.seat] != team:
            raise InvalidPositionError(f"team {team}'s reserve was taken by seat {r.seat} of another team (R20)")
    if sum(r is not None for r in reserves) + len(packets) != rules.packets:
        raise InvalidPositionError(f"taken reserves and packets left must add up to {rules.packets} (R20)")
    phase = data["phase"]
    if phase not in (DRAW_PHASE, PLAY_PHASE):
        raise InvalidPositionError("'phase' must be 'draw' or 'play'")
    took = data.get("took_single")
    if took is not None and phase != PLAY_PHASE:
        raise InvalidPositionError("'took_single' is set only in the play phase, after a take (R16)")
    return Deal.from_position(
        rules,
        dealer=_seat(data.get("dealer", 0), rules, "dealer"),
        hands=hands,
        melds=melds,
        discard=_cards(data["discard"], "discard"),
        stock=tuple(_cards(data["stock"], "stock")),
        packets=packets,
        reserves=reserves,
        to_move=_seat(data["to_move"], rules, "to_move"),
        phase=phase,
        took_single=-1 if took is None else parse_card(took),
        passes=int(data.get("passes", 0)),
        turn=int(data.get("turn", 1)),
        match_scores=tuple(data.get("match_scores", [0] * teams)),
        trump=_suit(data.get("trump"), rules),
        laid_whole=[tuple(int(i) for i in team) for team in data.get("laid_whole", [[] for _ in range(teams)])],
        turn_melds=int(data.get("turn_melds", 0)),
        opening_value=int(data.get("opening_value", 0)),
        reserve_due=bool(data.get("reserve_due", False)),
        last_round=bool(data.get("last_round", False)),
        reserve_packets=[tuple(_cards(p, "reserve packet")) if p else () for p in data.get("reserve_packets", [])]
        or None,
        took_with_one=bool(data.get("took_with_one", False)),
        cut=None if data.get("cut") is None else int(data["cut"]),
        cut_wilds=tuple(_cards(data.get("cut_wilds", []), "cut_wilds")),
    )


def _suit(value: Any, rules: Rules) -> int:
    if value is None:
        return -1
    if rules.trump == "none" or value not in SUITS:
        raise InvalidPositionError(f"'trump' is a suit S, H, D or C under rules with a trump, not {value!r}")
    return SUITS.index(value)


def _seat(value: Any, rules: Rules, what: str) -> int:
    if not isinstance(value, int) or not 0 <= value < rules.seats:
        raise InvalidPositionError(f"{what} must be a seat 0..{rules.seats - 1}")
    return value


def load_json(path: str | Path) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise NotationError(f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
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


class ReplayError(BiribaError):
    """A record whose actions or results do not replay; says where."""


class Replay(NamedTuple):
    """A record read back: the rules, the players, every deal as replayed."""

    rules: Rules
    players: list[str]
    deals: list[Deal]
    extra: dict[str, Any]  # optional fields of the record (seed, ...)


def replay_record(data: dict[str, Any], max_turns: int | None = None) -> Replay:
    """Replay every action of a record, checking each one and each stored result."""
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise NotationError(f"not a game record: 'format' must be {RECORD_FORMAT!r}")
    rules = Rules.from_json(data.get("rules", "classic"))
    players = list(data.get("players", [f"Seat {s}" for s in range(rules.seats)]))
    deals: list[Deal] = []
    totals = [0] * len(rules.teams)  # the match totals each deal starts from (vulnerability)
    raw_deals = data.get("deals", [])
    if not isinstance(raw_deals, list):
        raise NotationError("a record's 'deals' is a list")
    for number, raw in enumerate(raw_deals, 1):
        try:
            deck = _cards(raw["deck"], "deck")
            deal = Deal(deck, raw["dealer"], rules, max_turns=raw.get("max_turns", max_turns))
            actions = [(int(seat), str(text)) for seat, text in raw.get("actions", [])]
        except (BiribaError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReplayError(f"deal {number}: a deal has a deck, a dealer and [seat, action] pairs ({exc})") from None
        deal.match_scores = tuple(totals)
        for index, (seat, text) in enumerate(actions, 1):
            where = f"deal {number}, action {index} ({seat}: {text!r})"
            if deal.is_over:
                raise ReplayError(f"{where}: the deal is already over")
            if seat != deal.to_move:
                raise ReplayError(f"{where}: R15: it is seat {deal.to_move}'s turn, not seat {seat}'s")
            try:
                deal.apply(deal.parse_action(text))
            except (IllegalActionError, NotationError) as exc:
                raise ReplayError(f"{where}: {exc}") from None
        stored = raw.get("result")
        if stored is not None:
            if not deal.is_over:
                raise ReplayError(f"deal {number}: the record gives a result but the actions do not end the deal")
            got = deal.result().to_json()
            if _normalize_result(stored) != _normalize_result(got):
                raise ReplayError(f"deal {number}: recorded result {stored} differs from the replay's {got}")
        elif number < len(raw_deals) and not deal.is_over:
            raise ReplayError(f"deal {number}: not finished, yet another deal follows")
        if deal.is_over:
            totals = [t + p for t, p in zip(totals, deal.result().team_scores)]
        deals.append(deal)
    extra = {k: v for k, v in data.items() if k not in ("format", "rules", "players", "deals")}
    return Replay(rules, players, deals, extra)


def _normalize_result(result: dict[str, Any]) -> tuple[Any, ...]:
    return (
        list(result.get("team_scores", [])),
        [dict(b) for b in result.get("breakdown", [])],
        result.get("ended_by"),
    )


def record_to_json(rules: Rules, players: Sequence[str], deals: Sequence[Deal], **extra: Any) -> dict[str, Any]:
    """A record of a match (or of a few deals) as JSON data."""
    return {
        "format": RECORD_FORMAT,
        "rules": rules.to_json(),
        "players": list(players),
        **extra,
        "deals": [deal_record(d).to_json() for d in deals],
    }
