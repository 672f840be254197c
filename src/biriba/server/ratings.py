"""Ratings (issue 52): a finished match of signed-in people is rated, partnerships as teams.

The model is openskill's Plackett-Luce (Weng and Lin's Bayesian
approximation, 2011): a rating is a mean and an uncertainty, a team's
strength is the sum of its members', and a match ranks any number of
teams, so the same model rates partnerships (two teams of two, or three of
two) and players alone (three teams of one).  Elo knows only two sides of
one player each; TrueSkill handles teams as well but is patented for
commercial use and its maintained Python packages are fewer.  A new
player's uncertainty is large (25 / 3), so their first matches move their
rating far; it narrows with every match.  The leaderboard orders players by
the rating less three uncertainties (openskill's ``ordinal``): a rating
shown is one the player has shown.

A rating is kept per preset family: the preset a table's rules start
from, its changed options included (``classic*`` rates as ``classic``).
The bots carry fixed ratings on the same scale (:data:`BOT_RATINGS`),
measured by ``benchmarks/bot_ratings.py``: a match with bots in it counts
(marked as such), and the bots' ratings never move.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Column, Float, ForeignKey, Index, Integer, String, Table, exists, insert, select, update
from sqlalchemy import exc as db_errors

from ..rules import PRESETS, Rules
from .accounts import accounts
from .store import Store, TableRow, metadata, players, table_row, tables

MODEL = PlackettLuce()
#: Matches a player needs before the leaderboard lists them.
LEADERBOARD_MATCHES = 5
#: Players a leaderboard lists at most.
LEADERBOARD_SIZE = 100
UNRATED = -1
#: Seconds after its end within which a match left unrated (its process stopped between the match's last action
#: and its rating) is rated by the janitor; and the matches it looks at in one round, at most.
CATCH_UP_WITHIN, CATCH_UP_MOST = 3600.0, 100

#: The bots' fixed ratings (mean, uncertainty) by kind, measured by ``benchmarks/bot_ratings.py``
#: (docs/ratings.md); a bot of a kind not here (a plugin) leaves its match unrated.
BOT_RATINGS: dict[str, tuple[float, float]] = {
    "random": (11.3, 1.0),
    "easy": (19.6, 0.5),
    "greedy": (25.0, 0.5),
    "medium": (25.0, 0.5),  # greedy's other name
    "hard": (31.6, 1.8),  # won every match against greedy: a least gap
}

ratings = Table(
    "ratings",
    metadata,
    Column("account", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("family", String(32), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("updated", Float, nullable=False),
)
Index("ratings_by_family", ratings.c.family)
#: Each match with a signed-in player, once: its family, when, and whether bots sat in it (1) or not (0); or
#: :data:`UNRATED`, found not to be rated (a guest, or an unmeasured bot, sat in it), which the janitor then
#: leaves alone.
rated = Table(
    "rated",
    metadata,
    Column("table_id", String(24), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("family", String(32), nullable=False),
    Column("with_bots", Integer, nullable=False),
    Column("finished", Float, nullable=False),
)
#: Each rated player's rating before and after the match.
rating_changes = Table(
    "rating_changes",
    metadata,
    Column("table_id", String(24), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account", String(24), ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
)


def family(rules: Rules) -> str:
    """The preset family a table's rules belong to: the preset they start from."""
    name = rules.name.rstrip("*")
    return name if name in PRESETS else "custom"


def bot_rating(kind: str | None) -> tuple[float, float] | None:
    """A bot's fixed rating by its kind (``hard:samples=8`` is its own kind), or None if it has none."""
    return BOT_RATINGS.get(kind or "")


def ranks(totals: list[int]) -> list[int]:
    """Each team's place by its total, 0 the first; equal totals share a place."""
    return [sum(other > total for other in totals) for total in totals]


@dataclass(frozen=True)
class Change:
    """A rated player's rating before and after a match."""

    seat: int
    account: str
    before: tuple[float, float]
    after: tuple[float, float]


def rate(
    team_of: tuple[int, ...],
    totals: list[int],
    accounts: dict[int, str],
    bots: dict[int, tuple[float, float]],
    now: dict[str, tuple[float, float]],
) -> list[Change]:
    """The new ratings of the seats' accounts after a match with these team totals; ``now`` holds the accounts'
    present ratings (a new player's is the model's prior), ``bots`` the bots' fixed ones."""
    teams = sorted(set(team_of))
    seats_of = {team: [seat for seat, t in enumerate(team_of) if t == team] for team in teams}
    prior = (MODEL.mu, MODEL.sigma)

    def rating(seat: int) -> Any:
        mu, sigma = bots[seat] if seat in bots else now.get(accounts[seat], prior)
        return MODEL.rating(mu=mu, sigma=sigma)

    given = [[rating(seat) for seat in seats_of[team]] for team in teams]
    after = MODEL.rate(given, ranks=[float(place) for place in ranks([totals[team] for team in teams])])
    out = []
    for team, new_team in zip(teams, after):
        for seat, new in zip(seats_of[team], new_team):
            if seat in accounts:
                before = now.get(accounts[seat], prior)
                out.append(Change(seat, accounts[seat], before, (new.mu, new.sigma)))
    return out


def display(mu: float, sigma: float) -> dict[str, float]:
    """A rating as the API shows it: the mean and the uncertainty, and the leaderboard's conservative figure."""
    return {"rating": round(mu, 1), "uncertainty": round(sigma, 1), "ordinal": round(mu - 3 * sigma, 1)}


@dataclass(frozen=True)
class Played:
    """A rated match with bots, as the ratings stood before it: each seat's (mean, uncertainty), the bots' kinds."""

    team_of: tuple[int, ...]
    totals: list[int]
    seats: list[tuple[float, float]]
    bots: dict[int, str]


@dataclass(frozen=True)
class BotCheck:
    """A bot's fixed rating against the rated people's results: its teams' score (a win 1, first place shared
    among those who share it) against what the ratings before each match predicted, and the rating at which they
    would agree (None if its teams won every match or none: no finite rating fits)."""

    kind: str
    rating: float
    matches: int
    score: float
    expected: float
    fitted: float | None


def won(totals: list[int]) -> list[float]:
    """Each team's score: 1 for the first place alone, shared among the teams that share it, else 0."""
    first = [place == 0 for place in ranks(totals)]
    return [1 / sum(first) if is_first else 0.0 for is_first in first]


def check_bots(played: list[Played]) -> list[BotCheck]:
    """How each bot kind's teams did against the people, and the fixed rating that would have predicted it."""

    def expected(kind: str, offset: float) -> float:
        total = 0.0
        for match in played:
            teams = sorted(set(match.team_of))
            given = [
                [
                    MODEL.rating(mu=mu + (offset if match.bots.get(seat) == kind else 0.0), sigma=sigma)
                    for seat, (mu, sigma) in enumerate(match.seats)
                    if match.team_of[seat] == team
                ]
                for team in teams
            ]
            chances = MODEL.predict_win(given)
            total += sum(chances[at] for at, team in enumerate(teams) if _has(match, team, kind))
        return total

    checks = []
    for kind in sorted({kind for match in played for kind in match.bots.values()}):
        mine = [m for m in played if kind in m.bots.values()]
        score = sum(
            won([m.totals[team] for team in sorted(set(m.team_of))])[at]
            for m in mine
            for at, team in enumerate(sorted(set(m.team_of)))
            if _has(m, team, kind)
        )
        fitted = None
        if 0 < score < len(mine):
            low, high = -60.0, 60.0
            for _ in range(50):  # the offset at which the predicted score meets the score: it grows with the offset
                middle = (low + high) / 2
                low, high = (middle, high) if expected(kind, middle) < score else (low, middle)
            fitted = BOT_RATINGS[kind][0] + (low + high) / 2
        checks.append(BotCheck(kind, BOT_RATINGS[kind][0], len(mine), score, expected(kind, 0.0), fitted))
    return checks


def _has(match: Played, team: int, kind: str) -> bool:
    return any(match.team_of[seat] == team and bot == kind for seat, bot in match.bots.items())


class Ratings:
    """Rating finished matches, and reading ratings, histories and the leaderboard from the store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def rate_match(self, row: TableRow, totals: list[int]) -> list[Change] | None:
        """Rate a finished match if every person at it is signed in (bots of a measured kind may sit too); once,
        whichever process asks (the ``rated`` row is written in the same transaction).  None if unrated."""
        rules = Rules.from_json(row.rules)
        named = family(rules)
        signed = {seat: info.account for seat, info in enumerate(row.seats) if info.account}
        for seat, account in row.settings.get("left_accounts", {}).items():  # gave the seat up: the stand-in played
            if row.seats[int(seat)].token_hash is None:  # on for them, nobody took it: their team's result is theirs
                signed[int(seat)] = account
        bots = {seat: bot_rating(info.bot) for seat, info in enumerate(row.seats) if info.kind == "bot"}
        people = [seat for seat, info in enumerate(row.seats) if info.kind == "person"]
        if not signed:
            return None
        if (
            None in bots.values()
            or any(seat not in signed for seat in people)
            or len(set(signed.values())) < len(signed)
        ):
            await self._unrated(row.id, named)  # an unmeasured bot, or a guest, played (or one account twice)
            return None
        try:
            async with self.store.connect(write=True) as conn:
                marker = {"table_id": row.id, "family": named, "with_bots": int(bool(bots)), "finished": time.time()}
                await conn.execute(insert(rated).values(**marker))
                query = select(ratings.c.account, ratings.c.mu, ratings.c.sigma).where(
                    (ratings.c.family == named) & ratings.c.account.in_(list(signed.values()))
                )
                now = {r.account: (r.mu, r.sigma) for r in await conn.execute(query.with_for_update())}
                fixed = {seat: rating for seat, rating in bots.items() if rating is not None}
                changes = rate(rules.team_of, totals, signed, fixed, now)
                for change in changes:
                    mu, sigma = change.after
                    if change.account in now:
                        where = (ratings.c.account == change.account) & (ratings.c.family == named)
                        values = {"mu": mu, "sigma": sigma, "matches": ratings.c.matches + 1, "updated": time.time()}
                        await conn.execute(update(ratings).where(where).values(**values))
                    else:
                        values = {"mu": mu, "sigma": sigma, "matches": 1, "updated": time.time()}
                        await conn.execute(insert(ratings).values(account=change.account, family=named, **values))
                    await conn.execute(
                        insert(rating_changes).values(
                            table_id=row.id,
                            seat=change.seat,
                            account=change.account,
                            mu_before=change.before[0],
                            sigma_before=change.before[1],
                            mu=mu,
                            sigma=sigma,
                        )
                    )
        except db_errors.IntegrityError:  # rated already (by another process), or an account deleted meanwhile
            return None
        return changes

    async def _unrated(self, table_id: str, named: str) -> None:
        """The mark that a match is not to be rated, so that the janitor looks at it no more."""
        marker = {"table_id": table_id, "family": named, "with_bots": UNRATED, "finished": time.time()}
        with contextlib.suppress(db_errors.IntegrityError):  # marked already
            async with self.store.connect(write=True) as conn:
                await conn.execute(insert(rated).values(**marker))

    async def catch_up(self) -> int:
        """Rate the matches that ended in the last :data:`CATCH_UP_WITHIN` seconds, with a signed-in player, and
        were not rated (the janitor's, on every process; :meth:`rate_match` rates each once).  How many it rated."""
        query = (
            select(tables)
            .where(
                (tables.c.status == "over")
                & (tables.c.touched >= time.time() - CATCH_UP_WITHIN)
                & ~exists().where(rated.c.table_id == tables.c.id)
                & exists().where(players.c.table_id == tables.c.id)
            )
            .order_by(tables.c.touched)
            .limit(CATCH_UP_MOST)
        )
        async with self.store.connect() as conn:
            rows = [table_row(row._mapping) for row in await conn.execute(query)]
        return sum([await self.rate_match(row, row.totals) is not None for row in rows])

    async def bots_against_people(self, named: str) -> list[BotCheck]:
        """Each bot kind's results in the family's rated matches with bots (:func:`check_bots`), as the people's
        ratings stood before each match and the bots' fixed ones stand now (matches with a bot no longer rated, or
        a person whose account is gone, left out): ``biriba ratings bots``."""
        query = (
            select(tables.c.id, tables.c.rules, tables.c.seats, tables.c.totals)
            .join(rated, rated.c.table_id == tables.c.id)
            .where((rated.c.family == named) & (rated.c.with_bots == 1))
        )
        async with self.store.connect() as conn:
            matches = (await conn.execute(query)).all()
            befores = select(rating_changes.c.table_id, rating_changes.c.seat, rating_changes.c.mu_before)
            befores = befores.add_columns(rating_changes.c.sigma_before).join(
                rated, rated.c.table_id == rating_changes.c.table_id
            )
            before: dict[tuple[str, int], tuple[float, float]] = {
                (r.table_id, r.seat): (r.mu_before, r.sigma_before)
                for r in await conn.execute(befores.where((rated.c.family == named) & (rated.c.with_bots == 1)))
            }
        played = []
        for match in matches:
            seats = json.loads(match.seats)
            bots = {seat: info["bot"] for seat, info in enumerate(seats) if info["kind"] == "bot"}
            given = [
                BOT_RATINGS.get(bots[seat]) if seat in bots else before.get((match.id, seat))
                for seat in range(len(seats))
            ]
            known = [rating for rating in given if rating is not None]
            if len(known) == len(seats):
                rules = Rules.from_json(json.loads(match.rules))
                played.append(Played(rules.team_of, json.loads(match.totals), known, bots))
        return check_bots(played)

    async def leaderboard(self, named: str) -> list[dict[str, Any]]:
        """The players of a family with :data:`LEADERBOARD_MATCHES` matches or more, the surest strongest first."""
        query = (
            select(accounts.c.name, ratings.c.mu, ratings.c.sigma, ratings.c.matches)
            .join(accounts, accounts.c.id == ratings.c.account)
            .where((ratings.c.family == named) & (ratings.c.matches >= LEADERBOARD_MATCHES))
            .order_by((ratings.c.mu - 3 * ratings.c.sigma).desc(), accounts.c.name)
            .limit(LEADERBOARD_SIZE)
        )
        async with self.store.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [{"name": r.name, "matches": r.matches, **display(r.mu, r.sigma)} for r in rows]

    async def profile(self, account_id: str, recent: int = 20) -> dict[str, Any]:
        """An account's ratings by family and its finished matches, the latest first."""
        async with self.store.connect() as conn:
            query = select(ratings.c.family, ratings.c.mu, ratings.c.sigma, ratings.c.matches)
            kept = (await conn.execute(query.where(ratings.c.account == account_id))).all()
            matches = (
                await conn.execute(
                    select(
                        players.c.table_id,
                        players.c.seat,
                        tables.c.rules,
                        tables.c.seats,
                        tables.c.totals,
                        tables.c.touched,
                        rated.c.with_bots,
                        rating_changes.c.mu_before,
                        rating_changes.c.mu,
                    )
                    .join(tables, tables.c.id == players.c.table_id)
                    .outerjoin(rated, rated.c.table_id == players.c.table_id)
                    .outerjoin(
                        rating_changes,
                        (rating_changes.c.table_id == players.c.table_id) & (rating_changes.c.seat == players.c.seat),
                    )
                    .where((players.c.account == account_id) & (tables.c.status == "over"))
                    .order_by(tables.c.touched.desc())
                    .limit(recent)
                )
            ).all()
        return {
            "ratings": {r.family: {"matches": r.matches, **display(r.mu, r.sigma)} for r in kept},
            "matches": [_history_entry(m) for m in matches],
        }


def _history_entry(row: Any) -> dict[str, Any]:
    """A finished match as a player's history shows it: partners, opponents, scores, and the rating's move."""
    rules = Rules.from_json(json.loads(row.rules))
    seats, totals = json.loads(row.seats), json.loads(row.totals)
    team_of = rules.team_of
    mine = team_of[row.seat]

    def who(seat: int) -> dict[str, str]:
        info = seats[seat]
        return {"bot": info["bot"]} if info["kind"] == "bot" else {"name": info.get("name") or "?"}

    entry: dict[str, Any] = {
        "table": row.table_id,
        "finished": row.touched,
        "rules": family(rules),
        "partners": [who(s) for s in range(len(seats)) if team_of[s] == mine and s != row.seat],
        "opponents": [who(s) for s in range(len(seats)) if team_of[s] != mine],
        "score": totals[mine] if mine < len(totals) else None,
        "others": [total for team, total in enumerate(totals) if team != mine],
        "won": bool(totals) and ranks(totals)[mine] == 0,
        "rated": row.with_bots is not None and row.with_bots != UNRATED,
        "with_bots": row.with_bots == 1,
        "replay": f"/t/{row.table_id}?replay",
    }
    if row.mu is not None:
        entry["rating_change"] = round(row.mu - row.mu_before, 1)
    return entry


__all__ = ["BOT_RATINGS", "MODEL", "BotCheck", "Played", "Ratings", "check_bots", "family", "ranks", "rate", "won"]
