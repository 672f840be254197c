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

from ..cards import KINDS, SUITS
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


def _meld_features(meld: Meld, rules: Rules) -> bytes:
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
    return np.array(features, np.float32).tobytes()


class _ByRules:
    """What an observation takes from its rules alone, made once per rules object.

    The numbers of the rules, each seat's order of seats and teams, and each
    meld's features (melds are values, and the same ones stay on the table
    turn after turn), kept as float32 bytes so that a team's melds are
    written in one copy.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.numbers = np.array(_rules_numbers(rules), np.float32)
        seats, teams = rules.seats, len(rules.teams)
        self.orders = [
            ([(me + k) % seats for k in range(seats)], [(rules.team_of[me] + k) % teams for k in range(teams)])
            for me in range(seats)
        ]
        self.melds: dict[Meld, bytes] = {}

    def features(self, meld: Meld) -> bytes:
        """The features of a meld not kept yet, now kept (past 16,384 kept, all are forgotten first)."""
        if len(self.melds) > 1 << 14:
            self.melds.clear()
        self.melds[meld] = found = _meld_features(meld, self.rules)
        return found


#: By ``id(rules)``: hashing the rules each time would cost more than it saves.
_BY_RULES: dict[int, _ByRules] = {}


def _by_rules(rules: Rules) -> _ByRules:
    entry = _BY_RULES.get(id(rules))
    if entry is None or entry.rules is not rules:
        if len(_BY_RULES) > 64:  # a soak or a sweep makes rules by the thousand
            _BY_RULES.clear()
        entry = _BY_RULES[id(rules)] = _ByRules(rules)
    return entry


_KNOWN, _PACKET, _SINGLE, _PICKED = OFFSET["known"], OFFSET["packet"], OFFSET["took_single"], OFFSET["picked"]
_MELDS = OFFSET["melds"]
#: Where the numbers of the table begin: they are gathered in a list and written at once.
_TABLE = OFFSET["hand_sizes"]


def _offset(name: str) -> int:
    return OFFSET[name] - _TABLE


_SIZES, _TO_MOVE, _BIRIBAS = _offset("hand_sizes"), _offset("to_move"), _offset("biribas")
_RESERVES, _SCORES, _COUNTS = _offset("reserves"), _offset("match_scores"), _offset("counts")
_PHASE, _FLAGS, _TRUMP = _offset("phase"), _offset("flags"), _offset("trump")
#: The parts after the table's numbers, as places in the whole array.
_RULES, _TARGET, _CHOICES = OFFSET["rules"], OFFSET["target"], OFFSET["choices"]


def observe(view: PlayerView, turn: TurnSteps | None = None) -> np.ndarray:
    """The observation of ``view.seat`` (float32, :data:`SIZE` long), with the steps taken so far this decision."""
    assert view.seat is not None, "an observation is a seat's"
    rules = view.rules
    me = view.seat
    by_rules = _by_rules(rules)
    order, team_order = by_rules.orders[me]
    out = np.zeros(SIZE, dtype=np.float32)

    # the parts by card kind: small counts, gathered as bytes and written at once
    cards = bytearray(_MELDS)
    for card in view.hand:
        cards[card] += 1
    for card in view.discard:
        cards[KINDS + card] += 1
    if view.discard:
        cards[2 * KINDS + view.discard[-1]] = 1
    at = _KNOWN
    for seat in order[1:]:
        cards[at : at + KINDS] = bytes(view.known[seat])
        at += KINDS
    for card in view.packet:
        cards[_PACKET + card] += 1
    if 0 <= view.took_single < KINDS:
        cards[_SINGLE + view.took_single] = 1
    out[:_MELDS] = np.frombuffer(cards, np.uint8)

    known = by_rules.melds
    for k, team in enumerate(team_order):
        melds = view.melds[team][:MAX_MELDS]
        if melds:
            rows = np.frombuffer(b"".join([known.get(m) or by_rules.features(m) for m in melds]), np.float32)
            base = _MELDS + k * MAX_MELDS * MELD_FEATURES
            out[base : base + len(rows)] = rows

    table = [0.0] * (_RULES - _TABLE)  # the rest is written from numbers already made, or one at a time
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
    out[_TABLE:_RULES] = table
    out[_RULES:_TARGET] = by_rules.numbers
    if turn is not None and turn.prefix:
        add_steps(out, turn)
    return out


def add_steps(out: np.ndarray, turn: TurnSteps) -> None:
    """Write the steps taken so far this decision into an observation made without them (``observe(view)``)."""
    picked = turn.picked
    for card in picked:
        out[_PICKED + card] += 1
    target = turn.target
    if target is not None:
        out[_TARGET + 1 + target] = 1
        out[_CHOICES] = len(turn.prefix) - len(picked) - 1
