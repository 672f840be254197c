"""Biriba in OpenSpiel (biriba.envs.openspiel): OpenSpiel's own random-simulation test, information states,
and OpenSpiel's IS-MCTS as a bot kind at our tables."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import pyspiel
import pytest

import biriba.envs.openspiel
from biriba.bots import known_kinds, make_bot
from biriba.deal import Deal
from biriba.envs.openspiel import GAME_NAME, BiribaState, ISMCTSPlayer
from biriba.knowledge import determinize
from biriba.rules import PRESETS
from serverkit import Player, create_table, running_server

BIRIBA = str(Path(sys.executable).with_name("biriba"))
#: Games of OpenSpiel's random_sim_test per preset: a few in make test, a few hundred in make test-long.
GAMES = 40 if os.environ.get("BIRIBA_LONG") else 3


@pytest.mark.parametrize("preset", list(PRESETS))
def test_openspiel_random_sim_test(preset: str) -> None:
    """OpenSpiel's C++ checks over random games: legal actions, chance, clones, observations, returns."""
    game = pyspiel.load_game(GAME_NAME, {"preset": preset})
    pyspiel.random_sim_test(game, num_sims=GAMES, serialize=False, verbose=False)


def test_openspiel_random_sim_test_with_serialization() -> None:
    pyspiel.random_sim_test(pyspiel.load_game(GAME_NAME), num_sims=1, serialize=True, verbose=False)


def test_a_state_says_where_the_deal_stands_in_words_to_its_end() -> None:
    state = play_to_turn(4, 10_000)
    assert state.is_terminal()
    assert "the deal is over (" in str(state) and " to over" not in str(state), str(state)


def play_to_turn(seed: int, turns: int) -> BiribaState:
    game = pyspiel.load_game(GAME_NAME)
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while state.is_chance_node() or (not state.is_terminal() and state.play.deal.turn < turns):
        if state.is_chance_node():
            outcomes, chances = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=chances)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_the_deal_is_chance_then_the_seats_play() -> None:
    game = pyspiel.load_game(GAME_NAME, {"preset": "italian", "players": 3})
    assert game.num_players() == 3 and game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    state.apply_action(2)
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 53 and outcomes[52] == pytest.approx(4 / 108)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 52) == "deal JK"


def test_resampling_keeps_what_the_seat_knows() -> None:
    state = play_to_turn(4, 12)
    player = state.current_player()
    again = state.resample_from_infostate(player, None)
    assert again.information_state_string(player) == state.information_state_string(player)
    assert again.information_state_tensor(player) == state.information_state_tensor(player)
    assert again.play.deal.hands != state.play.deal.hands
    assert again.legal_actions() == state.legal_actions()


def test_a_clone_is_independent() -> None:
    state = play_to_turn(5, 6)
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert copy.history() != state.history() and str(state) != "" and state.play.turn.prefix == []


def test_ismcts_is_a_bot_kind_that_never_cheats() -> None:
    """OpenSpiel's IS-MCTS, made by name, picks a legal action from the view alone (the hidden cards dealt
    again under the same view change nothing)."""
    assert "openspiel-ismcts" in known_kinds()
    deal = Deal.shuffled(11)
    rng = random.Random(1)
    for _ in range(25):
        deal.apply(make_bot("greedy", 1).choose(deal.view_for(deal.to_move), list(deal.legal_actions())))
    for _ in range(4):
        seat = deal.to_move
        other = determinize(deal.view_for(seat), rng)
        kind = "openspiel-ismcts:simulations=4"
        mine = make_bot(kind, "x").choose(deal.view_for(seat), list(deal.legal_actions()))
        theirs = make_bot(kind, "x").choose(other.view_for(seat), list(other.legal_actions()))
        assert mine == theirs and deal.is_legal(mine)
        deal.apply(mine)


def test_ismcts_options() -> None:
    bot = make_bot("openspiel-ismcts:simulations=7,uct_c=1.5", 1, think_ms=None)
    assert isinstance(bot, ISMCTSPlayer) and bot.simulations == 7 and bot.think_ms is None
    timed = make_bot("openspiel-ismcts", 1, think_ms=50)
    assert isinstance(timed, ISMCTSPlayer) and timed.think_ms == 50
    with pytest.raises(ValueError, match="not 'depth'"):
        make_bot("openspiel-ismcts:depth=3", 1)
    with pytest.raises(ValueError, match="unknown bot kind 'openspiel-mcts'"):
        make_bot("openspiel-mcts", 1)


def test_registered_on_import() -> None:
    assert biriba.envs.openspiel.GAME_NAME in [g.short_name for g in pyspiel.registered_games()]


def test_ismcts_plays_at_a_web_table(tmp_path: Path) -> None:
    """The lobby offers the plugin's kind (/api/rules), and a table's IS-MCTS seat plays its turns."""
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        assert "openspiel-ismcts" in httpx.get(url + "/api/rules").json()["bots"]
        ismcts = {"kind": "bot", "bot": "openspiel-ismcts"}
        greedy = {"kind": "bot", "bot": "greedy"}
        table = create_table(url, [ismcts, greedy, greedy, greedy], bot_delay=0)

        async def watch() -> int:
            played = 0
            async with Player(url, table["id"], None) as watcher:
                while played < 2:
                    message = await watcher.receive(60)
                    played += sum(e.get("kind") == "action" and e.get("seat") == 0 for e in message.get("events", []))
            return played

        assert asyncio.run(watch()) >= 2, "the IS-MCTS seat played its turns"


def test_ismcts_in_the_command_line_tournament_and_game(tmp_path: Path) -> None:
    env = {**os.environ, "BIRIBA_DATA_DIR": str(tmp_path)}
    out = subprocess.run(
        [BIRIBA, "tournament", "greedy", "openspiel-ismcts:simulations=2", "--deals", "2", "--json", "--no-progress"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=300,
    )
    summary = json.loads(out.stdout)
    assert summary["bot_b"] == "openspiel-ismcts:simulations=2" and summary["games"] == 4
    played = subprocess.run(
        [BIRIBA, "play", "--plain", "--bots", "openspiel-ismcts", "--think-ms", "20", "--seed", "3"],
        input="quit\ny\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert "Your move" in played.stdout, played.stdout + played.stderr
