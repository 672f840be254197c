"""The full-screen table, driven through Textual's own test pilot.

A whole deal is played by picking cards with the arrow keys and space and
playing them with one key, as a player would; the table redraws at every
size; the questions before a quit or a last-card discard are asked.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Input, Static

from biriba import rulebook
from biriba.actions import Action
from biriba.cards import parse_cards
from biriba.replay import replay_record
from biriba.rules import CLASSIC, PRESETS
from biriba.tui.app import BiribaApp, HandView
from biriba.tui.dialogs import Choice, Dialog, RuleBook
from biriba.tui.session import YOU, Session
from helpers import mid_deal


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BIRIBA_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def run(test: Callable[[BiribaApp], Awaitable[None]], session: Session, size: tuple[int, int] = (80, 24)) -> None:
    async def main() -> None:
        app = BiribaApp(session, delay=0)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            app.pilot = pilot  # type: ignore[attr-defined]
            await test(app)

    asyncio.run(main())


async def settle(app: BiribaApp) -> None:
    """Let the bots finish their moves."""
    for _ in range(400):
        await app.pilot.pause()  # type: ignore[attr-defined]
        if not app.busy or isinstance(app.screen, Dialog):
            return
    raise AssertionError("the bots never stopped")


async def pick(app: BiribaApp, cards: tuple[int, ...]) -> None:
    """Pick these cards in the hand with the arrow keys and space, as a player would."""
    pilot = app.pilot  # type: ignore[attr-defined]
    hand = app.query_one(HandView)
    for code in cards:
        shown = hand.cards()
        index = next(i for i, c in enumerate(shown) if c == code and i not in hand.picked)
        steps = (index - hand.cursor) % len(shown)
        for _ in range(steps):
            await pilot.press("right")
        await pilot.press("space")


async def play_by_keys(app: BiribaApp, action: Action) -> None:
    pilot = app.pilot  # type: ignore[attr-defined]
    keys = {"draw": "d", "take": "t", "pass": "p"}
    if action.kind in keys:
        await pilot.press(keys[action.kind])
    else:
        await pick(app, action.cards)
        if action.kind == "meld":
            await pilot.press("m")
        elif action.kind == "discard":
            await pilot.press("x")
        else:
            await pilot.press("a")
            if len(app.session.view().melds[app.session.view().rules.team_of[YOU]]) > 1:
                await pilot.press(str(action.meld + 1))
    await pilot.pause()
    if isinstance(app.screen, Choice):  # where the wild goes: the digit of this action
        await pilot.press(str(app.screen.actions.index(action) + 1))
        await pilot.pause()
    if isinstance(app.screen, Dialog) and "last card" in str(app.screen.body):  # the last-card question
        await pilot.press("y")


def test_a_whole_deal_played_by_picking_cards(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    session = Session.new(CLASSIC, ["greedy"], seed=21, save=save)

    async def test(app: BiribaApp) -> None:
        moves = 0
        await settle(app)
        while not isinstance(app.screen, Dialog):
            assert app.session.your_turn
            status = app.status_text().plain
            assert "Your move:" in status
            action = app.session.hint()
            assert action is not None
            before = len(app.session.deal.history)  # type: ignore[union-attr]
            await play_by_keys(app, action)
            await settle(app)
            assert len(app.session.deal.history) > before, f"{action} was not played"  # type: ignore[union-attr]
            moves += 1
            assert moves < 200
        assert app.session.deal is not None and app.session.deal.is_over
        result = app.screen.body.renderables[0]  # type: ignore[attr-defined]
        assert "over" in str(result.renderables[0].title)  # the deal's result table
        assert "the deal" in result.renderables[1].plain  # and its winner
        await app.pilot.press("n")  # type: ignore[attr-defined]
        await app.pilot.pause()  # type: ignore[attr-defined]

    run(test, session)
    record = json.loads(save.read_text())
    replay = replay_record(record)
    assert replay.deals[0].is_over
    assert record["deals"][0]["result"]["team_scores"] == list(replay.deals[0].result().team_scores)
    assert [0, "draw"] in record["deals"][0]["actions"] or [0, "take"] in record["deals"][0]["actions"]


def shown(static: Static) -> str:
    """What a Static shows, as plain text, its lines unwrapped."""
    console = Console(width=500, file=io.StringIO(), color_system=None)
    console.print(static.content, soft_wrap=True)
    return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())  # type: ignore[attr-defined]


def screen_text(app: BiribaApp) -> str:
    return "\n".join(str(w.render()) for w in app.query("Static, HandView") if w.display)


def test_the_table_holds_everything_needed_to_move_and_redraws_on_resize() -> None:
    session = Session.new(PRESETS["atout"], ["greedy"], seed=5)

    async def test(app: BiribaApp) -> None:
        await settle(app)
        text = screen_text(app)
        for needle in ("first above", "pts", "Stock", "Pile", "Packets", "Cards:", "Turn", "Your hand", "Your move"):
            assert needle in text, needle
        assert "Trump" in text  # atout
        hand = app.query_one(HandView)
        narrow = hand.size.width
        await app.pilot.resize_terminal(200, 50)  # type: ignore[attr-defined]
        await app.pilot.pause()  # type: ignore[attr-defined]
        assert hand.size.width > narrow and app.size == (200, 50)
        assert "Your hand" in screen_text(app)

    run(test, session)


def test_quitting_asks_first_and_keeps_the_match() -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=6)

    async def test(app: BiribaApp) -> None:
        await settle(app)
        await app.pilot.press("q")  # type: ignore[attr-defined]
        await app.pilot.pause()  # type: ignore[attr-defined]
        assert isinstance(app.screen, Dialog) and "saved" in str(app.screen.body)
        await app.pilot.press("n")  # type: ignore[attr-defined]
        await app.pilot.pause()  # type: ignore[attr-defined]
        assert not isinstance(app.screen, Dialog) and app.is_running
        await app.pilot.press("q", "y")  # type: ignore[attr-defined]
        await app.pilot.pause()  # type: ignore[attr-defined]

    run(test, session)
    assert session.save_path.exists() and replay_record(json.loads(session.save_path.read_text())).deals


def test_drawn_cards_are_marked_fresh_until_the_turn_ends() -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=7)

    async def test(app: BiribaApp) -> None:
        await settle(app)
        await app.pilot.press("d")  # type: ignore[attr-defined]
        await app.pilot.pause()  # type: ignore[attr-defined]
        drawn = app.session.lines[-1].text.plain
        assert drawn.startswith("You: draw") and sum(app.session.fresh.values()) == 1
        rendered = app.query_one(HandView).render()
        assert any("reverse" in str(span.style) for span in rendered.spans)
        discard = next(a for a in app.session.legal() if a.kind == "discard")
        await play_by_keys(app, discard)
        await settle(app)
        assert not app.session.fresh

    run(test, session)


def test_the_last_card_question_is_about_a_discard_that_does_not_go_out_when_adding_would_play_on() -> None:
    from biriba.cards import parse_card
    from helpers import position

    run = (["3S 4S 5S 6S 7S 8S 9S"], [])
    session = Session.new(CLASSIC, ["greedy"], seed=8)
    pickup = position({0: "TS"}, melds=run, phase="play")  # TS could go onto the run: the reserve by melding
    forced = position({0: "9C"}, melds=run, phase="play")  # 9C fits nowhere: discarding it is the only move
    closure = position({0: "TS"}, melds=run, reserves=((0, True), None), phase="play")
    two = position({0: "TS QD"}, melds=run, phase="play")
    discard = Action("discard", (parse_card("TS"),), (-1,))
    session.match.deals.append(pickup)
    question = session.needs_confirm(discard)
    assert question is not None and "next turn" in question and "adding it to a meld" in question  # R18, R19
    session.match.deals[-1] = forced
    assert [str(a) for a in forced.legal_actions()] == ["discard 9C"]
    assert session.needs_confirm(Action("discard", (parse_card("9C"),), (-1,))) is None  # no choice to regret
    session.match.deals[-1] = closure
    assert session.needs_confirm(discard) is None  # going out: nothing to regret
    session.match.deals[-1] = two
    assert session.needs_confirm(discard) is None
    assert pickup.sizes[0] == 1  # asking changed nothing


def test_a_question_before_a_move_can_be_declined(monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=10)
    monkeypatch.setattr(session, "needs_confirm", lambda action: "Really?" if action.kind == "discard" else None)

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        await settle(app)
        await pilot.press("d")
        await settle(app)
        history = len(app.session.deal.history)  # type: ignore[union-attr]
        await pilot.press("space", "x")
        await pilot.pause()
        assert isinstance(app.screen, Dialog) and app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert len(app.session.deal.history) == history  # type: ignore[union-attr]
        await pilot.press("x", "y")  # the card is still picked
        await settle(app)
        assert len(app.session.deal.history) > history  # type: ignore[union-attr]

    run(test, session)


def test_typing_the_notation_still_works_and_refusals_name_the_rule() -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=9)

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        await settle(app)
        await pilot.press("colon")
        for key in "discard 9c":
            await pilot.press("space" if key == " " else key)
        await pilot.press("enter")
        await pilot.pause()
        assert "Not allowed: R15" in str(app.query_one("#status").render())
        await pilot.press("colon", "d", "r", "a", "w", "enter")
        await pilot.pause()
        await settle(app)
        assert any(line.text.plain.startswith("You: draw") for line in app.session.lines)

    run(test, session)


def test_cards_and_melds_can_be_picked_with_the_mouse() -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=21)

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        await settle(app)
        hand = app.query_one(HandView)
        hand.render()
        row, start, _end = hand.places[2]
        await pilot.click(HandView, offset=(start, row))
        await pilot.pause()
        assert hand.picked == {2} and hand.cursor == 2
        await pilot.click(HandView, offset=(start, row))
        await pilot.pause()
        assert hand.picked == set()

    run(test, session)


def test_hard_bots_and_the_hint_think_in_a_thread() -> None:
    """The screen stays live while a hard bot searches; `h` shows the hard bot's choice and its reason."""
    session = Session.new(CLASSIC, ["hard"], seed=4)
    assert [getattr(bot, "think_ms", None) for bot in session.table.agents] == [None, 1000, 1000, 1000]
    quick = Session.new(CLASSIC, ["hard", "greedy"], seed=4, think_ms=250)  # biriba play --think-ms 250
    assert [getattr(bot, "think_ms", None) for bot in quick.table.agents] == [None, 250, None, 250]
    resumed = Session.resume(quick.save_path, ["hard"], think_ms=400)
    assert [getattr(bot, "think_ms", None) for bot in resumed.table.agents] == [None, 400, 400, 400]

    async def test(app: BiribaApp) -> None:
        await settle(app)
        assert app.session.your_turn
        await app.pilot.press("h")  # type: ignore[attr-defined]
        for _ in range(400):
            await app.pilot.pause()  # type: ignore[attr-defined]
            if "(" in app.message.plain:
                break
        hint = app.message.plain
        assert hint.startswith("Hint: ") and hint.removeprefix("Hint: ").split(" (")[0] in map(str, app.session.legal())
        assert "guesses of the hidden cards" in hint or "the only move" in hint

    run(test, session)


def test_the_deals_opening_stays_in_sight_the_whole_deal_and_says_where_you_sit() -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=3)

    def opening(app: BiribaApp) -> str:
        title = app.query_one("#storybox").border_title
        return str(title) if title else ""

    async def test(app: BiribaApp) -> None:
        await settle(app)
        assert "Deal 1: you sit South; East deals;" in opening(app)  # on the story's top line: no row of its own
        assert not app.query_one("#opening").display
        assert "Deal 1:" not in str(app.query_one("#story-text").render())  # told once, where it cannot scroll
        await app.pilot.press("d")  # type: ignore[attr-defined]
        await settle(app)
        for action in app.session.legal():  # end the turn: the opening stays for the whole deal
            if action.kind == "discard":
                app.play_now(action)
                break
        await settle(app)
        assert "Deal 1: you sit South; East deals;" in opening(app)

    async def with_the_cut(app: BiribaApp) -> None:
        await settle(app)
        assert opening(app) == "" and app.query_one("#opening").display  # too long for the line: a row of its own
        assert "you sit South; East deals; North (partner) plays first. The cut was exact (+100)." in str(
            app.query_one("#opening").render()
        )

    run(test, session)
    run(with_the_cut, Session.new(PRESETS["atout"], ["greedy"], seed=3))


def test_keys_reach_every_place_of_a_wild(tmp_path: Path) -> None:
    """7♣ 8♣ 2♥ and m: the wild may stand low (6♣) or high (9♣); a digit picks either, escape picks none."""
    from helpers import position

    session = Session.new(CLASSIC, ["greedy"], seed=8)
    session.match.deals.append(position({0: "7C 8C 2H KD QS"}, phase="play"))

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        app.busy = False
        app.redraw()
        cards = tuple(parse_cards("7C 8C 2H"))
        await pick(app, cards)
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, Choice)
        offered = sorted(str(action) for action in app.screen.actions)
        assert offered == ["meld 2H=6C 7C 8C", "meld 7C 8C 2H=9C"]
        assert "Where does the wild go?" in str(app.screen.query_one(Static).render())
        await pilot.press("escape")  # none: nothing played, the cards still picked
        await pilot.pause()
        assert not isinstance(app.screen, Choice) and len(app.session.deal.history) == 0  # type: ignore[union-attr]
        await pilot.press("m")
        await pilot.pause()
        low = next(i for i, a in enumerate(app.screen.actions) if str(a) == "meld 2H=6C 7C 8C")  # type: ignore[attr-defined]
        await pilot.press(str(low + 1))
        await pilot.pause()
        assert [str(a) for _, a in app.session.deal.history] == ["meld 2H=6C 7C 8C"]  # type: ignore[union-attr]

    run(test, session)


def test_a_help_taller_than_the_screen_says_more_follows_until_its_end() -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=3)

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        await settle(app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, Dialog)
        scroll = app.screen.query_one("#dialog")
        assert scroll.max_scroll_y > 0  # at 80x24 the help is taller than its dialog
        assert scroll.border_subtitle == "more below: ↓ or page down"
        await pilot.press("end")
        await pilot.pause()
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y and scroll.border_subtitle == ""

    run(test, session)


@pytest.mark.parametrize("seed", [2, 6, 7])
def test_at_80x24_six_players_every_turn_since_yours_is_in_sight(seed: int) -> None:
    """Issue 51: the story was 3 of 15 actions at six seats; a line a turn when a line an action does not fit,
    cut to a row if need be, before your draw and after it."""
    session = mid_deal(PRESETS["classic"].replace(seats=6, partnerships=False), seed=seed)
    since = [line for line in session.since_your_turn() if line.seat >= 0]
    assert len(since) > 10  # more actions than the story has rows
    names = [session.words.seat_name(seat) for seat in range(1, 6)]

    async def test(app: BiribaApp) -> None:
        await settle(app)
        for drawn in (False, True):
            story = app.query_one("#story")
            assert story.max_scroll_y == 0, "the story is scrolled: a turn is out of sight"
            told = str(app.query_one("#story-text").render()).splitlines()
            assert [line.split(": ")[0] for line in told] == names + ["You"] * drawn  # a line a turn, in order
            if not drawn:
                await app.pilot.press("t" if app.session.view().stock_count == 0 else "d")  # type: ignore[attr-defined]
                await settle(app)

    run(test, session)


def test_a_refusal_of_two_lines_keeps_the_hand_and_the_keys_in_sight() -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=3)

    async def test(app: BiribaApp) -> None:
        await settle(app)
        await app.pilot.press("d")  # type: ignore[attr-defined]
        await settle(app)
        await pick(app, parse_cards("7S 8S QS JK"))
        await app.pilot.press("m")  # type: ignore[attr-defined]
        await app.pilot.pause()  # type: ignore[attr-defined]
        status = app.query_one("#status")
        assert "R8" in app.message.plain and status.size.height == 2
        footer = app.query_one("Footer")
        assert footer.region.bottom == 20 and footer.region.height == 1  # the keys on the last row
        hand = app.query_one(HandView).region
        assert hand.height >= 1 and hand.bottom <= status.region.y  # the hand above the refusal, whole
        assert app.query_one("#story").size.height >= 1

    run(test, session, size=(72, 20))  # the least window, where the rows are fewest


async def resized(app: BiribaApp, width: int, height: int) -> None:
    """Resize the terminal and wait until the table has laid itself out anew."""
    await app.pilot.resize_terminal(width, height)  # type: ignore[attr-defined]
    for _ in range(50):
        await app.pilot.pause()  # type: ignore[attr-defined]
        if app.screen_stack[0].has_class("too-small") == app.too_small() and app.size == (width, height):
            return
    raise AssertionError(f"the table never took {width}x{height}")


def test_a_window_too_small_says_so_and_plays_nothing_until_it_is_larger() -> None:
    session = Session.new(CLASSIC, ["greedy"], seed=3)

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        await settle(app)
        assert app.query_one(HandView).display and not app.query_one("#too-small").display
        await resized(app, 40, 12)
        said = str(app.query_one("#too-small").render())
        assert "This window is 40x12" in said and "needs 72x20" in said and "q quits" in said
        assert app.query_one("#too-small").region.height == 12  # the whole window says it
        history = len(app.session.deal.history)  # type: ignore[union-attr]
        await pilot.press("d")
        await pilot.pause()
        assert len(app.session.deal.history) == history  # type: ignore[union-attr]  # nothing played unseen
        await resized(app, 80, 24)
        assert not app.query_one("#too-small").display and app.query_one(HandView).region.height >= 1
        assert app.focused is app.query_one(HandView)  # the keys reach the hand again
        await pilot.press("question_mark")  # a dialog open when the window shrinks: the table under it says so too
        await pilot.pause()
        await resized(app, 40, 12)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.screen_stack[0] and app.query_one("#too-small").display
        await pilot.press("d")
        await pilot.pause()
        assert len(app.session.deal.history) == history  # type: ignore[union-attr]
        await resized(app, 80, 24)
        await pilot.press("colon")  # typing when the window shrinks: the command line has the keys again after
        await pilot.press("d")
        await resized(app, 40, 12)
        await resized(app, 80, 24)
        assert app.focused is app.query_one("#command") and app.query_one("#command", Input).value == "d"
        await pilot.press("escape")
        await pilot.press("d")
        await settle(app)
        assert len(app.session.deal.history) > history  # type: ignore[union-attr]
        await resized(app, 71, 24)
        assert "This window is 71x24" in str(app.query_one("#too-small").render())
        await pilot.press("q")  # quitting still works
        await pilot.pause()
        assert isinstance(app.screen, Dialog)

    run(test, session)


def test_r_opens_the_tables_rules_and_the_rule_book_with_a_refusals_rule_first() -> None:
    """Issue 51, row 8: the rules in the program, from the rule book the package ships (docs/rules.md)."""
    session = Session.new(CLASSIC.at_table(), ["greedy"], seed=3)

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        await settle(app)
        await pilot.press("r")
        await pilot.pause()
        book = app.screen
        assert isinstance(book, RuleBook)
        said = shown(book.query_one(Static))
        assert "The rules at this table: classic" in said and "idle_rounds 2" in said and "D36" in said
        assert "The rule just cited" not in said
        titles = [title for title, _ in rulebook.sections()]
        assert all(f"{n}  {title}" in said for n, title in enumerate(titles, 1))
        await pilot.press("3")  # a part of the book, whole
        await pilot.pause()
        assert isinstance(app.screen, Dialog)
        part = shown(app.screen.query_one(Static))
        assert "Classic profile" in part and "R1 Four seats" in part
        await pilot.press("escape")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]
        await pilot.press("d")
        await settle(app)
        await pick(app, parse_cards("7S 8S QS JK"))
        await pilot.press("m")  # refused by R8: r tells it first
        await pilot.pause()
        assert app.message.plain.startswith("Not allowed: R8") and app.message.plain.endswith("(r: the rule)")
        await pilot.press("r")
        await pilot.pause()
        said = shown(app.screen.query_one(Static))
        assert said.startswith(f"The rule just cited\n{rulebook.rule('R8')}")  # first, above the table's rules
        await pilot.press("r")  # r closes it again
        await pilot.pause()
        assert app.screen is app.screen_stack[0]
        await pilot.press("colon")
        for key in "rule d36":
            await pilot.press("space" if key == " " else key)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, Dialog)
        assert shown(app.screen.query_one(Static)).strip() == rulebook.rule("D36")

    run(test, session)
