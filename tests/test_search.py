"""The bots of levels easy and hard, and the perfect-information bot used to measure them."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import cast

import pytest

from biriba.bots import BOT_HELP, BOT_KINDS, EasyBot, GreedyBot, RandomBot, make_bot
from biriba.bots.base import Bot, DrawMemory
from biriba.bots.search import PerfectBot, SearchBot
from biriba.cards import parse_card
from biriba.deal import Deal
from biriba.knowledge import determinize
from biriba.records import position_from_json, position_to_json
from biriba.rules import PRESETS
from biriba.table import agent_turn
from helpers import position
from test_knowledge import midgame


def test_the_hard_bot_decides_the_same_whatever_the_hidden_cards() -> None:
    for seed in range(6):
        deal = midgame(seed, steps=30 + seed)
        if deal.is_over:
            continue
        view = deal.view_for(deal.to_move)
        other = determinize(view, random.Random(seed + 100))  # the same view, other hidden cards
        assert other.view_for(deal.to_move) == view
        legal = list(deal.legal_actions())
        first = SearchBot(seed, samples=3).choose(view, legal)
        second = SearchBot(seed, samples=3).choose(other.view_for(deal.to_move), list(other.legal_actions()))
        assert first == second


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_hard_bot_plays_legal_actions_under_every_preset(name: str) -> None:
    rules = PRESETS[name]
    for seats in range(2, 7):  # every table size the preset allows (partnerships need 4 or 6)
        if rules.partnerships and seats not in (4, 6):
            continue
        table_rules = rules if seats == rules.seats else rules.with_options([f"seats={seats}"])
        deal = Deal.shuffled(f"hard/{name}/{seats}", rules=table_rules, max_turns=300)
        bot = SearchBot(1, samples=2, width=3, rollout_decisions=6)
        for _ in range(25):
            if deal.is_over:
                break
            legal = list(deal.legal_actions())
            action = bot.choose(deal.view_for(deal.to_move), legal)
            assert action in legal
            deal.apply(action)


def test_a_search_explains_its_choice() -> None:
    deal = midgame(3, steps=41)
    view = deal.view_for(deal.to_move)
    bot = SearchBot(0, samples=4)
    action = bot.choose(view, list(deal.legal_actions()))
    assert bot.last is not None  # this position has a choice
    reason = bot.last.reason()
    standing = r"(about \d+ points (ahead|behind)|level)"
    assert re.fullmatch(
        rf"{standing} a few turns on, over 4 guesses of the hidden cards; next best .+: {standing}", reason
    )
    assert "margin" not in reason and "sampled" not in reason  # a card player's words, not a searcher's
    assert action in bot.last.actions


def test_the_perfect_bot_searches_the_true_deal() -> None:
    deal = midgame(5, steps=20)
    bot = PerfectBot(lambda: deal, 0)
    assert bot.samples == 2  # the documented perfect bot: more samples of the one true deal add nothing
    assert PerfectBot(lambda: deal, 0, samples=4).samples == 4
    legal = list(deal.legal_actions())
    assert bot.choose(deal.view_for(deal.to_move), legal) in legal
    assert "perfect" not in BOT_KINDS and "perfect" not in BOT_HELP  # never offered to players


def test_the_levels_are_offered_with_a_line_each() -> None:
    assert {"easy", "medium", "hard"} <= set(BOT_KINDS) and set(BOT_KINDS) == set(BOT_HELP)
    deal = Deal.shuffled(9, max_turns=200)
    bots = [EasyBot(s) for s in range(4)]
    while not deal.is_over:
        agent_turn(deal, bots[deal.to_move])  # refuses anything not in the legal list
    again = Deal.shuffled(9, max_turns=200)
    bots = [make_bot("easy", s) for s in range(4)]
    while not again.is_over:
        agent_turn(again, bots[again.to_move])
    assert again.history == deal.history  # reproducible under a seed


def test_a_rollout_counts_cards_in_hand_only_once_the_deal_is_over() -> None:
    deal = midgame(3, steps=41)
    seat = deal.to_move
    result = deal.result()
    table = [total - part["hands"] for total, part in zip(result.team_scores, result.breakdown)]
    assert table != list(result.team_scores)  # there are cards in hand to leave aside
    team = deal.rules.team_of[seat]
    expected = table[team] - max(points for t, points in enumerate(table) if t != team)
    assert SearchBot(0, rollout_decisions=0).rollout(deal.clone(), seat) == expected
    while not deal.is_over:
        deal.apply(next(iter(deal.legal_actions())))
    final = deal.result().team_scores
    assert SearchBot(0).rollout(deal, seat) == final[team] - max(s for t, s in enumerate(final) if t != team)


# ----------------------------------------------------------- every deal ends
def stock_out_endgame(seed: str) -> Deal:
    """A deal played at random to its empty stock, at the start of a turn (benchmarks/stock_out_loops.py)."""
    deal = Deal.shuffled(seed, max_turns=400)
    warmup = RandomBot(f"{seed}/warmup")
    while (deal.stock_count or deal.phase != "draw") and not deal.is_over:
        agent_turn(deal, warmup)
    return deal


def stock_out(hand: str, pile: str) -> Deal:
    """Seat 0 to draw with ``hand``, the stock empty and ``pile`` the whole discard pile: the cards left
    over are dealt into the other hands (positions put them in the pile)."""
    data = position_to_json(position({0: hand}, phase="draw", discard=pile, stock=None))
    rest, data["stock"] = data["stock"], []
    data["discard"] = pile.split()
    for n, card in enumerate(rest):
        data["hands"][1 + n % 3].append(card)
    return position_from_json(data)


def test_with_the_stock_empty_hard_passes_a_pile_that_makes_no_meld() -> None:
    """The loop found in the endgame of seed loops/7: hard took a lone card it could not use and
    discarded its twin, over and over, while the others passed (docs/bots.md, "Every deal ends")."""
    deal = stock_out("8D QS 5C KH 9S", "JD")
    view = deal.view_for(0)
    assert sorted(a.kind for a in deal.legal_actions()) == ["pass", "take"]
    assert not GreedyBot(remember=False).pile_plays(view)
    assert SearchBot(1, samples=4).choose(view, list(deal.legal_actions())).kind == "pass"


def test_a_bot_never_takes_the_same_draw_twice_once_the_stock_is_out() -> None:
    deal = stock_out("8D 8S 5C KH 9S", "8H")
    view = deal.view_for(0)
    memory = DrawMemory()
    assert not memory.repeats(view) and memory.repeats(view)  # the second time round is a loop
    bot = GreedyBot(1)
    legal = list(deal.legal_actions())
    assert bot.pile_plays(view) and bot.choose(view, legal).kind == "take"
    assert bot.choose(view, legal).kind == "pass"
    fresh = Deal.shuffled(2)
    assert not memory.repeats(fresh.view_for(fresh.to_move)) and len(memory.seen) == 1  # a stock again: forgotten


def test_bots_that_pass_the_lone_discard_round_with_cards_in_the_stock_draw_the_second_time_round() -> None:
    """Tournament loops-25, pair 54, perfect against perfect: from this position (turn 154, eleven cards
    in the stock) each seat took the lone discard and threw another, and five rounds on the whole deal was
    as before; the turn cap ended it.  With the memory of the draws faced, a bot meeting its draw again
    draws from the stock (docs/bots.md, "Every deal ends")."""
    start = json.loads((Path(__file__).parent / "positions" / "tournament-loops-25-54-perfect-loop.json").read_text())
    deal = position_from_json(start)
    for _ in range(40):  # twenty turns, each a take and a discard, by a new bot at every decision: no memory
        agent_turn(deal, PerfectBot(lambda: deal, seed=deal.to_move))
    assert deal.stock_count == 11 and position_to_json(deal) | {"turn": start["turn"]} == start  # round again
    bots = [PerfectBot(lambda: deal, seed=seat) for seat in range(4)]
    for _ in range(48):
        agent_turn(deal, bots[deal.to_move])
    assert deal.stock_count < 11


FORCED_TAKE = Path(__file__).parent / "positions" / "tournament-loops-25-77-italian-forced-take.json"


def test_D13_a_forced_take_met_again_melds_or_adds_its_card_instead_of_going_round() -> None:
    """Tournament loops-25, pair 77, italian, perfect against random: the stock is out and seat 2 must take
    the lone discard (``stock_out=take-if-able``, D13), so the memory of the draws cannot refuse it; seat 2
    threw another card each time (5D, then 8D, then 5D back), the others could only pass, and the turn cap
    ended the deal.  A forced take met again owes a meld or an add of its card (docs/bots.md, "Every deal ends")."""
    start = json.loads(FORCED_TAKE.read_text())
    deal = position_from_json(start)
    assert deal.stock_count == 0 and [a.kind for a in deal.legal_actions()] == ["take"]
    counters = {"turn": 0, "idle_turns": 0}
    rounds = []
    for _ in range(3):  # a bot new at every decision has no memory: round after round, the deal is as it was
        for _ in range(10):
            agent_turn(deal, PerfectBot(lambda: deal, seed=deal.to_move))
        rounds.append(position_to_json(deal) | counters)
    assert rounds[1] == rounds[2] and deal.stock_count == 0
    for kind in ("perfect", "hard", "greedy", "easy"):
        deal = position_from_json(start)
        bots: list[Bot] = [RandomBot(seat) for seat in range(4)]
        bots[2] = PerfectBot(lambda deal=deal: deal, seed=2) if kind == "perfect" else make_bot(kind, 2)
        melds_before = sum(m.size for m in deal.melds[0])
        for _ in range(20):  # two rounds to meet the draw again, then the take it owes
            agent_turn(deal, bots[deal.to_move])
        assert sum(m.size for m in deal.melds[0]) > melds_before, kind  # the card taken, melded or added
        for _ in range(400):
            if deal.is_over:
                break
            agent_turn(deal, bots[deal.to_move])
        assert deal.is_over, kind


def test_a_forced_take_asked_about_twice_in_one_turn_is_noted_once() -> None:
    """A front end asks its bot twice about one decision (``settled``, then ``choose``): the second ask is
    not the draw met again."""
    deal = position_from_json(json.loads(FORCED_TAKE.read_text()))
    memory = DrawMemory()
    view = deal.view_for(2)
    memory.forced_take(view)
    memory.forced_take(view)
    assert memory.owed is None
    deal.apply(deal.parse_action("take"))
    assert memory.owed_plays(deal.view_for(2), list(deal.legal_actions())) == []


KEEPS_ITS_CARD = Path(__file__).parent / "positions" / "italian-forced-take-greedy-keeps-its-card.json"
KS = parse_card("KS")


def play_turn(deal: Deal, bot: Bot) -> None:
    """The mover's whole turn, by ``bot``."""
    seat = deal.to_move
    while deal.to_move == seat and not deal.is_over:
        agent_turn(deal, bot)


@pytest.mark.parametrize("kind", ["greedy", "easy"])
def test_D13_greedy_and_easy_meld_or_add_the_card_a_forced_take_met_again_owes(kind: str) -> None:
    """Italian, stock out: seat 2 must take (D13) and its own choice keeps the KS it took in hand; met
    again, the take owes a meld or an add of the KS, which greedy's and easy's turns then hold."""
    start = json.loads(KEEPS_ITS_CARD.read_text())
    kept = position_from_json(start)
    play_turn(kept, make_bot(kind, 2))  # the first time, no debt: the KS stays in hand
    assert kept.view_for(2).hand.count(KS) == 1 + start["hands"][2].count("KS")
    deal = position_from_json(start)
    bot = make_bot(kind, 2)
    memory = bot.draws if isinstance(bot, GreedyBot) else cast(EasyBot, bot).greedy.draws
    assert memory is not None
    memory.repeats(deal.view_for(2))  # the draw was faced before
    play_turn(deal, bot)
    assert KS in [card for meld in deal.melds[0] for card in meld.cards()]
    assert deal.view_for(2).hand.count(KS) == start["hands"][2].count("KS")


def test_a_draw_memory_forgets_a_debt_when_a_new_deal_begins() -> None:
    """A debt, or a draw faced, of one deal never carries into the next: not at its full stock, nor when
    its stock is out too by the time the bot is asked again (its turn numbers are lower)."""
    start = json.loads(FORCED_TAKE.read_text())
    deal = position_from_json(start)
    next_deals = [Deal.shuffled(1, rules=deal.rules), position_from_json(start | {"turn": 40})]
    for next_deal in next_deals:
        memory = DrawMemory()
        memory.repeats(deal.view_for(2))
        memory.forced_take(deal.view_for(2))
        assert memory.owed is not None
        memory.owed_plays(next_deal.view_for(2), list(next_deal.legal_actions()))
        assert memory.owed is None and not memory.repeats(deal.view_for(2))


def test_a_search_bot_settles_a_stock_out_draw_it_faced_before_without_searching() -> None:
    """What a front end whose searches run elsewhere asks first (the web server's worker pool)."""
    deal = stock_out("8D 8S 5C KH 9S", "8H")
    view, legal = deal.view_for(0), list(deal.legal_actions())
    bot = SearchBot(1, samples=4)
    assert bot.settled(view, legal) is None  # the pile's 8H makes a set: worth a search, the first time
    assert bot.settled(view, legal) == bot.choose(view, legal) == next(a for a in legal if a.kind == "pass")
    useless = stock_out("8D QS 5C KH 9S", "JD")
    settled = SearchBot(1).settled(useless.view_for(0), list(useless.legal_actions()))
    assert settled is not None and settled.kind == "pass"  # JD makes nothing
    fresh = Deal.shuffled(3)
    only = [fresh.parse_action("draw")]
    assert SearchBot(1).settled(fresh.view_for(fresh.to_move), only) == only[0]


@pytest.mark.parametrize("seed", ["loops/7", "loops/1"])
def test_hard_and_greedy_end_a_stock_out_endgame_without_the_cap(seed: str) -> None:
    deal = stock_out_endgame(seed)
    bots = [SearchBot(f"{seed}/{s}", samples=4) if s % 2 == 0 else GreedyBot(f"{seed}/{s}") for s in range(4)]
    while not deal.is_over:
        agent_turn(deal, bots[deal.to_move])
    assert deal.ended_by != "capped"
