"""Golden legal-action counts per preset (``tests/golden.py`` explains and regenerates them).

Each stored position is loaded, written back to the same JSON, and its legal
actions counted, with the actions that follow each within the turn: any
change of enumeration or of the position format shows here first.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biriba.records import position_from_json, position_to_json
from biriba.rules import PRESETS
from golden import HERE, perft


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_golden_counts(name: str) -> None:
    lines = (HERE / f"{name}.jsonl").read_text().splitlines()
    assert len(lines) >= 10
    for number, line in enumerate(lines, 1):
        item = json.loads(line)
        deal = position_from_json(item["position"])
        written = position_to_json(deal)  # the same JSON (fields added since are optional)
        assert {k: written[k] for k in item["position"]} == item["position"], f"{name} position {number}"
        assert perft(deal) == (item["count"], item["ahead"]), f"{name} position {number}"


def test_golden_files_cover_every_preset() -> None:
    assert {p.stem for p in Path(HERE).glob("*.jsonl")} == set(PRESETS)
