"""Helpers for the tests of many server processes: a Redis and an nginx of the test's own, and steady players.

A private ``redis-server`` (on a free port, restartable) and nginx running
the repository's ``deploy/nginx/biriba.conf`` with its ports changed to the
test's processes; ``biriba serve --redis`` processes to kill, freeze and
restart; and :class:`SteadyPlayer`, a client that stays at its table
whatever the servers do, as the page does: it reconnects through the proxy,
joins again from the last event it saw, and answers its turns.  Every event
it is told is kept, to be checked against the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from serverkit import BIRIBA, free_port, wait_until_up, ws_url
from services import nginx_path, postgres_bindir, redis_path

ROOT = Path(__file__).resolve().parent.parent
#: Seconds a player waits before trying a refused action again.
RETRY_AFTER = 0.5
NGINX_CONF = ROOT / "deploy" / "nginx" / "biriba.conf"


class RedisServer:
    """A ``redis-server`` of the test's own on a free port, that the test may stop and start again.

    With a ``password`` it asks for one; with ``tls`` it speaks TLS only, with a certificate for 127.0.0.1
    signed by a certificate authority of the test's own (``ca``), as docs/deploy.md runs it between machines.
    """

    def __init__(self, folder: Path, password: str | None = None, tls: bool = False) -> None:
        self.port = free_port()
        self.folder = folder
        self.password = password
        self.tls = tls
        self.ca = folder / "redis-ca.crt"
        self.process: subprocess.Popen[bytes] | None = None
        if tls:
            make_certificate(folder)

    @property
    def url(self) -> str:
        secret = f":{self.password}@" if self.password else ""
        if self.tls:
            return f"rediss://{secret}127.0.0.1:{self.port}/0?ssl_ca_certs={self.ca}"
        return f"redis://{secret}127.0.0.1:{self.port}"

    def start(self) -> None:
        binary = redis_path()
        assert binary is not None
        flags = ["--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        if self.password:
            flags += ["--requirepass", self.password]
        if self.tls:
            certificate, key = self.folder / "redis.crt", self.folder / "redis.key"
            flags += ["--port", "0", "--tls-port", str(self.port), "--tls-auth-clients", "no"]
            flags += [
                "--tls-cert-file",
                str(certificate),
                "--tls-key-file",
                str(key),
                "--tls-ca-cert-file",
                str(self.ca),
            ]
        self.process = subprocess.Popen(
            [binary, *flags, "--dir", str(self.folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for_port(self.port, "redis-server")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def make_certificate(folder: Path) -> None:
    """A certificate authority (``redis-ca.crt``) and, signed by it, a server certificate for 127.0.0.1."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "redis-ca.key", "-out", "redis-ca.crt",
            "-days", "1", "-subj", "/CN=biriba test CA")  # fmt: skip
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl(
        "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "redis.key", "-out", "redis.csr", "-subj", "/CN=127.0.0.1"
    )
    openssl(
        "x509", "-req", "-in", "redis.csr", "-CA", "redis-ca.crt", "-CAkey", "redis-ca.key", "-CAcreateserial",
        "-out", "redis.crt", "-days", "1", "-extfile", "san.ext",
    )  # fmt: skip


def wait_for_port(port: int, what: str, seconds: float = 20) -> None:
    end = time.time() + seconds
    while time.time() < end:
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not come up on port {port}")


class PostgresServer:
    """A PostgreSQL server of the test's own (initdb in a temporary folder, a free port), to restart mid-play.

    The machine's server is shared with the other tests; this one may be
    stopped.  As root, its programs run as the ``postgres`` user.
    """

    def __init__(self) -> None:
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="biriba-pg-"))
        self.data = self.folder / "data"
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def run(self, program: str, *args: str) -> None:
        bindir = postgres_bindir()
        assert bindir is not None
        command = [str(bindir / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=60)

    def init(self) -> None:
        self.run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def processes(self) -> list[int]:
        """The server's processes: the postmaster first, then its children (its helpers and client backends)."""
        master = int((self.data / "postmaster.pid").read_text().split()[0])
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError):
                if int(stat.read_text().rpartition(")")[2].split()[1]) == master:
                    children.append(int(stat.parent.name))
        return [master, *children]

    def backends(self) -> list[int]:
        """The processes serving client connections (their title names the client's address)."""
        found = []
        for pid in self.processes()[1:]:
            with contextlib.suppress(OSError):
                if "127.0.0.1(" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    found.append(pid)
        return found

    @contextlib.contextmanager
    def frozen(self, pids: list[int] | None = None) -> Iterator[list[int]]:
        """These processes (default: every one of the server's) stopped by SIGSTOP, as a server that answers
        nothing (frozen, or cut off by the network); continued on leaving."""
        pids = self.processes() if pids is None else pids
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield pids
        finally:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    server = PostgresServer()
    server.init()
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop("immediate")
        shutil.rmtree(server.folder, ignore_errors=True)


@contextlib.contextmanager
def redis_server(folder: Path, password: str | None = None, tls: bool = False) -> Iterator[RedisServer]:
    server = RedisServer(folder, password, tls)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def nginx(ports: list[int], folder: Path, affinity: bool = False) -> Iterator[str]:
    """nginx with the repository's configuration, its upstream the given ports; yields its URL.

    ``affinity``: with the configuration's commented ``hash`` line taken in (a table's clients to one process).
    """
    binary = nginx_path()
    assert binary is not None
    listen = free_port()
    site = NGINX_CONF.read_text()
    listed = re.findall(r"^    server 127\.0\.0\.1:\d+([^;\n]*);$", site, re.MULTILINE)
    assert listed, "deploy/nginx/biriba.conf: its upstream lists the servers one line each"
    servers = "".join(f"    server 127.0.0.1:{port}{listed[0]};\n" for port in ports)  # with the file's parameters
    site, count = re.subn(r"(    server 127\.0\.0\.1:\d+[^;\n]*;\n)+", servers, site)
    assert count == 1, "deploy/nginx/biriba.conf: its upstream lists the servers one line each"
    site, count = re.subn(r"listen \d+;", f"listen 127.0.0.1:{listen};", site)
    assert count == 1
    if affinity:
        site, count = re.subn(r"# (hash \$request_uri consistent;)", r"\1", site)
        assert count == 1
    (folder / "biriba.conf").write_text(site)
    # as root, nginx's worker would be nobody, who cannot reach the test's folder (its temporary files: bodies it
    # buffers, answers larger than its buffers)
    worker = "user root;\n" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(
        f"""daemon off;
{worker}worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
worker_rlimit_nofile 8192;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/biriba.conf;
}}
"""
    )
    process = subprocess.Popen([binary, "-p", str(folder), "-c", str(folder / "nginx.conf")])
    url = f"http://127.0.0.1:{listen}"
    try:
        wait_until_up(url)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


class ServerProcess:
    """``biriba serve --redis URL`` on its own port, to kill, freeze, and start again."""

    def __init__(
        self, db: str, redis: str, lease_ttl: float, port: int | None = None, flags: tuple[str, ...] = ()
    ) -> None:
        self.db, self.redis, self.lease_ttl = db, redis, lease_ttl
        self.flags = flags  # after the kit's own: a flag given again overrides it
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.node = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        flags = ["--redis", self.redis, "--lease-ttl", str(self.lease_ttl), "--bot-workers", "1"]
        # every test table and client comes from 127.0.0.1 (through nginx or not): the quotas are opened wide
        flags += ["--tables-per-minute", "1000", "--open-tables", "1000"]
        flags += ["--connections-per-address", "10000", "--connections-per-table", "1000"]
        flags += ["--connections-per-minute", "100000", *self.flags]
        self.log = Path(tempfile.gettempdir()) / f"biriba-serve-{self.port}.log"
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [BIRIBA, "serve", "--port", str(self.port), "--db", self.db, *flags],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_until_up(self.url, self.process)
        self.node = httpx.get(self.url + "/healthz", timeout=5).json()["node"]

    def signal(self, number: int) -> None:
        assert self.process is not None
        self.process.send_signal(number)

    def connections(self) -> int:
        """Its WebSocket connections (``biriba_connections``), asked of it directly."""
        text = httpx.get(self.url + "/metrics", timeout=5).text
        return int(float(next(line.split()[1] for line in text.splitlines() if line.startswith("biriba_connections "))))

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class SteadyPlayer:
    """One client at a table through the proxy: it keeps its seat (or watches), whatever happens to the servers.

    ``events`` holds every event it was told, by number; ``out_of_order``
    the events that did not follow the one before (none, if every event
    came once and in order); ``errors`` the refusals it got, by code.
    """

    def __init__(self, url: str, table_id: str, token: str | None, seat: int | None, seed: str) -> None:
        self.url = ws_url(url, table_id)
        self.token, self.seat = token, seat
        self.rng = random.Random(seed)
        self.events: dict[int, dict[str, Any]] = {}
        self.last = -1
        self.out_of_order: list[tuple[int, int]] = []
        self.errors: Counter[str] = Counter()
        self.connections = 0
        self.joined_as: list[int | None] = []  # the seat each join was given
        self.state: dict[str, Any] | None = None
        self.sent = 0
        self.fresh = False
        self.refused: Counter[int] = Counter()  # handshakes the proxy answered with another status than 101

    @property
    def over(self) -> bool:
        return self.state is not None and self.state["table"]["status"] == "over"

    async def run(self, until: Callable[[], float], act_delay: float = 0.02) -> None:
        """Play until the monotonic time ``until()`` (it may move) or the match's end, connecting again whenever
        cut off."""
        while time.monotonic() < until() and not self.over:
            try:
                async with connect(self.url, max_size=2**22, open_timeout=5) as socket:
                    self.connections += 1
                    self.fresh = True
                    join = {"type": "join", "token": self.token, "since": self.last + 1}
                    await socket.send(json.dumps(join))
                    while time.monotonic() < until() and not self.over:
                        try:
                            raw = await asyncio.wait_for(socket.recv(), timeout=min(1.0, until() - time.monotonic()))
                        except TimeoutError:
                            continue
                        message = json.loads(raw)
                        reply = self.hear(message)
                        if reply is not None:  # a refused action is tried again a little later, as a person would
                            await asyncio.sleep(RETRY_AFTER if message["type"] == "error" else act_delay)
                            await socket.send(json.dumps(reply))
            except InvalidStatus as exc:
                self.refused[exc.response.status_code] += 1
                await asyncio.sleep(0.2 + self.rng.random() * 0.3)
            except (ConnectionClosed, OSError, TimeoutError):
                await asyncio.sleep(0.2 + self.rng.random() * 0.3)

    def hear(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Keep what the message tells; the answer to send, if it is this player's turn."""
        if message["type"] == "error":
            self.errors[message["code"]] += 1
            if message["code"] in ("moving", "store") and self.state is not None and self.state["legal"]:
                return self.action(self.state)  # try again (the table's owner changed hands)
            return None
        if message["type"] != "state":
            return None
        if self.fresh:  # the first state of a connection: the seat this join was given
            self.joined_as.append(message.get("seat"))
            self.fresh = False
        for event in message["events"]:
            if event["number"] != self.last + 1:
                self.out_of_order.append((self.last, event["number"]))
            self.last = max(self.last, event["number"])
            self.events[event["number"]] = event
        self.state = message
        if self.seat is None:
            return None
        if message["legal"]:
            return self.action(message)
        if message["result"] is not None and message["table"]["status"] != "over" and self.seat == 0:
            return {"type": "next"}
        return None

    def action(self, state: dict[str, Any]) -> dict[str, Any]:
        self.sent += 1
        return {"type": "action", "action": self.rng.choice(state["legal"]), "version": state["version"]}
