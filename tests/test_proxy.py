"""The shipped nginx config (``deploy/nginx/biriba.conf``) in front of the server, as the public meets it.

nginx runs the repository's file with its ports changed (tests/clusterkit.py)
in front of one ``biriba serve``: the page in Chromium through it, with no
``--public-url`` (its Origin and its invite link must agree with the
server's idea of the host); what nginx keeps from the public (``/metrics``,
``/healthz``) and what it refuses (bodies over the limit), in the protocol's
words.  tests/test_cluster.py runs it in front of several processes
(restarted, frozen, the page on one of them).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from browserkit import Sockets
from clusterkit import nginx
from serverkit import server_process
from test_web_e2e import DESKTOP, shot, watch_errors

pytestmark = pytest.mark.needs("nginx")


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """One ``biriba serve`` (SQLite) behind the shipped nginx; yields nginx's URL and the process's own."""
    (tmp_path / "nginx").mkdir()
    with (
        server_process(f"sqlite:///{tmp_path}/t.sqlite3") as (url, _process),
        nginx([int(url.rsplit(":", 1)[1])], tmp_path / "nginx") as public,
    ):
        yield public, url


def test_metrics_and_health_are_not_let_out(proxied: tuple[str, str]) -> None:
    """What a process tells of itself is the operator's: nginx answers 404, however the path is written; the
    process itself answers on its own port."""
    public, own = proxied
    for path in ("/metrics", "/healthz", "/metrics?x=1", "//metrics", "/%6Detrics", "/healthz/", "/./healthz"):
        assert httpx.get(public + path, follow_redirects=True).status_code == 404, path  # /healthz/: to /healthz
    assert "biriba_connections" in httpx.get(own + "/metrics").text
    assert httpx.get(own + "/healthz").json()["status"] == "ok"
    assert httpx.get(public + "/api/rules").status_code == 200  # the rest goes through


def test_nginx_refuses_a_body_over_the_limit_in_the_protocols_shape(proxied: tuple[str, str]) -> None:
    """client_max_body_size is the server's own limit, so nginx answers first: with the protocol's 413, declared
    or chunked."""
    public, _own = proxied
    body = b'{"rules": "classic", "pad": "' + b"x" * (17 * 1024) + b'"}'
    headers = {"content-type": "application/json"}
    for content in (body, (body[i : i + 1024] for i in range(0, len(body), 1024))):
        answer = httpx.post(public + "/api/tables", content=content, headers=headers)
        assert answer.status_code == 413, answer.text
        assert answer.json() == {"error": "the body is larger than 16384 bytes", "code": "too_large"}


@pytest.mark.needs("chromium")
def test_the_page_through_nginx_plays_without_a_public_url(browser: Browser, proxied: tuple[str, str]) -> None:
    """nginx on a port of its own and no ``--public-url``: the page's Origin names that port, and nginx passes
    the browser's Host with it, so the WebSocket is let in (it was refused with a 403: nginx's ``$host`` drops the
    port) and the invite link names the address the browser used."""
    public, _own = proxied
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    errors = watch_errors(page)
    sockets = Sockets(page)
    page.goto(public + "/")
    page.wait_for_selector("#create-form")
    page.select_option("#bot-delay", "0")
    page.click("#create")
    page.wait_for_selector("#invite")
    table_id = page.url.rstrip("/").split("/t/")[1].split("?")[0]
    invite = page.locator("#invite").input_value()
    page.fill("#name", "Eleni")
    page.click("[data-testid=join-seat][data-seat='0']")
    sockets.wait(lambda: 0 in sockets.stated, 15, "a state through nginx")
    assert invite == f"{public}/t/{table_id}"
    page.wait_for_selector("[data-testid=hand-card]")
    assert page.locator("#banner").is_hidden()
    shot(page, "through-nginx-desktop")
    assert len(sockets.opened) == 1 and not errors, errors
    context.close()
