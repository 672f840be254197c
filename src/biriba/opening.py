"""How much a turn's melding can still be worth: the bound of the opening-minimum search (D18).

While a team opens (option ``opening_minimums``), a meld is legal only if
the turn can still reach the minimum, which :meth:`Deal._opening_reachable`
decides by searching the turn's plays.  That search proves a "no" by
exhausting every order of every play, so it needs an upper bound that cuts
hopeless branches early.  The value of every card some play could use is
too loose when a big hand holds just about the minimum: the search then
walks through millions of orders (seed ``million``, deal 36704).

A meld made in the turn, with all that is later added to it, is itself a
meld of the hand's cards, listed now (wilds a wild-card meld holds back
included: it may be finished first); what an existing meld gains is one
add listed now, as an add of several cards is adding them one at a time
(D2), except where a meld holds several wilds and one add moves at most
one of them (D10): there several adds listed now.
So the cards a turn can lay are a choice of plays listed now that share no
card.  :meth:`Choices.find` finds such a choice worth ``target``, if there
is one: a search by card (each card either laid in one of the plays that
hold it or never laid), which meets each choice once whatever the order
of its plays.  A choice that would empty the hand or leave one card must
make a table that allows it, as the turn's last play must (R17, R18, R22:
often a biriba); other conditions on the cards left (R16, R30) it
ignores.  So it only ever overestimates what the turn can lay: the search
stays the rule, and this tells it where nothing is left to find
(tests/test_opening.py holds the two to the same answers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .actions import Action

Need = tuple[tuple[int, int], ...]  # (card, copies) a play takes from the hand


class Choices:
    """The plays listed at one position, read once for any number of searches (:meth:`find`).

    At most ``adds_per_meld`` adds go onto one meld (0: any number).
    """

    def __init__(self, plays: Sequence[Action], values: Sequence[int], adds_per_meld: int = 1) -> None:
        self.plays = plays
        self.values = values
        self.needs: list[Need] = [tuple((c, play.cards.count(c)) for c in sorted(set(play.cards))) for play in plays]
        self.worth = [sum(values[card] for card in play.cards) for play in plays]
        self.onto = [1 << play.meld if play.meld >= 0 and adds_per_meld == 1 else 0 for play in plays]  # its meld

    def find(self, hand: Sequence[int], target: int, settles: Callable[[list[int]], bool]) -> list[int] | None:
        """Plays of disjoint cards that lay cards worth ``target`` from ``hand``, or None.

        The choice is given as the plays' indexes.  One that would leave
        fewer than two cards in hand counts only if ``settles`` finds that
        the table it makes lets the hand end so (R17, R18, R22).
        """
        if target <= 0:
            return []
        needs, worth, onto, values = self.needs, self.worth, self.onto, self.values
        failed: dict[tuple[tuple[int, ...], int, int], int] = {}  # a hand left -> the least target it cannot reach
        refused: set[tuple[tuple[int, ...], int, int, tuple[int, ...]]] = set()  # and a choice found wanting
        chosen: list[int] = []
        unsettled = 0  # choices ``settles`` refused: a failure below one depends on the plays chosen, not the state

        def fits(index: int, counts: Sequence[int], filled: int) -> bool:
            return not onto[index] & filled and all(counts[card] >= copies for card, copies in needs[index])

        def search(counts: list[int], filled: int, kept: int, live: list[int], target: int) -> bool:
            nonlocal unsettled
            before = unsettled
            if target <= 0:
                if kept + sum(counts) >= 2 or settles(chosen):
                    return True
                unsettled += 1  # laying the last card may still settle
            key = (tuple(counts), filled, min(kept, 2))
            if failed.get(key, target + 1) <= target:
                return False
            if (*key, tuple(sorted(chosen))) in refused:
                unsettled += 1  # as it was found: the failure is this choice's, not the state's
                return False
            live = [index for index in live if fits(index, counts, filled)]
            holders: dict[int, list[int]] = {}
            for index in live:
                for card, _ in needs[index]:
                    holders.setdefault(card, []).append(index)
            if not holders or sum(values[card] * counts[card] for card in holders) < target:
                remember(key, target, before)
                return False
            card = min(holders, key=lambda c: (len(holders[c]), -values[c]))
            for index in sorted(holders[card], key=lambda i: -worth[i]):  # this copy laid in one of its plays
                after = counts.copy()
                for laid, copies in needs[index]:
                    after[laid] -= copies
                chosen.append(index)
                if search(after, filled | onto[index], kept, live, target - worth[index]):
                    return True  # ``chosen`` is the choice
                chosen.pop()
            counts = counts.copy()  # or this copy never laid
            counts[card] -= 1
            if search(counts, filled, kept + 1, live, target):
                return True
            remember(key, target, before)
            return False

        def remember(key: tuple[tuple[int, ...], int, int], target: int, before: int) -> None:
            """A failure is the state's, unless ``settles`` refused a choice below it: then the choice's too."""
            if unsettled == before:
                failed[key] = min(target, failed.get(key, target))
            else:
                refused.add((*key, tuple(sorted(chosen))))

        return chosen if search(list(hand), 0, 0, list(range(len(self.plays))), target) else None
