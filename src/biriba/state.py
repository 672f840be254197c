"""The state of a deal, declared once.

Every field of a deal in progress is declared here, in two dataclasses:
:class:`PublicState` holds what every seat sees (the table), and
:class:`DealState` adds what is hidden (the hands, the stock, the packets).
Each field's metadata says how a copy treats it (shared, or a list copied one
or two levels deep) and how a position writes and reads it in JSON.  From
that one declaration come the position JSON (:func:`write_fields`,
:func:`read_fields`); the copy a clone makes (:func:`copy_deal`) and the
snapshot a seat's view takes (:func:`copy_public`) are written out for
speed, and ``tests/test_state.py`` holds them to the declaration.  Adding a
field touches this file and the rule that uses it.

The rules of play live in :class:`biriba.deal.Deal`, a subclass.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple, TypeVar

from .actions import Action
from .cards import KINDS, NAMES, SUITS, cards_of, counts_of, parse_card
from .errors import InvalidPositionError, NotationError, is_whole_number
from .melds import Meld, parse_meld
from .rules import CLASSIC, Rules, Trump
from .terms import Ending, Phase, Reserve


class Copy(Enum):
    """How a clone (:func:`copy_deal`) copies a field."""

    SHARE = "share"  # immutable: the copy shares it
    LIST = "list"  # a list of immutable items: a shallow copy
    LISTS = "lists"  # a list of lists: each inner list copied


class Codec(NamedTuple):
    """How a position writes a field to JSON and reads it back (``docs/notation.md``)."""

    write: Callable[[Any], Any]
    read: Callable[[Any, Rules], Any]
    required: bool = False  # a position without it is malformed


def _declare(copy: Copy, codec: Codec | None = None) -> dict[str, Any]:
    return {"copy": copy, "codec": codec}


# ----------------------------------------------------------------- codecs
def _int(value: Any, _rules: Rules) -> int:
    if not is_whole_number(value):
        raise InvalidPositionError(f"{value!r} is not a whole number")
    return value


def _ints(value: Any, rules: Rules) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):  # a tuple from Python callers
        raise InvalidPositionError(f"a list of whole numbers, not {value!r:.40}")
    return tuple(_int(x, rules) for x in value)


def _laid_whole(value: Any, rules: Rules) -> list[tuple[int, ...]]:
    if not isinstance(value, (list, tuple)):
        raise InvalidPositionError(f"per team a list of meld indexes, not {value!r:.40}")
    return [_ints(team, rules) for team in value]


def _seat(value: Any, rules: Rules) -> int:
    if not is_whole_number(value) or not 0 <= value < rules.seats:
        raise InvalidPositionError(f"a seat is 0..{rules.seats - 1}, not {value!r}")
    return value


def _cards(value: Any, _rules: Rules) -> list[int]:
    if not isinstance(value, list):
        raise InvalidPositionError(
            f"cards are a list, not {type(value).__name__}; a player's view hides them and cannot be played on"
        )
    return [parse_card(x) for x in value]


def _names(cards: Any) -> list[str]:
    return [NAMES[c] for c in cards]


def _card_or_none(value: Any, _rules: Rules) -> int:
    return -1 if value is None else parse_card(value)


def _suit(value: Any, rules: Rules) -> int:
    if value is None:
        return -1
    if rules.trump == Trump.NONE or value not in SUITS:
        raise InvalidPositionError(f"a suit S, H, D or C under rules with a trump, not {value!r}")
    return SUITS.index(value)


def _reserves(value: Any, rules: Rules) -> list[Reserve | None]:
    return [None if r is None else Reserve(_seat(r["seat"], rules), bool(r["active"])) for r in value]


def _phase(value: Any, _rules: Rules) -> Phase:
    if value not in (Phase.DRAW, Phase.PLAY):
        raise InvalidPositionError(f"must be 'draw' or 'play', not {value!r}")
    return Phase(value)


def _reserve_packets(value: Any, rules: Rules) -> list[tuple[int, ...]]:
    return [tuple(_cards(p, rules)) if p else () for p in value]


INT = Codec(lambda v: v, _int)
FLAG = Codec(lambda v: v, lambda v, _rules: bool(v))
SEAT = Codec(lambda v: v, _seat, required=True)
CARDS = Codec(_names, _cards, required=True)
CARD_TUPLE = Codec(_names, lambda v, rules: tuple(_cards(v, rules)))
HANDS = Codec(
    lambda hands: [_names(cards_of(h)) for h in hands],
    lambda v, rules: [counts_of(_cards(h, rules)) for h in v],
    required=True,
)
MELDS = Codec(
    lambda melds: [[m.text().split() for m in team] for team in melds],
    lambda v, rules: [[parse_meld(m, rules) for m in team] for team in v],
    required=True,
)
MATCH_SCORES = Codec(list, _ints)
PHASE = Codec(str, _phase, required=True)
RESERVES = Codec(
    lambda v: [None if r is None else {"seat": r.seat, "active": r.active} for r in v], _reserves, required=True
)
TOOK_SINGLE = Codec(lambda c: NAMES[c] if c >= 0 else None, _card_or_none)
TRUMP = Codec(lambda s: SUITS[s] if s >= 0 else None, _suit)
LAID_WHOLE = Codec(lambda v: [list(t) for t in v], _laid_whole)
CUT = Codec(lambda v: v, lambda v, rules: None if v is None else _int(v, rules))
STOCK = CARD_TUPLE._replace(required=True)
PACKETS = Codec(
    lambda v: [_names(p) for p in v], lambda v, rules: tuple(tuple(_cards(p, rules)) for p in v), required=True
)
KNOWN = Codec(
    lambda known: [_names(cards_of(k)) for k in known], lambda v, rules: [counts_of(_cards(k, rules)) for k in v]
)
RESERVE_PACKETS = Codec(lambda v: [_names(p) if p else None for p in v], _reserve_packets)


# ------------------------------------------------------------ declaration
@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class PublicState:
    """What every seat sees of a deal: the table, the counts, whose turn it is."""

    rules: Rules = field(default=CLASSIC, metadata=_declare(Copy.SHARE))
    match_scores: tuple[int, ...] = field(default=(), metadata=_declare(Copy.SHARE, MATCH_SCORES))
    dealer: int = field(default=0, metadata=_declare(Copy.SHARE, SEAT._replace(required=False)))
    to_move: int = field(default=1, metadata=_declare(Copy.SHARE, SEAT))
    phase: Phase = field(default=Phase.DRAW, metadata=_declare(Copy.SHARE, PHASE))
    turn: int = field(default=1, metadata=_declare(Copy.SHARE, INT))
    sizes: list[int] = field(default_factory=list, metadata=_declare(Copy.LIST))  # from the hands
    melds: list[list[Meld]] = field(default_factory=list, metadata=_declare(Copy.LISTS, MELDS))  # per team
    biribas: list[int] = field(default_factory=list, metadata=_declare(Copy.LIST))  # per team, from the melds
    discard: list[int] = field(default_factory=list, metadata=_declare(Copy.LIST, CARDS))  # bottom first
    reserves: list[Reserve | None] = field(default_factory=list, metadata=_declare(Copy.LIST, RESERVES))  # per team
    took_single: int = field(default=-1, metadata=_declare(Copy.SHARE, TOOK_SINGLE))  # a one-card pile taken (R16)
    passes: int = field(default=0, metadata=_declare(Copy.SHARE, INT))  # consecutive passes, empty stock (R23)
    idle_turns: int = field(
        default=0, metadata=_declare(Copy.SHARE, INT)
    )  # turns in a row on an empty stock with no meld, add or reserve pickup (option idle_rounds, D36)
    ended_by: Ending | None = field(default=None, metadata=_declare(Copy.SHARE))
    closer: int = field(default=-1, metadata=_declare(Copy.SHARE))  # the seat that went out, else -1
    # variant state (docs/presets)
    trump: int = field(default=-1, metadata=_declare(Copy.SHARE, TRUMP))  # the upcard's suit (option trump), else -1
    laid_whole: list[tuple[int, ...]] = field(
        default_factory=list, metadata=_declare(Copy.LIST, LAID_WHOLE)
    )  # per team: melds laid down a biriba in one action
    turn_melds: int = field(default=0, metadata=_declare(Copy.SHARE, INT))  # melds the mover made this turn
    opening_value: int = field(default=0, metadata=_declare(Copy.SHARE, INT))  # option opening_minimums
    reserve_due: bool = field(default=False, metadata=_declare(Copy.SHARE, FLAG))  # option reserve_access
    last_round: bool = field(default=False, metadata=_declare(Copy.SHARE, FLAG))  # option stock_out="end"
    took_with_one: bool = field(default=False, metadata=_declare(Copy.SHARE, FLAG))  # option single_take_closure
    cut: int | None = field(default=None, metadata=_declare(Copy.SHARE, CUT))  # the cut's miss (option cut_bonus)
    known: list[list[int]] = field(
        default_factory=list, metadata=_declare(Copy.LISTS, KNOWN)
    )  # per seat: the cards all have seen go into that hand and not come out (a taken pile, found wilds)
    cut_wilds: tuple[int, ...] = field(
        default=(), metadata=_declare(Copy.SHARE, CARD_TUPLE)
    )  # wilds the dealer found past the cut (option bottom_wilds), seen by all

    def idle_turns_left(self) -> int | None:
        """Idle turns still to come before the deal ends (D36), once one has been; else None.

        What the players are told as the end nears: a front end shows it in the last round.
        """
        limit = self.rules.idle_turns_to_end
        if not limit or not self.idle_turns or self.ended_by is not None:
            return None
        return limit - self.idle_turns


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class DealState(PublicState):
    """The whole truth of a deal: the table plus what only some seats, or none, may see."""

    hands: list[list[int]] = field(default_factory=list, metadata=_declare(Copy.LISTS, HANDS))  # count arrays
    hand_keys: list[list[int]] = field(
        default_factory=list, metadata=_declare(Copy.LISTS)
    )  # per seat, from the hands: the keys the meld lists are remembered by (melds.hand_keys), kept as cards move
    stock: tuple[int, ...] = field(default=(), metadata=_declare(Copy.SHARE, STOCK))  # top first
    packets: tuple[tuple[int, ...], ...] = field(
        default=(), metadata=_declare(Copy.SHARE, PACKETS)
    )  # reserve packets not yet taken, top first
    reserve_packets: list[tuple[int, ...]] = field(
        default_factory=list, metadata=_declare(Copy.LIST, RESERVE_PACKETS)
    )  # per team, the packet it took (private to its holder; prices an inactive reserve, R27)
    deck: tuple[int, ...] | None = field(default=None, metadata=_declare(Copy.SHARE))  # R4; None for a position
    history: list[tuple[int, Action]] = field(default_factory=list, metadata=_declare(Copy.LIST))  # in play order
    max_turns: int | None = field(default=None, metadata=_declare(Copy.SHARE))  # a simulation's turn cap (R23)

    def fill_defaults(self) -> None:
        """Give the per-team and per-seat fields a position left out their empty values."""
        teams = len(self.rules.teams)
        if not self.match_scores:
            self.match_scores = (0,) * teams
        if not self.reserves:
            self.reserves = [None] * teams
        if not self.laid_whole:
            self.laid_whole = [() for _ in range(teams)]
        if not self.reserve_packets:
            self.reserve_packets = [() for _ in range(teams)]
        if not self.melds:
            self.melds = [[] for _ in range(teams)]
        if not self.known:
            self.known = [[0] * KINDS for _ in range(self.rules.seats)]


# -------------------------------------------------------- derived helpers
V = TypeVar("V", bound=PublicState)
D = TypeVar("D", bound=DealState)


def _fields(cls: type) -> Iterator[dataclasses.Field[Any]]:
    return iter(dataclasses.fields(cls))


def copy_public(source: PublicState, view: V) -> V:
    """Copy every public field of a deal onto a view (:class:`biriba.views.PlayerView`), as each field declares.

    Written out rather than made from the declaration, so that compiled it
    is one store per field (search copies a lot); ``tests/test_state.py``
    checks it against the declaration, field by field.
    """
    view.rules = source.rules
    view.match_scores = source.match_scores
    view.dealer = source.dealer
    view.to_move = source.to_move
    view.phase = source.phase
    view.turn = source.turn
    view.sizes = source.sizes[:]
    view.melds = [x[:] for x in source.melds]
    view.biribas = source.biribas[:]
    view.discard = source.discard[:]
    view.reserves = source.reserves[:]
    view.took_single = source.took_single
    view.passes = source.passes
    view.idle_turns = source.idle_turns
    view.ended_by = source.ended_by
    view.closer = source.closer
    view.trump = source.trump
    view.laid_whole = source.laid_whole[:]
    view.turn_melds = source.turn_melds
    view.opening_value = source.opening_value
    view.reserve_due = source.reserve_due
    view.last_round = source.last_round
    view.took_with_one = source.took_with_one
    view.cut = source.cut
    view.known = [x[:] for x in source.known]
    view.cut_wilds = source.cut_wilds
    return view


def copy_deal(source: DealState, new: D) -> D:
    """Copy every field of a deal onto another (:meth:`biriba.deal.Deal.clone`), as each field declares."""
    copy_public(source, new)
    new.hands = [x[:] for x in source.hands]
    new.hand_keys = [x[:] for x in source.hand_keys]
    new.stock = source.stock
    new.packets = source.packets
    new.reserve_packets = source.reserve_packets[:]
    new.deck = source.deck
    new.history = source.history[:]
    new.max_turns = source.max_turns
    return new


@functools.cache
def _codecs(cls: type) -> tuple[tuple[str, Codec], ...]:
    """The fields of ``cls`` that a position carries, with their codecs (looked up once)."""
    return tuple((f.name, f.metadata["codec"]) for f in _fields(cls) if f.metadata["codec"] is not None)


def write_fields(state: PublicState, cls: type = DealState) -> dict[str, Any]:
    """The JSON of every field of ``cls`` that a position carries, read from ``state``."""
    return {name: codec.write(getattr(state, name)) for name, codec in _codecs(cls)}


def read_fields(data: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """The field values a position's JSON gives; missing optional fields are left out."""
    out: dict[str, Any] = {}
    for f in _fields(DealState):
        codec: Codec | None = f.metadata["codec"]
        if codec is None:
            continue
        if f.name not in data:
            if codec.required:
                raise InvalidPositionError(f"a position needs {f.name!r}")
            continue
        try:
            out[f.name] = codec.read(data[f.name], rules)
        except (InvalidPositionError, NotationError) as exc:
            raise type(exc)(f"{f.name!r}: {exc}") from None
    return out


__all__ = ["Codec", "Copy", "DealState", "PublicState", "copy_deal", "copy_public", "read_fields", "write_fields"]
