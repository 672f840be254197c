"""Scoring a deal per team, with the breakdown players check by hand (R24..R28)."""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import cards_of
from .melds import meld_bonus, meld_value
from .state import DealState
from .terms import Ending

#: The parts of a team's deal score, in the order they are shown; ``total`` is their sum.
#: ``cut`` is there only under option ``cut_bonus``.
PARTS = ("melds", "bonuses", "hands", "going_out", "reserve", "cut")


class DealResult(NamedTuple):
    """Team scores of one deal, the breakdown behind them and how the deal ended."""

    team_scores: tuple[int, ...]
    breakdown: tuple[dict[str, int], ...]
    ended_by: Ending | None

    @property
    def winners(self) -> tuple[int, ...]:
        """The team with the highest score of the deal, or the teams tied for it (seed 004)."""
        best = max(self.team_scores)
        return tuple(t for t, points in enumerate(self.team_scores) if points == best)

    def to_json(self) -> dict[str, Any]:
        return {
            "team_scores": list(self.team_scores),
            "breakdown": [dict(b) for b in self.breakdown],
            "ended_by": None if self.ended_by is None else str(self.ended_by),
            "winners": list(self.winners),
        }


def score_deal(deal: DealState) -> DealResult:
    """Score the deal as it stands (normally once it is over).

    Per team (R25..R27): the value of its melded cards, one bonus per meld by
    its final state (and the rules' trump and in-hand tables), minus both
    partners' hands, +100 for going out, -100 for a reserve never taken (its
    packet not counted) or taken and still inactive (instead of that player's
    hand, which is the packet, unless option ``inactive_reserve_penalty`` is
    none: then the packet counts as the cards in hand it is).  With option
    ``cut_bonus`` the dealer's team scores its cut under ``cut``.
    """
    rules = deal.rules
    values = rules.values
    flat = rules.inactive_reserve_penalty
    scores = []
    breakdown = []
    for team, seats in enumerate(rules.teams):
        melds = deal.melds[team]
        reserve = deal.reserves[team]
        inactive = reserve is not None and not reserve.active
        hands = 0
        for seat in seats:
            hands -= sum(values[c] * n for c, n in enumerate(deal.hands[seat]) if n)
            if inactive and flat is not None and reserve is not None and reserve.seat == seat:
                # R27: the unplayed packet costs a flat penalty instead of its cards
                packet = deal.reserve_packets[team] or tuple(cards_of(deal.hands[seat]))
                hands += sum(values[c] for c in packet)
        if reserve is None:
            reserve_points = -rules.no_reserve_penalty
        elif inactive and flat is not None:
            reserve_points = -flat
        else:
            reserve_points = 0
        part = {
            "melds": sum(meld_value(m, values) for m in melds),
            "bonuses": sum(meld_bonus(m, rules, deal.trump, i in deal.laid_whole[team]) for i, m in enumerate(melds)),
            "hands": hands,
            "going_out": rules.going_out_bonus if deal.ended_by == Ending.CLOSURE and deal.closer in seats else 0,
            "reserve": reserve_points,
        }
        if rules.cut_bonus:
            part["cut"] = cut_points(deal) if deal.dealer in seats else 0
        part["total"] = sum(points for key, points in part.items())
        scores.append(part["total"])
        breakdown.append(part)
    return DealResult(tuple(scores), tuple(breakdown), deal.ended_by)


def cut_points(deal: DealState) -> int:
    """The dealer's points for the cut (option ``cut_bonus``): by how many cards it missed the aim."""
    bonus = deal.rules.cut_bonus
    miss = abs(deal.cut) if deal.cut is not None else len(bonus)
    return bonus[miss] if miss < len(bonus) else 0
