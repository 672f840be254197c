"""The engine's refusals as data: a key of REASONS and its parameters, said in English from one template."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from biriba import Deal, IllegalActionError
from biriba.cards import card_name
from biriba.reasons import REASONS, placeholders, say

SRC = Path(__file__).resolve().parent.parent / "src" / "biriba"


def test_a_count_picks_its_noun_and_a_nested_reason_is_said_inside() -> None:
    assert say("out_needs_biribas", {"count": 1}) == "going out needs a biriba on your team's table"
    assert say("out_needs_biribas", {"count": 2}) == "going out needs 2 biribas on your team's table"
    inner = {"key": "out_needs_biribas", "params": {"count": 2}}
    assert say("only_runs_are_biribas", {"why": inner}) == (
        "going out needs 2 biribas on your team's table, and under these rules only runs are biribas"
    )
    assert say("set_short", {"rank": "K", "cards": "KH KS"}) == "not enough Ks for a set (KH KS)"


def test_a_refusal_keeps_its_rule_key_and_params_and_survives_pickling() -> None:
    error = IllegalActionError("R22", "keep_two_to_go_out", why=IllegalActionError("R22", "out_by_discard"))
    assert error.params == {"why": {"key": "out_by_discard", "params": {}}}
    assert str(error) == (
        "R22: keep at least 2 cards, as your last one could not go out:"
        " with your team's reserve taken, go out by discarding, never by melding"
    )
    again = pickle.loads(pickle.dumps(error))
    assert (again.rule, again.key, again.params, str(again)) == (error.rule, error.key, error.params, str(error))


def test_a_refusal_from_play_names_its_template_and_fills_every_placeholder() -> None:
    """R15: an action before the draw; R7 (min_meld): two cards are no meld."""
    deal = Deal.shuffled(seed=3)
    with pytest.raises(IllegalActionError) as before_drawing:
        deal.apply(deal.parse_action(f"discard {card_name(deal.view_for(deal.to_move).hand[0])}"))
    assert (before_drawing.value.rule, before_drawing.value.key) == ("R15", "draw_first")
    deal.apply(deal.parse_action("draw"))
    hand = [card_name(c) for c in deal.view_for(deal.to_move).hand]
    with pytest.raises(IllegalActionError) as short:
        deal.apply(deal.parse_action(f"meld {hand[0]} {hand[-1]}"))
    assert short.value.key == "meld_too_small"
    assert set(short.value.params) == placeholders(REASONS["meld_too_small"])
    assert short.value.params["count"] == 2


def test_every_template_is_raised_by_the_engine_and_its_text_is_plain() -> None:
    """No template without a raise (its key appears as a literal in the engine), none with a stray brace."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in SRC.rglob("*.py") if path.name != "reasons.py")
    literals = set(re.findall(r'"(\w+)"', source))
    assert sorted(key for key in REASONS if key not in literals) == []
    for key, template in REASONS.items():
        bare = re.sub(r"\{\w+(?:\|[^|}]*\|[^|}]*)?\}", "", template)
        assert "{" not in bare and "}" not in bare, key
