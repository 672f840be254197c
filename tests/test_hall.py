"""The tables a server knows (``server/hall.py``): quotas per address, tables that expire or leave memory, the lobby.

Each test runs a real server on loopback with short limits, so that a
minute's quota or half an hour's expiry happens in a second or two.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from biriba.bots import known_kinds
from biriba.server.config import ServerConfig
from serverkit import GREEDY, PERSON, Player, create_table, serving, sit

BOTS = [GREEDY] * 4


def wait_for(test: object, seconds: float = 15) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if test():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError("it never happened")


def test_an_address_may_make_so_many_tables_a_minute_and_hold_so_many_open(tmp_path: Path) -> None:
    config = ServerConfig(tables_per_minute=3, open_tables=4, bot_workers=1)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, _app):
        for _ in range(3):
            create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        fourth = httpx.post(url + "/api/tables", json={"seats": [PERSON, GREEDY, GREEDY, GREEDY]})
        assert fourth.status_code == 429 and fourth.json()["code"] == "quota"
        assert "3 tables in the last minute" in fourth.json()["error"]
        assert 1 <= int(fourth.headers["retry-after"]) <= 60
        lobby = httpx.get(url + "/api/tables").json()
        assert len(lobby["tables"]) == 3  # the refused one made nothing


def test_open_tables_per_address(tmp_path: Path) -> None:
    config = ServerConfig(tables_per_minute=100, open_tables=2, bot_workers=1)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, _app):
        create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        third = httpx.post(url + "/api/tables", json={})
        assert third.status_code == 429 and "2 tables open or in play" in third.json()["error"]
        assert third.headers["retry-after"] == "60"


def test_a_table_no_person_sat_at_expires_and_one_they_did_stays(tmp_path: Path) -> None:
    config = ServerConfig(unclaimed_after=1, idle_after=3600, janitor_every=0.2, bot_workers=1)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, app):
        empty = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        bots = create_table(url, BOTS, bot_delay=5)
        kept = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        sit(url, kept["id"], 0, "Ann")
        wait_for(lambda: httpx.get(f"{url}/api/tables/{empty['id']}").status_code == 404)
        # bots alone, and nobody watching (created a moment later, it may expire a janitor's round later)
        wait_for(lambda: httpx.get(f"{url}/api/tables/{bots['id']}").status_code == 404)
        assert httpx.get(f"{url}/api/tables/{kept['id']}").status_code == 200
        lobby = httpx.get(url + "/api/tables").json()["tables"]
        assert [t["id"] for t in lobby] == [kept["id"]]
        assert set(app.state.hall.live) == {kept["id"]}  # the expired ones left memory too


def test_an_idle_table_leaves_memory_and_comes_back_as_it_was(tmp_path: Path) -> None:
    config = ServerConfig(idle_after=1, janitor_every=0.2, bot_workers=1)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, app):
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0)
        token = sit(url, table["id"], 0, "Ann")

        async def visit() -> int:
            async with Player(url, table["id"], token) as me:
                state = await me.until(lambda m: m["type"] == "state" and bool(m["legal"]))
                await me.send({"type": "action", "action": state["legal"][0], "version": state["version"]})
                moved = await me.until(lambda m: m["type"] == "state" and m["version"] > state["version"])
                return int(moved["version"])

        version = asyncio.run(visit())
        hall = app.state.hall
        assert table["id"] in hall.live
        wait_for(lambda: table["id"] not in hall.live)  # nobody connected: gone from memory
        info = httpx.get(f"{url}/api/tables/{table['id']}").json()  # loaded again on demand
        assert table["id"] in hall.live and info["status"] == "playing"

        async def back() -> int:
            async with Player(url, table["id"], token) as me:
                return int((await me.until(lambda m: m["type"] == "state"))["version"])

        assert asyncio.run(back()) >= version  # every move kept


def test_the_lobby_pages_through_every_table_without_loading_finished_ones(tmp_path: Path) -> None:
    config = ServerConfig(tables_per_minute=100, open_tables=100, bot_workers=1)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, app):
        made = [create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])["id"] for _ in range(7)]
        seen: list[str] = []
        after = None
        for _ in range(5):
            page = httpx.get(url + "/api/tables", params={"limit": 3, **({"after": after} if after else {})}).json()
            seen += [t["id"] for t in page["tables"]]
            after = page["next"]
            if after is None:
                break
        assert seen == made[::-1]  # newest first, each once
        app.state.hall.live.clear()  # as after a restart: nothing in memory
        over = httpx.get(url + "/api/tables", params={"status": "open"}).json()["tables"]
        assert len(over) == 7 and not app.state.hall.live  # listed from the store alone
        assert all(t["seats"][0]["connected"] is False for t in over)


def test_the_janitor_collects_the_old_cyclic_garbage_of_closed_connections_and_times_it(tmp_path: Path) -> None:
    """The server collects old objects almost never by itself; the janitor's full collection frees their cycles."""
    import gc
    import weakref

    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    config = ServerConfig(janitor_every=0.2, collect_every=0.5, bot_workers=1)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, app):
        node = Node()
        gone = weakref.ref(node)
        for _ in range(3):
            gc.collect(1)  # the cycle reaches the old generation, as a long connection's does
        del node
        assert gone() is not None
        wait_for(lambda: gone() is None)
        assert app.state.hall.last_pause > 0
        assert "biriba_gc_pause_seconds" in httpx.get(url + "/metrics").text


def test_a_bot_kind_that_needs_options_no_request_can_give_is_refused_in_its_own_words(tmp_path: Path) -> None:
    """A plugin's kind may need options (``policy:PATH``): the schema lists it, and the table is refused with the
    plugin's own words (422), never made and then broken (it was a 500, found by the API fuzzer)."""
    if "policy" not in known_kinds():
        pytest.skip("the rl extra (the policy bot) is not installed: nothing offers a kind that needs options")
    with serving(f"sqlite:///{tmp_path}/t.sqlite3") as (url, _app):
        seats = [{"kind": "person"}, {"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "policy"}]
        answer = httpx.post(f"{url}/api/tables", json={"rules": "three-handed", "seats": seats}, timeout=30)
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"].startswith("seats.2.bot: policy:PATH names a saved policy")
        assert httpx.get(f"{url}/api/tables").json()["tables"] == []
