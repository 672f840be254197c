"""The ``biriba`` command: play, simulate, and work with positions and records.

Exit status: 0 on success; 1 on an illegal action or an invalid file, with a
one-line message naming the problem and the rule; 2 on misuse.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import ipaddress
import json
import math
import os
import re
import socket
import sys
import textwrap
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from . import __version__, rulebook
from .analysis import ANALYSIS_FORMAT, MARKS, SAMPLES, analyse_record
from .bots import TABLE_THINK_MS, known_kinds, missing_extras
from .deal import Deal
from .errors import BiribaError
from .records import load_json, position_from_json, position_to_json
from .replay import load_match, replay_record
from .rules import (
    OPTION_HELP,
    OPTION_LIMITS,
    OPTION_NAMES,
    PRESET_HELP,
    PRESETS,
    Rules,
    format_option,
    preset,
    range_words,
)
from .server.config import ServerConfig
from .simulate import DEFAULT_MAX_TURNS, simulate
from .soak import SAMPLE, Chunk, Run, soak


class Misuse(Exception):
    """Bad command-line use: exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except BiribaError as exc:
        print(f"biriba: {exc}", file=sys.stderr)
        return 1
    except Misuse as exc:
        print(f"biriba: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:  # a package biriba needs here is not installed: say which, and how
        hint = _install_hint(exc.name)
        if hint is None:
            raise
        print(f"biriba {args.command} needs the package {exc.name!r}, which is not installed: {hint}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (``biriba rules | head``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _requirements() -> list[tuple[str, str | None]]:
    """biriba's requirements as (distribution, the extra that brings it, or None), from its installed metadata."""
    try:
        requirements = metadata.requires("biriba") or []
    except metadata.PackageNotFoundError:  # run from the source without being installed
        return []
    out = []
    for requirement in requirements:
        name, _, marker = requirement.partition(";")
        distribution = re.split(r"[\s\[<>=!~;(]", name.strip(), maxsplit=1)[0]
        extra = re.search(r"extra\s*==\s*['\"]([\w-]+)['\"]", marker)
        out.append((distribution, extra.group(1) if extra else None))
    return out


def _install_hint(module: str | None) -> str | None:
    """How to install the distribution of a missing ``module`` that biriba requires (itself or in an extra)."""
    wanted = (module or "").split(".")[0].replace("_", "-").lower()
    for distribution, extra in _requirements():
        if distribution.replace("_", "-").lower() == wanted:
            if extra:
                return f"pip install 'biriba[{extra}]'"
            return "biriba was installed without the packages it needs; pip install --force-reinstall biriba"
    return None


def _require_extra(extra: str, command: str) -> None:
    """Refuse a command whose extra of the package is not installed, saying how to install it."""
    missing = []
    for distribution, brought_by in _requirements():
        if brought_by == extra:
            try:
                metadata.version(distribution)
            except metadata.PackageNotFoundError:
                missing.append(distribution)
    if missing:
        raise Misuse(
            f"{command} needs biriba's {extra} extra ({', '.join(missing)} not installed): "
            f"pip install 'biriba[{extra}]'"
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="biriba", description="Biriba, the Greek partnership rummy.")
    parser.add_argument("--version", action="version", version=f"biriba {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("play", help="play a match in the terminal against bots")
    p.add_argument("--seed", help="seed of the match's decks and bots (default: random)")
    p.add_argument("--rules", help="rules preset, see 'biriba rules' (default: classic)")
    p.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="change a rule option")
    p.add_argument(
        "--bots",
        default="greedy",
        metavar="KIND[,KIND...]",
        help="bot kind(s) for the other seats, cycled; 'help' describes each (default: greedy)",
    )
    p.add_argument("--name", help="your name in the record (default: You)")
    p.add_argument("--save", metavar="FILE", help="save the match in FILE (default: an autosave, see --list)")
    p.add_argument("--force", action="store_true", help="with --save: start over in a file that holds a saved match")
    p.add_argument(
        "--resume", metavar="FILE", nargs="?", const="", help="resume the match saved in FILE (no FILE: the last one)"
    )
    p.add_argument("--list", action="store_true", help="list the saved matches and exit")
    p.add_argument("--delay", type=float, default=0.4, help="seconds to pause after each bot action (default: 0.4)")
    p.add_argument(
        "--think-ms",
        type=float,
        default=TABLE_THINK_MS,
        metavar="MS",
        help=f"the longest a hard bot thinks per decision, in milliseconds (default: {TABLE_THINK_MS})",
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="the line mode in plain ASCII, for screen readers and logs (the line mode is also what a pipe gets)",
    )
    p.set_defaults(run=_play)

    p = sub.add_parser("legal", help="list the legal actions in a position")
    p.add_argument("position", help="position JSON file (biriba-position/1)")
    p.add_argument("--count", action="store_true", help="print only how many there are")
    p.set_defaults(run=_legal)

    p = sub.add_parser("apply", help="apply actions to a position and print the result")
    p.add_argument("position", help="position JSON file")
    p.add_argument("actions", nargs="+", metavar="ACTION", help="actions in order, each one quoted: 'meld 3H 4H 5H'")
    p.set_defaults(run=_apply)

    p = sub.add_parser("view", help="print a position as one seat sees it")
    p.add_argument("position", help="position JSON file")
    p.add_argument("--seat", type=int, required=True, help="the seat whose view to print")
    p.add_argument("--text", action="store_true", help="draw the view as the terminal game does, not as JSON")
    p.add_argument("--plain", action="store_true", help="with --text: plain ASCII")
    p.set_defaults(run=_view)

    p = sub.add_parser("replay", help="replay a game record, checking every action")
    p.add_argument("record", help="record JSON file (biriba-record/1)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--moves", action="store_true", help="every action, deal by deal")
    p.add_argument(
        "--analysis",
        metavar="FILE",
        help="with --moves: mark the costly decisions of this analysis (biriba analyse --json) as ?! ? ??",
    )
    p.set_defaults(run=_replay)

    p = sub.add_parser(
        "analyse", help="what each decision of a record cost, valued by the search bot (docs/analysis.md)"
    )
    p.add_argument("record", help="record JSON file (biriba-record/1)")
    p.add_argument(
        "--seat", type=int, action="append", metavar="S", help="a seat to analyse (again for more; default: all)"
    )
    p.add_argument("--deal", type=int, metavar="N", help="only deal N, from 1 (default: every deal)")
    p.add_argument(
        "--samples", type=int, default=SAMPLES, metavar="N", help="deals sampled a decision (default: %(default)s)"
    )
    p.add_argument("--seed", default="0", help="seed of the sampling (default: 0): the same seed, the same analysis")
    p.add_argument("--json", action="store_true", help="machine-readable output (biriba-analysis/1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (drawn on a terminal's stderr only)")
    p.set_defaults(run=_analyse)

    p = sub.add_parser("position", help="the position of a recorded deal after some of its actions")
    p.add_argument("record", help="record JSON file (biriba-record/1)")
    p.add_argument("--deal", type=int, metavar="N", help="the deal, from 1 (default: the last one)")
    p.add_argument("--step", type=int, metavar="K", help="actions played, 0 right after the deal (default: all)")
    p.set_defaults(run=_position)

    p = sub.add_parser("simulate", help="self-play between bots, with statistics")
    p.add_argument("--deals", type=int, required=True, help="number of deals to play")
    p.add_argument("--bots", required=True, help="bot kinds cycled over the seats, e.g. greedy,random")
    p.add_argument("--seed", default="0", help="seed of the decks and bots (default: 0)")
    p.add_argument("--rules", default="classic", help="rules preset (default: classic)")
    p.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="change a rule option")
    p.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS, help="turn cap per deal (default: %(default)s)")
    p.add_argument("--save", metavar="DIR", help="write one record per match into DIR")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--jobs", type=int, default=1, help="processes to play in; results do not depend on it (default: 1)")
    p.set_defaults(run=_simulate)

    p = sub.add_parser("tournament", help="two bots on duplicate deals, with 95%% intervals")
    p.add_argument("bot_a", metavar="BOT", help="a bot kind (hard:samples=64 sets a search bot's work)")
    p.add_argument("bot_b", metavar="BOT", help="the other bot")
    p.add_argument(
        "--deals",
        type=int,
        default=100,
        help="duplicate pairs: each deck played twice, sides swapped; 3+ teams: once per team (default: 100)",
    )
    p.add_argument("--matches", action="store_true", help="whole matches instead of deals")
    p.add_argument("--rules", default="classic", help="rules preset (default: classic)")
    p.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="change a rule option")
    p.add_argument("--jobs", type=int, default=1, help="processes to play in; results do not depend on it (default: 1)")
    p.add_argument("--ray", metavar="ADDRESS", help="play on a Ray cluster ('local' starts one here)")
    p.add_argument("--seed", default="0", help="seed of the decks and bots (default: 0)")
    p.add_argument(
        "--save", metavar="DIR", help="write every pair's games as JSON into DIR, and each capped game's record"
    )
    p.add_argument(
        "--state", metavar="FILE", help="keep the pairs played in FILE; the same command again plays only the rest"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=_tournament)

    p = sub.add_parser(
        "soak", help="random and greedy deals over random tables, every invariant checked (docs/reliability.md)"
    )
    p.add_argument("--deals", type=int, default=1000, help="deals to play (default: %(default)s)")
    p.add_argument("--seed", default="0", help="seed of the run: deal I of seed S is always the same deal (default: 0)")
    p.add_argument("--first", type=int, default=0, metavar="I", help="number of the first deal (default: 0)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: every core, %(default)s)")
    p.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS", help="play on Ray (alone: start it here)")
    p.add_argument("--sample", type=int, default=SAMPLE, metavar="K", help="every K-th deal gets the costly checks")
    p.add_argument("--state", metavar="FILE", help="keep the run's progress in FILE; run again to resume it")
    p.add_argument("--failures", default="soak-failures", metavar="DIR", help="where failures are written")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=_soak)

    p = sub.add_parser("serve", help="run the web game: tables with friends and bots in the browser")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on; 0.0.0.0 for a network (default: 127.0.0.1)"
    )
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument(
        "--db", metavar="URL", help="sqlite:///FILE or postgresql://user@host/db (default: SQLite in your data folder)"
    )
    limits = ServerConfig()
    p.add_argument("--public-url", metavar="URL", help="the site's address for invite links (default: each request's)")
    p.add_argument(
        "--allow-origin", action="append", default=[], metavar="URL", help="another site whose pages may connect"
    )
    p.add_argument(
        "--trusted-proxies",
        metavar="IPS",
        help="proxies whose X-Forwarded-For is believed: addresses or networks, comma-separated (default: none);"
        " * (every address) only with --only-through-proxy",
    )
    p.add_argument(
        "--only-through-proxy",
        action="store_true",
        help="nobody reaches this port but through the proxies (a private network): allows --trusted-proxies *",
    )
    p.add_argument(
        "--max-body",
        type=int,
        default=limits.max_body,
        metavar="BYTES",
        help="largest request body (default: %(default)s)",
    )
    p.add_argument(
        "--tables-per-minute",
        type=int,
        default=limits.tables_per_minute,
        metavar="N",
        help="tables one address may create in a minute (default: %(default)s)",
    )
    p.add_argument(
        "--open-tables",
        type=int,
        default=limits.open_tables,
        metavar="N",
        help="tables one address may have open or in play (default: %(default)s)",
    )
    p.add_argument(
        "--hints-per-minute",
        type=int,
        default=limits.hints_per_minute,
        metavar="N",
        help="hints the seats of one address may ask for in a minute (default: %(default)s)",
    )
    p.add_argument(
        "--chat-per-minute",
        type=int,
        default=limits.chat_per_minute,
        metavar="N",
        help="chat lines the seats of one address may say in a minute (default: %(default)s)",
    )
    p.add_argument(
        "--connections-per-address",
        type=int,
        default=limits.connections_per_address,
        metavar="N",
        help="WebSocket connections one address may hold at once (default: %(default)s)",
    )
    p.add_argument(
        "--connections-per-minute",
        type=int,
        default=limits.connections_per_minute,
        metavar="N",
        help="WebSocket connections one address may open in a minute (default: %(default)s)",
    )
    p.add_argument(
        "--connections-per-table",
        type=int,
        default=limits.connections_per_table,
        metavar="N",
        help="connections one address may hold to one table (default: %(default)s)",
    )
    p.add_argument(
        "--watchers",
        type=int,
        default=limits.watchers,
        metavar="N",
        help="watchers one table may have (default: %(default)s)",
    )
    p.add_argument(
        "--send-queue",
        type=int,
        default=limits.send_queue,
        metavar="N",
        help="messages that may wait for a client before it is cut off as fallen behind (default: %(default)s)",
    )
    p.add_argument(
        "--send-queue-bytes",
        type=int,
        default=limits.send_queue_bytes,
        metavar="BYTES",
        help="their bytes, all told (default: %(default)s)",
    )
    p.add_argument(
        "--send-timeout",
        type=float,
        default=limits.send_timeout,
        metavar="SECONDS",
        help="how long a message may wait for a client before it is cut off (default: %(default)s)",
    )
    p.add_argument(
        "--ws-compression",
        action="store_true",
        help="compress WebSocket messages (permessage-deflate): less traffic, more CPU and memory a client",
    )
    p.add_argument(
        "--unclaimed-after",
        type=float,
        default=limits.unclaimed_after,
        metavar="SECONDS",
        help="a table no person sat at expires after this long unwatched (default: %(default)s)",
    )
    p.add_argument(
        "--idle-after",
        type=float,
        default=limits.idle_after,
        metavar="SECONDS",
        help="a table nobody is connected to leaves memory after this long (default: %(default)s)",
    )
    p.add_argument(
        "--bot-workers",
        type=int,
        default=limits.workers,
        metavar="N",
        help="processes for hard bots' decisions (default: the cores but one, %(default)s here)",
    )
    p.add_argument(
        "--bot-queue",
        type=int,
        default=limits.bot_queue,
        metavar="N",
        help="hard-bot decisions that may wait for a worker; past it a bot plays its quick move (default: %(default)s)",
    )
    p.add_argument(
        "--cache-budget",
        type=int,
        default=limits.cache_budget,
        metavar="ENTRIES",
        help="entries the engine's caches may hold before they are cleared (default: %(default)s)",
    )
    p.add_argument(
        "--analysis-samples",
        type=int,
        default=limits.analysis_samples,
        metavar="N",
        help="deals sampled a decision in a finished match's analysis (default: %(default)s; docs/analysis.md)",
    )
    p.add_argument(
        "--quick-target",
        type=int,
        metavar="POINTS",
        help="the points a quick-play match is played to (default: its preset's)",
    )
    p.add_argument(
        "--replays-at-once",
        type=int,
        default=limits.replays_at_once,
        metavar="N",
        help="record and replay requests one address may have under way at once (default: %(default)s)",
    )
    p.add_argument(
        "--replays-per-minute",
        type=int,
        default=limits.replays_per_minute,
        metavar="N",
        help="records and replay positions computed for one address in a minute (default: %(default)s)",
    )
    p.add_argument(
        "--replay-cache",
        type=int,
        default=limits.replay_cache,
        metavar="BYTES",
        help="finished matches' records and replay positions kept to answer again (default: %(default)s)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes on the one port (default: 1); more than one needs --redis and a PostgreSQL --db",
    )
    p.add_argument(
        "--redis",
        metavar="URL",
        help="redis://host:port: the events between server processes, on this machine or several (docs/deploy.md)",
    )
    p.add_argument(
        "--lease-ttl",
        type=float,
        default=limits.lease_ttl,
        metavar="SECONDS",
        help="with --redis: how long a process's hold on its tables lasts unrenewed, so how soon another"
        " takes over the tables of a process that died (default: %(default)s)",
    )
    p.set_defaults(run=_serve)

    p = sub.add_parser("moderate", help="read players' reports, ban and unban accounts (docs/operations.md)")
    p.add_argument("--db", metavar="URL", help="the web game's store, as biriba serve --db (default: its default)")
    what = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    reports = what.add_parser("reports", help="the reports not handled yet, the oldest first")
    reports.add_argument("--all", action="store_true", help="handled ones too")
    done = what.add_parser("handled", help="mark a report handled")
    done.add_argument("report", type=int, metavar="NUMBER")
    ban = what.add_parser("ban", help="ban an account: it cannot sign in, its sessions end")
    ban.add_argument("name")
    ban.add_argument("--reason", required=True, help="why, kept with the ban (at most 500 characters)")
    unban = what.add_parser("unban", help="lift an account's ban")
    unban.add_argument("name")
    p.set_defaults(run=_moderate)

    p = sub.add_parser("ratings", help="check the bots' fixed ratings against rated people's results (docs/ratings.md)")
    p.add_argument("--db", metavar="URL", help="the web game's store, as biriba serve --db (default: its default)")
    what = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    bots = what.add_parser("bots", help="each bot kind's score in rated matches against what its rating predicted")
    bots.add_argument("--rules", default="classic", metavar="PRESET", help="the preset family (default: classic)")
    p.set_defaults(run=_ratings)

    p = sub.add_parser("rules", help="list the rules presets and options, show one preset, or say one rule (R13)")
    p.add_argument("preset", nargs="?", help="a preset name, or a rule's id (R13, D12) to read that rule")
    p.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="change a rule option")
    p.set_defaults(run=_rules)
    return parser


# ------------------------------------------------------------- positions
def _load_position(path: str) -> Deal:
    return position_from_json(load_json(path))


def _legal(args: argparse.Namespace) -> int:
    deal = _load_position(args.position)
    actions = sorted(str(a) for a in deal.legal_actions())
    if args.count:
        print(len(actions))
    else:
        for text in actions:
            print(text)
    return 0


def _apply(args: argparse.Namespace) -> int:
    deal = _load_position(args.position)
    for index, text in enumerate(args.actions, 1):
        if deal.is_over:
            raise Misuse(f"action {index} ({text!r}): the deal is already over")
        try:
            deal.apply(deal.parse_action(text))
        except BiribaError as exc:
            raise _located(exc, f"action {index} ({text!r})") from None
    output: dict[str, Any] = deal.result().to_json() if deal.is_over else position_to_json(deal)
    print(json.dumps(output, indent=1))
    return 0


def _located(exc: BiribaError, where: str) -> BiribaError:
    """The same error with where it happened in front."""
    return BiribaError(f"{where}: {exc}")


def _view(args: argparse.Namespace) -> int:
    deal = _load_position(args.position)
    if not 0 <= args.seat < deal.rules.seats:
        raise Misuse(f"--seat must be 0..{deal.rules.seats - 1}")
    view = deal.view_for(args.seat)
    if args.text:
        from rich.console import Console

        from .tui.plain import render_view
        from .tui.words import Words

        plain = args.plain
        console = Console(color_system=None if plain else "auto", emoji=False, highlight=False, soft_wrap=True)
        render_view(console, Words(deal.rules, plain, you=args.seat), view, view.match_scores)
        return 0
    print(json.dumps(view.to_json(), indent=1))
    return 0


def _analyse(args: argparse.Namespace) -> int:
    if args.samples < 2:
        raise Misuse("--samples is 2 or more: a cost's uncertainty needs two deals at least")
    with _progress_bar("decisions", None, not args.no_progress) as advance:
        try:
            record = load_json(args.record)
            analysis = analyse_record(
                record, args.seat, args.samples, args.seed, lambda _, n: advance(total=n), args.deal
            )
        except ValueError as exc:
            raise Misuse(str(exc)) from None
    print(json.dumps(analysis.to_json()) if args.json else analysis.to_text())
    return 0


def _replay(args: argparse.Namespace) -> int:
    match = load_match(load_json(args.record))
    totals = [0] * len(match.rules.teams)
    deals_out: list[dict[str, Any]] = []
    for number, deal in enumerate(match.deals, 1):
        if not deal.is_over:
            deals_out.append({"deal": number, "in_progress": True, "actions": len(deal.history)})
            continue
        result = deal.result()
        totals = [t + p for t, p in zip(totals, result.team_scores)]
        deals_out.append({"deal": number, **result.to_json(), "totals": totals})
    winner = match.winner
    if args.json:
        print(json.dumps({"rules": match.rules.to_json(), "deals": deals_out, "totals": totals, "winner": winner}))
        return 0
    teams = [" & ".join(match.players[s] for s in seats) for seats in match.rules.teams]  # as the game names them

    def won(winners: Sequence[int]) -> str:
        if len(winners) > 1:
            return f"{' and '.join(teams[t] for t in winners)} tie"
        one = len(match.rules.teams[winners[0]]) == 1 and teams[winners[0]] != "You"
        return f"{teams[winners[0]]} {'wins' if one else 'win'}"

    marks = _analysis_marks(args.analysis) if args.analysis else {}
    for item in deals_out:
        if args.moves or marks:
            for index, (seat, action) in enumerate(match.deals[item["deal"] - 1].history, 1):
                line = f"deal {item['deal']} step {index:>3}  {match.players[seat]:<12} {action}"
                marked, mark = marks.get((item["deal"], index), (str(action), ""))
                if marked != str(action):
                    raise Misuse(
                        f"{args.analysis} analyses another record: deal {item['deal']} step {index} is {action}"
                    )
                print(line + mark)
        if item.get("in_progress"):
            print(f"deal {item['deal']}: in progress after {item['actions']} actions")
            continue
        scores = ", ".join(f"{teams[t]} {s:+d}" for t, s in enumerate(item["team_scores"]))
        print(f"deal {item['deal']}: {scores}  ({won(item['winners'])}; ended by {item['ended_by']})")
    totals_text = ", ".join(f"{teams[t]} {total}" for t, total in enumerate(totals))
    if winner is not None:
        print(f"match over: {won([winner])}; totals {totals_text}")
    else:
        print(f"match not over: totals {totals_text}")
    return 0


def _analysis_marks(path: str) -> dict[tuple[int, int], tuple[str, str]]:
    """Each labelled decision of an analysis file (``biriba analyse --json``), by deal and step: its action, and
    its mark."""
    data = load_json(path)
    if not isinstance(data, dict) or data.get("format") != ANALYSIS_FORMAT:
        raise Misuse(f"{path}: not an analysis (biriba analyse --json writes one, format {ANALYSIS_FORMAT})")
    marks = {}
    for d in data["decisions"]:
        if d["label"]:
            cost = f"-{d['cost']:.0f} ± {d['uncertainty']:.0f}"
            marks[(d["deal"], d["index"])] = (
                d["action"],
                f"  {MARKS[d['label']]} {d['label']}, {cost}; better {d['best']}",
            )
    return marks


def _position(args: argparse.Namespace) -> int:
    replay = replay_record(load_json(args.record))
    deals = replay.deals
    if not deals:
        raise BiribaError(f"{args.record} has no deals: there is no position to show")
    number = len(deals) if args.deal is None else args.deal
    if not 1 <= number <= len(deals):
        raise Misuse(f"--deal must be 1..{len(deals)} (the deals of the record)")
    played = deals[number - 1]
    steps = len(played.history)
    step = steps if args.step is None else args.step
    if not 0 <= step <= steps:
        raise Misuse(f"--step must be 0..{steps} (the actions recorded for deal {number})")
    if played.deck is None:  # a replayed deal always has its deck
        raise BiribaError(f"deal {number} has no deck")
    # the same deck, dealer, rules, turn cap and match totals, then the first actions again
    deal = Deal(played.deck, played.dealer, replay.rules, played.max_turns)
    deal.match_scores = played.match_scores
    for _seat, action in played.history[:step]:  # checked by the replay, on the same deal
        deal.apply(deal.parse_action(str(action)))
    if deal.is_over:
        raise BiribaError(
            f"deal {number} ended at step {step} ({deal.ended_by}): no position after it; "
            f"its last position is --step {step - 1}"
        )
    print(json.dumps(position_to_json(deal), indent=1))
    return 0


# ------------------------------------------------------------ simulation
def _bot_kinds(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    known = known_kinds()
    unknown = [k for k in kinds if k.partition(":")[0] not in known]
    for kind in unknown:
        _refuse_missing_extra(kind)
    if not kinds or unknown:
        raise Misuse(f"unknown bot kind {unknown[0] if unknown else text!r}; known: {', '.join(sorted(known))}")
    return kinds


def _run_settings(rules: Rules, deals: int, more: dict[str, Any]) -> dict[str, Any]:
    """What a run was, for its JSON: the rules (the preset and every option), its size, and this program's version
    (an italian result is told from a classic one, a run again from the same settings)."""
    return {"rules": rules.name, "options": rules.options(), "deals": deals, **more, "version": __version__}


def _refuse_missing_extra(kind: str) -> None:
    """A bot kind biriba knows whose extra is not installed: say which to install (not "unknown")."""
    extras = missing_extras(kind)
    if extras:
        wanted = ",".join(extras)
        raise Misuse(f"bot kind {kind!r} needs biriba's {wanted} extra: pip install 'biriba[{wanted}]'")


def _rules_arg(name: str, options: Sequence[str] = ()) -> Rules:
    if name not in PRESETS:
        raise Misuse(f"unknown rules preset {name!r}; known: {', '.join(PRESETS)}")
    try:
        return preset(name).with_options(options)
    except BiribaError as exc:  # the engine says "set option=value"; here that is written --set option=value
        raise Misuse(re.sub(r"(?<!-)\bset (\w+=\S+)", r"--set \1", str(exc))) from None


def _simulate(args: argparse.Namespace) -> int:
    kinds = _bot_kinds(args.bots)
    rules = _rules_arg(args.rules, args.set)
    if args.deals < 1:
        raise Misuse("--deals must be at least 1")
    if args.max_turns < 1:
        raise Misuse("--max-turns must be at least 1")
    with _progress_bar("deals", args.deals, not args.no_progress) as advance:
        stats = simulate(
            args.deals, kinds, args.seed, rules, args.max_turns, args.save, on_deal=advance, jobs=args.jobs
        )
    data = stats.to_json()
    if args.json:
        settings = {"bots": kinds, "seed": str(args.seed), "max_turns": args.max_turns}
        print(json.dumps({"settings": _run_settings(rules, args.deals, settings), **data}))
        return 0
    print(f"{data['deals']} deals in {data['matches']} matches, {data['seconds']} s")
    print(f"deals/s: {data['deals_per_s']}   decisions/s: {data['decisions_per_s']}")
    print(f"mean decisions per deal: {data['mean_decisions_per_deal']}   mean turns: {data['mean_turns_per_deal']}")
    ended = ", ".join(f"{k} {v}" for k, v in data["ended_by"].items())
    print(f"ended by: {ended}")
    for label, mean in data["mean_team_scores"].items():
        print(f"mean team score per deal, {label}: {mean}")
    if "margin" in data:
        a, b = data["margin"]["teams"]
        print(f"margin {a} - {b}: {data['margin']['points_per_deal']} points per deal")
    if args.save:
        print(f"records saved in {args.save}")
    return 0


def _soak(args: argparse.Namespace) -> int:
    if args.deals < 1 or args.first < 0 or args.jobs < 1 or args.sample < 1:
        raise Misuse("--deals, --jobs and --sample must be at least 1, --first at least 0")
    if args.ray is not None:
        _require_extra("ray", "biriba soak --ray")
    run = Run.new(args.seed, args.first, args.deals, args.sample, args.jobs)
    state = Path(args.state) if args.state else None
    if state is not None and state.exists():
        run = Run.from_json(load_json(state))
        asked = (args.seed, args.first, args.deals, args.sample)
        if (str(run.seed), run.first, run.deals, run.sample) != asked:
            raise Misuse(
                f"{state} holds another run (--seed {run.seed} --first {run.first} --deals {run.deals}"
                f" --sample {run.sample}): give those, or another --state file"
            )
    failures = Path(args.failures)

    def chunk_done(chunk: Chunk) -> None:
        for failure in chunk.failures:
            failures.mkdir(parents=True, exist_ok=True)
            (failures / f"deal-{failure['seed']}-{failure['deal']}.json").write_text(json.dumps(failure, indent=1))
        advance(chunk.played)

    with _progress_bar("deals", args.deals, not args.no_progress) as advance:
        advance(run.played)
        run = soak(run, args.jobs, args.ray, state, chunk_done)
    data = run.summary(args.jobs)
    if args.json:
        print(json.dumps(data))
    else:
        print(f"{data['deals']} deals, {data['actions']} actions, every invariant checked after every action")
        print(
            f"{data['seconds']} s: {data['deals_per_s']} deals/s, {data['actions_per_s']} actions/s, {args.jobs} jobs"
        )
        print("ended by: " + ", ".join(f"{k} {v}" for k, v in data["ended_by"].items()))
        if data["rss_mb"]:
            print("memory (MB): first {first}, last {last}, peak {peak}".format(**data["rss_mb"]))
        print(f"failures: {data['failures']}" + (f", written in {failures}/" if data["failures"] else ""))
    return 1 if data["failures"] else 0


@contextmanager
def _progress_bar(label: str, total: int | None, shown: bool) -> Iterator[Callable[..., None]]:
    """A progress bar on standard error (so ``--json`` output stays clean); yields the step to call (with the
    total, where it was not known at the start)."""
    if not shown or not sys.stderr.isatty():
        yield lambda steps=1, total=None: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), "left", TimeRemainingColumn())  # time left
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task(label, total=total)
        yield lambda steps=1, total=None: progress.update(task, advance=steps, total=total)


#: How often a tournament's ``--state`` file is written while it plays (and always when it stops), in seconds.
STATE_SAVE_S = 5.0


def _tournament(args: argparse.Namespace) -> int:
    from .tournament import Pair, Spec, check_agent, kept_records, load_pairs, play_pairs, save_pairs, summarize

    known = (*known_kinds(), "perfect")
    for kind in (args.bot_a, args.bot_b):
        if kind.partition(":")[0] not in known:
            _refuse_missing_extra(kind)
            raise Misuse(f"unknown bot kind {kind!r}; known: {', '.join(sorted(known))}")
        try:
            check_agent(kind)
        except (ValueError, TypeError) as exc:
            raise Misuse(f"{kind}: a bot's settings: {exc}") from None
    if args.deals < 2 or args.jobs < 1:
        raise Misuse("--deals is at least 2 and --jobs at least 1")
    if args.ray is not None:
        _require_extra("ray", "biriba tournament --ray")
    rules = _rules_arg(args.rules, args.set)
    if len(rules.teams) < 2:
        raise Misuse("a tournament needs two teams or more")
    spec = Spec(args.bot_a, args.bot_b, rules, str(args.seed), args.matches)
    state = Path(args.state) if args.state else None
    kept: dict[int, Pair] = {}
    if state is not None and state.exists():
        try:
            kept = {p.number: p for p in load_pairs(state, spec)}
        except ValueError as exc:
            raise Misuse(str(exc)) from None
    saved = time.monotonic()

    def pair_done(pair: Pair) -> None:
        nonlocal saved
        advance()
        kept[pair.number] = pair
        if state is not None and time.monotonic() - saved > STATE_SAVE_S:
            save_pairs(state, spec, kept.values())
            saved = time.monotonic()

    with _progress_bar("pairs", args.deals, not args.no_progress) as advance:
        advance(sum(n < args.deals for n in kept))
        try:
            pairs = play_pairs(spec, args.deals, args.jobs, args.ray, pair_done, kept.values())
        except KeyboardInterrupt:
            if state is not None:  # kept just below
                print(
                    f"\nbiriba: stopped; the {len(kept)} pairs played are kept in {state}:"
                    " the same command goes on from them",
                    file=sys.stderr,
                )
            raise
        finally:  # done or stopped: every pair played is kept
            if state is not None:
                save_pairs(state, spec, kept.values())
    summary = summarize(spec, pairs)
    if args.save:
        folder = Path(args.save)
        folder.mkdir(parents=True, exist_ok=True)
        data = [
            {"pair": p.number, "games": [dataclasses.replace(g, record=None).to_json() for g in p.games]} for p in pairs
        ]
        (folder / "pairs.json").write_text(json.dumps(data) + "\n")
        for stale in folder.glob("capped-*.json"):  # an earlier run's records would pass for this one's
            stale.unlink()
        for pair, game, record in kept_records(pairs):
            (folder / f"capped-{pair:04d}-{game}.json").write_text(json.dumps(record) + "\n")
    if args.json:
        settings = {"bots": [args.bot_a, args.bot_b], "seed": str(args.seed), "matches": bool(args.matches)}
        print(json.dumps({"settings": _run_settings(rules, args.deals, settings), **summary.to_json()}))
    else:
        for line in summary.lines():
            print(line)
    return 0


# ----------------------------------------------------------------- rules
def _rules(args: argparse.Namespace) -> int:
    if args.preset is not None and rulebook.RULE_ID.fullmatch(args.preset):
        text = rulebook.rule(args.preset)
        if text is None:
            raise Misuse(rulebook.unknown(args.preset))
        print(textwrap.fill(text, width=78))
        return 0
    if args.preset is None and not args.set:
        print("Presets (biriba rules PRESET shows one; --rules PRESET --set option=value plays one):")
        width = max(map(len, PRESETS))
        for name in PRESETS:
            print(f"  {name:{width}} {PRESET_HELP.get(name, '')}")
        print("Options:")
        for name in OPTION_NAMES:
            limits = f" ({range_words(name)})" if name in OPTION_LIMITS else ""
            print(f"  {name:25} {OPTION_HELP[name]}{limits}")
        return 0
    rules = _rules_arg(args.preset or "classic", args.set)
    base = preset(args.preset or "classic")
    print(f"{rules.name}: {PRESET_HELP.get(base.name, '')}")
    for name in OPTION_NAMES:
        value = getattr(rules, name)
        changed = "  (changed)" if value != getattr(base, name) else ""
        print(f"  {name:25} {format_option(value)}{changed}")
    return 0


# ------------------------------------------------------------------ play
#: What a saved match fixes, so ``play --resume`` refuses it: (the flag, its attribute).
_RESUME_FIXES = (
    ("--rules", "rules"),
    ("--set", "set"),
    ("--seed", "seed"),
    ("--name", "name"),
    ("--save", "save"),
    ("--force", "force"),
)


def _play(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .tui import SaveError, list_matches, run_game
    from .tui.saves import last_unfinished
    from .tui.words import bot_lines

    if args.list:
        return list_matches(Console(highlight=False))
    if args.bots.strip() == "help":
        print("Bot kinds for 'biriba play --bots KIND[,KIND...]' (cycled over the other seats):")
        print(bot_lines(width=78))
        return 0
    kinds = _bot_kinds(args.bots)
    resume: Path | None = None
    if args.resume is not None:
        given = [flag for flag, value in _RESUME_FIXES if getattr(args, value)]
        if given:
            raise Misuse(
                f"{', '.join(given)}: a resumed match goes on as it was saved, under its own rules, seed, names and"
                " file; start a new match to change them"
            )
        try:
            resume = Path(args.resume) if args.resume else last_unfinished()
        except SaveError as exc:
            raise Misuse(str(exc)) from None
        if resume is None:
            raise Misuse("no unfinished match is saved; 'biriba play --list' lists the saved ones")
    rules = _rules_arg(args.rules or "classic", args.set).at_table([a.split("=")[0].strip() for a in args.set])
    if args.delay < 0:
        raise Misuse("--delay is a number of seconds, 0 or more")
    if not (math.isfinite(args.think_ms) and args.think_ms > 0):
        raise Misuse("--think-ms is a number of milliseconds, more than 0")
    try:
        return run_game(
            rules=rules,
            bot_kinds=kinds,
            seed=args.seed,
            name=args.name or "You",
            save=Path(args.save) if args.save else None,
            resume=resume,
            delay=args.delay,
            plain=args.plain,
            force=args.force,
            think_ms=args.think_ms,
        )
    except SaveError as exc:
        raise Misuse(str(exc)) from None


def without_password(url: str) -> str:
    """A store's or bus's address as it may be shown (in a terminal, a log): its password starred out.

    >>> without_password("postgresql://biriba:s3cret@db.example/biriba")
    'postgresql://biriba:***@db.example/biriba'
    >>> without_password("sqlite:////home/eleni/tables.sqlite3")
    'sqlite:////home/eleni/tables.sqlite3'
    """
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    user = f"{parts.username}:" if parts.username else ":"
    return parts._replace(netloc=f"{user}***@{parts.netloc.rpartition('@')[2]}").geturl()


def _ratings(args: argparse.Namespace) -> int:
    """The bots' fixed ratings beside what the rated people's results against them say."""
    _require_extra("web", "biriba ratings")
    import asyncio

    from .server.ratings import Ratings
    from .server.store import Store, default_url

    async def run() -> list[Any]:
        store = await Store.open(args.db or default_url())
        try:
            return await Ratings(store).bots_against_people(args.rules)
        finally:
            await store.close()

    checks = asyncio.run(run())
    if not checks:
        print(f"no rated {args.rules} matches with bots yet")
        return 0
    print(f"{'bot':<10} {'rating':>7} {'matches':>8} {'score':>7} {'expected':>9} {'fitted':>7}")
    for c in checks:
        sweep = "higher" if c.score == c.matches else "lower"  # won every match or none: no finite rating fits
        fitted = f"{c.fitted:.1f}" if c.fitted is not None else sweep
        print(f"{c.kind:<10} {c.rating:>7.1f} {c.matches:>8} {c.score:>7.1f} {c.expected:>9.1f} {fitted:>7}")
    return 0


def _moderate(args: argparse.Namespace) -> int:
    """An operator's moderation, on the store the servers use: reports read and handled, bans."""
    _require_extra("web", "biriba moderate")
    import asyncio

    from .server.messages import TableError
    from .server.moderation import Moderation
    from .server.store import Store, default_url

    async def run() -> None:
        store = await Store.open(args.db or default_url())
        moderation = Moderation(store)
        try:
            if args.action == "reports":
                found = await moderation.reports(everything=args.all)
                for r in found:
                    made = datetime.fromtimestamp(r.made, UTC).strftime("%Y-%m-%d %H:%M")
                    notes = [f"by {r.reporter or '(deleted account)'}", f"at table {r.table}" if r.table else ""]
                    notes += ["handled" if r.handled else "", "banned" if r.banned else ""]
                    print(f"#{r.id}  {made}  {r.reported}  ({', '.join(n for n in notes if n)}): {r.reason}")
                print(f"{len(found)} report{'s' if len(found) != 1 else ''}" + ("" if args.all else " not handled"))
            elif args.action == "handled":
                await moderation.handled(args.report)
                print(f"report #{args.report} handled")
            elif args.action == "ban":
                if not 1 <= len(args.reason) <= 500:
                    raise Misuse("--reason is 1 to 500 characters")
                print(f"{await moderation.ban(args.name, args.reason)} is banned: signed out everywhere")
            else:
                print(f"{await moderation.unban(args.name)} may sign in again")
        except TableError as exc:
            raise Misuse(str(exc)) from None
        finally:
            await store.close()

    asyncio.run(run())
    return 0


def _serve(args: argparse.Namespace) -> int:
    _require_extra("web", "biriba serve")
    import uvicorn

    from .server import create_app
    from .server.app import KEEPALIVE_EVERY
    from .server.store import async_url, default_url

    db = args.db or default_url()
    try:
        async_url(db)
    except ValueError as exc:
        raise Misuse(str(exc)) from None
    if not 1 <= args.port <= 65535:
        raise Misuse("--port is 1..65535")
    numbers = (
        "max_body",
        "tables_per_minute",
        "open_tables",
        "unclaimed_after",
        "idle_after",
        "bot_workers",
        "bot_queue",
        "cache_budget",
        "hints_per_minute",
        "chat_per_minute",
        "connections_per_address",
        "connections_per_minute",
        "connections_per_table",
        "watchers",
        "send_queue",
        "send_queue_bytes",
        "send_timeout",
        "replays_at_once",
        "replays_per_minute",
        "replay_cache",
    )
    for name in numbers:
        if getattr(args, name) < 1:
            raise Misuse(f"--{name.replace('_', '-')} is at least 1")
    for url in (args.public_url, *args.allow_origin):
        if url is not None and not url.startswith(("http://", "https://")):
            raise Misuse(f"{url!r}: an address is http://host[:port] or https://host[:port]")
    proxies, any_proxy = _trusted_proxies(args.trusted_proxies, args.only_through_proxy)
    if args.workers < 1:
        raise Misuse("--workers is at least 1")
    if not 2 <= args.analysis_samples <= 1000:
        raise Misuse("--analysis-samples is 2 to 1000")
    if args.quick_target is not None and args.quick_target < 1:
        raise Misuse("--quick-target is at least 1 point")
    if not 0.5 <= args.lease_ttl <= 600:
        raise Misuse("--lease-ttl is 0.5 to 600 seconds")
    if args.workers > 1 and not args.redis:
        raise Misuse("--workers N needs --redis URL: the processes tell each other the tables' changes through it")
    if args.redis:
        _require_extra("cluster", "biriba serve --redis")
        if not args.redis.startswith(("redis://", "rediss://", "unix://")):
            raise Misuse(f"--redis {args.redis!r}: write redis://host:port (or rediss:// or unix://)")
        if not db.startswith(("postgresql://", "postgres://")):
            raise Misuse("--redis: several processes share one store, which is PostgreSQL (--db postgresql://...)")
    config = ServerConfig(
        public_url=args.public_url,
        origins=tuple(args.allow_origin),
        redis_url=args.redis,
        lease_ttl=args.lease_ttl,
        beat_every=args.lease_ttl / 5,
        quick_target=args.quick_target,
        analysis_samples=args.analysis_samples,
        **{name: getattr(args, name) for name in numbers},
    )
    shown = "localhost" if args.host in ("127.0.0.1", "0.0.0.0", "::") else args.host
    where = args.public_url or f"http://{shown}:{args.port}/"
    processes = f"; {args.workers} processes" if args.workers > 1 else ""
    listening = _bind(args.host, args.port)  # before the game is announced: a busy port is said, not traced back
    print(f"biriba: the web game is at {where}  (store: {without_password(db)}{processes}; Ctrl-C stops)", flush=True)
    if any_proxy:
        print(
            f"biriba: warning: --trusted-proxies {args.trusted_proxies}: every client's X-Forwarded-For is believed;"
            f" anyone who reaches port {args.port} without going through the proxies chooses their own address"
            " and escapes the per-address quotas",
            file=sys.stderr,
            flush=True,
        )
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_level": "warning",
        "ws_max_size": 65536,
        "ws_ping_interval": KEEPALIVE_EVERY,
        "ws_per_message_deflate": args.ws_compression,
        "proxy_headers": proxies is not None,
        "forwarded_allow_ips": proxies or "",
    }
    if args.workers == 1:
        server = uvicorn.Server(uvicorn.Config(create_app(db, config), **options))
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[listening])
        return 0
    # each process makes its own app (its own node, store connections, bot workers and bus) from the environment
    from uvicorn.supervisors import Multiprocess

    from .server.app import ENVIRONMENT

    os.environ[ENVIRONMENT] = json.dumps({"db": db, "config": dataclasses.asdict(config)})
    factory = uvicorn.Config("biriba.server.app:app_from_environment", factory=True, workers=args.workers, **options)
    with contextlib.suppress(KeyboardInterrupt):
        Multiprocess(factory, sockets=[listening]).run()
    return 0


def _bind(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound here (as uvicorn would bind it) so that a port in use is one clear line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        if exc.errno == errno.EADDRINUSE:
            raise Misuse(f"port {port} on {host} is in use (another server?): choose another with --port") from None
        raise Misuse(f"cannot listen on {host} port {port}: {exc.strerror}") from None
    listening.set_inheritable(True)
    return listening


def _trusted_proxies(given: str | None, only_through_proxy: bool) -> tuple[str | None, bool]:
    """``--trusted-proxies`` as uvicorn takes it, each address or network checked, and whether it is every address.

    A forwarded address is what the per-address quotas count, so believing
    every peer's ``X-Forwarded-For`` (``*``, or a network of every address)
    lets anyone who reaches the port directly pick an address per request
    and escape the quotas.  It is refused unless the operator states that
    nobody can (``--only-through-proxy``), and even then named at start-up.
    uvicorn would take a misspelt address as a name that never matches, or
    ``*`` among others as such a name: both are refused here instead.
    """
    if given is None:
        return None, False
    items = [item.strip() for item in given.split(",")]
    every = items == ["*"]
    for item in items if not every else []:
        try:
            network = ipaddress.ip_network(item) if "/" in item else ipaddress.ip_address(item)
        except ValueError:
            raise Misuse(
                f"--trusted-proxies: {item!r} is not an IP address or network (127.0.0.1, 10.0.0.0/8, ::1);"
                " * stands alone"
            ) from None
        every = every or (isinstance(network, (ipaddress.IPv4Network, ipaddress.IPv6Network)) and not network.prefixlen)
    if every and not only_through_proxy:
        raise Misuse(
            f"--trusted-proxies {given}: every client's X-Forwarded-For would be believed, so anyone who reaches"
            " this port directly could choose their address and escape the per-address quotas; name the proxies"
            " (e.g. 127.0.0.1), or add --only-through-proxy if the port can be reached through them alone"
        )
    return ",".join(items), every


if __name__ == "__main__":
    sys.exit(main())
