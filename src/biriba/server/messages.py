"""What a table tells its clients, in the protocol's words (docs/protocol.md).

Apart from :mod:`.live`, which decides when to tell it: the refusals with
their error codes, an event as one seat may see it, a table's public info
(the lobby's, from its row alone), and a table's settings as sent and kept.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from ..cards import NAMES
from ..errors import BiribaError, IllegalActionError
from ..rules import OPTION_HELP, PRESET_HELP, PRESETS, Rules, format_option
from ..table import Event, EventKind, Table
from .store import RETRY_AFTER, TableRow

#: How long after a deal ends the next one starts by itself (a seated person may start it sooner).
DEAL_PAUSE = 15.0


class TableError(BiribaError):
    """A request the table refuses; ``code`` is the protocol's error code (its HTTP status in :data:`STATUS`)."""

    def __init__(
        self,
        code: str,
        message: str,
        rule: str | None = None,
        retry_after: float | None = None,
        reason: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule
        self.retry_after = retry_after
        self.reason = reason

    @classmethod
    def illegal(cls, exc: BiribaError) -> TableError:
        """The engine's refusal: its rule, and its reason as data for the page to say in the player's language."""
        if isinstance(exc, IllegalActionError):
            return cls("illegal", str(exc), exc.rule, reason=refusal_reason(exc))
        return cls("illegal", str(exc), "notation")

    def message(self) -> dict[str, Any]:
        """The protocol's ``error`` message."""
        body: dict[str, Any] = {"type": "error", "code": self.code, "message": str(self)}
        if self.rule:
            body["rule"] = self.rule
        if self.reason:
            body["reason"] = self.reason
        return body


class Moved(TableError):
    """This process stopped driving the table (another took it over) while a change was under way here.

    Where it can, the change is then sent to the new owner; where not, the client is told to try again.
    """

    def __init__(self) -> None:
        super().__init__("moving", "the table moved to another server just now: try again", retry_after=1)


def refusal_reason(exc: IllegalActionError) -> dict[str, Any]:
    """A refusal's reason as the protocol sends it: ``{"key", "params"}`` (see :mod:`biriba.reasons`)."""
    return {"key": exc.key, "params": exc.params}


def store_away() -> TableError:
    """The store cannot be reached or written just now (:class:`~.store.Unavailable`): 503, and when to try again."""
    return TableError(
        "store", "the store cannot be reached just now; nothing was changed: try again shortly", retry_after=RETRY_AFTER
    )


#: The HTTP status of each refusal's code (anything else is 400).
STATUS = {
    "signed_out": 401,
    "not_over": 403,
    "csrf": 403,
    "wrong_password": 403,
    "not_yours": 403,
    "banned": 403,
    "no_table": 404,
    "no_player": 404,
    "not_waiting": 404,
    "no_passkey": 404,
    "taken": 409,
    "name_taken": 409,
    "invalid": 422,
    "quota": 429,
    "store": 503,
}


@dataclass
class Settings:
    """A table's pace: checked where the request comes in (:class:`~.schema.CreateTable`), kept in its row."""

    bot_delay: float = 1.0
    absent_after: float = 60.0
    turn_clock: float | None = None
    deal_pause: float = DEAL_PAUSE
    chat: str = "phrases"  # off, phrases (and emotes), or text (free lines too)

    @classmethod
    def of(cls, data: dict[str, Any]) -> Settings:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def to_data(self) -> dict[str, Any]:
        return {
            "bot_delay": self.bot_delay,
            "absent_after": self.absent_after,
            "turn_clock": self.turn_clock,
            "deal_pause": self.deal_pause,
            "chat": self.chat,
        }


def event_json(event: Event, seat: int | None, by: str | None = None) -> dict[str, Any]:
    """An event as ``seat`` may see it (a spectator: as no seat); ``by``: who played a person's turn for them."""
    seen = event.seen_by(-1 if seat is None else seat)
    data: dict[str, Any] = {"number": seen.number, "deal": seen.deal, "kind": str(seen.kind)}
    outcome = seen.outcome
    if outcome is not None:
        data.update(
            seat=outcome.seat,
            action=str(outcome.action),
            drawn=NAMES[outcome.drawn] if outcome.drawn >= 0 else None,
            taken=[NAMES[c] for c in outcome.taken],
            reserve=str(outcome.reserve) if outcome.reserve is not None else None,
            packet=[NAMES[c] for c in outcome.packet],
            ended=str(outcome.ended) if outcome.ended is not None else None,
        )
        if by is not None:
            data["by"] = by
    if seen.kind == EventKind.RESULT and seen.result is not None:
        data["result"] = seen.result.to_json()
    return data


def deal_event_json(data: dict[str, Any], table: Table) -> dict[str, Any]:
    """A deal event names its dealer and first player (public from the start)."""
    deal = table.match.deals[data["deal"] - 1]
    data.update(dealer=deal.dealer, first=(deal.dealer + 1) % deal.rules.seats)
    return data


@functools.lru_cache(maxsize=256)
def rules_info(text: str) -> tuple[Rules, dict[str, Any]]:
    """A table's rules (as records write them, in JSON text) and their public info, made once for all the tables
    that play them: every state message holds the info, and making it was a tenth of a server's work per action
    (docs/deploy.md).  The info is shared: never changed in place."""
    rules = Rules.from_json(json.loads(text))
    preset = PRESETS.get(rules.name.rstrip("*"), PRESETS["classic"])
    changed = {
        name: format_option(getattr(rules, name))
        for name in OPTION_HELP
        if getattr(rules, name) != getattr(preset, name)
    }
    words = [f"{preset.name}: {PRESET_HELP.get(preset.name, '')}"]
    words += [f"{name}: {value} ({OPTION_HELP[name]})" for name, value in changed.items()]
    info = {
        "name": rules.name,
        "data": rules.to_json(),
        "options": rules.options(),
        "wilds": [NAMES[c] for c in rules.wild_kinds],
        "preset": preset.name,
        "changed": changed,
        "words": words,
    }
    return rules, info


def row_info(row: TableRow, status: str, totals: list[int], deals: int, base: str) -> dict[str, Any]:
    """A table's public info from its row (docs/protocol.md): the lobby's, without loading the table."""
    rules, public = rules_info(json.dumps(row.rules, sort_keys=True))
    seats = []
    for seat, info in enumerate(row.seats):
        entry: dict[str, Any] = {"seat": seat, "kind": info.kind, "name": info.name, "team": rules.team_of[seat]}
        if info.kind == "bot":
            entry["bot"] = info.bot
        else:
            entry["connected"] = False
            entry["stand_in"] = False
            left = row.settings.get("left", {}).get(str(seat))
            if info.name is None and left:
                entry["left"] = left  # the person who gave the seat up, while it is free
        seats.append(entry)
    return {
        "id": row.id,
        "invite": f"{base.rstrip('/')}/t/{row.id}",
        "rules": public,
        "seats": seats,
        "status": status,
        "totals": totals or [0] * len(rules.teams),
        "deals": deals,
        "settings": Settings.of(row.settings).to_data(),
        "watchers": [],
        "rematch": row.settings.get("rematch"),
    }
