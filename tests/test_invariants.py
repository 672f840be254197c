"""Property-based tests over random legal deals (R23a and the engine's promises).

- every non-final state offers a legal action, and all 108 cards are always
  in exactly one place (R23a);
- every listed action passes the check and applies, unchecked as checked;
  actions outside the list are refused, citing a rule, and change nothing;
- a deal's score equals the sum of its breakdown;
- a saved record replays to the same result; position JSON round-trips;
- a seat's view never holds a card that seat cannot see.

``make test`` plays a few hundred deals; ``make test-long``
(``BIRIBA_LONG=1``) plays ten times as many, for soak runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biriba.actions import Action
from biriba.cards import NAMES, parse_card
from biriba.deal import Deal
from biriba.errors import IllegalActionError
from biriba.records import position_from_json, position_to_json, record_to_json
from biriba.replay import replay_record
from biriba.rules import CLASSIC, OPTION_NAMES, PRESETS, Rules
from biriba.scoring import PARTS

SCALE = 10 if os.environ.get("BIRIBA_LONG") else 1
STYLES = ["uniform", "eager", "hoarder"]


def choose(deal: Deal, rng: random.Random, style: str) -> Action:
    """A random legal action; the styles reach different parts of the game.

    ``uniform`` is a uniform choice; ``eager`` melds whenever it can and
    rarely takes, so deals reach reserves and closures; ``hoarder`` takes the
    pile often, so hands grow large and rules R16/R30 come up.
    """
    actions = list(deal.legal_actions())
    assert actions, "R23a: a non-final state without a legal action"
    if style == "uniform":
        return rng.choice(actions)
    melds = [a for a in actions if a.kind in ("meld", "add")]
    if style == "eager":
        if melds and rng.random() < 0.9:
            return max(melds, key=lambda a: (len(a.cards), rng.random()))
        draws = [a for a in actions if a.kind == "draw"]
        if draws and rng.random() < 0.9:
            return draws[0]
        discards = [a for a in actions if a.kind == "discard"]
        return rng.choice(discards or actions)
    takes = [a for a in actions if a.kind == "take"]
    if takes and rng.random() < 0.7:
        return takes[0]
    if melds and rng.random() < 0.5:
        return rng.choice(melds)
    return rng.choice(actions)


def check_result(deal: Deal) -> None:
    result = deal.result()
    for team, part in enumerate(result.breakdown):
        assert set(part) - {"total"} <= set(PARTS)
        assert part["total"] == sum(part.get(k, 0) for k in PARTS) == result.team_scores[team]


def check_replay(deal: Deal) -> None:
    players = [f"p{s}" for s in range(deal.rules.seats)]
    record = json.loads(json.dumps(record_to_json(deal.rules, players, [deal])))
    replayed = replay_record(record).deals[0]
    assert replayed.result() == deal.result()
    assert replayed.history == deal.history


def visible_cards(data: Any) -> Counter[int]:
    """Every card named anywhere in a JSON view (slots count as the wild's card only)."""
    found: Counter[int] = Counter()
    if isinstance(data, str):
        with contextlib.suppress(ValueError):
            found[parse_card(data.partition("=")[0])] += 1
    elif isinstance(data, list):
        for item in data:
            found += visible_cards(item)
    elif isinstance(data, dict):
        for key, value in data.items():
            if key not in ("format", "rules", "phase"):
                found += visible_cards(value)
    return found


def check_views(deal: Deal) -> None:
    table: Counter[int] = Counter(deal.discard)
    for team in deal.melds:
        for meld in team:
            table.update(meld.cards())
    for seat in range(deal.rules.seats):
        view = deal.view_for(seat)
        allowed = table + Counter(deal.hand(seat))
        if deal.took_single >= 0:
            allowed[deal.took_single] += 1  # everyone saw the one-card pile taken
        allowed.update(deal.cut_wilds)  # the wilds the dealer found past the cut (D22)
        for known in deal.known:  # and what all have seen go into a hand (a taken pile, found wilds)
            for code, count in enumerate(known):
                allowed[code] += count
        data = view.to_json()
        packet = Counter(visible_cards(data.pop("packet", [])))
        assert not packet - Counter(deal.hand(seat)), "a packet shown is one in the seat's own hand"
        seen = visible_cards(data)
        assert not seen - allowed, f"seat {seat} sees {[NAMES[c] for c in seen - allowed]}"
        assert list(view.hand) == deal.hand(seat)
        assert view.stock_count == deal.stock_count


def check_candidates(deal: Deal, rng: random.Random) -> None:
    """Actions built at random from the mover's cards: legal exactly when listed."""
    legal = set(deal.legal_actions())
    hand = deal.hand(deal.to_move)
    team = deal.rules.team_of[deal.to_move]
    candidates = [Action("draw"), Action("take"), Action("pass")]
    for _ in range(6):
        n = rng.randint(1, min(4, len(hand)))
        cards = tuple(sorted(rng.sample(hand, n)))
        candidates.append(Action("meld", cards, (-1,) * n))
        candidates.append(Action("add", cards, (-1,) * n, rng.randint(0, len(deal.melds[team]))))
        candidates.append(Action("discard", (rng.choice(range(53)),), (-1,)))
    for action in candidates:
        same = [
            a for a in legal if (a.kind, sorted(a.cards), a.meld) == (action.kind, sorted(action.cards), action.meld)
        ]
        before = position_to_json(deal)
        try:
            deal.check(action)
        except IllegalActionError as error:
            assert not same, f"{action} refused ({error}) but {same[0]} is listed"
            assert error.rule.startswith("R") or error.rule in OPTION_NAMES
        else:
            assert same, f"{action} passes the check but is not listed"
        assert position_to_json(deal) == before


def check_unchecked_apply(deal: Deal, action: Action) -> None:
    """A listed action played unchecked (self-play's path: the meld looked up, not resolved) does the same."""
    fast, checked = deal.clone(), deal.clone()
    assert fast.apply(action, check=False) == checked.apply(action)
    assert position_to_json(fast) == position_to_json(checked)


def run_deal(seed: int, style: str, heavy: bool, rules: Rules = CLASSIC) -> Deal:
    rng = random.Random(seed)
    deal = Deal.shuffled(seed, dealer=seed % rules.seats, rules=rules, max_turns=250)
    deal.match_scores = tuple(rng.choice([0, 1200, 1700]) for _ in rules.teams)  # vulnerability comes up
    while not deal.is_over:
        if deal.turn % 10 == 0 and deal.phase == "draw":
            check_views(deal)
        if heavy:
            check_candidates(deal, rng)
            check_views(deal)
            listed = list(deal.legal_actions())
            for action in rng.sample(listed, min(3, len(listed))):
                deal.check(action)
                check_unchecked_apply(deal, action)
            if rng.random() < 0.1:
                again = position_from_json(json.loads(json.dumps(position_to_json(deal))))
                assert position_to_json(again) == position_to_json(deal)
                assert sorted(map(str, again.legal_actions())) == sorted(map(str, listed))
        deal.apply(choose(deal, rng, style))
        deal.assert_consistent()
    assert list(deal.legal_actions()) == []
    check_result(deal)
    return deal


@settings(max_examples=300 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(STYLES))
def test_R23a_random_deals_keep_every_invariant(seed: int, style: str) -> None:
    deal = run_deal(seed, style, heavy=False)
    if seed % 4 == 0:
        check_replay(deal)


@settings(max_examples=12 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(STYLES))
def test_random_deals_list_check_views_and_json_agree(seed: int, style: str) -> None:
    deal = run_deal(seed, style, heavy=True)
    check_replay(deal)


def test_the_styles_reach_closures_reserves_and_passes() -> None:
    ends: Counter[str] = Counter()
    reserves = 0
    for seed in range(60):
        deal = run_deal(seed, STYLES[seed % 3], heavy=False)
        ends[deal.ended_by or ""] += 1
        reserves += sum(r is not None for r in deal.reserves)
    assert ends["closure"] and ends["passes"] and reserves


TABLES = {
    **PRESETS,
    "two players": CLASSIC.replace(seats=2, partnerships=False),
    "italian, six players": PRESETS["italian"].replace(seats=6, packs=3, jokers=6),
    "italian, greek city, no wild twos, super biriba": PRESETS["italian"].with_options(
        ["closure_biribas=2", "twos_wild=false", "long_run_bonus=400/200"]
    ),
}


@pytest.mark.parametrize("preset", sorted(TABLES))
def test_every_preset_keeps_every_invariant(preset: str) -> None:
    """Per preset: its deck conserved, a legal action always, score = breakdown, replay, JSON, views."""
    rules = TABLES[preset]

    @settings(max_examples=8 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(0, 2**32 - 1), st.sampled_from(STYLES))
    def check(seed: int, style: str) -> None:
        deal = run_deal(seed, style, heavy=seed % 5 == 0, rules=rules)
        check_replay(deal)

    check()
