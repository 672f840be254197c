"""The web game on every screen: phones (portrait and landscape), a tablet, a laptop and a desktop.

For each size a table with one person and three bots is played by clicking
(by tapping on the touch screens) from the first turn to the deal's result,
with the chat filling up, and at the start, in the middle and at the end the
page is measured: the table never scrolls as a page; no sideways scroll;
every control inside the viewport's width and within its height or reachable
by scrolling, not covered by something else; on a touch screen every control
at least 44x44 px (a hand card: its visible slot 44 px tall and the whole
card reachable); the result a dialog in view with its buttons.  Then the same
sizes with eight melds a team (``browserkit.Crowd``): every meld, every hand
card, the stock and the pile inside the screen with nothing scrolled, a meld
tapped open whole, and the chat and the score sheet over the table on a
phone.  Screenshots go to ``artifacts/screenshots/screen-{w}x{h}-{moment}.png``.

Then: axe-core (bundled by the ``axe-playwright-python`` package, npm's
``axe-core``) on the lobby, the table mid-deal, the open help dialog and the
replay, with no serious or critical violation; a whole deal played by the
keyboard alone; and with reduced motion asked for, nothing animates.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from biriba.server.config import ServerConfig
from browserkit import Crowd
from serverkit import create_table, running_server

SHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"
SIZES = [(360, 740), (390, 844), (740, 360), (844, 390), (768, 1024), (1440, 900), (1920, 1080)]
TOUCH = {(360, 740), (390, 844), (740, 360), (844, 390), (768, 1024)}  # phones and the tablet are touch screens
SHEET = "(width < 800px), (orientation: landscape) and (height <= 560px)"  # table/side.js: the side over the table
MOST_TURNS = 300  # more than any deal takes: a loop that never ends fails instead
TABLES = 4  # deals tried before one lasts to the person's third turn
PERSON = {"kind": "person"}
BOT = {"kind": "bot", "bot": "greedy"}

pytestmark = pytest.mark.needs("chromium")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("screens")
    # one server for the module, which makes more tables a minute than a visitor may (the quota is tested elsewhere)
    roomy = ServerConfig(tables_per_minute=1000, open_tables=1000, bot_workers=1)
    with running_server(f"sqlite:///{folder}/web.sqlite3", roomy) as url:
        yield url


def new_context(browser: Browser, size: tuple[int, int], **extra: Any) -> BrowserContext:
    width, height = size
    touch = {"has_touch": True, "is_mobile": True} if size in TOUCH else {}
    return browser.new_context(viewport={"width": width, "height": height}, locale="en-US", **touch, **extra)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def watch_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    return errors


# ----------------------------------------------------------------- measuring

MEASURE = """
(touch) => {
  const problems = [];
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const root = document.documentElement;
  if (root.scrollWidth > innerWidth) problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${innerWidth}`);
  const name = (el) => {
    const id = el.id ? '#' + el.id : '';
    const test = el.dataset.testid ? `[${el.dataset.testid}${el.dataset.card ? '=' + el.dataset.card : ''}]` : '';
    const text = (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30);
    return `${el.tagName.toLowerCase()}${id}${test} "${text}"`;
  };
  const dialog = document.querySelector('dialog[open]') || document.querySelector('#side.open');  // over the table
  const scope = dialog || document;
  const shown = (el) => {
    if (!dialog && el.closest('dialog')) return false;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    if (el.closest('details:not([open])') && !el.matches('details > summary')) return false;
    const seen = { visibilityProperty: true, contentVisibilityAuto: true };
    if (el.checkVisibility && !el.checkVisibility(seen)) return false;
    return !el.closest('.visually-hidden');
  };
  const selector = 'button, a[href], [role=button], select, input:not([type=hidden]), textarea, summary';
  const controls = [...scope.querySelectorAll(selector)].filter(shown);
  const scrollers = [document.scrollingElement, ...document.querySelectorAll('*')].filter(
    (el) => el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth);
  const saved = scrollers.map((el) => [el, el.scrollTop, el.scrollLeft]);
  const restore = () => saved.forEach(([el, top, left]) => { el.scrollTop = top; el.scrollLeft = left; });
  const clipped = (el) => {
    for (let up = el.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      const hidden = (o) => o === 'hidden' || o === 'clip';
      if ((hidden(style.overflowY) && up.scrollTop) || (hidden(style.overflowX) && up.scrollLeft)) return up;
    }
    return null;
  };
  for (const el of controls) {
    // a check box or radio button is tapped through its label
    const label = el.matches('[type=checkbox], [type=radio]') && el.closest('label');
    (label || el).scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const r = (label || el).getBoundingClientRect();
    const card = el.matches('[data-testid=hand-card]');
    const span = (a, b, of) => `${Math.round(a)}..${Math.round(b)} of ${of}`;
    if (r.left < -1 || r.right > vw + 1)
      problems.push(`${name(el)} is outside the width: ${span(r.left, r.right, vw)}`);
    else if (r.top < -1 || r.bottom > vh + 1)
      problems.push(`${name(el)} cannot be scrolled into view: ${span(r.top, r.bottom, vh)}`);
    else if (clipped(el)) problems.push(`${name(el)} is cut off by ${name(clipped(el))}`);
    else {
      const x = Math.min(vw - 1, Math.max(0, r.left + Math.min(r.width / 2, 10)));
      const y = Math.min(vh - 1, Math.max(0, r.top + r.height / 2));
      const hit = document.elementFromPoint(x, y);
      if (!hit || !(el === hit || el.contains(hit) || (hit.closest('label') && hit.closest('label').contains(el))))
        problems.push(`${name(el)} is covered by ${hit ? name(hit) : 'nothing'} at ${Math.round(x)},${Math.round(y)}`);
      if (card) {
        const face = el.querySelector('svg').getBoundingClientRect();
        if (face.top < -1 || face.bottom > vh + 1 || face.left < -1 || face.right > vw + 1)
          problems.push(`${name(el)}: the card is not all in view`);
      }
    }
    if (touch) {
      if (card ? r.height < 44 || r.width < 24 : r.height < 43.5 || r.width < 43.5)
        problems.push(`${name(el)} is too small to tap: ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    restore();
  }
  return problems;
}
"""

REGION = """
(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const saved = [document.scrollingElement, ...document.querySelectorAll('*')]
    .map((e) => [e, e.scrollTop, e.scrollLeft]);
  el.scrollIntoView({ block: 'start' });
  const r = el.getBoundingClientRect();
  const vh = document.documentElement.clientHeight;
  const shown = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
  saved.forEach(([e, top, left]) => { e.scrollTop = top; e.scrollLeft = left; });
  return { height: r.height, shown };
}
"""


UNSCROLLED = """
() => {
  const problems = [];
  const main = document.querySelector('main.table-screen');  // the table, which never scrolls as a page
  if (!main) return problems;
  if (scrollY || document.scrollingElement.scrollTop) problems.push(`the page is scrolled by ${scrollY}px`);
  if (main.scrollTop) problems.push(`the table is scrolled by ${main.scrollTop}px`);
  const r = main.getBoundingClientRect();
  if (r.top < -1 || r.bottom > innerHeight + 1)
    problems.push(`the table lies at ${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight}`);
  return problems;
}
"""

IN_VIEW = """
() => {
  const problems = [];
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const name = (el) => `${el.dataset.testid}${el.dataset.card ? '=' + el.dataset.card : ''}` +
    `${el.dataset.team !== undefined ? ' of team ' + el.dataset.team : ''}` +
    `${el.dataset.index !== undefined ? ' #' + el.dataset.index : ''}`;
  // the table's own parts (the story and the chat scroll in their lists, beside the table or over it)
  for (const el of [document.scrollingElement, ...document.querySelectorAll('main, #board, #hand-area, .meld-cards')])
    if (el.scrollTop || el.scrollLeft) problems.push(`${el.id || el.className} is scrolled by ${el.scrollTop}`);
  const board = document.querySelector('#board');
  if (board.scrollHeight > board.clientHeight + 1)
    problems.push(`the melds need scrolling: ${board.scrollHeight} > ${board.clientHeight}`);
  const parts = [...document.querySelectorAll(
    '[data-testid=meld], [data-testid=hand-card], [data-testid=stock], [data-testid=pile]')];
  for (const el of parts) {
    const whole = (el.matches('[data-testid=hand-card]') ? el.querySelector('svg') : el).getBoundingClientRect();
    if (whole.left < -1 || whole.top < -1 || whole.right > vw + 1 || whole.bottom > vh + 1) {
      const at = [whole.left, whole.top, whole.right, whole.bottom].map(Math.round);
      problems.push(`${name(el)} lies outside the screen: ${at[0]},${at[1]}..${at[2]},${at[3]}`);
      continue;
    }
    const r = el.getBoundingClientRect();  // a hand card's button is the part of it that shows
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(el === hit || el.contains(hit)))
      problems.push(`${name(el)} is covered by ${hit ? hit.tagName + '.' + hit.className : 'nothing'}`);
  }
  const count = (id) => document.querySelectorAll(`[data-testid=${id}]`).length;
  return { problems, melds: count('meld'), cards: count('hand-card'), stock: count('stock'), pile: count('pile') };
}
"""


def check_screen(page: Page, touch: bool, moment: str, found: list[str]) -> None:
    """Measure the page; what is wrong goes to ``found`` (the test asserts at its end, so every moment is seen)."""
    found.extend(f"{moment}: {problem}" for problem in page.evaluate(UNSCROLLED))
    found.extend(f"{moment}: {problem}" for problem in page.evaluate(MEASURE, touch))


def visible_height(page: Page, selector: str) -> float:
    """How much of the element shows once scrolled into view (0 when it is squeezed to nothing)."""
    region = page.evaluate(REGION, selector)
    assert region is not None, selector
    assert region["height"] > 0, (selector, region)
    return float(region["shown"])


# ------------------------------------------------------------------- playing


def press(page: Page, selector: str, touch: bool) -> None:
    target = page.locator(selector).first
    if touch:
        target.tap()
    else:
        target.click()


def enabled(page: Page, selector: str) -> bool:
    button = page.locator(selector)
    return button.count() > 0 and button.is_visible() and button.is_enabled()


BUTTONS_NOW = """() => [...document.querySelectorAll('#buttons button')]
  .map((b) => `${b.id}${b.disabled ? ' off' : ''}${b.offsetParent ? '' : ' unseen'}`).join(', ')
  + ' | ' + document.querySelector('#prompt').textContent"""


def wait_my_turn_or_result(page: Page) -> bool:
    """Wait until it is my turn (False) or the deal's result shows (True)."""
    page.wait_for_function(
        "() => document.querySelector('#result:not([hidden])') || "
        "[...document.querySelectorAll('#draw, #take, #pass')].some(b => !b.disabled && b.offsetParent)",
        timeout=60_000,
    )
    return page.locator("#result").count() > 0


def draw(page: Page, touch: bool) -> bool:
    """Draw (or pass, or take): True when a card is to be discarded next."""
    held = page.locator("[data-testid=hand-card]").count()
    # with the stock gone, pass rather than take the pile: a deal of taking back and forth could go on and on
    action = next((a for a in ("#draw", "#pass", "#take") if enabled(page, a)), None)
    if action is None:  # the turn moved on between the wait and now
        page.wait_for_timeout(100)
        return False
    press(page, action, touch)
    if action == "#pass":
        return False
    page.wait_for_function(f"() => document.querySelectorAll('[data-testid=hand-card]').length > {held}")
    return True


def pick_discard(page: Page, touch: bool, rng: random.Random) -> None:
    """Select a card the page lets go (the discard button lights up)."""
    cards = page.locator("[data-testid=hand-card]")
    order = list(range(cards.count()))
    rng.shuffle(order)
    for index in order:
        card = cards.nth(index)
        (card.tap if touch else card.click)()
        if enabled(page, "#discard"):
            return
        (card.tap if touch else card.click)()
    raise AssertionError("no card could be discarded")


def discard(page: Page, touch: bool) -> None:
    press(page, "#discard", touch)
    confirm = page.locator("[data-testid=choice]")
    if confirm.count():  # the last-card question: yes
        press(page, "[data-testid=choice]", touch)


def join_table(browser: Browser, server: str, size: tuple[int, int], **extra: Any) -> tuple[Page, list[str]]:
    page = new_context(browser, size, **extra).new_page()
    errors = watch_errors(page)
    join(page, server, size in TOUCH)
    return page, errors


def into_the_deal(browser: Browser, server: str, size: tuple[int, int], turns: int) -> Page:
    """A table at the person's turn after ``turns`` turns played, with a card drawn and one picked.

    A bot may close the deal before that (the deal is the table's own, not chosen): then a new table.
    """
    touch = size in TOUCH
    rng = random.Random(3)
    for _ in range(TABLES):
        page, _ = join_table(browser, server, size)
        for turn in range(turns + 1):
            if wait_my_turn_or_result(page):
                break
            if draw(page, touch):
                pick_discard(page, touch, rng)
                if turn < turns:
                    discard(page, touch)
        else:
            return page
        page.context.close()
    raise AssertionError(f"each of {TABLES} deals ended before the person's turn {turns + 1}")


def play_to_result(page: Page, touch: bool, name: str, height: int, found: list[str], crowd: Crowd) -> int:
    """Play the person's turns to the deal's result, the chat filling up, measuring at the start and at the third
    turn; the turns played."""
    rng = random.Random(name)
    turns = 0
    for _ in range(MOST_TURNS):
        if wait_my_turn_or_result(page):
            return turns
        crowd.chat(3)
        found.extend(f"turn {turns}: {problem}" for problem in page.evaluate(UNSCROLLED))
        if turns == 0:
            shot(page, f"{name}-start")
            check_screen(page, touch, "start", found)
        if not draw(page, touch):
            continue
        pick_discard(page, touch, rng)  # a card drawn and one picked: the buttons lit, melds to add to
        turns += 1
        if turns == 3:
            shot(page, f"{name}-mid")
            check_screen(page, touch, "mid", found)
            if visible_height(page, "#board") < min(120, height * 0.3):
                found.append("mid: the board is squeezed")
        discard(page, touch)
    shot(page, f"{name}-stuck")
    raise AssertionError(f"the deal did not end after {turns} turns: {page.evaluate(BUTTONS_NOW)}")


RESULT_IN_VIEW = """
() => {
  const dialog = document.querySelector('#result-dialog');
  if (!dialog || !dialog.open) return ['the result is not a dialog'];
  const problems = [];
  const inside = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1;
  };
  if (!inside(dialog)) problems.push('the result dialog is not all on the screen');
  for (const id of ['result-title', 'next-deal', 'hide-result']) {
    const el = document.getElementById(id);
    if (!el || !inside(el)) { problems.push(`#${id} is not in view`); continue; }
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !el.contains(hit)) problems.push(`#${id} is covered`);
  }
  return problems;
}
"""


LATEST_LINE = """() => {
  const list = document.querySelector('#chat-log');
  const line = list.lastElementChild.getBoundingClientRect(), box = list.getBoundingClientRect();
  return line.top >= box.top - 1 && line.bottom <= box.bottom + 1;
}"""


def join(page: Page, server: str, touch: bool) -> None:
    """Sit down at a new table of one person and three bots."""
    table = create_table(server, [PERSON, BOT, BOT, BOT], bot_delay=0)
    page.goto(f"{server}/t/{table['id']}")
    page.wait_for_selector("[data-testid=join-seat][data-seat='0']")
    page.fill("#name", "Eleni")
    press(page, "[data-testid=join-seat][data-seat='0']", touch)
    page.wait_for_selector("[data-testid=hand-card]")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_deal_on_every_screen(browser: Browser, server: str, size: tuple[int, int]) -> None:
    width, height = size
    touch = size in TOUCH
    name = f"screen-{width}x{height}"
    # a bot may close the deal before the person's third turn (the deal is the table's own, not chosen):
    # then a new table, so the middle of a deal is always seen
    for _ in range(TABLES):
        page = new_context(browser, size).new_page()
        errors = watch_errors(page)
        crowd = Crowd(page, melds=False)
        join(page, server, touch)
        assert page.evaluate("matchMedia('(pointer: coarse)').matches") == touch
        found: list[str] = []
        if play_to_result(page, touch, name, height, found, crowd) >= 3:
            break
        page.context.close()
    else:
        raise AssertionError(f"each of {TABLES} deals ended before the person's third turn")
    page.wait_for_timeout(300)
    shot(page, f"{name}-end")
    check_screen(page, touch, "end", found)
    found.extend(f"end: {problem}" for problem in page.evaluate(RESULT_IN_VIEW))
    # the table behind the result, and the story and the score: a column beside it, or a sheet over it on a phone
    press(page, "#hide-result", touch)
    page.wait_for_selector("#result-dialog", state="hidden")
    assert page.locator("#show-result").is_visible()
    sheet = page.evaluate(f"matchMedia('{SHEET}').matches")
    for tool, selector in (("#story-button", "#sheet"), ("#side-tab-chat" if sheet else "#chat-button", "#chat-log")):
        if sheet:
            press(page, tool, touch)
        if visible_height(page, selector) < 1:
            found.append(f"end: {selector} shows too little")
    found.extend(f"after the result: {problem}" for problem in page.evaluate(UNSCROLLED))
    assert crowd.said > 0 and page.locator("[data-testid=chat-line]").count() >= min(crowd.said, 60)
    assert not found, "\n".join(found)
    assert not errors, errors
    page.context.close()


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_eight_melds_a_team_and_a_full_chat_in_view_on_every_screen(
    browser: Browser, server: str, size: tuple[int, int]
) -> None:
    width, height = size
    touch = size in TOUCH
    name = f"screen-{width}x{height}-crowded"
    page = new_context(browser, size).new_page()
    errors = watch_errors(page)
    crowd = Crowd(page)
    join(page, server, touch)
    for _ in range(MOST_TURNS):  # a turn with a card drawn
        if wait_my_turn_or_result(page):
            raise AssertionError("the deal ended before the person's first turn")
        if draw(page, touch):
            break
    else:
        raise AssertionError("no card could be drawn")
    pick_discard(page, touch, random.Random(name))
    crowd.chat(40)
    page.wait_for_function("() => document.querySelectorAll('[data-testid=chat-line]').length >= 40")
    shot(page, name)
    seen = page.evaluate(IN_VIEW)
    assert (seen["melds"], seen["stock"], seen["pile"]) == (16, 1, 1), seen
    assert seen["cards"] >= 10, seen
    found = list(seen["problems"])
    # a meld tapped: the whole of it in a dialog
    press(page, "[data-testid=meld][data-team='1'][data-index='1']", touch)
    page.wait_for_selector("#meld-dialog[open]")
    assert page.locator("#meld-whole li").count() == 10
    shot(page, f"{name}-meld")
    check_screen(page, touch, "meld", found)
    press(page, "#close-meld", touch)
    # the chat: over the table on a phone (and closed again by Esc), beside it on a wide screen
    sheet = page.evaluate(f"matchMedia('{SHEET}').matches")
    press(page, "#chat-button", touch)
    if sheet:
        page.wait_for_selector("#side.open[data-tab=chat]")
    assert page.locator("#chat-log").is_visible()
    assert page.evaluate(LATEST_LINE), "the chat does not open at its latest line"
    shot(page, f"{name}-chat")
    check_screen(page, touch, "chat", found)
    if sheet:
        page.keyboard.press("Escape")
        page.wait_for_selector("#side:not(.open)", state="attached")
        assert not page.locator("#chat-log").is_visible()
    found.extend(f"after the chat: {problem}" for problem in page.evaluate(IN_VIEW)["problems"])
    assert not found, "\n".join(found)
    assert not errors, errors
    page.context.close()


# ------------------------------------------------- the lobby, help, replay


@pytest.fixture(scope="module")
def finished(server: str) -> str:
    """A match of four bots that is over (its replay can be opened)."""
    table = create_table(server, [BOT] * 4, bot_delay=0, options={"target": 50})
    for _ in range(600):
        if httpx.get(f"{server}/api/tables/{table['id']}", timeout=10).json()["status"] == "over":
            return str(table["id"])
        time.sleep(0.1)
    raise AssertionError("the bots did not finish their match")


def open_help(page: Page, touch: bool) -> None:
    press(page, "#help-button", touch)
    page.wait_for_selector("#help-dialog[open]")


def open_replay(page: Page, server: str, table_id: str) -> None:
    page.goto(f"{server}/t/{table_id}?replay&deal=1&step=8")
    page.wait_for_selector("#replay-action")
    page.wait_for_selector("#replay-next")


@pytest.mark.parametrize("size", [(360, 740), (1440, 900)], ids=["360x740", "1440x900"])
def test_the_lobby_the_help_and_the_replay(browser: Browser, server: str, finished: str, size: tuple[int, int]) -> None:
    touch = size in TOUCH
    name = f"screen-{size[0]}x{size[1]}"
    found: list[str] = []
    context = new_context(browser, size)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(server + "/")
    page.wait_for_selector("#create-form")
    shot(page, f"{name}-lobby")
    check_screen(page, touch, "lobby", found)
    open_replay(page, server, finished)
    shot(page, f"{name}-replay")
    check_screen(page, touch, "replay", found)
    page.close()
    page, more = join_table(browser, server, size)
    open_help(page, touch)
    shot(page, f"{name}-help")
    check_screen(page, touch, "help", found)
    assert not found, "\n".join(found)
    assert not errors + more, errors + more
    context.close()
    page.context.close()


# ----------------------------------------------------------------- axe-core

SERIOUS = {"serious", "critical"}


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (the script comes from the ``axe-playwright-python`` wheel)."""
    from axe_playwright_python.sync_playwright import Axe

    return list(Axe().run(page).response["violations"])


def serious(violations: list[dict[str, Any]], where: str) -> list[str]:
    return [
        f"{where}: {v['id']} ({v['impact']}) {v['help']}: " + "; ".join(n["target"][0] for n in v["nodes"][:6])
        for v in violations
        if v["impact"] in SERIOUS
    ]


@pytest.mark.parametrize("size", [(360, 740), (1440, 900)], ids=["360x740", "1440x900"])
def test_axe_finds_nothing_serious(browser: Browser, server: str, finished: str, size: tuple[int, int]) -> None:
    touch = size in TOUCH
    found: list[str] = []
    context = new_context(browser, size)
    page = context.new_page()
    page.goto(server + "/")
    page.wait_for_selector("#create")  # the lobby as loaded, not its placeholders, which the answers replace
    page.wait_for_selector("#tables > li:not(.muted)")
    found += serious(axe_violations(page), "lobby")
    open_replay(page, server, finished)
    found += serious(axe_violations(page), "replay")
    page.close()
    page = into_the_deal(browser, server, size, turns=3)  # melds on the table, a card drawn and one picked
    found += serious(axe_violations(page), "table")
    open_help(page, touch)
    found += serious(axe_violations(page), "help")
    assert not found, "\n".join(found)
    context.close()
    page.context.close()


# ------------------------------------------------------------- card names


def test_every_card_is_named_in_words_in_three_languages(browser: Browser, server: str) -> None:
    page = browser.new_page()
    page.goto(server + "/")
    page.wait_for_selector("#create-form")
    names = page.evaluate(
        """async () => {
          const cards = await import("/static/cards.js");
          const i18n = await import("/static/i18n.js");
          const out = {};
          for (const lang of ["en", "el", "it"]) {
            await i18n.setLanguage(lang);
            out[lang] = ["7S", "QH", "JK", "2C", "TD", "AH"].map((code) => cards.cardName(code, ["JK", "2C"]));
            out[lang].push(cards.tokenName("JK=6H"));
          }
          await i18n.setLanguage("en");
          return out;
        }"""
    )
    assert names["en"] == [
        "seven of spades",
        "queen of hearts",
        "joker",
        "two of clubs, wild",
        "ten of diamonds",
        "ace of hearts",
        "joker as six of hearts",
    ]
    assert names["el"][:4] == ["εφτάρι μπαστούνι", "ντάμα κούπα", "τζόκερ", "δυάρι σπαθί, μπαλαντέρ"]
    assert names["it"][:4] == ["sette di picche", "donna di cuori", "jolly", "due di fiori, matta"]
    for lang in names.values():
        assert not any(ch.isdigit() for name in lang for ch in name), lang
    page.close()


# --------------------------------------------------------------- keyboard

NO_POINTER = """
window.__pointers = 0;
for (const kind of ["pointerdown", "mousedown", "touchstart", "click"]) {
  window.addEventListener(kind, (e) => { if (kind !== "click" || e.detail > 0) window.__pointers += 1; }, true);
}
"""


def tab_to(page: Page, selector: str, most: int = 80) -> None:
    """Press Tab until the element matching ``selector`` has the focus."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_a_whole_deal_by_keyboard_alone(browser: Browser, server: str) -> None:
    table = create_table(server, [PERSON, BOT, BOT, BOT], bot_delay=0, options={"target": 50})  # one deal
    context = new_context(browser, (1440, 900))
    context.add_init_script(NO_POINTER)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server}/t/{table['id']}")
    page.wait_for_selector("[data-testid=join-seat][data-seat='0']")
    tab_to(page, "#name")
    page.keyboard.type("Keys")
    tab_to(page, "[data-testid=join-seat][data-seat='0']")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=hand-card]")
    tab_to(page, "[data-testid=hand-card]")  # the hand takes the focus like any control
    keys = {"#draw": "d", "#pass": "p", "#take": "t"}  # pass rather than take once the stock is gone
    turns = 0
    for _ in range(MOST_TURNS):
        if wait_my_turn_or_result(page):
            break
        held = page.locator("[data-testid=hand-card]").count()
        action = next((a for a in keys if enabled(page, a)), None)
        if action is None:  # the turn moved on between the wait and now
            page.wait_for_timeout(100)
            continue
        page.keyboard.press(keys[action])
        if action == "#pass":
            continue
        page.wait_for_function(f"() => document.querySelectorAll('[data-testid=hand-card]').length > {held}")
        page.keyboard.press("End")
        for _ in range(held + 1):
            page.keyboard.press(" ")
            if enabled(page, "#discard"):
                break
            page.keyboard.press(" ")
            page.keyboard.press("ArrowLeft")
        else:
            raise AssertionError("no card could be discarded")
        page.keyboard.press("x")
        if page.locator("[data-testid=choice]").count():  # the last card: confirm with Enter
            page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('#discard').disabled")
        turns += 1
    else:
        raise AssertionError("the deal did not end")
    assert turns > 0
    assert page.locator("#result").is_visible()
    assert page.evaluate("window.__pointers") == 0
    mine = httpx.get(f"{server}/api/tables/{table['id']}/record", timeout=10).json()["deals"][0]["actions"]
    assert len([a for seat, a in mine if seat == 0 and a.startswith("discard")]) >= turns - 1
    assert not errors, errors
    context.close()


# ---------------------------------------------------------- reduced motion

LONGEST_MOTION = """
() => {
  const one = (v) => (v.trim().endsWith('ms') ? parseFloat(v) / 1000 : parseFloat(v) || 0);
  const seconds = (list) => Math.max(0, ...list.split(',').map(one));
  let longest = 0, where = '';
  const look = (el, pseudo) => {
    const style = getComputedStyle(el, pseudo);
    const animated = style.animationName !== 'none' ? seconds(style.animationDuration) : 0;
    const moving = seconds(style.transitionDuration);
    const most = Math.max(animated, moving);
    if (most > longest) {
      longest = most;
      const id = el.id ? '#' + el.id : '';
      where = `${el.tagName.toLowerCase()}${id}.${el.className.baseVal ?? el.className}${pseudo || ''}`;
    }
  };
  for (const el of document.querySelectorAll('*')) {
    look(el, null);
    look(el, '::before');
    look(el, '::after');
    if (el.tagName === 'DIALOG') look(el, '::backdrop');
  }
  return { longest, where };
}
"""


WATCH_MOVES = """
window.__flights = 0;
window.__sounds = [];
new MutationObserver((changes) => {
  for (const change of changes)
    for (const node of change.addedNodes) if (node.dataset && node.dataset.testid === 'flight') window.__flights += 1;
}).observe(document, { childList: true, subtree: true });
document.addEventListener('biriba-sound', (event) => window.__sounds.push(event.detail));
"""


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_reduced_motion_stops_every_animation(browser: Browser, server: str, motion: str) -> None:
    """Cards travel and sounds play as the table moves, unless the reader asked for less motion (no card
    travels) or left the sounds off (the switch is off until turned on)."""
    context = new_context(browser, (1440, 900), reduced_motion=motion)
    context.add_init_script(WATCH_MOVES)
    if motion == "no-preference":
        context.add_init_script("localStorage.setItem('biriba.pref.sound', 'on')")
    page = context.new_page()
    errors = watch_errors(page)
    join(page, server, False)
    assert not wait_my_turn_or_result(page)
    draw(page, False)  # a fresh card, flashing melds and pile
    pick_discard(page, False, random.Random(motion))
    discard(page, False)
    page.wait_for_function("() => document.querySelector('#discard').disabled")
    page.locator("[data-testid=hand-card]").first.hover()
    open_help(page, False)
    motion_now = page.evaluate(LONGEST_MOTION)
    flights, sounds = page.evaluate("[window.__flights, window.__sounds]")  # sounds: the reduced case's
    if motion == "reduce":
        assert motion_now["longest"] <= 0.01, motion_now
        assert (flights, sounds) == (0, [])
    else:  # the same page moves when motion is welcome: the check above can see it
        assert motion_now["longest"] > 0.05, motion_now
        assert flights >= 2  # the own draw and discard at least, each from where it left to where it landed
        page.wait_for_function("() => ['draw', 'discard'].every((s) => window.__sounds.includes(s))", timeout=5000)
    page.wait_for_timeout(1000)
    assert page.locator("[data-testid=flight]").count() == 0  # every card landed and went
    assert not errors, errors
    context.close()
