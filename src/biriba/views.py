"""What one seat may see of a deal: all that bots and the terminal game are shown.

A :class:`PlayerView` holds the seat's own hand, every meld on the table,
the whole discard pile, and only *counts* of the other hands, the stock and
the reserve packets.  :meth:`biriba.deal.Deal.view_for` is the one place
that builds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .cards import NAMES, SUITS, cards_of, counts_of
from .melds import Meld
from .rules import Rules

if TYPE_CHECKING:
    from .deal import Deal, Reserve


POSITION_FORMAT = "biriba-position/1"


class PlayerView(NamedTuple):
    """One seat's knowledge of a deal at one moment."""

    seat: int
    rules: Rules
    dealer: int
    to_move: int
    phase: str
    turn: int
    hand: tuple[int, ...]  # own cards, sorted codes
    hand_sizes: tuple[int, ...]  # every seat's card count
    melds: tuple[tuple[Meld, ...], ...]  # per team, in the order made
    discard: tuple[int, ...]  # bottom first
    stock_count: int
    packet_sizes: tuple[int, ...]  # packets not yet taken, top first
    reserves: tuple[Reserve | None, ...]  # per team
    took_single: int  # the card taken from a one-card pile this turn, else -1
    passes: int
    match_scores: tuple[int, ...]
    ended_by: str | None
    trump: int = -1  # the trump suit (option trump), else -1
    laid_whole: tuple[tuple[int, ...], ...] = ()  # per team: melds laid down a biriba in one action
    turn_melds: int = 0  # melds the mover made this turn
    opening_value: int = 0  # what the mover's team melded this turn while opening (option opening_minimums)
    reserve_due: bool = False  # the mover made the team's first biriba (option reserve_access)
    last_round: bool = False  # the last stock card was drawn this turn (option stock_out)
    took_with_one: bool = False  # the mover held one card when taking a one-card pile (option single_take_closure)
    cut: int | None = None  # cards the dealer's cut missed the aim by (option cut_bonus)
    cut_wilds: tuple[int, ...] = ()  # wilds the dealer found past the cut, seen by all (option bottom_wilds)

    @classmethod
    def of(cls, deal: Deal, seat: int) -> PlayerView:
        return cls(
            seat,
            deal.rules,
            deal.dealer,
            deal.to_move,
            deal.phase,
            deal.turn,
            tuple(cards_of(deal.hands[seat])),
            tuple(deal.sizes),
            tuple(map(tuple, deal.melds)),
            tuple(deal.discard),
            deal.stock_count,
            tuple(map(len, deal.packets_left)),
            tuple(deal.reserves),
            deal.took_single,
            deal.passes,
            deal.match_scores,
            deal.ended_by,
            deal.trump,
            tuple(deal.laid_whole),
            deal.turn_melds,
            deal.opening_value,
            deal.reserve_due,
            deal.last_round,
            deal.took_with_one,
            deal.cut,
            deal.cut_wilds,
        )

    @property
    def team(self) -> int:
        return self.rules.team_of[self.seat]

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.seat and self.ended_by is None

    def hand_counts(self) -> list[int]:
        """The own hand as a count array (the engine's form)."""
        return counts_of(self.hand)

    def to_json(self) -> dict[str, Any]:
        """The position from this seat's point of view (notation.md): hidden parts are counts."""
        hands: list[Any] = [
            [NAMES[c] for c in self.hand] if s == self.seat else {"count": n} for s, n in enumerate(self.hand_sizes)
        ]
        data = position_json(self, hands, {"count": self.stock_count}, [{"count": n} for n in self.packet_sizes])
        data["viewer"] = self.seat
        return data


def position_json(state: Deal | PlayerView, hands: list[Any], stock: Any, packets: list[Any]) -> dict[str, Any]:
    """A position in the JSON of notation.md; the caller decides how hands, stock and packets show."""
    return {
        "format": POSITION_FORMAT,
        "rules": state.rules.to_json(),
        "match_scores": list(state.match_scores),
        "dealer": state.dealer,
        "to_move": state.to_move,
        "phase": state.phase,
        "hands": hands,
        "melds": [[m.text().split() for m in team] for team in state.melds],
        "discard": [NAMES[c] for c in state.discard],
        "stock": stock,
        "packets": packets,
        "reserves": [None if r is None else {"seat": r.seat, "active": r.active} for r in state.reserves],
        "took_single": NAMES[state.took_single] if state.took_single >= 0 else None,
        "passes": state.passes,
        "turn": state.turn,
        "trump": SUITS[state.trump] if state.trump >= 0 else None,
        "laid_whole": [list(team) for team in state.laid_whole],
        "turn_melds": state.turn_melds,
        "opening_value": state.opening_value,
        "reserve_due": state.reserve_due,
        "last_round": state.last_round,
        "took_with_one": state.took_with_one,
        "cut": state.cut,
        "cut_wilds": [NAMES[c] for c in state.cut_wilds],
    }
