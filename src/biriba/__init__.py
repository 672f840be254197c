"""Biriba, the Greek partnership rummy: rules engine, notation, records and bots.

The core is dependency-free::

    >>> from biriba import Deal
    >>> deal = Deal.shuffled(seed=1)
    >>> [str(a) for a in deal.legal_actions()]
    ['draw', 'take']
"""

from . import compiled  # noqa: F401  (first: it refuses a compiled engine older than its source)
from .actions import Action
from .cards import Card, card_name, parse_card
from .deal import Deal
from .errors import BiribaError, IllegalActionError, InvalidPositionError, NotationError
from .match import Match
from .melds import Meld, RunMeld, SetMeld
from .replay import load_match, replay_record
from .rules import CLASSIC, PRESETS, Rules, preset
from .scoring import DealResult
from .table import Event, Table
from .terms import Ending, Outcome, Phase, Reserve
from .views import PlayerView

__version__ = "0.2.0"

__all__ = [
    "CLASSIC",
    "PRESETS",
    "Action",
    "BiribaError",
    "Card",
    "Deal",
    "DealResult",
    "Ending",
    "Event",
    "IllegalActionError",
    "InvalidPositionError",
    "Match",
    "Meld",
    "NotationError",
    "Outcome",
    "Phase",
    "PlayerView",
    "Reserve",
    "Rules",
    "RunMeld",
    "SetMeld",
    "Table",
    "card_name",
    "load_match",
    "parse_card",
    "preset",
    "replay_record",
]
