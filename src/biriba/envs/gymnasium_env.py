"""One seat of Biriba as a Gymnasium environment, the other seats played by bots.

>>> import gymnasium, biriba.envs
>>> env = gymnasium.make("biriba/Biriba-v0", opponents="greedy", partner="random")
>>> observation, info = env.reset(seed=1)
>>> observation.shape == env.observation_space.shape
True

The agent steps as in :mod:`biriba.envs.encoding`; the bots play their
whole actions in between.  :meth:`BiribaEnv.action_masks` is the mask
sb3-contrib's ``MaskablePPO`` asks for; ``info["action_mask"]`` carries the
same.  An episode is one deal; the reward comes at its end (``docs/envs.md``).
A step the mask forbids ends the episode with a reward of -1, as
PettingZoo's wrapped environments do.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..bots import Bot, make_bot
from ..rules import Rules
from .core import ILLEGAL_REWARD, MAX_TURNS, StepDeal, rules_of
from .encoding import ACTIONS
from .observation import observation_box


class BiribaEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Seat ``seat`` learns; ``partner`` and ``opponents`` are bot kinds (``"greedy"``...) or bots."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 - Gymnasium's own attribute

    def __init__(
        self,
        rules: Rules | str = "classic",
        seats: int | None = None,
        seat: int = 0,
        opponents: str | Bot = "random",
        partner: str | Bot | None = None,
        max_turns: int = MAX_TURNS,
        render_mode: str | None = None,
    ) -> None:
        self.rules = rules_of(rules, seats)
        if not 0 <= seat < self.rules.seats:
            raise ValueError(f"seat is 0..{self.rules.seats - 1}, not {seat}")
        self.seat = seat
        self.render_mode = render_mode
        self.game = StepDeal(self.rules, max_turns)
        self.observation_space = observation_box()
        self.action_space = spaces.Discrete(ACTIONS)
        team = self.rules.team_of[seat]
        self._kinds: dict[int, str | Bot] = {}
        for other in range(self.rules.seats):
            if other != seat:
                mate = self.rules.team_of[other] == team
                self._kinds[other] = (partner if partner is not None else opponents) if mate else opponents
        self.bots: dict[int, Bot] = {}
        self.ended = True  # until reset
        self._rng = random.Random()

    def _make_bots(self) -> None:
        self.bots = {
            other: make_bot(kind, seed=self._rng.randrange(2**32)) if isinstance(kind, str) else kind
            for other, kind in self._kinds.items()
        }

    def action_masks(self) -> np.ndarray:
        """The legal steps, as booleans (sb3-contrib's ``MaskablePPO`` calls this)."""
        return self.game.mask().astype(bool)

    def _bots_play(self) -> None:
        deal = self.game.deal
        while not deal.is_over and deal.to_move != self.seat:
            mover = deal.to_move
            deal.apply(self.bots[mover].choose(deal.view_for(mover), list(deal.legal_actions())))
        self.game.set_deal(deal)

    def _answer(self) -> tuple[np.ndarray, dict[str, Any]]:
        info: dict[str, Any] = {"action_mask": self.game.mask()}
        if self.game.over:
            info["ended_by"] = str(self.game.deal.ended_by)
            info["team_scores"] = self.game.deal.result().team_scores
        return self.game.observation(self.seat), info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self._make_bots()
        self.game.new_deal(self._rng)
        self._bots_play()
        self.ended = self.game.over
        return self._answer()

    def step(self, action: int | np.integer[Any]) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.ended:
            raise RuntimeError("the episode is over: call reset()")
        step = int(action)
        try:
            made = self.game.step(step)
        except ValueError:  # the step leads to no legal action (the turn refused it and changed nothing)
            observation, info = self._answer()
            info["illegal_step"] = step
            self.ended = True
            return observation, ILLEGAL_REWARD, True, False, info
        if made:
            self._bots_play()
        observation, info = self._answer()
        reward = self.game.rewards()[self.seat]
        self.ended = self.game.over
        return observation, reward, self.game.over and not self.game.truncated, self.game.truncated, info

    def render(self) -> str | None:
        """The table as the agent's seat sees it, as text: returned (``ansi``) or printed (``human``)."""
        if self.render_mode is None:
            return None
        text = self.game.text(self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text
