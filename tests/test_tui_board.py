"""The melds on the full-screen table (``tui/board.py``): in sight, readable at 80x24 at every table size, and
a click on one adds to it."""

from __future__ import annotations

import pytest

from biriba.match import Match
from biriba.rules import CLASSIC, PRESETS
from biriba.terms import Reserve
from biriba.tui.app import BiribaApp
from biriba.tui.board import MeldsBoard
from biriba.tui.session import Session
from helpers import mid_deal
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
        board = app.query_one(MeldsBoard)
        text = board.render().plain
        lines = text.splitlines()
        assert all(len(line) <= board.size.width for line in lines), text
        assert len(lines) <= 24 - MeldsBoard.REST, text  # the rest of the table keeps its rows
        assert "…" not in text, text
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
