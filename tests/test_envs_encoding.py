"""The step encoding of a turn (biriba.envs.encoding): its masks are the engine's legality, both ways."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biriba.actions import Action
from biriba.deal import Deal
from biriba.envs.core import StepDeal, rules_of
from biriba.envs.encoding import (
    ACTIONS,
    DISCARD,
    DRAW,
    END_HIGH,
    MAX_MELDS,
    NEW_MELD,
    ONTO,
    PICK,
    SLOT,
    TurnSteps,
    describe,
    encode_all,
    steps_of,
)
from biriba.rules import PRESETS, Rules

#: Every preset, and the classic rules at each table size.
TABLES: list[Rules] = [*PRESETS.values(), *(rules_of("classic", n) for n in (2, 3, 5, 6))]


def random_decisions(rules: Rules, seed: int, max_turns: int = 300) -> Iterator[Deal]:
    """Each decision of a deal played at random (a copy the test may play on)."""
    rng = random.Random(seed)
    deal = Deal.shuffled(rng, dealer=rng.randrange(rules.seats), rules=rules, max_turns=max_turns)
    while not deal.is_over:
        yield deal.clone()
        deal.apply(rng.choice(list(deal.legal_actions())))


def reachable(legal: list[Action]) -> list[Action]:
    """Every action a walk of masked steps can end in, walking every branch."""
    out = []

    def walk(prefix: list[int]) -> None:
        for step in probe(prefix).legal_steps():
            turn = probe(prefix)
            action = turn.push(step)
            if action is None:
                walk([*prefix, step])
            else:
                out.append(action)

    def probe(prefix: list[int]) -> TurnSteps:
        turn = TurnSteps(legal)
        for step in prefix:
            assert turn.push(step) is None
        return turn

    walk([])
    return out


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: f"{r.name}-{r.seats}")
def test_masked_steps_reach_exactly_the_legal_actions(rules: Rules) -> None:
    """Every masked walk ends in an action the engine accepts, and every listed action is reached once."""
    decisions = 0
    for seed in range(2):
        for deal in random_decisions(rules, seed):
            legal = list(deal.legal_actions())
            reached = reachable(legal)
            assert sorted(reached) == sorted(legal)
            for action in reached:
                assert deal.is_legal(action)
            decisions += 1
    assert decisions > 100


def test_steps_of_an_action_walk_to_it_through_the_mask() -> None:
    for deal in random_decisions(PRESETS["classic"], 7):
        legal = list(deal.legal_actions())
        for action in legal:
            turn = TurnSteps(legal)
            steps = steps_of(action, legal)
            made = None
            for step in steps:
                assert turn.mask()[step] == 1
                made = turn.push(step)
            assert made == action


def test_choices_tell_apart_the_same_cards_on_the_same_meld() -> None:
    """Where cards go onto one target in several ways (a wild's slot, its end), choice steps follow the commit."""
    seen = 0
    for seed in range(40):
        for deal in random_decisions(PRESETS["classic"], seed):
            for steps in encode_all(deal.legal_actions()):
                commit = next((i for i, s in enumerate(steps) if s == NEW_MELD or ONTO <= s < SLOT), None)
                if commit is not None and commit < len(steps) - 1:
                    assert all(SLOT <= s <= END_HIGH for s in steps[commit + 1 :])
                    seen += 1
        if seen:
            break
    assert seen, "some random deal holds a choice of slot or end"


def test_a_meld_is_picked_in_card_order_then_committed() -> None:
    legal = [Action("meld", (20, 24, 28), (-1, -1, -1)), Action("discard", (20,), (-1,))]
    turn = TurnSteps(legal)
    assert turn.legal_steps() == [DISCARD + 20, PICK + 20]
    assert turn.push(PICK + 20) is None
    assert turn.legal_steps() == [PICK + 24]
    assert turn.push(PICK + 24) is None and turn.push(PICK + 28) is None
    assert turn.picked == [20, 24, 28] and turn.target is None
    assert turn.push(NEW_MELD) == legal[0]


def test_an_illegal_step_is_refused_and_changes_nothing() -> None:
    turn = TurnSteps(Deal.shuffled(seed=1).legal_actions())
    with pytest.raises(ValueError, match=r"step 5 \(discard AD\) is not legal here: draw, take"):
        turn.push(5)
    assert turn.prefix == [] and turn.legal_steps() == [0, 1]
    assert turn.push(DRAW) == Action("draw")


def test_the_space_is_one_size_for_every_table() -> None:
    assert MAX_MELDS == (4 * 52 + 12) // 3
    assert ACTIONS == 3 + 53 + 53 + 1 + MAX_MELDS + 53 + 2
    words = [describe(s) for s in range(ACTIONS)]
    assert len(set(words)) == ACTIONS
    assert words[:4] == ["draw", "take", "pass", "discard AS"] and words[-1] == "end high"
    with pytest.raises(ValueError):
        describe(ACTIONS)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(sorted(PRESETS)))
def test_random_masked_steps_play_legal_deals(seed: int, preset: str) -> None:
    """Property: a deal played by random masked steps keeps every card once, and has a step until it ends."""
    game = StepDeal(PRESETS[preset])
    rng = random.Random(seed)
    game.new_deal(rng)
    while not game.over:
        steps = game.legal_steps()
        assert steps, "every state short of the end has a legal step"
        if game.step(rng.choice(steps)):
            game.deal.assert_consistent()
    assert game.deal.ended_by is not None
