"""The greedy bot: a one-turn heuristic that plays like a sensible human.

It values an action by what it does at once, in points: a card moved from
the hand to the table counts twice its value (it stops being a penalty and
starts scoring), a meld's bonus counts when it is reached, a meld on its way
to a biriba counts a share of the bonus to come, a wild spent early costs
the flexibility it had, and emptying the hand counts what the reserve or the
closure is worth.  It takes the discard pile when the pile's cards meld at
once, closes when its team is not behind, and discards what is least useful
to itself and to the opponents.  Ties are broken by a seeded generator.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any, Final

from ..actions import Action
from ..cards import JOKER, KINDS, rank_of, suit_of
from ..melds import (
    Meld,
    RunMeld,
    SetMeld,
    WildMeld,
    add_options,
    adds_with,
    hand_keys,
    hand_wilds,
    meld_bonus,
    placed_melds,
)
from ..melds.memo import count_in
from ..rules import ClosureBy, ReserveAccess, Rules
from ..terms import Phase
from ..views import PlayerView
from .base import DrawMemory

#: Share of a biriba bonus a meld of this size is worth on its way there.
PROMISE: Final = {3: 0.15, 4: 0.25, 5: 0.4, 6: 0.6}
#: What an unspent wild is worth in hand, early in the deal.
WILD_IN_HAND: Final = 60
#: Worth of picking up the reserve: the -100 penalty avoided, 11 fresh cards.
RESERVE_WORTH: Final = 250
#: Average penalty of an unseen card in a hand.
CARD_GUESS: Final = 7
#: Worth of the first run or the first set, where closing needs both (option closure_run_and_set).
NEEDED_KIND: Final = 60
#: A meld or add as the bot weighs it: the index of the meld added to (-1: a new meld), the meld before
#: (``None``) and after, and the action's cards, slots and end.
Play = tuple[int, Meld | None, Meld, tuple[int, ...], tuple[int, ...], str | None]


class GreedyBot:
    name = "greedy"

    def __init__(self, seed: int | str | None = None, remember: bool = True) -> None:
        """``remember=False``: no memory of the draws faced (:class:`DrawMemory`; a search's rollouts and ranking)."""
        self.rng = random.Random(seed)
        self.draws = DrawMemory() if remember else None
        # by a meld's plain fields, which the garbage collector stops watching (see melds/classic.py)
        self._worths = _Memory()  # a meld's worth, under the same rules and trump
        self._fits = _Memory()  # whether a card could go onto a meld, under the same rules

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            if legal[0].kind == "take" and self.draws is not None:
                self.draws.forced_take(view)
            return legal[0]
        if view.phase == Phase.DRAW:
            return self._draw_or_take(view, legal)
        owed = self.owed_play(view, legal, self.draws)
        if owed is not None:
            return owed
        best: tuple[float, float, Action] | None = None
        allowed = {action: action for action in legal}  # to answer with the legal list's own object
        counts = view.hand_counts()
        prices = self._prices(view)
        for action, old, new in _options(view, counts, view.melds[view.team]):
            if action not in allowed:
                continue
            gain = prices.gain(old, new, action.cards, len(view.hand) - len(action.cards))
            key = (gain, self.rng.random(), allowed[action])
            if best is None or key[:2] > best[:2]:
                best = key
        if best is not None and best[0] > 0:
            return best[2]
        discards = [a for a in legal if a.kind == "discard"]
        return self._discard(view, discards) if discards else legal[0]

    def ranked(self, view: PlayerView, legal: Sequence[Action]) -> list[Action]:
        """The legal actions in the order this bot prefers them.

        Melds and adds that gain come first (most gain first), then the
        discards (least useful card first), then the melds that do not pay.
        The search bot tries the first few of this list.  The first is
        :meth:`choose`'s choice but for ties, which :meth:`choose` breaks at
        random and this by the legal order.
        """
        if view.phase == Phase.DRAW:
            first = self._draw_or_take(view, legal)
            return [first, *(a for a in legal if a is not first)]
        allowed = {action: action for action in legal}
        counts = view.hand_counts()
        gains: list[tuple[float, Action]] = []
        prices = self._prices(view)
        for action, old, new in _options(view, counts, view.melds[view.team]):
            if action in allowed:
                gains.append((prices.gain(old, new, action.cards, len(view.hand) - len(action.cards)), allowed[action]))
        gains.sort(key=lambda item: -item[0])
        discards = sorted(self._discard_costs(view, [a for a in legal if a.kind == "discard"]))
        ordered = [a for gain, a in gains if gain > 0] + [a for _cost, _tie, a in discards]
        ordered += [a for gain, a in gains if gain <= 0]
        seen = set(ordered)
        return ordered + [a for a in legal if a not in seen]

    def owed_play(self, view: PlayerView, legal: Sequence[Action], draws: DrawMemory | None) -> Action | None:
        """The meld or add (this bot's favourite) that a forced take met again owes, if ``draws`` says one is owed."""
        owed = draws.owed_plays(view, legal) if draws is not None else []
        return next(a for a in self.ranked(view, legal) if a in owed) if owed else None

    # --------------------------------------------------------------- draw
    def _draw_or_take(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        kinds = {a.kind: a for a in legal}
        if "take" in kinds:
            gain = self._take_gain(view)
            if gain > (0 if view.stock_count == 0 else 15) and not self.loops(view):
                return kinds["take"]
        return kinds.get("draw") or kinds.get("pass") or legal[0]  # italian's empty stock may leave only the take

    def loops(self, view: PlayerView) -> bool:
        """Would taking the pile now go round a loop: a draw already faced, the stock unchanged since?"""
        return self.draws is not None and self.draws.repeats(view)

    def pile_plays(self, view: PlayerView) -> bool:
        """Would the pile's cards make a meld or an add this turn (the greedy plan gains from them)?"""
        return self._take_gain(view) > 0

    def _take_gain(self, view: PlayerView) -> float:
        counts = view.hand_counts()
        melds = view.melds[view.team]
        prices = self._prices(view)
        before = _plan(prices, counts, melds)
        with_pile = counts[:]
        for c in view.discard:
            with_pile[c] += 1
        after = _plan(prices, with_pile, melds)
        values = view.rules.values
        return after - before - 0.3 * sum(values[c] for c in view.discard)

    # ----------------------------------------------------------- melding
    def _prices(self, view: PlayerView) -> _Prices:
        """The gains of melds and adds from this view, its remembered meld worths kept if its rules are the same."""
        return _Prices(view, self._worths.under((view.rules, view.trump)))

    # ---------------------------------------------------------- discarding
    def _discard(self, view: PlayerView, discards: Sequence[Action]) -> Action:
        return min(self._discard_costs(view, discards))[2]

    def _discard_costs(self, view: PlayerView, discards: Sequence[Action]) -> list[tuple[float, float, Action]]:
        """Each discard with what losing its card costs (and a seeded tie-break)."""
        counts = view.hand_counts()
        rules = view.rules
        opponents = [m for t, team in enumerate(view.melds) if t != view.team for m in team]
        ours = view.melds[view.team]
        late = view.stock_count < 10
        fits = self._fits.under((rules,))

        def cost(action: Action) -> tuple[float, float, Action]:
            card = action.cards[0]
            keep = _usefulness(card, counts, rules)
            if any(_fits_onto(fits, m, card, rules) for m in ours):
                keep += 30
            danger = 45 if any(_fits_onto(fits, m, card, rules) for m in opponents) else 0
            dump = rules.values[card] * (0.8 if late else 0.2)
            return keep + danger - dump, self.rng.random(), action

        return [cost(action) for action in discards]


class _Memory:
    """What a bot remembers from decision to decision, forgotten when what it was worked out under changes."""

    __slots__ = ("found", "of")

    def __init__(self) -> None:
        self.found: dict[Any, Any] = {}
        self.of: tuple[Any, ...] = ()

    def under(self, of: tuple[Any, ...]) -> dict[Any, Any]:
        """The memory for this decision, worked out under ``of`` (rules, trump...), and bounded in size."""
        if self.of != of or len(self.found) > 50_000:
            self.of = of
            self.found = {}
        return self.found


def _fits_onto(fits: dict[Any, Any], meld: Meld, card: int, rules: Rules) -> bool:
    """Could this one card go onto ``meld``?  Remembered in ``fits``: melds recur from decision to decision."""
    fit: bool | None = fits.get((meld, card))
    if fit is None:
        single = [0] * KINDS
        single[card] = 1
        fit = fits[tuple(meld), card] = next(add_options(meld, single, rules), None) is not None
    return fit


class _Prices:
    """What melds and adds gain, from one view: what the view fixes is worked out once, for its many options."""

    __slots__ = ("biriba_size", "emptying", "table_kinds", "values", "view", "wild_share", "worths")

    def __init__(self, view: PlayerView, worths: dict[tuple[Any, ...], float]) -> None:
        """``worths``: the bot's remembered meld worths, under the view's rules and trump."""
        rules = view.rules
        self.view = view
        self.values = rules.values
        self.biriba_size = rules.biriba_size
        self.wild_share = min(1.0, view.stock_count / 20)
        self.worths = worths
        # the kinds of meld on the team's table, where closing needs a run and a set (option closure_run_and_set)
        self.table_kinds = {m.kind for m in view.melds[view.team]} if rules.closure_run_and_set else None
        self.emptying: float | None = None

    def gain(self, old: Meld | None, new: Meld, cards: Sequence[int], left: int) -> float:
        """What laying ``cards`` to turn ``old`` (``None``: a new meld) into ``new`` gains, ``left`` cards left."""
        values = self.values
        gain: float = 2.0 * sum(map(values.__getitem__, cards))
        gain += self.worth(new)
        if old is not None:
            gain -= self.worth(old)
        wilds = len(new.wilds) - (len(old.wilds) if old is not None else 0)
        if wilds > 0 and new.size < self.biriba_size:
            gain -= wilds * WILD_IN_HAND * self.wild_share
        if left <= 1:
            if self.emptying is None:
                self.emptying = _emptying_worth(self.view)
            gain += self.emptying
        if old is None and self.table_kinds is not None and new.kind not in self.table_kinds:
            gain += NEEDED_KIND
        return gain

    def worth(self, meld: Meld) -> float:
        """A meld's bonus, and its share of the biriba bonus to come (remembered: melds recur)."""
        worth = self.worths.get(meld)
        if worth is None:
            rules, trump = self.view.rules, self.view.trump
            worth = self.worths[tuple(meld)] = meld_bonus(meld, rules, trump) + _promise(meld, rules, trump)
        return worth


def _plan(prices: _Prices, counts: list[int], melds: Sequence[Meld], steps: int = 5) -> float:
    """Points of the best few melds in a row from ``counts``, each one playable by R17/R18."""
    counts = counts[:]
    keys = hand_keys(counts)  # kept as the plan's melds take cards, as a deal keeps its hands'
    melds = list(melds)
    total = 0.0
    view = prices.view
    rules = view.rules
    size_of_biriba = rules.biriba_size
    for _ in range(steps):
        best: tuple[float, int, Meld, tuple[int, ...]] | None = None
        size = sum(counts)
        biribas = sum(m.size >= size_of_biriba for m in melds)
        for index, old, new, cards, _slots, _end in _plays(rules, counts, melds, keys):
            left = size - len(cards)
            after = biribas + (new.size >= size_of_biriba and (old is None or old.size < size_of_biriba))
            if left < 2 and not _may_leave(view, left, after):
                continue
            gain = prices.gain(old, new, cards, left)
            if best is None or gain > best[0]:
                best = (gain, index, new, cards)
        if best is None or best[0] <= 0:
            break
        gain, index, new, cards = best
        total += gain
        for c in cards:
            counts[c] -= 1
            count_in(keys, c, -1)
        if index < 0:
            melds.append(new)
        else:
            melds[index] = new
    return total


def _emptying_worth(view: PlayerView) -> float:
    """What the reserve pickup or the closure that follows is worth."""
    if view.reserves[view.team] is None:
        return RESERVE_WORTH
    ours, theirs = _estimates(view)
    if ours + view.rules.going_out_bonus >= theirs or view.stock_count < 8:
        return 150.0
    return -150.0


def _estimates(view: PlayerView) -> tuple[float, float]:
    """Rough deal scores of the two sides as they stand."""
    rules = view.rules
    values = rules.values
    scores = []
    for team, seats in enumerate(rules.teams):
        points: float = sum(
            sum(values[c] for c in m.cards()) + meld_bonus(m, rules, view.trump) for m in view.melds[team]
        )
        for seat in seats:
            if seat == view.seat:
                points -= sum(values[c] for c in view.hand)
            else:
                points -= CARD_GUESS * view.hand_sizes[seat]
        if view.reserves[team] is None:
            points -= rules.no_reserve_penalty
        scores.append(points)
    mine = scores[view.team]
    return mine, max(s for t, s in enumerate(scores) if t != view.team)


def _may_leave(view: PlayerView, left: int, biribas: int) -> bool:
    """May a meld leave 0 or 1 card: a reserve pickup to come (R18, R19) or a closure (R22 and its options)?"""
    rules = view.rules
    reserve = view.reserves[view.team]
    if reserve is not None:
        if rules.closure_by == ClosureBy.RESERVE_TAKER and reserve.seat != view.seat:
            return False
        if view.took_with_one and not rules.single_take_closure:
            return False
        return (left == 1 or rules.meld_out) and biribas >= rules.closure_biribas
    return rules.reserve_access == ReserveAccess.EMPTY_HAND and biribas >= rules.reserve_biribas


def _options(view: PlayerView, counts: list[int], melds: Sequence[Meld]) -> Iterator[tuple[Action, Meld | None, Meld]]:
    """Every meld and add these cards allow, as the action, with the meld before and after."""
    new = tuple.__new__  # the named tuple without its Python-level __new__: this runs for every option
    for index, old, meld, cards, slots, end in _plays(view.rules, counts, melds):
        yield new(Action, ("meld" if index < 0 else "add", cards, slots, index, end)), old, meld


def _plays(rules: Rules, counts: list[int], melds: Sequence[Meld], keys: list[int] | None = None) -> Iterator[Play]:
    """Every meld and add these cards allow onto ``melds``, in the legal list's order (see :data:`Play`).

    ``keys``: :func:`~biriba.melds.hand_keys` of ``counts``, if the caller keeps them.
    """
    wilds = hand_wilds(counts, rules)
    if keys is None:
        keys = hand_keys(counts)
    for meld, (cards, slots) in placed_melds(counts, rules, wilds, keys):
        yield -1, None, meld, cards, slots, None
    for index, old in enumerate(melds):
        for option in adds_with(old, counts, rules, wilds, keys):
            yield index, old, option.meld, option.cards, option.slots, option.end


def _promise(meld: Meld, rules: Rules, trump: int) -> float:
    """A share of the biriba bonus still to come for a meld below biriba size."""
    share = PROMISE.get(meld.size + 7 - rules.biriba_size, 0.0)
    if not share:
        return 0.0
    return share * meld_bonus(_grown(meld, rules.biriba_size), rules, trump)


def _grown(meld: Meld, size: int) -> Meld:
    """The same kind of meld at ``size`` cards, to price the bonus it is heading for."""
    if isinstance(meld, RunMeld):
        lo = min(meld.lo, 15 - size)
        return RunMeld(meld.suit, lo, lo + size - 1, meld.wilds)
    if isinstance(meld, SetMeld):
        return SetMeld(meld.rank, meld.naturals + (meld.naturals[0],) * (size - meld.size), meld.wilds)
    return WildMeld(meld.wilds + (meld.wilds[0],) * (size - meld.size))


def _usefulness(card: int, counts: list[int], rules: Rules) -> float:
    """How much a card helps its own hand: wilds, pairs, run neighbours."""
    if card in rules.wild_kinds:
        return 100.0
    rank, suit = rank_of(card), suit_of(card)
    worth = 22.0 * (sum(counts[rank * 4 : rank * 4 + 4]) - 1) if rules.sets else 0.0
    for step, weight in ((1, 14.0), (2, 7.0)):
        for r in (rank - step, rank + step):
            r %= 13
            if counts[r * 4 + suit]:
                worth += weight
    return worth + (10.0 if counts[JOKER] else 0.0)
