"""The table: where deals and matches are played between agents.

This is the one loop of the project.  Self-play (``biriba simulate``), the
replay of a record, the terminal game and the web server all drive a
:class:`Table`; none of them plays a deal by hand.

An *agent* is anything with ``choose(view, legal) -> Action`` (every bot).
A seat without an agent is played from outside: a person at the terminal, a
network client, a record being replayed.  The table never waits: it is a
state machine that a driver pushes, one step at a time, so a server can feed
it actions as they arrive, with no thread per table.

>>> from biriba.bots import make_bot
>>> from biriba.match import Match
>>> table = Table(Match(seed=7), [None] + [make_bot("greedy", s) for s in range(1, 4)])
>>> event = table.start_deal()
>>> table.run()  # the bots play until seat 0 is to move
>>> table.waiting_for
0
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import NamedTuple, Protocol

from .actions import Action
from .deal import Deal
from .errors import IllegalActionError
from .match import Match
from .scoring import DealResult
from .terms import Outcome
from .views import PlayerView


class Agent(Protocol):
    """A player that answers at once: it sees only its seat's view and the legal actions."""

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action: ...


class EventKind(StrEnum):
    DEAL = "deal"  # a deal was dealt
    ACTION = "action"  # an action was played (its outcome)
    RESULT = "result"  # a deal ended (its result)


class Event(NamedTuple):
    """Something that happened at the table, in order; :meth:`seen_by` is what a seat may know of it."""

    number: int  # its place in the table's log, from 0
    deal: int  # the deal it belongs to, from 1
    kind: EventKind
    outcome: Outcome | None = None
    result: DealResult | None = None

    def seen_by(self, seat: int) -> Event:
        """The event as ``seat`` may see it: another player's drawn card and packet hidden."""
        if self.outcome is None:
            return self
        return self._replace(outcome=self.outcome.seen_by(seat))


def agent_turn(deal: Deal, agent: Agent) -> Outcome:
    """One action of the mover, chosen by ``agent`` from its view and the legal actions.

    The action comes from the legal list, so the deal applies it without
    checking it again; an agent that answers with anything else is refused.
    """
    seat = deal.to_move
    legal = list(deal.legal_actions())
    action = agent.choose(deal.view_for(seat), legal)
    if not any(a is action for a in legal) and action not in legal:
        raise IllegalActionError("R15", "agent_illegal", seat=seat, action=str(action))
    return deal.apply(action, check=False)


def play_deal(deal: Deal, agents: Sequence[Agent]) -> int:
    """Let the agents play ``deal`` to its end, without a log; returns the number of decisions.

    The fast path of self-play and search, for a deal outside a match.
    """
    decisions = 0
    while deal.ended_by is None:
        agent_turn(deal, agents[deal.to_move])
        decisions += 1
    return decisions


class Table:
    """A match in play: the deal in progress, who is to act, and the log of events.

    ``agents[seat]`` is the agent of each seat, or ``None`` for a seat played
    from outside through :meth:`play`.
    """

    def __init__(self, match: Match, agents: Sequence[Agent | None]) -> None:
        if len(agents) != match.rules.seats:
            raise ValueError(f"a table of {match.rules.seats} seats needs {match.rules.seats} agents (None: a person)")
        self.match = match
        self.agents = list(agents)
        self.events: list[Event] = []

    # ------------------------------------------------------------ state
    @property
    def deal(self) -> Deal | None:
        """The current deal (the last one, over or not), if any was dealt."""
        return self.match.deals[-1] if self.match.deals else None

    @property
    def is_over(self) -> bool:
        return self.match.is_over

    @property
    def needs_deal(self) -> bool:
        """Is it time to deal (no deal in progress, the match not over)?"""
        return self.match.current is None and not self.match.is_over

    @property
    def to_move(self) -> int | None:
        """The seat to act in the deal in progress, if any."""
        deal = self.match.current
        return None if deal is None else deal.to_move

    @property
    def waiting_for(self) -> int | None:
        """The seat whose action must come from outside now, if any."""
        seat = self.to_move
        return seat if seat is not None and self.agents[seat] is None else None

    def view(self, seat: int) -> PlayerView | None:
        """What ``seat`` sees of the current deal."""
        deal = self.deal
        return None if deal is None else deal.view_for(seat)

    def events_for(self, seat: int, since: int = 0) -> list[Event]:
        """The events from number ``since`` on, as ``seat`` may see them."""
        return [event.seen_by(seat) for event in self.events[since:]]

    # ---------------------------------------------------------- driving
    def start_deal(self, deck: Sequence[int] | None = None, dealer: int | None = None) -> Event:
        """Deal the next hand (from the match's seed, or the given deck and dealer for a replay)."""
        self.match.new_deal(deck, dealer)
        return self._log(EventKind.DEAL)

    def play(self, seat: int, action: Action | str) -> Event:
        """Play an action of ``seat`` (a person's or a record's): checked, canonical, logged.

        Raises :class:`IllegalActionError` (or :class:`~biriba.errors.NotationError`
        for bad text), naming the rule, and changes nothing, if ``seat`` is not
        to move or the action is not legal.
        """
        deal = self.match.current
        if deal is None:
            raise IllegalActionError("R15", "no_deal")
        if seat != deal.to_move:
            raise IllegalActionError("R15", "not_your_turn", seat=deal.to_move, asked=seat)
        if isinstance(action, str):
            action = deal.parse_action(action)
        return self._played(deal, deal.apply(action))

    def step(self, agent: Agent | None = None) -> Event | None:
        """Let the seat to move play one action through its agent (or ``agent``, standing in for a person).

        Returns ``None`` when no deal is in progress or the seat to move has no agent.
        """
        deal = self.match.current
        if deal is None:
            return None
        chooser = agent or self.agents[deal.to_move]
        if chooser is None:
            return None
        return self._played(deal, agent_turn(deal, chooser))

    def choice(self, agent: Agent | None = None) -> tuple[int, Action] | None:
        """The seat to move and its agent's (or ``agent``'s) choice, not yet played.

        For a front end that lets a slow agent (a search) think in a thread and
        then plays the choice with :meth:`play`; ``None`` as for :meth:`step`.
        """
        deal = self.match.current
        chooser = agent or (self.agents[deal.to_move] if deal is not None else None)
        if deal is None or chooser is None:
            return None
        return deal.to_move, chooser.choose(deal.view_for(deal.to_move), list(deal.legal_actions()))

    def run(self) -> None:
        """Step the agents until a person is to act or the deal is over."""
        deal = self.match.current
        if deal is None:
            return
        while deal.ended_by is None and self.step() is not None:
            pass

    def play_match(self) -> None:
        """Deal and play until the match is over (every seat an agent: self-play)."""
        while not self.match.is_over:
            if self.needs_deal:
                self.start_deal()
            self.run()
            if self.waiting_for is not None:
                raise RuntimeError(f"seat {self.waiting_for} has no agent")

    # ------------------------------------------------------------- log
    def _played(self, deal: Deal, outcome: Outcome) -> Event:
        event = self._log(EventKind.ACTION, outcome=outcome)
        if deal.is_over:
            self._log(EventKind.RESULT, result=deal.result())
        return event

    def _log(self, kind: EventKind, outcome: Outcome | None = None, result: DealResult | None = None) -> Event:
        event = Event(len(self.events), len(self.match.deals), kind, outcome, result)
        self.events.append(event)
        return event


__all__ = ["Agent", "Event", "EventKind", "Table", "agent_turn", "play_deal"]
