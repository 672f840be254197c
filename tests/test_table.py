"""The table loop: bots answer at once, people from outside, events as each seat may see them."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from biriba.actions import Action
from biriba.bots import make_bot
from biriba.errors import IllegalActionError
from biriba.match import Match
from biriba.records import position_to_json
from biriba.rules import PRESETS
from biriba.table import EventKind, Table, play_deal
from biriba.views import PlayerView


def bots(n: int, first: int = 0) -> list:  # type: ignore[type-arg]
    return [make_bot("greedy", f"table/{s}") for s in range(first, n)]


def test_a_person_is_waited_for_and_the_bots_play_around_them() -> None:
    table = Table(Match(seed=7), [None, *bots(4, 1)])
    assert table.needs_deal and table.deal is None
    start = table.start_deal()
    assert start.kind == EventKind.DEAL and start.deal == 1
    table.run()
    assert table.waiting_for == 0 and table.to_move == 0
    assert table.step() is None  # seat 0 has no agent: nothing happens
    event = table.play(0, "draw")
    assert event.kind == EventKind.ACTION and event.outcome is not None and event.outcome.seat == 0


def test_a_wrong_seat_or_an_illegal_action_changes_nothing() -> None:
    table = Table(Match(seed=8), [None, None, None, None])
    table.start_deal()
    deal = table.deal
    assert deal is not None
    before = (position_to_json(deal), len(table.events))
    wrong = (deal.to_move + 1) % 4
    with pytest.raises(IllegalActionError, match="R15: it is seat"):
        table.play(wrong, "draw")
    with pytest.raises(IllegalActionError, match="R15"):
        table.play(deal.to_move, "discard 9C")
    assert (position_to_json(deal), len(table.events)) == before


def test_events_hide_another_seats_drawn_card() -> None:
    table = Table(Match(seed=9), [None, None, None, None])
    table.start_deal()
    mover = table.to_move
    assert mover is not None
    table.play(mover, "draw")
    mine = table.events_for(mover)[-1].outcome
    theirs = table.events_for((mover + 1) % 4)[-1].outcome
    assert mine is not None and theirs is not None
    assert mine.drawn >= 0 and theirs.drawn == -1 and theirs.action == mine.action


def test_a_whole_match_of_bots_logs_every_deal_and_result() -> None:
    rules = PRESETS["classic"].replace(target=600)
    table = Table(Match(rules, seed=3, max_turns=400), bots(4))
    table.play_match()
    assert table.is_over and table.match.winners is not None
    kinds = [e.kind for e in table.events]
    assert kinds.count(EventKind.DEAL) == kinds.count(EventKind.RESULT) == len(table.match.deals)
    actions = sum(len(d.history) for d in table.match.deals)
    assert kinds.count(EventKind.ACTION) == actions
    assert [e.number for e in table.events] == list(range(len(table.events)))


def test_a_stand_in_agent_plays_for_an_absent_person() -> None:
    table = Table(Match(seed=11), [None, *bots(4, 1)])
    table.start_deal()
    table.run()
    event = table.step(agent=make_bot("random", 0))  # the person is away: a bot plays their turn
    assert event is not None and event.outcome is not None and event.outcome.seat == 0


class Cheat:
    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        return Action("pass")  # never legal while the stock holds cards


def test_an_agent_answering_an_illegal_action_is_refused() -> None:
    table = Table(Match(seed=12), [Cheat()] * 4)
    table.start_deal()
    with pytest.raises(IllegalActionError, match="not a legal action"):
        table.step()


def test_play_deal_is_the_fast_path_for_a_lone_deal() -> None:
    match = Match(seed=13, max_turns=400)
    deal = match.new_deal()
    decisions = play_deal(deal, bots(4))
    assert deal.is_over and decisions == len(deal.history) > 0
