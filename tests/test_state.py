"""The state declared once: clone, views and the position JSON all follow the declaration."""

from __future__ import annotations

import dataclasses

from biriba.deal import Deal
from biriba.records import position_from_json, position_to_json
from biriba.rules import PRESETS
from biriba.state import Copy, DealState, PublicState
from biriba.views import PlayerView
from helpers import play, position


def test_every_field_says_how_it_is_copied() -> None:
    for field in dataclasses.fields(DealState):
        assert isinstance(field.metadata["copy"], Copy), field.name
    public = {f.name for f in dataclasses.fields(PublicState)}
    assert {"melds", "discard", "reserves", "sizes", "cut_wilds"} <= public
    assert not public & {"hands", "stock", "packets", "reserve_packets", "deck", "history"}  # never in a view


def test_a_clone_shares_nothing_that_play_changes() -> None:
    deal = position({0: "3H 4H 5H 9C QD"}, melds=(["6S 7S 8S"], []), phase="play")
    copy = deal.clone()
    play(copy, "meld 3H 4H 5H", "discard 9C")
    assert deal.hand(0) != copy.hand(0) and len(deal.melds[0]) == 1 and len(copy.melds[0]) == 2
    assert deal.discard != copy.discard and deal.history == [] and deal.to_move == 0
    for field in dataclasses.fields(DealState):
        a, b = getattr(deal, field.name), getattr(copy, field.name)
        if field.metadata["copy"] is not Copy.SHARE and a is not None:
            assert a is not b, field.name


def test_a_view_carries_every_public_field() -> None:
    deal = Deal.shuffled(4)
    view = deal.view_for(2)
    for field in dataclasses.fields(PublicState):
        assert getattr(view, field.name) == getattr(deal, field.name), field.name
    assert isinstance(view, PlayerView) and list(view.hand) == deal.hand(2)


def test_every_written_field_reads_back() -> None:
    atout = PRESETS["atout"]
    deal = position({0: "3H 4H 5H 9C QD"}, melds=(["6S 7S 8S"], []), phase="play", rules=atout, trump="S", cut=-1)
    data = position_to_json(deal)
    again = position_from_json(data)
    for field in dataclasses.fields(DealState):
        if field.metadata["codec"] is not None:
            assert getattr(again, field.name) == getattr(deal, field.name), field.name
    assert position_to_json(again) == data
