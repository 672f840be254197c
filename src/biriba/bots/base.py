"""What a bot is: something that picks one legal action from what its seat can see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..actions import Action
from ..terms import Phase
from ..views import PlayerView


class Bot(Protocol):
    """A player.  It never sees the deal itself, only its seat's view (no hidden cards)."""

    name: str

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """One of ``legal`` (the mover's legal actions, never empty)."""
        ...


def derived_seed(seed: int | str | None, part: str) -> str | None:
    """The seed of one of a bot's own random streams: distinct per part, and unseeded if the bot is."""
    return None if seed is None else f"{seed}/{part}"


class DrawMemory:
    """The draws a bot has faced since the stock last changed, so that it never goes round a loop twice.

    With the stock empty, nothing limits how often the pile may be taken
    back and forth (R23); with cards in the stock, players who all take the
    lone discard instead of drawing can pass the same few cards round the
    table for ever (two perfect bots did, stock untouched, until the turn
    cap).  People stop; a bot must too.  A draw is remembered by what decides
    it: the stock's size, the pile, the bot's own hand and every meld on the
    table.  Meeting one again means the turns between changed nothing: the
    bot then draws from the stock, or passes if it is empty (docs/bots.md,
    "Every deal ends").

    Where the take is forced (italian's empty stock, ``stock_out=take-if-able``,
    D13) the bot cannot refuse it, so the loop is broken after it: a forced
    take of a draw faced before owes a meld or an add of the card taken
    (:meth:`owed_plays`; D12, ``take_rule=top-card`` as in the preset, makes
    sure there is one), since throwing another card instead would only go
    round again.  The memory is forgotten when a card leaves the stock and
    when a new deal begins (:meth:`follow`).
    """

    def __init__(self) -> None:
        self.seen: set[tuple[object, ...]] = set()
        self.stock_count: int | None = None
        self.turn = 0
        #: The last forced take's turn and draw (asked twice, it is noted once), and what it owes: its turn,
        #: the card taken and how many of it the hand then holds.
        self.forced: tuple[object, ...] | None = None
        self.owed: tuple[int, int, int] | None = None

    def follow(self, view: PlayerView) -> None:
        """Forget every draw when a card has left the stock or a new deal has begun: none can come again."""
        if view.stock_count != self.stock_count or view.turn < self.turn:
            self.seen.clear()
            self.forced = self.owed = None
            self.stock_count = view.stock_count
        self.turn = view.turn

    def repeats(self, view: PlayerView) -> bool:
        """Has this bot faced this very draw before in this deal?  (Remembers it if not.)"""
        self.follow(view)
        key = self._draw(view)
        if key in self.seen:
            return True
        self.seen.add(key)
        return False

    def forced_take(self, view: PlayerView) -> None:
        """Note a take the rules leave as the only draw: if this draw was faced before, the play owes its card.

        Asked again in the same turn (a front end asks its bot twice), it notes nothing more.
        """
        self.follow(view)
        draw = (view.turn, *self._draw(view))
        if draw == self.forced:
            return
        again = self.repeats(view)
        self.forced = draw
        card = view.discard[-1]
        self.owed = (view.turn, card, view.hand.count(card) + view.discard.count(card)) if again else None

    def owed_plays(self, view: PlayerView, legal: Sequence[Action]) -> list[Action]:
        """The melds and adds holding the card of a forced take met again, while it is still in hand this turn."""
        self.follow(view)
        if self.owed is None or view.phase != Phase.PLAY:
            return []
        turn, card, held = self.owed
        if view.turn != turn or view.hand.count(card) != held:
            return []
        return [a for a in legal if a.kind in ("meld", "add") and card in a.cards]

    @staticmethod
    def _draw(view: PlayerView) -> tuple[object, ...]:
        """What decides a draw: the seat, the pile, the own hand and every meld on the table."""
        return view.seat, tuple(view.discard), tuple(view.hand), tuple(m for team in view.melds for m in team)
