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

from itertools import accumulate
from typing import NamedTuple

import numpy as np
from gymnasium import spaces

from ..cards import KINDS, SUITS, counts_of
from ..melds import Meld, RunMeld, SetMeld, is_biriba
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


#: The parts in order: first those by card kind, then the melds, then the numbers of the table.
LAYOUT: tuple[Part, ...] = (
    Part("hand", KINDS, "own hand, copies of each card kind"),
    Part("pile", KINDS, "the discard pile, copies of each kind"),
    Part("pile_top", KINDS, "the pile's top card, one-hot"),
    Part("known", (MAX_SEATS - 1) * KINDS, "for each other seat: the cards the table saw go into its hand"),
    Part("packet", KINDS, "the reserve packet this seat took, while it is inactive (R27)"),
    Part("took_single", KINDS, "a one-card pile taken this turn (R16), one-hot"),
    Part("picked", KINDS, "the cards picked toward a meld or add"),
    Part("melds", MAX_SEATS * MAX_MELDS * MELD_FEATURES, f"each team's melds in order, {MELD_FEATURES} numbers each"),
    Part("hand_sizes", MAX_SEATS, "each seat's card count"),
    Part("to_move", MAX_SEATS, "who moves, one-hot (0: this seat)"),
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
    Part("flags", 3, "reserve due, last round, took with one"),
    Part("trump", len(SUITS), "the trump suit, one-hot"),
    Part(
        "rules",
        12,
        "seats, teams, packs, jokers, hand size, packet size, packets, least meld, biriba size, "
        "sets allowed, wilds per meld (1 or a half), target /1000",
    ),
    Part("target", 1 + MAX_MELDS, "where the picked cards go once committed: a new meld, or meld k; one-hot"),
    Part("choices", 1, "slot and end steps taken after the commit"),
)
SIZE = sum(p.size for p in LAYOUT)
#: Where each part begins.
OFFSET: dict[str, int] = dict(zip((p.name for p in LAYOUT), accumulate((p.size for p in LAYOUT), initial=0)))


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


#: Each rules' melds' numbers, by meld: melds are values, and the same ones stay on the table turn after turn.
_FEATURES: dict[int, tuple[Rules, dict[Meld, list[float]]]] = {}


def _features_of(rules: Rules) -> dict[Meld, list[float]]:
    """The meld cache of ``rules`` (by identity: hashing the rules each time would cost more than it saves)."""
    entry = _FEATURES.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = _FEATURES[id(rules)] = (rules, {})
    if len(entry[1]) > 1 << 14:
        entry[1].clear()
    return entry[1]


def _meld_features(meld: Meld, rules: Rules) -> list[float]:
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
    features[11] = meld.size / 13
    features[12] = len(meld.wilds)
    features[13] = float(is_biriba(meld, rules))
    features[14] = float(meld.clean)
    return features


_MELDS = OFFSET["melds"]
#: Where the numbers of the table begin: they are gathered in a list and written at once.
_TABLE = OFFSET["hand_sizes"]


def _offset(name: str) -> int:
    return OFFSET[name] - _TABLE


_SIZES, _TO_MOVE, _BIRIBAS = _offset("hand_sizes"), _offset("to_move"), _offset("biribas")
_RESERVES, _SCORES, _COUNTS = _offset("reserves"), _offset("match_scores"), _offset("counts")
_PHASE, _FLAGS, _TRUMP = _offset("phase"), _offset("flags"), _offset("trump")
_RULES, _TARGET, _CHOICES = _offset("rules"), _offset("target"), _offset("choices")


def observe(view: PlayerView, turn: TurnSteps | None = None) -> np.ndarray:
    """The observation of ``view.seat`` (float32, :data:`SIZE` long), with the steps taken so far this decision."""
    assert view.seat is not None, "an observation is a seat's"
    rules = view.rules
    seats = rules.seats
    me = view.seat
    order = [(me + k) % seats for k in range(seats)]
    teams = len(rules.teams)
    my_team = rules.team_of[me]
    team_order = [(my_team + k) % teams for k in range(teams)]
    out = np.zeros(SIZE, dtype=np.float32)

    # the parts by card kind, as one list of counts
    cards = counts_of(view.hand) + counts_of(view.discard) + [0] * KINDS
    if view.discard:
        cards[2 * KINDS + view.discard[-1]] = 1
    for seat in order[1:]:
        cards += view.known[seat]
    cards += [0] * ((MAX_SEATS - seats) * KINDS)
    cards += counts_of(view.packet) if view.packet else [0] * KINDS
    single = [0] * KINDS
    if 0 <= view.took_single < KINDS:
        single[view.took_single] = 1
    cards += single
    cards += counts_of(turn.picked) if turn is not None else [0] * KINDS
    out[:_MELDS] = np.frombuffer(bytes(cards), np.uint8)  # small counts: bytes convert them fastest

    features = _features_of(rules)
    for k, team in enumerate(team_order):
        melds = view.melds[team][:MAX_MELDS]
        if not melds:
            continue
        rows = []
        for meld in melds:
            numbers = features.get(meld)
            if numbers is None:
                numbers = features[meld] = _meld_features(meld, rules)
            rows += numbers
        base = _MELDS + k * MAX_MELDS * MELD_FEATURES
        out[base : base + len(rows)] = rows

    table = [0.0] * (SIZE - _TABLE)
    for k, seat in enumerate(order):
        table[_SIZES + k] = view.sizes[seat]
        if seat == view.to_move and view.ended_by is None:
            table[_TO_MOVE + k] = 1
    for k, team in enumerate(team_order):
        table[_BIRIBAS + k] = view.biribas[team]
        reserve = view.reserves[team]
        if reserve is not None:
            table[_RESERVES + 3 * k : _RESERVES + 3 * k + 3] = (1, reserve.active, reserve.seat == me)
        if view.match_scores:
            table[_SCORES + k] = view.match_scores[team] / 1000
    table[_COUNTS : _COUNTS + 8] = (
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
        table[_PHASE] = 1
    elif view.phase == Phase.PLAY:
        table[_PHASE + 1] = 1
    table[_FLAGS : _FLAGS + 3] = (view.reserve_due, view.last_round, view.took_with_one)
    if 0 <= view.trump < len(SUITS):
        table[_TRUMP + view.trump] = 1
    table[_RULES : _RULES + 12] = _rules_numbers(rules)
    if turn is not None:
        target = turn.target
        if target is not None:
            table[_TARGET + 1 + target] = 1
            table[_CHOICES] = len(turn.prefix) - len(turn.picked) - 1
    out[_TABLE:] = table
    return out
