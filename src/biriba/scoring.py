"""Scoring a deal per team, with the breakdown players check by hand (R24..R28)."""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import cards_of
from .melds import Meld, SetMeld, meld_bonus, meld_value
from .melds.types import is_biriba
from .rules import Rules, SetBiribas
from .state import DealState, PublicState
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


# ------------------------------------------------------------ the table so far
class MeldScore(NamedTuple):
    """What one meld on the table is and is worth now, as a board or a score sheet shows it beside the meld."""

    kind: str  # run, set or wild
    size: int
    clean: bool  # no wild card in it
    biriba: bool  # R11: it counts as a biriba
    points: int  # its cards' values (R25)
    bonus: int  # its bonus by its state now (R26)
    to_biriba: int  # cards it still lacks to be a biriba; 0 once it is one, or when it can never be

    def to_json(self) -> dict[str, Any]:
        return self._asdict()


class TeamTable(NamedTuple):
    """A team's melds so far, their points, and what its first melding must still reach."""

    melds: tuple[MeldScore, ...]
    points: int  # melded cards and bonuses: the deal's points on the table, before hands and going out
    opening_minimum: int  # option opening_minimums; 0 when none is due or the team opened on an earlier turn

    def to_json(self) -> dict[str, Any]:
        melds = [m.to_json() for m in self.melds]
        return {"melds": melds, "points": self.points, "opening_minimum": self.opening_minimum}


def meld_score(meld: Meld, rules: Rules, trump: int = -1, in_hand: bool = False) -> MeldScore:
    """One meld's facts (R11, R25, R26); ``in_hand`` as :func:`~biriba.melds.meld_bonus` takes it."""
    biriba = is_biriba(meld, rules)
    may_grow = (
        not isinstance(meld, SetMeld)
        or rules.set_biribas == SetBiribas.ALL
        or (rules.set_biribas == SetBiribas.ACES and meld.rank == 0)
    )
    return MeldScore(
        kind=meld.kind,
        size=meld.size,
        clean=meld.clean,
        biriba=biriba,
        points=meld_value(meld, rules.values),
        bonus=meld_bonus(meld, rules, trump, in_hand),
        to_biriba=0 if biriba or not may_grow else rules.biriba_size - meld.size,
    )


def team_tables(state: PublicState) -> tuple[TeamTable, ...]:
    """Every team's melds and points so far, from what every seat sees (a view or the deal itself)."""
    rules = state.rules
    mover_team = rules.team_of[state.to_move] if state.ended_by is None else -1
    tables = []
    for team in range(len(rules.teams)):
        melds = tuple(
            meld_score(m, rules, state.trump, i in state.laid_whole[team]) for i, m in enumerate(state.melds[team])
        )
        made_now = state.turn_melds if team == mover_team else 0
        opened = len(melds) > made_now
        minimum = 0 if opened else rules.opening_minimum(state.match_scores[team])
        tables.append(TeamTable(melds, sum(m.points + m.bonus for m in melds), minimum))
    return tuple(tables)
