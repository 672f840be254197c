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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from browserkit import chromium
from serverkit import create_table, running_server
from test_server import check_nothing_hidden

SHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1440, "height": 900}

pytestmark = pytest.mark.needs("chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as browser:
        yield browser


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running_server(f"sqlite:///{tmp_path}/web.sqlite3") as url:
        yield url


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def enabled(page: Page, selector: str) -> bool:
    button = page.locator(selector)
    return button.count() > 0 and button.is_visible() and button.is_enabled()


def play_my_turn(page: Page, rng: random.Random) -> None:
    """Draw (or take, or pass), then discard a card the page lets go, all by clicking."""
    if enabled(page, "#draw"):
        page.click("#draw")
    elif enabled(page, "#take"):
        page.click("#take")
    elif enabled(page, "#pass"):
        page.click("#pass")
        return
    page.wait_for_function("() => [...document.querySelectorAll('#draw, #take')].every(b => b.disabled)")  # drawn
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
            return
        card.click()  # not this one: put it back
    raise AssertionError("no card could be discarded")


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
    rng = random.Random(5)
    for _ in range(300):
        page.wait_for_function(
            "() => document.querySelector('#result:not([hidden])') || "
            "[...document.querySelectorAll('#draw, #take, #pass')].some(b => !b.disabled && b.offsetParent)",
            timeout=60_000,
        )
        if page.locator("#result:not([hidden])").count():
            break
        play_my_turn(page, rng)
    else:
        raise AssertionError("the deal did not end")
    shot(page, "result-desktop")
    record = httpx.get(f"{server}/api/tables/{table_id}/record").json()
    scores = record["deals"][0]["result"]["team_scores"]
    sheet = page.locator("#sheet").inner_text()
    for score in scores:
        assert str(abs(score)) in sheet, (scores, sheet)
    mine = [a for seat, a in record["deals"][0]["actions"] if seat == 0]
    assert mine and all(a.split()[0] in ("draw", "take", "pass", "discard") for a in mine)
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
