"""The terminal game: you against bots (with a bot partner), at a full-screen table or a prompt.

A front end of its own: the engine and the bots import nothing from here.
:func:`run_game` starts the full-screen table (:mod:`.app`, Textual) on a
terminal, or the line mode (:mod:`.plain`) with ``plain`` or when the
output is not a terminal.  Both drive a :class:`~.session.Session`, which
saves the match after every action.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from ..bots import TABLE_THINK_MS
from ..rules import Rules
from .saves import SaveError, last_unfinished, play_command, resume_command, saved_matches
from .session import Session

__all__ = ["SaveError", "Session", "list_matches", "run_game"]


def run_game(
    rules: Rules,
    bot_kinds: Sequence[str],
    seed: str | None = None,
    name: str = "You",
    save: Path | None = None,
    resume: Path | None = None,
    delay: float = 0.4,
    plain: bool = False,
    force: bool = False,
    full_screen: bool | None = None,
    console: Console | None = None,
    think_ms: float = TABLE_THINK_MS,
) -> int:
    """Start (or resume) a match in the terminal; returns the exit status.

    Raises :class:`SaveError` (before the match starts) for a save file that
    cannot be used.
    """
    console = console or Console(
        color_system=None if plain else "auto", emoji=False, highlight=False, safe_box=plain, soft_wrap=True
    )
    if full_screen is None:
        full_screen = not plain and sys.stdin.isatty() and sys.stdout.isatty()
    if resume is not None:
        session = Session.resume(resume, bot_kinds, plain, think_ms)
        if session.match.is_over:
            console.print(f"The match in {resume} is over already.")
            return 0
        played = sum(deal.is_over for deal in session.match.deals)
        so_far = f"{played} deal{'' if played == 1 else 's'} played" if played else "no deal finished yet"
        console.print(f"Resumed the match from {resume}: {so_far}.", soft_wrap=True)
    else:
        session = Session.new(rules, bot_kinds, seed, name, save, force, plain, think_ms)
    rules = session.match.rules
    partner = [session.words.short_name(s) for s in rules.teams[rules.team_of[0]] if s != 0]
    table = f"with your partner {partner[0]}" if partner else "playing for yourself"
    if full_screen:
        from .app import BiribaApp

        outcome = BiribaApp(session, delay).run()
        session.save()
        if outcome == "over":
            match = session.match
            totals = ", ".join(f"{session.words.team_label(t)} {match.totals[t]}" for t in session.words.team_order())
            console.print(f"The match is over. Final totals: {totals}.", soft_wrap=True)
            console.print(f"Match seed {match.seed}: 'biriba play --seed {match.seed}' deals the same cards.")
            console.print(f"The record is in {session.save_path}.", soft_wrap=True)
        elif outcome in (None, "quit", "interrupted"):
            console.print(
                f"Stopped. The match is saved in {session.save_path};"
                f" '{resume_command(session.save_path)}' continues it.",
                soft_wrap=True,
            )
        return 130 if outcome == "interrupted" else 0
    from .plain import LineGame

    console.print(
        f"Biriba, {session.words.rules_name()}: you sit South, {table}; play goes to your right. Type 'help' for help."
    )
    console.print(f"The match is saved after every move in {session.save_path}", soft_wrap=True)
    return LineGame(session, console, delay=delay, plain=plain).run()


def list_matches(console: Console) -> int:
    """``biriba play --list``: the saved matches, newest first."""
    matches = saved_matches()
    if not matches:
        console.print("No saved matches yet.")
        return 0
    for match in matches:
        console.print(match.line(), markup=False, highlight=False, soft_wrap=True)
    try:
        unfinished = last_unfinished()
    except SaveError as exc:
        console.print(f"'{play_command('--resume')}' would stop: {exc}", markup=False, soft_wrap=True)
        return 0
    if unfinished is not None:
        console.print(
            f"'{play_command('--resume')}' continues the newest unfinished one: {unfinished}",
            markup=False,
            soft_wrap=True,
        )
    return 0
