"""The HTTP API fuzzed by schemathesis from its own OpenAPI document: no 500, every answer as documented.

Every check of schemathesis runs but one: that a request the schema allows
is accepted.  The schema states each field's type and range, but not the
rules between fields (three seats cannot sit in partnerships) or inside an
option's text (a bonus of ``7x``): those the engine refuses, with a 422.

``make test`` runs a short round (a few examples per operation, valid and
invalid data alike); ``make test-long`` (``BIRIBA_LONG=1``) a long one.  The
server is real, on loopback, with room in its quotas so that the fuzzer
reaches past them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from biriba.server.config import ServerConfig
from serverkit import running_server

EXAMPLES = 2000 if os.environ.get("BIRIBA_LONG") else 20


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    roomy = ServerConfig(tables_per_minute=100_000, open_tables=100_000, bot_workers=1)
    with running_server(f"sqlite:///{Path(tmp_path_factory.mktemp('fuzz'))}/t.sqlite3", roomy) as base:
        yield base


@pytest.fixture(scope="module")
def api(url: str) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(url + "/openapi.json")


def test_no_request_the_schema_allows_or_forbids_gets_a_500_or_an_undocumented_answer(
    api: schemathesis.BaseSchema,
) -> None:
    operations = [result.ok() for result in api.get_all_operations()]
    assert {op.label for op in operations} >= {"POST /api/tables", "GET /api/tables", "GET /healthz"}
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case: schemathesis.Case) -> None:
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        check()


def test_a_method_a_path_does_not_take_gets_405_naming_those_it_does(url: str, api: schemathesis.BaseSchema) -> None:
    """Every path of the document, asked with each method it does not document (``OPTIONS`` too: no
    cross-site requests here): 405 in the protocol's shape, ``Allow`` exactly the documented methods.
    (schemathesis's coverage phase found ``OPTIONS /api/tables`` answered ``Allow: POST``, its first route's.)"""
    methods = {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
    for path, item in api.raw_schema["paths"].items():
        documented = {method.upper() for method in item} & methods
        concrete = path.replace("{table_id}", "nope").replace("{seat}", "0")
        for method in sorted(methods - documented):
            answer = httpx.request(method, url + concrete)
            assert answer.status_code == 405, (method, path, answer.status_code)
            assert answer.json()["code"] == "method_not_allowed"
            assert set(answer.headers["allow"].split(", ")) == documented, (method, path, answer.headers["allow"])
