"""The melds on the full-screen table (``tui/board.py``): in sight, readable at 80x24 at every table size, and
a click on one adds to it."""

from __future__ import annotations

import pytest

from biriba.cards import NAMES, deck_counts, parse_card, parse_cards
from biriba.deal import Deal
from biriba.match import Match
from biriba.rules import CLASSIC, PRESETS, Rules
from biriba.terms import Reserve
from biriba.tui.app import BiribaApp
from biriba.tui.board import MeldsBoard
from biriba.tui.dialogs import Dialog
from biriba.tui.session import Session
from helpers import mid_deal, position
from test_tui_app import pick, run


def test_every_meld_is_in_sight_and_a_click_adds_to_the_meld_clicked() -> None:
    from biriba.cards import parse_card
    from helpers import position

    runs = [f"{r}S {s}S {t}S" for r, s, t in ("345", "789", "JQK")] + [f"{r}H {s}H {t}H" for r, s, t in ("345", "789")]
    sets = ["4C 4D 4D", "6C 6D 6D", "8C 8D 8D", "TC TD TD", "QC QD QD", "KC KD KD"]
    session = Session.new(CLASSIC, ["greedy"], seed=30)
    deal = position({0: "TH 9C QH"}, melds=([*runs, *sets], []), phase="play")
    session.match.deals.append(deal)  # eleven melds: more than one column holds at 80x24

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        await pilot.pause()
        board = app.query_one("#melds", MeldsBoard)
        text = board.render().plain
        for number in range(1, 12):
            assert f"{number}. " in text, (number, text)
        await pick(app, (parse_card("TH"),))
        row, start, _end, number = next(p for p in board.places if p[3] == 5)  # meld 5 is 7H 8H 9H
        await pilot.click("#melds", offset=(start + 1 + 1, row))  # the board's padding, then the meld
        await pilot.pause()
        assert str(deal.history[-1][1]) == "add 5 TH", app.status_text().plain

    run(test, session)


TABLES = [
    ("classic", {"seats": 2, "partnerships": False}),
    ("classic", {"seats": 3, "partnerships": False}),
    ("classic", {"seats": 4, "partnerships": False}),
    ("classic", {"seats": 5, "partnerships": False}),
    ("classic", {"seats": 6, "partnerships": False}),
    ("classic", {}),
    ("classic", {"seats": 6}),
    ("italian", {}),
    ("italian-individual", {}),
    ("atout", {}),
]


@pytest.mark.parametrize(("name", "options"), TABLES, ids=[f"{n}-{o}" for n, o in TABLES])
def test_at_80x24_every_score_and_reserve_is_readable_at_every_table_size(
    name: str, options: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = PRESETS[name].replace(**options) if options else PRESETS[name]
    session = mid_deal(rules, seed=len(options) + rules.seats)
    view = session.view()
    # the longest words a team's line can hold: every reserve taken, to play next turn, by its last seat
    view.reserves = [Reserve(seats[-1], False) for seats in rules.teams]
    monkeypatch.setattr(session, "view", lambda: view)
    monkeypatch.setattr(Match, "totals", property(lambda match: [4985] * len(rules.teams)))

    async def test(app: BiribaApp) -> None:
        await app.pilot.pause()  # type: ignore[attr-defined]
        text = in_sight(app)
        words = session.words
        for team, seats in enumerate(rules.teams):
            points = f"{words.team_label(team)}  {words.table_points(view, team)} pts"
            assert points in text, (points, text)
            assert f"reserve: {words.short_name(seats[-1])}, next turn" in text, text
        header = app.header_text(words)
        assert header.plain.count("4985") == len(rules.teams) and "(first " in header.plain, header.plain
        assert len(header.wrap(app.console, 80)) <= (1 if rules.seats <= 4 else 2), header.plain  # never cut
        info = app.info_text(view, words).plain
        assert all(len(line) <= 80 for line in info.splitlines()), info

    run(test, session)


def in_sight(app: BiribaApp) -> str:
    """The board's text, checked to be whole and to leave every other part of the table in sight at 80x24."""
    board = app.query_one(MeldsBoard)
    text = board.render().plain
    lines = text.splitlines()
    assert all(len(line) <= board.size.width for line in lines), text
    assert len(lines) <= board.size.height, text  # the board got the rows it needs: nothing below it is cut
    assert "…" not in text, text
    for part in ("#header", "#melds", "#info", "#storybox", "#hand", "#status", "#command"):
        region = app.query_one(part).region
        assert region.height > 0 and region.y >= 0 and region.bottom <= 24, (part, region)
    assert app.query_one("#storybox").region.height >= 3
    assert app.query_one("#header").region.y == 0
    return text


def crowded(rules: Rules, melds_each: int, hand: int) -> Deal:
    """A deal where every team has ``melds_each`` runs of three and you hold ``hand`` cards: the most a table shows."""
    suits = "SHDC"
    windows = ["3 4 5", "6 7 8", "9 T J", "Q K A"]
    melds = tuple(
        [" ".join(f"{rank}{suits[team % 4]}" for rank in windows[m % 4].split()) for m in range(melds_each)]
        for team in range(len(rules.teams))
    )
    left = deck_counts(rules.packs, rules.jokers)
    for team in melds:
        for meld in team:
            for card in parse_cards(meld):
                left[card] -= 1
    pool = [NAMES[c] for c in range(52) if c >= 8 for _ in range(left[c])]  # naturals, no twos: no wild
    reserves = tuple((seats[0], True) for seats in rules.teams)
    return position({0: " ".join(pool[:hand])}, melds=melds, rules=rules, reserves=reserves, phase="draw")


@pytest.mark.parametrize(
    ("options", "melds_each", "hand"),
    [({"seats": 6, "partnerships": False}, 4, 20), ({"seats": 4, "partnerships": False}, 4, 26)],
)
def test_a_crowded_table_keeps_the_scores_the_hand_and_the_story_in_sight(
    options: dict[str, object], melds_each: int, hand: int
) -> None:
    rules = CLASSIC.replace(**options)
    session = Session.new(rules, ["greedy"], seed=40)
    deal = crowded(rules, melds_each, hand)
    session.match.deals.append(deal)

    async def test(app: BiribaApp) -> None:
        await app.pilot.pause()  # type: ignore[attr-defined]
        app.redraw()
        await app.pilot.pause()  # type: ignore[attr-defined]
        text = in_sight(app)
        words = session.words
        for team in range(len(rules.teams)):
            assert f"{words.team_label(team)}  {words.table_points(deal.view_for(0), team)} pts" in text, text
        for number in range(1, melds_each + 1):  # your own melds are always there, to add to
            assert f"{number}. " in text.split("\n")[1] + text.split("\n")[2], text
        await app.pilot.press("v")  # type: ignore[attr-defined]
        await app.pilot.pause()  # type: ignore[attr-defined]
        assert isinstance(app.screen, Dialog)
        every = "\n".join(part.plain for part in app.screen.body.renderables)  # type: ignore[attr-defined]
        assert every.count("  1. ") == len(rules.teams) and every.count(f"  {melds_each}. ") == len(rules.teams)

    run(test, session)


def test_a_click_on_another_teams_meld_adds_nothing() -> None:
    rules = CLASSIC.replace(seats=3, partnerships=False)
    session = Session.new(rules, ["greedy"], seed=41)
    melds = (["3S 4S 5S"], ["3H 4H 5H"], ["3D 4D 5D"])  # each its meld 1
    deal = position({0: "6S 6H 9C 9D KC"}, melds=melds, rules=rules, phase="play")
    session.match.deals.append(deal)

    async def test(app: BiribaApp) -> None:
        pilot = app.pilot  # type: ignore[attr-defined]
        await pilot.pause()
        board = app.query_one(MeldsBoard)
        lines = board.render().plain.splitlines()
        theirs = next(row for row, line in enumerate(lines) if line.startswith("East")) + 1  # East's meld 1
        ours = next(place for place in board.places if place[3] == 1)
        await pick(app, (parse_card("6S"),))  # it would go onto your meld 1, not East's
        await pilot.click("#melds", offset=(1 + ours[1] + 1, theirs))  # below your meld: East's
        await pilot.pause()
        assert deal.history == []  # nothing was played
        assert all(row < theirs for row, _s, _e, _n in board.places)  # only your own melds take clicks
        await pilot.click("#melds", offset=(1 + ours[1], ours[0]))  # the first character of your meld 1
        await pilot.pause()
        assert [str(a) for _s, a in deal.history] == ["add 1 6S"]

    run(test, session)
