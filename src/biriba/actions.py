"""Actions and their text form (``docs/notation.md``).

An :class:`Action` is a plain value.  :meth:`Action.parse` reads the text of
one action without looking at any position; a deal turns it into the
canonical action, with every default applied, by
:meth:`biriba.deal.Deal.parse_action`.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import KINDS as CARD_KINDS
from .cards import NAMES, parse_card
from .errors import NotationError
from .melds import NO_SLOT, format_placed, parse_placed

KINDS = ("draw", "take", "pass", "meld", "add", "discard")
USAGE = "actions are: draw, take, pass, meld C C C .., add N C .. [wild=low|high], discard C"


class Action(NamedTuple):
    """One action of the mover.

    ``cards`` are card codes; ``slots`` is parallel to them (the slot of a
    wild placed in a run, else -1); ``meld`` is the 0-based index of the
    team meld an ``add`` goes onto (the notation counts from 1); ``end`` is
    where a displaced wild goes (``"low"``/``"high"``, R13).
    """

    kind: str
    cards: tuple[int, ...] = ()
    slots: tuple[int, ...] = ()
    meld: int = -1
    end: str | None = None

    def __str__(self) -> str:
        kind = self.kind
        if kind == "discard":
            return f"discard {NAMES[self.cards[0]]}"
        if kind == "meld":
            return f"meld {format_placed(self.cards, self.slots)}"
        if kind == "add":
            tail = f" wild={self.end}" if self.end else ""
            return f"add {self.meld + 1} {format_placed(self.cards, self.slots)}{tail}"
        return kind

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read one action; raises :class:`NotationError`, citing the notation, if it is malformed.

        The text is read as typed; :meth:`biriba.deal.Deal.parse_action`
        makes it canonical in a position (card order, wild slots, R10/R13).

        >>> Action.parse("add 2 7s 8S wild=low")
        Action(kind='add', cards=(24, 28), slots=(-1, -1), meld=1, end='low')
        >>> str(Action.parse("meld 3h 4h jk=5h"))
        'meld 3H 4H JK=5H'
        >>> Action.parse("discard")
        Traceback (most recent call last):
        ...
        biriba.errors.NotationError: notation: discard takes exactly one card, e.g. 'discard 9C'
        """
        try:
            return cls._parse(text)
        except NotationError as exc:
            raise NotationError(f"notation: {exc}") from None

    @classmethod
    def _parse(cls, text: str) -> Action:
        words = text.split()
        if not words:
            raise NotationError(f"empty action; {USAGE}")
        kind = words[0].lower()
        args = words[1:]
        if kind in ("draw", "take", "pass"):
            if args:
                raise NotationError(f"{kind!r} takes no cards")
            return SIMPLE[kind]
        if kind == "discard":
            if len(args) != 1:
                raise NotationError("discard takes exactly one card, e.g. 'discard 9C'")
            return cls("discard", (parse_card(args[0]),), (NO_SLOT,))
        if kind == "meld":
            if not args:
                raise NotationError("meld needs its cards, e.g. 'meld 3H 4H 5H'")
            cards, slots = parse_placed(args)
            return cls("meld", tuple(cards), tuple(slots))
        if kind == "add":
            if len(args) < 2 or not args[0].isdigit() or int(args[0]) < 1:
                raise NotationError("add needs a meld number from 1 and cards, e.g. 'add 2 7S'")
            end = None
            rest = []
            for word in args[1:]:
                if word.lower().startswith("wild="):
                    end = word[5:].lower()
                    if end not in ("low", "high"):
                        raise NotationError(f"{word!r}: write wild=low or wild=high")
                else:
                    rest.append(word)
            if not rest:
                raise NotationError("add needs at least one card")
            cards, slots = parse_placed(rest)
            return cls("add", tuple(cards), tuple(slots), int(args[0]) - 1, end)
        shown = words[0] if len(words[0]) <= 12 else words[0][:12] + "..."
        raise NotationError(f"unknown action {shown!r}; {USAGE}")


DRAW = Action("draw")
TAKE = Action("take")
PASS = Action("pass")
SIMPLE = {"draw": DRAW, "take": TAKE, "pass": PASS}
#: ``DISCARDS[code]``: the discard of that card, made once (listing legal actions is the hot path).
DISCARDS = tuple(Action("discard", (code,), (NO_SLOT,)) for code in range(CARD_KINDS))
