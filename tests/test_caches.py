"""The engine's caches under one registry (``biriba/caches.py``): counted, trimmed to a budget, and never a change
in what the engine answers."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from biriba import caches
from biriba.cards import counts_of, parse_cards
from biriba.deal import Deal
from biriba.melds.general import general_melds
from biriba.melds.options import hand_wilds
from biriba.rules import PRESETS


@pytest.fixture
def budget() -> Iterator[None]:
    before = caches.budget()
    yield
    caches.set_budget(before)


def play(name: str, seed: int, clear_every: int | None) -> list[list[str]]:
    """Every legal list of a random deal, clearing the caches every ``clear_every`` actions."""
    rng = random.Random(seed)
    deal = Deal.shuffled(seed=seed, rules=PRESETS[name])
    lists = []
    while not deal.is_over and len(lists) < 300:
        legal = list(deal.legal_actions())
        lists.append(sorted(map(str, legal)))
        deal.apply(rng.choice(legal), check=False)
        if clear_every and len(lists) % clear_every == 0:
            caches.clear()
    return lists


@pytest.mark.parametrize("name", ["classic", "italian", "three-handed"])
def test_clearing_the_caches_at_any_moment_between_actions_changes_no_answer(name: str) -> None:
    for seed in range(3):
        assert play(name, seed, clear_every=None) == play(name, seed, clear_every=1 + seed * 3)


def test_every_shared_cache_is_counted_and_cleared_together() -> None:
    play("classic", 7, None)
    play("italian", 7, None)
    counted = caches.stats()
    for name in ("meld table", "add table", "meld groups", "meld actions", "add actions", "general melds"):
        assert counted[name] > 0, name
    cleared = caches.clears()
    caches.clear()
    assert caches.total() == 0 and caches.clears() == cleared + 1


def test_trim_clears_only_past_the_budget(budget: None) -> None:
    play("classic", 8, None)
    held = caches.total()
    caches.set_budget(held + 1)
    assert not caches.trim() and caches.total() == held
    caches.set_budget(held - 1)
    assert caches.trim() and caches.total() == 0
    with pytest.raises(ValueError, match="at least one entry"):
        caches.set_budget(0)


def test_the_general_enumerators_cache_counts_the_melds_it_holds_not_its_lists() -> None:
    """One suit's runs are one remembered list, however long: the budget must see every meld in it (under the half
    wild limit 19 cards make 40,020 melds; soak deal 733970's 141 cards made 583,000 runs of one suit)."""
    rules = PRESETS["italian"]
    counts = counts_of(parse_cards("AS 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H 2D JK JK 7H 7D 7C"))
    caches.clear()
    melds = list(general_melds(counts, rules, hand_wilds(counts, rules)))
    assert len(melds) > 10_000 and caches.stats()["general melds"] == len(melds)
