"""The real program at full screen, on an emulated terminal: 80x24, a large terminal, a resize, Ctrl-C."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from biriba.rules import PRESETS
from helpers import mid_deal
from screen import BIRIBA, Terminal


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"BIRIBA_DATA_DIR": str(tmp_path / "data")}


def test_at_80x24_everything_needed_to_move_is_on_one_screen(env: dict[str, str]) -> None:
    terminal = Terminal("--seed", "3", "--delay", "0", "--rules", "atout", env=env)
    screen = terminal.wait_for("Your move")
    lines = terminal.screen.display
    assert len(lines) == 24 and all(len(line) == 80 for line in lines)
    for needle in ("first above 2500", "pts", "Stock", "Pile", "Packets", "Cards: East", "Trump", "Turn", "Your hand"):
        assert needle in screen, needle
    assert re.search(r"Your hand \(\d+\): ", screen) and "draw" in screen
    terminal.send("d")
    screen = terminal.wait_for("You: draw")
    assert re.search(r"Your move: [a-z, ]*discard\.", screen)  # only what is legal now
    terminal.send("\x03")  # ctrl-c
    after = terminal.output_after_exit()
    assert "Stopped. The match is saved in" in after and "--resume" in after
    assert terminal.child.exitstatus == 130


def test_a_large_terminal_uses_its_width_and_a_resize_redraws(env: dict[str, str]) -> None:
    terminal = Terminal("--seed", "4", "--delay", "0", cols=200, rows=50, env=env)
    screen = terminal.wait_for("Your move")
    assert max(len(line) for line in screen.splitlines()) > 120  # the melds' columns spread out
    terminal.resize(80, 24)
    terminal.pump(1.5)
    small = terminal.text()
    assert "Your hand" in small and "Your move" in small
    assert all(len(line) <= 80 for line in small.splitlines())
    terminal.send("q")
    terminal.wait_for("Quit now?")
    terminal.send("y")
    assert "saved in" in terminal.output_after_exit()


def test_at_80x24_six_players_alone_see_every_score_and_the_keys(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIRIBA_DATA_DIR", env["BIRIBA_DATA_DIR"])
    session = mid_deal(PRESETS["classic"].replace(seats=6, partnerships=False), seed=6)
    view = session.view()
    terminal = Terminal("--resume", str(session.save_path), "--delay", "0", env=env)
    terminal.wait_for("Your move")
    screen = terminal.wait_for("q quit")
    words = session.words
    for team in range(6):
        assert f"{words.team_label(team)}  {words.table_points(view, team)} pts, no reserve yet" in screen, screen
    assert "…" not in screen
    keys = screen.splitlines()[-1]
    for key in ("d draw", "m meld", "a add", "x discard", "h hint", "l log", "s score", "? help", "q quit"):
        assert key in keys, keys
    terminal.send("q")
    lines = terminal.wait_for("Quit now?").splitlines()
    said = next(index for index, line in enumerate(lines) if "The match is saved in" in line)
    end = next(index for index, line in enumerate(lines) if "'biriba play --resume' goes on" in line)
    parts = [line.split("█")[1].strip() for line in lines[said + 1 : end]]  # a long path takes lines
    assert "".join(parts) == str(session.save_path), lines
    assert all(part.startswith("/") for part in parts)  # broken before a /, never inside a name
    terminal.send("y")
    terminal.output_after_exit()


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.mark.parametrize("where", ["installed", "venv", "make"])
def test_the_stop_message_names_the_command_that_continues_the_match_where_the_player_is(
    where: str, tmp_path: Path
) -> None:
    """On the PATH the command is ``biriba``; after ``make play`` it is not there: the venv's script, or make."""
    save = tmp_path / "my match.json"
    env = {"BIRIBA_DATA_DIR": str(tmp_path / "data")}
    if where != "installed":
        env["PATH"] = "/usr/bin:/bin"
    if where == "make":
        env["MAKELEVEL"] = "1"
    root = Path(BIRIBA).parents[2]  # the checkout whose .venv runs the tests: where `make play` is typed
    terminal = Terminal("--seed", "3", "--delay", "0", "--save", str(save), env=env, cwd=str(root))
    terminal.wait_for("q quit")
    terminal.send("q")
    terminal.wait_for("Quit now?")
    terminal.send("y")
    said = " ".join(ANSI.sub("", terminal.output_after_exit()).split())
    resume = f"--resume '{save}'"
    script = os.path.relpath(BIRIBA, root)
    command = {
        "installed": f"biriba play {resume}",
        "venv": f"{script} play {resume}",
        "make": f'make play ARGS="{resume}"',
    }
    assert f"'{command[where]}' continues it" in said, said


def test_a_window_below_72x20_says_it_is_too_small_and_q_still_quits(env: dict[str, str]) -> None:
    terminal = Terminal("--seed", "3", "--delay", "0", cols=40, rows=12, env=env)
    screen = terminal.wait_for("The table needs 72x20")
    assert "This window is 40x12" in screen and "Your hand" not in screen
    terminal.resize(80, 24)
    screen = terminal.wait_for("Your hand")
    assert "The table needs" not in screen and "q quit" in screen.splitlines()[-1]
    terminal.resize(40, 12)
    terminal.wait_for("This window is 40x12")
    terminal.send("q")
    terminal.wait_for("Quit now?")
    terminal.send("y")
    assert "saved in" in terminal.output_after_exit()
