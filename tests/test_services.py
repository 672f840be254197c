"""The honest test setup (``services.py``): a missing service skips with its reason, or fails under CI."""

from __future__ import annotations

import pytest

import services
from services import Service, left_out, require


@pytest.fixture
def gone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A service that this machine lacks."""
    monkeypatch.setitem(services.SERVICES, "gone", Service("Gone", lambda: "nothing there", "apt-get install gone"))
    services.missing.cache_clear()


def test_a_missing_service_skips_its_test_with_a_one_line_reason(gone: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"^needs Gone: nothing there$"):
        require("gone")


def test_under_ci_a_missing_service_fails_the_test(gone: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"needs Gone: nothing there \(CI=true"):
        require("gone")


def test_a_service_that_is_there_lets_the_test_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(services.SERVICES, "here", Service("Here", lambda: None, ""))
    monkeypatch.setenv("CI", "true")
    require("here")


def test_the_run_ends_with_each_missing_service_its_count_and_how_to_get_it(gone: None) -> None:
    reasons = ["needs Gone: nothing there", "needs Gone: nothing there", "some other reason"]
    assert left_out(reasons) == ["Gone: 2 tests skipped; to run them: apt-get install gone"]
    assert left_out(["some other reason"]) == []
    assert left_out(reasons[:1]) == ["Gone: 1 test skipped; to run it: apt-get install gone"]
