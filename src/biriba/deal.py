"""The deal: one hand of Biriba from the deal to the closure, as a state machine.

:class:`Deal` holds the whole truth of a deal in progress (its fields are
declared once, in :mod:`biriba.state`) and its methods are the rules of play
(R3..R23a, R30): :meth:`Deal.legal_actions` lists what the mover may do,
:meth:`Deal.check` says why an action is refused (naming the rule),
:meth:`Deal.apply` plays one and returns what happened.  What a seat may see
is decided in one place, :meth:`Deal.view_for`.

Inside, hands are count arrays indexed by card code and the stock and the
reserve packets are shared immutable tuples, so :meth:`Deal.clone` copies
only a few small lists.

>>> deal = Deal.shuffled(seed=1)
>>> deal.to_move, deal.phase, deal.stock_count
(1, <Phase.DRAW: 'draw'>, 41)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields as dataclass_fields
from itertools import compress
from threading import Lock
from typing import Any, Final

from . import caches
from .actions import DISCARDS, DRAW, PASS, TAKE, Action
from .cards import JOKER, KINDS, NAMES, card_name, cards_of, counts_of, deck_counts, full_deck, rank_of, suit_of
from .dealing import deal_order
from .errors import IllegalActionError, InvalidPositionError
from .melds import (
    Meld,
    RunMeld,
    SetMeld,
    WildMeld,
    add_options,
    adds_under,
    hand_keys,
    hand_wilds,
    is_biriba,
    listed_add,
    listed_meld,
    meld_options,
    meld_placements,
    resolve_add,
    resolve_meld,
)
from .melds.classic import ADD_TABLE, MELD_TABLE, classic_add_numbers, classic_meld_numbers
from .melds.memo import NATIVE, count_in
from .opening import Choices
from .rules import CLASSIC, ClosureBy, ReserveAccess, Rules, SetBiribas, StockOut, TakeRule, Trump, WildLimit
from .scoring import DealResult, score_deal
from .state import DealState, copy_deal
from .terms import Ending, Outcome, Phase, Pickup, Reserve
from .views import PlayerView

#: The phases every decision reads, looked up once (an enum member read through its class costs more).
_DRAW: Final = Phase.DRAW
_PLAY: Final = Phase.PLAY
_tuple_new: Final = tuple.__new__
#: Rule options and a card the hot paths compare with, read once (compiled, a name from an interpreted
#: module is a dict lookup at every read; an option is one member of its enumeration, so ``is`` tells).
_TOP_CARD: Final = TakeRule.TOP_CARD
_EMPTY_HAND: Final = ReserveAccess.EMPTY_HAND
_FIRST_BIRIBA: Final = ReserveAccess.FIRST_BIRIBA
_STOCK_END: Final = StockOut.END
_TAKE_IF_ABLE: Final = StockOut.TAKE_IF_ABLE
_JOKER: Final = JOKER
_DRAW_ACTION: Final = DRAW
_TAKE_ACTION: Final = TAKE
_PASS_ACTION: Final = PASS
_DISCARDS: Final = DISCARDS
_OUTCOME: Final = Outcome


#: The deck that makes a :class:`Deal` with no fields set, for :meth:`Deal.clone` and :meth:`Deal.from_fields` to fill.
_UNDEALT: Final[list[int]] = []


class Deal(DealState):
    """The full state of one deal; its methods are the rules."""

    __slots__ = ()

    def __init__(
        self, deck: Sequence[int], dealer: int = 0, rules: Rules = CLASSIC, max_turns: int | None = None
    ) -> None:
        """Deal ``deck`` (listed top first, after shuffle and cut) with ``dealer`` dealing (R4)."""
        if deck is _UNDEALT:
            return  # fields to be filled by the caller: a compiled class cannot be made without its __init__
        if sorted(deck) != full_deck(rules.packs, rules.jokers):
            raise InvalidPositionError(
                f"a deck has {rules.deck_size} cards: {rules.packs} packs and {rules.jokers} jokers (R2)"
            )
        if not 0 <= dealer < rules.seats:
            raise InvalidPositionError(f"dealer must be a seat 0..{rules.seats - 1}")
        layout = deal_order(rules, deck, dealer)
        hands = [counts_of(h) for h in layout.hands]
        super().__init__(
            rules=rules,
            dealer=dealer,
            to_move=(dealer + 1) % rules.seats,
            hands=hands,
            hand_keys=[hand_keys(h) for h in hands],
            sizes=[sum(h) for h in hands],
            biribas=[0] * len(rules.teams),
            discard=[layout.upcard],
            stock=layout.stock,
            packets=tuple(layout.packets),
            deck=tuple(deck),
            max_turns=max_turns,
            cut=layout.cut,
            cut_wilds=layout.cut_wilds,
            trump=suit_of(layout.upcard) if rules.trump == Trump.UPCARD and layout.upcard != JOKER else -1,
        )
        self.fill_defaults()
        for card in layout.cut_wilds:  # the table saw the dealer take them
            self.known[dealer][card] += 1

    @classmethod
    def from_fields(cls, rules: Rules, **fields: Any) -> Deal:
        """A deal in progress from the fields of :class:`~biriba.state.DealState` (hands as count arrays).

        Fields left out take their defaults; the hand sizes and biriba counts
        are derived.  Raises :class:`InvalidPositionError` if cards are lost or
        duplicated (R23a).
        """
        deal = cls(_UNDEALT)
        DealState.__init__(deal, rules=rules, **fields)
        deal.fill_defaults()
        deal.sizes = [sum(h) for h in deal.hands]
        deal.hand_keys = [hand_keys(h) for h in deal.hands]
        deal.biribas = [sum(is_biriba(m, rules) for m in team) for team in deal.melds]
        deal.assert_consistent()
        return deal

    @classmethod
    def shuffled(
        cls,
        seed: int | str | random.Random | None = None,
        dealer: int = 0,
        rules: Rules = CLASSIC,
        max_turns: int | None = None,
    ) -> Deal:
        """A deal of a deck shuffled by ``seed`` (an int, a string or a ``random.Random``)."""
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        deck = full_deck(rules.packs, rules.jokers)
        rng.shuffle(deck)
        return cls(deck, dealer, rules, max_turns)

    def clone(self) -> Deal:
        """An independent copy, cheap enough for search (immutable parts are shared)."""
        copy: Deal = copy_deal(self, Deal(_UNDEALT))
        return copy

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and ``copy.deepcopy`` go through the fields: a compiled class cannot be made without its __init__."""
        return _rebuild, (type(self), {name: getattr(self, name) for name in _FIELDS})

    # ------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        return self.ended_by is not None

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    @property
    def stock_cards(self) -> tuple[int, ...]:
        """The stock, top first (the truth: never show it to a player)."""
        return self.stock

    @property
    def packets_left(self) -> tuple[tuple[int, ...], ...]:
        """Reserve packets not yet taken, top packet first."""
        return self.packets

    def team_of(self, seat: int) -> int:
        return self.rules.team_of[seat]

    def hand(self, seat: int) -> list[int]:
        """The cards of ``seat``'s hand, sorted (the truth: for that seat only)."""
        return cards_of(self.hands[seat])

    def legal_actions(self) -> LegalActions:
        """Every distinct legal action of the mover: a cheap, re-iterable view.

        >>> deal = Deal.shuffled(seed=1)
        >>> [str(a) for a in deal.legal_actions()]
        ['draw', 'take']
        >>> deal.legal_actions().count()
        2
        """
        return LegalActions(self)

    def view_for(self, seat: int | None) -> PlayerView:
        """What ``seat`` may see, and nothing more (hands of others as counts...); ``None``: a spectator."""
        return PlayerView.of(self, seat)

    def result(self) -> DealResult:
        """The deal's score per team with its breakdown (R24..R28), as the deal stands."""
        return score_deal(self)

    # -------------------------------------------------------- generation
    def _generate(self) -> list[Action]:
        if self.phase == _PLAY:
            return self._play_actions()
        if self.phase == _DRAW:
            return self._draw_actions()
        return []

    def _draw_actions(self) -> list[Action]:
        if self.stock:
            return [_DRAW_ACTION, _TAKE_ACTION] if self.discard and self._take_ok() else [_DRAW_ACTION]
        if self.discard and self._take_ok():  # R23: the stock is empty
            return [_TAKE_ACTION] if self.rules.stock_out is _TAKE_IF_ABLE else [_TAKE_ACTION, _PASS_ACTION]
        return [_PASS_ACTION]

    def _play_actions(self, opening_check: bool = True) -> list[Action]:
        """The mover's legal melds, adds and discards, in that order (built whole: the hottest path of self-play)."""
        seat = self.to_move
        opening = opening_check and self._opening_due()
        most = self.sizes[seat] - 2 if self.took_single < 0 and not opening else -1  # fewer cards need no check
        plays: list[Action] = []
        for action in self._plays() if not opening or self._opening_open() else ():
            if len(action[1]) <= most or self._play_ok(action, opening):
                plays.append(action)
        plays += self._discards(opening)
        return plays

    def _plays(self, every_wild: bool = False, holding: int = -1) -> Iterator[Action]:
        """Every meld and add the mover's cards make, before :meth:`_play_ok` judges what each leaves.

        ``every_wild``: as if the team's wild-card meld were finished (option wild_melds), as it may be this turn.
        ``holding``: only those made of the natural cards that can share a meld with this natural card kind
        (its suit's, its rank's), no wild: a few of the plays, found quickly in any hand.
        """
        seat = self.to_move
        counts = self.hands[seat]
        rules = self.rules
        team = rules.team_of[seat]
        wild_avail = hand_wilds(counts, rules, every_wild or self._wilds_ok(team))
        keys = self.hand_keys[seat]  # the memo keys of the one-wild enumerators
        if holding >= 0:
            counts = _sharing_a_meld(counts, holding, rules)
            wild_avail, keys = [], hand_keys(counts)
        new, action = _tuple_new, Action  # read once: compiled, a module name is a dict lookup per read
        if rules.simple_wilds:  # the one-wild melds and adds by their numbers, each action made once
            made = _MELD_ACTIONS
            for number in classic_meld_numbers(counts, rules, wild_avail, keys):
                if number >= len(made):
                    _make_meld_actions()
                yield made[number]
            listed = ADD_TABLE.values
            for index, meld in enumerate(self.melds[team]):
                numbers = classic_add_numbers(meld, counts, wild_avail, keys)
                if not numbers:
                    continue
                if index >= len(_ADD_ACTIONS):
                    _make_add_places(index)
                made_adds = _ADD_ACTIONS[index]
                for number in numbers:
                    found = made_adds.get(number)
                    if found is None:
                        option = listed[number]  # cards, slots, end, fields
                        found = made_adds[number] = new(action, ("add", option[0], option[1], index, option[2]))
                    yield found
            return
        for cards, slots in meld_placements(counts, rules, wild_avail, keys):
            yield new(action, ("meld", cards, slots, -1, None))
        adds = adds_under(rules)
        for index, meld in enumerate(self.melds[team]):
            for option in adds(meld, counts, wild_avail, keys):
                yield new(action, ("add", option[0], option[1], index, option[2]))

    def _discards(self, opening: bool = True) -> list[Action]:
        """The mover's legal discards (R16, R17, R19, R22; the opening minimum unless ``opening`` is false)."""
        seat = self.to_move
        if self.sizes[seat] < 2 and not self._may_empty_by_discard():
            return []
        if opening and 0 < self.opening_value < self._opening_minimum(self.rules.team_of[seat]):
            return []  # the first melding is not yet worth its minimum (option opening_minimums)
        counts = self.hands[seat]
        if NATIVE:  # compiled, the ranks held are found in the hand's keys, quicker than compress
            discards = []
            keys = self.hand_keys[seat]
            for rank in range(13):
                key = keys[4 + rank]
                if key:
                    for suit in range(4):
                        if (key >> (4 * suit)) & 15:
                            discards.append(_DISCARDS[4 * rank + suit])
            if counts[_JOKER]:
                discards.append(_DISCARDS[_JOKER])
        else:
            discards = list(compress(_DISCARDS, counts))
        took = self.took_single
        if took >= 0 and counts[took]:
            discards.remove(_DISCARDS[took])  # R16
        return discards

    def _play_ok(self, action: Action, opening: bool) -> bool:
        """May the mover play this meld or add: the cards it leaves (R17, R18, R21, R30), the opening minimum?"""
        return self._rest_ok(action) and (not opening or self._opening_ok(action))

    def _wilds_ok(self, team: int) -> bool:
        """Seed 002's three-handed game: no wilds elsewhere while a wild-card meld is unfinished."""
        if not self.rules.wild_melds:
            return True
        size = self.rules.biriba_size
        return not any(isinstance(m, WildMeld) and m.size < size for m in self.melds[team])

    def _take_ok(self) -> bool:
        """May the mover take the pile: R16/R30, and option ``take_rule``."""
        seat = self.to_move
        if self.rules.take_rule is _TOP_CARD and not self._top_card_fits(seat):
            return False
        if len(self.discard) != 1:
            return True
        top = self.discard[0]
        if self.sizes[seat] > self.hands[seat][top]:
            return True  # a card other than the taken one stays discardable
        trial = self.clone()
        trial._do_take(seat)
        return trial._has_play_action()

    def _top_card_fits(self, seat: int) -> bool:
        """Seed 004: the top card extends a team meld or makes a meld with two naturals of the hand.

        It must be usable at once: after the take, some legal meld or add of this
        turn holds it (rules D12), so that a take always leads to play.
        """
        rules = self.rules
        top = self.discard[-1]
        team = rules.team_of[seat]
        if not self._meld_of_three(seat, top):
            alone = [0] * KINDS
            alone[top] = 1
            if not any(next(add_options(m, alone, rules), None) for m in self.melds[team]):
                return False
        trial = self.clone()
        trial._do_take(seat)
        opening = trial._opening_due()
        # First the plays of top with naturals only: under a wild limit of more than one a meld, a hand that
        # took a long pile makes millions of melds (soak seed million, deal 733970: 27 s and 870 MB).
        quick = not rules.simple_wilds and top not in rules.wild_kinds
        if quick and any(top in a.cards and trial._play_ok(a, opening) for a in trial._plays(holding=top)):
            return True
        return any(top in a.cards and trial._play_ok(a, opening) for a in trial._plays())

    def _meld_of_three(self, seat: int, top: int) -> bool:
        """Does ``top`` make a meld with two natural cards of the hand (seed 004's take rule)?

        A two of the run's suit on rank 2 is natural there (R9); a wild top
        card may be the meld's one wild.
        """
        rules = self.rules
        wild_kinds = rules.wild_kinds
        top_wild = top in wild_kinds
        rank, suit = rank_of(top), suit_of(top)
        counts = [0] * KINDS
        for code, n in enumerate(self.hands[seat]):
            if n and (top_wild or rank_of(code) == rank or (code != JOKER and suit_of(code) == suit)):
                counts[code] = n
        counts[top] += 1
        for meld in meld_options(counts, rules):
            if meld.size == 3 and top in meld.cards():
                wilds = [c for _, c in meld.wilds] if isinstance(meld, RunMeld) else list(meld.wilds)
                if not wilds or (top_wild and wilds == [top]):
                    return True
        return False

    def _has_play_action(self) -> bool:
        """Has the mover any legal play?  A discard is the quickest to find, so it is looked for first."""
        if self._discards():
            return True
        opening = self._opening_due()
        return any(self._play_ok(action, opening) for action in self._plays())

    def _can_close(self) -> bool:
        """May the mover go out (R22 and its options)?

        A biriba (or more), the reserve taken (perhaps by this very player),
        not on the turn of a one-card take with one card in hand, perhaps a
        run and a set on the table.
        """
        rules = self.rules
        seat = self.to_move
        team = rules.team_of[seat]
        reserve = self.reserves[team]
        if reserve is None or self.biribas[team] < rules.closure_biribas:
            return False
        if rules.closure_by == ClosureBy.RESERVE_TAKER and reserve.seat != seat:
            return False
        if self.took_with_one and not rules.single_take_closure:
            return False
        if rules.closure_run_and_set:
            kinds = {m.kind for m in self.melds[team]}
            return "run" in kinds and "set" in kinds
        return True

    def _can_pick_up(self, team: int) -> bool:
        """R18/R19: may a hand that empties take the team's reserve?"""
        rules = self.rules
        return (
            rules.reserve_access is _EMPTY_HAND
            and self.reserves[team] is None
            and self.biribas[team] >= rules.reserve_biribas
            and len(self.packets) > 0
        )

    def _may_empty_by_discard(self) -> bool:
        """May the mover's last card go to the pile: a closure (R22) or a reserve pickup (R19)?"""
        return self._can_close() or self._can_pick_up(self.rules.team_of[self.to_move])

    def _may_empty_by_meld(self) -> bool:
        """May a meld or add empty the hand: a reserve pickup (R18), or going out (option meld_out)?"""
        return self._can_pick_up(self.rules.team_of[self.to_move]) or (self.rules.meld_out and self._can_close())

    def _rest_ok(self, action: Action) -> bool:
        """R17/R18/R21/R30: may this meld or add leave the mover with the cards it leaves?"""
        seat = self.to_move
        k = self.sizes[seat] - len(action.cards)
        took = self.took_single
        if k >= 2 and (took < 0 or self.hands[seat][took] - action.cards.count(took) < k):
            return True  # a card that may be discarded stays
        trial = self.clone()  # judge on the table as the action leaves it
        trial._place(action)
        return trial._may_stop_melding()

    def _may_stop_melding(self) -> bool:
        """R17/R18/R30: may the mover's last meld or add have left the hand as it is now?"""
        seat = self.to_move
        k, took = self.sizes[seat], self.took_single
        if k == 0:
            return self._may_empty_by_meld()
        if k == 1:  # R17(a): the last card must be a legal final discard
            return not (took >= 0 and self.hands[seat][took]) and self._may_empty_by_discard()
        return self._has_play_action()  # R30: every card left is barred by R16

    def _opening_minimum(self, team: int) -> int:
        """The minimum the team's first melding must reach, while it is being made (vulnerability)."""
        if len(self.melds[team]) > self.turn_melds:
            return 0  # the team opened on an earlier turn
        return self.rules.opening_minimum(self.match_scores[team])

    def _opening_due(self) -> bool:
        """Must the mover's melding this turn reach an opening minimum (option opening_minimums)?"""
        return self._opening_minimum(self.rules.team_of[self.to_move]) > 0

    def _opening_open(self) -> bool:
        """Can this turn's melding still reach the opening minimum? If not, no meld or add is legal."""
        need = self._opening_minimum(self.rules.team_of[self.to_move])
        return self.opening_value >= need or self._opening_reachable(need)

    def _opening_ok(self, action: Action) -> bool:
        """While opening, a meld must reach the minimum, or leave a way to reach it this turn.

        Most melds leave a way this position's plays show: its own choice,
        or one of them without the meld's cards, played after the meld
        reaches the minimum, with no search of the meld's own.
        """
        trial = self.clone()
        trial._place(action)
        need = self._opening_minimum(self.rules.team_of[self.to_move])
        if trial.opening_value >= need:
            return True
        choices, choice = self._opening_choices(need)
        if choice is None:
            return False
        if trial._makes(choice):
            return True
        hand = trial.hands[self.to_move]
        chosen = choices.find(hand, need - trial.opening_value, trial._settles(choices.plays))
        if chosen is not None and trial._makes([choices.plays[index] for index in chosen]):
            return True
        return trial._opening_reachable(need)

    def _opening_reachable(self, need: int) -> bool:
        """Can more melds and adds this turn bring the first melding to ``need`` points?

        No, where no choice of the plays listed now could lay cards worth
        it (:meth:`_opening_choice`); yes, where the choice found can be made
        one play after another; else a search over this turn's plays,
        richest first.  Remembered by position.
        """
        key = self._opening_key(need)
        known = _REACHABLE.get(key)
        if known is None:
            choice = self._opening_choice(need)
            known = choice is not None and (self._makes(choice) or self._opening_searched(need))
            _remember(_REACHABLE, key, known)
        return known

    def _opening_key(self, need: int) -> tuple[object, ...]:
        """What the rest of an opening turn depends on: the memo key of its searches."""
        seat = self.to_move
        team = self.rules.team_of[seat]
        hand, melds, reserve = tuple(self.hands[seat]), tuple(self.melds[team]), self.reserves[team]
        return seat, hand, melds, self.opening_value, need, self.took_single, self.took_with_one, reserve, self.rules

    def _opening_choice(self, need: int) -> list[Action] | None:
        """Plays listed now, sharing no card, that lay the rest of ``need`` (:mod:`biriba.opening`).

        None if there are none, and then no order of plays can reach
        ``need`` this turn.
        """
        return self._opening_choices(need)[1]

    def _opening_choices(self, need: int) -> tuple[Choices, list[Action] | None]:
        """This position's plays for :mod:`biriba.opening`, and its choice; remembered by position."""
        key = self._opening_key(need)
        known = _CHOICES.get(key)  # one lookup: a bot's thread may clear the memory meanwhile
        if known is None:
            plays = list(self._plays(every_wild=True))  # the wilds a wild-card meld holds back now may come free
            adds_per_meld = 1 if self.rules.wild_limit is WildLimit.ONE else 0  # D10: one add moves at most one wild
            choices = Choices(plays, self.rules.values, adds_per_meld)
            chosen = choices.find(self.hands[self.to_move], need - self.opening_value, self._settles(plays))
            known = choices, None if chosen is None else [plays[index] for index in chosen]
            _remember(_CHOICES, key, known)
        return known

    def _settles(self, plays: Sequence[Action]) -> Callable[[list[int]], bool]:
        """Does a choice of ``plays`` (by index) make a table on which the hand may end as it would?"""

        def settles(chosen: list[int]) -> bool:
            trial = self.clone()
            try:
                for index in chosen:
                    trial._place(plays[index])
            except IllegalActionError:  # two adds that clash on one meld: no table to judge, so not ruled out
                return True
            return trial._may_stop_melding()

        return settles

    def _opening_searched(self, need: int) -> bool:
        """Does some order of this turn's plays, richest first, bring the first melding to ``need``?"""
        values = self.rules.values
        seat = self.to_move
        plays = [a for a in self._play_actions(opening_check=False) if a.kind != "discard"]
        for action in sorted(plays, key=lambda a: -sum(values[c] for c in a.cards)):
            trial = self.clone()
            trial._place(action)
            if trial.opening_value >= need or (trial.sizes[seat] and trial._opening_reachable(need)):
                return True
        return False

    def _makes(self, plays: list[Action]) -> bool:
        """Are these plays, one after another, each legal when made (the opening minimum aside)?"""
        trial = self.clone()
        for action in plays:
            try:
                trial._verify(action, opening=False)
            except IllegalActionError:
                return False
            trial._place(action)
        return True

    # ------------------------------------------------------------ checking
    def check(self, action: Action) -> None:
        """Raise :class:`IllegalActionError`, naming the rule, unless ``action`` is legal now."""
        self._verify(action)

    def is_legal(self, action: Action) -> bool:
        try:
            self._verify(action)
        except IllegalActionError:
            return False
        return True

    def parse_action(self, text: str) -> Action:
        """Read an action typed in the notation and make it canonical (R10/R13 defaults).

        Raises :class:`~biriba.errors.NotationError` if malformed and
        :class:`IllegalActionError` if no meld fits.  Cards the mover does not
        hold are refused first (R15), before anything about the meld they would
        make; the rest of what makes the action legal now is :meth:`check`'s.
        """
        action = Action.parse(text)
        self._check_turn(action)
        return self._resolve(action)[0]

    def displaced_to(self, action: Action) -> int | None:
        """The slot the wild this add displaces takes (R13), or None if it displaces none.

        The run's end the add names (``wild=low``/``high``) in cards: what a
        player must see to choose between two ends.
        """
        if action.kind != "add" or action.end is None:
            return None
        meld = self._resolve(action)[1]
        assert meld is not None
        slots = meld.slots()
        slot = slots[0] if action.end == "low" else slots[-1]
        return slot if slot >= 0 else None

    def _resolve(self, action: Action) -> tuple[Action, Meld | None]:
        """The canonical form of a meld or add and the meld it leaves on the table (R7..R14)."""
        kind = action.kind
        if kind == "meld":
            meld = resolve_meld(action.cards, action.slots, self.rules)
            return Action("meld", meld.cards(), meld.slots()), meld
        if kind != "add":
            return action, None
        melds = self.melds[self.rules.team_of[self.to_move]]
        if not 0 <= action.meld < len(melds):
            if not melds:
                raise IllegalActionError("R12", "add_no_melds", number=action.meld + 1)
            raise IllegalActionError("R12", "add_no_such_meld", number=action.meld + 1, count=len(melds))
        option = resolve_add(melds[action.meld], action.cards, action.slots, action.end, self.rules)
        return Action("add", option.cards, option.slots, action.meld, option.end), option.meld

    def _verify(self, action: Action, opening: bool = True) -> tuple[Action, Meld | None]:
        """Check ``action`` (the opening minimum unless ``opening`` is false); return its canonical form and meld."""
        self._check_turn(action)
        kind = action.kind
        team = self.rules.team_of[self.to_move]
        if kind in ("draw", "take", "pass"):
            self._check_draw(kind)
            return action, None
        if kind == "discard":
            self._check_discard(action.cards[0], team)
            return action, None
        canonical, meld = self._resolve(action)
        assert meld is not None
        if not self._wilds_ok(team) and _places_a_wild(canonical, meld, self.rules):
            raise IllegalActionError("wild_melds", "wild_meld_first")
        if not self._rest_ok(canonical):
            self._refuse_rest(canonical)
        minimum = self._opening_minimum(team) if opening else 0
        if minimum and not self._opening_ok(canonical):
            placed = self._placed_otherwise(action, canonical)
            if placed is not None:
                raise IllegalActionError(
                    "opening_minimums", "opening_unreachable_placed", minimum=minimum, action=str(placed)
                )
            raise IllegalActionError("opening_minimums", "opening_unreachable", minimum=minimum)
        return canonical, meld

    def _placed_otherwise(self, action: Action, canonical: Action) -> Action | None:
        """A legal meld or add of the same cards with the wilds placed otherwise (D37).

        A wild's place can decide an opening minimum: R10's default, the
        high end, may miss what the low end reaches (an ace joins there), so
        the refusal names the place that reaches it.
        """
        shape = (action.kind, action.meld, sorted(action.cards))
        for other in self.legal_actions():
            if other != canonical and (other.kind, other.meld, sorted(other.cards)) == shape:
                return other
        return None

    def _check_turn(self, action: Action) -> None:
        """What comes before the rules of melds: the deal goes on, it is the time to play cards, and they are held."""
        if self.ended_by is not None:
            raise IllegalActionError("R22" if self.ended_by == Ending.CLOSURE else "R23", "deal_over")
        kind = action.kind
        _check_shape(action)
        if kind in ("draw", "take", "pass"):
            return
        if self.phase != _PLAY:
            raise IllegalActionError("R15", "draw_first")
        counts = self.hands[self.to_move]
        need = counts_of(action.cards)
        for code in set(action.cards):
            if need[code] > counts[code]:
                raise IllegalActionError("R15", "not_enough_held" if counts[code] else "not_held", card=NAMES[code])

    def _check_draw(self, kind: str) -> None:
        if self.phase != _DRAW:
            raise IllegalActionError("R15", "drawn_already")
        if kind == "draw" and not self.stock_count:
            raise IllegalActionError("R23", "stock_empty")
        if kind == "pass":
            if self.stock_count:
                raise IllegalActionError("R23", "pass_with_stock")
            if self.rules.stock_out == StockOut.TAKE_IF_ABLE and self.discard and self._take_ok():
                raise IllegalActionError("stock_out", "take_while_you_can")
        if kind == "take":
            if not self.discard:
                raise IllegalActionError("R15", "pile_empty")
            if self.rules.take_rule == TakeRule.TOP_CARD and not self._top_card_fits(self.to_move):
                raise IllegalActionError("take_rule", "top_card_does_not_fit")
            if not self._take_ok():
                raise IllegalActionError("R30", "single_take_stuck", card=card_name(self.discard[0]))

    def _check_discard(self, card: int, team: int) -> None:
        if card == self.took_single:
            raise IllegalActionError("R16", "single_taken_stays", card=NAMES[card])
        minimum = self._opening_minimum(team)
        if minimum and 0 < self.opening_value < minimum:
            raise IllegalActionError("opening_minimums", "opening_short", value=self.opening_value, minimum=minimum)
        if self.sizes[self.to_move] > 1 or self._may_empty_by_discard():
            return
        self._refuse_emptying()

    def _refuse_emptying(self, by_meld: bool = False) -> None:
        """Say why the mover's hand may not empty now (R18..R22 and their options)."""
        rules = self.rules
        seat = self.to_move
        team = rules.team_of[seat]
        reserve = self.reserves[team]
        if reserve is not None:
            if rules.closure_by == ClosureBy.RESERVE_TAKER and reserve.seat != seat:
                raise IllegalActionError("closure_by", "partner_goes_out")
            if by_meld and not rules.meld_out:
                raise IllegalActionError("R22", "out_by_discard")
            if self.biribas[team] < rules.closure_biribas:
                self._refuse_biribas(rules.cite("R22", "closure_biribas"), "out_needs_biribas", rules.closure_biribas)
            if self.took_with_one and not rules.single_take_closure:
                raise IllegalActionError("single_take_closure", "single_take_no_out")
            raise IllegalActionError("closure_run_and_set", "out_needs_run_and_set")
        if rules.reserve_access == ReserveAccess.FIRST_BIRIBA:
            raise IllegalActionError("reserve_access", "reserve_with_first_biriba")
        if self.biribas[team] < rules.reserve_biribas:
            rule = rules.cite("R18" if by_meld else "R21", "reserve_biribas")
            self._refuse_biribas(rule, "empty_needs_biribas", rules.reserve_biribas)
        raise IllegalActionError("R20", "no_reserve_left")

    def _refuse_biribas(self, rule: str, needs: str, count: int) -> None:
        """Too few biribas: name the option that keeps a long meld of the team from counting.

        ``set_biribas`` when a set of biriba size is no biriba, ``biriba_size``
        when a meld of the classic seven cards is too short under these rules.
        """
        rules = self.rules
        team = rules.team_of[self.to_move]
        reason = IllegalActionError(rule, needs, count=count)
        melds = self.melds[team]
        if any(isinstance(m, SetMeld) and m.size >= rules.biriba_size and not is_biriba(m, rules) for m in melds):
            only = "only_runs_and_aces_are_biribas" if rules.set_biribas == SetBiribas.ACES else "only_runs_are_biribas"
            raise IllegalActionError("set_biribas", only, why=reason)
        classic_size = CLASSIC.biriba_size
        if rules.biriba_size > classic_size and any(classic_size <= m.size < rules.biriba_size for m in melds):
            raise IllegalActionError("biriba_size", "biriba_is_longer", why=reason, count=rules.biriba_size)
        raise reason

    def _refuse_rest(self, action: Action) -> None:
        """Say which of R17..R22, R30 a meld or add breaks by what it leaves in hand."""
        seat = self.to_move
        team = self.rules.team_of[seat]
        k = self.sizes[seat] - len(action.cards)
        trial = self.clone()
        trial._place(action)
        if k == 0:
            trial._refuse_emptying(by_meld=True)
        if k == 1:
            took = self.took_single
            if took >= 0 and trial.hands[seat][took]:
                raise IllegalActionError("R17", "last_card_single", card=card_name(took))
            try:  # the last card's discard would have to go out or take the reserve: say why it may not
                trial._refuse_emptying()
            except IllegalActionError as why:
                if trial.reserves[team] is not None or not why.rule.startswith("R"):
                    keep = "keep_two_to_go_out" if trial.reserves[team] is not None else "keep_two_for_reserve"
                    raise IllegalActionError(why.rule, keep, why=why) from None
            raise IllegalActionError("R17", "keep_two")
        raise IllegalActionError("R30", "all_barred")

    # ------------------------------------------------------------- playing
    def apply(self, action: Action, check: bool = True) -> Outcome:
        """Play ``action`` for the mover and return what happened.

        With ``check=False`` the caller vouches that the action came from
        :meth:`legal_actions` (self-play does this for speed).

        >>> deal = Deal.shuffled(seed=1)
        >>> outcome = deal.apply(deal.parse_action("draw"))
        >>> outcome.seat, outcome.action.kind, deal.phase
        (1, 'draw', <Phase.PLAY: 'play'>)
        >>> deal.apply(deal.parse_action("draw"))
        Traceback (most recent call last):
        ...
        biriba.errors.IllegalActionError: R15: this turn has had its draw; meld, add or discard
        """
        new_meld: Meld | None = None
        if check:
            action, new_meld = self._verify(action)
        seat = self.to_move
        self.history.append((seat, action))
        kind = action.kind
        if kind == "meld" or kind == "add":
            return self._apply_meld(seat, action, new_meld)
        if kind == "discard":
            return self._apply_discard(seat, action)
        if kind == "draw":
            return self._apply_draw(seat, action)
        if kind == "take":
            return self._apply_take(seat, action)
        return self._apply_pass(seat, action)

    def _apply_draw(self, seat: int, action: Action) -> Outcome:
        self._start_turn(seat)
        card = self.stock[0]
        self.stock = self.stock[1:]
        self.hands[seat][card] += 1
        count_in(self.hand_keys[seat], card, 1)
        self.sizes[seat] += 1
        self.phase = _PLAY
        if not self.stock and self.rules.stock_out is _STOCK_END:
            self.last_round = True  # the deal ends with this turn (seeds 001, 002)
        return _outcome(seat, action, drawn=card)

    def _apply_take(self, seat: int, action: Action) -> Outcome:
        self._start_turn(seat)
        return _outcome(seat, action, taken=self._do_take(seat))

    def _apply_pass(self, seat: int, action: Action) -> Outcome:
        self._start_turn(seat)
        self.passes += 1
        if self.passes >= self.rules.passes_to_end:
            self._end(Ending.PASSES)
            return _outcome(seat, action, ended=Ending.PASSES)
        return _outcome(seat, action, ended=self._next_turn())

    def _apply_meld(self, seat: int, action: Action, meld: Meld | None) -> Outcome:
        self._place(action, meld)
        if self.sizes[seat]:
            return _outcome(seat, action)
        if self._can_pick_up(self.rules.team_of[seat]):  # R18: pick up the reserve and play on
            packet = self._pick_up_reserve(seat, active=True)
            return _outcome(seat, action, reserve=Pickup.MELD, packet=packet)
        return self._close(seat, action)  # option meld_out

    def _apply_discard(self, seat: int, action: Action) -> Outcome:
        card = action.cards[0]
        self.hands[seat][card] -= 1
        count_in(self.hand_keys[seat], card, -1)
        if self.known[seat][card]:
            self.known[seat][card] -= 1
        self.sizes[seat] -= 1
        self.discard.append(card)
        if not self.sizes[seat]:
            if self._can_close():  # R22
                return self._close(seat, action)
            packet = self._pick_up_reserve(seat, active=False)  # R19
            return _outcome(seat, action, reserve=Pickup.DISCARD, packet=packet, ended=self._next_turn())
        if self.reserve_due:  # option reserve_access: the first biriba's reserve, at the end of the turn
            packet = self._pick_up_reserve(seat, active=False)
            return _outcome(seat, action, reserve=Pickup.BIRIBA, packet=packet, ended=self._next_turn())
        return _outcome(seat, action, ended=self._next_turn())

    def _close(self, seat: int, action: Action) -> Outcome:
        self.closer = seat
        self._end(Ending.CLOSURE)
        return _outcome(seat, action, ended=Ending.CLOSURE)

    def _place(self, action: Action, meld: Meld | None = None) -> None:
        """Move a meld's or an add's cards from the mover's hand to the team's table."""
        seat = self.to_move
        rules = self.rules
        team = rules.team_of[seat]
        melds = self.melds[team]
        opening = len(melds) == self.turn_melds  # every team meld is this turn's
        hand = self.hands[seat]
        if meld is None:
            meld = self._listed_meld(action)
        known = self.known[seat]
        keys = self.hand_keys[seat]
        for c in action.cards:
            hand[c] -= 1
            count_in(keys, c, -1)
            if known[c]:
                known[c] -= 1
        self.sizes[seat] -= len(action.cards)
        self.idle_turns = 0
        before = self.biribas[team]
        if action.kind == "meld":
            melds.append(meld)
            self.turn_melds += 1
            if is_biriba(meld, rules):
                self.biribas[team] += 1
                self.laid_whole[team] += (len(melds) - 1,)
        else:
            self.biribas[team] += is_biriba(meld, rules) - is_biriba(melds[action.meld], rules)
            melds[action.meld] = meld
        if opening:
            self.opening_value += sum(rules.values[c] for c in action.cards)
        if (
            rules.reserve_access is _FIRST_BIRIBA
            and not before
            and self.biribas[team]
            and self.reserves[team] is None
            and self.packets
        ):
            self.reserve_due = True

    def _listed_meld(self, action: Action) -> Meld:
        """The meld a meld or add leaves: found where the listing found it, else resolved from its cards."""
        seat = self.to_move
        counts, keys = self.hands[seat], self.hand_keys[seat]
        melds = self.melds[self.rules.team_of[seat]]
        meld: Meld | None = None
        if action.kind == "meld":
            meld = listed_meld(action.cards, action.slots, counts, self.rules, keys)
        elif 0 <= action.meld < len(melds):
            meld = listed_add(melds[action.meld], action.cards, action.slots, action.end, counts, self.rules, keys)
        if meld is None:
            meld = self._resolve(action)[1]
            assert meld is not None
        return meld

    def _start_turn(self, seat: int) -> None:
        """R19: the first action of the owner's next turn activates an inactive reserve.

        A turn begun on an empty stock is idle until it melds, adds or picks up a reserve (D36).
        """
        if not self.stock:
            self.idle_turns += 1
        self.turn_melds = 0
        self.opening_value = 0
        self.reserve_due = False
        team = self.rules.team_of[seat]
        reserve = self.reserves[team]
        if reserve is not None and not reserve.active and reserve.seat == seat:
            self.reserves[team] = Reserve(seat, True)

    def _do_take(self, seat: int) -> tuple[int, ...]:
        taken = tuple(self.discard)
        self.took_with_one = len(taken) == 1 and self.sizes[seat] == 1
        hand = self.hands[seat]
        known = self.known[seat]
        keys = self.hand_keys[seat]
        for c in taken:
            hand[c] += 1
            count_in(keys, c, 1)
            known[c] += 1  # everyone saw the pile go into this hand
        self.sizes[seat] += len(taken)
        self.discard = []
        self.took_single = taken[0] if len(taken) == 1 else -1
        self.passes = 0
        self.phase = _PLAY
        return taken

    def _pick_up_reserve(self, seat: int, active: bool) -> tuple[int, ...]:
        packet = self.packets[0]
        self.packets = self.packets[1:]
        hand, keys = self.hands[seat], self.hand_keys[seat]
        for c in packet:
            hand[c] += 1
            count_in(keys, c, 1)
        self.sizes[seat] += len(packet)
        team = self.rules.team_of[seat]
        self.reserves[team] = Reserve(seat, active)
        self.reserve_packets[team] = packet
        self.reserve_due = False
        self.took_with_one = False  # a new hand: seed 002's single-take condition was about the old one
        self.idle_turns = 0
        return packet

    def _next_turn(self) -> Ending | None:
        if self.last_round:
            self._end(Ending.STOCK)
            return Ending.STOCK
        idle_limit = self.rules.idle_turns_to_end
        if idle_limit and self.idle_turns >= idle_limit:
            self._end(Ending.IDLE)
            return Ending.IDLE
        if self.max_turns is not None and self.turn >= self.max_turns:
            self._end(Ending.CAPPED)
            return Ending.CAPPED
        self.to_move = (self.to_move + 1) % self.rules.seats
        self.phase = _DRAW
        self.took_single = -1
        self.took_with_one = False
        self.turn += 1
        return None

    def _end(self, how: Ending) -> None:
        self.ended_by = how
        self.phase = Phase.OVER

    # ----------------------------------------------------- card accounting
    def card_locations(self) -> list[int]:
        """Copies of each kind found in hands, melds, pile, stock and packets (R23a)."""
        total = [0] * KINDS
        for hand in self.hands:
            for c in range(KINDS):
                total[c] += hand[c]
        for team in self.melds:
            for meld in team:
                for c in meld.cards():
                    total[c] += 1
        for c in self.discard:
            total[c] += 1
        for c in self.stock_cards:
            total[c] += 1
        for packet in self.packets_left:
            for c in packet:
                total[c] += 1
        return total

    def assert_consistent(self) -> None:
        """Raise :class:`InvalidPositionError` if cards are lost or duplicated (R23a)."""
        if self.card_locations() != deck_counts(self.rules.packs, self.rules.jokers):
            raise InvalidPositionError("cards are missing or duplicated (R2, R23a)")
        if any(sum(h) != n for h, n in zip(self.hands, self.sizes)):
            raise InvalidPositionError("a hand's size does not match its cards")
        if self.hand_keys != [hand_keys(h) for h in self.hands]:
            raise InvalidPositionError("a hand's keys do not match its cards")


#: The ``meld`` action of each meld in :data:`~biriba.melds.classic.MELD_TABLE`, by its number, made once.
_MELD_ACTIONS: Final[list[Action]] = []
#: For each team meld's place on the table, the ``add`` action of each add in :data:`~biriba.melds.classic.ADD_TABLE`.
_ADD_ACTIONS: Final[list[dict[int, Action]]] = []
_MAKING: Final = Lock()


def _sharing_a_meld(counts: Sequence[int], card: int, rules: Rules) -> list[int]:
    """The hand's natural cards that can be in a meld with natural ``card``: its suit's (a run), its rank's (a set)."""
    suit, rank, wild = suit_of(card), rank_of(card), rules.wild_kinds
    return [
        n if k != JOKER and k not in wild and (suit_of(k) == suit or rank_of(k) == rank) else 0
        for k, n in enumerate(counts)
    ]


def _make_meld_actions() -> None:
    """The actions of the melds numbered since the last call (the table of melds only grows).

    Under a lock: bots think in threads at a web table, and the list must stay in step with the table.
    """
    with _MAKING:
        melds = MELD_TABLE.values
        for number in range(len(_MELD_ACTIONS), len(melds)):
            _fields, (cards, slots) = melds[number]
            _MELD_ACTIONS.append(_tuple_new(Action, ("meld", cards, slots, -1, None)))


def _make_add_places(index: int) -> None:
    """Room in :data:`_ADD_ACTIONS` up to a team meld's place ``index``, under the lock the meld actions have."""
    with _MAKING:
        while index >= len(_ADD_ACTIONS):
            _ADD_ACTIONS.append({})


#: Memory of :meth:`Deal._opening_reachable` and :meth:`Deal._opening_choice`, by position.
_REACHABLE: Final[dict[tuple[object, ...], bool]] = {}
_CHOICES: Final[dict[tuple[object, ...], tuple[Choices, list[Action] | None]]] = {}


def _remember(memory: dict[tuple[object, ...], Any], key: tuple[object, ...], value: object) -> None:
    if len(memory) > 50_000:
        memory.clear()
    memory[key] = value


caches.register("meld actions", lambda: len(_MELD_ACTIONS), _MELD_ACTIONS.clear)
caches.register("add actions", lambda: sum(map(len, _ADD_ACTIONS)), _ADD_ACTIONS.clear)
caches.register("openings reachable", lambda: len(_REACHABLE), _REACHABLE.clear)
caches.register("opening choices", lambda: len(_CHOICES), _CHOICES.clear)


class LegalActions:
    """The mover's legal actions, generated on demand (like python-chess's ``legal_moves``)."""

    __slots__ = ("deal",)

    def __init__(self, deal: Deal) -> None:
        self.deal = deal

    def __iter__(self) -> Iterator[Action]:
        return iter(self.deal._generate())

    def count(self) -> int:
        """How many there are.  (No ``__len__``: ``list()`` would call it and generate twice.)"""
        return len(self.deal._generate())

    def __bool__(self) -> bool:
        return bool(self.deal._generate())

    def __contains__(self, action: object) -> bool:
        return isinstance(action, Action) and action in self.deal._generate()

    def __repr__(self) -> str:
        return f"<LegalActions ({', '.join(str(a) for a in self)})>"


#: The fields of a deal, in declaration order, as pickled.
_FIELDS: Final = tuple(f.name for f in dataclass_fields(DealState))


def _rebuild(cls: type[Deal], values: dict[str, Any]) -> Deal:
    """The deal :meth:`Deal.__reduce__` took apart."""
    deal = cls(_UNDEALT)
    for name, value in values.items():
        setattr(deal, name, value)
    if "hand_keys" not in values:  # pickled before the deal kept them
        deal.hand_keys = [hand_keys(h) for h in deal.hands]
    return deal


def _outcome(
    seat: int,
    action: Action,
    drawn: int = -1,
    taken: tuple[int, ...] = (),
    reserve: Pickup | None = None,
    packet: tuple[int, ...] = (),
    ended: Ending | None = None,
) -> Outcome:
    """An :class:`Outcome`, made without the named tuple's constructor, a Python function (one per action)."""
    return _tuple_new(_OUTCOME, (seat, action, drawn, taken, reserve, packet, ended))


def _check_shape(action: Action) -> None:
    """Refuse an :class:`Action` built by hand with the wrong parts for its kind (R15)."""
    kind, cards, slots, _meld, end = action
    if kind not in ("draw", "take", "pass", "meld", "add", "discard"):
        raise IllegalActionError("R15", "unknown_action", action=repr(kind))
    wanted = {"draw": 0, "take": 0, "pass": 0, "discard": 1}.get(kind, len(cards) or 1)
    if len(cards) != wanted or len(slots) not in (0, len(cards)):
        raise IllegalActionError("R15", "malformed", action=kind, count=len(cards), slots=len(slots))
    if end not in (None, "low", "high") or (end is not None and kind != "add"):
        raise IllegalActionError("R13", "bad_end", end=repr(end))


def _places_a_wild(action: Action, meld: Meld, rules: Rules) -> bool:
    """Does this meld or add put a card down as a wild (not a natural two, not onto a wild-card meld)?"""
    if isinstance(meld, WildMeld):
        return False
    if isinstance(meld, SetMeld):
        return any(c in rules.wild_kinds for c in action.cards)
    return any(slot >= 0 for slot in action.slots)


def _biribas(n: int) -> str:
    return "a biriba" if n == 1 else f"{n} biribas"
