"""What a learning agent observes: one fixed-size array made from a seat's view (``docs/envs.md``).

Everything is read from :class:`~biriba.views.PlayerView` (what
``view_for(seat)`` gives) and the steps the agent has taken toward its
action, so an observation can hold nothing the seat may not see.  Seats are
counted from the observer (0 is itself, 1 the next to play after it...),
teams from its own; a table smaller than :data:`MAX_SEATS` leaves the rest
zero.  :data:`LAYOUT` names each part, its length and scale, in order; the
docs' table is checked against it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from gymnasium import spaces

from ..cards import KINDS, SUITS
from ..melds import RunMeld, SetMeld, is_biriba
from ..rules import OPTION_LIMITS, Rules
from ..terms import Phase
from ..views import PlayerView
from .encoding import MAX_MELDS, TurnSteps

MAX_SEATS = OPTION_LIMITS["seats"][1]
#: Each meld as: present, run, set, wild meld, suit (4), lowest and highest position /13, set rank /13,
#: size /13, wilds, biriba, clean.
MELD_FEATURES = 15


class Part(NamedTuple):
    name: str
    size: int
    says: str


LAYOUT: tuple[Part, ...] = (
    Part("hand", KINDS, "own hand, copies of each card kind"),
    Part("pile", KINDS, "the discard pile, copies of each kind"),
    Part("pile_top", KINDS, "the pile's top card, one-hot"),
    Part("known", (MAX_SEATS - 1) * KINDS, "for each other seat: the cards the table saw go into its hand"),
    Part("packet", KINDS, "the reserve packet this seat took, while it is inactive (R27)"),
    Part("hand_sizes", MAX_SEATS, "each seat's card count"),
    Part("melds", MAX_SEATS * MAX_MELDS * MELD_FEATURES, f"each team's melds in order, {MELD_FEATURES} numbers each"),
    Part("biribas", MAX_SEATS, "each team's biribas"),
    Part("reserves", MAX_SEATS * 3, "each team: reserve taken, active, taken by this seat"),
    Part("match_scores", MAX_SEATS, "each team's match total /1000"),
    Part(
        "counts",
        8,
        "stock /100, packets left, pile size /100, turn /100, passes, idle turns, melds this turn, "
        "the value melded toward an opening minimum /100",
    ),
    Part("phase", 2, "draw, play: one-hot"),
    Part("to_move", MAX_SEATS, "who moves, one-hot (0: this seat)"),
    Part("flags", 3, "reserve due, last round, took with one"),
    Part("took_single", KINDS, "a one-card pile taken this turn (R16), one-hot"),
    Part("trump", len(SUITS), "the trump suit, one-hot"),
    Part(
        "rules",
        12,
        "seats, teams, packs, jokers, hand size, packet size, packets, least meld, biriba size, "
        "sets allowed, wilds per meld (1 or a half), target /1000",
    ),
    Part("picked", KINDS, "the cards picked toward a meld or add"),
    Part("target", 1 + MAX_MELDS, "where they go once committed: a new meld, or meld k; one-hot"),
    Part("choices", 1, "slot and end steps taken after the commit"),
)
SIZE = sum(p.size for p in LAYOUT)
OFFSET = {}
_at = 0
for _part in LAYOUT:
    OFFSET[_part.name] = _at
    _at += _part.size


#: Every number of an observation lies within this: counts of cards and seats, match totals in thousands.
BOUND = 1000.0


def observation_box() -> spaces.Box:
    """The observation's space."""
    return spaces.Box(-BOUND, BOUND, (SIZE,), np.float32)


def _rules_numbers(rules: Rules) -> list[float]:
    return [
        rules.seats,
        len(rules.teams),
        rules.packs,
        rules.jokers,
        rules.hand_size,
        rules.packet_size,
        rules.packets,
        rules.min_meld,
        rules.biriba_size,
        float(rules.sets),
        0.0 if rules.wild_limit == "one" else 1.0,
        rules.target / 1000,
    ]


def _meld_features(meld: object, rules: Rules) -> list[float]:
    features = [1.0] + [0.0] * (MELD_FEATURES - 1)
    if isinstance(meld, RunMeld):
        features[1] = 1.0
        features[4 + meld.suit] = 1.0
        features[8], features[9] = meld.lo / 13, meld.hi / 13
    elif isinstance(meld, SetMeld):
        features[2] = 1.0
        features[10] = meld.rank / 13
    else:
        features[3] = 1.0
    features[11] = meld.size / 13  # type: ignore[attr-defined]
    features[12] = len(meld.wilds)  # type: ignore[attr-defined]
    features[13] = float(is_biriba(meld, rules))  # type: ignore[arg-type]
    features[14] = float(meld.clean)  # type: ignore[attr-defined]
    return features


def observe(view: PlayerView, turn: TurnSteps | None = None) -> np.ndarray:
    """The observation of ``view.seat`` (float32, :data:`SIZE` long), with the steps taken so far this decision."""
    assert view.seat is not None, "an observation is a seat's"
    rules = view.rules
    seats = rules.seats
    me = view.seat
    order = [(me + k) % seats for k in range(seats)]
    my_team = rules.team_of[me]
    teams = len(rules.teams)
    team_order = [(my_team + k) % teams for k in range(teams)]
    out = np.zeros(SIZE, dtype=np.float32)
    at = OFFSET

    for card in view.hand:
        out[at["hand"] + card] += 1
    for card in view.discard:
        out[at["pile"] + card] += 1
    if view.discard:
        out[at["pile_top"] + view.discard[-1]] = 1
    for k, seat in enumerate(order[1:]):
        out[at["known"] + k * KINDS : at["known"] + (k + 1) * KINDS] = view.known[seat]
    for card in view.packet:
        out[at["packet"] + card] += 1
    for k, seat in enumerate(order):
        out[at["hand_sizes"] + k] = view.sizes[seat]
        if seat == view.to_move and view.ended_by is None:
            out[at["to_move"] + k] = 1
    for k, team in enumerate(team_order):
        base = at["melds"] + k * MAX_MELDS * MELD_FEATURES
        for m, meld in enumerate(view.melds[team][:MAX_MELDS]):
            out[base + m * MELD_FEATURES : base + (m + 1) * MELD_FEATURES] = _meld_features(meld, rules)
        out[at["biribas"] + k] = view.biribas[team]
        reserve = view.reserves[team]
        if reserve is not None:
            out[at["reserves"] + 3 * k : at["reserves"] + 3 * k + 3] = (1, reserve.active, reserve.seat == me)
        if view.match_scores:
            out[at["match_scores"] + k] = view.match_scores[team] / 1000
    out[at["counts"] : at["counts"] + 8] = (
        view.stock_count / 100,
        len(view.packet_sizes),
        len(view.discard) / 100,
        view.turn / 100,
        view.passes,
        view.idle_turns,
        view.turn_melds,
        view.opening_value / 100,
    )
    if view.phase == Phase.DRAW:
        out[at["phase"]] = 1
    elif view.phase == Phase.PLAY:
        out[at["phase"] + 1] = 1
    out[at["flags"] : at["flags"] + 3] = (view.reserve_due, view.last_round, view.took_with_one)
    if 0 <= view.took_single < KINDS:
        out[at["took_single"] + view.took_single] = 1
    if 0 <= view.trump < len(SUITS):
        out[at["trump"] + view.trump] = 1
    out[at["rules"] : at["rules"] + 12] = _rules_numbers(rules)
    if turn is not None:
        for card in turn.picked:
            out[at["picked"] + card] += 1
        target = turn.target
        if target is not None:
            out[at["target"] + 1 + target] = 1
            out[at["choices"]] = len(turn.prefix) - len(turn.picked) - 1
    return out
