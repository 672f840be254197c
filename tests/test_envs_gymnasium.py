"""The Gymnasium environment (biriba/Biriba-v0): Gymnasium's own checker, bots at the other seats, masks."""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import biriba.envs
from biriba.envs.gymnasium_env import BiribaEnv


def test_registered_on_import() -> None:
    assert biriba.envs.GYMNASIUM_ID in gymnasium.registry
    env = gymnasium.make("biriba/Biriba-v0", opponents="greedy")
    assert isinstance(env.unwrapped, BiribaEnv)


@pytest.mark.parametrize("rules", ["classic", "italian", "individual"])
def test_gymnasium_check_env(rules: str) -> None:
    check_env(gymnasium.make("biriba/Biriba-v0", rules=rules, opponents="greedy", render_mode="ansi"))


def test_the_documented_mask_call_works_through_gymnasium_make(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/envs.md: ``env.action_masks()`` on what ``gymnasium.make`` returns, as sb3-contrib's MaskablePPO calls it;
    ``render()`` draws the agent's table as text."""
    env = gymnasium.make("biriba/Biriba-v0", opponents="greedy", render_mode="ansi")
    _observation, info = env.reset(seed=3)
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    text = env.render()
    assert isinstance(text, str) and re.match(r"turn \d+, seat 0 to draw\n", text) and "Your hand (11):" in text
    assert env.metadata["render_fps"] >= 1
    done, steps = False, 0
    while not done:
        _observation, _reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done, steps = terminated or truncated, steps + 1
    assert "the deal is over" in str(env.render()) and " to over" not in str(env.render())
    human = gymnasium.make("biriba/Biriba-v0", render_mode="human")
    human.reset(seed=3)
    assert human.render() is None and "Your hand (11):" in capsys.readouterr().out


def test_a_deal_against_bots_ends_with_the_team_s_reward() -> None:
    env = BiribaEnv(seat=1, opponents="greedy", partner="random")
    _observation, info = env.reset(seed=5)
    assert env.bots[3].name.lower().startswith("random") and env.bots[0].name.lower().startswith("greedy")
    rng = np.random.default_rng(5)
    done = False
    total = 0.0
    while not done:
        mask = env.action_masks()
        assert mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
        assert env.game.deal.to_move == 1, "the agent is asked only on its own turn"
        _observation, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        done = terminated or truncated
    if terminated:
        scores = info["team_scores"]
        assert total == pytest.approx((scores[1] - scores[0]) / 1000)


def test_a_bad_seat_is_refused() -> None:
    with pytest.raises(ValueError, match=r"seat is 0..3, not 4"):
        BiribaEnv(seat=4)


def test_an_illegal_step_ends_the_episode_with_a_penalty() -> None:
    env = BiribaEnv()
    env.reset(seed=2)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _observation, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_step"]) == (-1.0, True, False, illegal)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
