"""A fixed discrete encoding of a Biriba turn, one small step at a time (``docs/envs.md``).

A learning agent picks from a fixed set of :data:`ACTIONS` integers, the
same for every preset and table size.  A draw, a take, a pass or a discard
is one step.  A meld or an add is built from steps: pick its cards one kind
at a time (in card order), then commit them as a new meld or onto the
team's meld *k*, then, only where several legal actions share those cards
and that target, choose each wild's slot and the displaced wild's end.

The steps are made from the engine's own legal actions (:class:`TurnSteps`):
the mask after a prefix is the set of next steps of the legal actions that
begin with it, so every masked sequence ends in an action the engine
accepts, and every action it lists is reachable.  No step sequence is the
prefix of another, which is what lets a sequence end by itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..actions import Action
from ..cards import KINDS, NAMES
from ..melds import NO_SLOT
from ..rules import OPTION_LIMITS

DRAW = 0
TAKE = 1
PASS = 2
#: ``DISCARD + card``: discard that card kind.
DISCARD = 3
#: ``PICK + card``: one more card of that kind into the meld or add being built.
PICK = DISCARD + KINDS
#: Commit the picked cards as a new meld.
NEW_MELD = PICK + KINDS
#: The most melds a team can hold under any options: the largest deck in melds of three.
MAX_MELDS = (52 * OPTION_LIMITS["packs"][1] + OPTION_LIMITS["jokers"][1]) // OPTION_LIMITS["min_meld"][0]
#: ``ONTO + k``: commit the picked cards onto the team's meld ``k`` (0-based, as the position lists them).
ONTO = NEW_MELD + 1
#: ``SLOT``: the next differing card is natural (no slot); ``SLOT + 1 + code``: a wild standing for that card.
SLOT = ONTO + MAX_MELDS
END_LOW = SLOT + 1 + 52
END_HIGH = END_LOW + 1
#: The size of the action space.
ACTIONS = END_HIGH + 1

_SINGLE = {"draw": DRAW, "take": TAKE, "pass": PASS}


def describe(step: int) -> str:
    """A step in words, for logs and docs: ``pick 7H``, ``onto meld 2``, ``slot 5H``."""
    if not 0 <= step < ACTIONS:
        raise ValueError(f"a step is 0..{ACTIONS - 1}, not {step}")
    if step < DISCARD:
        return ("draw", "take", "pass")[step]
    if step < PICK:
        return f"discard {NAMES[step - DISCARD]}"
    if step < NEW_MELD:
        return f"pick {NAMES[step - PICK]}"
    if step == NEW_MELD:
        return "new meld"
    if step < SLOT:
        return f"onto meld {step - ONTO + 1}"
    if step == SLOT:
        return "slot natural"
    if step < END_LOW:
        return f"slot {NAMES[step - SLOT - 1]}"
    return "end low" if step == END_LOW else "end high"


def _placed(action: Action) -> tuple[tuple[int, int], ...]:
    """The action's cards with their slots, in card order: the same for every ordering of one meld."""
    return tuple(sorted(zip(action.cards, action.slots)))


def _base_steps(action: Action) -> tuple[int, ...]:
    """The picks and the commit of a meld or add, or the one step of anything else."""
    kind = action.kind
    if kind in _SINGLE:
        return (_SINGLE[kind],)
    if kind == "discard":
        return (DISCARD + action.cards[0],)
    if kind == "add" and action.meld >= MAX_MELDS:
        raise ValueError(f"meld {action.meld + 1} is past the encoding's {MAX_MELDS} melds a team")
    target = NEW_MELD if kind == "meld" else ONTO + action.meld
    return (*(PICK + card for card in sorted(action.cards)), target)


def _choices(group: Sequence[Action]) -> list[tuple[int, ...]]:
    """The choice steps that tell apart the actions of one group (the same cards onto the same target)."""
    placed = [_placed(a) for a in group]
    differing = [i for i in range(len(placed[0])) if len({p[i][1] for p in placed}) > 1]
    ends_differ = len({a.end for a in group}) > 1
    out = []
    for action, pairs in zip(group, placed):
        steps = [SLOT if pairs[i][1] == NO_SLOT else SLOT + 1 + pairs[i][1] for i in differing]
        if ends_differ:
            steps.append(END_HIGH if action.end == "high" else END_LOW)
        out.append(tuple(steps))
    return out


def encode_all(actions: Iterable[Action]) -> dict[tuple[int, ...], Action]:
    """Each legal action by its step sequence: the decomposition that :class:`TurnSteps` walks."""
    groups: dict[tuple[int, ...], list[Action]] = {}
    for action in actions:
        groups.setdefault(_base_steps(action), []).append(action)
    out: dict[tuple[int, ...], Action] = {}
    for base, group in groups.items():
        if len(group) == 1:
            out[base] = group[0]
            continue
        for action, tail in zip(group, _choices(group)):
            steps = base + tail
            if steps in out:
                raise ValueError(f"{action} and {out[steps]} have the same steps")
            out[steps] = action
    return out


class TurnSteps:
    """One decision of the engine, taken a step at a time: the legal actions, the steps so far, the mask.

    >>> from biriba.deal import Deal
    >>> turn = TurnSteps(Deal.shuffled(seed=1).legal_actions())
    >>> [describe(s) for s in turn.legal_steps()]
    ['draw', 'take']
    >>> turn.push(DRAW)
    Action(kind='draw', cards=(), slots=(), meld=-1, end=None)
    """

    __slots__ = ("_by_first", "_candidates", "_legal", "_next", "prefix")

    def __init__(self, legal: Iterable[Action]) -> None:
        self._legal = list(legal)
        if not self._legal:
            raise ValueError("no legal action: the deal is over")
        self._by_first: dict[int, list[Action]] | None = None  # the legal actions by first step, once asked
        #: Each action with its steps, made once a meld or add is begun: most decisions are one step.
        self._candidates: list[tuple[tuple[int, ...], Action]] | None = None
        self._next: list[int] | None = None  # legal_steps(), once asked (the mask and the observation both ask)
        self.prefix: list[int] = []

    def copy(self) -> TurnSteps:
        """An independent copy (search tries steps on copies)."""
        copy = TurnSteps(self._legal)
        copy._by_first = self._by_first
        copy._candidates = self._candidates
        copy._next = self._next
        copy.prefix = self.prefix[:]
        return copy

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as its legal actions and steps so far (a compiled class has no ``__dict__``)."""
        return _turn_steps, (self._legal, self.prefix)

    def legal_steps(self) -> list[int]:
        """The steps that continue the prefix toward some legal action, ascending."""
        if self._next is None:
            if self._candidates is None:
                self._next = sorted(self._first_steps())
            else:
                k = len(self.prefix)
                self._next = sorted({steps[k] for steps, _ in self._candidates})
        return self._next[:]

    def _first_steps(self) -> dict[int, list[Action]]:
        """The legal actions by their first step (:func:`_base_steps`'s first, made alone).

        The mask asks which steps begin an action, the first push which
        actions it begins: grouped once, for both.
        """
        if self._by_first is None:
            by_first: dict[int, list[Action]] = {}
            for action in self._legal:
                kind = action.kind
                if kind == "discard":
                    step = DISCARD + action.cards[0]
                elif kind in _SINGLE:
                    step = _SINGLE[kind]
                else:
                    step = PICK + min(action.cards)
                by_first.setdefault(step, []).append(action)
            self._by_first = by_first
        return self._by_first

    def mask(self) -> list[int]:
        """:meth:`legal_steps` as 0/1 over all :data:`ACTIONS`."""
        out = [0] * ACTIONS
        for step in self.legal_steps():
            out[step] = 1
        return out

    def push(self, step: int) -> Action | None:
        """Take one step; the engine action once the steps make one, else None.

        Raises ``ValueError`` naming the legal steps if ``step`` leads to no
        legal action; nothing changes then.
        """
        k = len(self.prefix)
        if self._candidates is None:
            kept = list(encode_all(self._first_steps().get(step, ())).items())
        else:
            kept = [c for c in self._candidates if c[0][k] == step]
        if not kept:
            legal = ", ".join(describe(s) for s in self.legal_steps())
            said = describe(step) if 0 <= step < ACTIONS else "?"
            raise ValueError(f"step {step} ({said}) is not legal here: {legal}")
        self._candidates = kept
        self._next = None
        self.prefix.append(step)
        if len(kept) == 1 and len(kept[0][0]) == k + 1:
            return kept[0][1]
        return None

    @property
    def picked(self) -> list[int]:
        """The cards picked so far (sorted codes)."""
        return [s - PICK for s in self.prefix if PICK <= s < NEW_MELD]

    @property
    def target(self) -> int | None:
        """Where the picked cards go once committed: -1 a new meld, k onto meld k; None before."""
        for s in self.prefix:
            if s == NEW_MELD:
                return -1
            if ONTO <= s < SLOT:
                return s - ONTO
        return None


def steps_of(action: Action, legal: Iterable[Action]) -> tuple[int, ...]:
    """The steps that make ``action`` among ``legal`` (its choices depend on the other legal actions)."""
    for steps, candidate in encode_all(legal).items():
        if candidate == action:
            return steps
    raise ValueError(f"{action} is not among the legal actions")


def _turn_steps(legal: list[Action], prefix: list[int]) -> TurnSteps:
    turn = TurnSteps(legal)
    for step in prefix:
        turn.push(step)
    return turn
