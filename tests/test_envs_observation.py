"""The observation array (biriba.envs.observation): made from a seat's view only, laid out as documented."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from biriba.deal import Deal
from biriba.envs.encoding import PICK, TurnSteps
from biriba.envs.observation import LAYOUT, OFFSET, SIZE, observe
from biriba.knowledge import determinize
from biriba.rules import PRESETS, Rules
from test_envs_encoding import TABLES, random_decisions

DOCS = Path(__file__).parent.parent / "docs" / "envs.md"


@pytest.mark.parametrize("rules", TABLES[::2], ids=lambda r: f"{r.name}-{r.seats}")
def test_hidden_cards_dealt_again_give_the_same_observation(rules: Rules) -> None:
    """Another deal that the seat cannot tell from this one (hands, stock, packets dealt again) looks the same."""
    rng = random.Random(3)
    checked = 0
    for number, deal in enumerate(random_decisions(rules, 5)):
        if number % 7:
            continue
        for seat in range(rules.seats):
            view = deal.view_for(seat)
            again = determinize(view, rng)
            mine, theirs = TurnSteps(deal.legal_actions()), TurnSteps(again.legal_actions())
            if seat == deal.to_move:
                picks = [s for s in mine.legal_steps() if s >= PICK][:1]
                for step in picks:
                    mine.push(step)
                    theirs.push(step)
            else:
                mine = theirs = None  # type: ignore[assignment]
            np.testing.assert_array_equal(observe(view, mine), observe(again.view_for(seat), theirs))
            checked += 1
    assert checked > 20


def test_each_seat_sees_its_own_hand_first() -> None:
    deal = Deal.shuffled(seed=4)
    for seat in range(4):
        hand = observe(deal.view_for(seat))[OFFSET["hand"] : OFFSET["hand"] + 53]
        assert list(hand) == deal.hands[seat]
        to_move = observe(deal.view_for(seat))[OFFSET["to_move"] : OFFSET["to_move"] + 6]
        assert to_move[(deal.to_move - seat) % 4] == 1 and to_move.sum() == 1


def test_the_steps_taken_are_observed() -> None:
    for deal in random_decisions(PRESETS["classic"], 2):
        turn = TurnSteps(deal.legal_actions())
        picks = [s for s in turn.legal_steps() if s >= PICK]
        if picks:
            turn.push(picks[0])
            seen = observe(deal.view_for(deal.to_move), turn)
            assert seen[OFFSET["picked"] + picks[0] - PICK] == 1
            assert seen[OFFSET["picked"] : OFFSET["picked"] + 53].sum() == 1
            return
    pytest.fail("no meld in the deal")


def test_the_docs_list_the_layout() -> None:
    """docs/envs.md's table of the observation names every part, in order, with its length."""
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \|", DOCS.read_text(), re.M)
    assert [(name, int(size)) for name, size in rows] == [(p.name, p.size) for p in LAYOUT]
    assert f"{SIZE:,}" in DOCS.read_text()
