"""One person's match at the terminal: the table, the bots, the save file, the story so far.

Both faces of the terminal game (the full-screen table and the line mode)
drive a :class:`Session`: it plays the person's actions and the bots' at a
:class:`~biriba.table.Table`, saves after every action, and keeps the lines
that tell what happened, so a screen can show everything since the
person's previous turn.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text

from ..actions import Action
from ..bots import TABLE_THINK_MS, SearchBot, table_bot
from ..deal import Deal
from ..errors import NotationError
from ..match import Match
from ..records import load_json
from ..replay import load_match
from ..rules import Rules
from ..scoring import DealResult
from ..table import Event, Table
from ..terms import Ending, Phase, Pickup
from ..views import PlayerView
from .saves import SaveError, autosave_path, check_save_path, remember, write_atomically
from .words import KIND_WORDS, SEAT_NAMES, Words

YOU = 0
#: The longest line read as an action (a meld or an add holds at most 13 cards).
LINE_LIMIT = 200
#: The one-letter actions, as the full-screen table's keys: ``x 9C`` discards the 9C.
SHORT_WORDS = {"d": "draw", "t": "take", "p": "pass", "m": "meld", "a": "add", "x": "discard"}


@dataclass
class Line:
    """One line of the story: the event it tells and its words."""

    number: int
    deal: int
    text: Text
    seat: int = -1


@dataclass
class Session:
    """A match between you (seat 0) and bots, saved after every action."""

    table: Table
    words: Words
    save_path: Path
    lines: list[Line] = field(default_factory=list)
    mark: int = 0  # the first event you have not seen at your last turn
    mark_line: int = 0  # after a resume: the first line you had not seen
    fresh: Counter[int] = field(default_factory=Counter)  # cards you drew or took this turn
    hinter: SearchBot = field(default_factory=lambda: SearchBot(0, think_ms=1500))

    # --------------------------------------------------------- starting
    @classmethod
    def new(
        cls,
        rules: Rules,
        bot_kinds: Sequence[str],
        seed: str | int | None = None,
        name: str = "You",
        save: Path | None = None,
        force: bool = False,
        plain: bool = False,
        think_ms: float = TABLE_THINK_MS,
    ) -> Session:
        """A new match; checks the save file first (:class:`SaveError` says what is wrong).

        ``think_ms``: the longest a hard bot thinks per decision.
        """
        seed = seed if seed is not None else random.randrange(2**63)
        if save is not None:
            check_save_path(save, force)
        match = Match(rules, [name, *SEAT_NAMES[rules.seats][1:]], seed=seed)
        session = cls._at_table(match, bot_kinds, save or autosave_path(), plain, think_ms)
        session.save()
        remember(session.save_path)
        return session

    @classmethod
    def resume(
        cls, path: Path, bot_kinds: Sequence[str], plain: bool = False, think_ms: float = TABLE_THINK_MS
    ) -> Session:
        """The match saved in ``path``, replayed to where it stopped."""
        match = load_match(load_json(path))
        session = cls._at_table(match, bot_kinds, path, plain, think_ms)
        session.retell()
        return session

    def retell(self) -> None:
        """Tell the current deal again from its start (a resumed match has no story yet)."""
        deal = self.match.current
        if deal is None or deal.deck is None:
            return
        again = Deal(deal.deck, deal.dealer, deal.rules, deal.max_turns)
        again.match_scores = deal.match_scores
        number = len(self.match.deals)
        self.lines.append(Line(-1, number, Text(self.words.deal_start(again.view_for(YOU), number))))
        for count, (seat, action) in enumerate(deal.history):
            outcome = again.apply(action, check=False)
            self.lines.append(Line(-1, number, self.words.describe(again.view_for(YOU), outcome.seen_by(YOU)), seat))
            if seat == YOU and (again.to_move != YOU or again.is_over):
                self.mark_line = count + 2  # the lines after your last finished turn
        self.mark = -1  # count lines, not events, until your next turn ends

    @classmethod
    def _at_table(cls, match: Match, bot_kinds: Sequence[str], save: Path, plain: bool, think_ms: float) -> Session:
        seats = match.rules.seats
        agents = [None] + [
            table_bot(bot_kinds[(s - 1) % len(bot_kinds)], f"{match.seed}/bot/{s}", think_ms) for s in range(1, seats)
        ]
        return cls(Table(match, agents), Words(match.rules, plain), save)

    # ------------------------------------------------------------ state
    @property
    def match(self) -> Match:
        return self.table.match

    @property
    def deal(self) -> Deal | None:
        return self.table.deal

    def view(self) -> PlayerView:
        deal = self.deal
        assert deal is not None, "no deal yet"
        return deal.view_for(YOU)

    @property
    def your_turn(self) -> bool:
        return self.table.waiting_for == YOU

    def legal(self) -> list[Action]:
        deal = self.match.current
        return list(deal.legal_actions()) if deal is not None and deal.to_move == YOU else []

    def legal_words(self) -> list[str]:
        """The kinds of action you may play now, in the order of a turn (for the prompt)."""
        kinds = {a.kind for a in self.legal()}
        return [word for kind, word in KIND_WORDS.items() if kind in kinds]

    def prompt(self) -> str:
        words = self.legal_words()
        return f"Your move ({', '.join(words)})" if words else "Your move"

    def since_your_turn(self) -> list[Line]:
        """Everything that happened since your previous turn (this deal's start at the latest)."""
        if self.mark < 0:  # told again after a resume: count the lines
            return self.lines[self.mark_line :]
        return [line for line in self.lines if line.number >= self.mark]

    def deal_lines(self, number: int | None = None) -> list[Line]:
        """The whole story of a deal (the current one by default)."""
        number = number if number is not None else len(self.match.deals)
        return [line for line in self.lines if line.deal == number]

    def score_sheet(self) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
        """Each finished deal: its number, the team scores, the running totals."""
        rows = []
        totals = [0] * len(self.match.rules.teams)
        for number, deal in enumerate(self.match.deals, 1):
            if deal.is_over:
                scores = deal.result().team_scores
                totals = [t + s for t, s in zip(totals, scores)]
                rows.append((number, scores, tuple(totals)))
        return rows

    def last_result(self) -> DealResult | None:
        deal = self.deal
        return deal.result() if deal is not None and deal.is_over else None

    # ---------------------------------------------------------- playing
    def start_deal(self) -> Event | None:
        """Deal the next hand if it is time to; tells it."""
        if not self.table.needs_deal:
            return None
        event = self.table.start_deal()
        self.mark = event.number
        self.fresh.clear()
        self.lines.append(Line(event.number, event.deal, Text(self.words.deal_start(self.view(), event.deal))))
        self.save()
        return event

    def parse(self, text: str) -> Action:
        """Your typed action in the notation (commas separate too; ``x 9C``, ``m ...``, ``a 2 ...`` and ``d``,
        ``t``, ``p`` as the keys of the full screen), canonical."""
        deal = self.match.current
        if deal is None:
            raise NotationError("no deal is in progress")
        line = " ".join(text.replace(",", " ").split())
        if len(line) > LINE_LIMIT:
            raise NotationError(f"notation: an action is at most {LINE_LIMIT} characters, this line has {len(line)}")
        first, _, rest = line.partition(" ")
        word = SHORT_WORDS.get(first.lower(), first)
        return deal.parse_action(f"{word} {rest}" if rest else word)

    def needs_confirm(self, action: Action) -> str | None:
        """A question to ask before a move players often regret: the last card discarded without going out,
        when adding it to a meld instead would take the reserve and play on (no question when it would not)."""
        deal = self.match.current
        if deal is None or action.kind != "discard" or deal.sizes[YOU] != 1:
            return None
        if not any(other.kind in ("meld", "add") for other in deal.legal_actions()):
            return None
        trial = deal.clone()
        outcome = trial.apply(action)
        if outcome.ended == Ending.CLOSURE:
            return None
        if outcome.reserve == Pickup.DISCARD:
            return (
                "Discarding your last card takes your reserve packet, but you play it only next turn"
                " (adding it to a meld instead would let you play on now). Discard it?"
            )
        return None

    def play(self, action: Action | str) -> Event:
        """Play your action (checked); tells it and saves."""
        event = self.table.play(YOU, self.parse(action) if isinstance(action, str) else action)
        self._told(event)
        return event

    def step(self) -> Event | None:
        """One bot action, if a bot is to move; tells it and saves."""
        choice = self.bot_choice()
        return self.play_bot(*choice) if choice is not None else None

    def bot_choice(self) -> tuple[int, Action] | None:
        """The bot to move and its choice, not yet played: a search takes a while, so a screen may
        ask for it in a thread and play it (:meth:`play_bot`) on its own."""
        return self.table.choice()

    def play_bot(self, seat: int, action: Action) -> Event:
        """Play a bot's choice (checked like any action); tells it and saves."""
        event = self.table.play(seat, action)
        self._told(event)
        return event

    def hint(self) -> Action | None:
        """The hard bot's choice for you (:meth:`hint_reason` says why)."""
        legal = self.legal()
        return self.hinter.choose(self.view(), legal) if legal else None

    def hint_reason(self) -> str:
        """One line on the last hint: its value against the next best, or that it was the only move."""
        last = self.hinter.last
        return last.reason() if last is not None else "the only move, or the clear one"

    def save(self) -> None:
        try:
            write_atomically(self.save_path, self.match.to_record())
        except OSError as exc:
            raise SaveError(f"cannot save the match in {self.save_path}: {exc.strerror}") from None

    def _told(self, event: Event) -> None:
        outcome = event.outcome
        assert outcome is not None
        view = self.view()
        seen = outcome.seen_by(YOU)
        if outcome.seat == YOU:
            if seen.action.kind == "draw" and seen.drawn >= 0:
                self.fresh[seen.drawn] += 1
            elif seen.action.kind == "take":
                self.fresh.update(seen.taken)
            if view.to_move != YOU or view.ended_by is not None:  # your turn is over
                self.fresh.clear()
                self.mark = event.number + 1
        self.lines.append(Line(event.number, event.deal, self.words.describe(view, seen), outcome.seat))
        self.save()

    def is_fresh_turn(self) -> bool:
        """Has your turn not begun yet (no draw or take)?"""
        deal = self.match.current
        return deal is not None and deal.to_move == YOU and deal.phase == Phase.DRAW


__all__ = ["YOU", "Line", "SaveError", "Session"]
