"""The web game end to end, in a real browser: Debian's Chromium driven by Playwright.

One test creates a table with three bots on the page and plays a whole deal
by clicking, then checks the page's score sheet against the server's
record; another seats two people in two browsers and checks that each sees
only their own hand, in the page and in every frame the server sent it.
Screenshots of the phone and desktop layouts go to ``artifacts/screenshots``.
"""

from __future__ import annotations

import json
import random
import re
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from biriba.server.config import ServerConfig
from browserkit import Sockets
from serverkit import (
    GREEDY,
    PERSON,
    create_table,
    played_out,
    running_server,
    server_process,
    signed_up,
    sit,
    sit_signed_in,
)
from test_server import check_nothing_hidden

SHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1440, "height": 900}

pytestmark = pytest.mark.needs("chromium")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running_server(f"sqlite:///{tmp_path}/web.sqlite3") as url:
        yield url


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def scroll_to(page: Page, selector: str) -> None:
    """Scroll the first element ``selector`` finds into view, found and scrolled in one step: the table's page
    draws its sheet again as news comes in, and an element a locator found a moment before may be gone (its
    scroll then fails on a detached element, as it did under load)."""
    page.locator(selector).first.wait_for()
    page.evaluate("(selector) => document.querySelector(selector).scrollIntoView({block: 'nearest'})", selector)


def enabled(page: Page, selector: str) -> bool:
    button = page.locator(selector)
    return button.count() > 0 and button.is_visible() and button.is_enabled()


def play_my_turn(page: Page, rng: random.Random) -> None:
    """Draw (or take, or pass), then discard a card the page lets go, all by clicking.

    Where no card may go (the single card just taken, R16; a last card that may not go out, R17), the
    hint's meld or add is played first.
    """
    if enabled(page, "#draw"):
        draw_or_take(page, "#draw")
    elif enabled(page, "#pass"):  # the stock is out: pass rather than take the pile back and forth (issue 25)
        page.click("#pass")
        return
    elif enabled(page, "#take"):
        draw_or_take(page, "#take")
    for _ in range(20):
        if discard_one(page, rng):
            return
        page.wait_for_function("() => !document.querySelector('#hint').disabled", timeout=15_000)
        page.click("#hint")  # the hint picks the cards of its meld or add
        page.wait_for_function("() => ['#meld', '#add'].some(b => !document.querySelector(b).disabled)")
        page.click("#meld" if enabled(page, "#meld") else "#add")
        choice = page.locator("[data-testid=choice]")
        if choice.count():
            choice.first.click()
        page.wait_for_function("() => !document.querySelector('#prompt').textContent.includes('…')")
    raise AssertionError("no card could be discarded, nor a hint played")


def draw_or_take(page: Page, button: str) -> None:
    """Click Draw or Take, then wait for the server's answer: the hand holding the new cards.

    The buttons are disabled as soon as the action is sent, long before its state comes back (the
    server may be slow), and that state unpicks every card picked meanwhile: the action went through.
    So a test that picks cards next waits for the hand to grow, not for the buttons to go grey.
    """
    held = page.locator("[data-testid=hand-card]").count()
    page.click(button)
    page.wait_for_function("(held) => document.querySelectorAll('[data-testid=hand-card]').length > held", arg=held)


def discard_one(page: Page, rng: random.Random) -> bool:
    cards = page.locator("[data-testid=hand-card]")
    order = list(range(cards.count()))
    rng.shuffle(order)
    for index in order:
        card = cards.nth(index)
        card.click()
        if enabled(page, "#discard"):
            page.click("#discard")
            confirm = page.locator("[data-testid=choice]")
            if confirm.count():  # the last-card question: yes
                confirm.first.click()
            return True
        card.click()  # not this one: put it back
    return False


def play_until(page: Page, rng: random.Random, done: str, turns: int) -> None:
    """Play every turn by clicking until ``done`` (a selector) shows; at most ``turns`` turns."""
    for _ in range(turns):
        page.wait_for_function(
            f"() => document.querySelector({json.dumps(done)}) || "
            "[...document.querySelectorAll('#draw, #take, #pass')].some(b => !b.disabled && b.offsetParent)",
            timeout=60_000,
        )
        if page.locator(done).count():
            return
        play_my_turn(page, rng)
    raise AssertionError(f"{done} never showed in {turns} turns")


def test_a_whole_deal_with_three_bots_played_by_clicking(browser: Browser, server: str) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console", lambda message: errors.append(message.text) if "Content Security Policy" in message.text else None
    )
    page.goto(server + "/")
    page.wait_for_selector("#create-form")
    shot(page, "lobby-desktop")
    page.fill("#target", "50")  # the match ends with its first deal, so its record can be read
    page.select_option("#bot-delay", "0")
    page.click("#create")
    page.wait_for_selector("#invite")
    page.fill("#name", "Eleni")
    page.click("[data-testid=join-seat][data-seat='0']")
    page.wait_for_selector("[data-testid=hand-card]")
    shot(page, "table-desktop")
    table_id = page.url.rstrip("/").split("/t/")[1].split("?")[0]
    play_until(page, random.Random(5), "#result:not([hidden])", 300)
    shot(page, "result-desktop")
    record = httpx.get(f"{server}/api/tables/{table_id}/record").json()
    scores = record["deals"][0]["result"]["team_scores"]
    sheet = page.locator("#sheet").inner_text()
    for score in scores:
        assert str(abs(score)) in sheet, (scores, sheet)
    mine = [a for seat, a in record["deals"][0]["actions"] if seat == 0]
    # what the clicks did: a draw each turn, a discard, the hint's meld or add when no card could go
    kinds = [a.split()[0] for a in mine]
    assert kinds and kinds[0] in ("draw", "take") and "discard" in kinds
    assert set(kinds) <= {"draw", "take", "pass", "discard", "meld", "add"}
    assert not errors, errors
    context.close()


def frames_of(page: Page) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(json.loads(payload))))
    return frames


def test_two_people_in_two_browsers_each_see_only_their_own_hand(browser: Browser, server: str) -> None:
    table = create_table(server, [{"kind": "person"}, {"kind": "bot", "bot": "greedy"}] * 2, bot_delay=0.2)
    pages = {}
    seen = {}
    for seat, name, viewport in ((0, "Ann", PHONE), (2, "Nikos", DESKTOP)):
        context = browser.new_context(viewport=viewport, locale="el-GR" if seat == 2 else "en-US")
        page = context.new_page()
        seen[seat] = frames_of(page)
        page.goto(f"{server}/t/{table['id']}")
        page.wait_for_selector(f"[data-testid=join-seat][data-seat='{seat}']")
        page.fill("#name", name)
        page.click(f"[data-testid=join-seat][data-seat='{seat}']")
        pages[seat] = page
        if seat == 0:  # Nikos's seat, before he sits down: free, not a player who went away
            free = page.locator("[data-testid=player][data-seat='2']")
            free.locator(".badge.free").wait_for()
            assert free.locator(".badge.offline").count() == 0
    for page in pages.values():
        page.wait_for_selector("[data-testid=hand-card]", timeout=30_000)
    for seat, page in pages.items():
        page.wait_for_timeout(500)
        state = next(m for m in reversed(seen[seat]) if m["type"] == "state")
        hand = state["view"]["hands"][seat]
        shown = sorted(page.locator("[data-testid=hand-card]").evaluate_all("els => els.map(e => e.dataset.card)"))
        assert shown == sorted(hand), (seat, shown, hand)
        for other in (0, 2):
            if other != seat:
                assert state["view"]["hands"][other] == {
                    "count": len(pages[other].locator("[data-testid=hand-card]").all())
                }
        for message in seen[seat]:
            check_nothing_hidden(message, seat)
    shot(pages[0], "table-phone")
    shot(pages[2], "table-desktop-greek")
    assert pages[2].locator("html").get_attribute("lang") == "el"
    for page in pages.values():
        page.context.close()


# ------------------------------------------------------- beyond playing


def watch_errors(page: Page) -> list[str]:
    """Every error the page reports: uncaught exceptions and the console's errors."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return errors


def seated_page(browser: Browser, server: str, table_id: str, seat: int, name: str, viewport: dict[str, int]) -> Page:
    """A browser of its own at the table's seat chooser, seated at `seat` under `name`."""
    return sit_down(browser.new_context(viewport=viewport, locale="en-US").new_page(), server, table_id, seat, name)


def sit_down(page: Page, server: str, table_id: str, seat: int, name: str) -> Page:
    """The page (watched as the test needs it) at the table's seat chooser, seated at `seat` under `name`."""
    page.goto(f"{server}/t/{table_id}")
    page.wait_for_selector(f"[data-testid=join-seat][data-seat='{seat}']")
    page.fill("#name", name)
    page.click(f"[data-testid=join-seat][data-seat='{seat}']")
    page.wait_for_selector(f"[data-testid=player][data-seat='{seat}'].me", timeout=30_000)
    return page


def both_sizes(page: Page, name: str) -> None:
    """Screenshots at the phone's size and the desktop's (the page lays itself out again in between)."""
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.wait_for_timeout(300)
        shot(page, f"{name}-{label}")


def wait_my_turn(page: Page, timeout: float = 60_000) -> None:
    page.wait_for_function(
        "() => [...document.querySelectorAll('#draw, #take, #pass')].some(b => !b.disabled && b.offsetParent)",
        timeout=timeout,
    )


def test_a_hint_picks_a_legal_move_and_the_engine_says_why_other_cards_make_none(browser: Browser, server: str) -> None:
    table = create_table(server, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0)
    page = browser.new_context(viewport=DESKTOP, locale="en-US").new_page()
    errors = watch_errors(page)
    frames = frames_of(page)
    sit_down(page, server, table["id"], 0, "Eleni").wait_for_selector("[data-testid=hand-card]", timeout=30_000)
    wait_my_turn(page)
    assert page.locator("#hint").is_visible()
    page.click("#draw" if enabled(page, "#draw") else "#take")
    page.wait_for_function("() => [...document.querySelectorAll('#draw, #take')].every(b => b.disabled)")
    page.wait_for_function("() => !document.querySelector('#hint').disabled")
    page.click("#hint")
    page.wait_for_function("() => /Hint:/.test(document.querySelector('#hint-line')?.textContent || '')")
    hint = next(m for m in reversed(frames) if m["type"] == "hint")
    state = next(m for m in reversed(frames) if m["type"] == "state" and m["version"] == hint["version"])
    assert hint["action"] in state["legal"]
    kind, *tokens = hint["action"].split()
    if kind == "add":
        tokens = tokens[1:]
    cards = sorted(token.split("=")[0] for token in tokens if not token.startswith("wild="))
    picked = page.locator("[data-testid=hand-card][aria-pressed=true]").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    assert sorted(picked) == cards, (hint, picked)
    assert enabled(page, f"#{kind}"), kind  # the hinted move is one click away
    shot(page, "hint-desktop")
    # two cards no legal move uses: the engine says why, with the rule it cites
    page.keyboard.press("Escape")
    hand = state["view"]["hands"][0]
    used = {tuple(sorted(t.split("=")[0] for t in a.split()[1:] if not t.startswith("wild="))) for a in state["legal"]}
    pair = next(
        (a, b)
        for i, a in enumerate(hand)
        for b in hand[i + 1 :]
        if a != b and "JK" not in (a, b) and a[0] != b[0] and a[1] != b[1] and tuple(sorted((a, b))) not in used
    )
    for card in pair:
        page.locator(f"[data-testid=hand-card][data-card='{card}']").first.click()
    page.wait_for_selector("#why", timeout=10_000)
    why = page.locator("#why").inner_text()
    assert re.match(r"Not a move: R\d+ · .+: .+", why), why
    asked = [m for m in frames if m["type"] == "explained"]
    assert asked and asked[-1]["action"] in (f"meld {pair[0]} {pair[1]}", f"meld {pair[1]} {pair[0]}")
    both_sizes(page, "why")
    assert not errors, errors
    page.context.close()


def test_a_quick_phrase_reaches_the_other_player_and_a_mute_hides_it(browser: Browser, server: str) -> None:
    table = create_table(server, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=2)
    eleni = seated_page(browser, server, table["id"], 0, "Eleni", PHONE)
    nikos = seated_page(browser, server, table["id"], 1, "Nikos", DESKTOP)
    errors = {"Eleni": watch_errors(eleni), "Nikos": watch_errors(nikos)}  # the lists their handlers fill
    for page in (eleni, nikos):
        page.wait_for_selector("[data-testid=hand-card]", timeout=30_000)
    # a watcher who gives a name is listed by it
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    maria = context.new_page()
    maria.goto(f"{server}/t/{table['id']}")
    maria.fill("#name", "Maria")
    maria.click("#watch")
    maria.wait_for_selector("#chat")
    # each page hears who watches on its own socket, the one maybe a moment after the other: both are waited for
    for page in (eleni, nikos):
        page.wait_for_function("() => /1 watching/.test(document.querySelector('#watchers')?.textContent || '')")
    assert "Maria" in nikos.locator("#watchers").inner_text()
    assert maria.locator("[data-testid=phrase]").count() == 0  # watchers read only
    # Eleni, on a phone, opens the chat from the toolbar and wishes good luck (past the 1.5 s after Nikos
    # joined, when lines are the ones told again on joining and get no bubble: table/chat.js)
    nikos.wait_for_timeout(1600)
    eleni.click("#chat-button")
    eleni.click("[data-testid=phrase][data-phrase=good_luck]")
    line = nikos.locator("[data-testid=chat-line][data-seat='0']")
    line.first.wait_for()
    assert line.first.inner_text().replace("\n", " ").startswith("Eleni")
    assert "Good luck!" in line.first.inner_text()
    nikos.locator("[data-testid=player][data-seat='0'] [data-testid=bubble]").wait_for()
    maria.locator("[data-testid=chat-line][data-seat='0']").first.wait_for()
    shot(eleni, "chat-phone")
    shot(nikos, "chat-desktop")
    # Nikos mutes her: her lines go, now and later
    nikos.click("[data-testid=chat-line][data-seat='0'] [data-testid=mute]")
    assert line.count() == 0
    assert nikos.locator("[data-testid=unmute][data-seat='0']").is_visible()
    eleni.wait_for_timeout(2100)  # one line every two seconds
    eleni.click("[data-testid=phrase][data-phrase=laugh]")
    eleni.locator("[data-testid=chat-line] .emote").wait_for()
    maria.locator("[data-testid=chat-line][data-seat='0'] .emote").wait_for()
    nikos.wait_for_timeout(300)
    assert line.count() == 0
    assert nikos.locator("[data-testid=player][data-seat='0'] [data-testid=bubble]").count() == 0
    assert nikos.evaluate(f"localStorage.getItem('biriba.mute.{table['id']}')") == "[0]"
    nikos.reload()
    nikos.wait_for_selector("[data-testid=unmute][data-seat='0']")  # the mute is kept
    nikos.click("[data-testid=unmute][data-seat='0']")
    line.first.wait_for()
    assert not any(errors.values()), errors
    for page in (eleni, nikos, maria):
        page.context.close()


def test_a_seat_handed_to_the_bot_and_taken_back_then_left(browser: Browser, server: str) -> None:
    table = create_table(server, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0.2)
    page = seated_page(browser, server, table["id"], 0, "Eleni", DESKTOP)
    errors = watch_errors(page)
    me = page.locator("[data-testid=player][data-seat='0']")
    page.click("#seat-menu")
    page.wait_for_selector("#seat-dialog[open] #hand-over")
    both_sizes(page, "seat-menu")
    page.click("#hand-over")
    me.locator(".badge.handed").wait_for()
    assert "bot plays for you" in (me.get_attribute("aria-label") or "")
    page.wait_for_function(
        "() => /you handed it your seat/.test(document.querySelector('#log').textContent)", timeout=30_000
    )
    assert page.locator("#take-back-inline").is_visible()
    page.click("#seat-menu")
    page.click("#take-back")
    page.wait_for_function("() => !document.querySelector('[data-testid=player][data-seat=\"0\"] .badge.handed')")
    page.wait_for_selector("main.my-turn", timeout=30_000)  # the turns are mine again (maybe half played)
    assert me.locator(".badge:not(.dealer)").count() == 0  # a new deal may have begun meanwhile, dealt by me
    page.click("#seat-menu")
    page.click("#leave-seat")
    page.wait_for_selector("#confirm-leave")
    shot(page, "leave-question-desktop")
    page.click("#confirm-leave")
    page.wait_for_selector("main.spectating")
    page.wait_for_selector("#sit-down")  # the seat is free again, for anyone
    assert page.evaluate(f"localStorage.getItem('biriba.seat.{table['id']}')") is None
    assert page.locator("[data-testid=hand-card]").count() == 0
    assert page.locator("#seat-menu").is_hidden()
    assert not errors, errors
    page.context.close()


def test_a_short_match_to_its_end_then_a_rematch_in_the_same_seat(browser: Browser, server: str) -> None:
    table = create_table(server, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0, deal_pause=0, options={"target": 1})
    page = seated_page(browser, server, table["id"], 0, "Eleni", DESKTOP)
    errors = watch_errors(page)
    play_until(page, random.Random(8), "#match-winner, #match-over", 600)
    chart = page.locator("#score-chart")
    chart.wait_for()
    assert chart.get_attribute("role") == "img"
    label = chart.get_attribute("aria-label") or ""
    assert label.startswith("Running totals deal by deal: Us ") and "Target 1." in label
    assert page.locator("#score-chart polyline").count() == 2
    page.locator("#rematch-same").wait_for()
    both_sizes(page, "rematch-offer")
    scroll_to(page, "#sheet")
    scroll_to(page, "#score-chart")
    shot(page, "chart-desktop")
    # a spectator of the finished match is told where the rematch will be, then given its link (issue 50, row 4)
    watcher = browser.new_context(viewport=PHONE, locale="en-US").new_page()
    watcher_errors = watch_errors(watcher)
    watcher.goto(f"{server}/t/{table['id']}?watch")
    watcher.locator("#rematch-wait").first.wait_for()
    assert "null" not in watcher.locator("main").inner_text()
    page.click("#rematch-same")
    watcher.locator("#rematch-watch").first.wait_for(timeout=20_000)
    scroll_to(watcher, "#rematch-watch")
    shot(watcher, "rematch-watch-phone")
    assert not watcher_errors, watcher_errors
    watcher.context.close()
    page.wait_for_url(lambda url: table["id"] not in url, timeout=20_000)
    new_id = page.url.rstrip("/").split("/t/")[1].split("?")[0]
    page.wait_for_selector("[data-testid=hand-card]", timeout=30_000)
    page.locator("[data-testid=player][data-seat='0'].me").wait_for()
    held = json.loads(page.evaluate(f"localStorage.getItem('biriba.seat.{new_id}')"))
    assert held["seat"] == 0 and held["name"] == "Eleni" and held["token"]
    # the old match's replay has its chart too
    page.goto(f"{server}/t/{table['id']}?replay")
    page.locator("#replay-chart svg[role=img]").wait_for()
    scroll_to(page, "#replay-chart")
    shot(page, "replay-chart-desktop")
    page.set_viewport_size(PHONE)
    scroll_to(page, "#replay-chart")
    shot(page, "replay-chart-phone")
    assert not errors, errors
    page.context.close()


def test_the_page_shows_the_new_table_address_and_says_what_sorting_does(browser: Browser, server: str) -> None:
    context = browser.new_context(viewport=PHONE, locale="en-US")
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(server + "/")
    page.wait_for_selector("#create-form")
    page.select_option("#chat-setting", "text")
    page.select_option("#bot-delay", "0")
    page.click("#create")
    page.wait_for_selector("#invite")
    table_id = page.url.rstrip("/").split("/t/")[1]
    info = httpx.get(f"{server}/api/tables/{table_id}").json()
    assert info["settings"]["chat"] == "text"
    page.reload()  # the address is the table's: a refresh keeps it
    page.wait_for_selector("[data-testid=join-seat][data-seat='0']")
    page.fill("#name", "Eleni")
    page.click("[data-testid=join-seat][data-seat='0']")
    page.wait_for_selector("[data-testid=hand-card]")
    assert page.locator("#sort").inner_text() in ("Sort by rank", "Sort by suit")
    sound = page.locator("#sound-toggle")
    assert sound.is_visible() and sound.get_attribute("aria-pressed") == "false"  # sounds are off until asked for
    sound.click()
    assert sound.get_attribute("aria-pressed") == "true"
    assert page.evaluate("localStorage.getItem('biriba.pref.sound')") == "on"
    assert page.locator("#chat-text").count() == 1  # free text at this table
    wait_my_turn(page)
    if enabled(page, "#take"):
        assert page.locator("#take .count").is_visible()  # how many cards the pile holds
    page.click("#draw" if enabled(page, "#draw") else "#take")
    page.wait_for_function("() => document.querySelector('#take').disabled")
    assert page.locator("#take .count").is_hidden()  # no pile count on a Take that cannot be used
    assert not errors, errors
    context.close()


def test_the_rules_and_the_options_speak_greek(browser: Browser, server: str) -> None:
    """Issue 24 item 7: the table's Rules panel and the lobby's option list in the reader's language."""
    catalog = json.loads((SHOTS.parents[1] / "src/biriba/server/static/i18n/el.json").read_text(encoding="utf-8"))
    table = create_table(server, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0.5, options={"target": 3000})
    assert table["rules"]["changed"] == {"target": "3000", "idle_rounds": "2"}  # a table's house rule (D36)
    context = browser.new_context(viewport=DESKTOP, locale="el-GR")
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server}/t/{table['id']}")
    page.wait_for_selector("[data-testid=join-seat][data-seat='0']")
    page.fill("#name", "Ελένη")
    page.click("[data-testid=join-seat][data-seat='0']")
    page.wait_for_selector("[data-testid=player][data-seat='0'].me", timeout=30_000)
    rules = page.locator("#rules-words")
    rules.locator("summary").click()
    assert rules.locator("summary").inner_text() == catalog["table.rules"]
    lines = rules.locator("li").all_inner_texts()
    assert lines[0] == f"{catalog['preset.classic']}: {catalog['preset.classic.help']}"
    assert lines[1:] == [
        f"{catalog['option.idle_rounds']}: 2 — {catalog['option.idle_rounds.help']}",
        f"{catalog['option.target']}: 3000 — {catalog['option.target.help']}",
    ]
    page.wait_for_timeout(1500)  # state messages come and go: the panel stays open, the same element
    assert rules.get_attribute("open") is not None
    scroll_to(page, "#rules-words")
    shot(page, "rules-greek-table")
    page.set_viewport_size(PHONE)
    page.click("#story-button")  # on a phone the score and the rules are a sheet over the table
    scroll_to(page, "#rules-words")
    shot(page, "rules-greek-table-phone")
    page.keyboard.press("Escape")
    page.wait_for_selector("#side:not(.open)", state="attached")
    # the engine's reason for two cards that make no meld, in Greek (the catalog's reason.meld_too_small)
    wait_my_turn(page)
    draw_or_take(page, "#draw" if enabled(page, "#draw") else "#take")
    hand = page.locator("[data-testid=hand-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    pair = next((a, b) for i, a in enumerate(hand) for b in hand[i + 1 :] if "JK" not in (a, b) and a[0] != b[0])
    for card in pair:
        page.locator(f"[data-testid=hand-card][data-card='{card}']").first.click()
    words = catalog["reason.meld_too_small"].split("{")[0]  # "ένα κατέβασμα θέλει τουλάχιστον "
    page.wait_for_function("(words) => (document.querySelector('#why')?.textContent || '').includes(words)", arg=words)
    assert catalog["rule.R7"] in page.locator("#why").inner_text()
    scroll_to(page, "#why")
    shot(page, "why-greek-phone")
    page.set_viewport_size(DESKTOP)
    page.click("#lobby-link")
    page.wait_for_selector("#create-form")
    page.click(".more-options summary")
    option = page.locator("#create-form .option-list [data-option=target]")
    assert option.inner_text() == catalog["option.target"]
    item = page.locator(".option-list dt", has=page.locator("[data-option=target]"))
    assert item.locator(".option-id").inner_text() == "target = 5000"  # what one types stays the option's name
    assert item.locator("xpath=following-sibling::dd[1]").inner_text() == catalog["option.target.help"]
    assert catalog["option.jokers.help"] in page.locator(".option-list").inner_text()
    option.click()
    assert page.locator("#options-extra").input_value() == "target=5000"
    scroll_to(page, ".option-list")
    shot(page, "rules-greek-lobby")
    assert not errors, errors
    context.close()


#: Seconds the server is frozen (SIGSTOP) while the page sits at its table.
FREEZE = 13.0


def test_the_page_gives_up_a_silent_socket_and_is_back_when_the_server_wakes(browser: Browser, tmp_path: Path) -> None:
    """The server frozen (SIGSTOP): its socket closes nothing, it falls silent, and no proxy is there to cut it.
    The page's ping goes unanswered, so within 10 s it gives the socket up and says so; once the server wakes
    (SIGCONT), the page is back at the table within seconds, and plays on."""
    with server_process(f"sqlite:///{tmp_path}/t.sqlite3") as (url, process):
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0.3, deal_pause=0)
        page = browser.new_context(viewport=DESKTOP, locale="en-US").new_page()
        errors = watch_errors(page)
        sockets = Sockets(page)
        sit_down(page, url, table["id"], 0, "Eleni").wait_for_selector("[data-testid=hand-card]", timeout=30_000)
        sockets.wait(lambda: 0 in sockets.stated, 10, "the first state")
        frozen = time.monotonic()
        process.send_signal(signal.SIGSTOP)
        try:
            sockets.wait(lambda: len(sockets.opened) > 1, 11.5, "a new socket after the freeze")
            noticed = sockets.opened[1] - frozen
            page.wait_for_selector("#banner:not([hidden])")
            assert "Reconnecting" in page.locator("#banner").inner_text()
            shot(page, "reconnecting-desktop")
            page.wait_for_timeout(max(0, frozen + FREEZE - time.monotonic()) * 1000)
        finally:
            process.send_signal(signal.SIGCONT)
        thawed = time.monotonic()
        sockets.wait(lambda: sockets.first_state_after(frozen) is not None, 10, "a state once the server woke")
        back = (sockets.first_state_after(frozen) or 0) - thawed
        print({"noticed_s": round(noticed, 1), "back_after_waking_s": round(back, 1), "sockets": len(sockets.opened)})
        assert 4.5 < noticed < 11.5  # a ping unanswered at the next one (5 to 10 s), then the reconnection's backoff
        assert back < 6
        page.wait_for_selector("#banner", state="hidden")
        wait_my_turn(page)
        play_my_turn(page, random.Random(3))  # a turn of its own: the table goes on
        page.wait_for_function("() => [...document.querySelectorAll('#draw, #take')].every(b => b.disabled)")
        shot(page, "reconnected-desktop")
        assert not errors, errors
        page.context.close()


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header (the IHDR chunk comes first)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_game_installs_on_a_phone_from_its_manifest(browser: Browser, server: str) -> None:
    answer = httpx.get(f"{server}/static/manifest.webmanifest", timeout=10)
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert (manifest["start_url"], manifest["display"]) == ("/", "fullscreen")
    purposes = set()
    for icon in manifest["icons"]:
        picture = httpx.get(server + icon["src"], timeout=10)
        assert picture.headers["content-type"] == "image/png"
        assert "x".join(map(str, png_size(picture.content))) == icon["sizes"], icon
        purposes.add(icon["purpose"])
    assert purposes == {"any", "maskable"}
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(server + "/")
    page.wait_for_selector("#create-form")
    cdp = context.new_cdp_session(page)
    seen = cdp.send("Page.getAppManifest")
    assert seen["url"].endswith("/static/manifest.webmanifest") and not seen["errors"], seen
    errors = [e["errorId"] for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]]
    assert [e for e in errors if e != "in-incognito"] == [], errors  # a test's browser context is always incognito
    context.close()


def test_an_account_is_made_kept_across_a_reload_and_signed_out_and_in_on_the_page(
    browser: Browser, server: str
) -> None:
    """Issue 52: sign-up and sign-in with a password in the lobby, in the reader's language; guests still play."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(server + "/")
    page.wait_for_selector("#account-open")
    page.click("#account-title")  # folded to a line until asked for
    page.fill("#account-name", "Ελένη")
    page.fill("#account-password", "short")
    page.click("#sign-up")
    page.wait_for_selector("#account-error:has-text('8 to 256 characters')")
    page.fill("#account-password", "a long passphrase")
    page.click("#sign-up")
    page.wait_for_selector("[data-testid=signed-in]:has-text('Signed in as Ελένη')")
    assert page.input_value("#name") == "Ελένη"  # the name to sit under
    cookie = next(c for c in context.cookies() if c["name"] == "biriba_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert page.evaluate("document.cookie") == ""  # no script reads the session
    shot(page, "account-signed-in-phone")
    page.reload()
    page.wait_for_selector("[data-testid=signed-in]:has-text('Ελένη')")  # kept across a reload
    page.click("#sign-out")
    page.wait_for_selector("#account-open")  # the form again, once the server has ended the session
    page.click("#account-title")
    assert not [c for c in context.cookies() if c["name"] == "biriba_session"]
    page.fill("#account-name", "ελένη")  # the same name, folded
    page.fill("#account-password", "not her passphrase")
    page.press("#account-password", "Enter")
    page.wait_for_selector("#account-error:has-text('Wrong name or password.')")
    page.fill("#account-password", "a long passphrase")
    page.press("#account-password", "Enter")
    page.wait_for_selector("[data-testid=signed-in]:has-text('Ελένη')")
    greek = browser.new_context(viewport=PHONE, locale="el-GR", storage_state=context.storage_state())
    other = greek.new_page()
    other.goto(server + "/")
    other.wait_for_selector("[data-testid=signed-in]:has-text('Συνδεθήκατε ως Ελένη')")  # the cookie, in Greek
    shot(other, "account-signed-in-greek")
    failed = "Failed to load resource: the server responded with a status of"
    assert errors == [f"{failed} 422 (Unprocessable Entity)", f"{failed} 401 (Unauthorized)"]  # the two refused
    greek.close()
    context.close()


def account_form(page: Page, name: str, password: str, button: str) -> None:
    """In the lobby's account panel, unfolded: the name and password, sent with ``button`` (sign-in or sign-up)."""
    page.goto(page.url.split("/t/")[0].rstrip("/") + "/")
    page.click("#account-title")
    page.fill("#account-name", name)
    page.fill("#account-password", password)
    page.click(button)


def test_a_guest_who_signs_up_keeps_the_seat_and_takes_it_back_on_another_phone(browser: Browser, server: str) -> None:
    """Issue 52: the seat a guest holds is bound to the account they make; signed in on another device, the
    table's link seats them there, and the lobby lists the seat."""
    table = create_table(server, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=5)["id"]
    phone = seated_page(browser, server, table, 1, "Nikos", PHONE)
    errors = watch_errors(phone)
    account_form(phone, "Nikos", "a long passphrase", "#sign-up")
    listed = "[data-testid=my-seat]:has-text('Your seat 2 at a table (waiting for players)')"
    phone.wait_for_selector(listed)  # bound at sign-up
    shot(phone, "account-seat-listed-phone")
    other = browser.new_context(viewport=PHONE, locale="en-US")
    tablet = other.new_page()
    other_errors = watch_errors(tablet)
    tablet.goto(server + "/")
    account_form(tablet, "nikos", "a long passphrase", "#sign-in")
    tablet.click(listed)
    tablet.wait_for_selector("[data-testid=player][data-seat='1'].me", timeout=30_000)  # taken back here
    shot(tablet, "account-seat-taken-back-phone")
    held = httpx.get(f"{server}/api/tables/{table}").json()["seats"][1]
    assert held["name"] == "Nikos" and held["connected"]
    assert errors == [] and other_errors == []
    other.close()
    phone.context.close()


def test_a_passkey_is_added_then_signs_in_with_no_name_or_password_until_it_is_removed(
    browser: Browser, server: str
) -> None:
    """Issue 52: a passkey made by Chromium's virtual authenticator (a phone's own lock, as far as the page can
    tell), then the sign-in that needs nothing typed; removed, it signs in nobody.  WebAuthn needs a domain, so
    the page is opened at ``localhost`` rather than 127.0.0.1."""
    site = server.replace("127.0.0.1", "localhost")
    context = browser.new_context(viewport=PHONE, locale="en-US")
    page = context.new_page()
    errors = watch_errors(page)
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    options = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True}
    device = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {**options, "isUserVerified": True}})
    page.goto(site + "/")
    account_form(page, "Ελένη", "a long passphrase", "#sign-up")
    page.click("#add-passkey")
    page.fill("#passkey-password", "not the passphrase")
    page.click("#passkey-confirm")
    page.wait_for_selector(".error-line:has-text('That is not your password.')")
    page.fill("#passkey-password", "a long passphrase")
    page.click("#passkey-confirm")
    page.wait_for_selector("[data-testid=passkey]:has-text('Passkey made')")
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": device["authenticatorId"]})["credentials"]
    assert [(c["rpId"], c["isResidentCredential"]) for c in held] == [("localhost", True)]
    page.click("#add-passkey")  # the same device again: the browser itself refuses (the server said which it holds)
    page.fill("#passkey-password", "a long passphrase")
    page.click("#passkey-confirm")
    page.wait_for_selector(".error-line:has-text('This device already holds a passkey for your account.')")
    shot(page, "passkey-added-phone")

    page.click("#sign-out")
    page.wait_for_selector("#account-open")
    page.click("#account-title")
    page.click("#passkey-sign-in")
    page.wait_for_selector("[data-testid=signed-in]:has-text('Signed in as Ελένη')")
    cookie = next(c for c in context.cookies() if c["name"] == "biriba_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"

    page.click("[data-testid=remove-passkey]")
    page.wait_for_selector("[data-testid=passkey]", state="detached")
    page.click("#sign-out")
    page.wait_for_selector("#account-open")
    page.click("#account-title")
    page.click("#passkey-sign-in")  # the device still holds it; the server no longer knows it
    page.wait_for_selector("#account-error:has-text('That passkey does not sign in here')")
    shot(page, "passkey-unknown-phone")
    failed = "Failed to load resource: the server responded with a status of"
    assert errors == [f"{failed} 403 (Forbidden)", f"{failed} 401 (Unauthorized)"], errors  # the two refused
    context.close()


def played_to_the_end(server: str, table_id: str, tokens: list[str]) -> None:
    """Every token's seat plays random legal moves until the match is over (:func:`played_out`, in a thread of
    its own: Playwright's loop runs in this one)."""
    worker = threading.Thread(target=played_out, args=(server, table_id, tokens))
    worker.start()
    worker.join(timeout=180)
    assert httpx.get(f"{server}/api/tables/{table_id}").json()["status"] == "over"


def test_a_rated_match_shows_on_the_players_profile_in_three_languages_at_phone_size(
    browser: Browser, server: str
) -> None:
    """Issue 52: two signed-in partners play a short match against two greedy bots to its end: rated, with
    bots; the profile page tells the rating and the match (with its replay), in English, Greek and Italian."""
    table = create_table(server, [PERSON, GREEDY, PERSON, GREEDY], bot_delay=0, deal_pause=0, options={"target": 1})
    tokens = [
        sit_signed_in(server, table["id"], seat, signed_up(server, name)) for seat, name in ((0, "Ελένη"), (2, "Nikos"))
    ]
    played_to_the_end(server, table["id"], tokens)
    rated = {"en-US": "rated, with bots", "el-GR": "βαθμολογήθηκε, με bots", "it-IT": "valutata, con bot"}
    for locale, words in rated.items():
        context = browser.new_context(viewport=PHONE, locale=locale)
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{server}/p/ελένη")  # the name as folded at sign-up
        page.wait_for_selector("[data-testid=profile-name]:has-text('Ελένη')")
        page.wait_for_selector(f"[data-testid=rated]:has-text('{words}')")
        assert page.locator("[data-testid=rating][data-family=classic]").count() == 1
        assert page.locator("[data-testid=match]").count() == 1
        shot(page, f"profile-{locale[:2]}-phone")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # nothing off the side
        page.click("[data-testid=rating] a")
        page.wait_for_selector("[data-testid=leaderboard-empty]")  # one match: not enough for the board
        assert errors == [], errors
        context.close()


#: What a page that asks where its quick play stands, before it waits, is told: 404 ``not_waiting``.
NOT_WAITING = "Failed to load resource: the server responded with a status of 404 (Not Found)"


def quick_player(
    browser: Browser, server: str, name: str, bots: bool, wait: int = 20, ask: bool = True
) -> tuple[Page, list[str]]:
    """A phone signed up as ``name`` that goes to play now, from the lobby's button, and asks (unless not
    ``ask``): its page, and the errors its console tells."""
    page = browser.new_context(viewport=PHONE, locale="en-US").new_page()
    errors = watch_errors(page)
    page.goto(server + "/")
    account_form(page, name, "a long passphrase", "#sign-up")
    page.wait_for_selector("[data-testid=signed-in]")
    page.click("#play-now")
    if ask:
        ask_quick(page, bots, wait)
    return page, errors


def ask_quick(page: Page, bots: bool, wait: int = 20, partner: str = "") -> None:
    """The quick-play form filled in for a classic table, and sent."""
    page.wait_for_selector("#quick-form")
    page.select_option("#quick-rules", "classic")
    page.set_checked("#quick-bots", bots)
    page.fill("#quick-wait", str(wait))
    page.fill("#quick-partner", partner)
    page.click("#quick-start")


def seated_at(page: Page) -> tuple[str, str]:
    """The table a quick-play page was taken to, once its seat shows, and the seat's token this browser holds."""
    page.wait_for_url(re.compile(r"/t/[^/?]+$"), timeout=30_000)
    page.wait_for_selector("[data-testid=player].me", timeout=30_000)
    table = page.url.rsplit("/", 1)[1]
    return table, page.evaluate(f"JSON.parse(localStorage.getItem('biriba.seat.{table}')).token")


def test_four_people_who_play_now_are_seated_together_play_a_rated_match_and_see_it_on_their_profiles(
    browser: Browser, tmp_path: Path
) -> None:
    """Issue 52: four signed-in phones press "Play now" (no bots), two of them friends who name each other as
    partners; the server seats them at one table, the friends on one team, their pages take them there, the
    match (one deal: ``--quick-target 1``) is played to its end, and each profile shows the rated match and a
    rating that moved."""
    config = ServerConfig(bot_workers=2, quick_target=1)
    with running_server(f"sqlite:///{tmp_path}/quick.sqlite3", config) as server:
        names = ["Ελένη", "Nikos", "Maria", "Giorgos"]
        partners = {"Ελένη": "maria", "Maria": "ελένη"}  # names fold as at sign-up
        pages, errors = [], []
        for name in names:
            page, told = quick_player(browser, server, name, bots=False, ask=False)
            pages.append(page)
            errors.append(told)
        pages[1].wait_for_selector("#quick-partner")
        shot(pages[1], "quick-form-phone")
        for name, page in zip(names, pages):
            ask_quick(page, bots=False, partner=partners.get(name, ""))
            if name == "Ελένη":
                page.wait_for_selector("#quick-partner-status:has-text('Waiting for Maria to ask with you')")
                shot(page, "quick-waiting-phone")
        seated = [seated_at(page) for page in pages]
        assert len({table for table, _ in seated}) == 1, "one table for the four"
        table = seated[0][0]
        info = httpx.get(f"{server}/api/tables/{table}").json()
        assert sorted(seat["name"] for seat in info["seats"]) == sorted(names)
        assert [seat["kind"] for seat in info["seats"]] == ["person"] * 4
        seat_of = {seat["name"]: n for n, seat in enumerate(info["seats"])}
        assert seat_of["Ελένη"] % 2 == seat_of["Maria"] % 2, "R1: the friends are partners, opposite each other"
        assert (info["rules"]["preset"], info["rules"]["options"]["target"]) == ("classic", 1)  # --quick-target
        shot(pages[0], "quick-seated-phone")
        played_to_the_end(server, table, [token for _, token in seated])
        for name, page in zip(names, pages):
            profile = httpx.get(f"{server}/api/players/{name}").json()
            shown = profile["ratings"]["classic"]
            assert shown["matches"] == 1 and shown["rating"] != 25.0, shown
            page.goto(f"{server}/p/{name}")
            page.wait_for_selector("[data-testid=rated]:has-text('rated: ')")
            rating = page.inner_text("[data-testid=rating][data-family=classic]")
            assert f"{shown['rating']:.1f} ± {shown['uncertainty']:.1f}" in rating
        shot(pages[1], "quick-profile-phone")
        assert all(set(told) <= {NOT_WAITING} for told in errors), errors
        for page in pages:
            page.context.close()


def test_alone_after_the_wait_bots_fill_the_seats_and_a_player_may_stop_looking(browser: Browser, server: str) -> None:
    """Issue 52: nobody else comes within the wait (5 seconds), the player allowed bots: bots take the three
    other seats and the page goes to the table.  Another player stops looking, and may ask again."""
    other, other_errors = quick_player(browser, server, "Nikos", bots=False)
    other.wait_for_selector("[data-testid=quick-waiting]")
    other.click("#quick-cancel")
    other.wait_for_selector("#quick-form")
    page, errors = quick_player(browser, server, "Ελένη", bots=True, wait=5)
    page.wait_for_selector("[data-testid=quick-waiting]:has-text('bots fill the empty seats after 5 s')")
    table, _ = seated_at(page)
    kinds = [seat["kind"] for seat in httpx.get(f"{server}/api/tables/{table}").json()["seats"]]
    assert sorted(kinds) == ["bot", "bot", "bot", "person"]
    assert page.locator("[data-testid=player]").count() == 4
    shot(page, "quick-bots-phone")
    assert set(errors) <= {NOT_WAITING} and set(other_errors) <= {NOT_WAITING}, (errors, other_errors)
    other.context.close()
    page.context.close()


def test_a_player_blocks_and_reports_another_from_their_profile(browser: Browser, server: str) -> None:
    """Issue 52: signed in, another player's profile offers to block them (undone the same way) and to report
    them to the operators; one's own profile and a guest's view offer neither."""
    signed_up(server, "Nikos")
    context = browser.new_context(viewport=PHONE, locale="en-US")
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server}/p/nikos")
    page.wait_for_selector("[data-testid=profile-name]")
    assert page.locator("#block").count() == 0, "a guest blocks nobody"
    page.goto(server + "/")
    account_form(page, "Ελένη", "a long passphrase", "#sign-up")
    page.wait_for_selector("[data-testid=signed-in]")
    page.goto(f"{server}/p/nikos")
    page.wait_for_selector("#block:has-text('Block')")
    page.click("#block")
    page.wait_for_selector("#dealings-done:has-text('Nikos is blocked.')")
    page.reload()
    page.wait_for_selector("#block:has-text('Unblock')")  # the server's word, not the page's memory
    page.click("#report-open")
    page.fill("#report-reason", "He insulted my partner in the chat.")
    page.click("#report")
    page.wait_for_selector("#dealings-done:has-text('the operators will read your report about Nikos')")
    shot(page, "profile-dealings-phone")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.click("#block")
    page.wait_for_selector("#dealings-done:has-text('Nikos is no longer blocked.')")
    page.goto(f"{server}/p/ελένη")
    page.wait_for_selector("[data-testid=profile-name]")
    page.wait_for_timeout(300)
    assert page.locator("#block").count() == 0, "nobody blocks themselves"
    assert errors == [], errors
    context.close()


def test_a_finished_match_s_analysis_marks_its_costly_decisions_on_a_phone_and_a_desktop(
    browser: Browser, tmp_path: Path
) -> None:
    """Issue 53: a finished match's replay asks for its analysis and shows, once made, each seat's figures, the
    deal's graph with the costly decisions marked; a mark goes to its step, where the note names the better move
    and its cards are marked in the hand."""
    with running_server(
        f"sqlite:///{tmp_path}/analysis.sqlite3", ServerConfig(bot_workers=1, analysis_samples=4)
    ) as url:
        table = create_table(url, [PERSON, GREEDY, PERSON, GREEDY], bot_delay=0, deal_pause=0, options={"target": 1})
        tokens = [sit(url, table["id"], seat, name) for seat, name in ((0, "Eleni"), (2, "Nikos"))]
        played_to_the_end(url, table["id"], tokens)
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            page = browser.new_context(viewport=viewport, locale="en-US").new_page()
            errors = watch_errors(page)
            page.goto(f"{url}/t/{table['id']}?replay")
            if size == "phone":  # not analysed yet: the page offers it
                page.wait_for_selector("#analyse")
                page.click("#analyse")
            page.wait_for_selector("#analysis-seats", timeout=120_000)
            assert page.locator("#analysis-seats tbody tr").count() == 4
            made = httpx.get(f"{url}/api/tables/{table['id']}/analysis").json()["analysis"]
            costly = [d for d in made["decisions"] if d["label"] and d["best_cards"] and d["deal"] == 1]
            assert costly, "two random players make costly moves"
            assert page.locator("circle.analysis-mark").count() == sum(1 for d in made["decisions"] if d["label"])
            scroll_to(page, "#analysis")
            shot(page, f"analysis-{size}")
            chosen = costly[0]
            step = chosen["index"] - 1
            if size == "phone":  # the list's entry
                page.click(f"button.analysis-jump[data-step='{step}']")
            else:  # the graph's mark, from the keyboard (marks close together overlap)
                page.focus(f"circle.analysis-mark[data-step='{step}']")
                page.keyboard.press("Enter")
            page.wait_for_selector(f"#replay-step:has-text('{step}')")
            note = page.inner_text("#analysis-note")
            assert chosen["action"] in note and chosen["best"] in note, note
            assert page.locator(f".open-hand[data-seat='{chosen['seat']}'] .better-card").count() == len(
                chosen["best_cards"]
            )
            scroll_to(page, "#analysis-note")
            shot(page, f"analysis-note-{size}")
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # nothing off the side
            assert errors == [], errors
            page.context.close()
