"""Seed corpora for the fuzz targets, made from the tests' own data.

The golden positions of ``tests/golden`` (every preset), the records of
``tests/records``, the actions legal in those positions, the presets'
options, and the protocol's messages as docs/protocol.md gives them: valid
inputs for the fuzzer to mutate, so that it starts deep inside each parser.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from biriba.records import position_from_json
from biriba.rules import OPTION_NAMES, PRESETS, format_option

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = [
    {"type": "join", "token": "abc", "since": 0, "name": "Maria"},
    {"type": "join", "token": None, "since": 3},
    {"type": "action", "action": "meld 3H 4H 5H", "version": 17},
    {"type": "action", "action": "add 2 7S 8S wild=low", "version": 2},
    {"type": "next"},
    {"type": "ping"},
    {"type": "explain", "action": "meld 7H 8H"},
    {"type": "hint"},
    {"type": "hand_over", "bot": True},
    {"type": "leave"},
    {"type": "say", "phrase": "good_luck"},
    {"type": "say", "text": "well played"},
    {"type": "rematch", "seats": "same"},
]


def golden_positions(limit: int = 6) -> Iterator[dict[str, object]]:
    for path in sorted((ROOT / "tests" / "golden").glob("*.jsonl")):
        with path.open() as lines:
            for number, line in enumerate(lines):
                if number >= limit:
                    break
                yield json.loads(line)["position"]


def seeds() -> dict[str, list[bytes]]:
    """Each target's seed inputs."""
    found: dict[str, list[bytes]] = {"notation": [], "position": [], "record": [], "options": [], "protocol": []}
    for data in golden_positions():
        found["position"].append(json.dumps(data).encode())
        deal = position_from_json(data)
        for action in list(deal.legal_actions())[:8]:
            found["notation"].append(b"\x03" + str(action).encode())
            found["protocol"].append(json.dumps({"type": "action", "action": str(action), "version": 1}).encode())
        for team in deal.melds:
            for meld in team:
                found["notation"].append(b"\x02" + meld.text().encode())
        hand = " ".join(data["hands"][0])  # type: ignore[index]
        found["notation"] += [b"\x01" + hand.encode(), b"\x00" + hand.split()[0].encode()]
    for path in sorted((ROOT / "tests" / "records").glob("*.json")):
        found["record"].append(path.read_bytes())
    for number, rules in enumerate(PRESETS[name] for name in sorted(PRESETS)):
        found["options"].append(bytes([3 * number]) + json.dumps(rules.replace(target=3000).to_json()).encode())
        for option in OPTION_NAMES[number::4]:
            line = f"{option}={format_option(getattr(rules, option))}"
            found["options"].append(bytes([3 * number]) + line.encode())
            found["options"].append(bytes([3 * number + 1]) + f"{option}\n{line.partition('=')[2]}".encode())
    found["protocol"] += [json.dumps(m).encode() for m in MESSAGES]
    return found


def write(folder: Path) -> dict[str, int]:
    """Write each target's seeds into ``folder/<target>`` (files named by content); how many each got."""
    counts = {}
    for target, inputs in seeds().items():
        where = folder / target
        where.mkdir(parents=True, exist_ok=True)
        for data in inputs:
            (where / hashlib.sha1(data).hexdigest()).write_bytes(data)
        counts[target] = len(inputs)
    return counts
