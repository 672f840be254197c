"""Every request and message of the web game, declared once (Pydantic, as FastAPI reads them).

Types, lengths and ranges are checked here, before a table sees anything;
an option's range is read from the rules module (:data:`~biriba.rules.OPTION_LIMITS`),
where it is stated once.  The HTTP API publishes these models in its
OpenAPI document (``/openapi.json``), so that clients and fuzzers know them.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt, create_model

from ..bots import known_kinds
from ..rules import CHOICES, OPTION_LENGTHS, OPTION_LIMITS, OPTION_NAMES, OPTION_NONE, PRESETS, Rules, format_option
from .names import MARKS_IN_A_ROW, invisible, piled_marks, readable

#: The longest display name, after normalization.
NAME_LENGTH = 30
#: The longest action text a client may send (a meld or an add holds at most 13 cards).
ACTION_LENGTH = 200
#: The longest seat token (the server makes them 32 characters long).
TOKEN_LENGTH = 64
#: The longest text form of an option's value (``--set``), e.g. ``1000-1499:75,1500-2999:90``.
OPTION_TEXT = 200
#: The longest line of a table's free chat, after normalization.
CHAT_LENGTH = 200
#: The quick chat's phrases and emotes, by id: each page says them in its own language.
PHRASES = (
    "hello", "good_luck", "well_played", "nice_biriba", "thanks", "sorry", "oops", "hurry", "thinking",
    "good_game", "bye", "smile", "laugh", "wow", "sad", "angry",
)  # fmt: skip

Strict = ConfigDict(extra="forbid")
#: The categories refused in a name or a chat line: controls, formats (bidi, zero-width), surrogates, private use,
#: unassigned, line and paragraph separators.
_HIDDEN = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def _clean(text: str, what: str, most: int) -> str:
    """NFC, spaces collapsed; no control, format or invisible character; 1 to ``most`` characters; marks not piled up.

    Right-to-left overrides (U+202E) and zero-width characters would let a
    name pass for another's or turn the text around it, fillers (U+3164)
    show nothing, and a letter under 29 accents smears over the lines
    around it (:mod:`.names`): they are refused.
    """
    clean = " ".join(unicodedata.normalize("NFC", text).split())
    bad = [ch for ch in clean if unicodedata.category(ch) in _HIDDEN or invisible(ch)]
    if bad:
        raise ValueError(f"{what} may not hold invisible or control characters (U+{ord(bad[0]):04X})")
    if not 1 <= len(clean) <= most:
        raise ValueError(f"{what} is 1 to {most} characters")
    marks = piled_marks(clean)
    if marks is not None:
        raise ValueError(
            f"{what} may have at most {MARKS_IN_A_ROW} combining marks on a character, each once"
            f" ({len(marks)} from U+{ord(marks[0]):04X})"
        )
    return clean


def display_name(text: str) -> str:
    """A person's name as the table shows it: one that can be read, so with a letter or a digit that shows.

    Whether it looks like another name at the table is the table's to say (:func:`.names.looks_alike`).
    """
    name = _clean(text, "a name", NAME_LENGTH)
    if not any(readable(ch) for ch in name):
        raise ValueError("a name needs a letter or a digit that shows")
    return name


def chat_line(text: str) -> str:
    """A free chat line, cleaned as a name is, longer."""
    return _clean(text, "a chat line", CHAT_LENGTH)


DisplayName = Annotated[str, Field(max_length=4 * NAME_LENGTH), AfterValidator(display_name)]
ChatLine = Annotated[str, Field(max_length=4 * CHAT_LENGTH), AfterValidator(chat_line)]


def _option_type(name: str) -> Any:
    """The JSON an option takes: a bounded whole number, true or false, one of its words, its JSON data
    (as a table's ``rules.options`` gives it), or its ``--set`` text; ``null`` only where the option may be none."""
    default = getattr(Rules(), name)
    limits = OPTION_LIMITS.get(name)
    if name in CHOICES:
        return Literal[tuple(str(choice) for choice in CHOICES[name])]
    if isinstance(default, bool):
        return StrictBool
    text = Annotated[
        str, Field(max_length=OPTION_TEXT, description=f"as --set writes it, e.g. {format_option(default)}")
    ]
    if name == "dealer_step":  # 1 or -1: the rules refuse 0
        return Annotated[StrictInt, Field(ge=-1, le=1)]
    assert limits is not None, name
    number = Annotated[StrictInt, Field(ge=limits[0], le=limits[1])]
    if isinstance(default, int) and name not in OPTION_NONE:
        return number
    if name in OPTION_LENGTHS:
        item = tuple[number, number, number] if name == "opening_minimums" else number
        return Annotated[list[item], Field(max_length=OPTION_LENGTHS[name])] | text  # type: ignore[valid-type]
    if name == "card_values":
        return _points("CardValues", ("joker", "ace", "two", "high", "low"), limits) | text
    given = number if isinstance(default, int) else _points("Bonus", ("clean", "dirty"), limits)
    return given | text | None if name in OPTION_NONE else given | text


@functools.cache
def _points(kind: str, names: tuple[str, ...], limits: tuple[int, int]) -> Any:
    """A bonus's or the card values' JSON object, every number within the option's limits (one model for the
    options that share them, as the OpenAPI document names it once)."""
    number = Annotated[StrictInt, Field(ge=limits[0], le=limits[1])]
    fields: dict[str, Any] = {name: (number, ...) for name in names}
    if kind == "Bonus":
        fields["in_hand"] = (tuple[number, number] | None, None)
    return create_model(kind, __config__=Strict, **fields)


#: The rule options a table may change, each with its type and range (every one optional).
Options = create_model(  # type: ignore[call-overload]
    "Options",
    __config__=Strict,
    **{name: (_option_type(name), Field(None)) for name in OPTION_NAMES},
)


class PersonSeat(BaseModel):
    model_config = Strict
    kind: Literal["person"]


class BotSeat(BaseModel):
    model_config = Strict
    kind: Literal["bot"]
    bot: Literal[tuple(known_kinds())] = "greedy"  # type: ignore[valid-type]


Seat = Annotated[PersonSeat | BotSeat, Field(discriminator="kind")]
Seconds = Annotated[float, Field(strict=True)]


class CreateTable(BaseModel):
    """``POST /api/tables``: a preset, options over it, the seats, and the table's pace."""

    model_config = Strict
    rules: Literal[tuple(PRESETS)] = "classic"  # type: ignore[valid-type]
    options: Options = Field(default_factory=Options)  # type: ignore[valid-type]
    seats: list[Seat] | None = Field(None, min_length=2, max_length=6)
    bot_delay: Annotated[Seconds, Field(ge=0, le=10)] = 1.0
    absent_after: Annotated[Seconds, Field(ge=1, le=3600)] = 60.0
    turn_clock: Annotated[Seconds, Field(ge=1, le=3600)] | None = None
    deal_pause: Annotated[Seconds, Field(ge=0, le=600)] = 15.0
    chat: Literal["off", "phrases", "text"] = "phrases"

    def option_values(self) -> dict[str, Any]:
        """The options given, as their JSON values (unset ones left out)."""
        return {k: v for k, v in self.options.model_dump(exclude_unset=True).items()}  # type: ignore[attr-defined]


class SitDown(BaseModel):
    """``POST /api/tables/{id}/seats/{seat}``: the name to sit under."""

    model_config = Strict
    name: DisplayName


class Seated(BaseModel):
    seat: int
    token: str


Password = Annotated[str, Field(max_length=1024)]  # its length in characters is the accounts' to check


class Credentials(BaseModel):
    """``POST /api/accounts`` (the name is a display name: one that can be read) and ``POST /api/session``."""

    model_config = Strict
    name: DisplayName
    password: Password


class PasswordChange(BaseModel):
    """``POST /api/me/password``: the password now, and the new one."""

    model_config = Strict
    password: Password
    new_password: Password


class PasswordOnly(BaseModel):
    """``DELETE /api/me``: the password, asked again."""

    model_config = Strict
    password: Password


class SeatHeld(BaseModel):
    """``POST /api/me/seats``: a seat this device holds (its token), to be bound to the signed-in account."""

    model_config = Strict
    table: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")
    seat: int = Field(ge=0, le=5)
    token: str = Field(min_length=1, max_length=64)


class BoundSeat(BaseModel):
    """A seat bound to the signed-in account at a table not yet over: the page takes it back from any device."""

    table: str
    seat: int
    name: str | None
    status: str


class BoundSeats(BaseModel):
    """``GET /api/me/seats``."""

    seats: list[BoundSeat]


def no_controls(text: str) -> str:
    """A text an operator reads in a terminal holds no control character (an escape could forge what it shows)."""
    if any(unicodedata.category(c) == "Cc" for c in text):
        raise ValueError("a control character (a line break, a tab, an escape) is not allowed here")
    return text


class BlockAsk(BaseModel):
    """``POST /api/me/blocks``: the player to block, by name."""

    model_config = Strict
    name: str = Field(min_length=1, max_length=60)


class Blocked(BaseModel):
    """A player the account blocks, and since when."""

    name: str
    since: float


class BlockList(BaseModel):
    """``GET /api/me/blocks``: the players the account blocks, the latest first."""

    blocks: list[Blocked]


class ReportAsk(BaseModel):
    """``POST /api/reports``: the player reported, by name; the table it happened at, if any; and why."""

    model_config = Strict
    name: str = Field(min_length=1, max_length=60)
    table: str | None = Field(default=None, min_length=1, max_length=24, pattern=r"^[A-Za-z0-9_-]+$")
    reason: Annotated[str, Field(min_length=1, max_length=500), AfterValidator(no_controls)]


class ReportMade(BaseModel):
    """A report kept: its number, for the operator."""

    id: int


class PasskeyOptions(BaseModel):
    """What the browser needs to make a passkey or to sign in with one (WebAuthn's options, as JSON), and the
    handle its answer comes back with."""

    handle: str
    public_key: dict[str, Any]


class PasskeyAnswer(BaseModel):
    """``POST /api/me/passkeys`` and ``POST /api/session/passkey``: the handle, and the browser's credential
    as JSON (WebAuthn's ``PublicKeyCredential.toJSON()``)."""

    model_config = Strict
    handle: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    credential: dict[str, Any]


class PasskeyInfo(BaseModel):
    """One of the account's passkeys: its id, when it was made, and when it last signed in (null: never)."""

    id: str
    created: float
    used: float | None


class PasskeyList(BaseModel):
    """``GET /api/me/passkeys``."""

    passkeys: list[PasskeyInfo]


class RatingShown(BaseModel):
    """A rating as shown: its mean, its uncertainty, and the mean less three uncertainties (the leaderboard's
    order: a rating the player has shown)."""

    rating: float
    uncertainty: float
    ordinal: float
    matches: int


class SeatPlayed(BaseModel):
    """Who sat at a seat of a finished match: a person's name, or a bot's kind."""

    name: str | None = None
    bot: str | None = None


class MatchPlayed(BaseModel):
    """A finished match in a player's history."""

    table: str
    finished: float
    rules: str
    partners: list[SeatPlayed]
    opponents: list[SeatPlayed]
    score: int | None
    others: list[int]  # the other teams' totals
    won: bool
    rated: bool
    with_bots: bool
    replay: str
    rating_change: float | None = None


class Profile(BaseModel):
    """``GET /api/players/{name}``: a player's ratings by preset family and their latest finished matches."""

    name: str
    ratings: dict[str, RatingShown]
    matches: list[MatchPlayed]


class Ranked(RatingShown):
    name: str


class Leaderboard(BaseModel):
    """``GET /api/leaderboard?rules=classic``: the players with enough rated matches, the surest strongest first."""

    rules: str
    least_matches: int
    players: list[Ranked]


class QuickAsk(BaseModel):
    """``POST /api/quick``: the preset to play, whether bots may fill the seats nobody comes to, and after how
    many seconds."""

    model_config = Strict
    rules: Literal[tuple(PRESETS)] = "classic"  # type: ignore[valid-type]
    bots: bool = True
    wait: Annotated[float, Field(ge=5, le=600)] = 20.0
    partner: str | None = Field(None, min_length=1, max_length=60)  # a friend's name: queue as a partnership


class QuickStatus(BaseModel):
    """``GET /api/quick``: waiting (for how long), or seated (the table and the seat to take)."""

    status: Literal["waiting", "seated"]
    rules: str
    bots: bool
    wait: float
    waited: float | None = None
    table: str | None = None
    seat: int | None = None
    partner: str | None = None
    partner_waiting: bool | None = None  # whether the partner named waits for this preset naming them back


class Me(BaseModel):
    """The signed-in person: their name, and the token a cookie-authenticated write sends in ``X-CSRF-Token``;
    both null for a guest."""

    name: str | None
    csrf: str | None


class Error(BaseModel):
    """Every refusal, HTTP or WebSocket: what was wrong, a code to act on, and the rule or option when one decides."""

    error: str
    code: str
    rule: str | None = None


# ------------------------------------------------------------- responses
class SeatPublic(BaseModel):
    seat: int
    kind: Literal["person", "bot"]
    name: str | None
    team: int
    bot: str | None = None
    connected: bool | None = None
    stand_in: bool | None = None  # a bot plays for the person now (absent, handed over, or the seat left free)
    handed: bool | None = None  # the person handed the seat to the bot
    left: str | None = None  # while the seat is free: the name of the person who gave it up


class RulesPublic(BaseModel):
    """A table's rules: ``data`` as records write them, ``options`` every option's value as JSON data,
    ``wilds`` the cards that play as wilds, ``preset`` the preset they start from, ``changed`` the options
    changed from it (as ``--set`` writes their values), ``words`` the same in English words."""

    name: str
    data: str | dict[str, Any]
    options: dict[str, Any]
    wilds: list[str]
    preset: str
    changed: dict[str, str]
    words: list[str]


class TableInfo(BaseModel):
    """A table's public info: what the lobby and the table page show."""

    id: str
    invite: str
    rules: RulesPublic
    seats: list[SeatPublic]
    status: Literal["open", "playing", "over", "broken"]
    totals: list[int]
    deals: int
    settings: dict[str, float | str | None]
    watchers: list[str | None] = []  # the names of who watches (null: no name given)
    rematch: str | None = None  # once the match is over: the id of its rematch, if one was asked for


class Lobby(BaseModel):
    """A page of the lobby, newest first; ``next`` fetches the following page (``null`` at the end)."""

    tables: list[TableInfo]
    next: str | None


class OptionInfo(BaseModel):
    help: str
    value: str
    limits: tuple[int, int] | None = None


class PresetInfo(BaseModel):
    help: str
    options: dict[str, str]


class RulesCatalogue(BaseModel):
    presets: dict[str, PresetInfo]
    options: dict[str, OptionInfo]
    #: Every bot kind a seat may be given: the project's own, then those of installed plugins.
    bots: list[str] = []


class Health(BaseModel):
    status: Literal["ok"]
    store: Literal["ok"]
    live_tables: int
    #: The process's name among the server's processes (the store's leases name it).
    node: str
    #: With several processes: "ok" while Redis answers, "away" while it does not; absent for a process alone.
    bus: Literal["ok", "away"] | None = None


# ------------------------------------------------------- WebSocket messages
class Join(BaseModel):
    """The first message of a connection: a seat's token (``null`` to watch) and the events already seen."""

    model_config = Strict
    type: Literal["join"]
    token: Annotated[str, Field(max_length=TOKEN_LENGTH)] | None = None
    since: Annotated[StrictInt, Field(ge=0)] = 0
    name: DisplayName | None = None  # a watcher's name, for the table's list of who watches
    same: bool = False  # state messages may leave out a part unchanged since the last one (listed in "same")


class Act(BaseModel):
    model_config = Strict
    type: Literal["action"]
    action: Annotated[str, Field(max_length=ACTION_LENGTH)]
    version: Annotated[StrictInt, Field(ge=0)]


class Next(BaseModel):
    model_config = Strict
    type: Literal["next"]


class Ping(BaseModel):
    model_config = Strict
    type: Literal["ping"]


class Explain(BaseModel):
    """Why would this action be refused now? Answered, not played: the page asks it of picked cards."""

    model_config = Strict
    type: Literal["explain"]
    action: Annotated[str, Field(max_length=ACTION_LENGTH)]


class Hint(BaseModel):
    model_config = Strict
    type: Literal["hint"]


class HandOver(BaseModel):
    """Hand the seat to the stand-in bot (``true``), or take it back (``false``)."""

    model_config = Strict
    type: Literal["hand_over"]
    bot: StrictBool


class Leave(BaseModel):
    """Give the seat up for good: it is free for another person, and played by the stand-in until one sits."""

    model_config = Strict
    type: Literal["leave"]


class Say(BaseModel):
    """A quick phrase (or emote) by id, or, where the table allows it, a line of free text."""

    model_config = Strict
    type: Literal["say"]
    phrase: Literal[PHRASES] | None = None  # type: ignore[valid-type]
    text: ChatLine | None = None


class Rematch(BaseModel):
    """Once the match is over: the same rules and seats again (``same``: you keep your seat), or seats chosen anew."""

    model_config = Strict
    type: Literal["rematch"]
    seats: Literal["same", "new"] = "same"


ClientMessage = Annotated[
    Join | Act | Next | Ping | Explain | Hint | HandOver | Leave | Say | Rematch, Field(discriminator="type")
]


def refusal(errors: list[Any]) -> str:
    """Pydantic's errors in one line: where, and what was wrong, for the first two places.

    Of a union's branches, the one the value was meant for speaks: a wrong
    type is told only when nothing more telling was found at that place.
    """
    found: dict[str, str] = {}
    for error in sorted(errors, key=lambda e: str(e.get("type", "")).endswith("_type")):
        where = _place(error.get("loc", ()))
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        found.setdefault(where, f"{where}: {message}" if where else message)
    told = list(found.values())
    more = f" (and {len(told) - 2} more)" if len(told) > 2 else ""
    return "; ".join(told[:2]) + more


def _place(loc: Any) -> str:
    """``options.cut_bonus``: the field's path, without the request's part or a union branch's name."""
    path: list[str] = []
    for part in map(str, loc):
        branch = any(mark in part for mark in "[(-") or part[:1].isupper()  # ``constrained-str``, a model's name
        if part in ("body", "query", "path") or branch or path[-1:] == [part]:
            continue
        path.append(part)
    return ".".join(path)
