"""The page's JavaScript on its own, in a real browser, and its catalogs.

The pure parts of the page (card names and order, events told in words, the
table's model: state messages in, selectors out, and the small formatting
helpers) run in Debian's Chromium driven by Playwright: a page of the site is
opened and the modules are imported into it with ``import("/static/...")``, so
nothing is needed beyond what the end-to-end tests use.  The catalog checks
read the JSON files and the JavaScript, and need no browser.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from biriba.analysis import LABELS as ANALYSIS_LABELS
from biriba.bots import BOT_KINDS
from biriba.errors import IllegalActionError
from biriba.melds.explain import too_many_wilds
from biriba.reasons import REASONS, placeholders
from biriba.rules import OPTION_NAMES, PRESETS
from biriba.server.messages import refusal_reason
from biriba.terms import Ending, Pickup
from serverkit import running_server

STATIC = Path(__file__).resolve().parent.parent / "src" / "biriba" / "server" / "static"
LANGUAGES = ("en", "el", "it")
WILDS = ["JK", "2S", "2H", "2D", "2C"]

browser_test = pytest.mark.needs("chromium")  # the catalog checks at the end run without a browser


# ------------------------------------------------------------------ browser
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(f"sqlite:///{tmp_path_factory.mktemp('js')}/web.sqlite3") as url:
        yield url


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    """The lobby in English, its catalogs loaded; no error may reach the console."""
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(server + "/")
    page.wait_for_selector("#create-form")
    yield page
    context.close()
    assert not errors, errors


def refusal(error: IllegalActionError) -> dict[str, Any]:
    """An engine refusal as an ``error`` message carries it."""
    return {"code": "illegal", "message": str(error), "reason": refusal_reason(error)}


def run(page: Page, body: str, arg: Any = None) -> Any:
    """Run an async function body in the page, with `arg` as `arg`; modules by `await import("/static/...")`."""
    return page.evaluate(f"async (arg) => {{ {body} }}", arg)


@browser_test
def test_cards_are_named_in_words_in_english_and_greek(page: Page) -> None:
    names = run(
        page,
        """
        const cards = await import("/static/cards.js");
        const i18n = await import("/static/i18n.js");
        const codes = ["7S", "QH", "TD", "AC", "JK"];
        const english = codes.map(cards.cardName);
        const text = codes.map(cards.cardText);
        const token = cards.tokenName("JK=6H");
        await i18n.setLanguage("el");
        const greek = codes.map(cards.cardName);
        const greekToken = cards.tokenName("2C=5D");
        await i18n.setLanguage("en");
        return { english, text, token, greek, greekToken };
        """,
    )
    assert names["english"] == ["seven of spades", "queen of hearts", "ten of diamonds", "ace of clubs", "joker"]
    assert names["text"] == ["7♠", "Q♥", "10♦", "A♣", "Joker"]
    assert names["token"] == "joker as six of hearts"
    assert names["greek"][0] == "εφτάρι μπαστούνι"
    assert names["greek"][3].endswith("σπαθί") and names["greek"][3] != "ace of clubs"
    assert names["greek"][4] == "τζόκερ"
    assert "καρό" in names["greekToken"] and "σπαθί" in names["greekToken"]


@browser_test
def test_a_hand_sorts_by_suit_or_rank_with_the_table_wilds_last(page: Page) -> None:
    hand = ["9H", "JK", "3S", "2H", "KD", "AS", "5C", "2C"]
    out = run(
        page,
        """
        const { sortHand, handGroup, isWildKind } = await import("/static/cards.js");
        const [hand, wilds] = arg;
        return {
          suit: sortHand(hand, wilds),
          rank: sortHand(hand, wilds, "rank"),
          noTwos: sortHand(hand, ["JK"]),
          groups: sortHand(hand, wilds).map((c) => handGroup(c, wilds)),
          wild: ["2H", "JK", "3S"].map((c) => isWildKind(c, wilds)),
          twoNotWild: isWildKind("2H", ["JK"]),
          unchanged: hand,
        };
        """,
        [hand, WILDS],
    )
    assert out["suit"] == ["AS", "3S", "9H", "5C", "KD", "2H", "2C", "JK"]  # ♠ ♥ ♣ ♦, then wild twos, then jokers
    assert out["rank"] == ["AS", "3S", "5C", "9H", "KD", "2H", "2C", "JK"]
    assert out["noTwos"] == ["AS", "3S", "2H", "9H", "2C", "5C", "KD", "JK"]  # a two that is no wild sorts as a card
    assert out["groups"] == ["S", "S", "H", "C", "D", "wild", "wild", "wild"]
    assert out["wild"] == [True, True, False]
    assert out["twoNotWild"] is False
    assert out["unchanged"] == hand


@browser_test
def test_a_placed_wild_token_splits_into_card_and_slot(page: Page) -> None:
    out = run(
        page,
        """
        const { placed, cardsPlain } = await import("/static/cards.js");
        return [placed("JK=6H"), placed("7H"), placed("2S=TD"), cardsPlain(["3H", "4H", "JK=5H"])];
        """,
    )
    assert out[0] == {"card": "JK", "slot": "6H"}
    assert out[1] == {"card": "7H", "slot": None}
    assert out[2] == {"card": "2S", "slot": "TD"}
    assert out[3] == "3♥ 4♥ Joker=5♥"


@browser_test
def test_an_action_string_splits_into_kind_meld_cards_and_end(page: Page) -> None:
    out = run(
        page,
        """
        const { actionParts } = await import("/static/words.js");
        return [actionParts("add 2 7H JK=8H wild=low"), actionParts("meld 3S 4S 2C=5S"), actionParts("draw")];
        """,
    )
    add, meld, draw = out
    assert (add["kind"], add["meld"], add["tokens"], add["end"]) == ("add", 2, ["7H", "JK=8H"], "low")
    assert add["cards"] == ["7H", "JK"]
    assert (meld["kind"], meld["meld"], meld["cards"], meld["end"]) == ("meld", None, ["3S", "4S", "2C"], None)
    assert (draw["kind"], draw["tokens"]) == ("draw", [])


TELL = """
const { eventWords, tplain } = await import("/static/words.js");
const names = (seat) => ["Eleni", "Bot 2", "Nikos", "Bot 4"][seat];
return arg.map(([event, me]) => eventWords(event, me, names).map((line) => tplain(line.key, line.params)));
"""


@browser_test
def test_events_are_told_in_words_from_the_readers_seat(page: Page) -> None:
    events = [
        ({"kind": "action", "seat": 0, "action": "draw", "drawn": "7H"}, 0),
        ({"kind": "action", "seat": 1, "action": "draw", "drawn": None}, 0),
        ({"kind": "action", "seat": 2, "action": "meld 3H 4H JK=5H"}, 0),
        ({"kind": "action", "seat": 2, "action": "take", "taken": ["KC"]}, None),
        ({"kind": "action", "seat": 0, "action": "add 1 6H"}, 0),
        ({"kind": "deal", "deal": 2}, 0),
        ({"kind": "result", "deal": 2, "result": {"ended_by": "closure"}}, 0),
    ]
    told = run(page, TELL, events)
    assert told == [
        ["You draw 7♥."],
        ["Bot 2 draws."],
        ["Nikos melds 3♥ 4♥ Joker=5♥."],
        ["Nikos takes the pile (1 card): K♣."],
        ["You add 6♥ to meld 1."],
        ["Deal 2 is dealt."],
        ["Deal 2 is over (a player went out)."],  # who, when the closing event is not known
    ]


@browser_test
def test_a_turn_the_clock_played_says_so_after_the_move(page: Page) -> None:
    events = [
        ({"kind": "action", "seat": 2, "action": "discard 9C", "by": "clock"}, 0),
        ({"kind": "action", "seat": 0, "action": "discard 9C", "by": "clock"}, 0),
        ({"kind": "action", "seat": 3, "action": "discard 9C", "by": "absent", "reserve": "discard"}, 0),
        ({"kind": "action", "seat": 1, "action": "discard 4D", "ended": "closure"}, None),
        ({"kind": "action", "seat": 2, "action": "draw", "by": "handed"}, 0),
        ({"kind": "action", "seat": 0, "action": "draw", "by": "handed"}, 0),
        ({"kind": "action", "seat": 2, "action": "pass", "by": "left"}, None),
    ]
    told = run(page, TELL, events)
    assert told[0] == ["Nikos discards 9♣.", "(the turn clock ran out: a bot played this for Nikos)"]
    assert told[1] == ["You discard 9♣.", "(your turn clock ran out: a bot played this for you)"]
    assert told[2][0] == "Bot 4 discards 9♣."
    assert told[2][1].startswith("That was Bot 4's last card")
    assert told[2][2] == "(Bot 4 is away: a bot played this for them)"
    assert told[3] == ["Bot 2 discards 4♦.", "Bot 2 goes out!"]
    assert told[4] == ["Nikos draws.", "(a bot played this for Nikos, who handed it the seat)"]
    assert told[5] == ["You draw.", "(a bot played this for you: you handed it your seat)"]
    assert told[6] == ["Nikos passes.", "(Nikos is free: a bot played this)"]


@browser_test
def test_a_meld_state_is_told_from_the_engines_facts(page: Page) -> None:
    melds = [
        {"kind": "run", "size": 5, "clean": True, "biriba": False},
        {"kind": "set", "size": 7, "clean": True, "biriba": True},
        {"kind": "run", "size": 8, "clean": False, "biriba": True},
        {"kind": "run", "size": 13, "clean": False, "biriba": True},
        {"kind": "wild", "size": 7, "clean": True, "biriba": True},
    ]
    out = run(page, 'const { meldWords } = await import("/static/words.js"); return arg.map(meldWords);', melds)
    assert out == [
        "run of 5",
        "clean biriba (set of 7)",
        "dirty biriba (run of 8)",
        "dirty 13-run",
        "wild-card biriba (7)",
    ]


@browser_test
def test_the_formatting_helpers(page: Page) -> None:
    out = run(
        page,
        """
        const sheet = await import("/static/table/sheet.js");
        const strip = await import("/static/table/strip.js");
        const model = await import("/static/table/model.js");
        return {
          signed: [310, -45, 0].map(sheet.signed),
          winners: [sheet.winnersFromTotals([310, 500, 500]), sheet.winnersFromTotals([-10, 640])],
          title: [strip.rulesTitle("classic*"), strip.rulesTitle("kozi"), strip.rulesTitle("nonesuch")],
          same: [
            model.sameCards(["7H", "JK", "7H"], ["7H", "7H", "JK"]),
            model.sameCards(["7H", "JK"], ["7H", "7H"]),
            model.sameCards(["7H"], ["7H", "7H"]),
          ],
        };
        """,
    )
    assert out["signed"] == ["+310", "-45", "0"]
    assert out["winners"] == [[1, 2], [1]]
    assert out["title"] == ["Classic (house rules)", "Kozi", "nonesuch"]
    assert out["same"] == [True, False, False]


@browser_test
def test_the_rules_are_told_from_the_catalog_in_the_readers_language(page: Page) -> None:
    """The preset and each option changed from it (``rules.preset``, ``rules.changed``) in the catalog's words,
    yes, no and none translated, other values as sent; the server's English lines only from an old server."""
    rules = {
        "name": "classic*",
        "preset": "classic",
        "changed": {"target": "3000", "twos_wild": "false", "trump_run_bonus": "none", "take_rule": "top-card"},
        "words": ["classic: the primary profile", "target: 3000 (match target (R29))"],
    }
    out = run(
        page,
        """
        const lobby = await import("/static/lobby.js");
        const i18n = await import("/static/i18n.js");
        const told = {};
        for (const lang of ["el", "it", "en"]) {
          await i18n.setLanguage(lang);
          told[lang] = lobby.rulesLines(arg);
        }
        const old = lobby.rulesLines({ ...arg, changed: undefined, preset: undefined });
        const newer = lobby.rulesLines({ name: "kozi*", preset: "kozi", changed: { shiny_new: "7" } });
        const panel = lobby.rulesPanel(arg, { id: "x" });
        return { told, old, newer, panel: [panel.id, panel.className, panel.querySelectorAll("li").length],
                 none: lobby.rulesPanel({}), labels: [lobby.optionLabel("target"), lobby.optionLabel("shiny_new")] };
        """,
        rules,
    )
    greek = out["told"]["el"]
    assert greek[0].startswith("Κλασική: Τέσσερις παίκτες")
    assert greek[1] == "Στόχος: 3000 — Οι πόντοι που κερδίζουν την παρτίδα."
    assert greek[2].startswith("Δυάρια μπαλαντέρ: όχι — ")
    assert greek[3].startswith("Μπόνους σειράς στο ατού: κανένα — ")
    assert greek[4].startswith("Μάζεμα των πεταμένων: top-card — ")  # a word of the option's own is shown as sent
    assert out["told"]["it"][1] == "Obiettivo: 3000 — I punti che vincono la partita."
    assert out["told"]["it"][2].startswith("Due come matte: no — ")
    assert out["told"]["en"][1] == "Target: 3000 — The points that win the match."
    assert out["told"]["en"][3].startswith("Trump run bonus: none — ")
    assert out["old"] == rules["words"]  # an old server: its English lines
    assert out["newer"] == ["Kozi: " + catalogs()["en"]["preset.kozi.help"], "shiny_new: 7"]  # an option unknown here
    assert out["panel"] == ["x", "rules-words", 5]
    assert out["none"] is None
    assert out["labels"] == ["Target", "shiny_new"]


# ---------------------------------------------------------------- the model
def table_info(wilds: list[str] = WILDS) -> dict[str, Any]:
    seats = [
        {"seat": 0, "kind": "person", "name": "Eleni", "team": 0, "connected": True, "stand_in": False},
        {"seat": 1, "kind": "bot", "bot": "greedy", "name": "greedy bot", "team": 1},
        {"seat": 2, "kind": "person", "name": "Nikos", "team": 0, "connected": True, "stand_in": False},
        {"seat": 3, "kind": "bot", "bot": "greedy", "name": "greedy bot", "team": 1},
    ]
    rules = {"name": "classic", "wilds": wilds, "options": {"target": 5000, "target_rule": "exceed"}, "words": []}
    return {"id": "t", "rules": rules, "seats": seats, "status": "playing", "totals": [0, 0], "deals": 1}


def state(
    version: int,
    hand: list[str],
    events: list[dict[str, Any]] | None = None,
    legal: list[str] | None = None,
    seat: int = 0,
    to_move: int = 0,
    melds: list[list[list[str]]] | None = None,
    board: list[dict[str, Any]] | None = None,
    result: dict[str, Any] | None = None,
) -> dict[str, Any]:
    hands: list[Any] = [{"count": 11} for _ in range(4)]
    hands[seat] = hand
    view = {"hands": hands, "to_move": to_move, "phase": "play", "melds": melds or [[], []], "discard": ["4D"]}
    view["reserves"] = [None, None]
    return {
        "type": "state",
        "version": version,
        "seat": seat,
        "table": table_info(),
        "view": view,
        "legal": legal or [],
        "events": events or [],
        "result": result,
        "board": board,
        "sheet": [],
        "clock": None,
        "winners": None,
    }


def action(number: int, seat: int, text: str, **more: Any) -> dict[str, Any]:
    return {"number": number, "deal": 1, "kind": "action", "seat": seat, "action": text, **more}


MODEL = """
const M = await import("/static/table/model.js");
const S = M.createModel({ id: "t", token: "x", me: 0 });
const apply = (message, now = 1000) => M.applyState(S, message, now);
const pick = (...cards) => { for (const card of cards) M.toggleCard(S, S.hand.indexOf(card)); };
"""


@browser_test
def test_the_model_keeps_each_event_once_and_the_log_to_its_limit(page: Page) -> None:
    hand = ["3S", "4S"]
    first = state(3, hand, [action(n, 1, "draw") for n in range(3)])
    again = state(5, hand, [action(n, 1, "draw") for n in range(1, 5)])  # 1 and 2 seen already
    flood = state(405, hand, [action(n, 1, "draw") for n in range(5, 405)])
    out = run(
        page,
        MODEL
        + """
        const [first, again, flood] = arg;
        const one = apply(first);
        const two = apply(again);
        const numbers = S.events.map((e) => e.number);
        apply(flood);
        return { one: [one.first, one.fresh.length], two: [two.first, two.fresh.length], numbers,
                 limit: M.LOG_LIMIT, kept: S.events.length, oldest: S.events[0].number, last: S.lastNumber };
        """,
        [first, again, flood],
    )
    assert out["one"] == [True, 3]
    assert out["two"] == [False, 2]
    assert out["numbers"] == [0, 1, 2, 3, 4]
    assert out["kept"] == out["limit"] == 300
    assert out["oldest"] == 105
    assert out["last"] == 404


@browser_test
def test_the_last_idle_round_is_announced_from_the_engines_count(page: Page) -> None:
    """D36: the state's ``idle_left`` (the engine's ``idle_turns_left``) is shown once a round or less is left."""
    messages = []
    for version, (idle, left) in enumerate([(0, None), (3, 5), (4, 4), (7, 1)]):
        message = state(version + 1, ["3S"])
        message["view"]["idle_turns"], message["idle_left"] = idle, left
        messages.append(message)
    out = run(
        page,
        MODEL
        + """
        const i18n = await import("/static/i18n.js");
        const told = [];
        for (const message of arg) {
          apply(message);
          const warning = M.idleWarning(S);
          told.push(warning && i18n.t("table.idle_left", warning));
        }
        return told;
        """,
        messages,
    )
    assert out == [
        None,
        None,  # five turns left: more than a round of four seats
        "No meld for 4 turns: 4 more such turns end the deal",
        "No meld for 7 turns: 1 more such turn ends the deal",
    ]


@browser_test
def test_the_picked_cards_stay_picked_when_the_hand_sorts_again(page: Page) -> None:
    before = state(1, ["9H", "3S", "JK", "KD"])
    after = state(2, ["9H", "3S", "JK", "KD", "4S", "7H"])
    out = run(
        page,
        MODEL
        + """
        const [before, after] = arg;
        apply(before);
        const hand1 = [...S.hand];
        pick("9H", "JK");
        const picked1 = M.selectedCards(S);
        apply(after);
        const result = { hand1, picked1, hand2: [...S.hand], picked2: M.selectedCards(S), indexes: [...S.selected] };
        M.resort(S, "rank");
        result.byRank = [...S.hand];
        result.picked3 = M.selectedCards(S);
        S.pending = 2;
        apply({ ...after, version: 3 });
        result.afterSent = [...S.selected];
        return result;
        """,
        [before, after],
    )
    assert out["hand1"] == ["3S", "9H", "KD", "JK"]
    assert out["picked1"] == ["9H", "JK"]
    assert out["hand2"] == ["3S", "4S", "7H", "9H", "KD", "JK"]
    assert out["picked2"] == ["9H", "JK"]
    assert out["indexes"] == [3, 5]
    assert out["byRank"] == ["3S", "4S", "7H", "9H", "KD", "JK"]
    assert out["picked3"] == ["9H", "JK"]
    assert out["afterSent"] == []  # the own action went through: nothing picked any more


@browser_test
def test_fresh_cards_are_the_drawn_card_then_the_taken_pile(page: Page) -> None:
    messages = [
        state(1, ["3S", "4S"], [{"number": 0, "deal": 1, "kind": "deal"}]),
        state(2, ["3S", "4S", "7H"], [action(1, 0, "draw", drawn="7H")]),
        state(3, ["3S", "4S", "7H", "9C", "TC"], [action(2, 0, "take", taken=["9C", "TC"])]),
        state(4, ["3S", "4S", "7H", "9C"], [action(3, 0, "discard TC")]),
        state(5, ["3S"], [action(4, 1, "draw"), action(5, 0, "meld 4S 5S 6S", reserve="meld", packet=["AH", "2D"])]),
    ]
    out = run(
        page,
        MODEL + "return arg.map((message) => { apply(message); return [...S.fresh]; });",
        messages,
    )
    assert out == [[], ["7H"], ["9C", "TC"], [], ["AH", "2D"]]


@browser_test
def test_options_for_match_only_the_exact_picked_cards(page: Page) -> None:
    legal = [
        "add 1 JK",
        "add 2 JK",
        "discard 3S",
        "discard JK",
        "meld 3S 4S 5S",
        "meld 3S 4S JK=2S",
        "meld 3S 4S JK=5S",
    ]
    message = state(7, ["3S", "4S", "5S", "JK", "9D"], legal=legal)
    out = run(
        page,
        MODEL
        + """
        apply(arg);
        const texts = (list) => list.map((p) => p.text);
        const result = { mine: M.myTurn(S) };
        pick("3S", "4S", "JK");
        result.meld = texts(M.optionsFor(S, "meld"));
        result.discard3 = texts(M.optionsFor(S, "discard"));
        M.clearSelection(S);
        pick("JK");
        result.add = texts(M.optionsFor(S, "add"));
        result.add2 = texts(M.optionsFor(S, "add", 2));
        result.discard = texts(M.optionsFor(S, "discard"));
        M.clearSelection(S);
        pick("3S", "4S");
        result.two = texts(M.optionsFor(S, "meld"));
        return result;
        """,
        message,
    )
    assert out["mine"] is True
    assert out["meld"] == ["meld 3S 4S JK=2S", "meld 3S 4S JK=5S"]
    assert out["discard3"] == []
    assert out["add"] == ["add 1 JK", "add 2 JK"]
    assert out["add2"] == ["add 2 JK"]
    assert out["discard"] == ["discard JK"]
    assert out["two"] == []


@browser_test
def test_the_model_names_seats_and_teams_from_the_readers_seat(page: Page) -> None:
    melds = [[["5H", "6H", "7H"]], []]
    events = [action(1, 2, "add 1 7H"), action(2, 1, "meld 3C 4C 5C"), action(3, 3, "discard 9D")]
    out = run(
        page,
        """
        const M = await import("/static/table/model.js");
        const S = M.createModel({ token: "x", me: 1 });
        const [message] = arg;
        M.applyState(S, message, 5);
        return {
          order: M.teamOrder(S), teams: M.teams(S), names: [0, 1, 2, 3].map((seat) => M.who(S, seat)),
          short: [M.teamShort(S, 0), M.teamShort(S, 1)], label: M.teamLabel(S, 1), mine: M.myTurn(S),
          flash: [...S.lastFlash].sort(), wilds: M.wilds(S), target: M.options(S).target,
        };
        """,
        [state(4, ["3S"], events, seat=1, to_move=0, melds=melds)],
    )
    assert out["order"] == [1, 0]
    assert out["teams"] == [[0, 2], [1, 3]]
    assert out["names"] == ["Eleni", "You", "Nikos", "Bot 4"]
    assert out["short"] == ["Eleni & Nikos", "Us"]
    assert out["label"] == "Us (you & Bot 4)"
    assert out["mine"] is False
    assert out["flash"] == ["0:1", "1:0", "pile"]  # added to meld 1; a new meld (team 1 has none in this view)
    assert out["wilds"] == WILDS
    assert out["target"] == 5000


@browser_test
def test_the_result_is_shown_once_and_remembers_when_it_came(page: Page) -> None:
    result = {
        "team_scores": [10, -5],
        "breakdown": [{"total": 10}, {"total": -5}],
        "ended_by": "closure",
        "winners": [0],
    }
    out = run(
        page,
        MODEL
        + """
        const [playing, over] = arg;
        apply(playing, 100);
        const seen = [S.resultSeenAt];
        apply(over, 200);
        seen.push(S.resultSeenAt);
        S.showResult = false;
        apply({ ...over, version: 9 }, 300);
        seen.push(S.resultSeenAt, S.showResult);
        apply({ ...playing, version: 10 }, 400);
        seen.push(S.resultSeenAt);
        return seen;
        """,
        [state(1, ["3S"]), state(8, ["3S"], result=result)],
    )
    assert out == [None, 200, 200, False, None]


@browser_test
def test_the_end_a_displaced_wild_goes_to_is_named_by_the_slot_the_engine_sent(page: Page) -> None:
    """The state's ``wild_to`` (from ``Deal.displaced_to``, tests/test_deal.py) names where the joker goes; a state
    without it (an older server) still tells the end."""
    melds = [[["5H", "6H", "JK=7H"], ["9C", "9D", "9S"]], []]
    run_meld = {"kind": "run", "size": 3, "clean": False, "biriba": False, "points": 30, "bonus": 0, "to_biriba": 4}
    set_meld = {**run_meld, "kind": "set", "clean": True}
    board = [
        {"points": 60, "opening_minimum": 0, "melds": [run_meld, set_meld]},
        {"points": 0, "opening_minimum": 0, "melds": []},
    ]
    legal = ["add 1 7H wild=high", "add 1 7H wild=low"]
    message = state(2, ["7H"], legal=legal, melds=melds, board=board)
    message["wild_to"] = {"add 1 7H wild=high": "8H", "add 1 7H wild=low": "4H"}
    older = {**message, "version": 3}
    del older["wild_to"]
    out = run(
        page,
        MODEL
        + """
        const { choiceWords } = await import("/static/table/input.js");
        const { actionParts } = await import("/static/words.js");
        const [message, older] = arg;
        apply(message);
        const words = legal => choiceWords(S, actionParts(legal));
        const told = [words("add 1 7H wild=high"), words("add 1 7H wild=low")];
        apply(older);
        told.push(words("add 1 7H wild=low"));
        return told;
        """,
        [message, older],
    )
    assert out == ["Joker moves up to 8♥", "Joker moves down to 4♥", "Joker moves to the low end"]


@browser_test
def test_the_board_shows_the_engines_meld_states_bonuses_and_points(page: Page) -> None:
    melds = [[["3H", "4H", "5H", "6H", "7H", "8H", "9H"], ["QC", "QD", "2S"]], [["5S", "6S", "7S", "8S", "JK=9S"]]]
    meld = {"kind": "run", "size": 7, "clean": True, "biriba": True, "points": 45, "bonus": 200, "to_biriba": 0}
    dirty_set = {"kind": "set", "size": 3, "clean": False, "biriba": False, "points": 30, "bonus": 0, "to_biriba": 4}
    near = {"kind": "run", "size": 5, "clean": False, "biriba": False, "points": 40, "bonus": 0, "to_biriba": 2}
    board = [
        {"points": 275, "opening_minimum": 0, "melds": [meld, dirty_set]},
        {"points": 40, "opening_minimum": 90, "melds": [near]},
    ]
    out = run(
        page,
        MODEL
        + """
        const { renderBoard } = await import("/static/table/board.js");
        apply(arg);
        const ctx = { S, id: "t", el: { board: document.createElement("section") }, render: () => {} };
        renderBoard(ctx);
        const panels = [...ctx.el.board.querySelectorAll("[data-testid=team]")];
        return panels.map((panel) => ({
          team: panel.dataset.team,
          points: panel.querySelector("[data-testid=team-points] .words-long").textContent,
          short: panel.querySelector("[data-testid=team-points] .words-short").textContent,
          facts: panel.querySelector(".team-facts").textContent,
          opening: panel.querySelector(".opening")?.textContent ?? null,
          melds: [...panel.querySelectorAll("[data-testid=meld]")]
            .map((m) => [m.className, ...[".meld-state", ".meld-short"].map((c) => m.querySelector(c).textContent)]),
        }));
        """,
        state(3, ["3S"], melds=melds, board=board, to_move=1),
    )
    mine, theirs = out
    assert mine["team"] == "0" and mine["points"] == "275 points on the table" and mine["short"] == "275 pts"
    assert "1 biriba" in mine["facts"]
    assert mine["opening"] is None
    assert mine["melds"] == [
        ["meld run biriba clean", "★ clean biriba (run of 7) +200", "★ run 7"],
        ["meld set", "set of 3", "set 3"],
    ]
    assert theirs["points"] == "40 points on the table"
    assert theirs["opening"] == "The first melding must be worth at least 90 points."
    assert theirs["melds"] == [["meld run", "run of 5 · 2 more for a biriba", "run 5"]]


@browser_test
def test_a_player_who_left_keeps_their_name_and_an_away_ones_turn_counts_down_to_the_stand_in(page: Page) -> None:
    before = state(3, ["3S"], [action(0, 1, "draw")], to_move=2)
    gone = state(4, ["3S"], [action(1, 1, "discard 9C")], to_move=2)
    gone["table"]["seats"][2].update({"name": None, "left": "Nikos", "connected": False})
    away = {
        "type": "presence",
        "seats": [{"seat": 2, "connected": False, "stand_in": False, "handed": False, "stand_in_in": 42.3}],
    }
    out = run(
        page,
        MODEL
        + """
        const { turnText } = await import("/static/table/strip.js");
        apply(arg.before);
        M.applyPresence(S, arg.away, 10000);
        const now = Date.now;
        Date.now = () => 10000;
        const first = turnText(S).text;
        Date.now = () => 30000;
        const later = turnText(S).text;
        Date.now = now;
        const notesBefore = S.notes.length;
        apply(arg.gone, 40000);
        const name = M.nameOf(S, 2);
        return { notesBefore, notes: S.notes, name, first, later, standIn: S.standInAt };
        """,
        {"before": before, "gone": gone, "away": away},
    )
    assert out["notesBefore"] == 0
    assert out["notes"] == [{"after": 1, "key": "log.left", "params": {"who": "Nikos"}}]
    assert out["name"] == "Nikos (left)"
    assert out["first"] == "Nikos is away: the computer plays for them in 43 s"
    assert out["later"] == "Nikos is away: the computer plays for them in 23 s"
    assert out["standIn"] == {}  # the seat is free now: nobody is away from it


# ------------------------------------------------------ the new table parts
@browser_test
def test_the_deal_result_says_who_went_out(page: Page) -> None:
    result = {"team_scores": [300, -40], "breakdown": [{"total": 300}, {"total": -40}], "ended_by": "closure"}
    events = [action(1, 2, "draw"), action(2, 2, "discard 9C", ended="closure")]
    out = run(
        page,
        MODEL
        + """
        const { endedWords, eventWords, tplain } = await import("/static/words.js");
        const names = (seat) => ["Eleni", "Bot 2", "Nikos", "Bot 4"][seat];
        const told = (event, closer, me = 0) =>
          eventWords(event, me, names, closer).map((l) => tplain(l.key, l.params));
        const [message] = arg;
        apply(message);
        const event = { kind: "result", deal: 1, result: { ended_by: "closure" } };
        return {
          closer: M.closerOf(S, 1),
          none: M.closerOf(S, 2),
          words: [[2, "closure"], [0, "closure"], [2, "passes"], [null, "closure"]]
            .map(([seat, how]) => endedWords(how, seat, 0, names)),
          log: [told(event, 2), told(event, 0), told(event, 2, null)],
        };
        """,
        [state(3, ["3S"], events)],
    )
    assert out["closer"] == 2 and out["none"] is None
    assert out["words"] == ["Nikos went out", "you went out", "everyone passed", "a player went out"]
    assert out["log"] == [
        ["Deal 1 is over (Nikos went out)."],
        ["Deal 1 is over (you went out)."],
        ["Deal 1 is over (Nikos went out)."],
    ]
    del result


@browser_test
def test_the_score_chart_scales_every_total_and_the_target(page: Page) -> None:
    out = run(
        page,
        """
        const C = await import("/static/table/chart.js");
        const i18n = await import("/static/i18n.js");
        const totals = C.runningTotals([[310, -45], [500, 145], [-200, 900]]);
        const g = C.chartGeometry(totals, 1000);
        const el = C.scoreChart(totals, { target: 1000, names: (t) => ["Us", "Nikos & Bot 4"][t], id: "c" });
        const styled = [el, ...el.querySelectorAll("*")].filter((x) => x.hasAttribute("style")).length;
        return {
          totals, min: g.min, max: g.max, ticks: g.ticks.map((t) => t.value), target: g.target,
          zero: g.y(0), top: g.y(g.max), bottom: g.y(g.min), first: g.lines[0].points,
          deals: g.deals.map((d) => d.deal),
          steps: [C.niceStep(1000), C.niceStep(3000), C.niceStep(0), C.niceStep(170)],
          empty: C.chartGeometry([[], []], null).ticks.map((t) => t.value),
          role: el.getAttribute("role"), label: el.getAttribute("aria-label"), id: el.id,
          lines: [...el.querySelectorAll("polyline")].map((l) => l.getAttribute("class")),
          dashed: el.querySelector(".chart-target").getAttribute("stroke-dasharray"),
          styled,
        };
        """,
    )
    assert out["totals"] == [[310, 810, 610], [-45, 100, 1000]]
    assert (out["min"], out["max"]) == (-500, 1000)  # room for -45 and the target, in round steps
    assert out["ticks"] == [-500, 0, 500, 1000]
    size = {"top": 10, "bottom": 160 - 22, "left": 40, "right": 320 - 10}
    assert out["top"] == size["top"] and out["bottom"] == size["bottom"]
    assert out["target"] == out["top"]  # the target is the highest value here
    assert out["zero"] == round(10 + (1000 / 1500) * (size["bottom"] - size["top"]), 1)
    assert out["first"][0] == [size["left"], out["zero"]]  # every line starts at 0 before deal 1
    assert out["first"][-1][0] == size["right"]  # and ends at the right edge with the last deal
    assert out["deals"] == [1, 2, 3]
    assert out["steps"] == [500, 1000, 1, 50]
    assert out["empty"] == [0, 1]
    assert out["role"] == "img" and out["id"] == "c"
    assert out["label"] == "Running totals deal by deal: Us 610, Nikos & Bot 4 1000. Target 1000."
    assert out["lines"] == ["chart-line team-0", "chart-line team-1"]
    assert out["dashed"] and out["styled"] == 0  # no inline style: the CSP forbids it


@browser_test
def test_chat_lines_are_kept_once_and_a_muted_seat_is_hidden(page: Page) -> None:
    lines = [
        {"type": "said", "seat": 0, "name": "Eleni", "phrase": "good_luck", "at": 1.5},
        {"type": "said", "seat": 2, "name": "Nikos", "text": "<b>hi</b>", "at": 2.5},
        {"type": "said", "seat": 0, "name": "Eleni", "phrase": "laugh", "at": 3.5},
        {"type": "said", "seat": 0, "name": "Eleni", "phrase": "good_luck", "at": 1.5},  # told again on joining
    ]
    out = run(
        page,
        MODEL
        + """
        const kept = arg.map((line) => M.addChat(S, line));
        const muted = M.toggleMute([], 2);
        return {
          kept, count: S.chat.length,
          words: S.chat.map(M.chatWords),
          all: M.visibleChat(S.chat, []).map((l) => l.seat),
          muted, shown: M.visibleChat(S.chat, muted).map((l) => l.seat),
          unmuted: M.toggleMute(M.toggleMute(muted, 0), 2),
        };
        """,
        lines,
    )
    assert out["kept"] == [True, True, True, False]
    assert out["count"] == 3
    assert out["words"] == ["Good luck!", "<b>hi</b>", "😂"]  # free text stays text (shown with textContent)
    assert out["all"] == [0, 2, 0]
    assert out["muted"] == [2] and out["shown"] == [0, 0]
    assert out["unmuted"] == [0]


@browser_test
def test_the_chat_panel_names_each_speaker_and_never_parses_markup(page: Page) -> None:
    lines = [
        {"type": "said", "seat": 2, "name": "Nikos", "text": "<img src=x onerror=alert(1)>", "at": 1.0},
        {"type": "said", "seat": 0, "name": "Eleni", "phrase": "wow", "at": 2.0},
    ]
    message = state(2, ["3S"])
    message["table"]["settings"] = {"chat": "text"}
    out = run(
        page,
        MODEL
        + """
        const { renderChat } = await import("/static/table/chat.js");
        const { h } = await import("/static/dom.js");
        const [message, lines] = arg;
        apply(message);
        for (const line of lines) M.addChat(S, line);
        const el = { chatPanel: h("section"), chatList: h("ol"), chatMuted: h("p"), chatNote: h("p") };
        el.chatTools = h("div");
        el.sideTabs = { chat: h("button") };
        const ctx = { S, id: "t", el, render: () => {}, send: () => true, timers: {}, page: { announce() {} } };
        renderChat(ctx);
        const items = [...el.chatList.querySelectorAll("[data-testid=chat-line]")];
        const first = {
          who: items.map((li) => li.querySelector(".chat-who").textContent),
          text: items.map((li) => li.textContent),
          images: el.chatList.querySelectorAll("img").length,
          mutes: [...el.chatList.querySelectorAll("[data-testid=mute]")].map((b) => b.dataset.seat),
          emote: el.chatList.querySelector(".emote").getAttribute("aria-label"),
          phrases: el.chatTools.querySelectorAll("[data-testid=phrase]").length,
          box: !!el.chatTools.querySelector("#chat-text"),
        };
        S.muted = [2];
        renderChat(ctx);
        first.afterMute = [...el.chatList.querySelectorAll("[data-testid=chat-line]")].map((li) => li.dataset.seat);
        first.unmute = [...el.chatMuted.querySelectorAll("[data-testid=unmute]")].map((b) => b.textContent.trim());
        return first;
        """,
        [message, lines],
    )
    assert out["who"] == ["Nikos", "You"]
    assert out["text"][0].endswith(": <img src=x onerror=alert(1)>") and out["images"] == 0
    assert out["mutes"] == ["2"]  # a mute by the other speaker's name, none by one's own
    assert out["emote"] == "surprised"
    assert out["phrases"] == 16 and out["box"] is True  # 11 phrases and 5 emotes; the text box at a "text" table
    assert out["afterMute"] == ["0"]
    assert out["unmute"] == ["Nikos"]


@browser_test
def test_the_engine_is_asked_why_picked_cards_make_no_move(page: Page) -> None:
    legal = ["discard 3S", "discard 9D", "meld 3S 4S 5S"]
    message = state(7, ["3S", "4S", "5S", "9D", "KH"], legal=legal)
    message["view"]["phase"] = "play"
    drawing = {**message, "version": 8, "legal": ["draw", "take"], "view": {**message["view"], "phase": "draw"}}
    out = run(
        page,
        MODEL
        + """
        const [message, drawing] = arg;
        apply(message);
        const asked = [];
        asked.push(M.explainRequest(S));  // nothing picked
        pick("3S");
        asked.push(M.explainRequest(S));  // a legal discard: nothing to ask
        M.clearSelection(S); pick("KH");
        asked.push(M.explainRequest(S));
        pick("9D");
        asked.push(M.explainRequest(S));
        const answer = (action, version, rule) =>
          ({ type: "explained", action, version, legal: false, message: "x", rule });
        const stale = M.applyExplained(S, answer("meld KH 9D", 6, "R8"));
        const other = M.applyExplained(S, answer("discard KH", 7, "R16"));
        const kept = M.applyExplained(S, { type: "explained", action: "meld KH 9D", version: 7, legal: false,
                                           message: "R7: a set is 3 or more cards of one rank", rule: "R7" });
        const why = M.whyNow(S) && M.whyNow(S).text;
        M.toggleCard(S, S.hand.indexOf("9D"));
        const after = M.whyNow(S);
        apply(drawing);
        asked.push(M.explainRequest(S));  // the draw phase: nothing to explain
        return { asked, stale, other, kept, why, after,
                 refusal: M.ruleText({ rule: "R16", message: "R16: you took the single card 7H" }),
                 unknown: M.ruleText({ rule: "house", message: "no" }),
                 notation: M.ruleText({ rule: "notation", message: "not a card: 9Z" }) };
        """,
        [message, drawing],
    )
    assert out["asked"] == [None, None, "discard KH", "meld KH 9D", None]
    assert (out["stale"], out["other"], out["kept"]) == (False, False, True)
    assert out["why"] == "R7 · Sets (3+ cards of one rank): a set is 3 or more cards of one rank"
    assert out["after"] is None  # the pick changed: that answer is no longer shown
    assert out["refusal"] == "R16 · A single card taken from the pile: you took the single card 7H"
    assert out["unknown"] == "house: no" and out["notation"] == "not a card: 9Z"


@browser_test
def test_the_engines_reasons_and_the_servers_codes_are_said_in_the_readers_language(page: Page) -> None:
    """A refusal's reason as data (key and params) in words: cards as card text, a rank in the plural, a suit, a
    meld's kind, a count's noun by its number, a nested reason; an unknown key falls back to the engine's English."""
    nested = IllegalActionError(
        "set_biribas", "only_runs_are_biribas", why=IllegalActionError("R22", "out_needs_biribas", count=1)
    )
    refusals = [
        {"rule": "R16", **refusal(IllegalActionError("R16", "single_taken_stays", card="7H"))},
        {"rule": "R7", **refusal(IllegalActionError("R7", "set_short", rank="K", cards="KH KS"))},
        {"rule": "wild_limit", **refusal(too_many_wilds(PRESETS["italian"], "run", 2, 2, "5H 6H JK=7H 2C=8H"))},
        {"rule": "set_biribas", **refusal(nested)},
        {"rule": "R8", "message": "R8: from a newer engine", "reason": {"key": "shiny_new", "params": {}}},
        {"code": "not_your_turn", "message": "it is Eleni's turn"},
        {"code": "brand_new", "message": "as the server wrote it"},
    ]
    out = run(
        page,
        """
        const i18n = await import("/static/i18n.js");
        const M = await import("/static/table/model.js");
        const told = {};
        for (const lang of ["en", "el", "it"]) {
          await i18n.setLanguage(lang);
          told[lang] = arg.map((r) => M.ruleText(r));
        }
        return told;
        """,
        refusals,
    )
    en, el = out["en"], out["el"]
    assert en[0] == (
        "R16 · A single card taken from the pile: you took the single card 7♥ from the pile:"
        " it and its copy stay in hand this turn"
    )
    assert en[1].endswith(": not enough kings for a set (K♥ K♠)")
    assert en[2].endswith("1 wild, and this run would hold 2 (5♥ 6♥ Joker=7♥ 2♣=8♥)")
    assert en[2].split(": ", 1)[1].startswith("a meld holds at most one wild per two naturals: 2 naturals allow 1 wild")
    assert en[3].endswith(
        ": going out needs a biriba on your team's table, and under these rules only runs are biribas"
    )
    assert en[4] == "R8 · Runs (3+ cards in a row, one suit): from a newer engine"
    assert en[5:] == ["It is not your turn.", "as the server wrote it"]
    for lang in ("el", "it"):
        told = out[lang]
        assert all(a != b for a, b in zip(told[:4], en[:4])), lang  # translated, not English
        assert "7♥" in told[0] and "K♥ K♠" in told[1] and "2♣=8♥" in told[2], lang
        assert told[4].endswith(": from a newer engine") and told[6] == "as the server wrote it"
    assert "ρηγάδες" in el[1].lower() and "μπιρίμπα" in el[3].lower()


@browser_test
def test_a_hint_picks_its_cards_and_an_old_one_is_ignored(page: Page) -> None:
    message = state(7, ["3S", "4S", "5S", "9D"], legal=["discard 9D", "meld 3S 4S 5S"])
    out = run(
        page,
        MODEL
        + """
        apply(arg);
        const old = M.applyHint(S, { type: "hint", action: "discard 9D", version: 6 });
        const p = M.applyHint(S, { type: "hint", action: "meld 3S 4S 5S", version: 7 });
        const picked = M.selectedCards(S);
        S.hint = { pending: true, version: 7 };
        const note = M.applyHintError(S, { type: "error", code: "rate_limited", message: "one hint every 5 seconds" });
        const other = M.applyHintError(S, { type: "error", code: "illegal", message: "x" });
        const { actionWords, tplain } = await import("/static/words.js");
        const words = ["draw", "take", "meld 3S 4S JK=5S", "add 2 7H", "discard 9D"].map((a) => {
          const w = actionWords(a); return tplain(w.key, w.params); });
        return { old, kind: p.kind, picked, note, hint: S.hint.note, other, words };
        """,
        message,
    )
    assert out["old"] is None and out["kind"] == "meld"
    assert sorted(out["picked"]) == ["3S", "4S", "5S"]
    assert out["note"] is True and out["hint"].startswith("One hint every few seconds")
    assert out["other"] is False
    assert out["words"] == [
        "draw from the stock",
        "take the pile",
        "meld 3♠ 4♠ Joker=5♠",
        "add 7♥ to meld 2",
        "discard 9♦",
    ]


@browser_test
def test_a_state_that_names_its_table_info_the_same_takes_the_last_one(page: Page) -> None:
    out = run(
        page,
        """
        const { fillSame } = await import("/static/table/connection.js");
        const first = fillSame({ type: "state", version: 1, table: { status: "playing" } }, undefined);
        const next = fillSame({ type: "state", version: 2, same: ["table"] }, first);
        return { first, next };
        """,
    )
    assert out["first"] == {"type": "state", "version": 1, "table": {"status": "playing"}}
    assert out["next"] == {"type": "state", "version": 2, "table": {"status": "playing"}}  # and no "same" left


@browser_test
def test_a_rematch_answer_keeps_the_seat_and_a_watcher_gives_a_name(page: Page) -> None:
    out = run(
        page,
        """
        const M = await import("/static/table/model.js");
        const { joinMessage } = await import("/static/table/connection.js");
        const seated = M.rematchPlan({ type: "rematch", table: "abc", seat: 2, token: "tok" }, "Nikos");
        const chooser = M.rematchPlan({ type: "rematch", table: "abc" }, "Nikos");
        const watcher = M.createModel({ id: "t" });
        const player = M.createModel({ id: "t", token: "tok", me: 0 });
        return {
          seated, chooser,
          named: joinMessage(watcher, "  Maria  "), guest: joinMessage(watcher, ""),
          long: joinMessage(watcher, "x".repeat(31)),
          player: joinMessage(player, "Maria"),
          watchers: (() => {
            const S = M.createModel({ id: "t" });
            S.state = { table: { watchers: ["Maria", null] } };
            return M.watcherNames(S);
          })(),
        };
        """,
    )
    assert out["seated"] == {"id": "abc", "seat": {"token": "tok", "seat": 2, "name": "Nikos"}, "path": "/t/abc"}
    assert out["chooser"] == {"id": "abc", "seat": None, "path": "/t/abc"}
    assert out["named"] == {"type": "join", "token": None, "since": 0, "name": "Maria", "same": True}
    assert "name" not in out["guest"] and "name" not in out["long"]
    assert out["player"] == {"type": "join", "token": "tok", "since": 0, "same": True}  # a seat's name is the seat's
    assert out["watchers"] == ["Maria", "a guest"]


# ----------------------------------------------------------------- catalogs
def catalogs() -> dict[str, dict[str, str]]:
    return {lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8")) for lang in LANGUAGES}


def javascript() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(STATIC.rglob("*.js")))


#: The rules and options the engine names in its refusals (grep 'IllegalActionError(' and 'cite(' in src/biriba):
#: each has a short title in every catalog, shown before the engine's reason.
RULE_TITLES = [
    *[f"R{n}" for n in (7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 20, 21, 22, 23, 30)],
    *["wild_limit", "twos_wild", "opening_minimums", "take_rule", "closure_by", "single_take_closure"],
    *["reserve_access", "biriba_size", "closure_run_and_set", "set_biribas", "sets", "stock_out", "wild_melds"],
    *["closure_biribas", "reserve_biribas", "min_meld"],
]
#: The quick phrases and emotes of docs/protocol.md, and who may play a person's move (an event's "by").
PHRASES = ["hello", "good_luck", "well_played", "nice_biriba", "thanks", "sorry", "oops", "hurry", "thinking"]
PHRASES += ["good_game", "bye"]
EMOTES = ["smile", "laugh", "wow", "sad", "angry"]
#: The server's refusal codes a player can meet (docs/protocol.md), said in the reader's language.
ERROR_CODES = ["spectator", "not_your_turn", "rate_limited", "chat", "over", "not_over", "no_deal", "store", "moving"]
ERROR_CODES += ["bad_message", "too_large", "taken", "name_taken", "quota", "bad_token", "stale", "broken", "too_many"]
ERROR_CODES += ["not_yours", "no_player", "expired", "no_passkey", "banned"]
BY = ["clock", "absent", "handed", "left"]

#: The keys the page builds at run time: the template as the JavaScript writes it, and every key it can make.
DYNAMIC: dict[str, list[str]] = {
    "`analysis.${d.label}`": [f"analysis.{name}" for name, _ in ANALYSIS_LABELS],
    "`analysis.${name}_count`": [f"analysis.{name}_count" for name, _ in ANALYSIS_LABELS],
    "`analysis.${status.status}`": ["analysis.failed", "analysis.stalled"],
    "`rank.${rankOf(code)}`": [f"rank.{r}" for r in "A23456789TJQK"],
    "`suit.${suitOf(code)}`": [f"suit.{s}" for s in "SHDC"],
    "`suit.${v.trump}`": [f"suit.{s}" for s in "SHDC"],
    "`ended.${endedBy}`": [f"ended.{e}" for e in Ending] + ["ended.null"],  # null: a deal not over
    "`ended.${event.ended}`": [f"ended.{e}" for e in Ending],
    "`part.${key}`": [f"part.{p}" for p in ("melds", "bonuses", "hands", "going_out", "reserve", "cut", "total")],
    "`bot.${seat.bot}`": [f"bot.{b}" for b in BOT_KINDS],
    "`bot.${b}`": [f"bot.{b}" for b in BOT_KINDS],
    "`preset.${name}`": [f"preset.{p}" for p in PRESETS],
    "`preset.${name}.help`": [f"preset.{p}.help" for p in PRESETS],
    "`option.${name}`": [f"option.{o}" for o in OPTION_NAMES],
    "`option.${name}.help`": [f"option.{o}.help" for o in OPTION_NAMES],
    "`value.${word}`": [f"value.{w}" for w in ("true", "false", "none")],
    "`status.${status}`": [f"status.{s}" for s in ("open", "playing", "over")],
    "`status.${held.status}`": [f"status.{s}" for s in ("open", "playing")],  # a seat bound to an account
    '`pace.${String(v).replace(".", "_")}`': ["pace.0", "pace.0_5", "pace.1", "pace.2", "pace.4"],
    "`action.${spec.id}`": [f"action.{a}" for a in ("draw", "take", "pass", "meld", "add", "discard")],
    "`meld.${info.kind}`": ["meld.run", "meld.set", "meld.wild"],
    "`meld.short_${info.kind}`": ["meld.short_run", "meld.short_set", "meld.short_wild"],
    "`meld.${clean}_13`": ["meld.clean_13", "meld.dirty_13"],
    "`meld.${clean}_biriba`": ["meld.clean_biriba", "meld.dirty_biriba"],
    "`ev.reserve_${event.reserve}${suffix}`": [f"ev.reserve_{p}{y}" for p in Pickup for y in ("", "_you")],
    "`ev.by_${event.by}${suffix}`": [f"ev.by_{b}{y}" for b in BY for y in ("", "_you")],
    "`rule.${rule}`": [f"rule.{r}" for r in RULE_TITLES],
    "`chat.${line.phrase}`": [f"chat.{p}" for p in PHRASES],
    "`chat.${id}`": [f"chat.{p}" for p in PHRASES],
    "`emote.${line.phrase}`": [f"emote.{e}" for e in EMOTES],
    "`emote.${id}`": [f"emote.{e}" for e in EMOTES],
    "`create.chat_${v}`": ["create.chat_off", "create.chat_phrases", "create.chat_text"],
    "`reason.${reason.key}`": [f"reason.{key}" for key in REASONS],
    "`error.code.${refusal.code}`": [f"error.code.{code}" for code in ERROR_CODES],
    "`ranks.${value}`": [f"ranks.{r}" for r in "A23456789TJQK"],
    "`word.${value}`": ["word.set", "word.run", "word.low", "word.high"],
}
#: words.js tells an action as "ev.<kind>" + suffix, the suffix "_you" when the reader played it.
SUFFIXED = re.compile(r'"(ev\.\w+)" \+ suffix')
LITERAL = re.compile(r"\"([A-Za-z][\w.\-]*)\"|'([A-Za-z][\w.\-]*)'")


def used_keys(source: str) -> set[str]:
    """Every key the JavaScript names: its string literals, the keys its templates make, "ev.x" + suffix."""
    used = {next(g for g in m.groups() if g) for m in LITERAL.finditer(source)}
    for template, keys in DYNAMIC.items():
        if template in source:
            used.update(keys)
    for match in SUFFIXED.finditer(source):
        used.update({match[1], match[1] + "_you"})
    return used


def test_every_catalog_has_every_key_of_the_english_one_and_no_other() -> None:
    found = catalogs()
    english = found["en"]
    plural = [key for key in english if key.endswith("_one")]
    assert plural, "the English catalog has its _one forms"
    for lang, catalog in found.items():
        assert sorted(set(english) - set(catalog)) == [], f"{lang} lacks these keys"
        assert sorted(set(catalog) - set(english)) == [], f"{lang} has keys English has not"
        assert all(isinstance(v, str) and v.strip() for v in catalog.values()), f"{lang} has an empty entry"


def test_every_translation_keeps_the_placeholders_of_the_english() -> None:
    found = catalogs()
    wrong = []
    for key, text in found["en"].items():
        for lang in ("el", "it"):
            if placeholders(found[lang].get(key, "")) != placeholders(text):
                wrong.append((lang, key))
    assert wrong == []


def test_the_english_catalog_holds_the_engines_reasons_word_for_word() -> None:
    """The engine's refusals are said from the catalogs (``reason.<key>``): English is the engine's own template,
    so that the page and the terminal say the same, and Greek and Italian translate every one."""
    found = catalogs()
    english = {key.removeprefix("reason."): text for key, text in found["en"].items() if key.startswith("reason.")}
    assert english == REASONS
    for lang in ("el", "it"):
        assert all(found[lang][f"reason.{key}"] != text for key, text in REASONS.items() if len(text) > 40), lang


def test_every_rule_option_and_preset_has_a_label_and_a_help_in_every_catalog() -> None:
    """The rules' words come from the catalogs, not the server's English: each option of the engine and each
    preset has its name and its help in every language (an option without them would show its bare name)."""
    found = catalogs()
    needed = [k for name in OPTION_NAMES for k in (f"option.{name}", f"option.{name}.help")]
    needed += [k for name in PRESETS for k in (f"preset.{name}", f"preset.{name}.help")]
    for lang, catalog in found.items():
        assert sorted(k for k in needed if k not in catalog) == [], lang
    for name in OPTION_NAMES:  # translated, not English left in place (a bare number label would be the same)
        for suffix in ("", ".help"):
            key = f"option.{name}{suffix}"
            assert found["el"][key] != found["en"][key], key
    option_keys = {k.removesuffix(".help") for k in found["en"] if k.startswith("option.")}
    assert option_keys == {f"option.{name}" for name in OPTION_NAMES}, "a catalog names an option the engine has not"


def test_the_dynamic_keys_are_written_so_in_the_javascript_and_all_exist() -> None:
    source = javascript()
    english = catalogs()["en"]
    for template, keys in DYNAMIC.items():
        assert template in source, f"no longer in the JavaScript: {template} (update DYNAMIC)"
        assert sorted(k for k in keys if k not in english) == [], template
    suffixed = SUFFIXED.findall(source)
    assert "ev.draw" in suffixed and "ev.discard" in suffixed
    assert sorted(k for base in suffixed for k in (base, base + "_you") if k not in english) == []


def test_every_key_the_javascript_names_is_in_the_catalog() -> None:
    english = catalogs()["en"]
    namespaces = {key.split(".")[0] for key in english}
    source = javascript()
    named = set(re.findall(r"\bt\(\s*\"([^\"]+)\"", source))  # t("key"
    named |= {k for k in used_keys(source) if "." in k and k.split(".")[0] in namespaces and not k.endswith(".js")}
    assert sorted(k for k in named if k not in english) == []


def test_every_key_in_the_catalog_is_used_by_the_javascript() -> None:
    used = used_keys(javascript())
    unused = [
        key
        for key in catalogs()["en"]
        if key not in used and not (key.endswith("_one") and key.removesuffix("_one") in used)
    ]
    assert unused == []


def test_the_page_speaks_only_the_documented_protocol() -> None:
    """Every message the page sends is one the server's schema takes, and every message either side
    speaks of is in docs/protocol.md."""
    from biriba.server.connection import MESSAGE_TYPES

    script = "\n".join(path.read_text() for path in STATIC.rglob("*.js"))
    protocol = (STATIC.parents[3] / "docs" / "protocol.md").read_text()
    sent = set(re.findall(r'\{ type: "([a-z_]+)"', script)) - {"button", "checkbox", "number", "submit", "text"}
    heard = set(re.findall(r'message\.type === "([a-z_]+)"', script))
    assert sent and sent <= set(MESSAGE_TYPES), sent - set(MESSAGE_TYPES)
    for kind in sent | heard | set(MESSAGE_TYPES):
        assert f'"type": "{kind}"' in protocol, f"{kind} is not in docs/protocol.md"


@browser_test
def test_the_analysis_graph_draws_each_team_at_its_decisions_and_marks_the_costly_ones(page: Page) -> None:
    out = run(
        page,
        """
        const A = await import("/static/analysis.js");
        const decision = (index, team, value, label) => ({ index, team, value, label, seat: team });
        const decisions = [decision(1, 0, 10, null), decision(2, 1, -10, "mistake"), decision(4, 0, 40, "blunder")];
        const g = A.graphGeometry(decisions, 8);
        return {
          lines: g.lines.map((l) => [l.team, l.points.length]),
          marks: g.marks.map((m) => [m.decision.index, m.x]),
          left: g.x(0), right: g.x(8), zero: g.zero, top: g.y(40), bottom: g.y(-10),
          empty: A.graphGeometry([], 0).lines.length,
        };
        """,
    )
    size = {"left": 40, "right": 320 - 8, "top": 8, "bottom": 130 - 18}
    assert out["lines"] == [[0, 2], [1, 1]]  # one line a team, a point at each of its decisions
    step = (size["right"] - size["left"]) / 8
    assert out["marks"] == [[2, round(size["left"] + step, 1)], [4, round(size["left"] + 3 * step, 1)]]  # before it
    assert (out["left"], out["right"]) == (size["left"], size["right"])
    assert size["top"] < out["top"] < out["zero"] < out["bottom"] < size["bottom"]  # the values fit, with a margin
    assert out["empty"] == 0
