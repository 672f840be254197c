"""Accounts: a person who carries from one table to the next (issue 52), signed in with a session cookie.

A password is kept only as its argon2id hash (pwdlib); a session only as
the hash of its token, so that a copy of the database lets nobody in.
Whether a name has an account is not told by a sign-in's answer nor by
its time: an unknown name is checked against a hash of the same cost.
Names are unique after the table's folding (case, width, confusables:
:func:`.names.folds`), so that nobody signs up as a look-alike of another.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pwdlib import PasswordHash
from sqlalchemy import Column, Float, ForeignKey, Index, String, Table, delete, insert, select, update
from sqlalchemy import exc as db_errors

from .messages import TableError
from .names import folds
from .quotas import Quotas
from .store import Store, metadata, players, tables

#: How long a session lasts without signing in again (seconds).
SESSION_SECONDS = 30 * 24 * 3600.0
#: Sign-in attempts one name may have in :data:`ATTEMPT_WINDOW` seconds, and one client address (429 beyond).
ATTEMPTS_PER_NAME = 10
ATTEMPTS_PER_ADDRESS = 30
ATTEMPT_WINDOW = 15 * 60.0
#: Accounts one client address may make in an hour.
SIGN_UPS_PER_HOUR = 5
#: Password hashes one process works out at once (argon2id: 64 MiB and a core each, for a while).
HASHES_AT_ONCE = 2
#: The longest folding of a name that the store keeps (a name of 30 characters may fold to many more).
FOLD_LENGTH = 200
#: A password's least and greatest length, in characters (NIST SP 800-63B: at least 8, and room for a passphrase).
PASSWORD_LENGTH = (8, 256)

accounts = Table(
    "accounts",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("name", String(120), nullable=False),  # as the person wrote it (a display name)
    Column("fold", String(200), nullable=False, unique=True),  # the two folds of names.folds: unique each
    Column("fold_upper", String(200), nullable=False, unique=True),
    Column("password", String(200), nullable=False),  # argon2id, with its salt and costs (PHC string)
    Column("created", Float, nullable=False),
    Column("banned", Float),  # when an operator banned it (``biriba moderate ban``): it signs in no more
    Column("ban_reason", String(500)),
)
sessions = Table(
    "sessions",
    metadata,
    Column("token", String(64), primary_key=True),  # the hash of the cookie's token
    Column("account", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("csrf", String(64), nullable=False),  # what a cookie-authenticated write sends back in X-CSRF-Token
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)

Index("sessions_by_account", sessions.c.account)

_HASHER = PasswordHash.recommended()  # argon2id with the library's current costs
#: The hash an unknown name's password is checked against, so that its answer takes as long as a known one's.
_NOBODY = _HASHER.hash(secrets.token_urlsafe(16))
WRONG = "wrong name or password"
#: What ``GET /api/me/export`` answers.
EXPORT_FORMAT = "biriba-account/1"


@dataclass(frozen=True)
class Account:
    id: str
    name: str


@dataclass(frozen=True)
class SignedIn:
    """A new session: the token for the cookie (never stored), and the CSRF token the page sends back."""

    account: Account
    token: str
    csrf: str


def token_hash(token: str) -> str:
    return hashlib.sha256(f"biriba-session:{token}".encode()).hexdigest()


def check_password(password: str) -> None:
    least, most = PASSWORD_LENGTH
    if not least <= len(password) <= most:
        raise TableError("invalid", f"a password is {least} to {most} characters long, not {len(password)}")


#: The name a deleted account's seats show from then on: at its tables, in their records and on others' profiles.
FORMER_PLAYER = "former player"


class Accounts:
    """Signing up, in and out, and who a session cookie belongs to, in the server's store."""

    def __init__(self, store: Store, quotas: Quotas) -> None:
        self.store = store
        self.quotas = quotas
        #: Password hashes at once: each holds 64 MiB and a core for a while, and the tables' threads come first.
        self.hashing = asyncio.Semaphore(HASHES_AT_ONCE)

    async def _hash(self, work: Callable[..., Any], *args: str) -> Any:
        async with self.hashing:
            return await asyncio.to_thread(work, *args)

    async def sign_up(self, name: str, password: str, address: str) -> SignedIn:
        """A new account under ``name`` (a display name, checked by the schema), signed in at once.

        Every attempt counts against the address, a taken name too: else sign-up would list the names that
        have accounts for free."""
        check_password(password)
        fold, fold_upper = folds(name)
        if max(len(fold), len(fold_upper)) > FOLD_LENGTH:
            raise TableError("invalid", "this name is too long once its letters are written out; choose a shorter one")
        await self.quotas.charge(f"signup:{address}", SIGN_UPS_PER_HOUR, 3600.0, "quota", "too many new accounts")
        taken = TableError("name_taken", f"the name {name!r} (or one that looks like it) has an account")
        async with self.store.connect() as conn:
            clash = (accounts.c.fold == fold) | (accounts.c.fold_upper == fold_upper)
            if (await conn.execute(select(accounts.c.id).where(clash))).first():
                raise taken
        hashed = await self._hash(_HASHER.hash, password)
        account = Account(secrets.token_urlsafe(12), name)
        row = {"id": account.id, "name": name, "fold": fold, "fold_upper": fold_upper, "password": hashed}
        try:
            async with self.store.connect(write=True) as conn:
                await conn.execute(insert(accounts).values(**row, created=time.time()))
        except db_errors.IntegrityError:  # taken meanwhile
            raise taken from None
        return await self.session(account)

    def _limits(self, address: str, fold: str | None) -> list[tuple[str, int]]:
        limits = [(f"signin:{address}", ATTEMPTS_PER_ADDRESS)]
        return [*limits, (f"signin-name:{fold}", ATTEMPTS_PER_NAME)] if fold is not None else limits

    async def guess(self, address: str, fold: str | None = None) -> None:
        """Refuse a sign-in check from an address (or of a name) at its limit (429); nothing is counted yet."""
        for key, most in self._limits(address, fold):
            wait = await self.quotas.over(key, most, ATTEMPT_WINDOW)
            if wait is not None:
                raise TableError("quota", "too many tries: wait a while", retry_after=max(1, math.ceil(wait)))

    async def missed(self, address: str, fold: str | None = None) -> None:
        """A wrong password (or passkey): counted against the address and the name.  A right one counts nothing,
        so that others' guesses cannot keep a person out once they know their password, beyond the name's limit."""
        for key, most in self._limits(address, fold):
            await self.quotas.take(key, most, ATTEMPT_WINDOW)

    async def sign_in(self, name: str, password: str, address: str, old_token: str | None = None) -> SignedIn:
        """A new session for the name's account if the password is its own; any session the client had ends
        (a session is never adopted: fixation).  The same answer, in the same time, for an unknown name."""
        fold, _ = folds(name)
        await self.guess(address, fold)
        query = select(accounts.c.id, accounts.c.name, accounts.c.password)
        async with self.store.connect() as conn:
            row = (await conn.execute(query.where(accounts.c.fold == fold))).first()
        hashed = row.password if row is not None else _NOBODY
        right = await self._hash(_HASHER.verify, password, hashed)
        if row is None or not right:
            await self.missed(address, fold)
            raise TableError("signed_out", WRONG)
        if old_token:
            await self.sign_out(old_token)
        return await self.session(Account(row.id, row.name), hashed)

    async def session(self, account: Account, hashed: str | None = None) -> SignedIn:
        """A new session, unless the account is banned (told only to who proved it theirs); with ``hashed``, only
        while the account's password is still the one just checked (a change or a deletion meanwhile ends every
        session, and this one must not outlive it).  The account's row is locked meanwhile: a ban waits."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
        now = time.time()
        row = {"token": token_hash(token), "account": account.id, "csrf": csrf, "created": now}
        try:
            async with self.store.connect(write=True) as conn:
                query = select(accounts.c.password, accounts.c.banned).where(accounts.c.id == account.id)
                held = (await conn.execute(query.with_for_update())).first()
                if held is None or (hashed is not None and held.password != hashed):
                    raise TableError("signed_out", WRONG)
                if held.banned is not None:
                    raise TableError("banned", "this account is banned: it cannot sign in")
                await conn.execute(insert(sessions).values(**row, expires=now + SESSION_SECONDS))
        except db_errors.IntegrityError:  # the account was deleted meanwhile
            raise TableError("signed_out", WRONG) from None
        return SignedIn(account, token, csrf)

    async def who(self, token: str | None) -> tuple[Account, str] | None:
        """The account a session token signs in, and the session's CSRF token; None if it signs in nobody."""
        if not token:
            return None
        query = (
            select(accounts.c.id, accounts.c.name, sessions.c.csrf, sessions.c.expires)
            .join(accounts, accounts.c.id == sessions.c.account)
            .where((sessions.c.token == token_hash(token)) & accounts.c.banned.is_(None))
        )
        async with self.store.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None or row.expires < time.time():
            return None
        return Account(row.id, row.name), row.csrf

    async def sign_out(self, token: str) -> None:
        async with self.store.connect(write=True) as conn:
            await conn.execute(delete(sessions).where(sessions.c.token == token_hash(token)))

    async def forget_expired(self) -> None:
        """The sessions that have ended, deleted (the janitor's)."""
        async with self.store.connect(write=True) as conn:
            await conn.execute(delete(sessions).where(sessions.c.expires < time.time()))

    async def confirm(self, account: Account, password: str, address: str) -> str:
        """The account's own password, asked again before a change that a stolen session must not make; its
        guesses are limited as a sign-in's are.  Returns the hash checked."""
        fold = folds(account.name)[0]
        await self.guess(address, fold)
        async with self.store.connect() as conn:
            hashed = (await conn.execute(select(accounts.c.password).where(accounts.c.id == account.id))).scalar()
        if hashed is None or not await self._hash(_HASHER.verify, password, hashed):
            await self.missed(address, fold)
            raise TableError("wrong_password", "wrong password")
        return str(hashed)

    async def change_password(self, account: Account, password: str, new_password: str, address: str) -> SignedIn:
        """A new password; every session of the account ends (a thief's too), and this client gets a new one."""
        check_password(new_password)
        await self.confirm(account, password, address)
        hashed = await self._hash(_HASHER.hash, new_password)
        async with self.store.connect(write=True) as conn:
            await conn.execute(update(accounts).where(accounts.c.id == account.id).values(password=hashed))
            await conn.execute(delete(sessions).where(sessions.c.account == account.id))
        return await self.session(account)

    async def bound(self, account: Account) -> list[tuple[str, int]]:
        """The tables and seats of the account: bound to it (finished or not), or given up by it at a table
        still in play (the seat's info names who left it)."""
        async with self.store.connect() as conn:
            query = select(players.c.table_id, players.c.seat).where(players.c.account == account.id)
            found = [(row.table_id, row.seat) for row in await conn.execute(query)]
            for row in await conn.execute(_left_by(account)):
                left = json.loads(row.settings).get("left_accounts", {})
                found += [(row.id, int(seat)) for seat, held in left.items() if held == account.id]
        return found

    async def delete(self, account: Account) -> None:
        """The account and its sessions gone, its name free again; its matches stay, anonymised: each seat it was
        bound to, or gave up, shows :data:`FORMER_PLAYER` from then on (the tables in play were told first:
        ``Hall.delete_account``).  Its ratings, and their moves at its matches, go with it."""
        async with self.store.connect(write=True) as conn:
            query = select(players.c.table_id, players.c.seat, tables.c.seats).join(
                tables, tables.c.id == players.c.table_id
            )
            for row in (await conn.execute(query.where(players.c.account == account.id))).all():
                seats = json.loads(row.seats)
                seats[row.seat] = {**seats[row.seat], "name": FORMER_PLAYER}
                seats[row.seat].pop("account", None)
                await conn.execute(update(tables).where(tables.c.id == row.table_id).values(seats=json.dumps(seats)))
            for row in (await conn.execute(_left_by(account))).all():
                settings = json.loads(row.settings)
                for seat, held in list(settings.get("left_accounts", {}).items()):
                    if held == account.id:
                        settings = forgotten_leaver(settings, int(seat))
                await conn.execute(update(tables).where(tables.c.id == row.id).values(settings=json.dumps(settings)))
            await conn.execute(delete(sessions).where(sessions.c.account == account.id))
            await conn.execute(delete(accounts).where(accounts.c.id == account.id))

    async def seats_of(self, account: Account) -> list[dict[str, Any]]:
        """The seats bound to the account at tables not yet over, the most recently active first."""
        query = (
            select(players.c.table_id, players.c.seat, tables.c.seats, tables.c.status)
            .join(tables, tables.c.id == players.c.table_id)
            .where((players.c.account == account.id) & tables.c.status.in_(("open", "playing")))
            .order_by(tables.c.touched.desc())
        )
        async with self.store.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            {
                "table": row.table_id,
                "seat": row.seat,
                "name": json.loads(row.seats)[row.seat]["name"],
                "status": row.status,
            }
            for row in rows
        ]

    async def export(self, account: Account) -> dict[str, Any]:
        """Everything kept of the account, as JSON data (no hash: neither the password's nor a session's)."""
        now = time.time()
        async with self.store.connect() as conn:
            query = select(accounts.c.name, accounts.c.created).where(accounts.c.id == account.id)
            row = (await conn.execute(query)).first()
            if row is None:  # deleted meanwhile
                raise TableError("signed_out", "not signed in")
            kept = await conn.execute(
                select(sessions.c.created, sessions.c.expires)
                .where((sessions.c.account == account.id) & (sessions.c.expires >= now))
                .order_by(sessions.c.created)
            )
            return {
                "format": EXPORT_FORMAT,
                "name": row.name,
                "created": row.created,
                "sessions": [{"created": created, "expires": expires} for created, expires in kept],
            }


def forgotten_leaver(settings: dict[str, Any], seat: int) -> dict[str, Any]:
    """A table's settings once the account that gave ``seat`` up is deleted: the seat's info names a former
    player."""
    left = {**settings.get("left", {}), str(seat): FORMER_PLAYER}
    gone = {k: v for k, v in settings.get("left_accounts", {}).items() if k != str(seat)}
    return {**settings, "left": left, "left_accounts": gone}


def _left_by(account: Account) -> Any:
    """The tables whose settings may name the account as the one who gave a seat up (its id is in them)."""
    return select(tables.c.id, tables.c.settings).where(tables.c.settings.contains(account.id))


async def named(store: Store, name: str) -> Account:
    """The account of a name (folded as at sign-up: case, confusables); 404 ``no_player`` if there is none."""
    async with store.connect() as conn:
        query = select(accounts.c.id, accounts.c.name).where(accounts.c.fold == folds(name)[0])
        row = (await conn.execute(query)).first()
    if row is None:
        raise TableError("no_player", f"no player is called {name!r}")
    return Account(row.id, row.name)


__all__ = ["FORMER_PLAYER", "Account", "Accounts", "SignedIn", "accounts", "forgotten_leaver", "named", "sessions"]
