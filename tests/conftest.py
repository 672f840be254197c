"""Shared fixtures and hooks: the services some tests need, and a fresh PostgreSQL database for each storage test."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from services import POSTGRES, left_out, require

#: What ``make check`` (``--everyday``) leaves to ``make test``: the browser, the cluster, the built wheel's fresh
#: venvs, training, the compiled engine's build and Ray: the slow parts, a few minutes of the whole run.
NOT_EVERYDAY_SERVICES = {"chromium", "nginx", "ray", "index", "compiler"}
NOT_EVERYDAY_MODULES = {"test_cluster", "test_package", "test_envs_policy", "test_proxy"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--everyday", action="store_true", help="leave out the slow parts (make check; make test: all)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs(service): skip the test where the service is missing (services.py)")
    config.addinivalue_line("markers", "slow: a test of many seconds that make check leaves to make test")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--everyday"):
        return
    kept, left = [], []
    for item in items:
        services = {name for marker in item.iter_markers("needs") for name in marker.args}
        slow = (
            services & NOT_EVERYDAY_SERVICES
            or item.path.stem in NOT_EVERYDAY_MODULES
            or item.get_closest_marker("slow") is not None
        )
        (left if slow else kept).append(item)
    items[:] = kept
    config.hook.pytest_deselected(items=left)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in item.iter_markers("needs"):
        require(*marker.args)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, one for each module of browser tests (tests/browserkit.py)."""
    from browserkit import chromium

    with chromium() as browser:
        yield browser


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """End the run with what it left out for want of a service, and how to get each."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        if isinstance(report.longrepr, tuple):
            reasons.append(report.longrepr[2].removeprefix("Skipped: "))
    lines = left_out(reasons)
    if lines:
        terminalreporter.section("left out: a service is missing")
        for line in lines:
            terminalreporter.line(line)


@pytest.fixture(autouse=True)
def _data_dir_of_the_test(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes into the user's data folder (the terminal game's autosaves, the web game's store)."""
    monkeypatch.setenv("BIRIBA_DATA_DIR", str(tmp_path_factory.mktemp("data")))


async def _admin(sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(POSTGRES + "/test")
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A database of its own for one test, dropped afterwards."""
    require("postgresql")
    name = f"biriba_test_{secrets.token_hex(4)}"
    asyncio.run(_admin(f"CREATE DATABASE {name}"))
    try:
        yield f"{POSTGRES}/{name}"
    finally:
        asyncio.run(_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[str]:
    """Each storage test runs on both stores: SQLite, and the machine's PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/tables.sqlite3"
    else:
        yield request.getfixturevalue("postgres_url")
