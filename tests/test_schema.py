"""Every request and message bounded (``server/schema.py``): each refused in the protocol's shape, with its status.

One real server on loopback answers them all; after the worst of them it
still serves a table at once (nothing froze, nothing grew).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from biriba.rules import CLASSIC, OPTION_LIMITS
from biriba.server.config import ServerConfig
from biriba.server.schema import display_name
from serverkit import Player, create_table, running_server, sit

PERSON = {"kind": "person"}
GREEDY = {"kind": "bot", "bot": "greedy"}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    roomy = ServerConfig(tables_per_minute=10_000, open_tables=10_000, bot_workers=1)  # quotas: tests/test_hall.py
    with running_server(f"sqlite:///{tmp_path_factory.mktemp('schema')}/t.sqlite3", roomy) as base:
        yield base


def refused(response: httpx.Response, status: int, code: str, *words: str) -> dict[str, Any]:
    """The refusal has the protocol's shape, this status and code, and says these words."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) <= {"error", "code", "rule"} and body["code"] == code, body
    for word in words:
        assert word in body["error"], (word, body)
    return body


def create(url: str, **spec: Any) -> httpx.Response:
    return httpx.post(url + "/api/tables", json={"rules": "classic", **spec}, timeout=10)


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"jokers": 1_000_000}, "jokers"),
        ({"hand_size": -5}, "hand_size"),
        ({"hand_size": 0}, "hand_size"),
        ({"jokers": -3}, "jokers"),
        ({"packet_size": -11}, "packet_size"),
        ({"target": -1}, "target"),
    ],
)
def test_the_options_measured_this_week_are_refused(url: str, options: dict[str, int], option: str) -> None:
    refused(create(url, options=options), 422, "invalid", f"options.{option}")


@pytest.mark.parametrize("option", [o for o in OPTION_LIMITS if isinstance(getattr(CLASSIC, o), int)])
def test_each_number_option_is_refused_one_past_each_limit(url: str, option: str) -> None:
    low, high = OPTION_LIMITS[option]
    for value in (low - 1, high + 1):
        refused(create(url, options={option: value}), 422, "invalid", f"options.{option}")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"run_bonus": "-5/100"}, "run_bonus: each number 0 to 10000"),
        ({"card_values": "20,15,10,10,5000"}, "card_values: each number 0 to 1000"),
        ({"cut_bonus": [100] * 14}, "options.cut_bonus: List should have at most 13 items"),
        ({"cut_bonus": "100,100,100,100,100,100,100,100,100,100,100,100,100,100"}, "cut_bonus: at most 13 items"),
        ({"opening_minimums": "0-99999999:75"}, "opening_minimums"),
        ({"seats": 3}, "partnerships need 4 or 6 seats"),
    ],
)
def test_options_holding_several_numbers_and_bad_combinations_are_refused(
    url: str, options: dict[str, Any], words: str
) -> None:
    refused(create(url, options=options), 422, "invalid", words)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"bot_delay": "abc"}, "bot_delay"),
        ({"bot_delay": None}, "bot_delay"),
        ({"bot_delay": True}, "bot_delay"),
        ({"bot_delay": 11}, "bot_delay"),
        ({"absent_after": "x"}, "absent_after"),
        ({"absent_after": 0}, "absent_after"),
        ({"turn_clock": "x"}, "turn_clock"),
        ({"deal_pause": -1}, "deal_pause"),
        ({"seats": [{"kind": "bot", "bot": ["x"]}] * 4}, "seats.0"),
        ({"seats": [{"kind": "bot", "bot": "wizard"}] * 4}, "seats.0"),
        ({"seats": ["abc"] * 4}, "seats.0"),
        ({"seats": [PERSON] * 7}, "seats"),
        ({"rules": "poker"}, "rules"),
        ({"rules": 7}, "rules"),
        ({"options": {"colour": "red"}}, "options.colour"),
        ({"options": {"target": "lots"}}, "options.target"),
        ({"options": {"target": 3000.5}}, "options.target"),
        ({"options": {"meld_out": "yes"}}, "options.meld_out"),
        ({"options": {"meld_out": 1}}, "options.meld_out"),
        ({"options": {"trump": "hearts"}}, "options.trump"),
        ({"options": {"run_bonus": "x" * 500}}, "options.run_bonus"),
        ({"options": []}, "options"),
        ({"extra": 1}, "extra"),
    ],
)
def test_wrong_types_and_unknown_fields_get_422_not_500(url: str, spec: dict[str, Any], words: str) -> None:
    refused(create(url, **spec), 422, "invalid", words)


def test_malformed_deep_and_huge_bodies(url: str) -> None:
    bad = httpx.post(url + "/api/tables", content=b"{not json", headers={"content-type": "application/json"})
    refused(bad, 400, "bad_request", "not JSON")
    deep = b"[" * 20_000 + b"]" * 20_000  # Python's own parser would recurse past its limit
    assert httpx.post(url + "/api/tables", content=deep, headers={"content-type": "application/json"}).status_code in (
        400,
        413,
        422,
    )
    nested = json.dumps({"rules": "classic", "options": {"card_values": {"a": [[[[[[[[1]]]]]]]]}}})
    refused(
        httpx.post(url + "/api/tables", content=nested, headers={"content-type": "application/json"}), 422, "invalid"
    )
    huge = b'{"rules": "classic", "pad": "' + b"x" * (20 * 1024 * 1024) + b'"}'
    refused(
        httpx.post(url + "/api/tables", content=huge, headers={"content-type": "application/json"}, timeout=30),
        413,
        "too_large",
        "larger than",
    )
    assert create(url, seats=[PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0).status_code == 201  # still serving


def chunks(body: bytes, size: int = 1024) -> Iterator[bytes]:
    """The body a piece at a time: httpx sends it chunked, with no length."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


def test_a_chunked_body_is_held_to_the_same_limit(url: str) -> None:
    """No content-length to check first: the body is read up to the limit, then refused with 413 (was FastAPI's 400);
    under it, it is read whole and the request served."""
    headers = {"content-type": "application/json"}
    over = b'{"rules": "classic", "pad": "' + b"x" * (17 * 1024) + b'"}'
    sent = httpx.post(url + "/api/tables", content=chunks(over), headers=headers, timeout=10)
    assert "content-length" not in sent.request.headers and sent.request.headers["transfer-encoding"] == "chunked"
    refused(sent, 413, "too_large", "larger than 16384 bytes")
    table = json.dumps({"rules": "classic", "seats": [PERSON, GREEDY, GREEDY, GREEDY]}).encode()
    assert httpx.post(url + "/api/tables", content=chunks(table, 16), headers=headers).status_code == 201  # 10 chunks


def test_path_and_query_parameters_are_checked_in_the_protocols_shape(url: str) -> None:
    table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
    refused(httpx.post(f"{url}/api/tables/{table['id']}/seats/abc", json={"name": "A"}), 422, "invalid", "seat")
    refused(httpx.post(f"{url}/api/tables/{table['id']}/seats/9", json={"name": "A"}), 422, "invalid", "seat")
    refused(httpx.get(f"{url}/api/tables/{table['id']}/replay", params={"deal": "abc"}), 422, "invalid", "deal")
    refused(httpx.get(f"{url}/api/tables/{'x' * 40}"), 422, "invalid", "table_id")
    refused(httpx.get(f"{url}/api/tables", params={"status": "gone"}), 422, "invalid", "status")
    refused(httpx.get(f"{url}/api/tables", params={"limit": 0}), 422, "invalid", "limit")
    refused(httpx.get(f"{url}/api/tables", params={"after": "nonsense"}), 422, "invalid", "after")
    refused(httpx.get(f"{url}/api/nowhere"), 404, "not_found")
    refused(httpx.delete(f"{url}/api/tables"), 405, "method_not_allowed")
    refused(httpx.get(f"{url}/api/tables/{table['id']}/record"), 403, "not_over", "once the match is over")


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Eve\u202egnp.exe", "U+202E"),  # a right-to-left override
        ("Ann\u200b", "U+200B"),  # zero width space
        ("\u2066Bob", "U+2066"),  # an isolate
        ("A\x07B", "U+0007"),  # a bell
        ("   ", "1 to 30 characters"),
        ("x" * 31, "1 to 30 characters"),
    ],
)
def test_names_with_invisible_or_control_characters_are_refused(url: str, name: str, words: str) -> None:
    table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY])
    refused(httpx.post(f"{url}/api/tables/{table['id']}/seats/0", json={"name": name}), 422, "invalid", words)


def test_names_are_normalized_and_distinct_at_a_table_ignoring_case(url: str) -> None:
    assert display_name("  Ele\u0301ni   Papa  ") == "Eléni Papa"  # NFC, spaces collapsed
    table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY])
    sit(url, table["id"], 0, "Ele\u0301ni")
    again = httpx.post(f"{url}/api/tables/{table['id']}/seats/1", json={"name": "ELÉNI"})
    refused(again, 409, "name_taken", "already at this table")
    info = httpx.get(f"{url}/api/tables/{table['id']}").json()
    assert info["seats"][0]["name"] == "Eléni" and info["seats"][1]["name"] is None


@pytest.mark.parametrize(
    ("message", "code", "words"),
    [
        ({"type": "join", "token": 5}, "bad_message", "token"),
        ({"type": "join", "since": -1}, "bad_message", "since"),
        ({"type": "join", "token": "x" * 100}, "bad_message", "token"),
        ({"type": "action", "action": "draw", "version": "1"}, "bad_message", "version"),
        ({"type": "action", "action": ["draw"], "version": 1}, "bad_message", "action"),
        ({"type": "action", "action": "x" * 300, "version": 1}, "bad_message", "action"),
        ({"type": "warp"}, "bad_message", "unknown message type"),
        ({"kind": "join"}, "bad_message", '"type"'),
        ([1, 2], "bad_message", '"type"'),
        ("[" * 3000, "bad_message", "not JSON"),
    ],
)
def test_websocket_messages_are_checked_against_their_schema(
    url: str, message: dict[str, Any] | str, code: str, words: str
) -> None:
    table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
    token = sit(url, table["id"], 0, "Ann")

    async def main() -> None:
        async with Player(url, table["id"], token) as me:
            await me.until(lambda m: m["type"] == "state")
            await me.send(message if isinstance(message, str) else json.dumps(message))
            error = await me.until(lambda m: m["type"] == "error")
            assert error["code"] == code and words in error["message"], error
            await me.send({"type": "ping"})
            assert (await me.until(lambda m: m["type"] in ("pong", "error")))["type"] == "pong"  # still served

    asyncio.run(main())


def test_the_rules_catalogue_states_each_options_limits(url: str) -> None:
    options = httpx.get(url + "/api/rules").json()["options"]
    for name, (low, high) in OPTION_LIMITS.items():
        assert options[name]["limits"] == [low, high], name
    assert options["trump"]["limits"] is None


def test_the_openapi_document_declares_the_requests(url: str, tmp_path: Path) -> None:
    document = httpx.get(url + "/openapi.json").json()
    create_body = document["components"]["schemas"]["CreateTable"]
    assert create_body["additionalProperties"] is False
    hand = document["components"]["schemas"]["Options"]["properties"]["hand_size"]
    assert (hand["minimum"], hand["maximum"]) == OPTION_LIMITS["hand_size"]
    assert "422" in document["paths"]["/api/tables"]["post"]["responses"]
