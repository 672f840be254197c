"""The training pipeline (examples/train_ppo.py) and the bot kind ``policy:PATH`` (the train extra)."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest

from biriba.bots import make_bot
from biriba.deal import Deal
from biriba.envs.policy import PolicyPlayer

EXAMPLE = Path(__file__).parent.parent / "examples" / "train_ppo.py"


def load_example():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("train_ppo", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_few_hundred_steps_of_training_write_a_policy_that_plays(tmp_path: Path) -> None:
    summary = load_example().train(600, tmp_path, seed=1)
    assert summary["steps"] == 600 and summary["seconds"] > 0
    assert json.loads((tmp_path / "training.json").read_text())["steps"] == 600
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    bot = make_bot(f"policy:{tmp_path / 'policy.zip'}", 1)
    assert isinstance(bot, PolicyPlayer)
    deal = Deal.shuffled(3)
    rng = random.Random(3)
    for _ in range(40):
        if deal.is_over:
            break
        legal = list(deal.legal_actions())
        action = bot.choose(deal.view_for(deal.to_move), legal) if deal.to_move % 2 == 0 else rng.choice(legal)
        assert action in legal
        deal.apply(action)


def test_a_policy_kind_needs_a_saved_policy(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="policy:PATH names a saved policy"):
        make_bot("policy", 1)
    with pytest.raises(ValueError, match="no saved policy at"):
        make_bot(f"policy:{tmp_path / 'none.zip'}", 1)
