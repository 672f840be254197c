"""Debian's Chromium, driven by Playwright, for the page's tests (never a browser download)."""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from collections.abc import Callable, Iterator

from playwright.sync_api import Browser, Page, WebSocket, sync_playwright

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]  # fmt: skip


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=FLAGS)
        yield browser
        browser.close()


class Sockets:
    """The page's WebSockets as the test sees them come: when each was opened, and when it first told a state.

    Times are ``time.monotonic()`` when Playwright reports the event, which it
    does while the test waits (:meth:`wait` polls every 50 ms).
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.opened: list[float] = []
        self.stated: dict[int, float] = {}  # a socket's index in `opened`: its first state
        page.on("websocket", self._opened)

    def _opened(self, socket: WebSocket) -> None:
        index = len(self.opened)
        self.opened.append(time.monotonic())

        def heard(payload: str | bytes) -> None:
            if index not in self.stated and json.loads(payload).get("type") == "state":
                self.stated[index] = time.monotonic()

        socket.on("framereceived", heard)

    def first_state_after(self, moment: float) -> float | None:
        """When a socket opened after ``moment`` first told a state."""
        times = [at for index, at in self.stated.items() if self.opened[index] > moment]
        return min(times) if times else None

    def wait(self, done: Callable[[], bool], seconds: float, what: str) -> None:
        end = time.monotonic() + seconds
        while not done():
            assert time.monotonic() < end, f"{what}: not within {seconds} s"
            self.page.wait_for_timeout(50)
