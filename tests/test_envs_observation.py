"""The observation array (biriba.envs.observation): made from a seat's view only, laid out as documented."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from biriba.deal import Deal
from biriba.envs.core import StepDeal
from biriba.envs.encoding import MAX_MELDS, NEW_MELD, PICK, TurnSteps, steps_of
from biriba.envs.observation import LAYOUT, MELD_FEATURES, OFFSET, SIZE, observe
from biriba.knowledge import determinize
from biriba.melds import RunMeld, SetMeld, is_biriba
from biriba.rules import PRESETS, Rules
from biriba.terms import Phase
from biriba.views import PlayerView
from test_envs_encoding import TABLES, random_decisions

DOCS = Path(__file__).parent.parent / "docs" / "envs.md"


@pytest.mark.parametrize("rules", TABLES[::2], ids=lambda r: f"{r.name}-{r.seats}")
def test_hidden_cards_dealt_again_give_the_same_observation(rules: Rules) -> None:
    """Another deal that the seat cannot tell from this one (hands, stock, packets dealt again) looks the same."""
    rng = random.Random(3)
    checked = 0
    for number, deal in enumerate(random_decisions(rules, 5)):
        if number % 7:
            continue
        for seat in range(rules.seats):
            view = deal.view_for(seat)
            again = determinize(view, rng)
            mine, theirs = TurnSteps(deal.legal_actions()), TurnSteps(again.legal_actions())
            if seat == deal.to_move:
                picks = [s for s in mine.legal_steps() if s >= PICK][:1]
                for step in picks:
                    mine.push(step)
                    theirs.push(step)
            else:
                mine = theirs = None  # type: ignore[assignment]
            np.testing.assert_array_equal(observe(view, mine), observe(again.view_for(seat), theirs))
            checked += 1
    assert checked > 20


def test_each_seat_sees_its_own_hand_first() -> None:
    deal = Deal.shuffled(seed=4)
    for seat in range(4):
        hand = observe(deal.view_for(seat))[OFFSET["hand"] : OFFSET["hand"] + 53]
        assert list(hand) == deal.hands[seat]
        to_move = observe(deal.view_for(seat))[OFFSET["to_move"] : OFFSET["to_move"] + 6]
        assert to_move[(deal.to_move - seat) % 4] == 1 and to_move.sum() == 1


def test_the_steps_taken_are_observed() -> None:
    for deal in random_decisions(PRESETS["classic"], 2):
        turn = TurnSteps(deal.legal_actions())
        picks = [s for s in turn.legal_steps() if s >= PICK]
        if picks:
            turn.push(picks[0])
            seen = observe(deal.view_for(deal.to_move), turn)
            assert seen[OFFSET["picked"] + picks[0] - PICK] == 1
            assert seen[OFFSET["picked"] : OFFSET["picked"] + 53].sum() == 1
            return
    pytest.fail("no meld in the deal")


def test_the_docs_list_the_layout() -> None:
    """docs/envs.md's table of the observation names every part, in order, with its length."""
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \|", DOCS.read_text(), re.M)
    assert [(name, int(size)) for name, size in rows] == [(p.name, p.size) for p in LAYOUT]
    assert f"{SIZE:,}" in DOCS.read_text()


def plain_observation(view: PlayerView, turn: TurnSteps | None) -> np.ndarray:
    """Each part as docs/envs.md's table says, written out one by one: what observe() computes faster."""
    assert view.seat is not None
    rules, me = view.rules, view.seat
    seats = [(me + k) % rules.seats for k in range(rules.seats)]
    teams = [(rules.team_of[me] + k) % len(rules.teams) for k in range(len(rules.teams))]
    part = {p.name: np.zeros(p.size, np.float32) for p in LAYOUT}
    np.add.at(part["hand"], list(view.hand), 1)
    np.add.at(part["pile"], list(view.discard), 1)
    if view.discard:
        part["pile_top"][view.discard[-1]] = 1
    for k, seat in enumerate(seats[1:]):
        part["known"][53 * k : 53 * k + 53] = view.known[seat]
    np.add.at(part["packet"], list(view.packet), 1)
    if view.took_single >= 0:
        part["took_single"][view.took_single] = 1
    if turn is not None:
        np.add.at(part["picked"], list(turn.picked), 1)
    for k, team in enumerate(teams):
        for m, meld in enumerate(view.melds[team][:MAX_MELDS]):
            row = part["melds"][(k * MAX_MELDS + m) * MELD_FEATURES :][:MELD_FEATURES]
            row[0] = 1
            if isinstance(meld, RunMeld):
                row[1], row[4 + meld.suit], row[8], row[9] = 1, 1, meld.lo / 13, meld.hi / 13
            elif isinstance(meld, SetMeld):
                row[2], row[10] = 1, meld.rank / 13
            else:
                row[3] = 1
            row[11:] = meld.size / 13, len(meld.wilds), is_biriba(meld, rules), meld.clean
    for k, seat in enumerate(seats):
        part["hand_sizes"][k] = view.sizes[seat]
        part["to_move"][k] = seat == view.to_move and view.ended_by is None
    for k, team in enumerate(teams):
        part["biribas"][k] = view.biribas[team]
        reserve = view.reserves[team]
        if reserve is not None:
            part["reserves"][3 * k : 3 * k + 3] = 1, reserve.active, reserve.seat == me
        part["match_scores"][k] = view.match_scores[team] / 1000 if view.match_scores else 0
    part["counts"][:] = (
        *(view.stock_count / 100, len(view.packet_sizes), len(view.discard) / 100, view.turn / 100),
        *(view.passes, view.idle_turns, view.turn_melds, view.opening_value / 100),
    )
    part["phase"][:] = view.phase == Phase.DRAW, view.phase == Phase.PLAY
    part["flags"][:] = view.reserve_due, view.last_round, view.took_with_one
    if view.trump >= 0:
        part["trump"][view.trump] = 1
    part["rules"][:] = (
        *(rules.seats, len(rules.teams), rules.packs, rules.jokers, rules.hand_size, rules.packet_size),
        *(rules.packets, rules.min_meld, rules.biriba_size, rules.sets, rules.wild_limit != "one", rules.target / 1000),
    )
    if turn is not None and turn.target is not None:
        part["target"][1 + turn.target] = 1
        part["choices"][0] = len(turn.prefix) - len(turn.picked) - 1
    return np.concatenate([part[p.name] for p in LAYOUT])


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: f"{r.name}-{r.seats}")
def test_the_observation_is_each_part_as_documented(rules: Rules) -> None:
    """observe() (cached rules numbers, melds as bytes) equals the parts written out plainly, at every seat."""
    rng = random.Random(5)
    parts_seen = np.zeros(SIZE, bool)
    for number, deal in enumerate(random_decisions(rules, 8)):
        if number % 3:
            continue
        legal = list(deal.legal_actions())
        turn = TurnSteps(legal)
        plays = [a for a in legal if a.kind in ("meld", "add")]
        if plays:  # part of the way to a meld or add: picked cards, then its target and slots
            ways = [steps_of(play, legal) for play in plays]
            committed = [len([s for s in w if s < NEW_MELD]) + 1 for w in ways]  # the steps to its target
            chosen = [k for k, w in enumerate(ways) if committed[k] < len(w)]  # a slot or an end to choose then
            k = rng.choice(chosen) if chosen else rng.randrange(len(ways))
            for step in ways[k][: rng.randrange(committed[k] if chosen else 0, len(ways[k]))]:
                turn.push(step)
        for seat in range(rules.seats):
            view = deal.view_for(seat)
            seen = observe(view, turn if seat == deal.to_move else None)
            np.testing.assert_array_equal(seen, plain_observation(view, turn if seat == deal.to_move else None))
            parts_seen |= seen != 0
    size = {part.name: part.size for part in LAYOUT}
    for name in ("hand", "pile_top", "known", "picked", "melds", "target"):
        assert parts_seen[OFFSET[name] : OFFSET[name] + size[name]].any(), f"no observation had a {name}"


@pytest.mark.parametrize("rules", TABLES[::3], ids=lambda r: f"{r.name}-{r.seats}")
def test_an_environments_observations_are_observe_at_every_step(rules: Rules) -> None:
    """StepDeal makes the observation once per action and seat and adds the steps: the same as observe(),
    whatever the caller does to the arrays it was given."""
    play = StepDeal(rules)
    play.new_deal(random.Random(7))
    rng = random.Random(7)
    picks = 0
    for _ in range(250):
        if play.over:
            break
        for seat in (play.mover, *(s for s in range(rules.seats) if s != play.mover)):
            turn = play.turn if seat == play.mover else None
            given = play.observation(seat)
            np.testing.assert_array_equal(given, observe(play.deal.view_for(seat), turn))
            given[:] = 7  # the caller's own array
        np.testing.assert_array_equal(play.observation(play.mover), observe(play.deal.view_for(play.mover), play.turn))
        picks += bool(play.turn and play.turn.prefix)
        play.step(rng.choice(play.legal_steps()))
    assert picks > 5, "some steps were taken toward a meld"
