"""What some tests need of the machine beyond the Python packages, and how to get it.

A test that needs PostgreSQL, Redis, nginx, Chromium, Ray, a C compiler or the package
index (PyPI) says so with
``@pytest.mark.needs("postgresql")`` (or calls :func:`require`).  Where the
service is missing the test is skipped with a one-line reason, and the run
ends with a list of what was left out and how to get it.  Under CI
(``CI=true``) such a skip fails instead: where everything can be installed,
nothing may be left out without a word.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import pytest

#: The PostgreSQL server of the storage tests (CI starts it when it is down).
POSTGRES = os.environ.get("BIRIBA_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


def _postgresql() -> str | None:
    address = urlsplit(POSTGRES)
    host, port = address.hostname or "127.0.0.1", address.port or 5432
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError as exc:
        return f"nothing answers at {host}:{port} ({exc.strerror or exc})"
    return None


def redis_path() -> str | None:
    return shutil.which("redis-server") or shutil.which("redis-server", path="/usr/bin:/usr/sbin")


def _redis() -> str | None:
    """The cluster tests run a Redis of their own (to restart it mid-play): the server program is enough."""
    return None if redis_path() is not None else "no redis-server on the PATH"


def postgres_bindir() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl), for a test's own server."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _postgresql_server() -> str | None:
    if postgres_bindir() is None:
        return "no initdb in /usr/lib/postgresql/*/bin or on the PATH"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "as root, initdb runs as the postgres user, through runuser, which is missing"
    return None


def nginx_path() -> str | None:
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")


def _nginx() -> str | None:
    return None if nginx_path() is not None else "no nginx on the PATH or in /usr/sbin"


def _chromium() -> str | None:
    return None if shutil.which("chromium") is not None else "no chromium on the PATH"


def _ray() -> str | None:
    return None if importlib.util.find_spec("ray") is not None else "Ray is not installed"


def _compiler() -> str | None:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h)"
    missing = [name for name in ("mypyc", "setuptools") if importlib.util.find_spec(name) is None]
    return f"{' and '.join(missing)} not installed" if missing else None


def _index() -> str | None:
    """Can pip fetch packages here (the package tests install the wheel's dependencies into fresh venvs)?"""
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", folder, "platformdirs"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return "pip could not fetch a package in two minutes"
    return None if done.returncode == 0 else f"pip cannot fetch packages ({done.stderr.strip().splitlines()[-1:]})"


@dataclass(frozen=True)
class Service:
    title: str
    probe: Callable[[], str | None]  # None when the service is there, else why not
    how: str  # how to get it, as .ci/run does


SERVICES = {
    "postgresql": Service(
        "PostgreSQL",
        _postgresql,
        "apt-get install postgresql, then pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
        " (trust auth on 127.0.0.1:5432, database test); or point BIRIBA_TEST_POSTGRES at a server",
    ),
    "redis": Service(
        "Redis",
        _redis,
        "apt-get install redis-server (the tests run one of their own, on a free port)",
    ),
    "postgresql-server": Service(
        "PostgreSQL's server programs",
        _postgresql_server,
        "apt-get install postgresql (a test runs a server of its own, on a free port, to restart it)",
    ),
    "nginx": Service("nginx", _nginx, "apt-get install nginx (Debian's package; the tests run it on a free port)"),
    "chromium": Service("Chromium", _chromium, "apt-get install chromium (Debian's browser; none is downloaded)"),
    "ray": Service("Ray", _ray, "pip install 'biriba[ray]' (make test installs it)"),
    "compiler": Service("a C compiler", _compiler, "apt-get install gcc python3-dev; pip install 'biriba[fast]'"),
    "index": Service("the package index", _index, "a network that reaches PyPI, or pip configured for a mirror"),
}
PREFIX = "needs "


@cache
def missing(name: str) -> str | None:
    """Why the service ``name`` cannot be used here, or None when it can (asked once a process)."""
    return SERVICES[name].probe()


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def require(name: str) -> None:
    """Skip the running test when the service is missing (fail it under CI)."""
    why = missing(name)
    if why is None:
        return
    reason = f"{PREFIX}{SERVICES[name].title}: {why}"
    if under_ci():
        pytest.fail(f"{reason} (CI=true: every service must be there)", pytrace=False)
    pytest.skip(reason)


def left_out(reasons: list[str]) -> list[str]:
    """The lines that end a run: each missing service, how many tests it left out, and how to get it."""
    counts: dict[str, int] = {}
    for reason in reasons:
        for name, service in SERVICES.items():
            if reason.startswith(f"{PREFIX}{service.title}:"):
                counts[name] = counts.get(name, 0) + 1
    return [
        f"{SERVICES[name].title}: {count} test{'s' if count > 1 else ''} skipped;"
        f" to run {'them' if count > 1 else 'it'}: {SERVICES[name].how}"
        for name, count in counts.items()
    ]
