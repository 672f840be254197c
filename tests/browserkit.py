"""Debian's Chromium, driven by Playwright, for the page's tests (never a browser download)."""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import shutil
import time
from collections.abc import Callable, Iterator
from typing import Any

from playwright.sync_api import Browser, Page, WebSocket, WebSocketRoute, sync_playwright

from biriba.deal import Deal
from biriba.records import position_from_json, position_to_json
from biriba.scoring import team_tables

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


# ------------------------------------------------------------ a crowded table

CROWDED = [
    ["3H 4H 5H 6H 7H 8H 9H", "5S 6S 7S 8S 9S TS JS QS", "KC KC KD KD KS KS KH", "3D 4D 5D JK=6D 7D 8D 9D TD",
     "AC AC AD", "9C TC JC", "3C 3C 3H", "QH KH AH"],
    ["3S 4S 5S 6S 7S 8S 9S TS JS QS", "6C 6C 6D JK", "3D 4D 5D 6D 7D", "8C 8C 8H",
     "JD JD JC", "5H 6H 7H 2S=8H 9H", "8D 9D TD", "AS AS AH"],
]  # fmt: skip
"""Eight melds a team, clean and dirty biribas among them: more than most deals ever hold."""


def crowded_board() -> tuple[list[list[list[str]]], list[dict[str, Any]]]:
    """CROWDED as a classic deal's melds (as every view shows them) and the engine's facts of each (the `board`).

    The melds' cards come out of a shuffled deal's stock, packets and hands, so the position is whole (R23a).
    """
    position = position_to_json(Deal.shuffled(seed=1))
    melds = [[meld.split() for meld in team] for team in CROWDED]
    for token in itertools.chain.from_iterable(itertools.chain.from_iterable(melds)):
        card = token.split("=")[0]
        places = (position["stock"], *position["packets"], *position["hands"], position["discard"])
        next(place for place in places if card in place).remove(card)
    position["melds"] = melds
    deal = position_from_json(position)
    return deal.view_for(0).to_json()["melds"], [team.to_json() for team in team_tables(deal)]


class Crowd:
    """The page's socket to the real server, with every state's melds replaced by CROWDED's, and chat lines added.

    The hand, the pile, the turns and the buttons are the real table's; only what
    the board shows is crowded (the `add` actions, which name the real melds, are
    left out).  ``chat(n)`` tells the page n lines said by the other seats.
    """

    def __init__(self, page: Page, melds: bool = True) -> None:
        self.melds, self.board = crowded_board()
        self.crowd = melds
        self.route: WebSocketRoute | None = None
        self.said = 0
        page.route_web_socket(re.compile(r"/ws"), self._route)

    def _route(self, route: WebSocketRoute) -> None:
        self.route = route
        server = route.connect_to_server()
        server.on_message(lambda message: route.send(self._changed(message)))

    def _changed(self, message: str | bytes) -> str:
        data = json.loads(message)
        if self.crowd and data.get("type") == "state" and data.get("view"):
            data["view"]["melds"] = self.melds
            data["board"] = self.board
            data["legal"] = [action for action in data["legal"] if not action.startswith("add")]
        return json.dumps(data)

    def chat(self, lines: int) -> None:
        assert self.route is not None, "the page has no socket yet"
        for _ in range(lines):
            self.said += 1
            seat = 1 + self.said % 3
            words = f"line {self.said}: a long line of chat, as friends write while they wait for their turn"
            at = time.time() + self.said
            line = {"type": "said", "seat": seat, "name": f"Bot {seat + 1}", "at": at, "text": words}
            self.route.send(json.dumps(line))
