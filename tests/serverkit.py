"""Helpers for the web game's tests and benchmark: a real server on a free port, and WebSocket players.

``running_server`` runs the app with uvicorn in a thread of the test
process (loopback HTTP and WebSockets, the real protocol);
``server_process`` runs ``biriba serve`` as its own process, to be killed.
A :class:`Player` is one browser tab: it joins a seat and answers its turns
with a bot of its own, from the legal actions the server sends.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import uvicorn
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from biriba.server import create_app
from biriba.server.config import ServerConfig

BIRIBA = str(Path(sys.executable).with_name("biriba"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_server(db: str, config: ServerConfig | None = None) -> Iterator[str]:
    """The app on a free port in a thread; yields its base URL."""
    with serving(db, config) as (url, _app):
        yield url


@contextlib.contextmanager
def serving(db: str, config: ServerConfig | None = None) -> Iterator[tuple[str, FastAPI]]:
    """The app (with ``config``, else two bot workers) on a free port in a thread; yields its URL and the app."""
    port = free_port()
    app = create_app(db, config or ServerConfig(bot_workers=2))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=65536))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    wait_until_up(url)
    try:
        yield url, app
    finally:
        server.should_exit = True
        thread.join(timeout=20)


@contextlib.contextmanager
def server_process(
    db: str, port: int | None = None, env: dict[str, str] | None = None, biriba: str = BIRIBA, *flags: str
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``biriba serve`` (of this venv, or the ``biriba`` given, with ``flags``) as a process of its own; yields its
    URL and the process (to kill)."""
    port = port or free_port()
    process = subprocess.Popen(
        [biriba, "serve", "--port", str(port), "--db", db, "--bot-workers", "1", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=dict(os.environ, **(env or {})),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, process)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=20)


def wait_until_up(url: str, process: subprocess.Popen[bytes] | None = None, seconds: float = 30) -> None:
    end = time.time() + seconds
    while time.time() < end:
        if process is not None and process.poll() is not None:
            output = process.stdout.read().decode() if process.stdout else ""
            raise AssertionError(f"the server stopped: {output}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/api/rules", timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise AssertionError("the server did not come up")


#: A person's seat and a greedy bot's, as ``POST /api/tables`` takes them.
PERSON = {"kind": "person"}
GREEDY = {"kind": "bot", "bot": "greedy"}


def create_table(url: str, seats: list[dict[str, Any]], **settings: Any) -> dict[str, Any]:
    body = {"rules": settings.pop("rules", "classic"), "seats": seats, **settings}
    response = httpx.post(url + "/api/tables", json=body, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def sit(url: str, table_id: str, seat: int, name: str) -> str:
    response = httpx.post(f"{url}/api/tables/{table_id}/seats/{seat}", json={"name": name}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()["token"]  # type: ignore[no-any-return]


#: A signed-in client: its cookies, and the headers of its writes (``X-CSRF-Token``).
SignedIn = tuple[dict[str, str], dict[str, str]]


def signed_up(url: str, name: str, password: str = "correct horse battery") -> SignedIn:
    """An account made, from an address of its name's own (sign-ups are limited to five an hour an address)."""
    address = {"X-Forwarded-For": f"198.51.100.{zlib.crc32(name.encode()) % 250 + 1}"}
    made = httpx.post(f"{url}/api/accounts", json={"name": name, "password": password}, headers=address, timeout=30)
    assert made.status_code == 201, made.text
    return {"biriba_session": made.cookies["biriba_session"]}, {"X-CSRF-Token": made.json()["csrf"]}


def sit_signed_in(url: str, table_id: str, seat: int, who: SignedIn) -> str:
    """``who`` sits at ``seat`` (under their account's name); the seat's token."""
    seated = f"{url}/api/tables/{table_id}/seats/{seat}"
    answer = httpx.post(seated, json={"name": "Anyone"}, cookies=who[0], headers=who[1], timeout=10)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["token"])


def played_out(url: str, table_id: str, tokens: list[str]) -> None:
    """Every token's seat plays random legal moves (the n-th seeded n + 1) until the match is over."""

    async def main() -> None:
        players = [Player(url, table_id, token) for token in tokens]
        for player in players:
            await player.__aenter__()
        try:
            over = lambda m: m["table"]["status"] == "over"  # noqa: E731
            await asyncio.gather(*(player.play(random.Random(n + 1), over) for n, player in enumerate(players)))
        finally:
            for player in players:
                await player.__aexit__()

    asyncio.run(main())


def ws_url(url: str, table_id: str) -> str:
    return url.replace("http://", "ws://") + f"/ws/{table_id}"


class Player:
    """One connection to a table: joins, keeps every message, and can play its turns."""

    def __init__(self, url: str, table_id: str, token: str | None, name: str | None = None, same: bool = False) -> None:
        self.url = ws_url(url, table_id)
        self.token = token
        self.name = name
        self.same = same  # join with "same": states may name the table's info as the same (filled in here)
        self.messages: list[dict[str, Any]] = []  # as received
        self.state: dict[str, Any] | None = None
        self.socket: ClientConnection | None = None

    async def __aenter__(self) -> Player:
        self.socket = await connect(self.url, max_size=2**22)
        with contextlib.suppress(ConnectionClosed):  # a server that closes at once (no such table) says why on receive
            join: dict[str, Any] = {"type": "join", "token": self.token, "since": 0}
            if self.name is not None:
                join["name"] = self.name  # a watcher's name
            if self.same:
                join["same"] = True
            await self.send(join)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.socket is not None:
            await self.socket.close()

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        assert self.socket is not None
        payload = message if isinstance(message, (str, bytes)) else json.dumps(message)
        await self.socket.send(payload)

    async def receive(self, timeout: float = 20) -> dict[str, Any]:
        assert self.socket is not None
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.socket.recv(), timeout=timeout))
        self.messages.append(message)
        if message["type"] == "state":
            same = message.get("same", [])
            message = {
                **{k: v for k, v in message.items() if k != "same"},
                **{k: self.state[k] for k in same if self.state},
            }
            self.state = message
        return message

    async def until(self, test: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            message = await self.receive(max(0.01, end - time.monotonic()))
            if test(message):
                return message

    async def play(self, rng: random.Random, stop: Callable[[dict[str, Any]], bool], act_delay: float = 0.0) -> int:
        """Answer every turn with a random legal action until ``stop(state)``; returns the actions sent.

        The last state received (by :meth:`until`, say) is answered first: it may be this player's turn.  A
        player quicker than the server's pace (20 messages a second) is told so, and answers again a second later.
        """
        sent = 0
        waiting = self.state
        while True:
            message = waiting or await self.receive(60)
            waiting = None
            if message["type"] == "error" and message["code"] == "rate_limited" and self.state is not None:
                await asyncio.sleep(1)
                message = self.state
            if message["type"] != "state":
                continue
            if stop(message):
                return sent
            if message["legal"]:
                if act_delay:
                    await asyncio.sleep(act_delay)
                await self.send(
                    {"type": "action", "action": rng.choice(message["legal"]), "version": message["version"]}
                )
                sent += 1
            elif message["result"] is not None and message["table"]["status"] != "over":
                await self.send({"type": "next"})


def masked_frame(text: str) -> bytes:
    """A client's WebSocket text frame (RFC 6455: a client masks what it sends)."""
    payload, mask = text.encode(), os.urandom(4)
    length = len(payload)
    header = bytes([0x81, 0x80 | length]) if length < 126 else bytes([0x81, 0x80 | 126]) + length.to_bytes(2, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def deaf_watcher(url: str, table_id: str) -> socket.socket:
    """A watcher with a 4 KiB receive buffer that joins and then never reads another byte."""
    address = urlsplit(url)
    host, port = address.hostname or "127.0.0.1", address.port or 80
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ws/{table_id} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    answer = b""
    while not answer.endswith(b"\r\n\r\n"):  # the handshake's answer, byte by byte: not one byte of a frame
        answer += sock.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    sock.sendall(masked_frame(json.dumps({"type": "join", "token": None, "since": 0})))
    return sock
