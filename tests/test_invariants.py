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

import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biriba.actions import Action
from biriba.deal import Deal
from biriba.rules import CLASSIC, PRESETS, Rules
from biriba.soak import check_candidates, check_json, check_replay, check_result, check_sample_applies, check_views

SCALE = 10 if os.environ.get("BIRIBA_LONG") else 1
STYLES = ["uniform", "eager", "hoarder"]
PLAYERS = [f"p{s}" for s in range(6)]


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


def run_deal(seed: int, style: str, heavy: bool, rules: Rules = CLASSIC) -> Deal:
    rng = random.Random(seed)
    deal = Deal.shuffled(seed, dealer=seed % rules.seats, rules=rules, max_turns=250)
    deal.match_scores = tuple(rng.choice([0, 1200, 1700]) for _ in rules.teams)  # vulnerability comes up
    while not deal.is_over:
        if deal.turn % 10 == 0 and deal.phase == "draw":
            check_views(deal, as_json=False)
        if heavy:
            listed = list(deal.legal_actions())
            check_candidates(deal, listed, rng)
            check_views(deal)
            for action in rng.sample(listed, min(3, len(listed))):
                deal.check(action)
                check_sample_applies(deal, action)
            if rng.random() < 0.1:
                check_json(deal, listed)
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
        check_replay(deal, PLAYERS[: deal.rules.seats])


@settings(max_examples=12 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(STYLES))
def test_random_deals_list_check_views_and_json_agree(seed: int, style: str) -> None:
    deal = run_deal(seed, style, heavy=True)
    check_replay(deal, PLAYERS[: deal.rules.seats])


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
        check_replay(deal, PLAYERS[: deal.rules.seats])

    check()
