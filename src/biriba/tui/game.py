"""The terminal game: you and a bot partner against two bots, drawn with rich.

You sit South (seat 0); play goes to your right, so East (seat 1) plays
after you, then your partner North (seat 2), then West (seat 3).  You type
actions in the notation (``draw``, ``meld 3H 4H 5H``, ``add 2 7S``,
``discard 9C``); ``help`` lists the other commands.  Everything shown comes
from your seat's view: the engine decides what you may see.
"""

from __future__ import annotations

import json
import random
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from ..bots import Bot, GreedyBot, make_bot
from ..cards import JOKER, NAMES, SUIT_SYMBOLS, SUITS, suit_of
from ..deal import Deal
from ..errors import BiribaError
from ..match import Match
from ..melds import Meld, meld_bonus, meld_state
from ..records import load_json
from ..replay import load_match
from ..rules import Rules, TargetRule
from ..scoring import PARTS, DealResult
from ..table import Table
from ..terms import Ending, Outcome, Phase
from ..views import PlayerView

HUMAN = 0
#: Names of the seats by table size, from yours (seat 0) in the order of play (to your right).
SEAT_NAMES = {
    2: ("South", "North"),
    3: ("South", "East", "West"),
    4: ("South", "East", "North", "West"),
    5: ("South", "South-east", "North-east", "North-west", "South-west"),
    6: ("South", "South-east", "North-east", "North", "North-west", "South-west"),
}
PART_NAMES = {
    "melds": "cards melded",
    "bonuses": "meld bonuses",
    "hands": "cards in hand",
    "going_out": "going out",
    "reserve": "reserve",
    "cut": "dealer's cut",
    "total": "deal total",
}

HELP = """\
[b]Actions[/b] (upper or lower case; 10 for T and suit symbols are accepted)
  draw               take the top card of the stock
  take               take the whole discard pile
  pass               only when the stock is empty
  meld 3H 4H 5H      lay a new meld (a run's wild may name its slot: JK=6H)
  add 2 7S 8S        add cards to your team's meld number 2
  add 1 6H wild=low  ... and send the wild that 6H replaces to the low end
  discard 9C         end your turn
[b]Commands[/b]
  help  this text               pile   the whole discard pile
  legal every legal action      hint   what the greedy bot would do
  score the match score         quit   stop (saved if you gave --save)
[b]In brief[/b]: draw or take, meld, discard; keep 2 cards after melding.
A meld of 7+ cards is a biriba.  With one, your team may empty a hand to
take its reserve packet; with the reserve taken, discarding your last
card goes out and ends the deal.  Full rules: docs/rules.md"""


class Game:
    """One terminal match: draws the table, reads your actions, lets the bots play."""

    def __init__(
        self,
        match: Match,
        bots: Sequence[Bot | None],
        console: Console,
        save: Path | None = None,
        delay: float = 0.4,
        plain: bool = False,
    ) -> None:
        self.match = match
        self.table = Table(match, bots)
        self.console = console
        self.save_path = save
        self.delay = delay
        self.plain = plain
        self.log: deque[Text] = deque(maxlen=8)
        self.hinter = GreedyBot(0)

    # ------------------------------------------------------------- flow
    def run(self) -> int:
        match = self.match
        while not match.is_over:
            if self.table.needs_deal:
                self.table.start_deal()
            deal = match.deals[-1]
            if not deal.history:
                first = "you play" if deal.to_move == HUMAN else f"{self.seat_name(deal.to_move)} plays"
                deals = "you deal" if deal.dealer == HUMAN else f"{self.seat_name(deal.dealer)} deals"
                self.note(f"Deal {len(match.deals)}: {deals}; {first} first.{self.cut_text(deal.view_for(HUMAN))}")
            if not self.play_deal(deal):
                self.save()
                self.console.print("Stopped." + (f" The match is saved in {self.save_path}." if self.save_path else ""))
                return 0
            result = deal.result()
            self.save()
            self.show_result(deal, result)
            if not match.is_over and not self.ask_continue():
                return 0
        self.show_match_end()
        return 0

    def play_deal(self, deal: Deal) -> bool:
        """Play the deal at the table: the bots through it, you at the prompt; False if you quit."""
        while not deal.is_over:
            if self.table.waiting_for == HUMAN:
                if not self.human_turn(deal):
                    return False
                continue
            event = self.table.step()
            assert event is not None and event.outcome is not None
            self.describe(deal.view_for(HUMAN), event.outcome.seen_by(HUMAN))
            self.save()
            if self.delay:
                self.render(deal)
                time.sleep(self.delay)
        return True

    def human_turn(self, deal: Deal) -> bool:
        """Read commands until an action is played; False if the player quits."""
        self.render(deal)
        while True:
            prompt = (
                "Your move (draw, take or pass)" if deal.phase == Phase.DRAW else "Your move (meld, add or discard)"
            )
            try:
                line = self.console.input(f"[b]{prompt}[/b] > ").strip()
            except EOFError:
                return False
            command = line.lower()
            if command in ("quit", "exit", "q"):
                return False
            if command in ("help", "?", "h"):
                self.console.print(HELP)
                continue
            if command == "pile":
                self.console.print(self.pile_text(deal.view_for(HUMAN).discard, full=True))
                continue
            if command == "legal":
                actions = sorted(str(a) for a in deal.legal_actions())
                self.console.print(f"{len(actions)} legal actions:")
                self.console.print("  " + "\n  ".join(actions), markup=False)
                continue
            if command == "hint":
                suggestion = self.hinter.choose(deal.view_for(HUMAN), list(deal.legal_actions()))
                self.console.print(f"Hint: {suggestion}", markup=False)
                continue
            if command == "score":
                self.console.print(self.score_line())
                continue
            if not command:
                self.render(deal)
                continue
            try:
                event = self.table.play(HUMAN, line)
            except BiribaError as exc:
                self.console.print(Text(f"Not allowed: {exc}", style="bold red"))
                continue
            assert event.outcome is not None
            self.describe(deal.view_for(HUMAN), event.outcome)
            self.save()
            return True

    def ask_continue(self) -> bool:
        try:
            answer = self.console.input("[b]Press Enter for the next deal (or type quit)[/b] > ")
        except EOFError:
            return False
        return answer.strip().lower() not in ("quit", "exit", "q")

    def save(self) -> None:
        if self.save_path is not None:
            data = self.match.to_record()
            tmp = self.save_path.with_suffix(self.save_path.suffix + ".tmp")
            tmp.write_text(json.dumps(data) + "\n")
            tmp.replace(self.save_path)

    # ------------------------------------------------------------ words
    def seat_name(self, seat: int) -> str:
        if seat == HUMAN:
            return "You"
        rules = self.match.rules
        partner = " (partner)" if rules.team_of[seat] == rules.team_of[HUMAN] else ""
        return f"{SEAT_NAMES[rules.seats][seat]}{partner}"

    def team_label(self, team: int) -> str:
        """``Us`` for the human's side, else its players' names."""
        rules = self.match.rules
        if team == rules.team_of[HUMAN]:
            return "Us" if len(rules.teams[team]) > 1 else "You"
        return " & ".join(SEAT_NAMES[rules.seats][s] for s in rules.teams[team])

    def team_order(self) -> list[int]:
        ours = self.match.rules.team_of[HUMAN]
        return [ours] + [t for t in range(len(self.match.rules.teams)) if t != ours]

    def note(self, text: str | Text) -> None:
        self.log.append(text if isinstance(text, Text) else Text(text))

    def describe(self, view: PlayerView, outcome: Outcome) -> None:
        """One log line for what happened, from the human's view and the outcome as they saw it."""
        you = outcome.seat == HUMAN

        def verb(word: str) -> str:  # "You: take", "East: takes"
            return word if you else {"pass": "passes"}.get(word, word + "s")

        action = outcome.action
        line = Text(f"{self.seat_name(outcome.seat)}: ")
        if action.kind == "draw":
            if outcome.drawn >= 0:
                line.append("draw ")
                line.append_text(self.card_text(outcome.drawn))
            else:
                line.append("draws from the stock")
        elif action.kind == "take":
            count = len(outcome.taken)
            line.append(f"{verb('take')} the discard pile ({count} card{'s' if count != 1 else ''}): ")
            line.append_text(self.cards_text(outcome.taken))
        elif action.kind == "pass":
            line.append(verb("pass"))
        elif action.kind == "discard":
            line.append(f"{verb('discard')} ")
            line.append_text(self.card_text(action.cards[0]))
        else:
            melds = view.melds[view.rules.team_of[outcome.seat]]
            index = len(melds) if action.kind == "meld" else action.meld + 1
            line.append(f"{verb('meld')} " if action.kind == "meld" else f"{verb('add')} to meld {index}: ")
            line.append_text(self.cards_text(action.cards, action.slots))
            line.append(f"  ({describe_meld(melds[index - 1], view.rules)})", style="dim")
        if outcome.reserve:
            when = "plays on" if outcome.reserve == "meld" else "next turn"
            line.append(f"; {verb('pick')} up a reserve packet ({when})", style="bold")
        if outcome.ended == Ending.CLOSURE:
            line.append(f"; {'go' if you else 'goes'} out!", style="bold green")
        elif outcome.ended:
            line.append(f"; the deal ends ({outcome.ended})", style="bold")
        self.note(line)

    # ---------------------------------------------------------- drawing
    def card_text(self, code: int, slot: int = -1) -> Text:
        name = NAMES[code]
        if not self.plain and code != JOKER:
            name = name[0] + SUIT_SYMBOLS[suit_of(code)]
        text = Text(name, style=self.card_style(code))
        if slot >= 0:
            text.append(
                "=" + (NAMES[slot] if self.plain else NAMES[slot][0] + SUIT_SYMBOLS[suit_of(slot)]), style="dim"
            )
        return text

    def card_style(self, code: int) -> str:
        if self.plain:
            return ""
        if code in self.match.rules.wild_kinds:
            return "bold magenta"
        return "bold red" if suit_of(code) in (1, 2) else "bold"

    def cards_text(self, codes: Sequence[int], slots: Sequence[int] = ()) -> Text:
        out = Text()
        for i, code in enumerate(codes):
            if i:
                out.append(" ")
            out.append_text(self.card_text(code, slots[i] if i < len(slots) else -1))
        return out

    def pile_text(self, pile: Sequence[int], full: bool = False) -> Text:
        if not pile:
            return Text("Discard pile: empty")
        text = Text(f"Discard pile ({len(pile)}): ")
        if full:
            text.append("bottom ")
            text.append_text(self.cards_text(pile))
            text.append(" top")
        else:
            text.append("top ")
            text.append_text(self.card_text(pile[-1]))
            if len(pile) > 1:
                text.append("  (type 'pile' to see it all)", style="dim")
        return text

    def hand_table(self, view: PlayerView) -> RichTable:
        table = RichTable.grid(padding=(0, 2))
        groups: dict[str, list[int]] = {}
        for code in view.hand:
            if code in view.rules.wild_kinds:
                groups.setdefault("wild", []).append(code)
            else:
                groups.setdefault(SUITS[suit_of(code)], []).append(code)
        for key in (*SUITS, "wild"):
            cards = groups.get(key)
            if cards:
                label = "wild" if key == "wild" else (key if self.plain else f"{key} {SUIT_SYMBOLS[SUITS.index(key)]}")
                table.add_row(Text(label, style="dim"), self.cards_text(cards))
        return table

    def melds_table(self, view: PlayerView, team: int) -> RichTable:
        table = RichTable.grid(padding=(0, 1))
        melds = view.melds[team]
        if not melds:
            table.add_row(Text("no melds", style="dim"))
        for index, meld in enumerate(melds, 1):
            state = describe_meld(meld, view.rules)
            style = "green" if meld.size >= view.rules.biriba_size else "dim"
            table.add_row(
                Text(f"{index}.", style="dim"), self.cards_text(meld.cards(), meld.slots()), Text(state, style=style)
            )
        return table

    def reserve_text(self, view: PlayerView, team: int) -> str:
        reserve = view.reserves[team]
        if reserve is None:
            return "reserve not taken"
        state = "" if reserve.active else " (inactive until their next turn)"
        return f"reserve taken by {self.seat_name(reserve.seat)}{state}"

    def score_line(self) -> Text:
        rules = self.match.rules
        totals = self.match.totals
        parts = [f"{self.team_label(t)} {totals[t]}" for t in self.team_order()]
        rule = "above" if rules.target_rule == TargetRule.EXCEED else "at least"
        return Text(f"Match: {'  '.join(parts)}   (first {rule} {rules.target} after a deal wins)")

    def render(self, deal: Deal) -> None:
        view = deal.view_for(HUMAN)
        rules = view.rules
        ours = rules.team_of[HUMAN]
        header = Text(f"Deal {len(self.match.deals)}   ", style="bold")
        header.append_text(self.score_line())
        turn = Text(f"Turn {view.turn}: ")
        if view.ended_by is not None:
            turn.append(f"the deal is over ({view.ended_by})", style="bold")
        else:
            turn.append(self.seat_name(view.to_move), style="bold")
            turn.append(" to " + ("draw or take" if view.phase == Phase.DRAW else "meld, add or discard"))
        if view.took_single >= 0 and view.my_turn:
            turn.append("  (you may not discard ", style="yellow")
            turn.append_text(self.card_text(view.took_single))
            turn.append(" this turn: R16)", style="yellow")
        counts = "   ".join(
            f"{self.seat_name(s)}: {n} card{'s' if n != 1 else ''}" for s, n in enumerate(view.hand_sizes) if s != HUMAN
        )
        table_info = Text(f"Stock: {view.stock_count}   Packets left: {len(view.packet_sizes)}   ")
        table_info.append_text(self.pile_text(view.discard))
        if view.trump >= 0:
            table_info.append("   Trump: ")
            table_info.append(SUITS[view.trump] if self.plain else SUIT_SYMBOLS[view.trump], style="bold")
        minimum = rules.opening_minimum(view.match_scores[ours])
        mine = view.melds[ours]
        if minimum and (not mine or (view.my_turn and len(mine) == view.turn_melds)):
            so_far = f" (so far {view.opening_value})" if view.my_turn and view.opening_value else ""
            table_info.append(f"\nYour team's first melding must be worth {minimum} points{so_far}.", style="yellow")
        teams = []
        for team in self.team_order():
            seats = rules.teams[team]
            if len(seats) > 1:
                title = f"{'Your team' if team == ours else 'Opponents'} ({', '.join(map(self.seat_name, seats))})"
            else:
                title = "Your melds" if team == ours else f"{self.seat_name(seats[0])}'s melds"
            teams.append(
                Panel(
                    self.melds_table(view, team),
                    title=f"{title} - {self.reserve_text(view, team)}",
                    title_align="left",
                )
            )
        log = Text("\n").join(list(self.log)) if self.log else Text("")
        self.console.print()
        self.console.rule(header)
        self.console.print(Group(*teams, Text(counts), table_info, turn))
        if self.log:
            self.console.print(Panel(log, title="Last actions", title_align="left", style="dim", expand=True))
        self.console.print(Panel(self.hand_table(view), title=f"Your hand ({len(view.hand)})", title_align="left"))

    def show_result(self, deal: Deal, result: DealResult) -> None:
        self.render(deal)
        view = deal.view_for(HUMAN)
        rules = view.rules
        table = RichTable(title=f"Deal {len(self.match.deals)} over: {result.ended_by}")
        table.add_column("")
        order = self.team_order()
        for team in order:
            table.add_column(self.team_label(team), justify="right")
        for key in (*PARTS, "total"):
            if key not in result.breakdown[0]:
                continue
            table.add_row(
                PART_NAMES[key],
                *(f"{result.breakdown[t][key]:+d}" for t in order),
                style="bold" if key == "total" else "",
            )
        table.add_row("match total", *(str(self.match.totals[t]) for t in order), style="bold")
        self.console.print(table)
        self.console.print(Text(self.deal_winner_text(result), style="bold"))
        for team in order:
            for index, meld in enumerate(view.melds[team]):
                bonus = meld_bonus(meld, rules, view.trump, index in view.laid_whole[team])
                if bonus:
                    line = Text(f"{self.team_label(team)}: ")
                    line.append_text(self.cards_text(meld.cards(), meld.slots()))
                    line.append(f"  {meld_state(meld, rules)} +{bonus}")
                    self.console.print(line)

    def cut_text(self, view: PlayerView) -> str:
        """The dealer's cut, when the rules pay for it (options cut_bonus, bottom_wilds; rules D22)."""
        if view.cut is None:
            return ""
        dealer = "You" if view.dealer == HUMAN else self.seat_name(view.dealer)
        miss = abs(view.cut)
        text = " The cut was exact" if not miss else f" The cut was {miss} card{'s' if miss > 1 else ''} off"
        bonus = view.rules.cut_bonus
        if miss < len(bonus) and bonus[miss]:
            text += f" (+{bonus[miss]})"
        if view.cut_wilds:
            text += f"; {dealer} found {' '.join(NAMES[c] for c in view.cut_wilds)} past the cut"
        return text + "."

    def deal_winner_text(self, result: DealResult) -> str:
        """Who won the deal (the highest deal score, seed 004), or who tied."""
        winners = result.winners
        ours = self.match.rules.team_of[HUMAN]
        if len(winners) > 1:
            return f"The deal is tied between {' and '.join(self.team_label(t) for t in winners)}."
        if winners[0] == ours:
            return "You win the deal." if len(self.match.rules.teams[ours]) == 1 else "Your team wins the deal."
        verb = "win" if len(self.match.rules.teams[winners[0]]) > 1 else "wins"
        return f"{self.team_label(winners[0])} {verb} the deal."

    def show_match_end(self) -> None:
        ours = self.match.rules.team_of[HUMAN]
        winners = self.match.winners or ()
        if ours in winners:
            verdict = "You win the match!" if len(winners) == 1 else "You share the win!"
        else:
            verdict = f"{' and '.join(self.team_label(t) for t in winners)} win the match."
        totals = ", ".join(f"{self.team_label(t)} {self.match.totals[t]}" for t in self.team_order())
        self.console.print(Panel(Text(f"{verdict}  Final totals: {totals}", style="bold")))
        self.console.print(
            f"Match seed {self.match.seed}: 'biriba play --seed {self.match.seed}' deals the same cards."
        )


def describe_meld(meld: Meld, rules: Rules) -> str:
    """``run of 5`` or ``clean biriba (set of 7)``, as players say it."""
    kind = meld.kind
    state = meld_state(meld, rules)
    if state in ("run", "set"):
        return f"{kind} of {meld.size}"
    return f"{state} ({kind} of {meld.size})"


def run_game(
    rules: Rules,
    bot_kinds: Sequence[str],
    seed: str | None = None,
    name: str = "You",
    save: Path | None = None,
    resume: Path | None = None,
    delay: float = 0.4,
    plain: bool = False,
    console: Console | None = None,
) -> int:
    """Start (or resume) a match in the terminal; returns the exit status."""
    console = console or (
        Console(color_system=None, emoji=False, highlight=False) if plain else Console(emoji=False, highlight=False)
    )
    if resume is not None:
        match = load_match(load_json(resume))
        if match.is_over:
            console.print("That match is over already.")
            return 0
        console.print(f"Resumed the match from {resume}: {len(match.deals)} deal(s) so far.")
    else:
        names = [name, *SEAT_NAMES[rules.seats][1:]]
        match = Match(rules, names, seed=seed if seed is not None else random.randrange(2**63))
    bots: list[Bot | None] = [None]
    for seat in range(1, rules.seats):
        bots.append(make_bot(bot_kinds[(seat - 1) % len(bot_kinds)], f"{match.seed}/bot/{seat}"))
    # the seed fixes every deck, so it is shown only once the match is over
    partner = [SEAT_NAMES[rules.seats][s] for s in rules.teams[rules.team_of[HUMAN]] if s != HUMAN]
    table = f"with your partner {partner[0]}" if partner else "playing for yourself"
    console.print(f"Biriba ({rules.name}): you sit South, {table}; play goes to your right. Type 'help' for help.")
    game = Game(match, bots, console, save=save, delay=delay, plain=plain)
    return game.run()
