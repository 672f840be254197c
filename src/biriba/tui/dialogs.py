"""The full-screen table's dialogs: a question or a page of text, a choice by digit, the rule book."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.markdown import Markdown
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .. import rulebook
from ..actions import Action
from ..rules import Rules
from .sheets import table_rules


def path_lines(path: str, width: int) -> list[str]:
    """A file's path in lines of at most ``width``, broken after a ``/`` rather than inside a name."""
    first, *rest = path.split("/")
    lines = [first]
    for part in rest:
        if lines[-1] and len(lines[-1]) + 1 + len(part) > width:
            lines.append("/" + part)
        else:
            lines[-1] += "/" + part
    return lines


class Dialog(ModalScreen[bool]):
    """A question or a page of text; y/enter answers yes, n/escape no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "yes / close"),
        Binding("n,escape,q", "answer(False)", "no / close"),
    ]

    def __init__(self, body: object, question: bool = False, hint: str | None = None) -> None:
        super().__init__()
        self.body = body
        self.question = question
        self.hint = hint

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Static(self.body)  # type: ignore[arg-type]
            hint = self.hint or ("y: yes   n: no" if self.question else "enter or escape: close")
            yield Static(Text(hint, style="dim"))

    def on_mount(self) -> None:
        scroll = self.query_one("#dialog", VerticalScroll)
        self.watch(scroll, "scroll_y", lambda _: self.say_more(scroll), init=False)
        self.call_after_refresh(self.say_more, scroll)

    def say_more(self, scroll: VerticalScroll) -> None:
        """A page taller than the dialog says so on its bottom border, until the reader has scrolled to its end."""
        more = scroll.max_scroll_y > 0 and scroll.scroll_y < scroll.max_scroll_y
        scroll.border_subtitle = "more below: ↓ or page down" if more else ""

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class Choice(ModalScreen[int]):
    """Where a wild goes, when the picked cards make several legal melds or adds: a digit picks, escape cancels.

    The page offers the same choices (table/input.js); the keys reach every one of them.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"pick({n})", show=False) for n in range(1, 10)),
        Binding("escape,n,q", "pick(0)", "cancel"),
    ]

    def __init__(self, title: str, actions: list[Action], options: list[Text]) -> None:
        super().__init__()
        self.title_text = title
        self.actions = actions  # the legal actions offered, in the order of their digits
        self.options = options

    def compose(self) -> ComposeResult:
        lines = Text(self.title_text, style="bold")
        for number, option in enumerate(self.options, 1):
            lines.append(f"\n  {number}  ")
            lines.append_text(option)
        with VerticalScroll(id="dialog"):
            yield Static(lines)
            yield Static(Text(f"1-{len(self.options)}: choose   escape: cancel", style="dim"))

    def action_pick(self, number: int) -> None:
        if number <= len(self.options):
            self.dismiss(number)


class RuleBook(ModalScreen[None]):
    """The rules of this table and the rule book shipped with the package, a part at a time.

    A refusal names its rule (R8); opened after one, the book tells that rule first.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"part({n})", show=False) for n in range(1, 10)),
        Binding("escape,enter,q,r", "close", "close"),
    ]

    def __init__(self, rules: Rules, cited: list[str]) -> None:
        super().__init__()
        self.rules = rules
        self.cited = [rule_id for rule_id in cited if rulebook.rule(rule_id)]
        self.parts = rulebook.sections()
        assert len(self.parts) <= 9, "a digit a part"

    def compose(self) -> ComposeResult:
        lines: list[Text] = []
        if self.cited:
            heading = "The rule just cited" if len(self.cited) == 1 else "The rules just cited"
            lines.append(Text(heading, style="bold"))
            lines += [Text(f"{rulebook.rule(rule_id)}\n") for rule_id in self.cited]
        lines.append(table_rules(self.rules))
        book = Text("\nThe rule book (press a part's number)", style="bold")
        for number, (title, _body) in enumerate(self.parts, 1):
            book.append(f"\n  {number}  {title}", style="")
        lines.append(book)
        with VerticalScroll(id="dialog"):
            yield Static(Group(*lines))
            hint = f"1-{len(self.parts)}: read a part   escape: close   'rule R13' on the command line: one rule"
            yield Static(Text(hint, style="dim"))

    def action_part(self, number: int) -> None:
        if number <= len(self.parts):
            title, body = self.parts[number - 1]
            self.app.push_screen(Dialog(Markdown(f"## {title}\n\n{body}")))

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["Choice", "Dialog", "RuleBook", "path_lines"]
