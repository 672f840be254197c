"""The rules configuration: every number and condition of a variant as data.

The engine reads the table, the deal, the meld limits, the bonus tables, the
reserve and closure conditions and the match target from one frozen
:class:`Rules` object.  Named presets live in :data:`PRESETS`; a user picks
one and changes options with :meth:`Rules.replace`.  Rule ids (``R1``..)
refer to ``docs/rules.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .cards import JOKER, KINDS, rank_of
from .errors import NotationError


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
    """A clean/dirty pair of meld bonuses (R26)."""

    clean: int
    dirty: int

    def of(self, clean: bool) -> int:
        return self.clean if clean else self.dirty


@dataclass(frozen=True)
class Rules:
    """Everything that differs between the variants people play.

    The defaults are the classic profile (seed 000, rules R1..R30).
    """

    name: str = "classic"
    # table (R1, R2)
    seats: int = 4
    teams: tuple[tuple[int, ...], ...] = ((0, 2), (1, 3))
    packs: int = 2
    jokers: int = 4
    # deal (R4)
    hand_size: int = 11
    packets: int = 2
    packet_size: int = 11
    # melds (R6..R14)
    twos_wild: bool = True
    min_meld: int = 3
    max_wilds: int = 1
    biriba_size: int = 7
    # reserve and closure (R18..R22)
    reserve_biribas: int = 1  # biribas a team needs before a hand may empty for its reserve
    closure_biribas: int = 1  # biribas a team needs, its reserve taken, to go out
    # scoring (R24..R28)
    card_values: CardValues = field(default_factory=CardValues)
    run_bonus: Bonus = Bonus(200, 100)
    full_run_bonus: Bonus = Bonus(1000, 500)
    set_bonus: Bonus = Bonus(300, 150)
    going_out_bonus: int = 100
    no_reserve_penalty: int = 100
    inactive_reserve_penalty: int = 100
    # end of deal (R23) and match (R29)
    passes_to_end: int = 4
    target: int = 5000
    target_rule: str = "exceed"  # "exceed": strictly above; "reach": at least

    def __post_init__(self) -> None:
        seats_in_teams = sorted(s for team in self.teams for s in team)
        if seats_in_teams != list(range(self.seats)):
            raise NotationError(f"teams {self.teams} must hold each of seats 0..{self.seats - 1} once")
        if self.target_rule not in ("exceed", "reach"):
            raise NotationError("target_rule must be 'exceed' or 'reach'")
        if self.max_wilds not in (0, 1):
            raise NotationError("max_wilds: the engine implements at most one wild per meld (R7, R8)")
        deck = 52 * self.packs + self.jokers
        dealt = self.seats * self.hand_size + self.packets * self.packet_size + 1
        if dealt > deck:
            raise NotationError(f"the deal needs {dealt} cards but the deck has {deck}")

    # ---- derived data, computed once per configuration ----
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

    @property
    def deck_size(self) -> int:
        return 52 * self.packs + self.jokers

    def meld_bonus(self, is_run: bool, size: int, clean: bool) -> int:
        """Bonus of one meld by its final state (R26); 0 below biriba size."""
        if size < self.biriba_size:
            return 0
        if is_run:
            return (self.full_run_bonus if size == 13 else self.run_bonus).of(clean)
        return self.set_bonus.of(clean)

    def winner(self, totals: Sequence[int]) -> int | None:
        """The team that has won with these totals after a complete deal (R29), else ``None``."""
        best = max(totals)
        reached = best > self.target if self.target_rule == "exceed" else best >= self.target
        return list(totals).index(best) if reached and list(totals).count(best) == 1 else None

    # ---- options as data ----
    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed; the name records that it was changed."""
        if "name" not in changes:
            changes["name"] = self.name if self.name.endswith("*") else self.name + "*"
        return dataclasses.replace(self, **changes)

    def options(self) -> dict[str, Any]:
        """Every option as plain JSON data (the name excluded)."""
        data = dataclasses.asdict(self)
        del data["name"]
        data["teams"] = [list(t) for t in self.teams]
        return data

    def to_json(self) -> str | dict[str, Any]:
        """A preset's name when unchanged, else the full object of options."""
        preset = PRESETS.get(self.name)
        if preset is not None and preset == self:
            return self.name
        return {"name": self.name, **self.options()}

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> Rules:
        if isinstance(data, str):
            return preset(data)
        if not isinstance(data, dict):
            raise NotationError("rules must be a preset name or an object of options")
        base = preset(data.get("base", "classic"))
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known - {"base"}
        if unknown:
            raise NotationError(f"unknown rule options: {', '.join(sorted(unknown))}")
        try:
            changes: dict[str, Any] = {}
            for key, value in data.items():
                if key == "base":
                    continue
                if key == "teams":
                    value = tuple(tuple(t) for t in value)
                elif key == "card_values":
                    value = CardValues(**value)
                elif key.endswith("_bonus") and isinstance(value, dict):
                    value = Bonus(**value)
                changes[key] = value
            changes.setdefault("name", base.name if not changes else base.name + "*")
            return dataclasses.replace(base, **changes)
        except (TypeError, ValueError) as exc:
            raise NotationError(f"bad rule options: {exc}") from None


CLASSIC = Rules()

PRESETS: dict[str, Rules] = {"classic": CLASSIC}


def preset(name: str) -> Rules:
    """The named preset; raises :class:`NotationError` naming the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise NotationError(f"unknown rules preset {name!r}; known: {', '.join(sorted(PRESETS))}") from None
