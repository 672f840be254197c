"""The real ``biriba play`` on an emulated terminal: what a player's screen shows, as text.

Used by ``tests/test_tui_screen.py`` and to capture the README's screen
(``python tests/screen.py`` prints an 80x24 table).
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pexpect
import pyte

BIRIBA = str(Path(sys.executable).with_name("biriba"))


class Terminal:
    """``biriba play ARGS`` in a pseudo-terminal of ``cols`` x ``rows``, its screen kept by pyte."""

    def __init__(
        self, *args: str, cols: int = 80, rows: int = 24, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        # a player at a terminal, the program installed: on the PATH, not run by make (unless ``env`` says so)
        environment = dict(os.environ, TERM="xterm-256color")
        environment["PATH"] = os.pathsep.join([str(Path(BIRIBA).parent), environment.get("PATH", "")])
        for fixed in ("COLUMNS", "LINES", "MAKELEVEL", "MAKEFLAGS"):  # a fixed size would override the terminal's
            environment.pop(fixed, None)
        environment.update(env or {})
        self.child = pexpect.spawn(BIRIBA, ["play", *args], dimensions=(rows, cols), env=environment, cwd=cwd)

    def pump(self, seconds: float = 0.5) -> None:
        """Read what the program draws for a while."""
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.stream.feed(self.child.read_nonblocking(65536, timeout=0.05))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                return

    def wait_for(self, text: str, seconds: float = 60) -> str:
        """Pump until ``text`` is on the screen; returns the screen."""
        end = time.time() + seconds
        while time.time() < end:
            self.pump(0.2)
            if text in self.text():
                return self.text()
        raise AssertionError(f"{text!r} never showed; the screen:\n{self.text()}")

    def wait_for_match(self, pattern: str, seconds: float = 60) -> str:
        """Pump until the regular expression ``pattern`` matches the screen (parts may repaint apart)."""
        end = time.time() + seconds
        while time.time() < end:
            self.pump(0.2)
            if re.search(pattern, self.text()):
                return self.text()
        raise AssertionError(f"{pattern!r} never matched; the screen:\n{self.text()}")

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    def output_after_exit(self) -> str:
        """Everything the program writes once it has left the full screen, until it ends."""
        rest = b""
        while True:
            try:
                rest += self.child.read_nonblocking(65536, timeout=10)
            except (pexpect.EOF, pexpect.TIMEOUT):
                break
        self.child.close()
        self.stream.feed(rest)
        return rest.decode(errors="replace")


if __name__ == "__main__":
    terminal = Terminal("--seed", "3", "--delay", "0", env={"BIRIBA_DATA_DIR": "/tmp/biriba-screen"})
    terminal.wait_for("Your move")
    terminal.send("d")
    terminal.wait_for("You: draw")
    terminal.pump(0.5)
    print(terminal.text())
    terminal.send("\x03")
    terminal.output_after_exit()
