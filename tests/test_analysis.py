"""The analysis of a finished match (issue 53): what each decision cost, by the search bot's own valuation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biriba.analysis import LABELS, MARKS, Analysis, analyse_record, decide, label
from biriba.bots import table_bot
from biriba.cli import main
from biriba.match import Match
from biriba.records import load_json, position_from_json
from biriba.rules import PRESETS
from biriba.table import Table

POSITIONS = Path(__file__).parent / "positions"
#: Sampled deals a decision in these tests: fewer than the default, for time; the figures compared are far apart.
SAMPLES = 12


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """One classic deal: a random seat (0) against three hard ones."""
    kinds = ["random", "hard", "hard", "hard"]
    bots = [table_bot(kind, f"analysis/{seat}") for seat, kind in enumerate(kinds)]
    match = Match(PRESETS["classic"].replace(target=1), seed="analysis", max_turns=400)
    Table(match, list(bots)).play_match()
    return match.to_record()


@pytest.fixture(scope="module")
def analysis(record: dict[str, Any]) -> Analysis:
    return analyse_record(record, samples=SAMPLES, seed="s")


def test_a_random_seat_costs_far_more_a_decision_than_the_hard_seats(analysis: Analysis) -> None:
    mean = {s.seat: s.total_cost / s.decisions for s in analysis.seats()}
    assert mean[0] > 2 * max(mean[1], mean[2], mean[3]), mean
    accuracy = {s.seat: s.accuracy for s in analysis.seats()}
    assert accuracy[0] < min(accuracy[1], accuracy[2], accuracy[3]), accuracy


def test_the_discard_that_lets_the_other_team_close_is_a_blunder_and_the_safe_discard_is_better() -> None:
    """Seat 1 holds 5C 9D QS QD; seat 2 (the other team) holds one card, and its team has a biriba and its
    reserve (R22): 5C, QS or QD would join its melds, so seat 2 takes the pile, adds it and closes with its last
    card.  9D joins nothing of theirs."""
    deal = position_from_json(load_json(POSITIONS / "classic-discard-lets-the-other-team-close.json"))
    for bad in ("discard 5C", "discard QS"):
        found = decide(deal, deal.parse_action(bad), samples=32, seed=0)
        assert found is not None
        assert (found.label, found.best, found.perfect_best) == ("blunder", "discard 9D", "discard 9D"), found
        assert found.cost > 2 * found.uncertainty
    safe = decide(deal, deal.parse_action("discard 9D"), samples=32, seed=0)
    assert safe is not None and safe.cost == 0 and safe.label is None and safe.best == "discard 9D"


def test_a_fixed_seed_gives_the_same_analysis_whichever_seats_are_asked(
    record: dict[str, Any], analysis: Analysis
) -> None:
    again = analyse_record(record, seats=[2], samples=SAMPLES, seed="s")
    assert [d.to_json() for d in again.decisions] == [d.to_json() for d in analysis.decisions if d.seat == 2]
    assert {d.seat for d in again.decisions} == {2}


def test_every_decision_carries_its_figures_and_a_cost_is_never_negative(analysis: Analysis) -> None:
    data = analysis.to_json()
    assert data["format"] == "biriba-analysis/1" and data["labels"] == dict(LABELS)
    for item in data["decisions"]:
        assert {"seat", "action", "best", "cost", "label", "uncertainty", "perfect"} <= set(item)
        assert item["cost"] >= 0 and item["label"] == label(item["cost"], item["uncertainty"])
        assert item["cost"] == pytest.approx(item["best_value"] - item["value"], abs=0.11)
    assert sum(s["decisions"] for s in data["seats"]) == len(data["decisions"])


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1000), st.floats(0, 200))
def test_a_label_needs_its_threshold_and_a_cost_clear_of_the_noise(cost: float, uncertainty: float) -> None:
    given_label = label(cost, uncertainty)
    if given_label is None:
        assert cost < LABELS[-1][1] or cost <= 2 * uncertainty
    else:
        least = dict(LABELS)[given_label]
        assert cost >= least and cost > 2 * uncertainty
        assert all(cost < other for name, other in LABELS if other > least)  # the worst label it reaches


def test_biriba_analyse_prints_a_table_or_json(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main(["analyse", str(path), "--seat", "0", "--samples", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["samples"] == 4 and {d["seat"] for d in data["decisions"]} == {0}
    assert main(["analyse", str(path), "--seat", "1", "--samples", "4", "--deal", "1"]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "4 sampled deals a decision" in out
    assert main(["analyse", str(path), "--samples", "1"]) == 2
    assert "--samples is 2 or more" in capsys.readouterr().err
    assert main(["analyse", str(path), "--seat", "4"]) == 2
    assert "a seat is 0..3" in capsys.readouterr().err


def test_biriba_replay_marks_the_costly_moves_of_an_analysis(
    record: dict[str, Any], analysis: Analysis, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, made = tmp_path / "record.json", tmp_path / "analysis.json"
    path.write_text(json.dumps(record))
    made.write_text(json.dumps(analysis.to_json()))
    assert main(["replay", str(path), "--analysis", str(made)]) == 0
    lines = capsys.readouterr().out.splitlines()
    marked = [line for line in lines if " better " in line]
    labelled = [d for d in analysis.decisions if d.label]
    assert len(marked) == len(labelled) > 0
    for line, d in zip(marked, labelled):
        assert line.startswith(f"deal {d.deal} step {d.index:>3}") and f"{MARKS[d.label]} {d.label}" in line
        assert f"{d.action}  " in line and line.endswith(f"better {d.best}")
    assert sum(line.startswith("deal 1 step") for line in lines) == len(record["deals"][0]["actions"])
    shifted = analysis.to_json()
    shifted["decisions"] = [{**d, "action": "meld 3H 4H 5H"} for d in shifted["decisions"] if d["label"]]
    made.write_text(json.dumps(shifted))  # an analysis of another record: its moves differ
    assert main(["replay", str(path), "--analysis", str(made)]) == 2
    assert "analyses another record" in capsys.readouterr().err
