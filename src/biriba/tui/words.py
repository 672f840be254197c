"""How the terminal game says things: seat names, cards, melds, and what happened.

Shared by the full-screen table (:mod:`.app`) and the line mode
(:mod:`.plain`), so both tell the same story in the same words.  Everything
here is built from a seat's view and the events that seat may see.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from rich.markup import escape
from rich.text import Text

from ..bots import BOT_HELP, plugin_kinds
from ..cards import JOKER, NAMES, SUIT_SYMBOLS, SUITS, rank_of, suit_of
from ..melds import Meld, RunMeld, meld_state
from ..rules import PRESETS, Rules, TargetRule
from ..scoring import DealResult, team_tables
from ..terms import Ending, Outcome, Pickup
from ..views import PlayerView

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
    "reserve": "reserve (-100: never taken, or not yet played)",
    "cut": "dealer's cut",
    "total": "deal total",
}
#: How a deal ended, in words (the deal's ``ended_by``).
ENDED_WORDS = {
    Ending.CLOSURE: "someone went out",
    Ending.PASSES: "four passes",
    Ending.STOCK: "the stock ran out",
    Ending.IDLE: "idle rounds on an empty stock, no meld or add (D36)",
    Ending.CAPPED: "the turn cap",
}
#: A card in the notation inside the engine's words (a refusal, a hint): rank and suit letter.
CARD_IN_TEXT = re.compile(r"\b([A2-9TJQK])([SHDC])\b")
#: The words of each part of a turn, for prompts that list only what is legal now.
KIND_WORDS = {"draw": "draw", "take": "take", "pass": "pass", "meld": "meld", "add": "add", "discard": "discard"}


#: The help's width: it fits the full screen's dialog at 80 columns without the terminal wrapping a line.
HELP_WIDTH = 62


def bot_lines(width: int = HELP_WIDTH) -> str:
    """The bot kinds, a paragraph each (the help, and ``biriba play --bots help``), then the plugins' by name."""
    lines = [
        textwrap.fill(words, width, initial_indent=f"  {name:8} ", subsequent_indent=" " * 11)
        for name, words in BOT_HELP.items()
    ]
    for name, point in sorted(plugin_kinds().items()):
        lines.append(
            textwrap.fill(
                f"from an installed package ({point.value})",
                width,
                initial_indent=f"  {name} ",
                subsequent_indent=" " * 11,
            )
        )
    return "\n".join(lines)


def help_text(keys: bool) -> str:
    """The help (rich markup): the full-screen keys when ``keys``, else the line mode's commands."""
    bots = escape(bot_lines())  # a plugin's entry point reads "module:factory [rl]": words, not a style
    if keys:
        how = """
[b]Keys[/b]
  left/right  move in your hand   space  pick a card
  esc         clear the picks     d t p  draw, take, pass
  m           meld the picked     a 1-9  add them to meld N
  x           discard the picked  h      hint
  l           the deal so far     s      the score sheet
  r           the rules (a refusal's rule first)
  ?           this help           q      quit
  : or tab    type an action (enter plays it, esc goes back)"""
    else:
        how = """
[b]Commands[/b] (h, l, s, ? and q work too)
  table   the whole table        pile   the whole discard pile
  legal   every legal action     hint   the hard bot's move
  log     the whole deal so far  score  the score sheet
  rules   this table's rules     rule R13  one rule in full
  help    this text              quit   stop; it is saved"""
    return f"""\
[b]Actions[/b] (any case; 10 for T; suit symbols, commas work)
  draw (d)            take the top card of the stock
  take (t)            take the whole discard pile
  pass (p)            only when the stock is empty
  meld 3H 4H 5H (m)   lay a new meld; a run's wild may name
                      its slot: meld 5H 6H JK=4H
  add 2 7S 8S (a)     add cards to your team's meld 2
  add 1 6H wild=low   ... the wild 6H replaces goes low
  discard 9C (x 9C)   end your turn{how}
[b]Bots[/b] (biriba play --bots KIND,KIND,...)
{bots}
[b]In brief[/b]: draw or take, meld, discard; keep 2 cards
after melding.  A meld of 7+ cards is a biriba.  With one,
your team may empty a hand to take its reserve packet; with
the reserve taken, discarding your last card goes out and
ends the deal.  'biriba play --resume' goes on after a quit.
A rule in full: 'rule R13' here, 'biriba rules R13' from the
shell (refusals name their rule)."""


class Words:
    """The table as seat ``you`` hears it told."""

    def __init__(self, rules: Rules, plain: bool = False, you: int = 0) -> None:
        self.rules = rules
        self.plain = plain
        self.you = you

    # --------------------------------------------------------- people
    def seat_name(self, seat: int) -> str:
        if seat == self.you:
            return "You"
        rules = self.rules
        partner = " (partner)" if rules.team_of[seat] == rules.team_of[self.you] else ""
        return f"{SEAT_NAMES[rules.seats][seat]}{partner}"

    def short_name(self, seat: int) -> str:
        return "You" if seat == self.you else SEAT_NAMES[self.rules.seats][seat]

    def initials(self, seat: int) -> str:
        """``SE`` for South-east, ``You`` for you: a seat's name where six must share a line."""
        if seat == self.you:
            return "You"
        return "".join(word[0].upper() for word in SEAT_NAMES[self.rules.seats][seat].split("-"))

    def team_label(self, team: int, short: bool = False) -> str:
        """``Us`` for your side (``You`` alone), else its players' names (``short``: their initials)."""
        rules = self.rules
        if team == rules.team_of[self.you]:
            return "Us" if len(rules.teams[team]) > 1 else "You"
        name = self.initials if short else self.short_name
        return ("&" if short else " & ").join(name(s) for s in rules.teams[team])

    def team_order(self) -> list[int]:
        """Your team first, then the others in seat order."""
        ours = self.rules.team_of[self.you]
        return [ours] + [t for t in range(len(self.rules.teams)) if t != ours]

    # ---------------------------------------------------------- cards
    def card(self, code: int, slot: int = -1, fresh: bool = False) -> Text:
        """A card; ``fresh`` marks one just drawn or taken (reverse video, or ``*`` in plain text)."""
        name = NAMES[code]
        if not self.plain and code != JOKER:
            name = name[0] + SUIT_SYMBOLS[suit_of(code)]
        style = self.card_style(code)
        if fresh:
            style = (style + " reverse").strip() if not self.plain else ""
            name = name if not self.plain else "*" + name
        text = Text(name, style=style)
        if slot >= 0:
            text.append(
                "=" + (NAMES[slot] if self.plain else NAMES[slot][0] + SUIT_SYMBOLS[suit_of(slot)]), style="dim"
            )
        return text

    def card_style(self, code: int) -> str:
        if self.plain:
            return ""
        if code in self.rules.wild_kinds:
            return "bold magenta"
        return "bold red" if suit_of(code) in (1, 2) else "bold"

    def cards(self, codes: Sequence[int], slots: Sequence[int] = ()) -> Text:
        out = Text()
        for i, code in enumerate(codes):
            if i:
                out.append(" ")
            out.append_text(self.card(code, slots[i] if i < len(slots) else -1))
        return out

    def told(self, text: str) -> str:
        """The engine's words (a refusal, a hint, its reason) with the cards as the table shows them: K♥ for KH."""
        if self.plain:
            return text
        return CARD_IN_TEXT.sub(lambda m: m[1] + SUIT_SYMBOLS[SUITS.index(m[2])], text)

    def suit(self, suit: int) -> str:
        return SUITS[suit] if self.plain else SUIT_SYMBOLS[suit]

    def rules_name(self) -> str:
        """The preset's name, "(changed)" after it where options differ (the engine marks that with a *);
        not for the idle-round guard every table with people plays under (D36), which nobody chose."""
        name = self.rules.name
        base = PRESETS.get(name.removesuffix("*"))
        unnamed = self.rules.replace(name="")
        if base is not None and unnamed in (base.replace(name=""), base.at_table().replace(name="")):
            return base.name
        return f"{name.removesuffix('*')} (changed)" if name.endswith("*") else name

    # ---------------------------------------------------------- melds
    def meld(self, meld: Meld, compact: bool = False) -> Text:
        """A meld's cards; ``compact`` writes a long run as its ends and the wilds within (``3♥..9♥ with JK=6♥``)."""
        if not compact or not isinstance(meld, RunMeld) or meld.size <= 4:
            return self.cards(meld.cards(), meld.slots())
        cards, slots = meld.cards(), meld.slots()
        out = self.card(cards[0], slots[0])
        out.append("..")
        out.append_text(self.card(cards[-1], slots[-1]))
        inside = [(code, slot) for code, slot in zip(cards[1:-1], slots[1:-1]) if slot >= 0]
        for i, (code, slot) in enumerate(inside):  # the wilds between the ends: said to be within the run
            out.append(" with " if i == 0 else ", ")
            out.append_text(self.card(code, slot))
        return out

    def meld_state(self, meld: Meld) -> str:
        """``run of 5`` or ``clean biriba (set of 7)``, as players say it."""
        state = meld_state(meld, self.rules)
        if state in ("run", "set"):
            return f"{meld.kind} of {meld.size}"
        return f"{state} ({meld.kind} of {meld.size})"

    def short_state(self, meld: Meld) -> str:
        """``run 5``, ``biriba 7``, ``dirty 13``: the state in a few letters."""
        state = meld_state(meld, self.rules)
        if state in ("run", "set"):
            return f"{state} {meld.size}"
        if meld.kind == "wild":
            return f"wild biriba {meld.size}"
        return f"{'clean' if meld.clean else 'dirty'} {meld.size}"

    def table_points(self, view: PlayerView, team: int) -> int:
        """The deal's points on a team's table so far: melded cards and meld bonuses."""
        return team_tables(view)[team].points

    # -------------------------------------------------------- the table
    def reserve(self, view: PlayerView, team: int) -> str:
        reserve = view.reserves[team]
        if reserve is None:
            return "reserve not taken"
        state = "" if reserve.active else ", to play next turn"
        return f"reserve taken by {self.short_name(reserve.seat)}{state}"

    def pile(self, pile: Sequence[int], full: bool = False) -> Text:
        if not pile:
            return Text("Pile: empty")
        text = Text(f"Pile {len(pile)}: ")
        if full:
            text.append("bottom ")
            text.append_text(self.cards(pile))
            text.append(" top")
        else:
            text.append("top ")
            text.append_text(self.card(pile[-1]))
        return text

    def match_line(self, totals: Sequence[int], compact: bool = False, short: bool = False) -> str:
        rules = self.rules
        parts = [f"{self.team_label(t, short)} {totals[t]}" for t in self.team_order()]
        if compact:
            goal = f"above {rules.target}" if rules.target_rule == TargetRule.EXCEED else f"to {rules.target}"
            return f"{'  '.join(parts)} (first {goal})"
        rule = "above" if rules.target_rule == TargetRule.EXCEED else "at least"
        return f"Match: {'  '.join(parts)}   (first {rule} {rules.target} wins)"

    def deal_points_line(self, view: PlayerView) -> str:
        parts = [f"{self.team_label(t)} {self.table_points(view, t)}" for t in self.team_order()]
        return f"On the table: {'  '.join(parts)}"

    def opening_minimum(self, view: PlayerView) -> str:
        """The vulnerability reminder, while your team has yet to open (option opening_minimums)."""
        ours = view.rules.team_of[self.you]
        minimum = view.rules.opening_minimum(view.match_scores[ours])
        mine = view.melds[ours]
        if not minimum or not (not mine or (view.my_turn and len(mine) == view.turn_melds)):
            return ""
        so_far = f" (so far {view.opening_value})" if view.my_turn and view.opening_value else ""
        return f"Your team's first melding must be worth {minimum} points{so_far}."

    def idle_warning(self, view: PlayerView) -> str:
        """The last idle round's warning (house rule D36): how many more turns with no meld or add end the deal."""
        left = view.idle_turns_left()
        if left is None or left > view.rules.seats:
            return ""
        more = "1 more such turn ends" if left == 1 else f"{left} more such turns end"
        return f"Stock empty, no meld or add for {view.idle_turns} turns: {more} the deal (D36)."

    def kept_single(self, view: PlayerView) -> Text:
        """R16's reminder while the single card you took from the pile is in your hand (empty once it is not)."""
        if view.took_single < 0 or not view.my_turn or view.took_single not in view.hand:
            return Text("")
        text = Text("  you may not discard ", style="yellow")
        text.append_text(self.card(view.took_single))
        text.append(" this turn (R16)", style="yellow")
        return text

    # --------------------------------------------------------- events
    def describe(self, view: PlayerView, outcome: Outcome) -> Text:
        """One line for what happened, from your view and the outcome as you may see it."""
        you = outcome.seat == self.you

        def verb(word: str) -> str:  # "You: take", "East: takes"
            return word if you else {"pass": "passes"}.get(word, word + "s")

        action = outcome.action
        line = Text(f"{self.seat_name(outcome.seat)}: ")
        if action.kind == "draw":
            if outcome.drawn >= 0:
                line.append("draw ")
                line.append_text(self.card(outcome.drawn))
            else:
                line.append("draws")
        elif action.kind == "take":
            count = len(outcome.taken)
            line.append(f"{verb('take')} the discard pile ({count} card{'s' if count != 1 else ''}): ")
            line.append_text(self.cards(outcome.taken))
        elif action.kind == "pass":
            line.append(verb("pass"))
        elif action.kind == "discard":
            line.append(f"{verb('discard')} ")
            line.append_text(self.card(action.cards[0]))
        else:
            melds = view.melds[view.rules.team_of[outcome.seat]]
            index = len(melds) if action.kind == "meld" else action.meld + 1
            line.append(f"{verb('meld')} " if action.kind == "meld" else f"{verb('add')} to meld {index}: ")
            line.append_text(self.cards(action.cards, action.slots))
            if 0 < index <= len(melds):
                line.append(f"  ({self.meld_state(melds[index - 1])})", style="dim")
        if outcome.reserve is not None:
            line.append_text(self.pickup(outcome, you))
        if outcome.ended == Ending.CLOSURE:
            line.append(f"; {'go' if you else 'goes'} out!", style="bold green")
        elif outcome.ended is not None:
            line.append(f"; the deal ends ({outcome.ended})", style="bold")
        return line

    def pickup(self, outcome: Outcome, you: bool) -> Text:
        """What a reserve pickup means for the hand the screen now shows (rules R18, R19)."""
        size = len(outcome.packet) if outcome.packet else self.rules.packet_size
        if outcome.reserve == Pickup.MELD:
            words = f"; {'empty your hand and pick' if you else 'empties the hand and picks'} up the reserve"
            return Text(words + f" ({size} cards) and {'play' if you else 'plays'} on", style="bold")
        if outcome.reserve == Pickup.DISCARD:
            words = "; that was the last card: " + ("you pick" if you else "picks")
            return Text(words + f" up the reserve ({size} cards) to play next turn", style="bold")
        return Text(
            f"; {'take' if you else 'takes'} the reserve ({size} cards) for the first biriba, to play next turn",
            style="bold",
        )

    def deal_start(self, view: PlayerView, number: int) -> str:
        first = "you play" if view.to_move == self.you else f"{self.seat_name(view.to_move)} plays"
        deals = "you deal" if view.dealer == self.you else f"{self.seat_name(view.dealer)} deals"
        seat = SEAT_NAMES[self.rules.seats][self.you]
        return f"Deal {number}: you sit {seat}; {deals}; {first} first.{self.cut(view)}"

    def cut(self, view: PlayerView) -> str:
        """The dealer's cut, when the rules pay for it (options cut_bonus, bottom_wilds; rules D22)."""
        if view.cut is None:
            return ""
        dealer = "You" if view.dealer == self.you else self.seat_name(view.dealer)
        miss = abs(view.cut)
        text = " The cut was exact" if not miss else f" The cut was {miss} card{'s' if miss > 1 else ''} off"
        bonus = view.rules.cut_bonus
        if miss < len(bonus) and bonus[miss]:
            text += f" (+{bonus[miss]})"
        if view.cut_wilds:
            text += f"; {dealer} found {self.cards(view.cut_wilds).plain} past the cut"  # as every card is written
        return text + "."

    def deal_winner(self, result: DealResult) -> str:
        """Who won the deal (the highest deal score, rules D31), or who tied."""
        winners = result.winners
        ours = self.rules.team_of[self.you]
        if len(winners) > 1:
            return f"The deal is tied between {' and '.join(self.team_label(t) for t in winners)}."
        if winners[0] == ours:
            return "You win the deal." if len(self.rules.teams[ours]) == 1 else "Your team wins the deal."
        verb = "win" if len(self.rules.teams[winners[0]]) > 1 else "wins"
        return f"{self.team_label(winners[0])} {verb} the deal."

    def hand_groups(self, hand: Sequence[int]) -> list[tuple[str, list[int]]]:
        """Your hand by suit (spades, hearts, diamonds, clubs), the wilds last, each in rank order."""
        groups: dict[str, list[int]] = {}
        for code in hand:
            key = "wild" if code in self.rules.wild_kinds else SUITS[suit_of(code)]
            groups.setdefault(key, []).append(code)
        order = [*SUITS, "wild"]
        return [(key, sorted(groups[key], key=lambda c: (rank_of(c), c))) for key in order if key in groups]
