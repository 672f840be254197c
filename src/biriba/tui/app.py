"""The full-screen terminal table, drawn in place with Textual.

Everything needed to move is on one screen, at 80x24 and up: every team's
melds (in columns when the terminal is wide enough for them, else a team
under the other), the pile, the stock, the packets and
reserves, every player's card count, the trump, the deal's points on the
table and the match score, everything since your previous turn, and your
hand, where you pick cards with the arrow keys and space (or the mouse) and
play them with one key.  Typing the notation still works (``:`` or tab).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer, Input, Static

from .. import rulebook
from ..actions import Action
from ..errors import BiribaError
from ..terms import Phase
from ..views import PlayerView
from .board import MeldsBoard
from .dialogs import Choice, Dialog, RuleBook, path_lines
from .saves import play_command
from .session import YOU, Line, Session
from .sheets import deal_result, score_sheet
from .words import ENDED_WORDS, Words, help_text

CSS = """
Screen { layout: vertical; }
#header { dock: top; height: auto; max-height: 2; background: $primary-background; color: $text; }
#melds { height: auto; min-height: 3; max-height: 70%; padding: 0 1; }
#info { height: auto; max-height: 3; }
#storybox { height: 1fr; min-height: 3; border-top: solid $primary-background-lighten-2; border-title-align: left;
            border-title-color: $text; }
#opening { height: auto; }
#story { height: 1fr; }
#bottom { dock: bottom; height: auto; }
#hand { height: auto; min-height: 2; max-height: 6; border-top: solid $primary-background-lighten-2; }
#status { height: auto; max-height: 3; }
#command { height: 1; border: none; padding: 0; }
#bottom Footer { dock: none; }
#too-small { display: none; width: 100%; height: 100%; content-align: center middle; text-align: center; }
Screen.too-small > * { display: none; }
Screen.too-small > #too-small { display: block; }
ModalScreen { align: center middle; }
#dialog { width: 90%; max-width: 100; height: auto; max-height: 90%; border: thick $primary; padding: 0 1;
          background: $surface; }
"""

#: The least terminal the table fits in: below it, the screen says so instead of losing the hand.
MIN_WIDTH, MIN_HEIGHT = 72, 20


class HandView(Widget, can_focus=True):
    """Your hand by suit: a cursor, the cards you picked, the cards you just drew or took."""

    DEFAULT_CSS = "HandView { height: auto; }"

    def __init__(self, app_: BiribaApp, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.game = app_
        self.cursor = 0
        self.picked: set[int] = set()  # indexes into the hand
        self.places: list[tuple[int, int, int]] = []  # (row, start, end) of each card

    def cards(self) -> list[int]:
        """The hand in display order (by suit, the wilds last)."""
        words = self.game.session.words
        return [c for _, group in words.hand_groups(self.game.session.view().hand) for c in group]

    def render(self) -> Text:
        session = self.game.session
        words = session.words
        cards = self.cards()
        self.cursor = min(self.cursor, max(len(cards) - 1, 0))
        self.picked = {i for i in self.picked if i < len(cards)}
        fresh = session.fresh.copy()
        self.places = self.card_places(cards, max(self.size.width, 20))
        text = Text(f"Your hand ({len(cards)}):", style="bold")
        row, col = 0, text.cell_len
        for index, code in enumerate(cards):
            face = words.card(code, fresh=fresh[code] > 0)
            if fresh[code]:
                fresh[code] -= 1
            if index in self.picked:
                face.stylize("on dark_goldenrod")
            if index == self.cursor and self.has_focus:
                face.stylize("underline")
            place_row, start, _end = self.places[index]
            if place_row != row:
                text.append("\n")
                row, col = place_row, 0
            text.append(" " * (start - col)).append_text(face)
            col = start + face.cell_len
        if not cards:
            text.append(" empty", style="dim")
        return text

    def card_places(self, cards: list[int], width: int) -> list[tuple[int, int, int]]:
        """Where each card goes: (row, start, end); a space between cards, two between suits."""
        words = self.game.session.words
        wilds = self.game.session.match.rules.wild_kinds
        places = []
        row, col = 0, len(f"Your hand ({len(cards)}):")
        previous = None
        for code in cards:
            group = "wild" if code in wilds else code & 3
            gap = 2 if previous is not None and group != previous else 1
            previous = group
            size = words.card(code).cell_len
            if col + gap + size > width:
                row, col, gap = row + 1, 0, 0
            places.append((row, col + gap, col + gap + size))
            col += gap + size
        return places

    def rows(self, width: int) -> int:
        """The lines the hand takes at ``width``."""
        places = self.card_places(self.cards(), width)
        return places[-1][0] + 1 if places else 1

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.rows(max(width, 20))

    def on_click(self, event: events.Click) -> None:
        for index, (row, start, end) in enumerate(self.places):
            if event.y == row and start <= event.x < end:
                self.cursor = index
                self.toggle(index)
                return

    def toggle(self, index: int) -> None:
        self.picked ^= {index}
        self.refresh()

    def selected(self) -> list[int]:
        cards = self.cards()
        return sorted(cards[i] for i in self.picked if i < len(cards))

    def move(self, step: int) -> None:
        count = len(self.cards())
        if count:
            self.cursor = (self.cursor + step) % count
            self.refresh()

    def clear(self) -> None:
        self.picked.clear()
        self.refresh()


def by_turn(words: Words, lines: Sequence[Line]) -> list[Text]:
    """The story a turn a line: a player's draw, melds and discard joined after their name once,
    so that at 80x24 every player's turn since yours is in sight."""
    turns: list[Text] = []
    seat = None  # the seat whose turn the last line is, if the next of theirs may join it
    for line in lines:
        name = f"{words.seat_name(line.seat)}: "
        named = line.text.plain.startswith(name)
        if line.seat == seat and named:
            turns[-1].append("; ").append_text(line.text[len(name) :])
        else:
            turns.append(line.text.copy())
        seat = line.seat if named else None
    return turns


class BiribaApp(App[str]):
    """The table, drawn in place; the bots play at a pace you can follow."""

    CSS = CSS
    TITLE = "Biriba"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "move", show=False),
        Binding("right", "move(1)", "move", show=False),
        Binding("space", "pick", "pick", show=False),  # the status line says it
        Binding("escape", "clear", "clear", show=False),
        Binding("d", "play('draw')", "draw"),
        Binding("t", "play('take')", "take"),
        Binding("p", "play('pass')", "pass", show=False),
        Binding("m", "meld", "meld"),
        Binding("a", "add", "add"),
        Binding("x", "discard", "discard"),
        Binding("h", "hint", "hint"),
        Binding("l", "log", "log"),
        Binding("s", "score", "score"),
        Binding("r", "rules", "rules", show=False),  # the help and every refusal say it
        Binding("v", "melds", "every meld", show=False),
        Binding("question_mark", "help", "help"),
        Binding("colon,tab", "type", "type", key_display=":", show=False),
        Binding("q", "quit_game", "quit"),
        Binding("ctrl+c", "interrupt", "stop", show=False, priority=True),
        *(Binding(str(n), f"number({n})", show=False) for n in range(10)),
        Binding("enter", "number_done", show=False),
    ]

    def __init__(self, session: Session, delay: float = 0.4) -> None:
        super().__init__()
        self.session = session
        self.delay = delay
        self.adding = False
        self.typed = ""  # the digits of a meld's number after a
        self.busy = False  # a dialog or the bots' moves are on
        self.message = Text("")
        self.focused_before: Widget | None = None  # what had the focus when the window became too small

    # ------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(id="header")
        yield MeldsBoard(self, id="melds")
        yield Static(id="info")
        with Vertical(id="storybox"):
            yield Static(id="opening")
            with VerticalScroll(id="story"):
                yield Static(id="story-text")
        with Vertical(id="bottom"):  # docked: the hand, the status and the keys are never pushed off
            yield HandView(self, id="hand")
            yield Static(id="status")
            yield Input(
                placeholder=": type an action, e.g. meld 3H 4H 5H (enter plays it, esc goes back)", id="command"
            )
            yield Footer(compact=True)
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self.query_one(HandView).focus()
        self.session.start_deal()
        self.redraw()
        self.advance()

    @property
    def hand(self) -> HandView:
        return self.query_one(HandView)

    def redraw(self) -> None:
        session = self.session
        words = session.words
        view = session.view()
        self.query_one("#header", Static).update(self.header_text(words))
        self.query_one(MeldsBoard).refresh(layout=True)  # a new meld may need a new line
        self.query_one("#info", Static).update(self.info_text(view, words))
        opening = self.opening()  # in sight the whole deal: on the story's top line where it fits
        on_line = self.opening_fits(opening, self.size.width)
        self.query_one("#storybox").border_title = Text(" ").append_text(opening).append(" ") if on_line else None
        self.query_one("#opening", Static).update(opening)
        self.query_one("#opening", Static).display = not on_line
        self.query_one("#story-text", Static).update(self.story(words))
        self.call_after_refresh(self.query_one("#story", VerticalScroll).scroll_end, animate=False)
        self.hand.refresh()
        self.query_one("#status", Static).update(self.status_text())

    def story(self, words: Words) -> Text:
        """Everything since your previous turn: a line an action where they fit the story's room, else a line a
        turn, cut to a row each if need be (``l`` tells them whole), so that every turn stays in sight."""
        told = [line for line in self.session.since_your_turn() if line.seat >= 0]
        box = self.query_one("#story", VerticalScroll).size
        width = max(box.width, 20)
        story = Text("\n").join([line.text for line in told])
        if len(story.wrap(self.console, width)) <= box.height:
            return story
        turns = by_turn(words, told)
        story = Text("\n").join(turns)
        if len(story.wrap(self.console, width)) <= box.height:
            return story
        for turn in turns:
            turn.truncate(width, overflow="ellipsis")
        return Text("\n").join(turns)

    def on_resize(self, event: events.Resize) -> None:
        """Below the least size the table needs, say so; else the story is told anew for its new room."""
        table = self.screen_stack[0]  # a dialog may be on top: the table under it says so too
        small = self.too_small(event.size)  # the app's own size may not be the new one yet
        if small and not table.has_class("too-small"):
            self.focused_before = table.focused  # hidden, it loses the focus: given back once in sight again
        elif not small and table.has_class("too-small"):
            self.call_after_refresh((self.focused_before or self.hand).focus)
        table.set_class(small, "too-small")
        self.query_one("#too-small", Static).update(
            f"This window is {event.size.width}x{event.size.height}.\nThe table needs {MIN_WIDTH}x{MIN_HEIGHT}"
            " at least:\nmake the window larger\nor the font smaller.\n\nq quits (the match is saved)."
        )
        if self.session.deal is not None:
            self.call_after_refresh(self.redraw)

    def too_small(self, size: Size | None = None) -> bool:
        """Is the window (``size``, else the app's) below the least the table fits in?"""
        width, height = size or self.size
        return width < MIN_WIDTH or height < MIN_HEIGHT

    def meld_rows(self) -> int:
        """The rows the melds may take, so that the rest of the table keeps the least it needs in sight."""
        width = max(self.size.width, 20)
        words = self.session.words
        header = len(self.header_text(words).wrap(self.console, width))
        info = min(3, len(self.info_text(self.session.view(), words).wrap(self.console, width)))
        hand = min(6, self.hand.rows(width))
        opening = self.opening()
        opening_rows = 0 if self.opening_fits(opening, width) else len(opening.wrap(self.console, width))
        story = 1 + opening_rows + self.session.match.rules.seats  # its line, a row a turn since yours, your draw
        status = min(3, len(self.status_text().wrap(self.console, width)))
        # the hand's line, the status, the command line, the keys
        return max(4, self.size.height - header - info - story - (1 + hand) - status - 2)

    def opening(self) -> Text:
        """The deal's opening: where you sit, who dealt, who played first, the cut."""
        return Text(" ").join(line.text for line in self.session.deal_lines() if line.seat < 0)

    @staticmethod
    def opening_fits(opening: Text, width: int) -> bool:
        """Does the opening fit on the story's top line (between its corners and a space each side)?"""
        return opening.cell_len <= width - 4

    def header_text(self, words: Words) -> Text:
        """The rules, the deal and the match score: with the seats' short names if the full ones do not fit,
        on a second line if even those do not."""
        match = self.session.match
        for short in (False, True):
            header = Text(f" {words.rules_name()}  Deal {len(match.deals)}  ", style="bold")
            header.append(words.match_line(match.totals, compact=True, short=short))
            if header.cell_len <= self.size.width:
                return header
        scores, _, goal = header.plain.rpartition(" (")  # the goal whole on the second line
        return Text(f"{scores}\n ({goal}", style="bold")

    def info_text(self, view: PlayerView, words: Words) -> Text:
        text = Text(f"Stock {view.stock_count}  ")
        text.append_text(words.pile(view.discard))
        text.append(f"  Packets {len(view.packet_sizes)}")
        if view.trump >= 0:
            text.append(f"  Trump {words.suit(view.trump)}", style="bold")
        name = words.initials if view.rules.seats > 4 else words.short_name
        counts = "  ".join(f"{name(s)} {n}" for s, n in enumerate(view.sizes) if s != YOU)
        text.append(f"  Cards: {counts}")
        text.append("\n")
        if view.ended_by is not None:
            text.append(f"Turn {view.turn}: the deal is over ({ENDED_WORDS[view.ended_by]})", style="bold")
        elif view.to_move == YOU:
            can = self.session.legal_words()
            either = ", ".join(can[:-1]) + " or " + can[-1] if len(can) > 1 else "".join(can) or "play"
            text.append(f"Turn {view.turn}: You to {either}")
        else:
            doing = "draw or take" if view.phase == Phase.DRAW else "play"
            text.append(f"Turn {view.turn}: {words.seat_name(view.to_move)} to {doing}")
        for warning in (words.opening_minimum(view), words.idle_warning(view)):
            if warning:
                text.append("  " + warning, style="yellow")
        text.append_text(words.kept_single(view))
        return text

    def status_text(self) -> Text:
        if self.message:
            return self.message
        if self.adding:
            return Text("Add to which of your melds? Press its number (escape: no).", style="bold")
        if self.session.your_turn:
            words = self.session.legal_words()
            return Text(f"Your move: {', '.join(words)}.  space picks a card; ? help", style="bold")
        return Text("")

    def refused(self, error: BiribaError) -> None:
        """A refusal in the status line: what was wrong and its rule, and the key that tells the rule."""
        told = self.session.words.told(str(error))
        self.say(f"Not allowed: {told}" + ("  (r: the rule)" if rulebook.cited(told) else ""))

    def say(self, message: str, style: str = "bold red") -> None:
        self.message = Text(message, style=style)
        self.query_one("#status", Static).update(self.message)

    # -------------------------------------------------------------- flow
    def advance(self) -> None:
        """Let the bots move, one at a time at the game's pace, until you are to act or the deal ends."""
        session = self.session
        deal = session.deal
        if deal is None:
            return
        if deal.is_over:
            self.busy = True
            self.call_later(self.deal_over)
            return
        if session.your_turn:
            self.busy = False
            self.redraw()
            return
        self.busy = True
        if self.delay:
            self.set_timer(self.delay, self.bot_move)
        else:
            self.call_later(self.bot_move)

    def bot_move(self) -> None:
        """The bot to move thinks in a thread (a hard bot searches), so the screen stays live meanwhile."""
        self.run_worker(self._bot_think, thread=True, group="bot")

    def _bot_think(self) -> None:
        self.call_from_thread(self._bot_played, self.session.bot_choice())

    def _bot_played(self, choice: tuple[int, Action] | None) -> None:
        if choice is not None:
            self.session.play_bot(*choice)
        self.redraw()
        self.advance()

    def deal_over(self) -> None:
        session = self.session
        result = session.last_result()
        assert result is not None
        self.redraw()
        view = session.view()
        lines: list[object] = [deal_result(session.words, result, view, len(session.match.deals), session.match.totals)]
        match = session.match
        if match.is_over:
            lines.append(Text(self.match_verdict(), style="bold green"))
            self.push_screen(
                Dialog(Group(*lines), hint="enter or escape: leave the table"),  # type: ignore[arg-type]
                lambda _answer: self.exit("over"),
            )
            return
        hint = "y or enter: next deal   n or escape: stop here (the match is saved)"

        def next_deal(answer: bool | None) -> None:
            if not answer:
                self.exit("quit")
                return
            session.start_deal()
            self.hand.clear()
            self.redraw()
            self.advance()

        self.push_screen(Dialog(Group(*lines), question=True, hint=hint), next_deal)  # type: ignore[arg-type]

    def match_verdict(self) -> str:
        match = self.session.match
        words = self.session.words
        ours = match.rules.team_of[YOU]
        winners = match.winners or ()
        if ours in winners:
            return "You win the match!" if len(winners) == 1 else "You share the win!"
        return f"{' and '.join(words.team_label(t) for t in winners)} win the match."

    # ----------------------------------------------------------- playing
    def attempt(self, action: Action | str) -> None:
        """Play an action of yours, asking first when it is one players regret; refusals name the rule."""
        session = self.session
        if self.busy or not session.your_turn:
            self.say("Wait for your turn.")
            return
        try:
            parsed = session.parse(action) if isinstance(action, str) else action
            question = session.needs_confirm(parsed)
        except BiribaError as exc:
            self.refused(exc)
            return
        if question:
            self.push_screen(Dialog(question, question=True), lambda yes: self.play_now(parsed) if yes else None)
            return
        self.play_now(parsed)

    def play_now(self, action: Action) -> None:
        try:
            self.session.play(action)
        except BiribaError as exc:
            self.refused(exc)
            return
        self.message = Text("")
        self.adding = False
        self.hand.clear()
        self.redraw()
        self.advance()

    def add_to(self, number: int) -> None:
        cards = self.hand.selected()
        if not cards:
            self.say("Pick the cards to add first (space), then press a, then the meld's number.")
            return
        self.adding = False
        self.choose_then_attempt(Action("add", tuple(cards), (-1,) * len(cards), number - 1))

    # ----------------------------------------------------------- actions
    def action_move(self, step: int) -> None:
        self.hand.move(step)

    def action_pick(self) -> None:
        self.message = Text("")
        self.hand.toggle(self.hand.cursor)
        self.query_one("#status", Static).update(self.status_text())

    def action_clear(self) -> None:
        self.adding = False
        self.message = Text("")
        self.hand.clear()
        self.query_one("#status", Static).update(self.status_text())

    def action_play(self, word: str) -> None:
        self.attempt(word)

    def action_meld(self) -> None:
        cards = self.hand.selected()
        if not cards:
            self.say("Pick the cards of the meld first: arrows to move, space to pick.")
            return
        self.choose_then_attempt(Action("meld", tuple(cards), (-1,) * len(cards)))

    def choose_then_attempt(self, action: Action) -> None:
        """Play the meld or add of the picked cards; where a wild may stand (or go) in several places, ask where."""
        options = [
            legal
            for legal in self.session.legal()
            if (legal.kind, legal.meld, sorted(legal.cards)) == (action.kind, action.meld, sorted(action.cards))
        ]
        if len(options) < 2:
            self.attempt(options[0] if options else action)  # the one way, or the engine's refusal
            return
        words = self.session.words
        options = options[:9]  # a digit each (no hand makes more)
        shown = []
        for option in options:
            text = words.cards(option.cards, option.slots)
            if option.end:
                text.append(f"  (the wild it replaces goes {option.end})")
            shown.append(text)
        title = "Where does the wild go?" if action.kind == "meld" else f"How do they join meld {action.meld + 1}?"
        choice = Choice(title, options, shown)
        self.push_screen(choice, lambda number: self.attempt(options[number - 1]) if number else None)

    def action_add(self) -> None:
        melds = self.session.view().melds[self.session.view().rules.team_of[YOU]]
        if not melds:
            self.say("Your team has no meld to add to yet.")
            return
        if not self.hand.selected():
            self.say("Pick the cards to add first (space), then press a, then the meld's number.")
            return
        if len(melds) == 1:
            self.add_to(1)
            return
        self.typed = ""
        self.adding = True
        self.message = Text("")
        self.query_one("#status", Static).update(self.status_text())

    def action_number(self, number: int) -> None:
        """A meld's number after ``a``: two digits once the team has ten melds or more."""
        if not self.adding:
            return
        self.typed += str(number)
        count = len(self.session.view().melds[self.session.view().rules.team_of[YOU]])
        if int(self.typed) * 10 > count or len(self.typed) == 2:
            chosen, self.typed = int(self.typed), ""
            self.add_to(chosen)
        else:
            self.say(f"Meld {self.typed}... (another digit, or enter)", style="bold")

    def action_number_done(self) -> None:
        if self.adding and self.typed:
            chosen, self.typed = int(self.typed), ""
            self.add_to(chosen)

    def action_discard(self) -> None:
        cards = self.hand.selected()
        if len(cards) != 1:
            self.say("Pick the one card to discard (space), then press x.")
            return
        self.attempt(Action("discard", (cards[0],), (-1,)))

    def action_hint(self) -> None:
        if not self.session.legal():
            self.say("No hint: it is not your turn.", style="bold cyan")
            return
        self.say("Hint: thinking...", style="bold cyan")
        self.run_worker(self._hint, thread=True, group="hint", exclusive=True)

    def _hint(self) -> None:
        """The hard bot's search for a hint, in a thread (up to a second and a half)."""
        asked = self._moment()
        hint = self.session.hint()
        text = self.session.words.told(f"Hint: {hint} ({self.session.hint_reason()})")
        self.call_from_thread(lambda: self.say(text, "bold cyan") if self._moment() == asked else None)

    def _moment(self) -> tuple[int, int]:
        """Where the match stands (deals, actions): a hint is shown only if nobody has moved since."""
        deals = self.session.table.match.deals
        return len(deals), len(deals[-1].history) if deals else 0

    def action_log(self) -> None:
        lines = [line.text for line in self.session.deal_lines()] or [Text("Nothing yet.")]
        self.push_screen(Dialog(Group(Text("This deal so far", style="bold"), *lines)))

    def action_melds(self) -> None:
        """Every team's melds in full, for a table too crowded to show them all at once."""
        session = self.session
        words = session.words
        view = session.view()
        parts: list[Text] = []
        for team in words.team_order():
            parts.append(Text(f"{words.team_label(team)}  {words.table_points(view, team)} pts", style="bold"))
            for index, meld in enumerate(view.melds[team], 1):
                parts.append(Text(f"  {index}. ").append_text(words.meld(meld)).append(f"  {words.meld_state(meld)}"))
            if not view.melds[team]:
                parts.append(Text("  no melds", style="dim"))
        self.push_screen(Dialog(Group(*parts)))

    def action_rules(self) -> None:
        """The table's rules and the rule book; after a refusal, the rule it named first."""
        self.push_screen(RuleBook(self.session.match.rules, rulebook.cited(self.message.plain)))

    def action_score(self) -> None:
        self.push_screen(Dialog(score_sheet(self.session.words, self.session.score_sheet())))

    def action_help(self) -> None:
        self.push_screen(Dialog(Text.from_markup(help_text(keys=True))))

    def action_type(self) -> None:
        self.query_one("#command", Input).focus()

    def action_quit_game(self) -> None:
        width = min(100, self.size.width * 9 // 10) - 6  # the dialog's text, inside its frame and scroll bar
        path = "\n".join(path_lines(str(self.session.save_path), width))
        question = f"Quit now?\n\nThe match is saved in\n{path}\n'{play_command('--resume')}' goes on."
        self.push_screen(Dialog(question, question=True), lambda yes: self.exit("quit") if yes else None)

    def action_interrupt(self) -> None:
        self.exit("interrupted")

    # ----------------------------------------------------- the command line
    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip().lstrip(":").strip()
        event.input.value = ""
        self.hand.focus()
        command = text.lower()
        commands = {
            "help": self.action_help,
            "?": self.action_help,
            "log": self.action_log,
            "score": self.action_score,
            "hint": self.action_hint,
            "quit": self.action_quit_game,
            "q": self.action_quit_game,
            "pile": self.show_pile,
            "legal": self.show_legal,
            "rules": self.action_rules,
        }
        if not text:
            return
        if command in commands:
            commands[command]()
            return
        answer = rulebook.asked(command)
        if answer is not None:
            self.push_screen(Dialog(Text(answer)))
            return
        before = len(self.session.lines)
        self.attempt(text)
        if len(self.session.lines) == before and not isinstance(self.screen, Dialog):  # refused: keep it to mend
            event.input.value = text
            event.input.focus()

    def on_key(self, event: events.Key) -> None:
        command = self.query_one("#command", Input)
        if event.key == "escape" and command.has_focus:
            command.value = ""
            self.hand.focus()
            event.stop()

    def show_pile(self) -> None:
        view = self.session.view()
        self.push_screen(Dialog(self.session.words.pile(view.discard, full=True)))

    def show_legal(self) -> None:
        actions = sorted(str(a) for a in self.session.legal())
        body = Text(f"{len(actions)} legal actions:\n" + "\n".join(actions))
        self.push_screen(Dialog(body))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys act on the table only while it is in sight and the command line is not being typed in."""
        if action in ("interrupt", "quit_game"):
            return True
        typing = bool(self.query("#command")) and self.query_one("#command", Input).has_focus
        return not typing and not self.too_small()  # nothing is played unseen


__all__ = ["BiribaApp"]
