"""The line mode of the terminal game: actions typed at a prompt, the table printed as plain lines.

For screen readers, logs, pipes and small terminals.  The whole table is
printed when your turn comes; within the turn, only what changed (your
action and your hand); ``table`` prints it all again.  With ``plain`` it
is plain ASCII: no colours, no suit symbols.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from .. import rulebook
from ..errors import BiribaError
from ..melds import Meld
from ..scoring import DealResult
from ..terms import Phase
from ..views import PlayerView
from .saves import resume_command
from .session import YOU, Session
from .sheets import deal_result, score_sheet, table_rules
from .words import ENDED_WORDS, Words, help_text


class LineGame:
    """The match at a prompt: render, read a command, let the bots play."""

    def __init__(self, session: Session, console: Console, delay: float = 0.4, plain: bool = False) -> None:
        self.session = session
        self.console = console
        self.delay = delay
        self.plain = plain
        self.words = session.words
        self.box = box.ASCII if plain else box.ROUNDED
        self.shown = 0  # the story lines printed so far
        self.turn_shown: tuple[int, int] | None = None  # the (deal, turn) whose whole table was printed
        self.melds_shown: list[Meld] = []  # your team's melds as last printed

    # ------------------------------------------------------------- flow
    def run(self) -> int:
        session = self.session
        match = session.match
        try:
            while not match.is_over:
                session.start_deal()
                if not self.play_deal():
                    self.stopped()
                    return 0
                result = session.last_result()
                assert result is not None
                self.show_result(result)
                if not match.is_over and not self.ask_continue():
                    self.stopped()
                    return 0
            self.show_match_end()
            return 0
        except KeyboardInterrupt:
            self.console.print()
            self.stopped()
            return 130

    def stopped(self) -> None:
        self.session.save()
        self.console.print(
            f"Stopped. The match is saved in {self.session.save_path}; '{resume_command(self.session.save_path)}'"
            " continues it.",
            soft_wrap=True,
        )

    def play_deal(self) -> bool:
        """Play the current deal: the bots through the session, you at the prompt; False if you quit."""
        session = self.session
        deal = session.deal
        assert deal is not None
        while not deal.is_over:
            if session.your_turn:
                if not self.your_turn():
                    return False
                continue
            session.step()
            if self.delay:
                time.sleep(self.delay)
        return True

    def your_turn(self) -> bool:
        """Read commands until an action is played; False if you quit."""
        session = self.session
        if self.turn_shown == self.moment():
            self.show_changes()
        else:
            self.render()
        while True:
            try:
                line = self.console.input(f"[b]{session.prompt()}[/b] > ").strip()
            except EOFError:
                return False
            command = line.lower()
            if command in ("quit", "exit", "q"):
                if self.confirm("Quit now?"):
                    return False
                continue
            if command in ("help", "?"):
                self.console.print(help_text(keys=False))
                continue
            if command == "pile":
                self.console.print(self.words.pile(session.view().discard, full=True))
                continue
            if command == "legal":
                actions = sorted(str(a) for a in session.legal())
                self.console.print(f"{len(actions)} legal actions:")
                self.console.print("  " + "\n  ".join(actions), markup=False)
                continue
            if command in ("hint", "h"):
                self.console.print(self.words.told(f"Hint: {session.hint()}"), markup=False)
                self.console.print(self.words.told(f"  why: {session.hint_reason()}"), markup=False)
                continue
            if command in ("log", "l"):
                for item in session.deal_lines():
                    self.console.print(item.text)
                continue
            if command in ("score", "s"):
                self.console.print(self.score_sheet())
                continue
            if command == "rules":
                self.console.print(table_rules(session.match.rules))
                self.console.print("The rule book: 'rule R13' tells one rule; 'biriba rules R13' from the shell.")
                continue
            answer = rulebook.asked(command)
            if answer is not None:
                self.console.print(answer, markup=False)
                continue
            if command in ("table", ""):
                self.render()
                continue
            try:
                action = session.parse(line)
                question = session.needs_confirm(action)
                if question and not self.confirm(question):
                    continue
                session.play(action)
            except BiribaError as exc:
                self.console.print(Text(f"Not allowed: {self.words.told(str(exc))}", style="bold red"))
                continue
            self.show_new_lines()  # your action at once, your discard too
            return True

    def confirm(self, question: str) -> bool:
        try:
            answer = self.console.input(f"[b]{question}[/b] (y/N) > ")
        except EOFError:
            return True
        return answer.strip().lower() in ("y", "yes")

    def ask_continue(self) -> bool:
        try:
            answer = self.console.input("[b]Press Enter for the next deal (or type quit)[/b] > ")
        except EOFError:
            return False
        return answer.strip().lower() not in ("quit", "exit", "q")

    # ----------------------------------------------------------- drawing
    def moment(self) -> tuple[int, int]:
        return len(self.session.match.deals), self.session.view().turn

    def render(self) -> None:
        """The whole table, as you see it, with everything since your previous turn."""
        session = self.session
        render_view(
            self.console,
            self.words,
            session.view(),
            session.match.totals,
            deal_number=len(session.match.deals),
            story=[line.text for line in session.since_your_turn()],
            fresh=session.fresh,
        )
        self.shown = len(session.lines)
        self.turn_shown = self.moment()
        self.melds_shown = session.view().melds[session.match.rules.team_of[YOU]]

    def show_new_lines(self) -> None:
        session = self.session
        for line in session.lines[self.shown :]:
            self.console.print(line.text)
        self.shown = len(session.lines)

    def show_changes(self) -> None:
        """Within your turn: what happened since the last print, your team's melds if they changed (``add N``
        counts them), and your hand now."""
        session = self.session
        self.show_new_lines()
        view = session.view()
        ours = view.rules.team_of[YOU]
        if view.melds[ours] != self.melds_shown:
            self.console.print(Text("Your team's melds:", style="bold"))
            for line in meld_lines(self.words, view, ours):
                self.console.print(line)
        self.melds_shown = view.melds[ours]
        self.console.print(hand_line(self.words, view, session.fresh))
        note = self.words.kept_single(view)
        if note:
            self.console.print(note)

    def score_sheet(self) -> RichTable:
        return score_sheet(self.words, self.session.score_sheet(), self.box)

    def show_result(self, result: DealResult) -> None:
        session = self.session
        self.render()
        number, totals = len(session.match.deals), session.match.totals
        self.console.print(deal_result(self.words, result, session.view(), number, totals, self.box))

    def show_match_end(self) -> None:
        match = self.session.match
        words = self.words
        ours = match.rules.team_of[YOU]
        winners = match.winners or ()
        if ours in winners:
            verdict = "You win the match!" if len(winners) == 1 else "You share the win!"
        else:
            verdict = f"{' and '.join(words.team_label(t) for t in winners)} win the match."
        totals = ", ".join(f"{words.team_label(t)} {match.totals[t]}" for t in words.team_order())
        self.console.print(Text(f"{verdict}  Final totals: {totals}", style="bold"))
        self.console.print(f"Match seed {match.seed}: 'biriba play --seed {match.seed}' deals the same cards.")


def render_view(
    console: Console,
    words: Words,
    view: PlayerView,
    totals: Sequence[int],
    deal_number: int | None = None,
    story: Sequence[Text] = (),
    fresh: Counter[int] | None = None,
) -> None:
    """Print a seat's view of the table, as the line mode draws it (also ``biriba view --text``).

    Plain lines, no boxes: what a screen reader reads aloud and a log keeps,
    each line as long as it needs (the terminal, not the game, wraps it).
    """
    rules = view.rules
    you = words.you
    ours = rules.team_of[you]
    deal = f"Deal {deal_number}.  " if deal_number is not None else ""
    lines = [Text(""), Text(f"{deal}{words.match_line(totals)}", style="bold")]
    for team in words.team_order():
        seats = rules.teams[team]
        if len(seats) > 1:
            title = f"{'Your team' if team == ours else 'Opponents'} ({', '.join(map(words.short_name, seats))})"
        else:
            title = "Your melds" if team == ours else f"{words.seat_name(seats[0])}'s melds"
        heading = Text(title, style="bold")
        heading.append(f": {words.table_points(view, team)} points on the table, {words.reserve(view, team)}")
        lines += [heading, *meld_lines(words, view, team)]
    counts = ", ".join(f"{words.seat_name(s)} {n}" for s, n in enumerate(view.sizes) if s != you)
    lines.append(Text(f"Cards in hand: {counts}"))
    info = Text(f"Stock {view.stock_count}, packets left {len(view.packet_sizes)}.  ")
    info.append_text(words.pile(view.discard))
    if len(view.discard) > 1:
        info.append(" (type 'pile' to see it all)", style="dim")
    if view.trump >= 0:
        info.append(f".  Trump {words.suit(view.trump)}", style="bold")
    lines.append(info)
    lines += [Text(w, style="yellow") for w in (words.opening_minimum(view), words.idle_warning(view)) if w]
    turn = Text(f"Turn {view.turn}: ")
    if view.ended_by is not None:
        turn.append(f"the deal is over ({ENDED_WORDS[view.ended_by]})", style="bold")
    else:
        turn.append(words.seat_name(view.to_move), style="bold")
        turn.append(" to " + ("draw or take" if view.phase == Phase.DRAW else "meld, add or discard"))
    turn.append_text(words.kept_single(view))
    lines.append(turn)
    if story:
        lines.append(Text("Since your last turn:", style="bold"))
        lines += [Text("  ").append_text(line) for line in story]
    lines.append(hand_line(words, view, fresh or Counter()))
    for line in lines:
        console.print(line)


def hand_line(words: Words, view: PlayerView, fresh: Counter[int]) -> Text:
    """``Your hand (12): 7♠ 8♠  A♥ 3♥  JK``: by suit, the wilds last, the cards just drawn or taken marked."""
    left = fresh.copy()
    line = Text(f"Your hand ({len(view.hand)}):", style="bold")
    for group, (_key, cards) in enumerate(words.hand_groups(view.hand)):
        line.append(" " if group else "")
        for code in cards:
            line.append(" ")
            line.append_text(words.card(code, fresh=left[code] > 0))
            if left[code]:
                left[code] -= 1
    return line


def meld_lines(words: Words, view: PlayerView, team: int) -> list[Text]:
    """A team's melds, numbered as ``add N`` counts them, their states in a column."""
    melds = view.melds[team]
    if not melds:
        return [Text("  no melds", style="dim")]
    faces = [words.meld(meld) for meld in melds]
    width = max(face.cell_len for face in faces)
    lines = []
    for index, (meld, face) in enumerate(zip(melds, faces), 1):
        line = Text(f"  {index:>2}. " if len(melds) > 9 else f"  {index}. ").append_text(face)
        style = "green" if meld.size >= view.rules.biriba_size else "dim"
        line.append(" " * (width - face.cell_len + 2)).append(words.meld_state(meld), style=style)
        lines.append(line)
    return lines
