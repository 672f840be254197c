"""Self-play statistics: they count the deals asked for, whatever the number of processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biriba.rules import CLASSIC
from biriba.simulate import simulate


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_saved_records_hold_exactly_the_deals_counted(tmp_path: Path, jobs: int) -> None:
    short = CLASSIC.replace(target=800)  # matches of a deal or two, so the last one is cut short
    stats = simulate(5, ["greedy"], seed="cut", rules=short, save=tmp_path, jobs=jobs)
    records = [json.loads(path.read_text()) for path in sorted(tmp_path.glob("*.json"))]
    assert stats.deals == 5 and stats.matches == len(records) >= 2
    assert sum(len(record["deals"]) for record in records) == 5
    again = simulate(5, ["greedy"], seed="cut", rules=short, jobs=3 - jobs)
    assert again.to_json()["mean_team_scores"] == stats.to_json()["mean_team_scores"]
