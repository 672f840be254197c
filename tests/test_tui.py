"""The terminal game, driven end to end through a pseudo-terminal as a person would type."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pexpect

from biriba.replay import replay_record

BIRIBA = str(Path(sys.executable).with_name("biriba"))
PROMPT = r"Your move \((?:draw, take or pass|meld, add or discard)\) > "
NEXT_DEAL = r"Press Enter for the next deal"


def spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ, COLUMNS="120", LINES="60", TERM="xterm")
    child = pexpect.spawn(BIRIBA, ["play", "--delay", "0", "--plain", *args], env=env, encoding="utf-8", timeout=60)
    child.setwinsize(60, 120)
    return child


def play_my_turns(child: pexpect.spawn, until: str, limit: int = 400) -> int:
    """At every prompt ask for the hint and type it, until ``until`` shows; returns the turns played."""
    for moves in range(limit):
        index = child.expect([PROMPT, until])
        if index == 1:
            return moves
        child.sendline("hint")
        child.expect(r"Hint: ([^\r\n]+)\r?\n")
        action = child.match.group(1).strip()
        child.expect(PROMPT)
        child.sendline(action)
    raise AssertionError("the deal did not end")


def test_a_whole_deal_typed_at_the_prompt_then_saved_and_replayed(tmp_path: Path) -> None:
    save = tmp_path / "match.json"
    child = spawn("--seed", "11", "--save", str(save))
    child.expect("Your hand")
    moves = play_my_turns(child, NEXT_DEAL)
    assert moves > 0
    assert re.search(r"Deal 1 over: (closure|passes)", child.before)
    assert "deal total" in child.before and "match total" in child.before
    assert re.search(r"(Your team wins|East & West win|The deal is tied)", child.before)  # seed 004: the deal's winner
    child.sendline("quit")
    child.expect(pexpect.EOF)
    record = json.loads(save.read_text())
    replay = replay_record(record)
    assert replay.deals[0].is_over
    assert record["deals"][0]["result"]["team_scores"] == list(replay.deals[0].result().team_scores)


def test_a_whole_three_handed_deal_with_set_options(tmp_path: Path) -> None:
    save = tmp_path / "three.json"
    child = spawn("--seed", "5", "--rules", "three-handed", "--set", "target=900", "--save", str(save))
    child.expect("playing for yourself")
    child.expect("Your melds")
    assert play_my_turns(child, NEXT_DEAL + "|You win|win the match") > 0
    child.sendline("quit")
    child.expect(pexpect.EOF)
    record = json.loads(save.read_text())
    assert record["rules"]["seats"] == 3 and record["rules"]["target"] == 900
    assert replay_record(record).deals[0].is_over


def test_illegal_actions_explain_the_rule_and_change_nothing(tmp_path: Path) -> None:
    child = spawn("--seed", "12")
    child.expect(PROMPT)
    child.sendline("discard 9C")
    child.expect(r"Not allowed: R15: discard: first draw")
    child.expect(r"Your move \(draw, take or pass\) > ")  # still the draw phase
    child.sendline("meld JK JK JK")
    child.expect(r"Not allowed: R\d+")
    child.sendline("frobnicate")
    child.expect(r"Not allowed: notation: unknown action .frobnicate.")
    child.sendline("help")
    child.expect("add 2 7S 8S")
    child.sendline("pile")
    child.expect(r"Discard pile \(\d+\): bottom")
    child.sendline("draw")
    child.expect(r"You: draw \w\w")
    child.expect(r"Your move \(meld, add or discard\) > ")
    child.sendline("draw")
    child.expect(r"Not allowed: R15")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_save_and_resume_a_match(tmp_path: Path) -> None:
    save = tmp_path / "saved.json"
    child = spawn("--seed", "13", "--save", str(save))
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("The match is saved")
    child.expect(pexpect.EOF)
    before = json.loads(save.read_text())
    actions = before["deals"][0]["actions"]
    assert [0, "draw"] in actions
    resumed = spawn("--resume", str(save))
    resumed.expect("Resumed the match")
    resumed.expect(r"Your move \(meld, add or discard\) > ")  # right where it stopped
    resumed.sendline("hint")
    resumed.expect(r"Hint: ([^\r\n]+)\r?\n")
    hint = resumed.match.group(1).strip()
    resumed.expect(PROMPT)
    resumed.sendline(hint)
    resumed.expect(PROMPT)
    resumed.sendline("quit")
    resumed.expect(pexpect.EOF)
    after = json.loads(save.read_text())
    assert after["deals"][0]["actions"][: len(actions)] == actions
    assert replay_record(after).deals[0].history
