"""Accounts (issue 52, row 1): signing up, in and out with a session cookie, on both stores, against a real server.

The hostile side too: the cookie's flags, a sign-in from another site's
page, a write without the session's CSRF token, a session fixed before
signing in, names that pass for others, and sign-in attempts beyond their
limits.  An unknown name is answered as a wrong password is, after the
same password check.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from http.cookies import SimpleCookie
from pathlib import Path

import httpx
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import create_async_engine

from biriba.server import accounts as accounts_module
from biriba.server.accounts import (
    ATTEMPTS_PER_ADDRESS,
    ATTEMPTS_PER_NAME,
    SIGN_UPS_PER_HOUR,
    Accounts,
    accounts,
    sessions,
)
from biriba.server.app import SESSION_COOKIE
from biriba.server.messages import TableError
from biriba.server.quotas import Quotas
from biriba.server.store import SeatInfo, Store, TableRow, async_url, migrate
from serverkit import GREEDY, PERSON, Player, create_table, running_server, sit

PASSWORD = "correct horse battery"


@pytest.fixture
def url(db_url: str) -> Iterator[str]:
    with running_server(db_url) as base:
        yield base


def cookie_of(response: httpx.Response) -> SimpleCookie:
    cookie: SimpleCookie = SimpleCookie()
    cookie.load(response.headers["set-cookie"])
    return cookie


def sign_up(url: str, name: str, password: str = PASSWORD, **headers: str) -> httpx.Response:
    return httpx.post(f"{url}/api/accounts", json={"name": name, "password": password}, headers=headers)


def from_address(n: int) -> dict[str, str]:
    """Another client address, as a proxy on 127.0.0.1 forwards it (uvicorn trusts it there by default)."""
    return {"X-Forwarded-For": f"192.0.2.{n}"}


def sign_in(url: str, name: str, password: str = PASSWORD, cookies: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(f"{url}/api/session", json={"name": name, "password": password}, cookies=cookies)


def me(url: str, token: str) -> httpx.Response:
    return httpx.get(f"{url}/api/me", cookies={SESSION_COOKIE: token})


def who(url: str, token: str) -> str | None:
    """The name a session token signs in, or None."""
    name: str | None = me(url, token).json()["name"]
    return name


def test_sign_up_signs_in_with_a_cookie_no_script_or_other_site_can_use(url: str, db_url: str) -> None:
    made = sign_up(url, "Eleni")
    assert made.status_code == 201, made.text
    morsel = cookie_of(made)[SESSION_COOKIE]
    assert morsel["httponly"] and morsel["samesite"].lower() == "lax" and morsel["path"] == "/"
    assert not morsel["secure"]  # plain HTTP here: a Secure cookie would never come back
    assert int(morsel["max-age"]) > 7 * 24 * 3600
    token = morsel.value
    answer = me(url, token)
    assert answer.status_code == 200 and answer.json() == {"name": "Eleni", "csrf": made.json()["csrf"]}
    assert httpx.get(f"{url}/api/me").json() == {"name": None, "csrf": None}  # a guest, no error
    assert httpx.get(f"{url}/api/me/export").json()["code"] == "signed_out"

    async def kept() -> tuple[list[str], list[str]]:  # the store holds no password and no token in clear
        store = await Store.open(db_url)
        try:
            async with store.connect() as conn:
                passwords = [r[0] for r in await conn.execute(select(accounts.c.password))]
                tokens = [r[0] for r in await conn.execute(select(sessions.c.token))]
            return passwords, tokens
        finally:
            await store.close()

    passwords, tokens = asyncio.run(kept())
    assert len(passwords) == 1 and passwords[0].startswith("$argon2id$") and PASSWORD not in passwords[0]
    assert len(tokens) == 1 and tokens[0] != token


def test_over_tls_the_cookie_is_secure(url: str) -> None:
    """Behind a proxy that forwards the scheme (uvicorn trusts 127.0.0.1's X-Forwarded-Proto by default)."""
    made = sign_up(url, "Nikos", **{"X-Forwarded-Proto": "https"})
    assert made.status_code == 201 and cookie_of(made)[SESSION_COOKIE]["secure"]


def test_names_are_unique_after_the_tables_folding_and_must_be_readable(url: str) -> None:
    assert sign_up(url, "Paul0").status_code == 201
    for n, look_alike in enumerate(("paul0", "PAUL0", "Ｐaul0", "Раul0")):  # case, full width, Cyrillic Р and а
        taken = sign_up(url, look_alike, **from_address(n))
        assert taken.status_code == 409 and taken.json()["code"] == "name_taken", look_alike
    assert sign_up(url, "\u200b\u200b").status_code == 422  # shows nothing
    long = sign_up(url, "\ufdfa" * 30)  # 30 characters that write out as 540
    assert long.status_code == 422 and "too long once its letters are written out" in long.json()["error"]
    short = sign_up(url, "Maria", password="seven77")
    assert short.status_code == 422 and "8 to 256 characters" in short.json()["error"]
    assert sign_up(url, "Maria").status_code == 201


def test_sign_up_cannot_list_the_names_that_have_accounts(url: str) -> None:
    """Every try counts against the address, a taken name's too: five an hour, then 429 whatever the name."""
    assert sign_up(url, "Eleni").status_code == 201
    probe = from_address(9)
    for _ in range(SIGN_UPS_PER_HOUR):
        assert sign_up(url, "Eleni", **probe).status_code == 409
    for name in ("Eleni", "Nobody at all"):
        over = sign_up(url, name, **probe)
        assert over.status_code == 429 and over.json()["code"] == "quota" and int(over.headers["retry-after"]) > 0


def test_sign_in_rotates_the_session_and_an_unknown_name_is_told_as_a_wrong_password(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = cookie_of(sign_up(url, "Eleni"))[SESSION_COOKIE].value
    again = sign_in(url, "ELENI", cookies={SESSION_COOKIE: first})  # the folding finds the account
    assert again.status_code == 200 and again.json()["name"] == "Eleni"
    second = cookie_of(again)[SESSION_COOKIE].value
    assert second != first and who(url, second) == "Eleni"
    assert who(url, first) is None  # the session the client came with ends: none is adopted (fixation)
    checked: list[str] = []
    verify = accounts_module._HASHER.verify
    monkeypatch.setattr(accounts_module._HASHER, "verify", lambda p, h: checked.append(h) or verify(p, h))
    wrong = sign_in(url, "Eleni", password="not her password")
    unknown = sign_in(url, "Nobody", password="not her password")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"error": "wrong name or password", "code": "signed_out"}
    assert wrong.headers.get("set-cookie") is None and unknown.headers.get("set-cookie") is None
    assert len(checked) == 2 and all(h.startswith("$argon2id$") for h in checked)  # the same work for both:
    assert checked[0].split("$")[:4] == checked[1].split("$")[:4]  # the same version, memory, passes and lanes


def test_a_write_with_the_cookie_needs_the_sessions_csrf_token(url: str) -> None:
    made = sign_up(url, "Eleni")
    token, csrf = cookie_of(made)[SESSION_COOKIE].value, made.json()["csrf"]
    forged = httpx.delete(f"{url}/api/session", cookies={SESSION_COOKIE: token})
    assert forged.status_code == 403 and forged.json()["code"] == "csrf"
    wrong = httpx.delete(f"{url}/api/session", cookies={SESSION_COOKIE: token}, headers={"X-CSRF-Token": "x" * 32})
    assert wrong.status_code == 403 and who(url, token) == "Eleni"  # still signed in
    out = httpx.delete(f"{url}/api/session", cookies={SESSION_COOKIE: token}, headers={"X-CSRF-Token": csrf})
    assert out.status_code == 204 and 'biriba_session=""' in out.headers["set-cookie"]
    assert who(url, token) is None
    assert httpx.delete(f"{url}/api/session").status_code == 204  # signed out already: nothing to do


def test_a_new_password_ends_every_session_and_needs_the_present_one(url: str) -> None:
    made = sign_up(url, "Eleni")
    token, csrf = cookie_of(made)[SESSION_COOKIE].value, made.json()["csrf"]
    other = cookie_of(sign_in(url, "Eleni"))[SESSION_COOKIE].value  # another device
    change = f"{url}/api/me/password"
    headers = {"X-CSRF-Token": csrf}
    body = {"password": PASSWORD, "new_password": "a new passphrase"}
    assert httpx.post(change, json=body, cookies={SESSION_COOKIE: token}).json()["code"] == "csrf"
    wrong = httpx.post(
        change, json={**body, "password": "not it at all"}, cookies={SESSION_COOKIE: token}, headers=headers
    )
    assert wrong.status_code == 403 and wrong.json()["code"] == "wrong_password" and who(url, token) == "Eleni"
    changed = httpx.post(change, json=body, cookies={SESSION_COOKIE: token}, headers=headers)
    assert changed.status_code == 200
    assert who(url, token) is None and who(url, other) is None  # every session, this one renewed
    assert who(url, cookie_of(changed)[SESSION_COOKIE].value) == "Eleni"
    assert sign_in(url, "Eleni").status_code == 401 and sign_in(url, "Eleni", "a new passphrase").status_code == 200


def test_an_account_exports_what_is_kept_of_it_and_deletes_itself(url: str) -> None:
    made = sign_up(url, "Eleni")
    token, csrf = cookie_of(made)[SESSION_COOKIE].value, made.json()["csrf"]
    data = httpx.get(f"{url}/api/me/export", cookies={SESSION_COOKIE: token}).json()
    assert data["format"] == "biriba-account/1" and data["name"] == "Eleni" and len(data["sessions"]) == 1
    assert "argon2" not in str(data) and token not in str(data)  # no hash, no token
    gone = f"{url}/api/me"
    cookies = {SESSION_COOKIE: token}
    assert httpx.request("DELETE", gone, json={"password": PASSWORD}, cookies=cookies).json()["code"] == "csrf"
    headers = {"X-CSRF-Token": csrf}
    wrong = httpx.request("DELETE", gone, json={"password": "not it at all"}, cookies=cookies, headers=headers)
    assert wrong.status_code == 403 and wrong.json()["code"] == "wrong_password" and who(url, token) == "Eleni"
    deleted = httpx.request("DELETE", gone, json={"password": PASSWORD}, cookies=cookies, headers=headers)
    assert deleted.status_code == 204 and who(url, token) is None
    assert sign_in(url, "Eleni").status_code == 401
    assert sign_up(url, "eleni").status_code == 201  # the name is free again


def test_another_sites_page_cannot_sign_anyone_up_or_in(url: str) -> None:
    evil = {"Origin": "https://evil.example"}
    refused = sign_up(url, "Eleni", **evil)
    assert refused.status_code == 403 and refused.json()["code"] == "csrf"
    assert sign_up(url, "Eleni", Origin=url).status_code == 201  # this site's own page
    forged = httpx.post(f"{url}/api/session", json={"name": "Eleni", "password": PASSWORD}, headers=evil)
    assert forged.status_code == 403 and "set-cookie" not in forged.headers


def test_sign_in_attempts_are_limited_per_name_and_per_address(url: str) -> None:
    assert sign_up(url, "Eleni").status_code == 201
    for _ in range(3):  # a right password counts nothing: a person who knows theirs is not kept out by their own use
        assert sign_in(url, "Eleni").status_code == 200
    for _ in range(ATTEMPTS_PER_NAME):
        assert sign_in(url, "Eleni", password="guessing again").status_code == 401
    over = sign_in(url, "eleni")  # the right password, and the name as another case: the same name's count
    assert over.status_code == 429 and over.json()["code"] == "quota" and int(over.headers["retry-after"]) > 0
    for _ in range(ATTEMPTS_PER_NAME):  # an unknown name is refused at the same count (its limit tells nothing)
        assert sign_in(url, "Nobody", password="guessing").status_code == 401
    assert sign_in(url, "Nobody", password="guessing").status_code == 429
    for n in range(ATTEMPTS_PER_ADDRESS - 2 * ATTEMPTS_PER_NAME):
        assert sign_in(url, f"Someone{n}", password="guessing").status_code == 401
    assert sign_in(url, "Anyone else").status_code == 429  # the address's count, whatever the name


def test_the_limits_outlast_the_janitor_and_ended_sessions_are_deleted(db_url: str) -> None:
    """The janitor forgets a quota's counts only once its own window has passed (a sign-in's is 15 minutes)."""

    async def main() -> None:
        store = await Store.open(db_url)
        quotas = Quotas()
        accounts_ = Accounts(store, quotas)
        try:
            made = await accounts_.sign_up("Eleni", PASSWORD, "a")
            for _ in range(ATTEMPTS_PER_NAME):
                with pytest.raises(TableError, match="wrong name or password"):
                    await accounts_.sign_in("Eleni", "guessing again", "b")
            quotas.forget_old()
            with pytest.raises(TableError, match="too many tries") as refused:
                await accounts_.sign_in("Eleni", PASSWORD, "c")
            assert refused.value.retry_after is not None and refused.value.retry_after > 60
            async with store.connect(write=True) as conn:
                await conn.execute(update(sessions).values(expires=time.time() - 1))
            assert await accounts_.who(made.token) is None
            await accounts_.forget_expired()
            async with store.connect() as conn:
                assert (await conn.execute(select(sessions.c.token))).first() is None
        finally:
            await store.close()

    asyncio.run(main())


def signed(made: httpx.Response) -> tuple[dict[str, str], dict[str, str]]:
    """The cookies and headers of a cookie-authenticated write, from a sign-up's or sign-in's answer."""
    return {SESSION_COOKIE: cookie_of(made)[SESSION_COOKIE].value}, {"X-CSRF-Token": made.json()["csrf"]}


def test_a_seat_taken_signed_in_is_the_accounts_and_taken_back_on_another_device(url: str) -> None:
    table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=5)["id"]
    phone_cookies, phone_csrf = signed(sign_up(url, "Eleni"))
    seat_0 = f"{url}/api/tables/{table}/seats/0"
    forged = httpx.post(seat_0, json={"name": "Eleni"}, cookies=phone_cookies)
    assert forged.status_code == 403 and forged.json()["code"] == "csrf"  # another site's page cannot seat her
    sat = httpx.post(seat_0, json={"name": "Someone else"}, cookies=phone_cookies, headers=phone_csrf)
    assert sat.status_code == 200, sat.text
    phone_token = sat.json()["token"]
    assert httpx.get(f"{url}/api/tables/{table}").json()["seats"][0]["name"] == "Eleni"  # the account's name
    twice = httpx.post(
        f"{url}/api/tables/{table}/seats/1", json={"name": "Eleni"}, cookies=phone_cookies, headers=phone_csrf
    )
    assert twice.status_code == 409 and "one seat each" in twice.json()["error"]
    mine = httpx.get(f"{url}/api/me/seats", cookies=phone_cookies).json()["seats"]
    assert mine == [{"table": table, "seat": 0, "name": "Eleni", "status": "open"}]
    assert httpx.get(f"{url}/api/me/seats").status_code == 401

    laptop_cookies, laptop_csrf = signed(sign_in(url, "Eleni"))
    others_cookies, others_csrf = signed(sign_up(url, "Maria", **from_address(2)))
    not_hers = httpx.post(f"{seat_0}/token", cookies=others_cookies, headers=others_csrf)
    assert not_hers.status_code == 403 and not_hers.json()["code"] == "not_yours"
    assert httpx.post(f"{seat_0}/token", cookies=laptop_cookies).json()["code"] == "csrf"

    async def main() -> None:
        async with Player(url, table, phone_token) as phone:
            state = await phone.until(lambda m: m["type"] == "state")
            assert state["seat"] == 0
            back = httpx.post(f"{seat_0}/token", cookies=laptop_cookies, headers=laptop_csrf)
            assert back.status_code == 200 and back.json()["seat"] == 0
            watching = await phone.until(lambda m: m["type"] == "state" and m["seat"] is None)  # the phone watches
            assert watching["table"]["seats"][0]["name"] == "Eleni"
            async with Player(url, table, back.json()["token"]) as laptop:
                assert (await laptop.until(lambda m: m["type"] == "state"))["seat"] == 0
        async with Player(url, table, phone_token) as old:
            assert (await old.until(lambda m: m["type"] == "error"))["code"] == "bad_token"

    asyncio.run(main())


def test_a_guest_who_signs_up_keeps_the_seat_they_hold(url: str) -> None:
    table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=5)["id"]
    token = sit(url, table, 1, "Nikos")  # a guest
    cookies, csrf = signed(sign_up(url, "Nikos"))
    bind = f"{url}/api/me/seats"
    wrong = httpx.post(bind, json={"table": table, "seat": 1, "token": "not the token"}, cookies=cookies, headers=csrf)
    assert wrong.status_code == 400 and wrong.json()["code"] == "bad_token"
    assert httpx.post(bind, json={"table": table, "seat": 1, "token": token}, cookies=cookies).json()["code"] == "csrf"
    bound = httpx.post(bind, json={"table": table, "seat": 1, "token": token}, cookies=cookies, headers=csrf)
    assert bound.status_code == 200 and bound.json() == {"table": table, "seat": 1, "name": "Nikos", "status": "open"}
    assert httpx.get(bind, cookies=cookies).json()["seats"] == [bound.json()]
    other_cookies, other_csrf = signed(sign_up(url, "Petros", **from_address(3)))
    stolen = httpx.post(
        bind, json={"table": table, "seat": 1, "token": token}, cookies=other_cookies, headers=other_csrf
    )
    assert stolen.status_code == 409  # bound already: the token alone does not move it to another account


def test_the_openapi_document_describes_the_accounts_api(url: str) -> None:
    paths = httpx.get(f"{url}/openapi.json").json()["paths"]
    assert {"post"} <= set(paths["/api/accounts"]) and {"post", "delete"} <= set(paths["/api/session"])
    assert {"get", "delete"} <= set(paths["/api/me"]) and "post" in paths["/api/me/password"]
    assert "get" in paths["/api/me/export"] and {"get", "post"} <= set(paths["/api/me/seats"])
    assert "post" in paths["/api/tables/{table_id}/seats/{seat}/token"]
    assert Path(__file__).parents[1].joinpath("docs", "protocol.md").read_text().count("/api/session") >= 2


def test_a_store_of_the_release_before_accounts_upgrades_with_its_match_in_play(db_url: str) -> None:
    """Migrations 0005 and 0006 on a database that 0004 made, a match in play in it: the match stays whole, accounts
    work and its seats are bound to them."""
    config = Config()
    config.set_main_option("script_location", str(Path(migrate.__code__.co_filename).parent / "migrations"))
    config.set_main_option("sqlalchemy.url", async_url(db_url))
    command.upgrade(config, "0004")

    async def before() -> None:  # the release before: its own tables only
        store = Store(create_async_engine(async_url(db_url)))
        try:
            await store.create_table(TableRow("old", "classic", {}, [SeatInfo("person", name="Ann")] * 4, "seed"))
            await store.record_deal("old", 1, 2, ["7H", "8H"], version=1, totals=[0, 0])
            await store.record_action("old", 2, 1, 3, "draw", version=2)
        finally:
            await store.close()

    async def after() -> None:
        store = await Store.open(db_url)  # upgrades to the head
        try:
            stored = await store.load("old")
            assert stored is not None and stored.row.status == "playing" and stored.row.version == 2
            assert stored.deals == [(1, 2, ["7H", "8H"])] and stored.actions == [(2, 1, 3, "draw", None)]
            accounts_ = Accounts(store, Quotas())
            made = await accounts_.sign_up("Ann", PASSWORD, "address")
            assert (await accounts_.who(made.token)) == (made.account, made.csrf)
            seats = stored.row.seats
            seats[0] = SeatInfo("person", name="Ann", token_hash="a seat's", account=made.account.id)
            await store.save_seats("old", seats, "playing")  # the match's seat bound to the account (0006)
            assert await accounts_.seats_of(made.account) == [
                {"table": "old", "seat": 0, "name": "Ann", "status": "playing"}
            ]
            assert (await store.load("old")).row.seats[0].account == made.account.id  # type: ignore[union-attr]
        finally:
            await store.close()

    asyncio.run(before())
    asyncio.run(after())
