"""A match: deals until a team passes the target (R29), with reproducible decks."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .deal import Deal
from .records import RECORD_FORMAT, record_to_json
from .rules import CLASSIC, Rules
from .scoring import DealResult


class Match:
    """The deals of one match and the running totals.

    Every deck comes from the match's ``seed`` and the deal's number, so a
    saved record plus its seed can be resumed and reproduced exactly.
    """

    def __init__(
        self,
        rules: Rules = CLASSIC,
        players: list[str] | None = None,
        seed: int | str | None = None,
        max_turns: int | None = None,
    ) -> None:
        self.rules = rules
        self.players = players or [f"Seat {s}" for s in range(rules.seats)]
        self.seed = seed if seed is not None else random.randrange(2**32)
        self.max_turns = max_turns
        self.deals: list[Deal] = []
        self._results: list[DealResult] = []  # the finished deals' results, in order
        self.first_dealer = random.Random(f"{self.seed}/dealer").randrange(rules.seats)  # R3

    def results(self) -> list[DealResult]:
        """The result of each finished deal, in order; each deal is scored once, when first asked."""
        cache = self._results
        for deal in self.deals[len(cache) :]:
            if not deal.is_over:
                break
            cache.append(deal.result())
        return cache

    @property
    def totals(self) -> list[int]:
        """Each team's total over the finished deals."""
        totals = [0] * len(self.rules.teams)
        for result in self.results():
            for team, points in enumerate(result.team_scores):
                totals[team] += points
        return totals

    @property
    def current(self) -> Deal | None:
        """The deal in progress, if any."""
        if self.deals and not self.deals[-1].is_over:
            return self.deals[-1]
        return None

    @property
    def is_over(self) -> bool:
        return self.winners is not None

    @property
    def winners(self) -> tuple[int, ...] | None:
        """The winning team (or teams sharing a tie, option target_tie) once the match is over (R29)."""
        return self.rules.winners(self.totals) if self.current is None and self.deals else None

    @property
    def winner(self) -> int | None:
        """The single winning team once the match is over, else ``None``."""
        top = self.winners
        return top[0] if top is not None and len(top) == 1 else None

    def new_deal(self, deck: Sequence[int] | None = None, dealer: int | None = None) -> Deal:
        """Deal the next hand: the dealer moves one seat on each deal (R3).

        The deck comes from the match's seed and the deal's number (D9),
        unless a record gives it, with its dealer.
        """
        if self.current is not None:
            raise RuntimeError("the current deal is not over")
        if self.is_over:
            raise RuntimeError("the match is over")
        number = len(self.deals)
        if dealer is None:
            step = self.rules.dealer_step
            dealer = (self.deals[-1].dealer + step) % self.rules.seats if self.deals else self.first_dealer
        if deck is None:
            deal = Deal.shuffled(random.Random(f"{self.seed}/{number}"), dealer, self.rules, self.max_turns)
        else:
            deal = Deal(deck, dealer, self.rules, self.max_turns)
        deal.match_scores = tuple(self.totals)
        self.deals.append(deal)
        return deal

    def to_record(self) -> dict[str, Any]:
        data = record_to_json(self.rules, self.players, self.deals, seed=self.seed)
        data["totals"] = list(self.totals)
        if self.winners is not None:
            data["winner"] = self.winner
            data["winners"] = list(self.winners)
        return data


__all__ = ["RECORD_FORMAT", "Match"]
