"""The PettingZoo environment (biriba.envs.biriba_v0): PettingZoo's own tests, and whole deals played through it."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

from biriba.envs import biriba_v0
from biriba.rules import PRESETS

#: PettingZoo's api_test says this of every classic game, whose observations are dicts with an action mask.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation is not a NumPy array", "ignore:Observation space for each agent probably should be"
)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_pettingzoo_api_test(preset: str) -> None:
    api_test(biriba_v0.env(rules=preset), num_cycles=300)


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_pettingzoo_seed_test(seats: int) -> None:
    seed_test(lambda: biriba_v0.env(rules="classic", seats=seats), num_cycles=300)


def play_deal(seed: int, **kwargs: object) -> tuple[dict[str, float], int, biriba_v0.raw_env]:
    env = biriba_v0.env(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _info = env.last()
        totals[agent] += reward
        if termination or truncation:
            action = None
        else:
            assert observation["action_mask"].any(), "a seat to move always has a legal step"
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            steps += 1
        env.step(action)
    return totals, steps, env.unwrapped


def test_random_masked_play_ends_every_deal_with_zero_sum_rewards() -> None:
    for seed in range(6):
        totals, steps, raw = play_deal(seed, rules="classic")
        assert raw.game.over and steps > 20
        if raw.game.truncated:
            assert set(totals.values()) == {0.0}
            continue
        scores = raw.game.deal.result().team_scores
        assert totals["player_0"] == totals["player_2"] == pytest.approx((scores[0] - scores[1]) / 1000)
        assert sum(totals.values()) == pytest.approx(0.0)


def test_only_the_mover_has_a_mask() -> None:
    env = biriba_v0.env(rules="italian")
    env.reset(seed=3)
    mover = env.agent_selection
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == mover)


def test_an_illegal_step_ends_the_game_for_its_agent() -> None:
    env = biriba_v0.env()
    env.reset(seed=1)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="illegal step by"):
        env.step(illegal)
    assert env.rewards[agent] == -1 and all(env.terminations.values())


def test_a_table_size_and_a_preset_by_name() -> None:
    env = biriba_v0.raw_env(rules="italian-individual", seats=2)
    assert env.possible_agents == ["player_0", "player_1"] and env.rules.name.startswith("italian-individual")
    with pytest.raises(ValueError, match="unknown preset 'clasic'"):
        biriba_v0.raw_env(rules="clasic")


def trace(env: AECEnv, seed: int, steps: int) -> list[tuple[object, ...]]:
    """What a random masked player reads from ``env`` over ``steps`` steps."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    seen: list[tuple[object, ...]] = []
    for agent in env.agent_iter(max_iter=steps):
        observation, reward, termination, truncation, info = env.last()
        seen.append((agent, observation["observation"].tobytes(), reward, termination, truncation, dict(info)))
        seen.append((dict(env.rewards), list(env.agents), env.num_agents))
        mask = observation["action_mask"]
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(mask))))
    return seen


def test_the_wrapper_reads_as_pettingzoos_order_enforcing_wrapper() -> None:
    """biriba_v0.env()'s wrapper forwards the per-step attributes itself; what a player reads is PettingZoo's."""
    ours = biriba_v0.env()
    theirs = wrappers.OrderEnforcingWrapper(biriba_v0.raw_env(illegal_reward=-1))
    assert type(ours) is not wrappers.OrderEnforcingWrapper and isinstance(ours, wrappers.OrderEnforcingWrapper)
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"):
        for env in (ours, theirs):
            with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
                getattr(env, name)
    for seed in range(3):
        assert trace(ours, seed, 2_000) == trace(theirs, seed, 2_000)


def test_render_draws_the_table_of_the_agent_to_move(capsys: pytest.CaptureFixture[str]) -> None:
    env = biriba_v0.env(render_mode="ansi")
    env.reset(seed=7)
    seat = int(env.agent_selection.removeprefix("player_"))
    text = env.render()
    assert text.startswith(f"turn 1, seat {seat} to draw\n") and "Your hand (11):" in text, text
    assert env.metadata["render_fps"] >= 1
    human = biriba_v0.env(render_mode="human")
    human.reset(seed=7)
    human.step(int(np.flatnonzero(human.observe(human.agent_selection)["action_mask"])[0]))
    assert "Your hand" in capsys.readouterr().out  # a human's render prints after each step
