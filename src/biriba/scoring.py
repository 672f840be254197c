"""Scoring a deal per team, with the breakdown players check by hand (R24..R28)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .cards import cards_of
from .deal import CLOSURE
from .melds import meld_bonus, meld_value

if TYPE_CHECKING:
    from .deal import Deal

#: The parts of a team's deal score, in the order they are shown; ``total`` is their sum.
PARTS = ("melds", "bonuses", "hands", "going_out", "reserve")


class DealResult(NamedTuple):
    """Team scores of one deal, the breakdown behind them and how the deal ended."""

    team_scores: tuple[int, ...]
    breakdown: tuple[dict[str, int], ...]
    ended_by: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "team_scores": list(self.team_scores),
            "breakdown": [dict(b) for b in self.breakdown],
            "ended_by": self.ended_by,
        }


def score_deal(deal: Deal) -> DealResult:
    """Score the deal as it stands (normally once it is over).

    Per team (R25..R27): the value of its melded cards, one bonus per meld by
    its final state (and the rules' trump and in-hand tables), minus both
    partners' hands, +100 for going out, -100 for a reserve never taken (its
    packet not counted) or taken and still inactive (instead of that player's
    hand, which is the packet).
    """
    rules = deal.rules
    values = rules.values
    scores = []
    breakdown = []
    for team, seats in enumerate(rules.teams):
        melds = deal.melds[team]
        reserve = deal.reserves[team]
        hands = 0
        for seat in seats:
            hands -= sum(values[c] * n for c, n in enumerate(deal.hands[seat]) if n)
            if reserve is not None and not reserve.active and reserve.seat == seat:
                # R27: the unplayed packet costs a flat penalty instead of its cards
                packet = deal.reserve_packets[team] or tuple(cards_of(deal.hands[seat]))
                hands += sum(values[c] for c in packet)
        if reserve is None:
            reserve_points = -rules.no_reserve_penalty
        elif not reserve.active:
            reserve_points = -rules.inactive_reserve_penalty
        else:
            reserve_points = 0
        part = {
            "melds": sum(meld_value(m, values) for m in melds),
            "bonuses": sum(meld_bonus(m, rules, deal.trump, i in deal.laid_whole[team]) for i, m in enumerate(melds)),
            "hands": hands,
            "going_out": rules.going_out_bonus if deal.ended_by == CLOSURE and deal.closer in seats else 0,
            "reserve": reserve_points,
        }
        part["total"] = sum(part[k] for k in PARTS)
        scores.append(part["total"])
        breakdown.append(part)
    return DealResult(tuple(scores), tuple(breakdown), deal.ended_by)
