"""The soak (biriba.soak, ``biriba soak``): its tables, its checks catching planted bugs, its runs resuming."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path

import pytest

import biriba.soak as soak_module
from biriba.cli import main
from biriba.deal import Deal
from biriba.errors import IllegalActionError
from biriba.records import position_from_json
from biriba.rules import CLASSIC, OPTION_LIMITS, OPTION_NAMES, PRESETS, Rules
from biriba.soak import (
    CHUNK,
    STEP_MB,
    Chunk,
    DealReport,
    Run,
    peak_mb,
    random_option,
    random_rules,
    rss_mb,
    soak,
    soak_deal,
)
from biriba.views import PlayerView

POSITIONS = Path(__file__).parent / "positions"


def test_random_options_stay_in_their_declared_range() -> None:
    rng = random.Random(5)
    for name in OPTION_NAMES:
        for _ in range(30):
            value = random_option(name, rng)
            try:
                rules = CLASSIC.replace(**{name: value})
            except ValueError as error:  # a value in range that these rules cannot take (a deck too small)
                assert "range" not in str(error) and " to " not in str(error), error
                continue
            assert getattr(rules, name) == value
            if name in OPTION_LIMITS and isinstance(value, int) and not isinstance(value, bool):
                low, high = OPTION_LIMITS[name]
                assert low <= value <= high


def test_random_tables_cover_every_preset_and_changed_options() -> None:
    rng = random.Random(1)
    tables = [random_rules(rng) for _ in range(400)]
    assert {t.name.removesuffix("*") for t in tables} == set(PRESETS)
    changed = [t for t in tables if t.name.endswith("*")]
    assert 120 < len(changed) < 280
    options = Counter(
        name for t in changed for name in OPTION_NAMES if getattr(t, name) != getattr(PRESETS[t.name[:-1]], name)
    )
    assert len(options) > 25, "most options get changed somewhere"


def test_a_deal_is_fixed_by_its_seed_and_number() -> None:
    first, again, other = soak_deal(3, 17), soak_deal(3, 17), soak_deal(3, 18)
    assert first == again
    assert first.failure is None and first.ended_by in ("closure", "passes", "stock", "idle", "capped")
    assert (first.rules, first.actions) != (other.rules, other.actions)


def test_a_short_run_finds_nothing_and_counts_every_deal() -> None:
    run = soak(Run.new(0, 0, 24, sample=3))
    assert run.played == 24 and not run.failures
    assert sum(run.ended_by.values()) == 24 and sum(run.presets.values()) == 24
    summary = run.summary(jobs=1)
    assert summary["deals"] == 24 and summary["failures"] == 0 and summary["deals_per_s"] > 0
    assert summary["rss_mb"]["peak"] > 0


def test_a_deal_that_steps_its_workers_memory_up_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where to look when memory steps up: a planted hog at deal 5 of a chunk."""
    kept: list[bytes] = []

    def hog_at_deal_5(seed: int | str, index: int, sample: int) -> DealReport:
        if index == 5:  # past this process's peak by 80 MB, every page touched
            kept.append(b"x" * int((peak_mb() - rss_mb() + 80) * 1e6))
        return SOAK_DEAL(seed, index, sample)

    monkeypatch.setattr(soak_module, "soak_deal", hog_at_deal_5)
    run = soak(Run.new(0, 0, 8, sample=100))
    ((deal, before, after),) = run.memory_steps
    assert deal == 5 and after - before >= STEP_MB
    again = Run.from_json(json.loads(json.dumps(run.to_json())))
    assert again.memory_steps == run.memory_steps and run.summary(1)["memory_steps"][0]["deal"] == 5
    older = run.to_json()
    del older["memory_steps"]  # a state saved before the steps were kept resumes
    assert Run.from_json(older).memory_steps == []


def leak_a_card(self: PlayerView) -> dict[str, object]:
    """A planted bug: every view's JSON also names the stock's top card."""
    data = PLAIN_TO_JSON(self)
    data["stock"] = {"count": self.stock_count, "top": "AS"}
    return data


PLAIN_TO_JSON = PlayerView.to_json
SOAK_DEAL = soak_deal


def test_a_leaked_card_is_found_written_and_played_again_from_its_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(PlayerView, "to_json", leak_a_card)
    report = soak_deal(9, 10, sample=10)  # deal 10: one the costly checks read as JSON
    failure = report.failure
    assert failure is not None and report.ended_by == "failed"
    assert failure["check"] == "the views" and "AS" in failure["error"]
    assert failure["replay"] == "biriba soak --seed 9 --first 10 --deals 1"
    assert failure["position"]["format"] == "biriba-position/1"
    assert soak_deal(9, 10, sample=10).failure["error"] == failure["error"]  # type: ignore[index]


def test_the_command_writes_a_failure_and_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(PlayerView, "to_json", leak_a_card)
    args = ["soak", "--seed", "9", "--first", "10", "--deals", "1", "--jobs", "1", "--no-progress"]
    assert main([*args, "--failures", str(tmp_path)]) == 1
    assert f"failures: 1, written in {tmp_path}/" in capsys.readouterr().out
    written = json.loads((tmp_path / "deal-9-10.json").read_text())
    assert written["check"] == "the views" and written["position"]["format"] == "biriba-position/1"


def test_a_lost_card_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = Deal.apply

    def lose_the_discard(self: Deal, action: object, check: bool = True) -> object:
        outcome = plain(self, action, check)  # type: ignore[arg-type]
        if self.turn == 5 and self.discard:
            self.discard.pop()
        return outcome

    monkeypatch.setattr(Deal, "apply", lose_the_discard)
    failure = soak_deal(2, 1).failure
    assert failure is not None and "R23a" in failure["error"]
    assert failure["check"] in ("the card count", "a sampled action")  # the sample is played on a copy first


def test_a_stopped_run_resumes_to_the_same_totals(tmp_path: Path) -> None:
    whole = soak(Run(seed=4, first=0, deals=12, sample=100, chunk=3))
    state = tmp_path / "run.json"

    def stop_after_two(chunk: Chunk) -> None:
        if len(Run.from_json(json.loads(state.read_text())).done) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        soak(Run(seed=4, first=0, deals=12, sample=100, chunk=3), save=state, on_chunk=stop_after_two)
    assert json.loads(state.read_text())["done"] == [[0, 1]]
    resumed = soak(Run.from_json(json.loads(state.read_text())), save=state)
    for key in ("played", "actions", "ended_by", "presets", "custom"):
        assert getattr(resumed, key) == getattr(whole, key), key
    assert resumed.done == set(range(4))


def test_the_progress_bar_moves_a_hundredth_of_a_run_at_most_and_every_job_gets_several_chunks() -> None:
    """Issue 51: a 1000-deal run's bar moved in 50-deal jumps; a million-deal run keeps its chunks of CHUNK."""
    for deals, jobs in ((1000, 2), (200, 1), (3, 2), (10**6, 2), (5000, 16)):
        run = Run.new(0, 0, deals, jobs=jobs)
        assert 1 <= run.chunk <= max(1, deals // 100) and run.chunk <= CHUNK
        assert run.chunks >= min(deals, 4 * jobs)
        assert sum(count for *_, count, _sample in run.work()) == deals
    assert Run.new(0, 0, 10**6, jobs=2).chunk == CHUNK


def test_jobs_share_the_work_without_changing_it() -> None:
    alone = soak(Run(seed=6, first=0, deals=8, sample=100, chunk=2))
    shared = soak(Run(seed=6, first=0, deals=8, sample=100, chunk=2), jobs=2)
    assert (shared.played, shared.actions, shared.ended_by) == (alone.played, alone.actions, alone.ended_by)


def test_the_command_prints_the_summary_and_refuses_another_runs_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = str(tmp_path / "state.json")
    args = ["soak", "--deals", "4", "--seed", "3", "--jobs", "1", "--json", "--no-progress", "--state", state]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {"deals", "failures", "deals_per_s"} <= set(summary) and summary["deals"] == 4
    assert main(args) == 0  # run again: already done, nothing played
    assert json.loads(capsys.readouterr().out)["deals"] == 4
    assert main(["soak", "--deals", "5", "--seed", "3", "--state", state, "--no-progress"]) == 2
    assert "holds another run (--seed 3 --first 0 --deals 4" in capsys.readouterr().err


def test_rules_json_is_worked_out_once_and_stays_the_callers() -> None:
    rules = Rules().replace(target=3000)
    first = rules.to_json()
    assert isinstance(first, dict)
    first["target"] = 1
    assert rules.to_json()["target"] == 3000  # type: ignore[index]
    assert CLASSIC.to_json() == "classic"


def test_a_deal_that_hangs_is_a_failure_not_a_stalled_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed million, deal 36704 listed its actions for an hour (the opening-minimum search); now it is cut off.

    The hang is a check that sleeps, so the limit's signal always finds the interpreter to stop it.
    """
    monkeypatch.setattr(soak_module, "check_views", lambda deal, as_json=True: time.sleep(30))
    failure = soak_deal(3, 17, seconds=0.05).failure
    assert failure is not None and "took too long" in failure["error"]
    assert failure["position"]["format"] == "biriba-position/1"
    monkeypatch.undo()
    assert soak_deal(3, 17).failure is None  # the limit is lifted after the deal


def test_R10_a_candidate_is_compared_as_the_engine_reads_it() -> None:
    """Seed million, deal 365,500: the check of put-together actions took the same cards placed otherwise for it.

    ``meld 2C 3D 4D 5D`` names no slot, so the 2C goes to the high end
    (R10), where the team's 90-point minimum is out of reach this turn; with
    the 2C low, the ace of diamonds can join, and that meld is listed.  The
    soak now reads a candidate as the engine does before comparing it.
    """
    deal = position_from_json(json.loads((POSITIONS / "soak-365500-wild-placed-high.json").read_text()))
    unnamed = deal.parse_action("meld 2C 3D 4D 5D")
    assert str(unnamed) == "meld 3D 4D 5D 2C=6D"
    with pytest.raises(IllegalActionError, match="opening_minimums"):
        deal.check(unnamed)
    listed = list(deal.legal_actions())
    assert unnamed not in listed and deal.parse_action("meld 2C=2D 3D 4D 5D") in listed
    assert soak_deal("million", 365_500).failure is None
