"""Positions and game records as JSON (notation.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from biriba.bots import make_bot
from biriba.deal import Deal
from biriba.errors import InvalidPositionError, NotationError
from biriba.match import Match
from biriba.records import position_from_json, position_to_json, record_to_json
from biriba.replay import ReplayError, load_match, replay_record
from biriba.rules import PRESET_VERSION, PRESETS, PRESETS_BY_VERSION
from biriba.table import play_deal
from helpers import play, position


def roundtrip(deal: Deal) -> dict[str, object]:
    data = json.loads(json.dumps(position_to_json(deal)))
    again = position_from_json(data)
    assert position_to_json(again) == data
    return data


def test_position_has_the_documented_fields() -> None:
    data = roundtrip(Deal.shuffled(1))
    for key in (
        "format",
        "rules",
        "match_scores",
        "dealer",
        "to_move",
        "phase",
        "hands",
        "melds",
        "discard",
        "stock",
        "packets",
        "reserves",
        "took_single",
        "passes",
    ):
        assert key in data
    assert data["format"] == "biriba-position/1" and data["rules"] == "classic"
    assert len(data["stock"]) == 41 and [len(p) for p in data["packets"]] == [11, 11]


def test_position_round_trips_mid_deal() -> None:
    deal = position({0: "7H 9C QD"}, melds=(["3S 4S 5S 6S 7S 8S 2C=9S"], ["4D 5D JK=6D"]), phase="draw", discard="7H")
    play(deal, "take")
    data = roundtrip(deal)
    assert data["took_single"] == "7H" and data["melds"][0] == [["3S", "4S", "5S", "6S", "7S", "8S", "2C=9S"]]
    closing = position({0: "9C"}, melds=(["3S 4S 5S 6S 7S 8S 9S"], []), phase="play")
    play(closing, "discard 9C")
    assert roundtrip(closing)["reserves"][0] == {"seat": 0, "active": False}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="x"), "not a position"),
        (lambda d: d["hands"][0].pop(), "R2"),
        (lambda d: d.update(hands=d["hands"][:3]), "4 hands"),
        (lambda d: d.update(phase="discard"), "'phase'"),
        (lambda d: d.update(to_move=7), "to_move"),
        (lambda d: d.update(reserves=[{"seat": 1, "active": True}, None]), "R20"),
        (lambda d: d.update(took_single="7H"), "R16"),
        (lambda d: d.update(rules="nope"), "unknown rules preset"),
        (lambda d: d.update(stock={"count": 3}), "view"),
        (lambda d: d.update(match_scores=[float("inf"), 0]), "'match_scores': inf is not a whole number"),
        (lambda d: d.update(match_scores=[1.5, 0]), "'match_scores': 1.5 is not a whole number"),
        (lambda d: d.update(match_scores=[500]), "'match_scores' must list 2 teams"),
        (lambda d: d.update(laid_whole=[[float("inf")], []]), "'laid_whole': inf is not a whole number"),
        (lambda d: d.update(laid_whole=[[]]), "'laid_whole' must list 2 teams"),
        (lambda d: d.update(laid_whole=[[0], []]), "'laid_whole' of team 0 names a meld the team does not have"),
        (lambda d: d.update(known=[[]]), "'known' must list 4 seats"),
    ],
)
def test_bad_positions_are_refused(change, message: str) -> None:  # type: ignore[no-untyped-def]
    data = position_to_json(Deal.shuffled(2))
    change(data)
    with pytest.raises((InvalidPositionError, NotationError), match=message):
        position_from_json(data)


def test_record_replays_to_the_same_result() -> None:
    deal = Deal.shuffled(3, dealer=1)
    play_deal(deal, [make_bot("greedy", s) for s in range(4)])
    record = json.loads(json.dumps(record_to_json(deal.rules, ["A", "B", "C", "D"], [deal])))
    assert record["format"] == "biriba-record/1" and len(record["deals"][0]["deck"]) == 108
    replay = replay_record(record)
    assert replay.deals[0].result() == deal.result() and replay.players == ["A", "B", "C", "D"]


def test_record_errors_name_deal_and_action() -> None:
    deal = Deal.shuffled(4)
    rng = random.Random(0)
    for _ in range(10):
        deal.apply(rng.choice(list(deal.legal_actions())))
    record = record_to_json(deal.rules, ["A", "B", "C", "D"], [deal])
    record["deals"][0]["actions"][3][0] = (record["deals"][0]["actions"][3][0] + 1) % 4
    with pytest.raises(ReplayError, match=r"deal 1, action 4 .*R15"):
        replay_record(record)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(players="ABCD"), "'players' lists 4 names"),
        (lambda r: r.update(preset_version=[1]), "'preset_version' is a whole number"),
        (lambda r: r["deals"][0].update(actions=[[float("inf"), "draw"]]), "a seat is a whole number"),
        (lambda r: r["deals"][0].update(actions=[[0]]), r"\[0\] is not a \[seat, action\] pair"),
        (lambda r: r["deals"][0].update(max_turns="400"), "'max_turns' is a number of turns"),
        (lambda r: r["deals"][0].update(result=[]), "a stored result is an object like"),
    ],
)
def test_malformed_records_are_refused_by_what_is_wrong(change, message: str) -> None:  # type: ignore[no-untyped-def]
    """A record read from a file or an upload says what is malformed (fuzz/findings/record keeps the inputs)."""
    deal = Deal.shuffled(5)
    play_deal(deal, [make_bot("greedy", s) for s in range(4)])
    record = record_to_json(deal.rules, ["A", "B", "C", "D"], [deal])
    change(record)
    with pytest.raises((ReplayError, NotationError), match=message):
        replay_record(record)


def test_match_record_resumes_where_it_stopped() -> None:
    match = Match(seed=9, max_turns=300)
    bots = [make_bot("greedy", s) for s in range(4)]
    play_deal(match.new_deal(), bots)
    deal = match.new_deal()
    for _ in range(7):
        deal.apply(bots[deal.to_move].choose(deal.view_for(deal.to_move), list(deal.legal_actions())))
    resumed = load_match(json.loads(json.dumps(match.to_record())))
    assert resumed.totals == match.totals and len(resumed.deals) == 2
    current = resumed.current
    assert current is not None and current.history == deal.history
    assert position_to_json(current) == position_to_json(deal) and current.deck == deal.deck


@pytest.mark.parametrize("name", ["kozi", "atout", "italian", "three-handed"])
def test_records_of_earlier_preset_versions_replay(name: str) -> None:
    """A record written before ``preset_version`` (by biriba 0.1) keeps its presets' old meaning."""
    record = json.loads((Path(__file__).parent / "records" / f"v1-{name}.json").read_text())
    assert "preset_version" not in record and record["rules"] == name
    replay = replay_record(record)  # every action and every stored result checks
    assert replay.rules == PRESETS_BY_VERSION[1][name] != PRESETS[name]
    resaved = replay.match.to_record()
    assert resaved["preset_version"] == PRESET_VERSION and isinstance(resaved["rules"], dict)
    again = replay_record(json.loads(json.dumps(resaved)))
    assert [d.result() for d in again.deals] == [d.result() for d in replay.deals]
    with pytest.raises(ReplayError):
        replay_record({**record, "preset_version": PRESET_VERSION})  # read as today's preset, it breaks
