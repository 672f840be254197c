"""The state declared once: clone, views and the position JSON all follow the declaration."""

from __future__ import annotations

import dataclasses

import pytest

from biriba.deal import _UNDEALT, Deal
from biriba.records import position_from_json, position_to_json
from biriba.rules import PRESETS
from biriba.state import Copy, DealState, PublicState, copy_deal, copy_public
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


@pytest.mark.parametrize("kind", ["clone", "view"])
def test_the_written_out_copiers_copy_every_field_as_it_is_declared(kind: str) -> None:
    """copy_deal and copy_public are written out for speed: each field must be copied as its metadata says."""
    deal = Deal.shuffled(6)
    for _ in range(40):
        deal.apply(sorted(deal.legal_actions(), key=str)[-1])
    cls, copier = (DealState, copy_deal) if kind == "clone" else (PublicState, copy_public)
    target = Deal(_UNDEALT) if kind == "clone" else PlayerView.__new__(PlayerView)  # every field unset
    copier(deal, target)  # type: ignore[type-var]
    for field in dataclasses.fields(cls):
        mine = getattr(deal, field.name)
        try:
            theirs = getattr(target, field.name)
        except AttributeError:
            pytest.fail(f"{field.name} is not copied")
        assert theirs == mine, field.name
        how = field.metadata["copy"]
        if how is Copy.SHARE:
            assert theirs is mine, f"{field.name} is shared"
        else:
            assert theirs is not mine, f"{field.name} is a list of its own"
            inner = [a is b for a, b in zip(theirs, mine)]
            assert all(inner) if how is Copy.LIST else not any(inner), f"{field.name}'s items are copied as declared"


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
