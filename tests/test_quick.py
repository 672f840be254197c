"""Quick play (issue 52, row 4): waiting players of similar rating seated together, bots after the wait.

The choice of players is a pure function (:func:`~biriba.server.quick.choose`)
tested here on its own; the waiting list lives in the store and is tested
against a real server, on both stores.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from biriba.server.quick import WIDENING, WINDOW, Group, Waiting, choose, groups, nearest_bot, partnerships, window
from serverkit import SignedIn, running_server, signed_up


def waiting(
    name: str, mu: float, since: float, family: str = "classic", bots: bool = True, partner: str | None = None
) -> Waiting:
    return Waiting(name, name, family, mu, bots, 20.0, since, partner)


def seated(chosen: tuple[list[Group], bool] | None) -> list[Waiting]:
    assert chosen is not None
    return [person for group in chosen[0] for person in group]


def test_the_longest_waiter_is_seated_with_the_nearest_ratings_within_a_widening_window() -> None:
    now = 1000.0
    first = waiting("ann", 25.0, now - 1)
    near = [waiting("bob", 26.0, now), waiting("cat", 24.0, now), waiting("dan", 27.0, now)]
    far = waiting("eve", 40.0, now)
    chosen = choose([first, far, *near], now)
    assert seated(chosen) == [first, near[0], near[1], near[2]] and chosen is not None and not chosen[1]
    assert choose([first, far, *near[:2]], now) is None  # three within reach: wait on
    assert window(0) == WINDOW and window(10) == WINDOW + 10 * WIDENING
    much_later = now - 1 + (40.0 - 25.0) / WIDENING  # ann has waited long enough to play eve (no bots wanted)
    slow = [Waiting(w.account, w.name, w.family, w.mu, False, w.wait, w.since) for w in (first, far, *near[:2])]
    assert {w.name for w in seated(choose(slow, much_later))} == {"ann", "eve", "bob", "cat"}


def test_after_the_wait_bots_fill_the_seats_if_everyone_found_allows_it() -> None:
    now = 1000.0
    alone = waiting("ann", 25.0, now - 21)  # waited past 20 seconds
    assert choose([alone], now) == ([(alone,)], True)
    assert choose([waiting("ann", 25.0, now - 5)], now) is None  # not yet
    assert choose([Waiting("ann", "ann", "classic", 25.0, False, 20.0, now - 60)], now) is None  # no bots wanted
    other_game = waiting("bob", 25.0, now, family="italian")
    assert choose([alone, other_game], now) == ([(alone,)], True)  # the italian player is no partner for classic


def test_partners_are_paired_to_make_the_teams_even_and_bots_are_the_nearest_measured_kind() -> None:
    people = [waiting(n, mu, 0) for n, mu in (("a", 30.0), ("b", 28.0), ("c", 22.0), ("d", 20.0))]
    seats = partnerships([(p,) for p in people], (0, 1, 0, 1))
    teams = [sorted(p.name for p in seats if p is not None and seats.index(p) % 2 == team) for team in (0, 1)]
    assert teams == [["a", "d"], ["b", "c"]]  # 50 against 50
    three = partnerships([(p,) for p in people[:2]], (0, 1, 0, 1))
    assert [p.name if p else None for p in three] == ["a", "b", None, None]
    assert nearest_bot(12.0) == "random" and nearest_bot(24.0) == "greedy"


def test_friends_who_name_each_other_queue_as_a_partnership_and_sit_on_one_team() -> None:
    now = 1000.0
    ann, cat = waiting("ann", 35.0, now - 3, partner="cat"), waiting("cat", 15.0, now - 2, partner="ann")
    bob, dan = waiting("bob", 26.0, now - 1), waiting("dan", 24.0, now)
    assert groups([ann, cat, bob, dan]) == [(ann, cat), (bob,), (dan,)]  # the pair once, at its mean, 25
    chosen = choose([ann, cat, bob, dan], now)
    assert chosen is not None and chosen[0] == [(ann, cat), (bob,), (dan,)] and not chosen[1]
    seats = partnerships(chosen[0], (0, 1, 0, 1))
    assert [p.name if p else None for p in seats] == ["ann", "bob", "cat", "dan"]  # the friends on team 0
    # a friend who has not named ann back (or asked for another preset) leaves her waiting, seated with nobody
    alone = [waiting("ann", 25.0, now - 60, partner="cat"), waiting("cat", 25.0, now, family="italian", partner="ann")]
    assert groups(alone) == [] and choose(alone, now) is None
    solo = waiting("ann", 25.0, now - 60, family="individual", partner="cat")  # a partner where none is played
    assert groups([solo]) == [(solo,)] and choose([solo], now) == ([(solo,)], True)
    bob_long = waiting("bob", 26.0, now - 30)
    assert choose([alone[0], bob_long], now) == ([(bob_long,)], True)  # ann is not seated with bob's bots
    # two partnerships make a table; a pair and one player alone wait for a fourth, then bots fill the seat
    eve, fay = waiting("eve", 20.0, now, partner="fay"), waiting("fay", 30.0, now, partner="eve")
    assert seated(choose([ann, cat, eve, fay], now)) == [ann, cat, eve, fay]
    pair_and_one = choose([ann, cat, dan], now)
    assert pair_and_one is None
    later = choose([ann, cat, dan], now + 20)
    assert later is not None and later[1] and partnerships(later[0], (0, 1, 0, 1))[1:3] == [dan, cat]


def test_a_partnership_is_never_seated_with_one_who_blocks_either_friend() -> None:
    now = 1000.0
    ann, cat = waiting("ann", 25.0, now - 3, partner="cat"), waiting("cat", 25.0, now - 2, partner="ann")
    bob, dan, eve = waiting("bob", 25.0, now), waiting("dan", 25.0, now), waiting("eve", 25.5, now)
    chosen = choose([ann, cat, bob, dan, eve], now, frozenset({("bob", "cat")}))
    assert chosen is not None and [g[0].name for g in chosen[0]] == ["ann", "dan", "eve"]


def ask(url: str, who: SignedIn, **body: Any) -> httpx.Response:
    """``POST /api/quick`` signed in as ``who`` (its cookies and CSRF header)."""
    return httpx.post(f"{url}/api/quick", json=body, cookies=who[0], headers=who[1])


def until_seated(url: str, cookies: dict[str, str], seconds: float = 30) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        answer = httpx.get(f"{url}/api/quick", cookies=cookies).json()
        if answer["status"] == "seated":
            return answer  # type: ignore[no-any-return]
        time.sleep(0.2)
    raise AssertionError(f"not seated within {seconds} s: {answer}")


def test_two_players_asking_for_the_same_game_are_seated_together_and_take_their_seats(db_url: str) -> None:
    with running_server(db_url) as url:
        ann, bob = signed_up(url, "Ann"), signed_up(url, "Bob")
        assert httpx.post(f"{url}/api/quick", json={"rules": "individual"}, cookies=ann[0]).json()["code"] == "csrf"
        asked = httpx.post(
            f"{url}/api/quick", json={"rules": "individual", "bots": False}, cookies=ann[0], headers=ann[1]
        )
        assert asked.status_code == 200 and asked.json()["status"] == "waiting", asked.text
        ask(url, bob, rules="individual", bots=False)
        seated = [until_seated(url, ann[0]), until_seated(url, bob[0])]
        assert seated[0]["table"] == seated[1]["table"] and {s["seat"] for s in seated} == {0, 1}
        table = seated[0]["table"]
        info = httpx.get(f"{url}/api/tables/{table}").json()
        assert sorted(s["name"] for s in info["seats"]) == ["Ann", "Bob"] and info["rules"]["name"] == "individual"
        for (cookies, csrf), place in zip((ann, bob), seated):
            taken = httpx.post(f"{url}/api/tables/{table}/seats/{place['seat']}/token", cookies=cookies, headers=csrf)
            assert taken.status_code == 200 and taken.json()["token"]
            assert httpx.get(f"{url}/api/quick", cookies=cookies).json()["code"] == "not_waiting"  # done


def test_alone_after_the_wait_bots_fill_the_table_and_a_player_may_stop_waiting(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        ann, bob = signed_up(url, "Ann"), signed_up(url, "Bob")
        ask(url, ann, rules="classic", wait=5)
        ask(url, bob, rules="italian", bots=False)
        assert httpx.delete(f"{url}/api/quick", cookies=bob[0], headers=bob[1]).status_code == 204
        assert httpx.get(f"{url}/api/quick", cookies=bob[0]).status_code == 404
        started = time.monotonic()
        seated = until_seated(url, ann[0])
        assert time.monotonic() - started > 3  # not before the wait
        info = httpx.get(f"{url}/api/tables/{seated['table']}").json()
        kinds = [s["kind"] for s in info["seats"]]
        assert kinds.count("person") == 1 and kinds.count("bot") == 3
        assert {s["bot"] for s in info["seats"] if s["kind"] == "bot"} == {"greedy"}  # nearest a newcomer's 25
        assert ask(url, ann, rules="classic", wait=1).status_code == 422
        assert httpx.get(f"{url}/api/quick").status_code == 401


def test_the_openapi_document_has_a_path_with_quick(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        paths = httpx.get(f"{url}/openapi.json").json()["paths"]
        assert {"get", "post", "delete"} <= set(paths["/api/quick"])


def test_friends_queue_as_a_partnership_and_are_seated_on_one_team(db_url: str) -> None:
    with running_server(db_url) as url:
        ann, bob, cat, dan = (signed_up(url, name) for name in ("Ann", "Bob", "Cat", "Dan"))
        assert ask(url, ann, rules="individual", partner="Cat").json()["code"] == "invalid"  # played alone: R1
        assert ask(url, ann, rules="classic", partner="ann").json()["code"] == "invalid"  # oneself
        assert ask(url, ann, rules="classic", partner="Nobody").status_code == 404
        asked = ask(url, ann, rules="classic", bots=False, partner="cat")  # names fold as at sign-up
        assert asked.status_code == 200 and asked.json()["partner"] == "Cat" and not asked.json()["partner_waiting"]
        for who in (bob, dan):
            ask(url, who, rules="classic", bots=False)
        time.sleep(1.5)  # three wait, but ann's friend has not named her back: no table
        assert httpx.get(f"{url}/api/quick", cookies=bob[0]).json()["status"] == "waiting"
        ask(url, cat, rules="classic", bots=False, partner="Ann")
        places = {name: until_seated(url, who[0]) for name, who in zip("ABCD", (ann, bob, cat, dan))}
        assert len({p["table"] for p in places.values()}) == 1 and places["A"]["partner_waiting"]
        assert places["A"]["seat"] % 2 == places["C"]["seat"] % 2 != places["B"]["seat"] % 2  # R1: partners' seats
