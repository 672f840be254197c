"""The real program at full screen, on an emulated terminal: 80x24, a large terminal, a resize, Ctrl-C."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from screen import Terminal


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
