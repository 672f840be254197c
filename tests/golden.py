"""Golden legal-action counts per preset, as chess engines keep perft files.

``tests/golden/PRESET.jsonl`` holds seeded positions, one JSON object a
line: the complete position, ``count`` (its legal actions) and ``ahead`` (the
sum, over those actions, of the legal actions that follow within the same
turn).  They were generated once by this script; ``tests/test_golden.py``
checks the engine against them in ``make test``, so every later optimisation
of the enumeration is guarded.  Regenerate only when a rule change is meant
to change the counts: ``python tests/golden.py`` (and say why in the commit);
``python tests/golden.py PRESET`` writes one preset's file (a new preset).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from biriba.deal import Deal
from biriba.records import position_to_json
from biriba.rules import PRESETS

HERE = Path(__file__).resolve().parent / "golden"
POSITIONS_PER_PRESET = 12


def perft(deal: Deal) -> tuple[int, int]:
    """The mover's legal actions, and the sum of the legal actions after each one within the turn."""
    actions = list(deal.legal_actions())
    ahead = 0
    for action in actions:
        after = deal.clone()
        after.apply(action, check=False)
        if not after.is_over and after.to_move == deal.to_move and after.phase == "play":
            ahead += after.legal_actions().count()
    return len(actions), ahead


def sample_positions(name: str) -> list[dict[str, Any]]:
    """Positions met by seeded random play that hoards (takes the pile, melds late): big hands, many actions."""
    rules = PRESETS[name]
    rng = random.Random(f"golden/{name}")
    out: list[dict[str, Any]] = []
    seed = 0
    while len(out) < POSITIONS_PER_PRESET:
        deal = Deal.shuffled(f"golden/{name}/{seed}", dealer=seed % rules.seats, rules=rules, max_turns=300)
        deal.match_scores = tuple(rng.choice([0, 1200, 1700]) for _ in rules.teams)
        seed += 1
        while not deal.is_over and len(out) < POSITIONS_PER_PRESET:
            actions = list(deal.legal_actions())
            if len(actions) >= 20 and rng.random() < 0.08:
                count, ahead = perft(deal)
                out.append({"position": position_to_json(deal), "count": count, "ahead": ahead})
            melds = [a for a in actions if a.kind in ("meld", "add")]
            takes = [a for a in actions if a.kind == "take"]
            if takes and rng.random() < 0.6:
                choice = takes[0]
            elif melds and rng.random() < 0.25:
                choice = rng.choice(melds)
            else:
                choice = rng.choice([a for a in actions if a.kind not in ("meld", "add")] or actions)
            deal.apply(choice, check=False)
    return out


def main() -> int:
    HERE.mkdir(exist_ok=True)
    for name in sys.argv[1:] or PRESETS:
        lines = [json.dumps(item, separators=(",", ":")) for item in sample_positions(name)]
        (HERE / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
        print(f"{name}: {len(lines)} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
