"""The rules configuration: every number and condition of a variant as data.

>>> PRESETS["italian"].wild_limit, PRESETS["italian"].target
(<WildLimit.HALF: 'half'>, 2000)
>>> city = preset("italian").with_options(["closure_biribas=2"])
>>> city.name, city.closure_biribas, city.to_json()["closure_biribas"]
('italian*', 2, 2)
>>> CLASSIC.with_options(["seats=6"]).deck_size  # six players bring a third pack (D30)
162

The engine reads the table, the deal, the meld limits, the bonus tables, the
reserve and closure conditions and the match target from one frozen
:class:`Rules` object.  Named presets live in :data:`PRESETS`; a user picks
one and changes options with :meth:`Rules.replace` (or ``--set name=value``
on the command line, parsed by :meth:`Rules.with_options`).  Rule ids
(``R1``..) refer to ``docs/rules.md``; each preset has its own page in
``docs/presets/``.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, cast

from .cards import JOKER, KINDS, rank_of
from .errors import NotationError, is_whole_number


@dataclass(frozen=True)
class CardValues:
    """Points of one card in a meld (plus) or left in hand (minus), R24."""

    joker: int = 20
    ace: int = 15
    two: int = 10
    high: int = 10  # 8, 9, T, J, Q, K
    low: int = 5  # 3 .. 7

    def table(self) -> tuple[int, ...]:
        """Value of every card code, for fast sums."""
        values = []
        for code in range(KINDS):
            rank = rank_of(code)
            if code == JOKER:
                values.append(self.joker)
            elif rank == 0:
                values.append(self.ace)
            elif rank == 1:
                values.append(self.two)
            elif rank >= 7:
                values.append(self.high)
            else:
                values.append(self.low)
        return tuple(values)


@dataclass(frozen=True)
class Bonus:
    """A meld bonus, clean or dirty (R26).

    Seed 002's three-handed table pays more for a biriba laid down whole from
    the hand in one action than for one built up over several: ``in_hand``
    gives that pair, ``None`` when it is the same.
    """

    clean: int
    dirty: int
    in_hand: tuple[int, int] | None = None

    def of(self, clean: bool, in_hand: bool = False) -> int:
        if in_hand and self.in_hand is not None:
            return self.in_hand[0] if clean else self.in_hand[1]
        return self.clean if clean else self.dirty


class Trump(StrEnum):
    NONE = "none"
    UPCARD = "upcard"


class TargetRule(StrEnum):
    EXCEED = "exceed"
    REACH = "reach"


class TargetTie(StrEnum):
    ANOTHER_DEAL = "another-deal"
    SHARED = "shared"


class SetBiribas(StrEnum):
    ALL = "all"
    ACES = "aces"
    NONE = "none"


class ReserveAccess(StrEnum):
    EMPTY_HAND = "empty-hand"
    FIRST_BIRIBA = "first-biriba"


class ClosureBy(StrEnum):
    EITHER = "either"
    RESERVE_TAKER = "reserve-taker"


class WildLimit(StrEnum):
    ONE = "one"
    HALF = "half"


class TakeRule(StrEnum):
    ALWAYS = "always"
    TOP_CARD = "top-card"


class StockOut(StrEnum):
    TAKE_OR_PASS = "take-or-pass"
    END = "end"
    TAKE_IF_ABLE = "take-if-able"


#: What each word an option takes means, for ``biriba rules`` and errors.
CHOICE_HELP: dict[StrEnum, str] = {
    Trump.NONE: "no trump suit (R5)",
    Trump.UPCARD: "the upcard's suit is trump; a joker upcard gives no trump",
    TargetRule.EXCEED: "strictly above the target",
    TargetRule.REACH: "the target or more",
    TargetTie.ANOTHER_DEAL: "equal top totals play another deal",
    TargetTie.SHARED: "equal top totals share the win",
    SetBiribas.ALL: "a set of 7+ of any rank is a biriba",
    SetBiribas.ACES: "runs only, plus a set of 7+ aces",
    SetBiribas.NONE: "runs only",
    ReserveAccess.EMPTY_HAND: "a player who empties the hand takes the reserve (R18, R19)",
    ReserveAccess.FIRST_BIRIBA: "the player who makes the team's first biriba takes it at the end of that turn",
    ClosureBy.EITHER: "either partner may go out (R22)",
    ClosureBy.RESERVE_TAKER: "only the player who took the team's reserve may go out",
    WildLimit.ONE: "one wild per meld (R7, R8)",
    WildLimit.HALF: "one wild per two naturals in the meld",
    TakeRule.ALWAYS: "the pile may always be taken (R15)",
    TakeRule.TOP_CARD: "only if its top card extends a team meld or makes a new meld with two naturals",
    StockOut.TAKE_OR_PASS: "take the pile or pass; four passes end the deal (R23)",
    StockOut.END: "the deal ends when the player who drew the last stock card ends the turn",
    StockOut.TAKE_IF_ABLE: "take the pile while able; pass only when not; a round of passes ends the deal",
}


@dataclass(frozen=True)
class Rules:
    """Everything that differs between the variants people play.

    The defaults are the classic profile (preset ``classic``, rules R1..R30).
    """

    name: str = "classic"
    # table (R1, R2)
    seats: int = 4
    partnerships: bool = True  # partners opposite; else every player alone
    packs: int = 2
    jokers: int = 4
    # deal (R3, R4)
    hand_size: int = 11
    packet_size: int = 11
    dealer_step: int = 1  # the next dealer is dealer + step (1: to the right, -1: to the left)
    upcard_redeal: bool = False  # a wild or red three upcard goes back into the stock
    cut_bonus: tuple[int, ...] = ()  # the dealer's points for a cut exactly on the aim, one card off, ...
    bottom_wilds: bool = False  # wilds just past the dealer's cut go to the dealer's hand
    trump: Trump = Trump.NONE
    # melds (R6..R14)
    twos_wild: bool = True
    min_meld: int = 3
    sets: bool = True  # sets of one rank may be melded; else runs only
    wild_limit: WildLimit = WildLimit.ONE
    biriba_size: int = 7
    set_biribas: SetBiribas = SetBiribas.ALL
    wild_melds: bool = False  # melds of wilds only: the wild-card biriba of seed 002's three-handed game
    # turn (R15..R23)
    take_rule: TakeRule = TakeRule.ALWAYS
    stock_out: StockOut = StockOut.TAKE_OR_PASS
    idle_rounds: int = 0  # a house rule (D36): whole rounds on an empty stock with no meld or add end the deal
    opening_minimums: tuple[tuple[int, int, int], ...] = ()  # (from total, to total, minimum of the first melding)
    # reserve and closure (R18..R22)
    reserve_access: ReserveAccess = ReserveAccess.EMPTY_HAND
    reserve_biribas: int = 1  # biribas a team needs before a hand may empty for its reserve
    closure_biribas: int = 1  # biribas a team needs, its reserve taken, to go out
    closure_run_and_set: bool = False  # going out also needs a run and a set on the team's table
    meld_out: bool = False  # a player may go out by melding the last card (no discard)
    closure_by: ClosureBy = ClosureBy.EITHER
    single_take_closure: bool = True  # holding one card, a player may take a one-card pile and go out
    # scoring (R24..R28)
    card_values: CardValues = field(default_factory=CardValues)
    run_bonus: Bonus = Bonus(200, 100)
    full_run_bonus: Bonus | None = Bonus(1000, 500)  # a 13-card run (hiliara), instead of run_bonus
    long_run_bonus: Bonus | None = None  # a run of long_run_size+ cards, instead of run_bonus
    long_run_size: int = 11
    trump_run_bonus: Bonus | None = None  # a run of the trump suit, instead of run_bonus
    trump_full_run_bonus: Bonus | None = None  # a 13-run of the trump suit, instead of full_run_bonus
    set_bonus: Bonus = Bonus(300, 150)
    ace_set_bonus: Bonus | None = None  # a set of aces, instead of set_bonus
    wild_meld_bonus: Bonus = Bonus(750, 750, (1000, 1000))
    going_out_bonus: int = 100
    no_reserve_penalty: int = 100
    inactive_reserve_penalty: int | None = 100  # None: the packet's cards count as cards in hand
    # match (R29)
    target: int = 5000
    target_rule: TargetRule = TargetRule.EXCEED
    target_tie: TargetTie = TargetTie.ANOTHER_DEAL

    def __post_init__(self) -> None:
        for option, choice in CHOICES.items():  # words from JSON or --set become the option's enumeration
            value = getattr(self, option)
            if not isinstance(value, choice):
                if value not in set(choice):
                    raise NotationError(f"{option} must be one of {', '.join(choice)}, not {_short(str(value))!r}")
                object.__setattr__(self, option, choice(value))
        for option, (low, high) in OPTION_LIMITS.items():
            numbers = _numbers(getattr(self, option))
            if any(not low <= n <= high for n in numbers):
                raise NotationError(f"{option}: {range_words(option)}, not {format_option(getattr(self, option))}")
        for option, most in OPTION_LENGTHS.items():
            if len(getattr(self, option)) > most:
                raise NotationError(f"{option}: at most {most} items")
        if self.partnerships and self.seats not in (4, 6):
            raise NotationError(
                f"partnerships need 4 or 6 seats (partners opposite): for {self.seats} players alone,"
                " also set partnerships=false"
            )
        dealt = self.seats * self.hand_size + self.packets * self.packet_size + 1
        if dealt >= self.deck_size:
            raise NotationError(f"the deal needs {dealt} cards and a stock, but the deck has {self.deck_size}")
        if self.biriba_size < self.min_meld:
            raise NotationError("biriba_size is at least min_meld")
        if self.dealer_step not in (1, -1):
            raise NotationError("dealer_step is 1 (to the right) or -1 (to the left)")
        if self.wild_melds and not self.twos_wild and self.jokers < self.min_meld:
            raise NotationError("wild_melds needs enough wilds for a meld")
        if self.closure_run_and_set and not self.sets:
            raise NotationError("closure_run_and_set needs a set on the table, but sets=false melds runs only")

    # ---- derived data, computed once per configuration ----
    @cached_property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each team: partners opposite, or every player alone (R1)."""
        if self.partnerships:
            half = self.seats // 2
            return tuple((s, s + half) for s in range(half))
        return tuple((s,) for s in range(self.seats))

    @property
    def packets(self) -> int:
        """One reserve packet per team (R20)."""
        return len(self.teams)

    @property
    def passes_to_end(self) -> int:
        """A full round of passes ends a deal (R23)."""
        return self.seats

    @property
    def idle_turns_to_end(self) -> int:
        """Turns in a row on an empty stock with no meld, add or reserve pickup that end a deal (D36); 0: none do."""
        return self.idle_rounds * self.seats

    def at_table(self, options: Collection[str] = ()) -> Rules:
        """These rules at a table with people (web, terminal): the idle-round guard on (D36).

        Unless the table's ``options`` name ``idle_rounds``, or the rules end
        the deal with the stock anyway, a deal ends after
        :data:`TABLE_IDLE_ROUNDS` idle rounds: people may pass as often as they
        like, and bots keep a table moving, so without it a deal might never end.
        """
        if "idle_rounds" in options or self.idle_rounds or self.stock_out is StockOut.END:
            return self
        return self.replace(idle_rounds=TABLE_IDLE_ROUNDS)

    @cached_property
    def values(self) -> tuple[int, ...]:
        """Card value by code (R24)."""
        return self.card_values.table()

    @cached_property
    def team_of(self) -> tuple[int, ...]:
        """Team index of each seat."""
        owner = [0] * self.seats
        for t, team in enumerate(self.teams):
            for seat in team:
                owner[seat] = t
        return tuple(owner)

    @cached_property
    def wild_kinds(self) -> tuple[int, ...]:
        """Codes of the cards that can act as wilds (R6)."""
        return (JOKER, 4, 5, 6, 7) if self.twos_wild else (JOKER,)

    @cached_property
    def simple_wilds(self) -> bool:
        """One wild per meld and no melds of wilds: the rules the fast meld enumerator serves (R7, R14)."""
        return self.wild_limit == WildLimit.ONE and not self.wild_melds

    @property
    def deck_size(self) -> int:
        return 52 * self.packs + self.jokers

    def max_wilds(self, naturals: int) -> int:
        """How many wilds a meld with this many naturals may hold."""
        return 1 if self.wild_limit == WildLimit.ONE else naturals // 2

    def opening_minimum(self, team_total: int) -> int:
        """The least a team's first melding must be worth, by its match total (vulnerability)."""
        for low, high, minimum in self.opening_minimums:
            if low <= team_total <= high:
                return minimum
        return 0

    def reached(self, total: int) -> bool:
        return total > self.target if self.target_rule == TargetRule.EXCEED else total >= self.target

    def winners(self, totals: Sequence[int]) -> tuple[int, ...] | None:
        """The teams that have won with these totals after a complete deal (R29), else ``None``."""
        best = max(totals)
        if not self.reached(best):
            return None
        top = tuple(t for t, total in enumerate(totals) if total == best)
        return top if len(top) == 1 or self.target_tie == TargetTie.SHARED else None

    def winner(self, totals: Sequence[int]) -> int | None:
        """The single winning team, if the match is over with one."""
        top = self.winners(totals)
        return top[0] if top is not None and len(top) == 1 else None

    # ---- options as data ----
    def cite(self, rule: str, option: str) -> str:
        """The id a refusal names: ``option`` when these rules change it from classic, else ``rule``.

        notation.md: a refusal names "the R number or the variant option it breaks".
        """
        return option if getattr(self, option) != getattr(CLASSIC, option) else rule

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed; the name records that it was changed.

        A new number of seats brings its own deck (two packs and four jokers,
        three and six from five players on, seed 002), unless ``packs`` or
        ``jokers`` is set in the same change or the deck was not the standard
        one (rules D30).
        """
        if "name" not in changes:
            changes["name"] = self.name if self.name.endswith("*") else self.name + "*"
        seats = changes.get("seats", self.seats)
        deck_given = "packs" in changes or "jokers" in changes
        standard = (self.packs, self.jokers) == standard_deck(self.seats)
        if isinstance(seats, int) and seats != self.seats and standard and not deck_given:
            changes["packs"], changes["jokers"] = standard_deck(seats)
        try:
            return dataclasses.replace(self, **changes)
        except TypeError as exc:
            raise NotationError(f"bad rule options: {exc}") from None

    def __deepcopy__(self, memo: dict[int, object]) -> Rules:
        """Rules never change: a deep copy (of a deal, of a search's state) shares them."""
        return self

    def with_options(self, assignments: Sequence[str]) -> Rules:
        """Apply ``name=value`` texts (``--set``); values are parsed by the option's type."""
        changes: dict[str, Any] = {}
        for text in assignments:
            key, sep, value = text.partition("=")
            key = key.strip().replace("-", "_")
            if not sep:
                raise NotationError(f"--set {_short(text)}: write option=value, e.g. --set target=3000")
            if key not in OPTION_NAMES:
                close = difflib.get_close_matches(key, OPTION_NAMES, n=1, cutoff=0.75)
                hint = f"did you mean {close[0]}? " if close else ""
                raise NotationError(f"--set {_short(text)}: no such option; {hint}'biriba rules' lists them")
            changes[key] = parse_option(key, value.strip())
        return self.replace(**changes) if changes else self

    def options(self) -> dict[str, Any]:
        """Every option as plain JSON data (the name excluded)."""
        data = dataclasses.asdict(self)
        del data["name"]
        for key, value in data.items():
            if isinstance(value, tuple):
                data[key] = [list(v) if isinstance(v, tuple) else v for v in value]
        return data

    def to_json(self) -> str | dict[str, Any]:
        """A preset's name when unchanged, else the name and every option (a fresh copy the caller may change)."""
        text = self._json_text
        return text if not text.startswith("{") else cast(dict[str, Any], json.loads(text))

    @cached_property
    def _json_text(self) -> str:
        """:meth:`to_json`, worked out once: every view and position carries it."""
        preset = PRESETS.get(self.name)
        if preset is not None and preset == self:
            return self.name
        return json.dumps({"name": self.name, **self.options()})

    @classmethod
    def from_json(cls, data: str | dict[str, Any], version: int | None = None) -> Rules:
        """A preset by name, or options over a preset (``base``, else the name's preset, else classic).

        ``version`` is the presets' version the data was written with (a
        record's ``preset_version``); by default the current one.
        """
        if isinstance(data, str):
            return preset(data, version)
        if not isinstance(data, dict):
            raise NotationError("rules must be a preset name or an object of options")
        name = str(data.get("name", ""))
        base_name = data.get("base") or (name.rstrip("*") if name.rstrip("*") in PRESETS else "classic")
        if not isinstance(base_name, str):
            raise NotationError(f"rules' 'base' is a preset's name, not {_short(repr(base_name))}")
        base = preset(base_name, version)
        unknown = set(data) - set(OPTION_NAMES) - {"base", "name"}
        if unknown:
            raise NotationError(f"unknown rule options: {', '.join(sorted(unknown))}")
        changes: dict[str, Any] = {}
        for key in OPTION_NAMES:
            if key in data:
                try:
                    changes[key] = _from_data(key, data[key])
                except (TypeError, ValueError, KeyError) as exc:
                    raise NotationError(f"bad rule options: {key}: {exc}") from None
        changes["name"] = name or (base.name if not changes else base.name + "*")
        return base.replace(**changes)


def standard_deck(seats: int) -> tuple[int, int]:
    """Packs and jokers for a table: 2 and 4 (108 cards), 3 and 6 from five players on (seed 002, l. 5).

    Five players alone need 111 cards for their hands, packets and upcard, so
    they take the six-player deck too.
    """
    return (3, 6) if seats >= 5 else (2, 4)


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "name")
#: The options whose values are words, with the enumeration of their words.
CHOICES: dict[str, type[StrEnum]] = {
    "trump": Trump,
    "wild_limit": WildLimit,
    "set_biribas": SetBiribas,
    "take_rule": TakeRule,
    "stock_out": StockOut,
    "reserve_access": ReserveAccess,
    "closure_by": ClosureBy,
    "target_rule": TargetRule,
    "target_tie": TargetTie,
}

#: One line per option, for ``biriba rules`` and the docs.
OPTION_HELP: dict[str, str] = {
    "seats": "number of players",
    "partnerships": "true: partners opposite (4 or 6 seats); false: every player alone, with a reserve each",
    "packs": "52-card packs in the deck (a new seats value brings 3 from five players on)",
    "jokers": "jokers in the deck (a new seats value brings 6 from five players on)",
    "hand_size": "cards dealt to each player",
    "packet_size": "cards in each reserve packet",
    "dealer_step": "the next dealer: 1 to the right (with play), -1 to the left",
    "upcard_redeal": "a wild or red-three upcard goes back into the stock and the next is turned (italian)",
    "cut_bonus": "the dealer's points for cutting exactly, one card off, ..., or none (atout: 100,50)",
    "bottom_wilds": "wilds found just past the dealer's cut go to the dealer's hand (three-handed)",
    "trump": "none, or upcard: the upcard's suit pays the trump bonuses (kozi, atout)",
    "twos_wild": "twos are wild (false: only jokers are, an italian house rule)",
    "min_meld": "cards in the smallest meld",
    "sets": "sets of one rank may be melded (false: runs only, kozi)",
    "wild_limit": "one: one wild per meld; half: one wild per two naturals (italian)",
    "biriba_size": "cards that make a meld a biriba",
    "set_biribas": "which sets count as biribas: all, aces (italian: runs only plus aces), none",
    "wild_melds": "melds of wilds only, the wild-card biriba (three-handed)",
    "take_rule": "always, or top-card: the pile's top card must extend a team meld or meld with two naturals (italian)",
    "stock_out": "when the stock is empty: take-or-pass (R23), end (kozi, atout), take-if-able (italian)",
    "idle_rounds": "house rule (D36): on an empty stock, this many whole rounds with no meld, add or reserve"
    " pickup end the deal as passes do (0: never; web and terminal tables: 2)",
    "opening_minimums": "vulnerability: from-to:minimum of a team's first melding by its total (atout)",
    "reserve_access": "empty-hand: emptying a hand takes the reserve; first-biriba: it comes with one (italian)",
    "reserve_biribas": "biribas a team needs before a hand may empty for its reserve (0: any emptying, atout)",
    "closure_biribas": "biribas a team needs to go out (2: the italian Greek-city variation)",
    "closure_run_and_set": "going out also needs a run and a set on the team's table (italian)",
    "meld_out": "a player may go out by melding the last card, without a discard (three-handed, individual)",
    "closure_by": "who may go out: either partner (R22), or only the reserve-taker (kozi, atout)",
    "single_take_closure": "a player holding one card may take a one-card pile and go out (false: atout)",
    "card_values": "joker,ace,two,eight-to-king,three-to-seven",
    "run_bonus": "clean/dirty bonus of a run of 7+ (clean/dirty/in-hand clean/in-hand dirty)",
    "full_run_bonus": "clean/dirty bonus of a 13-card run, or none: a run like others (cyprus: dirty 100)",
    "long_run_bonus": "clean/dirty bonus of a run of long_run_size+ cards, or none (italian super biriba: 400/200)",
    "long_run_size": "cards of a super biriba",
    "trump_run_bonus": "clean/dirty bonus of a trump run, or none (kozi: 400/200, atout: 600/300)",
    "trump_full_run_bonus": "clean/dirty bonus of a trump 13-run, or none (kozi: 2000/1000)",
    "set_bonus": "clean/dirty bonus of a set of 7+",
    "ace_set_bonus": "clean/dirty bonus of a set of 7+ aces, or none (three-handed)",
    "wild_meld_bonus": "bonus of a wild-card biriba, accumulated/-/in hand/- (three-handed: 750, 1000)",
    "going_out_bonus": "bonus for going out (R27)",
    "no_reserve_penalty": "penalty of a team that never took its reserve (R27)",
    "inactive_reserve_penalty": "penalty of a reserve taken by discard and never activated (R27), or none: "
    "its cards count as cards in hand (italian)",
    "target": "match target (R29)",
    "target_rule": "exceed: strictly above the target; reach: the target or more",
    "target_tie": "equal top totals past the target: another-deal, or shared",
}

#: The idle rounds that end a deal at a table with people unless its options say otherwise (D36, Rules.at_table).
TABLE_IDLE_ROUNDS = 2

#: The least and the greatest value of each option that holds numbers, stated once: the engine refuses
#: anything else, ``biriba rules`` and the docs list them, and the web game's schema is made from them.
#: For a bonus, the card values or a list, the bounds are those of each number in it.
OPTION_LIMITS: dict[str, tuple[int, int]] = {
    "seats": (2, 6),
    "packs": (1, 4),
    "jokers": (0, 12),
    "hand_size": (5, 20),
    "packet_size": (5, 20),
    "cut_bonus": (0, 10_000),
    "min_meld": (3, 5),
    "biriba_size": (5, 13),
    "opening_minimums": (0, 100_000),
    "reserve_biribas": (0, 3),
    "idle_rounds": (0, 10),
    "closure_biribas": (0, 3),
    "card_values": (0, 1_000),
    "run_bonus": (0, 10_000),
    "full_run_bonus": (0, 10_000),
    "long_run_bonus": (0, 10_000),
    "long_run_size": (8, 13),
    "trump_run_bonus": (0, 10_000),
    "trump_full_run_bonus": (0, 10_000),
    "set_bonus": (0, 10_000),
    "ace_set_bonus": (0, 10_000),
    "wild_meld_bonus": (0, 10_000),
    "going_out_bonus": (0, 10_000),
    "no_reserve_penalty": (0, 10_000),
    "inactive_reserve_penalty": (0, 10_000),
    "target": (1, 100_000),
}
#: The most items an option that is a list may hold.
OPTION_LENGTHS: dict[str, int] = {"cut_bonus": 13, "opening_minimums": 10}


def _numbers(value: Any) -> list[int]:
    """Every number an option's value holds (a bonus's points, the card values, a list's items)."""
    if value is None or isinstance(value, str):
        return []
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, Bonus):
        return [value.clean, value.dirty, *(value.in_hand or ())]
    if isinstance(value, CardValues):
        return list(dataclasses.astuple(value))
    return [n for item in value for n in _numbers(item)]


def range_words(option: str) -> str:
    """``2 to 6``, or ``each number 0 to 10000`` for an option that holds several (``biriba rules``, refusals)."""
    low, high = OPTION_LIMITS[option]
    kind = str(_TYPES[option])
    return f"{low} to {high}" if kind.startswith("int") else f"each number {low} to {high}"


#: One line per preset: what it is.
PRESET_HELP: dict[str, str] = {
    "classic": "the primary profile: four in partnerships, no trump, first above 5000",
    "kozi": "runs only, the upcard's suit is trump (kozi), the deal ends with the stock, first to 2005",
    "atout": "partnerships with atout, hiliara and vulnerability, any emptying takes the reserve",
    "cyprus": "the Cyprus variation of atout, with a dirty hiliara worth 100",
    "three-handed": "three players alone, wild-card biriba, in-hand and accumulated bonuses",
    "individual": "the non-partnership game for two: each alone with a reserve, three-handed scoring",
    "italian": "runs and ace sets, half wild limit, reserve at the first biriba, run and set to close",
    "italian-individual": "the italian game for three players alone, each with a reserve, first to 1500",
}
_TYPES: dict[str, Any] = {f.name: f.type for f in dataclasses.fields(Rules)}
#: The options that may be none (``null`` as JSON data, ``none`` as ``--set`` text); every other one refuses it.
OPTION_NONE: frozenset[str] = frozenset(name for name in OPTION_NAMES if "None" in str(_TYPES[name]))


_CARD_VALUES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(CardValues))


def _whole(value: Any) -> int:
    """A whole number from JSON: not a fraction, an infinity or true/false."""
    if not is_whole_number(value):
        raise ValueError(f"{_short(repr(value))} is not a whole number")
    return value


def _wholes(value: Any, count: int | None = None) -> tuple[int, ...]:
    """A JSON list of whole numbers, of ``count`` items where one is set."""
    if not isinstance(value, (list, tuple)) or (count is not None and len(value) != count):
        raise ValueError(f"{_short(repr(value))} is not a list of {count or 'some'} whole numbers")
    return tuple(_whole(x) for x in value)


def _from_data(key: str, value: Any) -> Any:
    """An option's value from JSON data; raises ValueError saying what the value should have been."""
    kind = str(_TYPES[key])
    if value is None:
        if key not in OPTION_NONE:
            forms = VALUE_FORMS.get(kind) or f"one of {', '.join(CHOICES[key])}"
            raise ValueError(f"null is not one of its values: it takes {forms}")
        return None
    if "Bonus" in kind:
        if isinstance(value, dict):
            if not {"clean", "dirty"} <= set(value) <= {"clean", "dirty", "in_hand"}:
                raise ValueError(f"{key} has 'clean' and 'dirty' points, and may have 'in_hand'")
            hand = value.get("in_hand")
            pair = None if hand is None else _wholes(hand, 2)
            return Bonus(_whole(value["clean"]), _whole(value["dirty"]), (pair[0], pair[1]) if pair else None)
        return parse_option(key, str(value))
    if "CardValues" in kind:
        if isinstance(value, Mapping):
            if set(value) != set(_CARD_VALUES):
                raise ValueError(f"{key} has the points of {', '.join(_CARD_VALUES)}: every one, no other")
            return CardValues(**{name: _whole(points) for name, points in value.items()})
        return parse_option(key, str(value))
    if key == "opening_minimums":
        if not isinstance(value, (list, tuple)):
            raise ValueError("opening_minimums is a list of [from, to, minimum] items")
        return tuple(_wholes(item, 3) for item in value)
    if key == "cut_bonus":
        return _wholes(value)
    if kind == "bool" and not isinstance(value, bool):
        raise ValueError(f"{key} is true or false")
    if kind.startswith("int"):
        _whole(value)
    return value


def option_value(key: str, value: Any) -> Any:
    """An option's value from JSON: its ``--set`` text (``"400/200"``), or its JSON form (a number, a list...)."""
    if key not in OPTION_NAMES:
        raise NotationError(f"no such option {_short(key)!r}; 'biriba rules' lists them")
    if isinstance(value, str) and key not in CHOICES:
        return parse_option(key, value)
    try:
        return _from_data(key, value)
    except (TypeError, ValueError, KeyError) as exc:
        raise NotationError(f"{key}: {exc}") from None


def parse_option(key: str, text: str) -> Any:
    """Parse one ``--set`` value: ``true``, ``3000``, ``400/200``, ``400/200/600/300``, ``50,20,20,10,5``..."""
    kind = str(_TYPES[key])
    try:
        if text.lower() in ("none", "null", "-") and "None" in kind:
            return None
        if "Bonus" in kind:
            parts = [int(p) for p in text.split("/")]
            if len(parts) not in (2, 4):
                raise ValueError("a bonus is clean/dirty, or clean/dirty/clean-in-hand/dirty-in-hand")
            return Bonus(parts[0], parts[1], (parts[2], parts[3]) if len(parts) == 4 else None)
        if "CardValues" in kind:
            values = [int(p) for p in text.split(",")]
            if len(values) != len(_CARD_VALUES):
                raise ValueError(text)
            return CardValues(*values)
        if key == "opening_minimums":
            out = []
            for item in text.split(",") if text.lower() != "none" else []:
                span, _, minimum = item.partition(":")
                low, _, high = span.partition("-")
                out.append((int(low), int(high), int(minimum)))
            return tuple(out)
        if key == "cut_bonus":
            return tuple(int(p) for p in text.split(",")) if text.lower() != "none" else ()
        if kind == "bool":
            if text.lower() not in ("true", "false", "yes", "no", "1", "0"):
                raise ValueError("write true or false")
            return text.lower() in ("true", "yes", "1")
        if kind.startswith("int"):
            return int(text)
        return text
    except (TypeError, ValueError):
        raise NotationError(f"--set {key}={_short(text)}: {key} takes {VALUE_FORMS.get(kind, kind)}") from None


#: What each type of option accepts, in words, for refusals of ``--set``.
VALUE_FORMS: dict[str, str] = {
    "int": "a whole number",
    "int | None": "a whole number, or none",
    "bool": "true or false",
    "Bonus": "clean/dirty points, or clean/dirty/clean-in-hand/dirty-in-hand, e.g. 200/100",
    "Bonus | None": "clean/dirty points such as 400/200, or none",
    "CardValues": "five values: joker,ace,two,eight-to-king,three-to-seven, e.g. 20,15,10,10,5",
    "tuple[tuple[int, int, int], ...]": "from-to:minimum items, e.g. 1000-1499:75,1500-2999:90, or none",
    "tuple[int, ...]": "points separated by commas, e.g. 100,50, or none",
}


def _short(text: str, limit: int = 40) -> str:
    """A value as a refusal quotes it: cut short, so that a long paste is not echoed back whole."""
    return text if len(text) <= limit else text[:limit] + "..."


def format_option(value: Any) -> str:
    """An option's value as ``--set`` takes it."""
    if isinstance(value, Bonus):
        hand = f"/{value.in_hand[0]}/{value.in_hand[1]}" if value.in_hand else ""
        return f"{value.clean}/{value.dirty}{hand}"
    if isinstance(value, CardValues):
        return f"{value.joker},{value.ace},{value.two},{value.high},{value.low}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, tuple):
        if value and isinstance(value[0], tuple):
            return ",".join(f"{lo}-{hi}:{m}" for lo, hi, m in value)
        return ",".join(map(str, value)) or "none"
    return str(value)


CLASSIC = Rules()

_ATOUT = CLASSIC.replace(
    name="atout",
    dealer_step=-1,
    trump=Trump.UPCARD,
    trump_run_bonus=Bonus(600, 300),
    cut_bonus=(100, 50),
    reserve_biribas=0,
    opening_minimums=((1000, 1499, 75), (1500, 2999, 90)),
    stock_out=StockOut.END,
    closure_by=ClosureBy.RESERVE_TAKER,
    single_take_closure=False,
    target=2500,
)

_THREE_HANDED = CLASSIC.replace(
    name="three-handed",
    seats=3,
    partnerships=False,
    dealer_step=-1,
    card_values=CardValues(joker=50, ace=20, two=25, high=10, low=5),
    wild_melds=True,
    run_bonus=Bonus(200, 100, (300, 200)),
    full_run_bonus=None,
    set_bonus=Bonus(200, 100, (300, 200)),
    ace_set_bonus=Bonus(400, 300, (500, 400)),
    wild_meld_bonus=Bonus(750, 750, (1000, 1000)),
    cut_bonus=(100, 50),
    bottom_wilds=True,
    reserve_biribas=0,
    meld_out=True,
    closure_by=ClosureBy.RESERVE_TAKER,
    single_take_closure=False,
    stock_out=StockOut.END,
    target=2500,
    target_rule=TargetRule.REACH,
)

PRESETS: dict[str, Rules] = {
    "classic": CLASSIC,
    "kozi": CLASSIC.replace(
        name="kozi",
        trump=Trump.UPCARD,
        trump_run_bonus=Bonus(400, 200),
        trump_full_run_bonus=Bonus(2000, 1000),
        sets=False,
        stock_out=StockOut.END,
        closure_by=ClosureBy.RESERVE_TAKER,
        target=2005,
        target_rule=TargetRule.REACH,
    ),
    "atout": _ATOUT,
    "cyprus": _ATOUT.replace(name="cyprus", full_run_bonus=Bonus(1000, 100)),
    "three-handed": _THREE_HANDED,
    "individual": _THREE_HANDED.replace(name="individual", seats=2),
    "italian": CLASSIC.replace(
        name="italian",
        dealer_step=-1,
        upcard_redeal=True,
        card_values=CardValues(joker=50, ace=20, two=20, high=10, low=5),
        wild_limit=WildLimit.HALF,
        set_biribas=SetBiribas.ACES,
        full_run_bonus=None,
        take_rule=TakeRule.TOP_CARD,
        stock_out=StockOut.TAKE_IF_ABLE,
        reserve_access=ReserveAccess.FIRST_BIRIBA,
        closure_run_and_set=True,
        no_reserve_penalty=0,
        inactive_reserve_penalty=None,
        target=2000,
        target_rule=TargetRule.REACH,
    ),
}
#: Seed 004's "Biriba individuale": three players alone, each with a reserve, to 1500 (rules D34).
PRESETS["italian-individual"] = PRESETS["italian"].replace(
    name="italian-individual", seats=3, partnerships=False, target=1500
)


#: The version of the presets' definitions.  A record names its version
#: (``preset_version``), so that a preset name keeps the meaning it had when
#: the record was written; a record without one is of version 1.
PRESET_VERSION = 2

_BEFORE_ISSUE_6: dict[str, Any] = {"closure_by": ClosureBy.EITHER, "single_take_closure": True}
_SEED_002_V1: dict[str, Any] = {**_BEFORE_ISSUE_6, "cut_bonus": (), "bottom_wilds": False}
#: What each preset was in version 1, as the options that have changed since.
_VERSION_1: dict[str, dict[str, Any]] = {
    "kozi": {"sets": True, "closure_by": ClosureBy.EITHER},
    "atout": _SEED_002_V1,
    "cyprus": _SEED_002_V1,
    "three-handed": _SEED_002_V1,
    "individual": _SEED_002_V1,
    "italian": {"no_reserve_penalty": 100, "inactive_reserve_penalty": 100},
}
PRESETS_BY_VERSION: dict[int, dict[str, Rules]] = {
    PRESET_VERSION: PRESETS,
    1: {name: rules.replace(name=name, **_VERSION_1.get(name, {})) for name, rules in PRESETS.items()},
}


def preset(name: str, version: int | None = None) -> Rules:
    """The named preset (as defined in ``version`` of the presets, by default the current one).

    Raises :class:`NotationError` naming the known presets.
    """
    presets = PRESETS_BY_VERSION.get(PRESET_VERSION if version is None else version)
    if presets is None:
        raise NotationError(f"unknown preset version {version!r}; known: {', '.join(map(str, PRESETS_BY_VERSION))}")
    try:
        return presets[name]
    except KeyError:
        raise NotationError(f"unknown rules preset {name!r}; known: {', '.join(PRESETS)}") from None
