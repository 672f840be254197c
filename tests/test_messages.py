"""What a table tells its clients (biriba.server.messages): each seat only what it may see, refusals with their rule."""

from __future__ import annotations

import pytest

from biriba.cards import NAMES
from biriba.errors import IllegalActionError
from biriba.match import Match
from biriba.server.messages import STATUS, TableError, deal_event_json, event_json
from biriba.table import Table


def a_stock_draw() -> tuple[Table, int]:
    table = Table(Match(seed=11), [None] * 4)
    table.start_deal()
    mover = table.to_move
    assert mover is not None
    table.play(mover, "draw")
    return table, mover


def test_a_drawn_card_reaches_the_drawer_only() -> None:
    table, mover = a_stock_draw()
    event = table.events[-1]
    hand = table.match.deals[-1].hands[mover]
    mine = event_json(event, mover)
    assert mine["action"] == "draw" and mine["seat"] == mover and hand[NAMES.index(mine["drawn"])] > 0
    for seat in [s for s in range(4) if s != mover] + [None]:  # the others, and a spectator
        theirs = event_json(event, seat)
        assert theirs["drawn"] is None and theirs["packet"] == []
        assert {k: v for k, v in theirs.items() if k != "drawn"} == {k: v for k, v in mine.items() if k != "drawn"}


def test_a_deal_event_names_its_dealer_and_first_player() -> None:
    table, _ = a_stock_draw()
    deal = table.match.deals[-1]
    data = deal_event_json(event_json(table.events[0], None), table)
    assert data["kind"] == "deal" and data["dealer"] == deal.dealer and data["first"] == (deal.dealer + 1) % 4


def test_R15_an_engine_refusal_becomes_the_protocols_error_with_its_rule_and_reason() -> None:
    table, mover = a_stock_draw()
    with pytest.raises(IllegalActionError) as refused:
        table.play(mover, "draw")  # one draw a turn
    error = TableError.illegal(refused.value)
    message = error.message()
    assert message["type"] == "error" and message["code"] == "illegal"
    assert message["rule"] == refused.value.rule and message["rule"].startswith("R")
    assert message["reason"] == {"key": refused.value.key, "params": refused.value.params}
    assert STATUS.get(error.code, 400) == 400
