"""Tournaments: duplicate deals, results that do not depend on the processes, honest intervals."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest

from biriba import tournament
from biriba.cli import main
from biriba.replay import load_match
from biriba.rules import CLASSIC, PRESETS
from biriba.tournament import Game, Pair, Spec, _t95, elo, play_pair, play_pairs, summarize, wilson


def test_a_pair_plays_one_deck_twice_with_the_sides_swapped() -> None:
    pair = play_pair(Spec("greedy", "random", seed="dup"), 3)
    assert len(pair.games) == 2
    first, second = pair.games
    assert first.lead > 0 and second.lead > 0  # greedy wins either side of the same deck
    assert (first.a, first.others) != (second.others[0], (second.a,))  # the bots, not the cards, changed sides


def test_results_are_the_same_with_one_or_two_processes() -> None:
    spec = Spec("greedy", "easy", seed="jobs")
    alone = play_pairs(spec, 6, jobs=1)
    shared = play_pairs(spec, 6, jobs=2)
    assert [(p.number, p.games) for p in alone] == [(p.number, p.games) for p in shared]
    assert summarize(spec, alone) == summarize(spec, shared)


@pytest.mark.needs("ray")
def test_results_are_the_same_on_a_local_ray_cluster() -> None:
    spec = Spec("greedy", "random", seed="ray")
    assert [p.games for p in play_pairs(spec, 3, ray_address="local")] == [p.games for p in play_pairs(spec, 3)]


def test_whole_matches_and_other_presets() -> None:
    spec = Spec("greedy", "random", rules=PRESETS["classic"].replace(target=600), seed="m", matches=True)
    pair = play_pair(spec, 0)
    assert all(g.ended_by == "match" for g in pair.games) and all(max(g.a, *g.others) > 600 for g in pair.games)


def test_with_three_players_alone_each_deck_is_played_from_every_seat() -> None:
    """One game per team: A in each seat in turn against B in the other two, compared with their mean."""
    spec = Spec("greedy", "random", rules=PRESETS["three-handed"], seed="3")
    games = play_pair(spec, 1).games
    assert len(games) == 3 and all(len(g.others) == 2 for g in games)
    assert len({(g.a, *g.others) for g in games}) == 3
    game = Game(100, (50, 100), "closure")
    assert game.lead == 25 and game.won == 0.75  # beat one, tied one
    summary = summarize(spec, play_pairs(spec, 3))
    assert summary.games == 9 and summary.mean_lead > 0


def test_the_intervals() -> None:
    low, high = wilson(0.5, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    assert wilson(1.0, 10)[0] == pytest.approx(0.7225, abs=1e-3)
    assert elo(0.5) == 0 and round(elo(0.64)) == 100
    assert _t95(11) == 2.228 and _t95(9) == 2.262 and _t95(500) == 1.980  # at or above the exact t: never too narrow
    spec = Spec("greedy", "random", seed="s")
    summary = summarize(spec, play_pairs(spec, 8))
    assert summary.lead_low < summary.mean_lead < summary.lead_high
    assert summary.win_low <= summary.win_share <= summary.win_high and summary.games == 16


def test_the_tournament_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "greedy", "random", "--deals", "4", "--json", "--save", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pairs"] == 4 and data["games"] == 8 and data["mean_lead"] > 0
    assert len(json.loads((tmp_path / "pairs.json").read_text())) == 4
    assert main(["tournament", "greedy", "wizard", "--deals", "4"]) == 2
    assert main(["tournament", "hard:samples=1,width=2", "greedy", "--deals", "2", "--no-progress"]) == 0
    assert "duplicate pairs" in capsys.readouterr().out


def test_R23_a_capped_game_keeps_its_record_which_replays_to_the_same_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop the turn cap ended can be looked into afterwards; a finished game keeps no record (the state stays
    small)."""
    spec = Spec("greedy", "random", seed="cap")
    assert all(g.record is None and g.ended_by != "capped" for g in play_pair(spec, 0).games)
    monkeypatch.setattr(tournament, "MAX_TURNS", 12)
    pair = play_pair(spec, 0)
    assert [g.ended_by for g in pair.games] == ["capped", "capped"]
    assert Pair.from_json(json.loads(json.dumps(pair.to_json()))) == pair
    for game, a_team in zip(pair.games, (0, 1)):
        assert game.record is not None
        assert game.record["players"] == ["greedy" if CLASSIC.team_of[s] == a_team else "random" for s in range(4)]
        deal = load_match(game.record).deals[0]
        assert str(deal.ended_by) == "capped" and deal.turn == 12
        assert (deal.result().team_scores[a_team], deal.result().team_scores[1 - a_team]) == (game.a, *game.others)
    assert [g.record["tournament"] for g in pair.games if g.record] == [
        {"seed": "cap", "pair": 0, "game": n} for n in (1, 2)
    ]
    matches = play_pair(Spec("greedy", "random", rules=CLASSIC.replace(target=600), seed="cap", matches=True), 0)
    for game, a_team in zip(matches.games, (0, 1)):
        assert game.record is not None and any(d["result"]["ended_by"] == "capped" for d in game.record["deals"])
        assert (game.record["totals"][a_team], game.record["totals"][1 - a_team]) == (game.a, *game.others)
    assert summarize(spec, [pair]).capped == [(0, 1), (0, 2)]


def test_R23_the_kept_ismcts_loop_replays_to_its_cap() -> None:
    """docs/bots.md's account of the IS-MCTS loop, held to its record: after the stock ran out the IS-MCTS
    seats (0 and 2) kept taking the one-card pile, hard's seats passed, and four passes never came in a row."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "tournaments" / "27-ismcts-loop-capped.json"
    record = json.loads(path.read_text())
    assert record["players"][0].startswith("openspiel-ismcts") and record["players"][1].startswith("hard")
    actions = record["deals"][0]["actions"]
    last_draw = max(i for i, (_, text) in enumerate(actions) if text == "draw")
    assert (last_draw + 1, len(actions)) == (226, 666)
    before = {**record["deals"][0], "actions": actions[: last_draw + 1], "result": None}
    assert load_match({**record, "deals": [before]}).deals[0].stock_count == 0
    (replayed,) = load_match(record).deals
    result = replayed.result()
    assert result.ended_by == "capped" and result.team_scores == (150, 1175)
    after = [(seat % 2, text.split()[0]) for seat, text in actions[last_draw + 1 :]]
    assert [after.count((team, verb)) for team in (0, 1) for verb in ("take", "pass")] == [121, 33, 2, 151]
    passes_in_a_row = max(len(run) for run in "".join("p" if verb == "pass" else "." for _, verb in after).split("."))
    assert passes_in_a_row == 3


def test_the_tournament_command_writes_the_records_of_capped_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tournament, "MAX_TURNS", 12)
    (tmp_path / "capped-0007-1.json").write_text("{}")  # an earlier run's, into the same folder: not this run's
    assert main(["tournament", "greedy", "random", "--deals", "2", "--no-progress", "--save", str(tmp_path)]) == 0
    assert "capped deal: pair 0 game 1, pair 0 game 2, pair 1 game 1, pair 1 game 2 (" in capsys.readouterr().out
    assert "record" not in (tmp_path / "pairs.json").read_text()  # the scores; the records are files of their own
    records = sorted(tmp_path.glob("capped-*.json"))
    assert [r.name for r in records] == ["capped-0000-1.json", "capped-0000-2.json", "capped-0001-1.json",
                                         "capped-0001-2.json"]  # fmt: skip
    assert main(["replay", str(records[0])]) == 0
    assert "ended by capped" in capsys.readouterr().out


def test_a_tournament_resumes_from_its_state_and_plays_only_the_pairs_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.json"
    command = ["tournament", "greedy", "random", "--seed", "st", "--json", "--no-progress", "--state", str(state)]
    assert main([*command, "--deals", "3"]) == 0
    first = json.loads(capsys.readouterr().out)
    kept = json.loads(state.read_text())
    assert kept["format"] == "biriba-tournament/1" and [p["pair"] for p in kept["pairs"]] == [0, 1, 2]
    assert all(len(p["ms"]) == 2 and p["ms"][0] for p in kept["pairs"])  # each bot's decision times
    kept["pairs"][0]["games"][0]["a"] += 10_000  # a kept pair is not played again: its games stay as kept
    state.write_text(json.dumps(kept))
    assert main([*command, "--deals", "5"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert main(["tournament", "greedy", "random", "--seed", "st", "--json", "--deals", "5"]) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert resumed["pairs"] == fresh["pairs"] == 5 and resumed["games"] == 10
    assert resumed["mean_lead"] == pytest.approx(fresh["mean_lead"] + 10_000 / 2 / 5)
    assert [p["pair"] for p in json.loads(state.read_text())["pairs"]] == [0, 1, 2, 3, 4]
    assert main([*command, "--deals", "2"]) == 0  # fewer: the first two, nothing played
    assert json.loads(capsys.readouterr().out)["pairs"] == 2 and first["pairs"] == 3


def test_a_state_file_named_gz_is_kept_gzipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state.json.gz"
    command = ["tournament", "greedy", "random", "--seed", "gz", "--json", "--no-progress", "--state", str(state)]
    assert main([*command, "--deals", "2"]) == 0
    capsys.readouterr()
    assert [p["pair"] for p in json.loads(gzip.decompress(state.read_bytes()))["pairs"]] == [0, 1]
    assert main([*command, "--deals", "3"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert main(["tournament", "greedy", "random", "--seed", "gz", "--json", "--deals", "3"]) == 0
    assert resumed == json.loads(capsys.readouterr().out) | {"median_ms": resumed["median_ms"]}
    state.write_text("{}")  # not gzipped
    assert main([*command, "--deals", "3"]) != 0
    assert "is not gzipped JSON" in capsys.readouterr().err


def test_a_state_file_of_another_tournament_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = str(tmp_path / "state.json")
    assert main(["tournament", "greedy", "random", "--deals", "2", "--no-progress", "--state", state]) == 0
    capsys.readouterr()
    assert main(["tournament", "greedy", "easy", "--deals", "2", "--no-progress", "--state", state]) == 2
    assert "holds another tournament (greedy against random, classic, seed 0)" in capsys.readouterr().err
    assert main(["tournament", "greedy", "random", "--deals", "2", "--rules", "italian", "--state", state]) == 2
    Path(state).write_text('{"format": "biriba-soak/2"}')
    assert main(["tournament", "greedy", "random", "--deals", "2", "--no-progress", "--state", state]) != 0
    assert "is not a tournament's state" in capsys.readouterr().err


def test_a_bots_bad_settings_are_refused_before_any_deal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "hard:depth=3", "greedy", "--deals", "2", "--no-progress"]) == 2
    assert "hard:depth=3: a bot's settings" in capsys.readouterr().err
    assert main(["tournament", "greedy:samples=4", "greedy", "--deals", "2", "--no-progress"]) == 2
    assert "takes no settings" in capsys.readouterr().err
    assert main(["tournament", "hard:think_ms=2.5e2,samples=1", "greedy", "--deals", "2", "--no-progress"]) == 0


def test_saved_runs_merge_into_one_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/merge_runs.py``: how docs/bots.md's rows were put together from runs."""
    import runpy

    for seed in ("m1", "m2"):
        saved = str(tmp_path / seed)
        assert main(["tournament", "greedy", "random", "--deals", "3", "--seed", seed, "--json", "--save", saved]) == 0
        (tmp_path / seed / "out.json").write_text(capsys.readouterr().out)
    merge = runpy.run_path(str(Path(__file__).resolve().parent.parent / "benchmarks" / "merge_runs.py"))["main"]
    assert merge(["greedy", "random", str(tmp_path / "m1"), str(tmp_path / "m2")]) == 0
    out = capsys.readouterr().out
    assert "2 runs merged" in out and "6 duplicate pairs, 12 games" in out and "median decision of greedy" in out


def test_an_elo_beyond_every_game_says_it_has_no_finite_estimate() -> None:
    spec = Spec("greedy", "random", seed="s")
    summary = summarize(spec, play_pairs(spec, 2))
    lost = dataclasses.replace(summary, win_share=0.0, win_low=0.0, win_high=0.6, elo=elo(0.0), elo_low=elo(0.0))
    lost = dataclasses.replace(lost, elo_high=elo(0.6))
    line = next(text for text in lost.lines() if text.startswith("Elo"))
    assert line == "Elo difference: below +70 (every game lost: no finite estimate of the difference)"
    assert "-2400" not in line
