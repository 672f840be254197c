"""Ratings (issue 52, row 2): openskill's Plackett-Luce model, partnerships as teams, per preset family.

The model's arithmetic is openskill's; these tests hold what the server
makes of it: who is rated and when (signed-in people only, once), teams
ranked by their totals, a new player moving fast, bots fixed, and the
profile, history and leaderboard read back from both stores.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from biriba.cli import main
from biriba.rules import PRESETS, Rules
from biriba.server import ratings as ratings_module
from biriba.server.accounts import FORMER_PLAYER, Account, Accounts
from biriba.server.config import ServerConfig
from biriba.server.hall import Hall
from biriba.server.quotas import Quotas
from biriba.server.ratings import MODEL, Ratings, family, ranks, rate
from biriba.server.store import SeatInfo, Store, TableRow
from serverkit import GREEDY, PERSON, Player, create_table, played_out, running_server, signed_up, sit_signed_in

PASSWORD = "correct horse battery"
PRIOR = (MODEL.mu, MODEL.sigma)


def test_teams_rank_by_their_totals_and_equal_totals_share_a_place() -> None:
    assert ranks([5120, 3400]) == [0, 1]
    assert ranks([900, 1500, 1500]) == [2, 0, 0]


def test_partners_move_together_winners_up_and_a_new_player_moves_farther_than_a_sure_one() -> None:
    accounts = {0: "ann", 1: "bob", 2: "cat", 3: "dan"}
    now = {"cat": (25.0, 2.0)}  # cat has played many matches; the others none
    changes = {c.account: c for c in rate((0, 1, 0, 1), [5200, 3100], accounts, {}, now)}
    assert changes["ann"].after[0] > PRIOR[0] > changes["bob"].after[0]  # ann and cat won
    assert changes["bob"].after == changes["dan"].after  # partners with the same rating move alike
    ann_gain = changes["ann"].after[0] - PRIOR[0]
    cat_gain = changes["cat"].after[0] - 25.0
    assert ann_gain > 3 * cat_gain > 0  # the newcomer's rating moves far, the sure one's a little
    assert changes["ann"].after[1] < PRIOR[1]  # and every match narrows the uncertainty


def test_players_alone_are_teams_of_one_and_a_bot_is_fixed() -> None:
    accounts = {0: "ann", 2: "cat"}
    bots = {1: (30.0, 1.0)}
    changes = {c.account: c for c in rate((0, 1, 2), [800, 1600, 1200], accounts, bots, {})}
    assert set(changes) == {"ann", "cat"}  # the bot's rating is not changed: it has none to change
    assert changes["cat"].after[0] > changes["ann"].after[0]  # second place above third


def test_the_bots_ratings_are_the_ones_docs_ratings_md_gives() -> None:
    table = (Path(__file__).parents[1] / "docs" / "ratings.md").read_text()
    for kind, (mu, sigma) in ratings_module.BOT_RATINGS.items():
        if kind != "medium":
            assert f"| `{kind}`" in table and f"| {mu} | {sigma} |" in table.split(f"| `{kind}`")[1].split("\n")[0]


def test_a_tables_family_is_the_preset_its_rules_start_from() -> None:
    assert family(PRESETS["italian"]) == "italian"
    changed = PRESETS["classic"].replace(target=3000)
    assert changed.name == "classic*" and family(changed) == "classic"
    assert family(Rules.from_json(changed.to_json())) == "classic"  # as a table's row keeps it


async def _accounts(store: Store, *names: str) -> list[Account]:
    made = Accounts(store, Quotas())
    return [(await made.sign_up(name, PASSWORD, f"address {name}")).account for name in names]


async def _finished(
    store: Store, table_id: str, seats: list[SeatInfo], totals: list[int], rules: str = "classic"
) -> TableRow:
    row = TableRow(table_id, rules, {}, seats, "seed", status="over", totals=totals)
    await store.create_table(row)
    await store.save_seats(table_id, seats, "over")  # the seats' accounts, as a live table saves them
    return row


def person(account: Account | None, name: str) -> SeatInfo:
    return SeatInfo("person", name=name, token_hash=f"token of {name}", account=account.id if account else None)


def test_a_match_of_signed_in_people_is_rated_once_and_read_back(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratings_module, "LEADERBOARD_MATCHES", 2)

    async def main() -> None:
        store = await Store.open(db_url)
        try:
            ann, bob, cat, dan = await _accounts(store, "Ann", "Bob", "Cat", "Dan")
            rated = Ratings(store)
            seats = [person(ann, "Ann"), person(bob, "Bob"), person(cat, "Cat"), person(dan, "Dan")]
            first = await _finished(store, "first", seats, [5300, 2100])
            changes = await rated.rate_match(first, first.totals)
            assert changes is not None and {c.account for c in changes} == {ann.id, bob.id, cat.id, dan.id}
            assert await rated.rate_match(first, first.totals) is None  # once, whoever asks again
            guest = await _finished(store, "guest", [*seats[:3], person(None, "Eve")], [5300, 2100])
            assert await rated.rate_match(guest, guest.totals) is None  # a guest played: unrated
            assert await rated.catch_up() == 0  # rated, or marked as not to be: the janitor has nothing to do
            second = await _finished(store, "second", seats, [5100, 4900])
            assert await rated.rate_match(second, second.totals) is not None

            profile = await rated.profile(ann.id)
            assert profile["ratings"]["classic"]["matches"] == 2 and profile["ratings"]["classic"]["rating"] > 25
            latest = profile["matches"][0]
            assert latest["partners"] == [{"name": "Cat"}] and latest["opponents"] == [{"name": "Bob"}, {"name": "Dan"}]
            assert latest["won"] and latest["rated"] and not latest["with_bots"] and latest["rating_change"] > 0
            assert latest["replay"] == f"/t/{latest['table']}?replay"
            assert {m["table"] for m in profile["matches"]} == {"first", "second", "guest"}
            unrated = next(m for m in profile["matches"] if m["table"] == "guest")
            assert not unrated["rated"] and "rating_change" not in unrated

            board = await rated.leaderboard("classic")
            assert [p["name"] for p in board[:2]] == sorted(["Ann", "Cat"]) and len(board) == 4
            assert board[0]["ordinal"] >= board[-1]["ordinal"]
            assert await rated.leaderboard("italian") == []
        finally:
            await store.close()

    asyncio.run(main())


def test_a_player_who_gave_their_seat_up_is_rated_with_their_team_s_result(db_url: str) -> None:
    """Leaving a match that goes badly escapes nothing: the stand-in plays the seat on, and the one who gave it
    up is rated with their team's result, unless another person took the seat."""

    async def main() -> None:
        store = await Store.open(db_url)
        try:
            ann, bob, cat, dan = await _accounts(store, "Ann", "Bob", "Cat", "Dan")
            seats = [person(ann, "Ann"), person(bob, "Bob"), SeatInfo("person"), person(dan, "Dan")]
            row = TableRow("left", "classic", {"left": {"2": "Cat"}, "left_accounts": {"2": cat.id}}, seats, "seed")
            row.status, row.totals = "over", [900, 5100]
            await store.create_table(row)
            changes = await Ratings(store).rate_match(row, row.totals)
            assert changes is not None and {c.account: c.seat for c in changes}[cat.id] == 2
            assert next(c for c in changes if c.account == cat.id).after[0] < PRIOR[0]  # lost with Ann
        finally:
            await store.close()

    asyncio.run(main())


def test_bots_count_with_their_fixed_rating_and_an_unmeasured_bot_leaves_the_match_unrated(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ratings_module, "BOT_RATINGS", {"greedy": (27.0, 1.0)})

    async def main() -> None:
        store = await Store.open(db_url)
        try:
            (ann,) = await _accounts(store, "Ann")
            rated = Ratings(store)
            greedy, hard = SeatInfo("bot", bot="greedy"), SeatInfo("bot", bot="hard")
            unmeasured = await _finished(store, "hard", [person(ann, "Ann"), hard, greedy, hard], [100, 5100])
            assert await rated.rate_match(unmeasured, unmeasured.totals) is None
            lost = await _finished(store, "lost", [person(ann, "Ann"), greedy, greedy, greedy], [100, 5100])
            (change,) = await rated.rate_match(lost, lost.totals) or []
            assert change.after[0] < PRIOR[0]
            entry = (await rated.profile(ann.id))["matches"][0]
            assert entry["with_bots"] and entry["rated"] and entry["partners"] == [{"bot": "greedy"}]
        finally:
            await store.close()

    asyncio.run(main())


def test_a_match_played_to_its_end_at_the_server_is_rated_and_shown_on_the_profile(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ratings_module, "BOT_RATINGS", {"greedy": (27.0, 1.0)})
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, PERSON, GREEDY], bot_delay=0, deal_pause=0, options={"target": 1})
        tokens = [
            sit_signed_in(url, table["id"], seat, signed_up(url, name)) for seat, name in ((0, "Eleni"), (2, "Nikos"))
        ]
        played_out(url, table["id"], tokens)
        profile = httpx.get(f"{url}/api/players/eleni").json()  # the name as folded at sign-up
        assert profile["name"] == "Eleni" and profile["ratings"]["classic"]["matches"] == 1
        (played,) = profile["matches"]
        assert played["table"] == table["id"] and played["partners"] == [{"name": "Nikos"}] and played["rated"]
        assert played["with_bots"] and played["opponents"] == [{"bot": "greedy"}] * 2
        assert httpx.get(f"{url}/api/players/Nobody").status_code == 404
        board = httpx.get(f"{url}/api/leaderboard?rules=classic").json()
        assert board["players"] == [] and board["least_matches"] == ratings_module.LEADERBOARD_MATCHES  # one match
        assert httpx.get(f"{url}/api/leaderboard?rules=nonesuch").status_code == 422


def test_a_deleted_accounts_matches_stay_and_show_it_as_a_former_player(tmp_path: Any) -> None:
    """Issue 52, row 1: the account deleted, its finished matches stay (on the partner's profile, in the record,
    kept answers included) and its table in play goes on, its seat named "former player" and bound to nobody."""
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        eleni, nikos = signed_up(url, "Eleni"), signed_up(url, "Nikos")
        finished = create_table(url, [PERSON, GREEDY, PERSON, GREEDY], bot_delay=0, deal_pause=0, options={"target": 1})
        tokens = [sit_signed_in(url, finished["id"], seat, who) for seat, who in ((0, eleni), (2, nikos))]

        played_out(url, finished["id"], tokens)
        record = f"{url}/api/tables/{finished['id']}/record"
        assert httpx.get(record).json()["players"][2] == "Nikos"  # and kept, to answer again
        in_play = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=5)
        token = sit_signed_in(url, in_play["id"], 0, nikos)
        given_up = create_table(url, [PERSON, GREEDY, PERSON, GREEDY], bot_delay=5)
        left_token = sit_signed_in(url, given_up["id"], 2, nikos)

        async def leave() -> None:
            async with Player(url, given_up["id"], left_token) as seat:
                await seat.until(lambda m: m["type"] == "state")
                await seat.send({"type": "leave"})
                await seat.until(lambda m: m["type"] == "state" and m["seat"] is None)

        asyncio.run(leave())
        assert httpx.get(f"{url}/api/tables/{given_up['id']}").json()["seats"][2]["left"] == "Nikos"
        gone = httpx.request("DELETE", f"{url}/api/me", json={"password": "correct horse battery"}, cookies=nikos[0])
        assert gone.status_code == 403  # no CSRF token
        gone = httpx.request(
            "DELETE", f"{url}/api/me", json={"password": "correct horse battery"}, cookies=nikos[0], headers=nikos[1]
        )
        assert gone.status_code == 204
        profile = httpx.get(f"{url}/api/players/Eleni").json()
        assert profile["matches"][0]["partners"] == [{"name": FORMER_PLAYER}]
        assert httpx.get(record).json()["players"] == ["Eleni", "greedy bot", FORMER_PLAYER, "greedy bot"]
        assert httpx.get(f"{url}/api/players/Nikos").status_code == 404
        seats = httpx.get(f"{url}/api/tables/{in_play['id']}").json()["seats"]
        assert seats[0]["name"] == FORMER_PLAYER and "Nikos" not in str(seats)
        left = httpx.get(f"{url}/api/tables/{given_up['id']}").json()
        assert left["seats"][2]["left"] == FORMER_PLAYER and "Nikos" not in json.dumps(left)

        async def plays_on() -> dict[str, Any]:
            async with Player(url, in_play["id"], token) as guest:
                return await guest.until(lambda m: m["type"] == "state")

        told = asyncio.run(plays_on())
        assert told["seat"] == 0 and "Nikos" not in json.dumps(told)  # the token plays on, as a guest's


def test_a_match_its_process_left_unrated_is_rated_by_the_janitor_once(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that drove a match to its end stopped before rating it (here: its rating never ran): the
    janitor of any process rates it from the store, once."""

    async def stopped_first(self: Hall, live: Any) -> None:
        return None

    monkeypatch.setattr(Hall, "rate", stopped_first)
    config = ServerConfig(bot_workers=1, janitor_every=0.5)
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3", config) as url:
        eleni, nikos = signed_up(url, "Eleni"), signed_up(url, "Nikos")
        table = create_table(url, [PERSON, GREEDY, PERSON, GREEDY], bot_delay=0, deal_pause=0, options={"target": 1})
        tokens = [sit_signed_in(url, table["id"], seat, who) for seat, who in ((0, eleni), (2, nikos))]

        played_out(url, table["id"], tokens)
        deadline = time.monotonic() + 20
        while not (shown := httpx.get(f"{url}/api/players/Eleni").json()["ratings"]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert shown["classic"]["matches"] == 1, shown
        time.sleep(1.5)  # more rounds: rated once
        assert httpx.get(f"{url}/api/players/Nikos").json()["ratings"]["classic"]["matches"] == 1


def test_a_bots_rating_is_checked_against_the_people_s_results() -> None:
    """Issue 52, row 2: the bots' fixed ratings checked against rated play: people of the medium bot's rating who
    win nine matches in ten against it say it is weaker than its rating; the rating fitted predicts their score."""
    greedy = ratings_module.BOT_RATINGS["greedy"]
    people = (25.0, 2.0)
    played = [
        ratings_module.Played(
            (0, 1, 0, 1),
            [5100, 900] if n else [900, 5100],
            [people, greedy, people, greedy],
            {1: "greedy", 3: "greedy"},
        )
        for n in range(10)
    ]
    (check,) = ratings_module.check_bots(played)
    assert (check.kind, check.matches, check.score) == ("greedy", 10, 1.0)
    assert 4.0 < check.expected < 6.0  # evenly rated: about half
    assert check.fitted is not None and check.fitted < greedy[0] - 3
    at_fitted = [(people, (check.fitted, greedy[1]))[seat % 2] for seat in range(4)]
    (again,) = ratings_module.check_bots(
        [ratings_module.Played(m.team_of, m.totals, at_fitted, m.bots) for m in played]
    )
    assert abs(again.expected - again.score) < 0.01  # the fitted rating predicts the score
    swept = ratings_module.check_bots(played[1:])  # the people won every match: no finite rating fits
    assert swept[0].score == 0 and swept[0].fitted is None
    assert ratings_module.won([10, 10, 5]) == [0.5, 0.5, 0.0]


def test_biriba_ratings_bots_reads_the_rated_matches_with_bots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path}/t.sqlite3"
    assert main(["ratings", "--db", db, "bots"]) == 0
    assert capsys.readouterr().out == "no rated classic matches with bots yet\n"

    async def play() -> None:
        store = await Store.open(db)
        try:
            ann, bob = await _accounts(store, "Ann", "Bob")
            greedy, rated = SeatInfo("bot", bot="greedy"), Ratings(store)
            for n, totals in enumerate(([5100, 900], [900, 5100], [5100, 900])):
                row = await _finished(
                    store, f"m{n}", [person(ann, "Ann"), greedy, person(bob, "Bob"), greedy], list(totals)
                )
                assert await rated.rate_match(row, row.totals) is not None
        finally:
            await store.close()

    asyncio.run(play())
    assert main(["ratings", "--db", db, "bots"]) == 0
    header, line = capsys.readouterr().out.splitlines()
    assert header.split() == ["bot", "rating", "matches", "score", "expected", "fitted"]
    kind, rating, matches, score, expected, fitted = line.split()
    assert (kind, float(rating), int(matches), float(score)) == ("greedy", 25.0, 3, 1.0)
    assert float(fitted) < 25.0 and 0.0 < float(expected) < 3.0
