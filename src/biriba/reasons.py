"""The engine's refusals in words: one English template per reason, by key.

A refusal carries its reason as data, a key of :data:`REASONS` and its
parameters (:class:`~biriba.errors.IllegalActionError`), so that a front end
can say it in the player's own language: the web page's catalogs hold these
templates under ``reason.<key>``, English word for word, Greek and Italian
translated, with the same parameters.

Templates use ``{name}`` for a parameter and ``{name|one|other}`` for a
count's noun (``#`` stands for the number): ``{count|a biriba|# biribas}``.
A parameter's name says what it holds, so that a front end can put it in
its own words: ``card``, ``slot`` and ``two`` a card's code (``7H``),
``cards`` and ``meld`` cards in notation (``7H 8H JK=9H``), ``rank`` a rank
letter (``T``, said in the plural: "Ts", "tens"), ``suit`` a suit letter (``S``), ``kind`` ``set`` or ``run``,
``end`` ``low`` or ``high``, ``why`` another reason (``{"key", "params"}``);
anything else is a number or text shown as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

REASONS: dict[str, str] = {
    # the turn (R15, R23, R30 and the options of drawing)
    "deal_over": "the deal is over",
    "no_deal": "no deal is in progress",
    "not_your_turn": "it is seat {seat}'s turn, not seat {asked}'s",
    "agent_illegal": "the agent of seat {seat} chose {action}, which is not a legal action",
    "unknown_action": "unknown action kind {action}",
    "malformed": "a {action} with {count} cards and {slots} slots is malformed",
    "bad_end": "a wild's end is 'low' or 'high', on an add only, not {end}",
    "draw_first": "first draw from the stock or take the discard pile",
    "not_held": "you do not hold {card}",
    "not_enough_held": "you do not hold enough {card}",
    "drawn_already": "this turn has had its draw; meld, add or discard",
    "stock_empty": "the stock is empty: take the discard pile or pass",
    "pass_with_stock": "pass only when the stock is empty; draw or take",
    "take_while_you_can": "with the stock empty, take the discard pile while you can",
    "pile_empty": "the discard pile is empty",
    "top_card_does_not_fit": "take the pile only if its top card extends your team's meld or melds with two naturals",
    "single_take_stuck": "after taking the single {card} you could not finish the turn (R16 bars discarding it)",
    # what a meld, add or discard leaves (R12, R16..R22 and their options)
    "single_taken_stays": "you took the single card {card} from the pile: it and its copy stay in hand this turn",
    "add_no_melds": "add {number}: your team has no melds yet; cards go only onto your team's melds",
    "add_no_such_meld": "add {number}: your team has melds 1..{count}; cards go only onto your team's melds",
    "wild_meld_first": "finish your wild-card meld before using wilds elsewhere",
    "opening_unreachable": (
        "your team's first melding must be worth {minimum} points, and these cards cannot reach it this turn"
    ),
    "opening_unreachable_placed": (
        "your team's first melding must be worth {minimum} points: placed so, these cards cannot reach it this turn;"
        " as {action} they can"
    ),
    "opening_short": "your team's first melding is worth {value}; it needs {minimum}",
    "partner_goes_out": "only your partner, who took your team's reserve, may go out; keep a card",
    "out_by_discard": "with your team's reserve taken, go out by discarding, never by melding",
    "out_needs_biribas": "going out needs {count|a biriba|# biribas} on your team's table",
    "empty_needs_biribas": (
        "your hand may empty only when your team has {count|a biriba|# biribas} on your team's table"
    ),
    "only_runs_are_biribas": "{why}, and under these rules only runs are biribas",
    "only_runs_and_aces_are_biribas": "{why}, and under these rules only runs and sets of aces are biribas",
    "biriba_is_longer": "{why}, and under these rules a biriba has at least {count} cards",
    "single_take_no_out": "you held one card and took the pile's single card: you may not go out this turn",
    "out_needs_run_and_set": "going out also needs a run and a set on your team's table",
    "reserve_with_first_biriba": "your reserve comes with your team's first biriba; until you have it, keep a card",
    "no_reserve_left": "no reserve packet is left for your team",
    "last_card_single": "your last card would be the single {card} you took (R16)",
    "keep_two_to_go_out": "keep at least 2 cards, as your last one could not go out: {why}",
    "keep_two_for_reserve": "keep at least 2 cards, as your last one could not take your reserve: {why}",
    "keep_two": "keep at least 2 cards: one to discard, one to keep",
    "all_barred": "afterwards every card in your hand would be barred from the discard (R16)",
    # melds (R7..R10 and their options)
    "meld_too_small": "a meld needs at least {minimum} cards, not {count} ({cards})",
    "set_wild_no_slot": "a wild in a set takes no slot ({cards})",
    "runs_only": "these rules meld runs only, no sets ({cards})",
    "set_short": "not enough {rank} for a set ({cards})",
    "no_joker_set": "a meld needs natural cards; no set of jokers ({cards})",
    "no_set_of_twos": "there is no set of twos ({cards})",
    "set_one_wild": "a set holds at most one wild; this one would hold {wilds} ({cards})",
    "run_one_wild": "a run holds at most one wild besides a natural two; this one would hold {wilds} ({cards})",
    "wild_per_two_naturals": (
        "a meld holds at most one wild per two naturals: {naturals|# natural allows|# naturals allow}"
        " {limit|# wild|# wilds}, and this {kind} would hold {wilds} ({cards})"
    ),
    "only_jokers_stand_in": "only jokers are wild under these rules: {card} cannot stand for {slot} ({cards})",
    "only_jokers_wild": "only jokers are wild under these rules: {card} is no wild ({cards})",
    "no_rank_no_suit": "these cards are neither one rank (a set, R7) nor one suit (a run) ({cards})",
    "wrong_suit": "{card} is not of the run's suit {suit} ({cards})",
    "rank_twice": "a run holds each rank once ({cards})",
    "run_too_long": "a run has at most 13 cards ({cards})",
    "run_wraps": "a run never wraps from K through A to 2 ({cards})",
    "two_natural_here": "{two} can be natural at rank 2 here, so it cannot stand for {slot} ({cards})",
    "not_a_free_rank": "{card} cannot stand for {slot}: not a free rank of this run ({cards})",
    "slot_not_gap_or_end": "the named slot is neither a gap nor an end of the run ({cards})",
    "not_consecutive": "the ranks are not consecutive, even with the wild allowed ({cards})",
    # adds (R8..R14 and their options)
    "wild_meld_takes_wilds": "only wilds go onto the wild-card meld {meld}",
    "not_of_the_set": "{card} does not fit the set of {rank} ({meld})",
    "set_holds_a_wild": "the set {meld} already holds a wild",
    "never_two_wilds": "never two wilds in a meld, not even for a moment",
    "run_holds_a_wild": "a wild may not be added to {meld}, which already holds one",
    "one_wild_onto_a_run": "only 1 wild may go onto a run",
    "two_not_natural_here": "{two} cannot be natural here, and {meld} already holds a wild",
    "not_of_the_run": "{card} is not of the run's suit {suit} ({meld})",
    "already_in_the_run": "{card} is already in the run {meld}",
    "no_end_for_the_wild": "no end of {meld} can take the displaced wild",
    "end_cannot_take_the_wild": "the displaced wild cannot go to the {end} end of {meld}",
    "run_would_pass_13": "the run {meld} would pass 13 cards",
    "two_natural_no_slot": "{two} can be natural at rank 2 here, so it takes no other slot",
    "cannot_stand_on": "{card} cannot stand for {slot} on {meld}",
    "end_without_displacement": "wild={end} names an end, but this add displaces no wild",
    "does_not_extend": "{cards} does not extend {meld} into one run of consecutive ranks",
}

_PLACEHOLDER = re.compile(r"\{(\w+)(?:\|([^|}]*)\|([^|}]*))?\}")


def say(key: str, params: Mapping[str, object]) -> str:
    """A reason in English words, a nested ``why`` said too."""

    def fill(match: re.Match[str]) -> str:
        name, one, other = match.groups()
        value = params[name]
        if isinstance(value, Mapping):
            return say(str(value["key"]), value["params"])
        if one is None:
            return f"{value}s" if name == "rank" else str(value)
        return (one if value == 1 else other).replace("#", str(value))

    return _PLACEHOLDER.sub(fill, REASONS[key])


def placeholders(template: str) -> set[str]:
    """The parameters a template uses (the catalogs' translations must use the same)."""
    return {match.group(1) for match in _PLACEHOLDER.finditer(template)}
