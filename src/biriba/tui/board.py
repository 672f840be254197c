"""The melds on the full-screen table: every team's, laid out to fit the terminal whatever its size.

Two teams side by side at 80 columns, more on a wider terminal, else a team
under the other with the melds flowing like words; nothing is cut.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.widgets import Static

from ..views import PlayerView
from .session import YOU
from .words import Words

if TYPE_CHECKING:
    from .app import BiribaApp

#: Where a meld of yours is on the board, for a click: (row, first column, past the last, its number).
Place = tuple[int, int, int, int]


class MeldsBoard(Static):
    """Every team's melds, numbered as ``add N`` counts them; click one of yours to add your picked cards.

    A column a team when the terminal is wide enough for them, else a team
    under the other, the melds flowing like words.  Nothing is cut: a team's
    points and reserve wrap onto a second line rather than lose a word, and
    when the melds would push the rest off the screen the other teams'
    melds are told in short (runs as their ends, then each meld's state).
    """

    #: The narrowest column for a team: its name, points and reserve, and a meld, without wrapping.
    COLUMN = 38

    def __init__(self, app_: BiribaApp, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.game = app_
        self.places: list[Place] = []  # your team's melds

    def render(self) -> Text:
        return self.board(max(self.size.width, 20))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The rows the board needs at the width it is given (its own size is not set yet when this is asked)."""
        return len(self.board(max(width, 20)).split())

    def board(self, width: int) -> Text:
        """The board at ``width`` columns; keeps where your melds are, for clicks."""
        session = self.game.session
        view = session.view()
        teams = session.words.team_order()
        budget = self.game.meld_rows()
        if width >= self.COLUMN * len(teams):
            board = self.in_columns(view, teams, width, budget)
            if board is not None:
                return board
        ours = view.rules.team_of[YOU]
        for short in range(4):  # told shorter until it fits: runs by their ends, the others' states, their titles
            rows: list[Text] = []
            places: list[Place] = []
            for team in teams:
                lines, team_places, _cut = self.team_lines(view, team, width, short if team != ours else min(short, 1))
                if team == ours:  # a click adds to your own melds only
                    places += [(len(rows) + row, start, end, number) for row, start, end, number in team_places]
                rows += lines
            if len(rows) <= budget:
                break
        if short == 3 and len(rows) < budget:
            rows.append(Text("v shows every team's melds", style="dim italic"))
        self.places = places
        return Text("\n").join(rows)

    def in_columns(self, view: PlayerView, teams: list[int], width: int, budget: int) -> Text | None:
        """A column a team, a line between them; None if a meld would be cut."""
        cell = (width - 3 * (len(teams) - 1)) // len(teams)
        columns = [self.team_lines(view, team, cell, 0, budget) for team in teams]
        if any(cut for _lines, _places, cut in columns):
            return None
        ours = teams.index(view.rules.team_of[YOU])
        shift = ours * (cell + 3)
        self.places = [(row, start + shift, end + shift, number) for row, start, end, number in columns[ours][1]]
        out = []
        for row in range(max(len(lines) for lines, _places, _cut in columns)):
            line = Text()
            for index, (lines, _places, _cut) in enumerate(columns):
                if index:
                    line.append(" │ ", style="dim")
                part = lines[row] if row < len(lines) else Text()
                line.append_text(part).append(" " * (cell - part.cell_len))
            out.append(line)
        return Text("\n").join(out)

    def team_lines(
        self, view: PlayerView, team: int, width: int, short: int, budget: int = 0
    ) -> tuple[list[Text], list[Place], bool]:
        """A team's title and melds in ``width`` columns, where each meld is, and whether one had to be cut.

        With a ``budget`` of rows (a column) the melds go down as many sub-columns as it needs; without,
        they flow across the width.  ``short`` 1 writes runs by their ends, 2 the melds' states alone,
        3 the title alone.
        """
        words = self.game.session.words
        lines = self.title(words, view, team, width)
        melds = view.melds[team]
        if short == 3:
            return lines, [], False
        if not melds:  # on the title's line where it fits: a row saved for the story
            if lines[-1].cell_len + len(" · no melds") <= width:
                lines[-1].append(" · no melds", style="dim")
            else:
                lines.append(Text("no melds", style="dim"))
            return lines, [], False
        if short == 2:
            lines[-1].append(" · " + ", ".join(words.short_state(meld) for meld in melds), style="dim")
            return [row for line in lines for row in line.wrap(self.app.console, width)], [], False
        count = max(1, -(-len(melds) // max(2, budget - len(lines)))) if budget else 1
        room = width if count == 1 else max(12, width // count) - 1
        entries = []
        for index, meld in enumerate(melds, 1):
            state = words.short_state(meld)
            entry = Text(f"{index}. ").append_text(words.meld(meld))
            if short or entry.cell_len + len(state) + 1 > room:
                entry = Text(f"{index}. ").append_text(words.meld(meld, compact=True))
            entry.append(" " + state, style="green" if meld.size >= view.rules.biriba_size else "dim")
            entries.append(entry)
        cut = any(entry.cell_len > room for entry in entries)
        for entry in entries:
            entry.truncate(room, overflow="ellipsis")
        cells = _columns(len(entries), count, room + 1) if budget else _flow(entries, width)
        top = len(lines)
        places = []
        for row, placed in enumerate(cells):
            line = Text()
            for start, number in placed:
                entry = entries[number - 1]
                line.append(" " * (start - line.cell_len)).append_text(entry)
                places.append((top + row, start, start + entry.cell_len, number))
            lines.append(line)
        return lines, places, cut

    def title(self, words: Words, view: PlayerView, team: int, width: int) -> list[Text]:
        """The team's name and points on the table, then its reserve: on one line, or two if need be."""
        title = Text(words.team_label(team), style="bold")
        title.append(f"  {words.table_points(view, team)} pts", style="dim")
        reserve = view.reserves[team]
        if reserve is None:
            state = "no reserve yet"
        else:
            state = f"reserve: {words.short_name(reserve.seat)}" + ("" if reserve.active else ", next turn")
        if title.cell_len + len(state) + 2 <= width:
            return [title.append(", " + state, style="dim")]
        return [title, Text(state, style="dim")]

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)  # inside the padding, as the places are counted
        if offset is None:
            return
        for row, start, end, number in self.places:
            if offset.y == row and start <= offset.x < end:
                self.game.add_to(number)
                return


def _flow(entries: list[Text], width: int) -> list[list[tuple[int, int]]]:
    """Entries across the width, three spaces apart, a new row when the next does not fit: (start, number)."""
    rows: list[list[tuple[int, int]]] = []
    col = width
    for number, entry in enumerate(entries, 1):
        if col + 3 + entry.cell_len > width:
            rows.append([])
            col = -3
        rows[-1].append((col + 3, number))
        col += 3 + entry.cell_len
    return rows


def _columns(total: int, count: int, cell: int) -> list[list[tuple[int, int]]]:
    """``total`` entries down the first of ``count`` columns ``cell`` wide, then the next: (start, number)."""
    rows = -(-total // count) if total else 0
    return [
        [(column * cell, column * rows + row + 1) for column in range(count) if column * rows + row < total]
        for row in range(rows)
    ]
