"""The game's vocabulary: phases, endings, a taken reserve, what an action did.

A leaf module: every other engine module may import it, and it imports only
the action type, so the deal, scoring, views and bots agree on these words
without importing each other.  The enumerations are ``StrEnum``s: each member
is its own JSON string (``Phase.DRAW == "draw"``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from .actions import Action


class Phase(StrEnum):
    """Where the mover is in a turn (R15), or that the deal is over."""

    DRAW = "draw"  # the turn's first action: draw, take or pass
    PLAY = "play"  # after the draw: melds and adds, then the discard
    OVER = "over"


class Ending(StrEnum):
    """How a deal ended."""

    CLOSURE = "closure"  # a player went out (R22)
    PASSES = "passes"  # a round of passes on an empty stock (R23)
    STOCK = "stock"  # the turn of the last stock card ended (option stock_out="end")
    IDLE = "idle"  # whole rounds on an empty stock with no meld, add or reserve pickup (option idle_rounds, D36)
    CAPPED = "capped"  # a simulation's turn cap (R23, D7): reported, never counted as finished


class Pickup(StrEnum):
    """How a reserve packet came into a hand."""

    MELD = "meld"  # the hand emptied by melding: play on (R18)
    DISCARD = "discard"  # the hand emptied by the discard: active next turn (R19)
    BIRIBA = "biriba"  # the team's first biriba, at the turn's end (option reserve_access)


class Reserve(NamedTuple):
    """A team's taken reserve packet: who took it, and whether it is active yet (R19)."""

    seat: int
    active: bool


class Outcome(NamedTuple):
    """What one applied action did (PokerKit-style operation record).

    ``drawn`` and ``packet`` are private to the mover; everything else is public.
    """

    seat: int
    action: Action
    drawn: int = -1  # the stock card drawn
    taken: tuple[int, ...] = ()  # the discard pile taken
    reserve: Pickup | None = None  # a reserve packet was picked up, and how (R18/R19)
    packet: tuple[int, ...] = ()  # the cards of that packet
    ended: Ending | None = None  # how the deal ended, if this action ended it

    def seen_by(self, seat: int) -> Outcome:
        """What ``seat`` may know of this: the drawn card and the packet only if it is the mover."""
        if seat == self.seat:
            return self
        return self._replace(drawn=-1, packet=())
