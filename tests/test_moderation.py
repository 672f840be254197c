"""Blocks, reports and bans (issue 52, row 5), against a real server on both stores.

A block hides the blocked player's chat from the blocker (at the table,
and in the lines kept for who joins) and keeps the two apart in quick
play; a report is kept for an operator, who reads it and bans with
``biriba moderate``; a banned account cannot sign in (nor with a passkey)
and its sessions end.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from biriba.cli import main
from biriba.server.accounts import Accounts, token_hash
from biriba.server.quick import Waiting, choose
from biriba.server.quotas import Quotas
from biriba.server.store import Store, async_url, migrate
from passkeykit import Authenticator
from serverkit import PERSON, Player, SignedIn, create_table, running_server, signed_up, sit_signed_in
from test_passkeys import add_passkey, sign_in_options
from test_passkeys import sign_in as passkey_sign_in

PASSWORD = "correct horse battery"


@pytest.fixture
def url(db_url: str) -> Iterator[str]:
    with running_server(db_url) as base:
        yield base


def block(url: str, who: SignedIn, name: str) -> httpx.Response:
    return httpx.post(f"{url}/api/me/blocks", json={"name": name}, cookies=who[0], headers=who[1])


def test_a_player_blocks_and_unblocks_another_by_name(url: str) -> None:
    ann, _bob = signed_up(url, "Ann"), signed_up(url, "Bob")
    assert httpx.post(f"{url}/api/me/blocks", json={"name": "Bob"}, cookies=ann[0]).status_code == 403  # no CSRF
    made = block(url, ann, "BOB")  # the name as folded
    assert made.status_code == 201 and made.json()["name"] == "Bob", made.text
    assert block(url, ann, "Bob").status_code == 201, "blocking again changes nothing"
    assert [b["name"] for b in httpx.get(f"{url}/api/me/blocks", cookies=ann[0]).json()["blocks"]] == ["Bob"]
    assert block(url, ann, "ann").json()["code"] == "invalid"
    nobody = block(url, ann, "Nobody")
    assert nobody.status_code == 404 and nobody.json()["code"] == "no_player"
    assert httpx.delete(f"{url}/api/me/blocks/bob", cookies=ann[0], headers=ann[1]).status_code == 204
    assert httpx.get(f"{url}/api/me/blocks", cookies=ann[0]).json()["blocks"] == []


def test_a_blocked_player_s_chat_never_reaches_the_blocker_but_reaches_everyone_else(url: str) -> None:
    ann, bob, cat = signed_up(url, "Ann"), signed_up(url, "Bob"), signed_up(url, "Cat")
    table = create_table(url, [PERSON] * 4, bot_delay=5, absent_after=600)["id"]
    tokens = [sit_signed_in(url, table, seat, who) for seat, who in enumerate((ann, bob, cat))]
    said_before = "hello"

    async def talk() -> tuple[list[str], list[str], list[str]]:
        async with Player(url, table, tokens[1]) as bob_seat, Player(url, table, tokens[0]) as ann_seat:
            await bob_seat.until(lambda m: m["type"] == "state")
            await ann_seat.until(lambda m: m["type"] == "state")
            await bob_seat.send({"type": "say", "phrase": said_before})
            await bob_seat.until(lambda m: m["type"] == "said")
            assert block(url, ann, "Bob").status_code == 201  # while connected: hidden from now on
            await asyncio.sleep(2.1)  # a seat says a line every 2 seconds
            await bob_seat.send({"type": "say", "phrase": "sorry"})
            await bob_seat.until(lambda m: m["type"] == "said" and m["phrase"] == "sorry")
            await ann_seat.send({"type": "say", "phrase": "thanks"})
            await ann_seat.until(lambda m: m["type"] == "said" and m["phrase"] == "thanks")
            async with Player(url, table, tokens[2]) as cat_seat, Player(url, table, tokens[0]) as ann_again:
                await cat_seat.until(lambda m: m["type"] == "said" and m["phrase"] == "thanks")
                await ann_again.until(lambda m: m["type"] == "said" and m["phrase"] == "thanks")
                lines = lambda p: [m["phrase"] for m in p.messages if m["type"] == "said"]  # noqa: E731
                return lines(ann_seat), lines(ann_again), lines(cat_seat)

    ann_live, ann_joined, cat_joined = asyncio.run(talk())
    assert ann_live == [said_before, "thanks"], "Bob's line after the block never reached Ann"
    assert ann_joined == ["thanks"], "nor the lines kept for who joins: none of Bob's"
    assert cat_joined == [said_before, "sorry", "thanks"], "everyone else hears Bob"


def test_quick_play_never_seats_a_player_with_one_they_block_or_who_blocks_them() -> None:
    now = 1000.0
    ann, bob, cat, dan, eve = (Waiting(n, n, "classic", 25.0, True, 20.0, now - i) for i, n in enumerate("abcde"))
    assert choose([ann, bob, cat, dan], now) == ([(dan,), (ann,), (bob,), (cat,)], False)
    chosen = choose([ann, bob, cat, dan, eve], now)  # eve waited longest
    assert chosen is not None and [w.account for (w,) in chosen[0]] == ["e", "a", "b", "c"]
    chosen = choose([ann, bob, cat, dan, eve], now, frozenset({("e", "a")}))  # eve blocks ann
    assert chosen is not None and [w.account for (w,) in chosen[0]] == ["e", "b", "c", "d"]
    chosen = choose([ann, bob, cat, dan, eve], now, frozenset({("b", "e")}))  # bob blocks eve
    assert chosen is not None and [w.account for (w,) in chosen[0]] == ["e", "a", "c", "d"]
    assert choose([ann, bob, cat, dan], now, frozenset({("a", "b")})) is None  # four, two apart: no table


def test_two_who_play_now_are_not_seated_together_if_one_blocks_the_other(url: str) -> None:
    ann, bob, cat = signed_up(url, "Ann"), signed_up(url, "Bob"), signed_up(url, "Cat")
    assert block(url, bob, "Ann").status_code == 201
    for who in (ann, bob, cat):
        asked = httpx.post(
            f"{url}/api/quick", json={"rules": "individual", "bots": False}, cookies=who[0], headers=who[1]
        )
        assert asked.status_code == 200, asked.text
    end = time.monotonic() + 20
    while (status := httpx.get(f"{url}/api/quick", cookies=ann[0]).json())["status"] != "seated":
        assert time.monotonic() < end, status
        time.sleep(0.2)
    table = httpx.get(f"{url}/api/tables/{status['table']}").json()
    assert sorted(seat["name"] for seat in table["seats"]) == ["Ann", "Cat"]
    assert httpx.get(f"{url}/api/quick", cookies=bob[0]).json()["status"] == "waiting"


def moderate(db_url: str, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["moderate", "--db", db_url, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_report_is_read_by_an_operator_who_bans_the_account_and_lifts_the_ban(
    url: str, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, bob = signed_up(url, "Ann"), signed_up(url, "Bob")
    device = Authenticator(url)
    assert add_passkey(url, bob, device).status_code == 201
    table = create_table(url, [PERSON] * 4, bot_delay=5, absent_after=600)["id"]
    bob_seat = sit_signed_in(url, table, 1, bob)
    body = {"name": "bob", "table": "t0123", "reason": "insults in the chat"}
    assert httpx.post(f"{url}/api/reports", json=body, cookies=ann[0]).status_code == 403  # no CSRF
    made = httpx.post(f"{url}/api/reports", json=body, cookies=ann[0], headers=ann[1])
    assert made.status_code == 201, made.text
    number = made.json()["id"]
    nobody = httpx.post(f"{url}/api/reports", json={**body, "name": "Nobody"}, cookies=ann[0], headers=ann[1])
    assert nobody.status_code == 404
    for spoiled in ({"reason": "fine\x1b[2K\r#1  Bob was cleared"}, {"table": "t" * 25}):
        refused = httpx.post(f"{url}/api/reports", json={**body, **spoiled}, cookies=ann[0], headers=ann[1])
        assert refused.status_code == 422, spoiled  # what would forge the operator's terminal, or overflow a column
    exported = httpx.get(f"{url}/api/me/export", cookies=ann[0]).json()
    assert [(r["name"], r["reason"]) for r in exported["reports"]] == [("Bob", "insults in the chat")]
    assert exported["blocks"] == []

    code, out, _ = moderate(db_url, capsys, "reports")
    assert code == 0 and f"#{number}" in out and "Bob  (by Ann, at table t0123): insults in the chat" in out
    assert out.rstrip().endswith("1 report not handled")
    code, out, _ = moderate(db_url, capsys, "ban", "BOB", "--reason", "insults, reported twice")
    assert code == 0 and "Bob is banned" in out

    assert httpx.get(f"{url}/api/me", cookies=bob[0]).json()["name"] is None, "signed out everywhere"

    async def join_banned() -> dict[str, Any]:
        async with Player(url, table, bob_seat) as seat:
            return await seat.until(lambda m: m["type"] == "error")

    assert asyncio.run(join_banned())["code"] == "banned", "the seat bound to the account is its no more"
    refused = httpx.post(f"{url}/api/session", json={"name": "Bob", "password": PASSWORD})
    assert refused.status_code == 403 and refused.json()["code"] == "banned"
    wrong = httpx.post(f"{url}/api/session", json={"name": "Bob", "password": "not the password"})
    assert wrong.status_code == 401, "a ban is told only to who knows the password"
    options = sign_in_options(url)
    assert passkey_sign_in(url, options["handle"], device.get(options["public_key"])).status_code == 403
    code, out, _ = moderate(db_url, capsys, "reports")
    assert out.rstrip().endswith("0 reports not handled"), "the ban handled the reports about Bob"
    code, out, _ = moderate(db_url, capsys, "reports", "--all")
    assert "handled, banned" in out

    assert moderate(db_url, capsys, "unban", "Bob")[0] == 0
    assert httpx.post(f"{url}/api/session", json={"name": "Bob", "password": PASSWORD}).status_code == 200
    code, _, err = moderate(db_url, capsys, "ban", "Nobody", "--reason", "x")
    assert code == 2 and "no player is called 'Nobody'" in err
    code, _, err = moderate(db_url, capsys, "handled", "999")
    assert code == 2 and "there is no report 999" in err


def test_the_accounts_and_their_sessions_come_through_the_migration_that_adds_bans(db_url: str) -> None:
    """0010 adds two columns to ``accounts`` in place: SQLite's copy of the table would have dropped the old one,
    and with it, by its foreign keys, every session of every account."""
    config = Config()
    config.set_main_option("script_location", str(Path(migrate.__code__.co_filename).parent / "migrations"))
    config.set_main_option("sqlalchemy.url", async_url(db_url))
    command.upgrade(config, "0009")

    async def before() -> None:
        engine = create_async_engine(async_url(db_url))
        try:
            async with engine.begin() as conn:
                await conn.execute(
                    text(
                        "INSERT INTO accounts (id, name, fold, fold_upper, password, created)"
                        " VALUES ('a1', 'Ann', 'ann', 'ANN', 'x', 0)"
                    )
                )
                await conn.execute(
                    text(
                        "INSERT INTO sessions (token, account, csrf, created, expires)"
                        " VALUES (:token, 'a1', 'c', 0, :expires)"
                    ),
                    {"token": token_hash("kept"), "expires": time.time() + 3600},
                )
        finally:
            await engine.dispose()

    async def after() -> None:
        store = await Store.open(db_url)
        try:
            found = await Accounts(store, Quotas()).who("kept")
            assert found is not None and found[0].name == "Ann"
        finally:
            await store.close()

    asyncio.run(before())
    asyncio.run(after())
