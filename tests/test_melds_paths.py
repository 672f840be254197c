"""The fast one-wild enumerator (melds/classic.py) against the general one (melds/general.py).

The general enumerator serves every wild limit; under the classic limit of
one wild per meld both apply, and they must list the same melds and the same
adds, card for card and slot for slot.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biriba.actions import Action
from biriba.cards import counts_of, full_deck, parse_cards
from biriba.deal import Deal
from biriba.melds import classic, listed_add, listed_meld, parse_meld, resolve_add, resolve_meld
from biriba.melds.classic import classic_adds, classic_melds, classic_placements
from biriba.melds.general import general_adds, general_melds
from biriba.melds.memo import MEMO_LIMIT, Memos, Numbered, hand_keys
from biriba.melds.types import Meld
from biriba.rules import CLASSIC, PRESETS, Rules

SCALE = 10 if os.environ.get("BIRIBA_LONG") else 1
DECK = full_deck()
RULES = [CLASSIC, CLASSIC.replace(twos_wild=False), CLASSIC.replace(min_meld=4, biriba_size=8)]

hands = st.lists(st.sampled_from(DECK), min_size=3, max_size=13)


def wilds_in(counts: list[int], rules: Rules) -> list[int]:
    return [w for w in rules.wild_kinds if counts[w]]


def meld_key(meld: Meld) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    return (meld.kind, meld.cards(), meld.slots())


@settings(max_examples=200 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands, st.sampled_from(range(len(RULES))))
def test_fast_and_general_melds_agree(cards: list[int], which: int) -> None:
    rules = RULES[which]
    counts = counts_of(cards)
    wilds = wilds_in(counts, rules)
    fast = sorted(map(meld_key, classic_melds(counts, rules, wilds)))
    general = sorted(map(meld_key, general_melds(counts, rules, wilds)))
    assert fast == general
    placed = sorted(classic_placements(counts, rules, wilds))
    assert placed == sorted((cards_, slots) for _, cards_, slots in fast)


@settings(max_examples=200 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands, hands, st.integers(0, 1000), st.sampled_from(range(len(RULES))))
def test_fast_and_general_adds_agree(table_cards: list[int], cards: list[int], pick: int, which: int) -> None:
    rules = RULES[which]
    table_counts = counts_of(table_cards)
    melds = list(classic_melds(table_counts, rules, wilds_in(table_counts, rules)))
    if not melds:
        return
    meld = melds[pick % len(melds)]
    counts = counts_of(cards)
    wilds = wilds_in(counts, rules)

    def key(option: object) -> tuple[object, ...]:
        cards_, slots, end, result = option  # type: ignore[misc]
        return (cards_, slots, end, meld_key(result))

    fast = sorted(map(key, classic_adds(meld, counts, wilds)))
    general = sorted(map(key, general_adds(meld, counts, rules, wilds)))
    assert fast == general, meld.text()


def test_R14_the_general_enumerator_lets_no_wild_in_before_the_moved_two_turns_natural() -> None:
    """Found by the soak (seed 0, deal 3): ``2H=3C 4C`` onto ``2C=4C 5C..TC``, the displaced two sent low.

    Its two could turn natural on rank 2 only once 3C is in place, and 3C is
    the wild 2H, which may join only after that (D2): the general enumerator
    listed it, the fast one (right) did not.
    """
    meld = parse_meld("2C=4C 5C 6C 7C 8C 9C TC", CLASSIC)
    counts = counts_of(parse_cards("2H 4C JS JH KH"))
    wilds = wilds_in(counts, CLASSIC)

    def key(option: object) -> tuple[object, ...]:
        cards_, slots, end, result = option  # type: ignore[misc]
        return (cards_, slots, end, meld_key(result))

    general = sorted(map(key, general_adds(meld, counts, CLASSIC, wilds)))
    assert general == sorted(map(key, classic_adds(meld, counts, wilds)))
    assert not any(len(cards_) == 2 for cards_, *_ in general)
    half = CLASSIC.replace(wild_limit="half")  # one wild per two naturals: two wilds may stand together
    assert any(len(o.cards) == 2 and o.end == "low" for o in general_adds(meld, counts, half, wilds))


def test_the_memos_split_by_question_start_afresh_together_at_their_limit() -> None:
    memos = Memos()
    runs: dict[object, int] = {}
    sets: dict[object, int] = {}
    memos.tables.update(runs=runs, sets=sets)
    for n in range(MEMO_LIMIT):
        memos.keep(runs if n % 2 else sets, n, n)
    assert len(runs) + len(sets) == memos.size == MEMO_LIMIT and memos.tables == {"runs": runs, "sets": sets}
    memos.keep(runs, "one more", 0)
    assert memos.tables == {} and memos.size == 1


def test_a_numbered_value_is_made_once_and_found_by_its_key() -> None:
    table: Numbered[str] = Numbered()
    assert [table.add(key, f"value {key}") for key in ("a", "b")] == [0, 1]
    assert table.numbers == {"a": 0, "b": 1} and table.values == ["value a", "value b"]


def test_the_remembered_lists_hold_nothing_the_garbage_collector_must_watch() -> None:
    """Melds and adds are remembered by number, made once as plain tuples: a search's memos cost no collection time."""
    import gc
    import random

    from biriba.bots import make_bot
    from biriba.deal import Deal

    bot = make_bot("greedy", "memo")
    for n in range(4):
        deal = Deal.shuffled(f"memo/{n}", max_turns=60)
        while not deal.is_over:
            legal = list(deal.legal_actions())
            deal.apply(bot.choose(deal.view_for(deal.to_move), legal) if n % 2 else random.Random(n).choice(legal))
    groups = [memo for memos in classic._GROUPS.tables.values() for memo in memos]
    tables = (classic.MELD_TABLE, classic.ADD_TABLE)
    memos = (*groups, classic._ADDS, *(t.numbers for t in tables), bot._worths.found, bot._fits.found)  # type: ignore[attr-defined]
    assert all((groups, classic._ADDS, bot._worths.found, bot._fits.found))  # type: ignore[attr-defined]
    assert all(isinstance(n, int) for memo in (*groups, classic._ADDS) for group in memo.values() for n in group)

    def watched() -> int:
        held = sum(gc.is_tracked(key) or gc.is_tracked(value) for memo in memos for key, value in memo.items())
        return held + sum(gc.is_tracked(value) for table in tables for value in table.values)

    last = -1
    for _ in range(20):  # the collector lets go of a tuple of untracked items when it looks: a level of nesting a time
        gc.collect()
        if watched() == last:
            break
        last = watched()
    assert watched() == 0


def _listed_actions(name: str, kind: str) -> Iterator[tuple[Deal, Action]]:
    """Every listed action of ``kind`` along three random deals of preset ``name``, with the deal it is listed in."""
    rules = PRESETS[name]
    rng = random.Random(name)
    for n in range(3):
        deal = Deal.shuffled(f"listed/{name}/{n}", rules=rules, dealer=n % rules.seats, max_turns=120)
        while not deal.is_over:
            legal = list(deal.legal_actions())
            for action in legal:
                if action.kind == kind:
                    yield deal, action
            deal.apply(rng.choice(legal))


@pytest.mark.parametrize("name", sorted(name for name, rules in PRESETS.items() if rules.simple_wilds))
def test_a_listed_meld_is_found_in_its_suits_or_ranks_group(name: str) -> None:
    """A new meld played unchecked is looked up in the one group it belongs to (``listed_meld``): the same meld."""
    rules = PRESETS[name]
    looked_up = 0
    for deal, action in _listed_actions(name, "meld"):
        found = listed_meld(action.cards, action.slots, deal.hands[deal.to_move], rules)
        resolved = resolve_meld(action.cards, action.slots, rules)
        assert found == resolved and type(found) is type(resolved), str(action)
        looked_up += 1
    assert looked_up > 0


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_listed_add_is_found_where_the_listing_found_it(name: str) -> None:
    """An add played unchecked is looked up (``listed_add``), never enumerated again: no silent miss, the same meld."""
    rules = PRESETS[name]
    looked_up = 0
    for deal, action in _listed_actions(name, "add"):
        counts = deal.hands[deal.to_move]
        meld = deal.melds[rules.team_of[deal.to_move]][action.meld]
        found = listed_add(meld, action.cards, action.slots, action.end, counts, rules)
        resolved = resolve_add(meld, action.cards, action.slots, action.end, rules).meld
        assert found == resolved and type(found) is type(resolved), str(action)
        looked_up += 1
    assert looked_up > 0


@given(
    suit=st.integers(0, 3),
    held=st.lists(st.integers(0, 2), min_size=13, max_size=13),
    wilds=st.sets(st.sampled_from(CLASSIC.wild_kinds)),
)
def test_a_suit_the_quick_test_rules_out_has_no_run(suit: int, held: list[int], wilds: set[int]) -> None:
    """The quick test before a suit's runs are looked up may let a suit through, but never turn away a run."""
    counts = [0] * 53
    for rank, n in enumerate(held):
        counts[rank * 4 + suit] = n
    for wild in wilds:
        counts[wild] += 1
    wild_avail = sorted(wilds)
    if not classic._may_run(hand_keys(counts)[suit], bool(wild_avail)):
        assert classic._run_group(counts, suit, wild_avail, 3) == ()


@given(st.lists(st.integers(0, 15), min_size=53, max_size=53))
def test_a_hands_keys_hold_each_suits_and_each_ranks_counts(counts: list[int]) -> None:
    keys = hand_keys(counts)
    for suit in range(4):
        assert [(keys[suit] >> (4 * rank)) & 15 for rank in range(13)] == counts[suit:52:4]
    for rank in range(13):
        assert [(keys[4 + rank] >> (4 * suit)) & 15 for suit in range(4)] == counts[rank * 4 : rank * 4 + 4]


def test_bots_thinking_in_threads_list_what_one_thread_lists() -> None:
    """The tables of melds and adds are shared: deals played in threads list the same actions as played alone."""
    import threading

    def digests(start: int) -> list[str]:
        out = []
        for n in range(start, start + 3):
            deal = Deal.shuffled(f"threads/{n}", max_turns=80)
            rng = random.Random(n)
            while not deal.is_over:
                legal = list(deal.legal_actions())
                out.append(" ".join(map(str, legal)))
                deal.apply(rng.choice(legal), check=False)
        return out

    found: dict[int, list[str]] = {}
    threads = [threading.Thread(target=lambda s=s: found.__setitem__(s, digests(s))) for s in range(0, 12, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(found[s] == digests(s) for s in range(0, 12, 3))
