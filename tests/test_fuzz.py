"""The fuzz targets (fuzz/targets.py) on their seeds, on what the fuzzers found, and on planted faults.

The coverage-guided runs are ``make fuzz`` (atheris); here every target
reads its whole seed corpus, each kept finding, and a few hostile inputs,
and must end in a value or the project's own error.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from biriba.rules import CLASSIC

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
sys.path.insert(0, str(FUZZ))

import seeds  # noqa: E402
import targets  # noqa: E402

SEEDS = seeds.seeds()
HOSTILE = [
    b"",
    b"\x00",
    b"\xff\xfe",
    b"[" * 5000,
    b'{"format": "biriba-position/1", "rules": {"seats": 1e400}}',
    b'{"format": "biriba-record/1", "deals": [{"deck": "AS", "dealer": -1}]}',
    b'{"format": "biriba-position/1", "rules": "classic", "hands": [[], [], [], []]}',
    b'{"type": "action", "action": "add 99999999999999999999 AS", "version": 0}',
    b"\x03add 0 AS",
    b"\x03meld JK=JK JK=JK JK",
    b"\x01" + b"AS " * 2000,
    b"\x00target=1e9\nseats=-1",
    b"\x01cut_bonus\n[1, [2]]",
]


@pytest.mark.parametrize("name", sorted(targets.TARGETS))
def test_every_seed_and_hostile_input_ends_in_a_value_or_our_error(name: str) -> None:
    target = targets.TARGETS[name]
    assert SEEDS[name], "every target has seeds"
    for data in SEEDS[name] + HOSTILE:
        target(data)


#: Values JSON allows where a reader expects another (Python reads 1e400 as an infinity).
WRONG_VALUES: list[Any] = [
    1e400,
    -1e400,
    float("nan"),
    10**30,
    -1,
    1.5,
    True,
    None,
    "",
    "x",
    [],
    {},
    [[]],
    [None],
    [1e400],
]


def paths_into(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value (the first three items of a list)."""
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value[:3]) if isinstance(value, list) else ()
    for key, inner in items:
        yield from paths_into(inner, (*path, key))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    value = copy.deepcopy(value)
    inner = value
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = new
    return value


def wrong_versions(value: Any) -> Iterator[Any]:
    """The seed with one place changed: to a wrong value, or a list one item short or long."""
    for path in paths_into(value):
        here = value
        for key in path:
            here = here[key]
        lengths = [here[:-1], here + here[-1:]] if isinstance(here, list) and here else []
        for new in WRONG_VALUES + lengths:
            yield replaced(value, path, new)


def italian_record() -> Any:
    return json.loads((Path(__file__).parent / "records" / "v1-italian.json").read_text())


@pytest.mark.parametrize(
    ("name", "prefix", "seed"),
    [
        *(("position", b"", lambda data=data: json.loads(data)) for data in SEEDS["position"][::8]),
        ("record", b"", italian_record),
        ("options", b"\x02", lambda: {"base": "classic", **CLASSIC.options()}),
    ],
)
def test_a_wrong_value_at_any_place_of_a_seed_ends_in_a_value_or_our_error(
    name: str, prefix: bytes, seed: Callable[[], Any]
) -> None:
    """What the coverage-guided fuzzers find by chance (a score of 1e400, a list a team short), at every place."""
    for data in wrong_versions(seed()):
        targets.TARGETS[name](prefix + json.dumps(data).encode())


@pytest.mark.parametrize("name", sorted(targets.TARGETS))
def test_the_findings_the_fuzzers_made_stay_fixed(name: str) -> None:
    """Each input a fuzzer once found (fuzz/findings/<target>) now ends in a value or our error."""
    for path in sorted((FUZZ / "findings" / name).glob("*")):
        targets.TARGETS[name](path.read_bytes())


def test_a_planted_fault_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that raises a plain exception on bad input is what the targets report."""
    import biriba.records

    def broken(data: object) -> object:
        raise KeyError("hands")

    monkeypatch.setattr(targets, "position_from_json", broken)
    with pytest.raises(KeyError):
        targets.position(SEEDS["position"][0])
    assert biriba.records.position_from_json is not broken


def test_a_refusal_that_changes_the_position_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    from biriba.deal import Deal
    from biriba.errors import IllegalActionError

    def spoil_then_refuse(self: Deal, action: object, check: bool = True) -> object:
        self.turn += 1
        raise IllegalActionError("R15", "unknown_action", action="x")

    position = targets.positions()[0]  # made (and kept) before apply is spoiled: it is made by applying moves
    monkeypatch.setattr(Deal, "apply", spoil_then_refuse)
    with pytest.raises(targets.Finding, match="changed the position"):
        targets.try_action(position, "draw")


def test_seeds_are_written_once_per_content(tmp_path: Path) -> None:
    counts = seeds.write(tmp_path)
    assert set(counts) == set(targets.TARGETS)
    assert all(len(list((tmp_path / name).iterdir())) <= counts[name] for name in counts)
