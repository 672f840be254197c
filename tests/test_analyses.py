"""A finished match's analysis at the web table (issue 53): asked once, made in the bot workers, kept."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from biriba.server import analyses as analyses_module
from biriba.server.config import ServerConfig
from serverkit import GREEDY, PERSON, create_table, played_out, running_server, sit

#: Sampled deals a decision: few, for time (the figures are the CLI's, tested in test_analysis.py).
SAMPLES = 4


def finished_match(url: str) -> str:
    """A classic match of one deal (two people playing random legal moves, two greedy bots), played to its end."""
    table = create_table(url, [PERSON, GREEDY, PERSON, GREEDY], bot_delay=0, deal_pause=0, options={"target": 1})
    tokens = [sit(url, table["id"], seat, name) for seat, name in ((0, "Eleni"), (2, "Nikos"))]

    played_out(url, table["id"], tokens)
    return str(table["id"])


def analysed(url: str, table_id: str, seconds: float = 120) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        answer = httpx.get(f"{url}/api/tables/{table_id}/analysis").json()
        if answer["status"] == "done":
            return answer  # type: ignore[no-any-return]
        assert answer["status"] in ("queued", "running"), answer  # never failed, stalled or forgotten
        time.sleep(0.3)
    raise AssertionError(f"not analysed within {seconds} s: {answer}")


def test_a_finished_match_is_analysed_once_in_the_workers_and_kept(db_url: str) -> None:
    with running_server(db_url, ServerConfig(bot_workers=1, analysis_samples=SAMPLES)) as url:
        live = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        refused = httpx.post(f"{url}/api/tables/{live['id']}/analysis")
        assert refused.status_code == 403 and refused.json()["code"] == "not_over"  # it would read the hands
        table = finished_match(url)
        assert httpx.get(f"{url}/api/tables/{table}/analysis").json()["status"] == "none"  # nobody asked yet
        asked = httpx.post(f"{url}/api/tables/{table}/analysis")
        assert asked.status_code == 202 and asked.json()["status"] in ("queued", "running", "done"), asked.text
        done = analysed(url, table)
        made = done["analysis"]
        assert made["format"] == "biriba-analysis/1" and made["samples"] == SAMPLES and made["seed"] == table
        assert made["players"] == ["Eleni", "greedy bot", "Nikos", "greedy bot"]
        assert done["done"] == done["total"] == len(made["decisions"]) > 20
        assert {d["seat"] for d in made["decisions"]} == {0, 1, 2, 3}
        assert [s["name"] for s in made["seats"]] == made["players"]
        again = httpx.post(f"{url}/api/tables/{table}/analysis")  # made once: whoever asks next reads it
        assert again.status_code == 202 and again.json()["analysis"]["decisions"] == made["decisions"]


def test_an_address_asks_for_so_many_analyses_an_hour(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analyses_module, "PER_HOUR", 1)
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3", ServerConfig(bot_workers=1, analysis_samples=2)) as url:
        first, second = finished_match(url), finished_match(url)
        assert httpx.post(f"{url}/api/tables/{first}/analysis").status_code == 202
        over = httpx.post(f"{url}/api/tables/{second}/analysis")
        assert over.status_code == 429 and over.json()["code"] == "quota" and int(over.headers["Retry-After"]) > 0
        assert httpx.get(f"{url}/api/tables/{second}/analysis").json()["status"] == "none"  # as if never asked
        analysed(url, first)
        assert httpx.post(f"{url}/api/tables/{first}/analysis").status_code == 202  # reading one made is free
        other = {"X-Forwarded-For": "198.51.100.77"}  # another address has its own count
        assert httpx.post(f"{url}/api/tables/{second}/analysis", headers=other).status_code == 202
