"""What a table offers the people at it beyond playing (server/live.py): why a move is refused, a hint,
handing the seat to a bot and back, leaving it, quick chat, who watches, and the rematch.

A real server on loopback (uvicorn in a thread) and WebSocket clients, as in test_server.py.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx

from biriba.server.config import ServerConfig
from serverkit import GREEDY, PERSON, Player, create_table, running_server, serving, sit


def eleni_and_nikos(url: str) -> tuple[dict[str, Any], str, str]:
    """A table of two people, Eleni (seat 0) and Nikos (seat 1), with two greedy bots at full speed."""
    table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=0)
    return table, sit(url, table["id"], 0, "Eleni"), sit(url, table["id"], 1, "Nikos")


def my_play_phase(m: dict[str, Any]) -> bool:
    """A state where the seat has drawn and may meld, add or discard."""
    return m["type"] == "state" and any(a.startswith("discard") for a in m["legal"])


async def draw_then_wait(me: Player) -> dict[str, Any]:
    """Play up to the seat's play phase: draw (or take) when the turn comes."""
    while True:
        state = await me.until(lambda m: m["type"] == "state" and bool(m["legal"]))
        if my_play_phase(state):
            return state
        first = "draw" if "draw" in state["legal"] else state["legal"][0]
        await me.send({"type": "action", "action": first, "version": state["version"]})


def test_explain_tells_why_picked_cards_are_refused_and_plays_nothing(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0)
        token = sit(url, table["id"], 0, "Eleni")

        async def main() -> None:
            async with Player(url, table["id"], token) as me:
                state = await draw_then_wait(me)
                hand = state["view"]["hands"][0]
                await me.send({"type": "explain", "action": f"meld {hand[0]} {hand[1]}"})
                answer = await me.until(lambda m: m["type"] == "explained")
                assert answer["legal"] is False and answer["rule"] == "R7"
                cards = f"{hand[0]} {hand[1]}"
                assert answer["reason"] == {
                    "key": "meld_too_small",
                    "params": {"minimum": 3, "count": 2, "cards": cards},
                }
                assert answer["message"] == f"R7: a meld needs at least 3 cards, not 2 ({cards})"
                assert answer["version"] == state["version"]
                legal = state["legal"][0]
                await me.send({"type": "explain", "action": legal})
                assert (await me.until(lambda m: m["type"] == "explained"))["legal"] is True
                await me.send({"type": "explain", "action": "meld 9Z"})
                assert (await me.until(lambda m: m["type"] == "explained"))["rule"] == "notation"
                # nothing was played: the same turn goes on with the same legal moves
                await me.send({"type": "action", "action": legal, "version": state["version"]})
                after = await me.until(lambda m: m["type"] == "state" and m["version"] > state["version"])
                assert after["events"][0]["action"] == legal

        asyncio.run(main())


def test_a_hint_is_a_legal_move_from_the_bot_pool_and_its_rate_is_bounded(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table, eleni, nikos = eleni_and_nikos(url)

        async def main() -> None:
            async with Player(url, table["id"], eleni) as a, Player(url, table["id"], nikos) as b:
                people = lambda m: m["type"] == "state" and m["view"] is not None and m["view"]["to_move"] < 2  # noqa: E731
                state = await a.until(people)
                me, other = (a, b) if state["view"]["to_move"] == 0 else (b, a)
                state = me.state if me is a else await me.until(lambda m: m["type"] == "state" and bool(m["legal"]))
                assert state is not None and state["legal"]
                await other.send({"type": "hint"})
                assert (await other.until(lambda m: m["type"] == "error"))["code"] == "not_your_turn"
                await me.send({"type": "hint"})
                hint = await me.until(lambda m: m["type"] in ("hint", "error"))
                assert hint["type"] == "hint" and hint["action"] in state["legal"], hint
                assert hint["version"] == state["version"]
                await me.send({"type": "hint"})
                assert (await me.until(lambda m: m["type"] == "error"))["code"] == "rate_limited"

        asyncio.run(main())


def test_a_seat_handed_to_the_bot_is_played_for_its_person_until_taken_back(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table, eleni, nikos = eleni_and_nikos(url)

        async def main() -> None:
            async with Player(url, table["id"], eleni) as me, Player(url, table["id"], nikos) as other:
                playing = asyncio.create_task(other.play(random.Random(3), lambda m: False, act_delay=0.1))
                await me.until(lambda m: m["type"] == "state")
                await me.send({"type": "hand_over", "bot": True})
                handed = await me.until(
                    lambda m: m["type"] == "state" and any(e.get("by") == "handed" for e in m["events"])
                )
                assert handed["table"]["seats"][0]["handed"] and handed["table"]["seats"][0]["stand_in"]
                played = [e for e in handed["events"] if e["kind"] == "action" and e["seat"] == 0]
                assert played and all(e["by"] == "handed" for e in played)
                await me.send({"type": "hand_over", "bot": False})
                back = await me.until(lambda m: m["type"] == "state" and not m["table"]["seats"][0]["handed"])
                if not back["legal"]:
                    back = await me.until(lambda m: m["type"] == "state" and bool(m["legal"]), timeout=30)
                await me.send({"type": "action", "action": back["legal"][0], "version": back["version"]})
                mine = await me.until(lambda m: m["type"] == "state" and m["version"] > back["version"])
                assert mine["events"][0]["seat"] == 0 and "by" not in mine["events"][0]
                playing.cancel()

        asyncio.run(main())


def test_a_seat_left_mid_match_is_the_bots_until_someone_sits_in_it(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table, eleni, nikos = eleni_and_nikos(url)

        async def main() -> None:
            async with Player(url, table["id"], eleni) as me, Player(url, table["id"], nikos) as other:
                playing = asyncio.create_task(other.play(random.Random(4), lambda m: False, act_delay=0.1))
                await me.until(lambda m: m["type"] == "state" and m["view"] is not None)
                await me.send({"type": "leave"})
                left = await me.until(lambda m: m["type"] == "state" and m["seat"] is None)
                assert left["table"]["seats"][0]["name"] is None and left["table"]["status"] == "open"
                assert left["table"]["seats"][0]["left"] == "Eleni"  # who left the seat, while it is free
                assert left["table"]["watchers"] == ["Eleni"]  # watching now, under her own name
                assert isinstance(left["view"]["hands"][0], dict)  # a watcher now: no hand
                await me.until(lambda m: m["type"] == "state" and any(e.get("by") == "left" for e in m["events"]))
                lobby = httpx.get(f"{url}/api/tables").json()["tables"]
                assert lobby[0]["status"] == "open"  # the free seat is offered to others
                maria = sit(url, table["id"], 0, "Maria")
                async with Player(url, table["id"], maria) as newcomer:
                    state = await newcomer.until(lambda m: m["type"] == "state" and bool(m["legal"]), timeout=30)
                    assert state["seat"] == 0 and state["table"]["seats"][0]["name"] == "Maria"
                    assert "left" not in state["table"]["seats"][0]
                    await newcomer.send({"type": "action", "action": state["legal"][0], "version": state["version"]})
                    moved = await newcomer.until(lambda m: m["type"] == "state" and m["version"] > state["version"])
                    assert moved["events"][0]["seat"] == 0 and "by" not in moved["events"][0]
                playing.cancel()
            old = Player(url, table["id"], eleni)
            async with old:
                assert (await old.until(lambda m: m["type"] == "error"))["code"] == "bad_token"

        asyncio.run(main())


def test_quick_chat_reaches_the_table_and_free_text_only_where_allowed(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        quiet = create_table(url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=5)
        chatty = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=5, chat="text")
        a, b = sit(url, quiet["id"], 0, "Eleni"), sit(url, quiet["id"], 1, "Nikos")
        c = sit(url, chatty["id"], 0, "Maria")

        async def main() -> None:
            async with Player(url, quiet["id"], a) as eleni, Player(url, quiet["id"], b) as nikos:
                await eleni.send({"type": "say", "phrase": "good_luck"})
                said = await nikos.until(lambda m: m["type"] == "said")
                assert (said["seat"], said["name"], said["phrase"]) == (0, "Eleni", "good_luck") and "text" not in said
                await nikos.send({"type": "say", "text": "hi all"})
                assert (await nikos.until(lambda m: m["type"] == "error"))["code"] == "chat"
                await eleni.send({"type": "say", "phrase": "thanks"})
                assert (await eleni.until(lambda m: m["type"] == "error"))["code"] == "rate_limited"
                await nikos.send({"type": "say", "phrase": "dance"})
                assert (await nikos.until(lambda m: m["type"] == "error"))["code"] == "bad_message"
                async with Player(url, quiet["id"], None, name="Watcher") as late:  # joins later: told what was said
                    assert (await late.until(lambda m: m["type"] == "said"))["phrase"] == "good_luck"
                    await late.send({"type": "say", "phrase": "hello"})
                    assert (await late.until(lambda m: m["type"] == "error"))["code"] == "spectator"
            async with Player(url, chatty["id"], c) as maria:
                await maria.send({"type": "say", "text": "  <b>Καλή</b>   τύχη  "})
                said = await maria.until(lambda m: m["type"] == "said")
                assert said["text"] == "<b>Καλή</b> τύχη"  # as typed, spaces folded; the page shows it as text
                await asyncio.sleep(2.1)
                await maria.send({"type": "say", "text": "evil\u202etxt"})
                error = await maria.until(lambda m: m["type"] == "error")
                assert error["code"] == "bad_message" and "U+202E" in error["message"]

        asyncio.run(main())


def test_the_players_see_who_watches_in_small_presence_messages(tmp_path: Any) -> None:
    """Who comes and goes is told as a ``presence`` message, never the whole state again (issue 49, row 3)."""
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=5)
        token = sit(url, table["id"], 0, "Eleni")

        async def main() -> None:
            async with Player(url, table["id"], token) as me:
                first = await me.until(lambda m: m["type"] == "state")
                async with Player(url, table["id"], None, name="Γιάννης"), Player(url, table["id"], None) as other:
                    seen = await me.until(lambda m: m["type"] == "presence" and m["watching"] == 2)
                    assert sorted(seen["watchers"], key=lambda name: name or "") == [None, "Γιάννης"]
                    assert seen["seats"] == [{"seat": 0, "connected": True, "stand_in": False, "handed": False}]
                    watched = await other.until(lambda m: m["type"] == "state")
                    assert watched["table"]["watching"] >= 1 and watched["seat"] is None  # itself, at least
                gone = await me.until(lambda m: m["type"] == "presence" and m["watching"] == 0)
                assert gone["watchers"] == []
                states = [m for m in me.messages if m["type"] == "state" and m["version"] == first["version"]]
                assert states == [first]  # nobody's coming or going resent the state

        asyncio.run(main())


def test_a_rematch_keeps_the_rules_and_seats_and_each_person_their_seat(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0, deal_pause=0, options={"target": 1})
        token = sit(url, table["id"], 0, "Eleni")

        async def main() -> dict[str, Any]:
            async with Player(url, table["id"], token) as me:
                await me.send({"type": "rematch"})
                assert (await me.until(lambda m: m["type"] == "error"))["code"] == "not_over"
                await me.play(random.Random(5), lambda m: m["table"]["status"] == "over", act_delay=0.1)
                watcher = Player(url, table["id"], None)
                await watcher.__aenter__()
                await watcher.until(lambda m: m["type"] == "state")
                await me.send({"type": "rematch", "seats": "same"})
                again = await me.until(lambda m: m["type"] == "rematch")
                assert again["seat"] == 0 and again["token"]
                told = await watcher.until(lambda m: m["type"] == "state" and m["table"]["rematch"] is not None)
                assert told["table"]["rematch"] == again["table"]
                await watcher.send({"type": "rematch", "seats": "same"})
                assert (await watcher.until(lambda m: m["type"] == "error"))["code"] == "spectator"
                await watcher.send({"type": "rematch", "seats": "new"})
                assert (await watcher.until(lambda m: m["type"] == "rematch"))["table"] == again["table"]  # one
                await watcher.__aexit__()
                return again

        again = asyncio.run(main())
        info = httpx.get(f"{url}/api/tables/{again['table']}").json()
        assert info["rules"]["options"]["target"] == 1
        assert [s["kind"] for s in info["seats"]] == ["person", "bot", "bot", "bot"]
        assert info["seats"][0]["name"] == "Eleni" and info["status"] == "playing"
        assert httpx.get(f"{url}/api/tables/{table['id']}").json()["rematch"] == again["table"]


class FaultyBot:
    """A bot with a fault: it raises when asked for a move (as the engine did on a null rule option)."""

    def choose(self, view: Any, legal: Any) -> Any:
        raise TypeError("a fault of the server")


def test_a_table_whose_driver_raises_stops_broken_logged_once_and_counted(tmp_path: Any, caplog: Any) -> None:
    """Issue 49, row 2: never a loop of tracebacks; the table says it is broken and refuses every change."""
    db = f"sqlite:///{tmp_path}/t.sqlite3"
    with serving(db) as (url, app):
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0)
        live = app.state.hall.live[table["id"]]
        live.table.agents[1] = FaultyBot()  # the seat after the person's: its first move raises
        token = sit(url, table["id"], 0, "Eleni")

        async def main() -> None:
            async with Player(url, table["id"], token) as me:
                while (message := await me.receive())["type"] != "error":  # my turns, until the bot's comes
                    if message["type"] == "state" and message["legal"]:
                        action = random.Random(message["version"]).choice(message["legal"])
                        await me.send({"type": "action", "action": action, "version": message["version"]})
                assert message["code"] == "broken"
                broken = await me.until(lambda m: m["type"] == "state" and m["table"]["status"] == "broken")
                await asyncio.sleep(2.5)  # a driver that tried again would have raised twice more by now
                await me.send({"type": "action", "action": "draw", "version": broken["version"]})
                refused = await me.until(lambda m: m["type"] == "error")
                assert refused["code"] == "broken"

        asyncio.run(main())
        faults = [r for r in caplog.records if r.name == "biriba.server" and r.exc_info is not None]
        assert len(faults) == 1 and table["id"] in faults[0].getMessage()
        assert "biriba_tables_broken 1.0" in httpx.get(url + "/metrics").text
        assert httpx.get(f"{url}/api/tables/{table['id']}").json()["status"] == "broken"
    with serving(db) as (url, app):  # after a restart: loaded broken, its driver never started
        assert httpx.get(f"{url}/api/tables/{table['id']}").json()["status"] == "broken"
        live = app.state.hall.live[table["id"]]
        assert live.broken and live.driver.task is None


def test_a_seats_hints_are_paced_over_all_its_connections_and_an_addresss_over_its_seats(tmp_path: Any) -> None:
    """Issue 49, row 6: thirty tabs of one seat get one hint in five seconds, not thirty; an address's seats
    share its quota a minute."""
    config = ServerConfig(bot_workers=1, hints_per_minute=2)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, _app):
        seated = []
        for _ in range(2):
            table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0)
            seated.append((table["id"], sit(url, table["id"], 0, "Eleni")))

        async def my_turn(table_id: str, token: str, tabs: int) -> list[Player]:
            players = [Player(url, table_id, token) for _ in range(tabs)]
            for player in players:
                await player.__aenter__()
            await players[0].until(lambda m: m["type"] == "state" and bool(m["legal"]))
            return players

        async def main() -> None:
            tabs = await my_turn(*seated[0], tabs=4)
            for tab in tabs:
                await tab.send({"type": "hint"})
            answers = [await tab.until(lambda m: m["type"] in ("hint", "error")) for tab in tabs]
            assert sorted(a["type"] for a in answers) == ["error", "error", "error", "hint"]
            assert {a["code"] for a in answers if a["type"] == "error"} == {"rate_limited"}
            other = (await my_turn(*seated[1], tabs=1))[0]
            await other.send({"type": "hint"})
            assert (await other.until(lambda m: m["type"] in ("hint", "error")))["type"] == "hint"
            await asyncio.sleep(5.1)  # the first seat's pace has passed, but not the address's minute
            await tabs[1].send({"type": "hint"})
            refused = await tabs[1].until(lambda m: m["type"] == "error")
            assert refused["code"] == "rate_limited" and "2 of them a minute from one address" in refused["message"]
            for tab in [*tabs, other]:
                await tab.__aexit__()

        asyncio.run(main())
