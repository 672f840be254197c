"""Views and outcomes: what a seat may see, decided in one place."""

from __future__ import annotations

from biriba.actions import Action
from biriba.cards import parse_card
from biriba.deal import Deal
from helpers import play, position


def test_view_holds_the_public_table_and_the_own_hand_only() -> None:
    deal = position({0: "7H 9C QD", 1: "2S 3S"}, melds=(["4H 5H 6H"], ["KS KH KD"]), discard="8C 9D", phase="draw")
    view = deal.view_for(0)
    assert list(view.hand) == deal.hand(0) and view.hand_counts() == deal.hands[0]
    assert view.hand_sizes == tuple(deal.sizes)
    assert view.melds == deal.melds and view.discard == deal.discard
    assert view.melds is not deal.melds and view.melds[0] is not deal.melds[0]  # a snapshot, not the deal's lists
    assert view.stock_count == deal.stock_count and view.packet_sizes == (11, 11)
    assert view.team == 0 and view.my_turn
    assert not deal.view_for(1).my_turn
    data = deal.view_for(1).to_json()
    assert data["hands"][0] == {"count": 3} and data["hands"][1] == ["2S", "3S"] and data["viewer"] == 1


def test_outcome_seen_by_hides_the_drawn_card_and_the_packet_from_others() -> None:
    deal = position({0: "9C QD"}, phase="draw")
    out = deal.apply(Action("draw"))
    assert out.seen_by(0).drawn == out.drawn >= 0
    assert out.seen_by(1).drawn == -1 and out.seen_by(1).action == out.action
    closing = position({0: "9C"}, melds=(["3S 4S 5S 6S 7S 8S 9S"], []), phase="play")
    out = closing.apply(closing.parse_action("discard 9C"))
    assert out.packet and out.seen_by(0).packet == out.packet and out.seen_by(2).packet == ()


def test_took_single_is_public() -> None:
    deal = position({0: "7H 9C QD"}, phase="draw", discard="7H")
    play(deal, "take")
    assert deal.view_for(2).took_single == parse_card("7H")


def test_legal_actions_is_a_cheap_reusable_view() -> None:
    deal = Deal.shuffled(5)
    actions = deal.legal_actions()
    assert bool(actions) and actions.count() == 2 == len(list(actions))
    assert Action("draw") in actions and Action("pass") not in actions and "draw" not in actions
    assert deal.is_legal(Action("draw")) and not deal.is_legal(Action("pass"))
    play(deal, "draw")
    assert all(a.kind in ("meld", "add", "discard") for a in actions)  # it follows the deal
