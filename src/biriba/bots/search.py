"""The search bot ("hard"): perfect-information Monte Carlo over deals consistent with what it sees.

For each decision it deals the cards it cannot see at random, in every way
its view allows (:func:`biriba.knowledge.determinize`), and in each such deal
plays every candidate action (the greedy bot's favourites) followed by a few
turns of greedy play by everyone; the action whose deals end best on
average, by the score difference as the deal then stands, is chosen.  It
never sees a hidden card: only its view goes in.  ``samples`` fixes the work
(and, with the seed, the choice); ``think_ms`` bounds the time.

:class:`PerfectBot` searches the true deal instead: it sees every hand and
the stock, so it is never offered to players; it measures how much any
search could gain.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..actions import Action
from ..deal import Deal
from ..knowledge import determinize
from ..table import agent_turn
from ..terms import Phase
from ..views import PlayerView
from .base import DrawMemory, derived_seed
from .greedy import GreedyBot

#: Decisions played in a rollout before the position is scored as it stands.
ROLLOUT_DECISIONS = 16
#: Actions tried per decision: the greedy bot's favourites.
WIDTH = 5
#: Deals sampled per decision (head to head, 32 beat 16 by +95 points a game over 200 classic pairs).
SAMPLES = 32
#: The longest a hard bot searches at a table with people, terminal or web, in milliseconds: a rare
#: italian decision with a taken pile can take seconds, and the players would wait.
TABLE_THINK_MS = 1000


@dataclass
class Choice:
    """What the last search found: each candidate's mean value, and how many deals it was tried in."""

    actions: list[Action]
    values: list[float]
    samples: int

    def reason(self) -> str:
        """One line for a hint, in a card player's words: where the move leaves the team a few turns on (its
        points against the others'), over how many guesses of the hidden cards, and the next best move's."""
        order = sorted(range(len(self.actions)), key=lambda i: -self.values[i])
        best = order[0]
        text = f"{_standing(self.values[best])} a few turns on, over {self.samples} guesses of the hidden cards"
        if len(order) > 1:
            second = order[1]
            text += f"; next best {self.actions[second]}: {_standing(self.values[second])}"
        return text


def _standing(margin: float) -> str:
    """A team's margin over the others, in words: "about 28 points ahead", "about 40 points behind", "level"."""
    points = round(abs(margin))
    if points == 0:
        return "level"
    return f"about {points} points {'ahead' if margin > 0 else 'behind'}"


class SearchBot:
    """Plays the candidate that does best across sampled deals (PIMC with greedy rollouts)."""

    name = "hard"

    def __init__(
        self,
        seed: int | str | None = None,
        samples: int = SAMPLES,
        think_ms: float | None = None,
        width: int = WIDTH,
        rollout_decisions: int = ROLLOUT_DECISIONS,
    ) -> None:
        self.rng = random.Random(seed)
        self.samples = samples
        self.think_ms = think_ms
        self.width = width
        self.rollout_decisions = rollout_decisions
        self.ranker = GreedyBot(derived_seed(seed, "rank"), remember=False)
        self.rollout_bot = GreedyBot(derived_seed(seed, "rollout"), remember=False)
        self.draws = DrawMemory()
        self.last: Choice | None = None

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.last = None
        settled = self.settled(view, legal)
        if settled is not None:
            return settled
        candidates = self.ranker.ranked(view, legal)[: self.width]
        if len(candidates) == 1:
            return candidates[0]
        return self.search(view, candidates, self.worlds(view))

    def settled(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """The move made without a search, if there is one: the only legal action, the draw (or with the stock
        out the pass) instead of a take that would go round a loop (:class:`DrawMemory`), with the stock out
        the pass when the pile's cards make no meld or add this turn, or after a forced take met again the meld
        or add of its card.

        The search alone would keep taking with the stock out: its rollouts stop a few turns on and count no
        cards in hand until the deal is over, so a take that only keeps the deal going looks better than the
        pass that would end it (docs/bots.md, "Every deal ends").  A front end whose searches run elsewhere
        (the web server's worker pool, whose bots are new at every decision) asks the bot here first, so that
        the memory of the draws faced stays with the bot.  Asked again about the same draw it answers the
        same: a draw it faced was remembered, or its pile does not play.
        """
        if len(legal) == 1:
            if legal[0].kind == "take":
                self.draws.forced_take(view)
            return legal[0]
        if view.phase == Phase.DRAW and (
            self.draws.repeats(view) or (not view.stock_count and not self.ranker.pile_plays(view))
        ):
            return next(a for a in legal if a.kind != "take")
        return self.ranker.owed_play(view, legal, self.draws)

    def worlds(self, view: PlayerView) -> Callable[[], Deal]:
        """Where the searched deals come from: deals consistent with the view, sampled afresh each time."""
        return lambda: determinize(view, self.rng)

    def search(self, view: PlayerView, candidates: list[Action], world: Callable[[], Deal]) -> Action:
        seat = view.seat
        assert seat is not None
        totals = [0.0] * len(candidates)
        start = time.perf_counter()
        done = 0
        while done < self.samples:
            if self.think_ms is not None and done and (time.perf_counter() - start) * 1000 > self.think_ms:
                break
            deal = world()
            for index, action in enumerate(candidates):
                trial = deal.clone()
                trial.apply(action, check=False)
                totals[index] += self.rollout(trial, seat)
            done += 1
        values = [total / done for total in totals]
        self.last = Choice(candidates, values, done)
        best = max(range(len(candidates)), key=lambda i: (values[i], -i))  # ties: the greedy order
        return candidates[best]

    def rollout(self, deal: Deal, seat: int) -> float:
        """Play on with greedy for everyone, then score the deal as it stands: our team against the best other.

        Cards still in hand count only once the deal is over: a few turns on
        they are not lost yet, and counting them would price a taken pile or
        a reserve packet (italian: picked up with the first biriba) as a loss.
        """
        rollout_bot = self.rollout_bot
        for _ in range(self.rollout_decisions):
            if deal.is_over:
                break
            agent_turn(deal, rollout_bot)
        result = deal.result()
        scores = result.team_scores
        if not deal.is_over:
            scores = tuple(total - part["hands"] for total, part in zip(scores, result.breakdown))
        team = deal.rules.team_of[seat]
        return scores[team] - max(s for t, s in enumerate(scores) if t != team)


#: The perfect bot's searches per decision: its deal is the true one, so more would only redraw greedy's
#: tie-breaks in the rollouts (150 pairs against hard: +175 a game with 2, +184 with 16, well within noise).
PERFECT_SAMPLES = 2


class PerfectBot(SearchBot):
    """The search bot given the true deal (every hand, the stock): for measurement only, never for players."""

    name = "perfect"

    def __init__(self, truth: Callable[[], Deal], seed: int | str | None = None, **options: object) -> None:
        options.setdefault("samples", PERFECT_SAMPLES)
        super().__init__(seed, **options)  # type: ignore[arg-type]
        self.truth = truth

    def worlds(self, view: PlayerView) -> Callable[[], Deal]:
        return self.truth().clone
