"""What one seat may see of a deal: all that bots and front ends are shown.

A :class:`PlayerView` is a snapshot of the deal's public fields (every
field of :class:`~biriba.state.PublicState`: the melds, the whole discard
pile, every hand's size, the reserves...), plus the seat's own hand and only
*counts* of the stock and the reserve packets.  It is built in one place,
:meth:`biriba.deal.Deal.view_for`, from the state's declaration, so a new
public field reaches every view without being listed here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cards import NAMES, cards_of, counts_of
from .state import PublicState, copy_public, write_fields

if TYPE_CHECKING:
    from .state import DealState

POSITION_FORMAT = "biriba-position/1"


@dataclass(slots=True, kw_only=True, repr=False)
class PlayerView(PublicState):
    """One seat's knowledge of a deal at one moment."""

    seat: int | None = 0  # None: a spectator, who sees the public table only
    hand: tuple[int, ...] = ()  # own cards, sorted codes
    stock_count: int = 0
    packet_sizes: tuple[int, ...] = ()  # packets not yet taken, top first
    packet: tuple[int, ...] = ()  # the reserve packet this seat took, while it is inactive (R27 prices it)

    @classmethod
    def of(cls, deal: DealState, seat: int | None) -> PlayerView:
        """The view of ``seat``: a copy of every public field, the own hand, counts of the rest.

        ``seat=None`` is a spectator's view: no hand, every hand a count.
        """
        view: PlayerView = copy_public(deal, cls())
        view.seat = seat
        view.hand = tuple(cards_of(deal.hands[seat])) if seat is not None else ()
        view.stock_count = len(deal.stock)
        view.packet_sizes = tuple(map(len, deal.packets))
        view.packet = ()
        if seat is not None:
            team = deal.rules.team_of[seat]
            reserve = deal.reserves[team]
            if reserve is not None and reserve.seat == seat and not reserve.active:
                view.packet = deal.reserve_packets[team]
        return view

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Every seat's card count."""
        return tuple(self.sizes)

    @property
    def team(self) -> int:
        assert self.seat is not None, "a spectator has no team"
        return self.rules.team_of[self.seat]

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.seat and self.ended_by is None

    def hand_counts(self) -> list[int]:
        """The own hand as a count array (the engine's form)."""
        return counts_of(self.hand)

    def to_json(self) -> dict[str, Any]:
        """The position from this seat's point of view (notation.md): hidden parts are counts."""
        data: dict[str, Any] = {"format": POSITION_FORMAT, "rules": self.rules.to_json()}
        data.update(write_fields(self, PublicState))
        data["hands"] = [
            [NAMES[c] for c in self.hand] if s == self.seat else {"count": n} for s, n in enumerate(self.sizes)
        ]
        data["stock"] = {"count": self.stock_count}
        data["packets"] = [{"count": n} for n in self.packet_sizes]
        if self.packet:
            data["packet"] = [NAMES[c] for c in self.packet]
        data["viewer"] = self.seat
        return data

    def __repr__(self) -> str:
        return f"<PlayerView seat {self.seat}, turn {self.turn}, {self.phase}, hand {len(self.hand)} cards>"
