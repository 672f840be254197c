"""The terminal game's line mode and its command line, driven through a pseudo-terminal as a person types.

The full-screen table has its own tests (``test_tui_app.py``, Textual's
pilot; ``test_tui_screen.py``, the real program on an emulated terminal).
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sys
from pathlib import Path

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

from biriba.replay import replay_record
from helpers import default_interrupt

BIRIBA = str(Path(sys.executable).with_name("biriba"))
PROMPT = r"Your move \((?:draw|take|pass|meld|add|discard|, )+\) > "
NEXT_DEAL = r"Press Enter for the next deal"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Autosaves go to a folder of the test's own."""
    monkeypatch.setenv("BIRIBA_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data" / "matches"


def spawn(*args: str, plain: bool = True) -> pexpect.spawn:
    env = dict(os.environ, COLUMNS="120", LINES="60", TERM="xterm")
    flags = ["--delay", "0", *(["--plain"] if plain else [])]
    child = pexpect.spawn(
        BIRIBA, ["play", *flags, *args], env=env, encoding="utf-8", timeout=60, preexec_fn=default_interrupt
    )
    child.setwinsize(60, 120)
    return child


def play_my_turns(child: pexpect.spawn, until: str, limit: int = 400) -> int:
    """At every prompt ask for the hint and type it, until ``until`` shows; returns the turns played."""
    for moves in range(limit):
        index = child.expect([PROMPT, until, r"\(y/N\) > "])
        if index == 1:
            return moves
        if index == 2:  # the last-card question
            child.sendline("y")
            continue
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
    assert re.search(r"Deal 1 over: (.+ went out|ended by (four passes|idle rounds))", child.before)
    assert "deal total" in child.before and "match total" in child.before
    assert re.search(r"(Your team wins|East & West win|The deal is tied)", child.before)  # the deal's winner
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


def test_illegal_actions_explain_the_rule_and_change_nothing() -> None:
    child = spawn("--seed", "12")
    child.expect(PROMPT)
    child.sendline("discard 9C")
    child.expect(r"Not allowed: R15: first draw from the stock")
    child.expect(r"Your move \(draw(, take)?\) > ")  # still the draw phase, and only what is legal
    child.sendline("meld JK JK JK")
    child.expect(r"Not allowed: R\d+")
    child.sendline("frobnicate")
    child.expect(r"Not allowed: notation: unknown action .frobnicate.")
    child.sendline("x" * 1000)
    child.expect(r"Not allowed: notation: an action is at most 200 characters, this line has 1000\r?\n")
    child.sendline("help")
    child.expect("add 2 7S 8S")
    child.expect("greedy")  # the bot kinds, a line each
    child.sendline("pile")
    child.expect(r"Pile \d+: bottom")
    child.sendline("rule r15")  # the rule a refusal named, in full, from the rule book shipped with the package
    child.expect(r"R15 A turn is: one draw action, then any number of meld/add actions")
    child.sendline("rule R99")
    child.expect(r"no rule R99: the rules are R1\.\.R30 \(some with a letter\) and D1\.\.D\d+")
    child.sendline("rules")
    child.expect(r"The rules at this table: classic\r?\n +the primary profile")
    child.expect(r"idle_rounds 2: .*D36")
    child.sendline("d")  # the shortcut
    child.expect(r"You: draw \w\w")
    child.expect(r"Your move \(meld, add, discard\) > |Your move \(discard\) > ")
    child.sendline("draw")
    child.expect(r"Not allowed: R15")
    child.sendline("quit")
    child.expect(r"Quit now\? \(y/N\) > ")
    child.sendline("n")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"\(y/N\) > ")
    child.sendline("y")
    child.expect("The match is saved in")
    child.expect(pexpect.EOF)


def test_the_prompt_offers_pass_only_when_the_stock_is_empty() -> None:
    child = spawn("--seed", "12")
    child.expect(r"Your move \(([a-z, ]+)\) > ")
    assert "pass" not in child.match.group(1)
    child.sendline("pass")
    child.expect(r"Not allowed: R23")
    child.sendline("quit")
    child.sendline("y")
    child.expect(pexpect.EOF)


def test_plain_output_is_plain_ascii() -> None:
    child = spawn("--seed", "14")
    child.logfile_read = io.StringIO()
    child.expect(PROMPT)
    child.sendline("legal")
    child.expect(PROMPT)
    child.sendline("quit")
    child.sendline("y")
    child.expect(pexpect.EOF)
    seen = child.logfile_read.getvalue()
    assert "Your hand" in seen and "legal actions" in seen
    assert seen.isascii(), sorted({c for c in seen if not c.isascii()})


def test_since_your_last_turn_shows_everything_and_log_shows_the_deal() -> None:
    child = spawn("--seed", "15")
    child.expect("Since your last turn")
    child.expect(PROMPT)
    assert "Deal 1:" in child.before
    child.sendline("d")
    while True:  # play this turn; the table is drawn again when the turn comes round
        index = child.expect([PROMPT, r"\(y/N\) > "])
        if index == 1:
            child.sendline("y")
            continue
        if "You to draw or take" in child.before:
            break
        child.sendline("hint")
        child.expect(r"Hint: ([^\r\n]+)\r?\n")
        hint = child.match.group(1).strip()
        child.expect(PROMPT)
        child.sendline(hint)
    story = child.before.split("Since your last turn", 1)[1]
    for seat in ("East:", "West:", "North (partner):"):
        assert seat in story, seat  # every seat's play since your last turn, none cut
    assert "Deal 1:" not in story and "You: draw" not in story
    child.sendline("log")
    child.expect(PROMPT)
    assert "Deal 1:" in child.before and "You: draw" in child.before
    child.sendline("score")
    child.expect("Score sheet")
    child.sendline("quit")
    child.sendline("y")
    child.expect(pexpect.EOF)


def test_save_and_resume_a_match(tmp_path: Path) -> None:
    save = tmp_path / "saved.json"
    child = spawn("--seed", "13", "--save", str(save))
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect(PROMPT)
    child.sendline("quit")
    child.sendline("y")
    child.expect("The match is saved")
    child.expect(pexpect.EOF)
    before = json.loads(save.read_text())
    actions = before["deals"][0]["actions"]
    assert [0, "draw"] in actions
    resumed = spawn("--resume", str(save))
    resumed.expect("Resumed the match")
    resumed.expect(r"Your move \((meld, add, )?discard\) > ")  # right where it stopped
    assert "Since your last turn" in resumed.before and "You: draw" in resumed.before  # the story, told again
    resumed.sendline("log")
    resumed.expect(PROMPT)
    assert "Deal 1:" in resumed.before
    resumed.sendline("hint")
    resumed.expect(r"Hint: ([^\r\n]+)\r?\n")
    hint = resumed.match.group(1).strip()
    resumed.expect(PROMPT)
    resumed.sendline(hint)
    resumed.expect(r"\(y/N\) > |" + PROMPT)
    resumed.sendline("quit")
    resumed.sendline("y")
    resumed.expect(pexpect.EOF)
    after = json.loads(save.read_text())
    assert after["deals"][0]["actions"][: len(actions)] == actions
    assert replay_record(after).deals[0].history


def test_every_match_is_autosaved_and_resume_without_a_file_takes_the_last(data_dir: Path) -> None:
    child = spawn("--seed", "16")
    child.expect(r"saved after every move in ([^\r\n]+)\r?\n")
    path = Path(child.match.group(1).strip())
    assert path.parent == data_dir and path.exists()
    child.expect(PROMPT)
    child.sendline("d")
    child.expect(r"You: draw")
    child.expect(r"> ")
    child.sendeof()  # ctrl-d
    child.expect(f"saved in {re.escape(str(path))}")
    child.expect(pexpect.EOF)
    listing = pexpect.run(f"{BIRIBA} play --list", encoding="utf-8", env=dict(os.environ))
    assert str(path) in listing and "unfinished" in listing
    resumed = spawn("--resume")
    resumed.expect(f"Resumed the match from {re.escape(str(path))}")
    resumed.expect(r"Your move \(")
    resumed.sendline("quit")
    resumed.sendline("y")
    resumed.expect(pexpect.EOF)


def test_ctrl_c_says_where_the_match_is_saved() -> None:
    child = spawn("--seed", "17")
    child.expect(r"saved after every move in ([^\r\n]+)\r?\n")
    path = child.match.group(1).strip()
    child.expect(PROMPT)
    child.kill(signal.SIGINT)
    child.expect(f"Stopped. The match is saved in {re.escape(path)}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--save", "/nonexistent-dir/x.json"], r"the folder /nonexistent-dir does not exist"),
        (["--set", "seats=abc"], r"--set seats=abc: seats takes a whole number"),
        (["--bots", "wizard"], r"unknown bot kind 'wizard'"),
        (["--think-ms", "0"], r"--think-ms is a number of milliseconds, more than 0"),
        (["--think-ms", "nan"], r"--think-ms is a number of milliseconds, more than 0"),
        (["--rules", "atout", "--set", "seats=3"], r"for 3 players alone, also --set partnerships=false"),
    ],
)
def test_bad_start_options_give_one_line_and_exit_2(args: list[str], message: str) -> None:
    command = " ".join([BIRIBA, "play", *args])
    out, status = pexpect.run(command, encoding="utf-8", withexitstatus=True, env=dict(os.environ))
    assert status == 2 and re.search(message, out), out
    assert len(out.strip().splitlines()) == 1 and "Traceback" not in out


def test_save_refuses_to_overwrite_a_saved_match_without_force(tmp_path: Path) -> None:
    save = tmp_path / "keep.json"
    child = spawn("--seed", "18", "--save", str(save))
    child.expect(PROMPT)
    child.sendline("quit")
    child.sendline("y")
    child.expect(pexpect.EOF)
    kept = save.read_text()
    out, status = pexpect.run(
        f"{BIRIBA} play --save {save}", encoding="utf-8", withexitstatus=True, env=dict(os.environ)
    )
    assert status == 2 and "--resume" in out and "--force" in out and save.read_text() == kept
    child = spawn("--seed", "19", "--save", str(save), "--force")
    child.expect(PROMPT)
    child.sendline("quit")
    child.sendline("y")
    child.expect(pexpect.EOF)
    assert json.loads(save.read_text())["seed"] == "19"


def test_piped_line_mode_prints_the_table_once_a_turn_unwrapped_and_takes_the_short_forms() -> None:
    """A log of the line mode: the whole table when a turn comes, then only what changed; no line wrapped or
    padded; ``x 9C``, ``m ...`` and ``a N ...`` as the full screen's keys."""
    env = dict(os.environ, COLUMNS="80", LINES="24")
    child = PopenSpawn(
        [BIRIBA, "play", "--plain", "--seed", "3", "--delay", "0"], env=env, encoding="utf-8", timeout=60
    )
    child.logfile_read = io.StringIO()
    turns, shortened = 0, set()
    while turns < 3:
        child.expect(PROMPT)
        if "(draw" in child.after:
            turns += 1
        child.sendline("hint")
        child.expect(r"Hint: ([^\r\n]+)\r?\n")
        word, _, rest = child.match.group(1).strip().partition(" ")
        child.expect(PROMPT)
        short = {"discard": "x", "meld": "m", "add": "a"}.get(word, word)
        shortened.add(short)
        child.sendline(f"{short} {rest}".strip())
    assert "x" in shortened
    child.sendline("table")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"\(y/N\) > ")
    child.sendline("y")
    child.expect("Stopped")
    assert child.wait() == 0
    log = child.logfile_read.getvalue()
    assert "Not allowed" not in log
    lines = log.splitlines()
    long = "Biriba, classic: you sit South, with your partner North; play goes to your right."
    long += " Type 'help' for help."
    assert long in lines  # longer than the 80 columns, and whole
    assert [line for line in lines if line != line.rstrip() and not line.endswith("> ")] == []
    assert log.count("Cards in hand:") == turns + 1  # each turn's start, and the table command
    assert re.search(r"> You: (draw|takes?) [^\n]+\nYour hand \(\d+\): ", log)  # in the turn: the action, the hand
