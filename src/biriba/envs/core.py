"""One deal played a step at a time: what the PettingZoo, Gymnasium and OpenSpiel adapters share.

An episode is one deal.  The deal is the engine's own
(:class:`~biriba.deal.Deal`); a :class:`~biriba.envs.encoding.TurnSteps`
holds the mover's steps until they make an action, which the engine then
applies.  The reward, given when the deal ends, is each seat's team score
of the deal less the other teams' mean, in thousands of points, so the
teams' rewards sum to zero.  A deal stopped by the turn cap (``max_turns``,
as simulations cap them, D7) is *truncated*, with no reward.
"""

from __future__ import annotations

import random

import numpy as np

from ..deal import Deal
from ..rules import PRESETS, Rules
from ..terms import Ending
from .encoding import ACTIONS, TurnSteps, describe
from .observation import add_steps, observe

#: The turn cap of an episode: simulations stop a deal there (D7); a deal almost never needs it.
MAX_TURNS = 400
#: Rewards are in thousands of points.
POINTS_PER_REWARD = 1000
#: The reward of an illegal step, which ends the episode (PettingZoo's classic games give -1).
ILLEGAL_REWARD = -1.0


def rules_of(rules: Rules | str, seats: int | None = None) -> Rules:
    """Rules from a preset name or a :class:`Rules`, with a table size if one is given.

    Partners sit opposite at four or six seats; at other sizes every player
    plays alone (R1), so ``seats=3`` of a partnership preset plays it alone.
    """
    if isinstance(rules, str):
        if rules not in PRESETS:
            raise ValueError(f"unknown preset {rules!r}; known: {', '.join(PRESETS)}")
        rules = PRESETS[rules]
    if seats is not None and seats != rules.seats:
        alone = [] if seats in (4, 6) else ["partnerships=false"]
        rules = rules.with_options([f"seats={seats}", *alone])
    return rules


class StepDeal:
    """A deal and the mover's steps so far."""

    def __init__(self, rules: Rules, max_turns: int | None = MAX_TURNS, deal: Deal | None = None) -> None:
        self.rules = rules
        self.max_turns = max_turns
        self.deal: Deal = deal or Deal.shuffled(0, rules=rules, max_turns=max_turns)
        self.turn: TurnSteps | None = None
        #: The mover's observation without its steps, made at its first step toward a meld or add: of which
        #: deal, after how many actions.
        self._seen: tuple[Deal, int, np.ndarray] | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> StepDeal:
        """A copy for search (OpenSpiel clones a state by deep-copying it): the deal's own cheap clone."""
        copy = StepDeal(self.rules, self.max_turns, self.deal.clone())
        copy.turn = self.turn.copy() if self.turn else None
        return copy

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as its parts (OpenSpiel serializes states so; a compiled class has no ``__dict__``)."""
        return _step_deal, (self.rules, self.max_turns, self.deal, self.turn)

    def new_deal(self, rng: random.Random) -> None:
        """A fresh shuffled deal, the dealer chosen at random too."""
        dealer = rng.randrange(self.rules.seats)
        self.deal = Deal.shuffled(rng, dealer=dealer, rules=self.rules, max_turns=self.max_turns)
        self.turn = TurnSteps(self.deal.legal_actions())

    def set_deal(self, deal: Deal) -> None:
        """Play on from ``deal`` (a position, or a deal dealt elsewhere)."""
        self.deal = deal
        self.turn = None if deal.is_over else TurnSteps(deal.legal_actions())

    @property
    def mover(self) -> int:
        return self.deal.to_move

    @property
    def over(self) -> bool:
        return self.deal.is_over

    @property
    def truncated(self) -> bool:
        return self.deal.ended_by is Ending.CAPPED

    def legal_steps(self) -> list[int]:
        return [] if self.turn is None else self.turn.legal_steps()

    def mask(self) -> np.ndarray:
        out = bytearray(ACTIONS)  # a fresh buffer: the array is the caller's own, writable
        if self.turn is not None:
            for step in self.turn.legal_steps():
                out[step] = 1
        return np.frombuffer(out, np.int8)

    def step(self, step: int) -> bool:
        """Take the mover's step; True if it made an action, which the deal has applied."""
        if self.turn is None:
            raise ValueError("the deal is over")
        action = self.turn.push(step)
        if action is None:
            return False
        self.deal.apply(action, check=False)
        self.turn = None if self.deal.is_over else TurnSteps(self.deal.legal_actions())
        return True

    def status(self) -> str:
        """Where the deal stands, in a line: whose turn and what to do (with the steps taken), or how it ended."""
        deal = self.deal
        if deal.is_over:
            ended = deal.ended_by.value if deal.ended_by is not None else "over"
            return f"turn {deal.turn}: the deal is over ({ended})"
        steps = " ".join(describe(s) for s in self.turn.prefix) if self.turn else ""
        return f"turn {deal.turn}, seat {deal.to_move} to {deal.phase}" + (f" ({steps})" if steps else "")

    def text(self, seat: int) -> str:
        """The table as ``seat`` sees it, in plain text as ``biriba view --text --plain`` draws it, under the status."""
        import io

        from rich.console import Console

        from ..tui.plain import render_view
        from ..tui.words import Words

        console = Console(file=io.StringIO(), width=100, color_system=None, emoji=False, highlight=False)
        view = self.deal.view_for(seat)
        render_view(console, Words(self.rules, True, you=seat), view, view.match_scores)
        drawn = console.file.getvalue()  # type: ignore[attr-defined]
        return f"{self.status()}\n{drawn.strip(chr(10))}\n"

    def observation(self, seat: int) -> np.ndarray:
        """What ``seat`` sees, with the steps it has taken if it is the mover.

        Between the steps toward a meld or add nothing changes but the steps: the rest of the mover's
        observation is made at the first of them, kept, and copied at the next.
        """
        turn = self.turn
        if turn is None or not turn.prefix or seat != self.mover:
            return observe(self.deal.view_for(seat))
        deal, actions = self.deal, len(self.deal.history)
        seen = self._seen
        if seen is None or seen[0] is not deal or seen[1] != actions:
            seen = self._seen = (deal, actions, observe(deal.view_for(seat)))
        out = seen[2].copy()  # the caller's own: what it does to it changes nothing kept here
        add_steps(out, turn)
        return out

    def rewards(self) -> list[float]:
        """Each seat's reward once the deal is over (0 before, and for a capped deal)."""
        seats = self.rules.seats
        if not self.over or self.truncated:
            return [0.0] * seats
        scores = self.deal.result().team_scores
        teams = len(scores)
        total = sum(scores)
        out = []
        for seat in range(seats):
            own = scores[self.rules.team_of[seat]]
            others = (total - own) / (teams - 1)
            out.append((own - others) / POINTS_PER_REWARD)
        return out


def _step_deal(rules: Rules, max_turns: int | None, deal: Deal, turn: TurnSteps | None) -> StepDeal:
    out = StepDeal(rules, max_turns, deal)
    out.turn = turn
    return out
