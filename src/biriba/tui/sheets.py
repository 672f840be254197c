"""The tables both faces of the terminal game show: a deal's result, the match's score sheet, the table's rules."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box as boxes
from rich.box import Box
from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from ..melds import meld_bonus
from ..rules import OPTION_HELP, PRESET_HELP, PRESETS, Rules, format_option
from ..scoring import PARTS, DealResult
from ..views import PlayerView
from .words import ENDED_WORDS, PART_NAMES, Words

ScoreRows = Sequence[tuple[int, tuple[int, ...], tuple[int, ...]]]


def score_sheet(words: Words, rows: ScoreRows, box: Box = boxes.ROUNDED) -> RichTable:
    """Each finished deal's team scores and the running totals."""
    order = words.team_order()
    table = RichTable(title="Score sheet", box=box)
    table.add_column("deal")
    for team in order:
        table.add_column(words.team_label(team), justify="right")
    for number, scores, totals in rows:
        table.add_row(str(number), *(f"{scores[t]:+d} = {totals[t]}" for t in order))
    if not rows:
        table.add_row("-", *("no deal finished yet" if i == 0 else "" for i in range(len(order))))
    return table


def deal_result(
    words: Words,
    result: DealResult,
    view: PlayerView,
    number: int,
    totals: Sequence[int],
    box: Box = boxes.ROUNDED,
) -> Group:
    """A finished deal: each part of each team's score, the match totals, the winner, the bonuses."""
    order = words.team_order()
    assert result.ended_by is not None, "a result of a deal not over"
    how = f"{words.seat_name(view.closer)} went out" if view.closer >= 0 else f"ended by {ENDED_WORDS[result.ended_by]}"
    if how.startswith("You went"):
        how = "you went out"
    table = RichTable(title=f"Deal {number} over: {how}", box=box)
    table.add_column("")
    for team in order:
        table.add_column(words.team_label(team), justify="right")
    for key in (*PARTS, "total"):
        if key in result.breakdown[0]:
            table.add_row(
                PART_NAMES[key],
                *(f"{result.breakdown[t][key]:+d}" for t in order),
                style="bold" if key == "total" else "",
            )
    table.add_row("match total", *(str(totals[t]) for t in order), style="bold")
    lines: list[RichTable | Text] = [table, Text(words.deal_winner(result), style="bold")]
    for team in order:
        for index, meld in enumerate(view.melds[team]):
            bonus = meld_bonus(meld, view.rules, view.trump, index in view.laid_whole[team])
            if bonus:
                line = Text(f"{words.team_label(team)}: ")
                line.append_text(words.meld(meld, compact=True))
                line.append(f"  {words.meld_state(meld)} +{bonus}")
                lines.append(line)
    return Group(*lines)


def table_rules(rules: Rules) -> Text:
    """The rules this table plays: the preset and what it is, then each option that differs from it and why."""
    base_name = rules.name.removesuffix("*")
    base = PRESETS.get(base_name, PRESETS["classic"])
    text = Text(f"The rules at this table: {base_name}", style="bold")
    text.append(f"\n  {PRESET_HELP.get(base_name, '')}")
    for name, help_words in OPTION_HELP.items():
        value = getattr(rules, name)
        if value != getattr(base, name):
            text.append(f"\n  {name} {format_option(value)}", style="bold")
            text.append(f": {help_words}")
    return text
