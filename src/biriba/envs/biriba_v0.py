"""Biriba as a PettingZoo AEC environment, in the conventions of PettingZoo's classic games.

>>> from biriba.envs import biriba_v0
>>> env = biriba_v0.env(rules="classic")
>>> env.reset(seed=42)
>>> for agent in env.agent_iter():
...     observation, reward, termination, truncation, info = env.last()
...     if termination or truncation:
...         action = None
...     else:
...         action = env.action_space(agent).sample(observation["action_mask"])
...     env.step(action)
>>> env.close()

Each agent's observation is a dict: ``"observation"``, the seat's array
(:mod:`biriba.envs.observation`), and ``"action_mask"``, 1 for each legal
step (:mod:`biriba.envs.encoding`).  An episode is one deal; see
``docs/envs.md`` for the encoding, the observation and the reward.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..rules import Rules
from .core import ILLEGAL_REWARD, MAX_TURNS, StepDeal, rules_of
from .encoding import ACTIONS
from .observation import observation_box

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The environment as PettingZoo's classic games come: an illegal step ends the game, -1 to its agent.

    What their ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper``
    do, ``raw_env(illegal_reward=-1)`` does itself (each wrapper level costs
    every attribute lookup of every step); ``OrderEnforcingWrapper`` stays.
    """
    kwargs.setdefault("illegal_reward", ILLEGAL_REWARD)
    return OrderEnforcingWrapper(raw_env(**kwargs))


def _before_reset_guarded(name: str) -> property:
    def read(self: OrderEnforcingWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(read, doc=f"The environment's ``{name}``, read through the wrapper directly.")


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's wrapper, with the attributes every step reads forwarded directly.

    PettingZoo's forwards them from its ``__getattr__``, which Python calls
    only after the ordinary lookup has failed: eight failed lookups a step
    (``agent_iter``, ``last`` and ``step`` read these), a fifth of a step's
    time.  Each property does what that ``__getattr__`` does, the same error
    before ``reset`` included (tests/test_envs_pettingzoo.py holds it to
    PettingZoo's).
    """

    agents = _before_reset_guarded("agents")
    agent_selection = _before_reset_guarded("agent_selection")
    rewards = _before_reset_guarded("rewards")
    _cumulative_rewards = _before_reset_guarded("_cumulative_rewards")
    terminations = _before_reset_guarded("terminations")
    truncations = _before_reset_guarded("truncations")
    infos = _before_reset_guarded("infos")


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's own name for the unwrapped class
    """Biriba for ``seats`` players (or the preset's), one deal an episode."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "render_fps": 1,
        "name": "biriba_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "classic",
        seats: int | None = None,
        max_turns: int = MAX_TURNS,
        render_mode: str | None = None,
        illegal_reward: float | None = None,
    ) -> None:
        """``illegal_reward``: an illegal step ends the game with this reward to its agent; None: it raises."""
        super().__init__()
        self.illegal_reward = illegal_reward
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.rules = rules_of(rules, seats)
        self.render_mode = render_mode
        self.game = StepDeal(self.rules, max_turns)
        self.possible_agents = [f"player_{s}" for s in range(self.rules.seats)]
        self.agent_name_mapping = {name: s for s, name in enumerate(self.possible_agents)}
        observation = observation_box()
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation, "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(ACTIONS) for a in self.possible_agents}
        self._rng = random.Random()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        mask = self.game.mask() if seat == self.game.mover else np.zeros(ACTIONS, dtype=np.int8)
        return {"observation": self.game.observation(seat), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.game.new_deal(self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.mover]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= action < ACTIONS:
            raise ValueError(f"an action is 0..{ACTIONS - 1}, not {action!r}")
        self._cumulative_rewards[agent] = 0.0
        try:
            self.game.step(int(action))
        except ValueError:  # the step leads to no legal action (the turn refused it and changed nothing)
            if self.illegal_reward is None:
                raise
            self._illegal(agent)
            return
        if self.game.over:
            ended = {"ended_by": str(self.game.deal.ended_by)}
            for name, reward in zip(self.agents, self.game.rewards()):
                self.rewards[name] = reward
                self.terminations[name] = not self.game.truncated
                self.truncations[name] = self.game.truncated
                self.infos[name] = ended
            self._accumulate_rewards()
        else:  # no reward before the deal's end: nothing to accumulate
            self.agent_selection = self.possible_agents[self.game.mover]
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str) -> None:
        """As PettingZoo's ``TerminateIllegalWrapper``: the game ends, the illegal step's agent gets the penalty."""
        gymnasium.logger.warn(f"illegal step by {agent}: the game ends, {self.illegal_reward} to {agent}")
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = float(self.illegal_reward or 0.0)
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self) -> str | None:
        """The table as the agent to move sees it (PettingZoo's classic card games show one seat's hand), as
        text: returned (``ansi``) or printed (``human``)."""
        if self.render_mode is None:
            return None
        text = self.game.text(self.game.mover)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
