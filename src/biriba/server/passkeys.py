"""Passkeys (WebAuthn): signing in with a phone's or a computer's own lock instead of a password (issue 52).

A signed-in person adds a passkey; from then on, on that device, the
sign-in needs no name and no password: the browser offers the passkeys it
holds for this site (a *discoverable* credential, so the server need not
be told who is coming first).  The ``webauthn`` package checks what the
authenticator signed: this site's origin and relying-party id, the
challenge the server gave, and the signature counter that tells a copy of
a credential from the original.

A challenge is kept in the store, not in the process that gave it, so that
the answer may come to any process of a cluster; each is good once and
for :data:`CHALLENGE_SECONDS`.  The server keeps only a passkey's public
key: a copy of the database signs in nobody.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import webauthn
from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    case,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy import exc as db_errors
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .accounts import Account, Accounts, SignedIn, accounts
from .messages import TableError
from .quotas import Quotas
from .store import Store, metadata

#: Seconds a challenge may be answered in (the browser's own prompt gives up after a minute).
CHALLENGE_SECONDS = 120.0
#: Challenges one client address may ask for in a minute: each is a row in the store until it is answered.
CHALLENGES_PER_MINUTE = 20
#: Passkeys one account may hold.
MOST_PASSKEYS = 20
#: The site's name as the browser shows it in its passkey prompt.
SITE_NAME = "Biriba"

passkeys = Table(
    "passkeys",
    metadata,
    Column("id", String(1400), primary_key=True),  # the credential's id, base64url (at most 1023 bytes: 1364 here)
    Column("account", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("public_key", LargeBinary, nullable=False),  # COSE, as the authenticator gave it
    Column("sign_count", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("used", Float),  # the last sign-in with it
)
passkey_challenges = Table(
    "passkey_challenges",
    metadata,
    Column("id", String(64), primary_key=True),  # the handle the page sends back with its answer
    Column("challenge", String(100), nullable=False),  # base64url
    Column("account", String(24), ForeignKey("accounts.id", ondelete="CASCADE")),  # adding a passkey: whose
    Column("expires", Float, nullable=False),
)

Index("passkeys_by_account", passkeys.c.account)

#: The one answer to any passkey sign-in that fails: which check failed is not told.
UNKNOWN = "this passkey does not sign in here"


@dataclass(frozen=True)
class Site:
    """The relying party: the origin a browser's answer must come from, and its host, the passkeys' scope."""

    origin: str
    id: str

    @classmethod
    def of(cls, base: str) -> Site:
        """The site of an address (the server's public URL, or the request's own)."""
        parts = urlsplit(base)
        scheme, host = parts.scheme.lower(), parts.hostname or ""
        default = {"http": 80, "https": 443}.get(scheme)
        port = f":{parts.port}" if parts.port is not None and parts.port != default else ""
        return cls(f"{scheme}://{host}{port}", host)  # as a browser writes its origin: no user, no default port


class Passkeys:
    """Adding, listing and removing an account's passkeys, and signing in with one."""

    def __init__(self, store: Store, accounts: Accounts, quotas: Quotas) -> None:
        self.store = store
        self.accounts = accounts
        self.quotas = quotas

    async def _challenge(self, challenge: bytes, address: str, account: Account | None = None) -> str:
        """Keep a challenge for one answer; its handle."""
        await self.quotas.charge(f"passkey:{address}", CHALLENGES_PER_MINUTE, 60.0, "quota", "too many passkey tries")
        handle = secrets.token_urlsafe(24)
        row = {"id": handle, "challenge": bytes_to_base64url(challenge), "expires": time.time() + CHALLENGE_SECONDS}
        async with self.store.connect(write=True) as conn:
            await conn.execute(insert(passkey_challenges).values(**row, account=account.id if account else None))
        return handle

    async def _answered(self, handle: str, account: Account | None = None) -> bytes:
        """The challenge of a handle, used up (an answer is checked once); refused if unknown, late or another's."""
        query = delete(passkey_challenges).where(passkey_challenges.c.id == handle)
        async with self.store.connect(write=True) as conn:
            row = (await conn.execute(query.returning(passkey_challenges))).first()
        if row is None or row.expires < time.time() or row.account != (account.id if account else None):
            raise TableError("expired", "this passkey prompt has run out: try again")
        return webauthn.base64url_to_bytes(row.challenge)

    async def _room(self, account: Account) -> list[dict[str, Any]]:
        """The account's passkeys, if it may hold one more."""
        held = await self.of(account)
        if len(held) >= MOST_PASSKEYS:
            raise TableError("invalid", f"an account holds at most {MOST_PASSKEYS} passkeys: remove one first")
        return held

    async def register_options(self, account: Account, password: str, site: Site, address: str) -> dict[str, Any]:
        """What the browser needs to make a passkey for the account (``navigator.credentials.create``), once its
        password is given again: a passkey is a way in that outlasts the session, which a stolen session must
        not be able to add."""
        await self.accounts.confirm(account, password, address)
        held = await self._room(account)
        options = webauthn.generate_registration_options(
            rp_id=site.id,
            rp_name=SITE_NAME,
            user_id=account.id.encode(),
            user_name=account.name,
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=webauthn.base64url_to_bytes(key["id"])) for key in held
            ],
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,  # signing in needs no name first
                user_verification=UserVerificationRequirement.REQUIRED,  # it stands for a password: the lock too
            ),
        )
        handle = await self._challenge(options.challenge, address, account)
        return {"handle": handle, "public_key": json.loads(webauthn.options_to_json(options))}

    async def register(self, account: Account, handle: str, credential: dict[str, Any], site: Site) -> dict[str, Any]:
        """Keep the passkey the browser made, once what it signed is checked against the challenge and the site."""
        challenge = await self._answered(handle, account)
        try:
            made = webauthn.verify_registration_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=site.id,
                expected_origin=site.origin,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
            raise TableError("invalid", f"the passkey could not be checked: {exc}") from None
        key = {"id": bytes_to_base64url(made.credential_id), "created": time.time(), "used": None}
        row = {**key, "account": account.id, "public_key": made.credential_public_key, "sign_count": made.sign_count}
        await self._room(account)  # options asked for before the last ones were added
        try:
            async with self.store.connect(write=True) as conn:
                await conn.execute(insert(passkeys).values(**row))
        except db_errors.IntegrityError:
            raise TableError("invalid", "this passkey is already kept here") from None
        return key

    async def sign_in_options(self, site: Site, address: str) -> dict[str, Any]:
        """What the browser needs to offer this site's passkeys (``navigator.credentials.get``)."""
        options = webauthn.generate_authentication_options(
            rp_id=site.id, user_verification=UserVerificationRequirement.REQUIRED
        )
        handle = await self._challenge(options.challenge, address)
        return {"handle": handle, "public_key": json.loads(webauthn.options_to_json(options))}

    async def sign_in(
        self, handle: str, credential: dict[str, Any], site: Site, address: str, old_token: str | None = None
    ) -> SignedIn:
        """A new session for the passkey's account, if it signed this challenge for this site; a failure counts
        against the address as a wrong password does, and is told in one way whatever failed."""
        await self.accounts.guess(address)
        try:
            challenge = await self._answered(handle)
        except TableError:
            await self.accounts.missed(address)
            raise
        query = (
            select(passkeys.c.public_key, passkeys.c.sign_count, accounts.c.id, accounts.c.name)
            .join(accounts, accounts.c.id == passkeys.c.account)
            .where(passkeys.c.id == str(credential.get("id", "")))
        )
        async with self.store.connect() as conn:
            row = (await conn.execute(query)).first()
        try:
            if row is None:
                raise TableError("signed_out", UNKNOWN)
            checked = webauthn.verify_authentication_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=site.id,
                expected_origin=site.origin,
                credential_public_key=row.public_key,
                credential_current_sign_count=row.sign_count,
                require_user_verification=True,
            )
        except (TableError, WebAuthnException, ValueError, KeyError, TypeError):
            await self.accounts.missed(address)
            raise TableError("signed_out", UNKNOWN) from None
        counted = case(
            (passkeys.c.sign_count < checked.new_sign_count, checked.new_sign_count), else_=passkeys.c.sign_count
        )
        async with self.store.connect(write=True) as conn:  # two sign-ins at once never move the counter back
            await conn.execute(
                update(passkeys).where(passkeys.c.id == credential["id"]).values(sign_count=counted, used=time.time())
            )
        if old_token:
            await self.accounts.sign_out(old_token)
        return await self.accounts.session(Account(row.id, row.name))

    async def of(self, account: Account) -> list[dict[str, Any]]:
        """The account's passkeys, the oldest first: their ids and when they were made and last used."""
        query = (
            select(passkeys.c.id, passkeys.c.created, passkeys.c.used)
            .where(passkeys.c.account == account.id)
            .order_by(passkeys.c.created)
        )
        async with self.store.connect() as conn:
            return [dict(row._mapping) for row in await conn.execute(query)]

    async def remove(self, account: Account, key_id: str) -> None:
        """One of the account's passkeys no longer signs in (another account's is not found, as a missing one)."""
        query = delete(passkeys).where((passkeys.c.id == key_id) & (passkeys.c.account == account.id))
        async with self.store.connect(write=True) as conn:
            if (await conn.execute(query)).rowcount != 1:
                raise TableError("no_passkey", "the account holds no such passkey")

    async def forget_expired(self) -> None:
        """The challenges nobody answered, deleted (the janitor's)."""
        async with self.store.connect(write=True) as conn:
            await conn.execute(delete(passkey_challenges).where(passkey_challenges.c.expires < time.time()))


__all__ = ["Passkeys", "Site", "passkey_challenges", "passkeys"]
