"""Melds: sets and runs, their notation, and every legal way to make or extend one.

The package follows its own sections:

- :mod:`.types`: the value types (:class:`RunMeld`, :class:`SetMeld`,
  :class:`WildMeld`, :class:`AddOption`) and what a meld is worth;
- :mod:`.notation`: cards with their wild slots, melds read from the table;
- :mod:`.options`: every meld and add a hand allows, and a typed one resolved;
- :mod:`.classic`: the fast enumerator for one wild per meld;
- :mod:`.general`: the enumerator for several wilds and melds of wilds;
- :mod:`.explain`: the words of a refusal.
"""

from .explain import explain_add, explain_meld, too_many_wilds
from .memo import hand_keys
from .notation import parse_meld, parse_placed
from .options import (
    add_options,
    adds_under,
    adds_with,
    hand_wilds,
    listed_add,
    listed_meld,
    meld_options,
    meld_placements,
    placed_melds,
    resolve_add,
    resolve_meld,
)
from .types import (
    NO_SLOT,
    NO_SLOTS,
    POS_CODE,
    RUN_CODES,
    AddOption,
    Meld,
    RunMeld,
    SetMeld,
    WildMeld,
    format_placed,
    is_biriba,
    meld_bonus,
    meld_state,
    meld_value,
)

__all__ = [
    "NO_SLOT",
    "NO_SLOTS",
    "POS_CODE",
    "RUN_CODES",
    "AddOption",
    "Meld",
    "RunMeld",
    "SetMeld",
    "WildMeld",
    "add_options",
    "adds_under",
    "adds_with",
    "explain_add",
    "explain_meld",
    "format_placed",
    "hand_keys",
    "hand_wilds",
    "is_biriba",
    "listed_add",
    "listed_meld",
    "meld_bonus",
    "meld_options",
    "meld_placements",
    "meld_state",
    "meld_value",
    "parse_meld",
    "parse_placed",
    "placed_melds",
    "resolve_add",
    "resolve_meld",
    "too_many_wilds",
]
