"""Biriba registered with OpenSpiel as ``python_biriba``, so that OpenSpiel's own algorithms play it.

>>> import pyspiel
>>> import biriba.envs.openspiel
>>> game = pyspiel.load_game("python_biriba", {"preset": "italian"})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), game.num_players(), game.num_distinct_actions()
(True, 4, 238)

The game starts with chance nodes that deal: the dealer, then the deck a
card at a time (each outcome a card kind, as likely as the copies of it left
undealt).  Then the seats move in the step encoding of
:mod:`biriba.envs.encoding`; returns are those of :mod:`biriba.envs.core`
(team score less the other teams' mean, in thousands, zero-sum).

A seat's information state is its view (:meth:`~biriba.deal.Deal.view_for`)
and the steps it has taken this decision: the view keeps everything of the
past that bears on play (the melds, the whole pile, the cards seen going
into each hand, the counts), so two histories with the same view are one
information state.  Its string is the view's position JSON, its tensor the
observation array; :meth:`BiribaState.resample_from_infostate` deals the
unseen cards again at random (:func:`biriba.knowledge.determinize`), as
OpenSpiel's IS-MCTS asks.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel

from ..actions import Action
from ..bots import bot_settings
from ..cards import KINDS, NAMES, deck_counts
from ..deal import Deal
from ..knowledge import determinize
from ..rules import Rules
from ..views import PlayerView
from .core import MAX_TURNS, StepDeal, rules_of
from .encoding import ACTIONS, TurnSteps, describe
from .observation import SIZE, observe

GAME_NAME = "python_biriba"
DEFAULTS: dict[str, Any] = {"preset": "classic", "players": 0, "max_turns": MAX_TURNS}
#: The most steps a deal can take: every turn of the cap with a pick of each card of a large hand.
MAX_GAME_LENGTH = MAX_TURNS * 60
#: Returns lie within this many thousands of points.
MAX_UTILITY = 50.0

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Biriba (the biriba package's engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class SharedRandom(random.Random):
    """A generator that the copies of a state share (OpenSpiel clones a state by deep-copying it)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedRandom:
        return self


class BiribaGame(pyspiel.Game):  # type: ignore[misc]
    """The game for one preset (``preset``), table size (``players``, 0: the preset's) and turn cap."""

    def __init__(self, params: dict[str, Any] | None = None, rules: Rules | None = None) -> None:
        given = {**DEFAULTS, **(params or {})}
        self.rules = rules or rules_of(str(given["preset"]), int(given["players"]) or None)
        self.max_turns = int(given["max_turns"])
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTIONS,
            max_chance_outcomes=KINDS,
            num_players=self.rules.seats,
            min_utility=-MAX_UTILITY,
            max_utility=MAX_UTILITY,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, given)

    def new_initial_state(self) -> BiribaState:
        return BiribaState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> SeatObserver:
        return SeatObserver()


class BiribaState(pyspiel.State):  # type: ignore[misc]
    """A deal being dealt (chance), then played a step at a time."""

    def __init__(self, game: BiribaGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.max_turns = game.max_turns
        self.dealer = -1
        self.deck: list[int] = []
        self.undealt = deck_counts(self.rules.packs, self.rules.jokers)
        self.play: StepDeal | None = None
        self.rng: SharedRandom | None = None  # what resampling deals with; else numpy's global generator

    # ----------------------------------------------------------- the deal
    def _dealt(self) -> None:
        play = StepDeal(self.rules, self.max_turns)
        play.set_deal(Deal(self.deck, self.dealer, self.rules, self.max_turns))
        self.play = play

    def current_player(self) -> int:
        if self.play is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.play.over:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.play.mover

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.dealer < 0:
            return [(seat, 1 / self.rules.seats) for seat in range(self.rules.seats)]
        left = sum(self.undealt)
        return [(card, n / left) for card, n in enumerate(self.undealt) if n]

    def _legal_actions(self, player: int) -> list[int]:
        assert self.play is not None and player == self.play.mover
        return self.play.legal_steps()

    def _apply_action(self, action: int) -> None:
        if self.play is not None:
            self.play.step(action)
        elif self.dealer < 0:
            self.dealer = action
        else:
            self.undealt[action] -= 1
            self.deck.append(action)
            if not any(self.undealt):
                self._dealt()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self.dealer < 0 else f"deal {NAMES[action]}"
        return describe(action)

    def is_terminal(self) -> bool:
        return self.play is not None and self.play.over

    def returns(self) -> list[float]:
        if self.play is None:
            return [0.0] * self.rules.seats
        return self.play.rewards()

    def __str__(self) -> str:
        if self.play is None:
            return f"dealing: {len(self.deck)} cards"
        return self.play.status()

    # ------------------------------------------------------ what a seat knows
    def turn_of(self, player: int) -> TurnSteps | None:
        """The steps ``player`` has taken this decision, if it is the mover."""
        assert self.play is not None
        return self.play.turn if player == self.play.mover else None

    def information_state_string(self, player: int | None = None) -> str:
        return self.observation_string(player)

    def observation_string(self, player: int | None = None) -> str:
        if player is None:
            player = self.current_player()
        if self.play is None:
            return f"dealing {len(self.deck)}"
        view = self.play.deal.view_for(player).to_json()
        turn = self.turn_of(player)
        view["steps"] = turn.prefix if turn else []
        return json.dumps(view, separators=(",", ":"), sort_keys=True)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        return self.observation_tensor(player)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        numbers: list[float] = self.observation_array(self.current_player() if player is None else player).tolist()
        return numbers

    def observation_array(self, player: int) -> np.ndarray:
        if self.play is None:
            return np.zeros(SIZE, np.float32)
        return observe(self.play.deal.view_for(player), self.turn_of(player))

    def resample_from_infostate(self, player: int, probability_sampler: Any = None) -> BiribaState:
        """A state ``player`` cannot tell from this one: the cards it cannot see dealt again at random."""
        assert self.play is not None, "the deal is still being dealt"
        rng = self.rng or random.Random(np.random.randint(2**31))
        state = BiribaState.playing(self.get_game(), determinize(self.play.deal.view_for(player), rng, self.max_turns))
        state.rng = self.rng
        play = state.play
        assert play is not None
        for step in self.play.turn.prefix if self.play.turn else ():
            play.step(step)
        return state

    @classmethod
    def playing(cls, game: BiribaGame, deal: Deal) -> BiribaState:
        """A state past the chance nodes, playing ``deal`` (a deal dealt again under a seat's view)."""
        state = cls(game)
        state.dealer, state.undealt = deal.dealer, [0] * KINDS
        state.play = StepDeal(game.rules, game.max_turns)
        state.play.set_deal(deal)
        return state


class SeatObserver:
    """OpenSpiel's observer of a seat: the observation array and the view's string."""

    def __init__(self) -> None:
        self.tensor = np.zeros(SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BiribaState, player: int) -> None:
        self.tensor[:] = state.observation_array(player)

    def string_from(self, state: BiribaState, player: int) -> str:
        return state.observation_string(player)


pyspiel.register_game(_GAME_TYPE, BiribaGame)


#: The share of ``think_ms`` each later step of one decision gets (the cards of a meld after the first).
LATER_STEP_SHARE = 0.25
#: The fewest simulations a search can choose after: the first only expands the root.
MIN_SIMULATIONS = 2


class ISMCTSPlayer:
    """OpenSpiel's own IS-MCTS (``ISMCTSBot`` with its random-rollout evaluator) as a Biriba bot.

    It is given the seat's view only: the state it searches from is that view
    with the unseen cards dealt at random, and the search deals them again
    for every simulation (``resample_from_infostate``).  Each step with a
    choice gets ``simulations`` simulations, or, with ``think_ms``, as many
    as the rate measured so far fits in that time: the whole of it for a
    decision's first choice (most decisions, a draw or a discard, have only
    one), a quarter for each later step of a meld or add being built.
    """

    name = "openspiel-ismcts"

    def __init__(
        self,
        seed: int | str | None = None,
        simulations: int = 100,
        think_ms: float | None = None,
        uct_c: float = 2.0,
        rollouts: int = 1,
    ) -> None:
        from open_spiel.python.algorithms import ismcts, mcts

        if simulations < MIN_SIMULATIONS or rollouts < 1 or (think_ms is not None and think_ms <= 0):
            raise ValueError(f"simulations are at least {MIN_SIMULATIONS}, rollouts at least 1, think_ms above 0")
        self.rng = SharedRandom(seed)
        self.simulations = simulations
        self.think_ms = think_ms
        self._make: Callable[[BiribaGame, int], Any] = lambda game, sims: ismcts.ISMCTSBot(
            game,
            mcts.RandomRolloutEvaluator(rollouts, np.random.RandomState(self.rng.randrange(2**31))),
            uct_c,
            sims,
            random_state=np.random.RandomState(self.rng.randrange(2**31)),
        )
        self.per_second = 0.0  # simulations a second, as measured
        self.games: dict[Rules, BiribaGame] = {}

    def _game(self, rules: Rules) -> BiribaGame:
        if rules not in self.games:
            self.games[rules] = BiribaGame(rules=rules)
        return self.games[rules]

    def _budget(self, first: bool) -> int:
        if self.think_ms is None:
            return self.simulations
        ms = self.think_ms if first else self.think_ms * LATER_STEP_SHARE
        # the first search measures the rate; two is the least (the first simulation only expands the root)
        return max(MIN_SIMULATIONS, int(self.per_second * ms / 1000))

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        game = self._game(view.rules)
        state = BiribaState.playing(game, determinize(view, self.rng, game.max_turns))
        state.rng = self.rng
        turn = TurnSteps(legal)
        first = True
        while True:
            steps = turn.legal_steps()
            if len(steps) == 1:
                step = steps[0]
            else:
                budget = self._budget(first)
                first = False
                started = time.perf_counter()
                step = int(self._make(game, budget).step(state))
                spent = time.perf_counter() - started
                rate = budget / max(spent, 1e-6)
                self.per_second = rate if not self.per_second else 0.7 * self.per_second + 0.3 * rate
            action = turn.push(step)
            if action is not None:
                return action
            state.apply_action(step)


def ismcts_bot(seed: int | str | None, options: str = "", think_ms: float | None = None) -> ISMCTSPlayer:
    """The ``openspiel-ismcts`` bot kind: ``openspiel-ismcts:simulations=200,uct_c=1.5,rollouts=1,think_ms=100``."""
    settings: dict[str, Any] = {"think_ms": think_ms, **bot_settings(options)}
    for key, value in settings.items():
        if key not in ("simulations", "think_ms", "uct_c", "rollouts"):
            raise ValueError(f"openspiel-ismcts takes simulations, think_ms, uct_c and rollouts, not {key!r}")
        if key in ("simulations", "rollouts") and not isinstance(value, int):
            raise ValueError(f"{key} is a whole number, not {value!r}")
    return ISMCTSPlayer(seed, **settings)
