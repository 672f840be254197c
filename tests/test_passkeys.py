"""Passkeys (issue 52, row 1): added by a signed-in person, then signing in with no name and no password.

Against a real server on both stores, with a software authenticator
(``passkeykit``) that answers as a browser's does; and the hostile side: an
answer made for another site, signed by another key, replayed, or given
for a challenge already used or run out, and passkeys of an account that
is gone.  The browser's own authenticator is tested in
``test_web_e2e.py`` (Chromium's virtual authenticator).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import create_async_engine

from biriba.server.accounts import ATTEMPTS_PER_ADDRESS, Accounts
from biriba.server.app import SESSION_COOKIE
from biriba.server.passkeys import CHALLENGES_PER_MINUTE, MOST_PASSKEYS, Passkeys, Site, passkey_challenges, passkeys
from biriba.server.quotas import Quotas
from biriba.server.store import Store, async_url
from passkeykit import Authenticator
from serverkit import SignedIn, running_server, signed_up

PASSWORD = "correct horse battery"
PASSWORD_AGAIN = {"password": PASSWORD}


@pytest.fixture
def url(db_url: str) -> Iterator[str]:
    with running_server(db_url) as base:
        yield base


def registration_options(url: str, who: SignedIn, password: str = PASSWORD, address: int = 1) -> httpx.Response:
    """``POST /api/me/passkey-options`` as ``who`` (from an address of its own), the password given again."""
    headers = {**who[1], "X-Forwarded-For": f"198.18.0.{address}"}  # an address asks for 20 challenges a minute
    return httpx.post(f"{url}/api/me/passkey-options", json={"password": password}, cookies=who[0], headers=headers)


def add_passkey(url: str, who: SignedIn, authenticator: Authenticator, address: int = 1) -> httpx.Response:
    options = registration_options(url, who, address=address)
    assert options.status_code == 200, options.text
    answer = {"handle": options.json()["handle"], "credential": authenticator.create(options.json()["public_key"])}
    return httpx.post(f"{url}/api/me/passkeys", json=answer, cookies=who[0], headers=who[1])


def sign_in_options(url: str, **headers: str) -> dict[str, Any]:
    options = httpx.post(f"{url}/api/session/passkey-options", headers=headers)
    assert options.status_code == 200, options.text
    assert options.headers["cache-control"] == "no-store"
    return dict(options.json())


def sign_in(url: str, handle: str, credential: dict[str, Any], **kwargs: Any) -> httpx.Response:
    return httpx.post(f"{url}/api/session/passkey", json={"handle": handle, "credential": credential}, **kwargs)


def who(url: str, token: str) -> str | None:
    name: str | None = httpx.get(f"{url}/api/me", cookies={SESSION_COOKIE: token}).json()["name"]
    return name


def rows(db_url: str, table: Any) -> int:
    async def count() -> int:
        engine = create_async_engine(async_url(db_url))
        try:
            async with engine.connect() as conn:
                return int((await conn.execute(select(func.count()).select_from(table))).scalar_one())
        finally:
            await engine.dispose()

    return asyncio.run(count())


def test_a_passkey_added_signs_in_with_no_name_or_password_and_ends_the_old_session(url: str) -> None:
    eleni = signed_up(url, "Eleni")
    device = Authenticator(url)
    added = add_passkey(url, eleni, device)
    assert added.status_code == 201, added.text
    listed = httpx.get(f"{url}/api/me/passkeys", cookies=eleni[0]).json()["passkeys"]
    assert [key["id"] for key in listed] == [added.json()["id"]] and listed[0]["used"] is None

    options = sign_in_options(url)
    assert options["public_key"]["allowCredentials"] == [], "nobody is named first: the browser offers its own"
    assert options["public_key"]["rpId"] == "127.0.0.1"
    fixed = "a-session-someone-set-beforehand"
    signed = sign_in(url, options["handle"], device.get(options["public_key"]), cookies={SESSION_COOKIE: fixed})
    assert signed.status_code == 200, signed.text
    assert signed.json()["name"] == "Eleni" and signed.json()["csrf"]
    token = signed.cookies[SESSION_COOKIE]
    assert token != fixed and who(url, token) == "Eleni"
    assert "HttpOnly" in signed.headers["set-cookie"] and "SameSite=lax" in signed.headers["set-cookie"]
    used = httpx.get(f"{url}/api/me/passkeys", cookies={SESSION_COOKIE: token}).json()["passkeys"]
    assert used[0]["used"] is not None

    exported = httpx.get(f"{url}/api/me/export", cookies={SESSION_COOKIE: token}).json()
    assert [key["id"] for key in exported["passkeys"]] == [added.json()["id"]]
    assert "public_key" not in exported["passkeys"][0]


def test_adding_a_passkey_needs_the_session_and_its_csrf_token(url: str) -> None:
    eleni = signed_up(url, "Eleni")
    assert httpx.post(f"{url}/api/me/passkey-options", json=PASSWORD_AGAIN).status_code == 401
    without = httpx.post(f"{url}/api/me/passkey-options", json=PASSWORD_AGAIN, cookies=eleni[0])
    assert without.status_code == 403 and without.json()["code"] == "csrf"
    wrong = registration_options(url, eleni, "a stolen session's guess")
    assert wrong.status_code == 403 and wrong.json()["code"] == "wrong_password", "a passkey outlasts the session"
    options = registration_options(url, eleni).json()
    assert options["public_key"]["authenticatorSelection"]["residentKey"] == "required"
    answer = {"handle": options["handle"], "credential": Authenticator(url).create(options["public_key"])}
    refused = httpx.post(f"{url}/api/me/passkeys", json=answer, cookies=eleni[0])
    assert refused.status_code == 403
    assert httpx.get(f"{url}/api/me/passkeys", cookies=eleni[0]).json()["passkeys"] == []


def test_a_passkey_made_for_another_site_or_another_challenge_is_not_kept(url: str) -> None:
    eleni = signed_up(url, "Eleni")
    elsewhere = add_passkey(url, eleni, Authenticator("https://biriba.example.net"))
    assert elsewhere.status_code == 422 and elsewhere.json()["code"] == "invalid"
    options = registration_options(url, eleni).json()
    other = registration_options(url, eleni).json()
    answer = {"handle": other["handle"], "credential": Authenticator(url).create(options["public_key"])}
    mixed = httpx.post(f"{url}/api/me/passkeys", json=answer, cookies=eleni[0], headers=eleni[1])
    assert mixed.status_code == 422, "signed for one challenge, sent with another's handle"
    assert httpx.get(f"{url}/api/me/passkeys", cookies=eleni[0]).json()["passkeys"] == []


def test_a_challenge_is_good_once_and_a_replayed_or_forged_answer_signs_in_nobody(url: str) -> None:
    eleni = signed_up(url, "Eleni")
    device = Authenticator(url)
    assert add_passkey(url, eleni, device).status_code == 201

    options = sign_in_options(url)
    answer = device.get(options["public_key"])
    assert sign_in(url, options["handle"], answer).status_code == 200
    again = sign_in(url, options["handle"], answer)
    assert again.status_code == 400 and again.json()["code"] == "expired", "the challenge was used up"

    fresh = sign_in_options(url)
    replayed = sign_in(url, fresh["handle"], device.get(fresh["public_key"], count=1))
    assert replayed.status_code == 401, "the counter did not move on: a copy of the passkey, not the passkey"

    for spoiled in (
        {"origin": "https://biriba.example.net"},
        {"signer": ec.generate_private_key(ec.SECP256R1())},
    ):
        options = sign_in_options(url)
        refused = sign_in(url, options["handle"], device.get(options["public_key"], **spoiled))
        assert refused.status_code == 401 and refused.json() == {
            "error": "this passkey does not sign in here",
            "code": "signed_out",
        }
        assert SESSION_COOKIE not in refused.cookies


def test_a_challenge_that_ran_out_is_refused(url: str, db_url: str) -> None:
    eleni = signed_up(url, "Eleni")
    device = Authenticator(url)
    assert add_passkey(url, eleni, device).status_code == 201
    options = sign_in_options(url)

    async def run_out() -> None:
        engine = create_async_engine(async_url(db_url))
        try:
            async with engine.begin() as conn:
                await conn.execute(update(passkey_challenges).values(expires=0))
        finally:
            await engine.dispose()

    asyncio.run(run_out())
    late = sign_in(url, options["handle"], device.get(options["public_key"]))
    assert late.status_code == 400 and late.json()["code"] == "expired"


def test_a_removed_passkey_or_a_deleted_account_s_signs_in_nobody(url: str, db_url: str) -> None:
    eleni, nikos = signed_up(url, "Eleni"), signed_up(url, "Nikos")
    device = Authenticator(url)
    first = add_passkey(url, eleni, device).json()["id"]
    assert add_passkey(url, eleni, device).status_code == 201

    others = httpx.delete(f"{url}/api/me/passkeys/{first}", cookies=nikos[0], headers=nikos[1])
    assert others.status_code == 404 and others.json()["code"] == "no_passkey", "another's passkey is not found"
    assert httpx.delete(f"{url}/api/me/passkeys/{first}", cookies=eleni[0]).status_code == 403
    assert httpx.delete(f"{url}/api/me/passkeys/{first}", cookies=eleni[0], headers=eleni[1]).status_code == 204
    options = sign_in_options(url)
    assert sign_in(url, options["handle"], device.get(options["public_key"], device.held[0])).status_code == 401
    options = sign_in_options(url)
    assert sign_in(url, options["handle"], device.get(options["public_key"])).status_code == 200

    gone = httpx.request("DELETE", f"{url}/api/me", json={"password": PASSWORD}, cookies=eleni[0], headers=eleni[1])
    assert gone.status_code == 204
    assert rows(db_url, passkeys) == 0, "the account's passkeys went with it"
    options = sign_in_options(url)
    assert sign_in(url, options["handle"], device.get(options["public_key"])).status_code == 401


def test_passkey_sign_ins_are_limited_as_passwords_are_and_only_from_this_site(url: str) -> None:
    eleni = signed_up(url, "Eleni")
    device = Authenticator(url)
    assert add_passkey(url, eleni, device).status_code == 201
    cross = httpx.post(f"{url}/api/session/passkey-options", headers={"Origin": "https://biriba.example.net"})
    assert cross.status_code == 403 and cross.json()["code"] == "csrf"

    address = {"X-Forwarded-For": "203.0.113.7"}
    options = sign_in_options(url, **address)
    for _ in range(ATTEMPTS_PER_ADDRESS):  # answers to a challenge that is no longer (or never was) given
        assert sign_in(url, "not-a-handle", device.get(options["public_key"]), headers=address).status_code == 400
    limited = sign_in(url, options["handle"], device.get(options["public_key"]), headers=address)
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) > 0
    options = sign_in_options(url)
    assert sign_in(url, options["handle"], device.get(options["public_key"])).status_code == 200, "from elsewhere"


def test_challenges_are_limited_per_address_and_the_janitor_drops_the_unanswered(url: str, db_url: str) -> None:
    address = {"X-Forwarded-For": "203.0.113.9"}
    for _ in range(CHALLENGES_PER_MINUTE):
        sign_in_options(url, **address)
    refused = httpx.post(f"{url}/api/session/passkey-options", headers=address)
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert rows(db_url, passkey_challenges) == CHALLENGES_PER_MINUTE
    sign_in_options(url)  # another address's

    async def janitor() -> None:
        store = await Store.open(db_url)
        try:
            async with store.connect(write=True) as conn:
                await conn.execute(update(passkey_challenges).where(passkey_challenges.c.id != "").values(expires=0))
            kept = Passkeys(store, Accounts(store, Quotas()), Quotas())
            await kept.forget_expired()
        finally:
            await store.close()

    asyncio.run(janitor())
    assert rows(db_url, passkey_challenges) == 0


def test_the_site_is_written_as_a_browser_writes_its_origin() -> None:
    assert Site.of("HTTPS://Biriba.Example:443/some/path") == Site("https://biriba.example", "biriba.example")
    assert Site.of("http://user@localhost:8000/") == Site("http://localhost:8000", "localhost")
    assert Site.of("http://127.0.0.1:80") == Site("http://127.0.0.1", "127.0.0.1")


def test_an_account_holds_at_most_so_many_passkeys_even_with_options_asked_for_beforehand(url: str) -> None:
    eleni = signed_up(url, "Eleni")
    device = Authenticator(url)
    for number in range(MOST_PASSKEYS - 1):
        assert add_passkey(url, eleni, device, address=number + 10).status_code == 201
    early, late = registration_options(url, eleni, address=2).json(), registration_options(url, eleni, address=3).json()
    for options, status in ((early, 201), (late, 422)):
        answer = {"handle": options["handle"], "credential": device.create(options["public_key"])}
        added = httpx.post(f"{url}/api/me/passkeys", json=answer, cookies=eleni[0], headers=eleni[1])
        assert added.status_code == status, added.text
    refused = registration_options(url, eleni, address=4)
    assert refused.status_code == 422 and f"at most {MOST_PASSKEYS} passkeys" in refused.json()["error"]
    assert len(httpx.get(f"{url}/api/me/passkeys", cookies=eleni[0]).json()["passkeys"]) == MOST_PASSKEYS
