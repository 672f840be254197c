"""The command-line contract of notation.md: legal, apply, view, replay, position, simulate, rules."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pexpect
import pytest

from biriba import __version__
from biriba.cards import card_name, parse_card
from biriba.cli import main
from biriba.match import Match
from biriba.records import position_to_json
from biriba.rules import CLASSIC, PRESETS, Rules
from helpers import default_interrupt, position
from serverkit import BIRIBA as SERVE
from serverkit import server_process

BIRIBA = "3S 4S 5S 6S 7S 8S 9S"


def write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_legal_lists_sorted_canonical_actions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deal = position({0: "5H 6H JK 9C 9C"}, phase="play")
    path = write(tmp_path, "pos.json", position_to_json(deal))
    code, out, _ = run(capsys, "legal", path)
    lines = out.splitlines()
    assert code == 0 and lines == sorted(lines)
    assert "meld 5H 6H JK=7H" in lines and "meld JK=4H 5H 6H" in lines
    assert lines.count("discard 9C") == 1
    code, out, _ = run(capsys, "legal", path, "--count")
    assert code == 0 and int(out) == len(lines)


def test_apply_prints_the_new_position_or_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deal = position({0: "3H 4H 5H 9C 9D"}, phase="play")
    path = write(tmp_path, "pos.json", position_to_json(deal))
    code, out, _ = run(capsys, "apply", path, "meld 5h 4h 3h", "discard 9C")
    data = json.loads(out)
    assert code == 0 and data["melds"][0] == [["3H", "4H", "5H"]] and data["to_move"] == 1
    closing = position({0: "9C"}, melds=([BIRIBA], []), reserves=((0, True), None), phase="play")
    path = write(tmp_path, "close.json", position_to_json(closing))
    code, out, _ = run(capsys, "apply", path, "discard 9C")
    result = json.loads(out)
    assert code == 0 and result["ended_by"] == "closure" and result["winners"] == [0]
    for part in result["breakdown"]:
        assert set(part) >= {"melds", "bonuses", "hands", "going_out", "reserve", "total"}


def test_apply_refuses_an_illegal_action_with_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deal = position({0: "7H 9C QD"}, phase="draw", discard="7H")
    path = write(tmp_path, "pos.json", position_to_json(deal))
    code, out, err = run(capsys, "apply", path, "take", "discard 7H")
    assert code == 1 and out == ""
    assert "action 2" in err and "R16" in err and len(err.strip().splitlines()) == 1


def test_invalid_files_exit_1_naming_the_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deal = position({0: "7H 9C QD"}, phase="draw")
    data = position_to_json(deal)
    data["hands"][0].append("7H")
    data["hands"][0].append("7H")
    code, _, err = run(capsys, "legal", write(tmp_path, "bad.json", data))
    assert code == 1 and "R2" in err
    (tmp_path / "junk.json").write_text("{not json")
    code, _, err = run(capsys, "legal", str(tmp_path / "junk.json"))
    assert code == 1 and "not JSON" in err
    code, _, err = run(capsys, "legal", str(tmp_path / "missing.json"))
    assert code == 1 and "cannot read" in err


def test_misuse_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["legal"])
    assert info.value.code == 2
    capsys.readouterr()
    code, _, err = run(capsys, "simulate", "--deals", "1", "--bots", "clever")
    assert code == 2 and "unknown bot kind" in err


def test_view_hides_what_the_seat_cannot_see(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deal = position({0: "7H 9C QD"}, phase="draw")
    path = write(tmp_path, "pos.json", position_to_json(deal))
    code, out, _ = run(capsys, "view", path, "--seat", "1")
    view = json.loads(out)
    assert code == 0
    assert view["hands"][0] == {"count": 3} and isinstance(view["hands"][1], list)
    assert view["stock"] == {"count": deal.stock_count}
    assert all(set(p) == {"count"} for p in view["packets"])
    code, _, err = run(capsys, "legal", write(tmp_path, "view.json", view))
    assert code == 1 and "view" in err  # a view cannot be played on as truth


def test_simulate_save_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "records"
    code, out, _ = run(
        capsys, "simulate", "--deals", "6", "--bots", "greedy,random", "--seed", "4", "--save", str(save), "--json"
    )
    stats = json.loads(out)
    assert code == 0 and stats["deals"] == 6
    assert {"deals", "deals_per_s", "decisions_per_s", "ended_by", "mean_team_scores"} <= set(stats)
    assert sum(stats["ended_by"].values()) == 6
    assert set(stats["mean_team_scores"]) == {"greedy", "random"}
    records = sorted(save.glob("*.json"))
    assert records
    code, out, _ = run(capsys, "replay", str(records[0]), "--json")
    replayed = json.loads(out)
    assert code == 0 and replayed["deals"][0]["ended_by"] in ("closure", "passes", "capped")
    code, out, _ = run(capsys, "replay", str(records[0]))
    assert code == 0 and out.startswith("deal 1:")
    winners = replayed["deals"][0]["winners"]
    players = json.loads(records[0].read_text())["players"]
    named = " & ".join(players[s] for s in CLASSIC.teams[winners[0]])  # the team named as the game names it
    assert (f"({named} win;" if len(winners) == 1 else " tie;") in out.splitlines()[0]  # D31
    assert "team 0" not in out and "team 1" not in out


def test_replay_stops_at_the_first_illegal_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "records"
    run(capsys, "simulate", "--deals", "1", "--bots", "greedy", "--save", str(save), "--json")
    record = json.loads(next(save.glob("*.json")).read_text())
    actions = record["deals"][0]["actions"]
    seat = actions[0][0]
    record["deals"][0]["actions"] = [actions[0], [seat, "draw"], *actions[1:]]
    code, _, err = run(capsys, "replay", write(tmp_path, "bad.json", record))
    assert code == 1 and "deal 1, action 2" in err and "R15" in err


def test_replay_checks_the_stored_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "records"
    run(capsys, "simulate", "--deals", "1", "--bots", "greedy", "--save", str(save), "--json")
    record = json.loads(next(save.glob("*.json")).read_text())
    record["deals"][0]["result"]["team_scores"][0] += 5
    code, _, err = run(capsys, "replay", write(tmp_path, "bad.json", record))
    assert code == 1 and "differs" in err


def test_simulate_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--deals", "3", "--bots", "random", "--no-progress")
    assert code == 0 and "deals/s" in out and "decisions/s" in out and "ended by" in out


def test_rules_lists_presets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0 and "classic" in out
    code, out, _ = run(capsys, "rules", "classic")
    assert code == 0 and "target" in out and "5000" in out


def test_D36_rules_shows_the_idle_round_guard_and_its_table_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    line = next(line for line in out.splitlines() if line.strip().startswith("idle_rounds"))
    assert code == 0 and "D36" in line and "web and terminal tables: 2" in line and "0 to 10" in line


def test_console_script_is_installed() -> None:
    exe = Path(sys.executable).with_name("biriba")
    done = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("biriba ")


def simulated_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The record of three greedy self-play deals (one match: no team gets near 5000)."""
    save = tmp_path / "records"
    code, _, _ = run(capsys, "simulate", "--deals", "3", "--bots", "greedy", "--save", str(save), "--json")
    records = sorted(save.glob("*.json"))
    assert code == 0 and len(records) == 1
    return records[0]


def test_position_of_a_recorded_deal_loads_and_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = simulated_record(tmp_path, capsys)
    code, out, err = run(capsys, "position", str(record), "--deal", "2", "--step", "5")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["format"] == "biriba-position/1"
    _, replayed, _ = run(capsys, "replay", str(record), "--json")
    assert data["match_scores"] == json.loads(replayed)["deals"][0]["totals"]  # the totals before deal 2
    path = write(tmp_path, "pos.json", data)
    code, out, _ = run(capsys, "legal", path)
    legal = out.splitlines()
    assert code == 0 and legal
    code, out, _ = run(capsys, "apply", path, legal[0])
    assert code == 0 and json.loads(out)


def test_position_defaults_to_the_end_of_the_last_deal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = simulated_record(tmp_path, capsys)
    data = json.loads(record.read_text())
    actions = data["deals"][-1]["actions"]
    code, out, err = run(capsys, "position", str(record))  # the last deal is over: no position after it
    assert code == 1 and out == ""
    assert f"deal 3 ended at step {len(actions)}" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run(capsys, "position", str(record), "--step", str(len(actions) - 1))
    assert code == 0 and json.loads(out)["format"] == "biriba-position/1"
    # a saved match whose last deal is unfinished: by default, its position now
    del data["deals"][-1]["result"]
    data["deals"][-1]["actions"] = actions[:10]
    saved = write(tmp_path, "saved.json", data)
    code, out, _ = run(capsys, "position", saved)
    code_3_10, out_3_10, _ = run(capsys, "position", saved, "--deal", "3", "--step", "10")
    assert code == code_3_10 == 0 and json.loads(out) == json.loads(out_3_10)
    assert json.loads(out)["to_move"] == actions[10][0]


def test_position_out_of_range_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = simulated_record(tmp_path, capsys)
    steps = len(json.loads(record.read_text())["deals"][0]["actions"])
    for argv, valid in [
        (["--deal", "0"], "1..3"),
        (["--deal", "4"], "1..3"),
        (["--deal", "-1"], "1..3"),
        (["--deal", "1", "--step", "-1"], f"0..{steps}"),
        (["--deal", "1", "--step", str(steps + 1)], f"0..{steps}"),
    ]:
        code, out, err = run(capsys, "position", str(record), *argv)
        assert code == 2 and out == "" and valid in err and len(err.strip().splitlines()) == 1, argv


def test_position_equals_replaying_the_actions_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = simulated_record(tmp_path, capsys)
    data = json.loads(record.read_text())
    match = Match(Rules.from_json(data["rules"]), seed=data["seed"])
    first, second = data["deals"][0], data["deals"][1]
    deal = match.new_deal([parse_card(c) for c in first["deck"]], first["dealer"])
    for _seat, text in first["actions"]:
        deal.apply(deal.parse_action(text))
    deal = match.new_deal([parse_card(c) for c in second["deck"]], second["dealer"])
    for step in range(13):
        code, out, _ = run(capsys, "position", str(record), "--deal", "2", "--step", str(step))
        assert code == 0 and json.loads(out) == position_to_json(deal), step
        seat, text = second["actions"][step]
        assert deal.to_move == seat
        # the next step's position is also this one with the next action applied
        code, applied, _ = run(capsys, "apply", write(tmp_path, "pos.json", json.loads(out)), text)
        deal.apply(deal.parse_action(text))
        assert code == 0 and json.loads(applied) == position_to_json(deal), step


def test_view_text_draws_the_seat_view_as_the_game_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deal = position({1: "2S 3S 4S 9C"}, melds=(["7H 8H 9H"], ["KS KH KD"]), discard="8C 9D", phase="draw", to_move=1)
    path = write(tmp_path, "pos.json", position_to_json(deal))
    code, out, _ = run(capsys, "view", path, "--seat", "1", "--text", "--plain")
    assert code == 0 and out.isascii()
    assert "Your hand (4)" in out and "2S 2S" not in out and "KS KH KD" in out and "7H 8H 9H" in out
    assert "Pile 2: top 9D" in out
    hidden = [name for name in deal.hand(0) if name not in deal.hand(1)]
    assert all(f" {card_name(c)} " not in out.split("Your hand")[1] for c in hidden)


def test_play_bots_help_describes_each_kind(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "play", "--bots", "help")
    assert code == 0
    for kind in ("random", "easy", "greedy", "medium", "hard"):
        assert re.search(rf"^  {kind} +\w", out, re.MULTILINE), kind


@pytest.mark.parametrize(
    ("command", "defaults"),
    [
        ("play", ["(default: classic)", "(default: greedy)", "(default: You)", "(default: 0.4)", "(default: 1000)"]),
        ("tournament", ["(default: 100)", "(default: classic)", "(default: 1)", "(default: 0)"]),
        ("simulate", ["(default: 0)", "(default: classic)", "(default: 1)", "(default: 400)"]),
        ("serve", ["(default: 127.0.0.1)", "(default: 8000)"]),
    ],
)
def test_help_states_the_defaults(command: str, defaults: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps its lines
    for default in defaults:
        assert default in out, default


def test_serve_takes_the_replay_limits_as_flags_and_refuses_nonsense(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for flag in ("--replays-at-once N", "--replays-per-minute N", "--replay-cache BYTES"):
        assert flag in out, flag
    for flag in ("--replays-at-once", "--replays-per-minute", "--replay-cache"):
        code, _out, err = run(capsys, "serve", flag, "0")
        assert code == 2 and f"{flag} is at least 1" in err
    code, _out, err = run(capsys, "serve", "--quick-target", "0")
    assert code == 2 and "--quick-target is at least 1 point" in err


def test_rules_lists_every_preset_in_one_aligned_column(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    lines = [line for line in out.splitlines() if line.startswith("  ") and line.split()[0] in PRESETS]
    assert code == 0 and [line.split()[0] for line in lines] == list(PRESETS)
    starts = {len(line) - len(line[2:].split(" ", 1)[1].lstrip()) for line in lines}
    assert len(starts) == 1, lines  # every description starts in the same column


@pytest.mark.parametrize(
    ("proxies", "words"),
    [
        ("*", "every client's X-Forwarded-For would be believed"),
        ("0.0.0.0/0", "escape the per-address quotas; name the proxies (e.g. 127.0.0.1), or add --only-through-proxy"),
        ("::/0", "every client's X-Forwarded-For would be believed"),
        ("127.0.0.1,*", "'*' is not an IP address or network (127.0.0.1, 10.0.0.0/8, ::1); * stands alone"),
        ("nginx", "'nginx' is not an IP address or network"),
        ("10.0.0.5/8", "'10.0.0.5/8' is not an IP address or network"),  # uvicorn would match nothing with it
        ("127.0.0.1,", "'' is not an IP address or network"),
    ],
)
def test_serve_refuses_trusting_every_address_or_a_proxy_that_is_no_address(
    proxies: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--trusted-proxies '*'`` let a review's 12 forged X-Forwarded-For of 12 through (issue 49): refused, exit 2."""
    code, out, err = run(capsys, "serve", "--port", "1", "--trusted-proxies", proxies)
    assert code == 2 and words in err and "the web game is at" not in out, err


def test_serve_on_a_busy_port_says_so_in_one_line_before_announcing_anything(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [SERVE, "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path}/t.sqlite3"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert done.stdout == ""  # no "the web game is at" for a game that is not there
    assert done.stderr == f"biriba: port {port} on 127.0.0.1 is in use (another server?): choose another with --port\n"


def test_serve_trusts_every_address_only_when_told_nobody_comes_but_through_the_proxies(tmp_path: Path) -> None:
    """A forged X-Forwarded-For passes the per-address table quota where every address is a proxy, and the start
    says so; a named proxy's word is the only one believed."""
    db = f"sqlite:///{tmp_path}/t.sqlite3"
    body = {"seats": [{"kind": "bot", "bot": "greedy"}] * 4, "bot_delay": 10}
    flags = ("--tables-per-minute", "1", "--trusted-proxies", "*", "--only-through-proxy")
    with server_process(db, None, None, SERVE, *flags) as (url, process):
        for forged in ("10.0.0.1", "10.0.0.2"):
            made = httpx.post(url + "/api/tables", json=body, headers={"x-forwarded-for": forged}, timeout=10)
            assert made.status_code == 201, made.text  # each forged address is a client of its own
    assert process.stdout is not None
    start = process.stdout.read().decode()
    assert "warning: --trusted-proxies *: every client's X-Forwarded-For is believed; anyone who reaches port" in start
    with server_process(db, None, None, SERVE, "--tables-per-minute", "1", "--trusted-proxies", "10.9.9.9") as (
        url,
        process,
    ):
        made = httpx.post(url + "/api/tables", json=body, headers={"x-forwarded-for": "10.0.0.3"}, timeout=10)
        forged = httpx.post(url + "/api/tables", json=body, headers={"x-forwarded-for": "10.0.0.4"}, timeout=10)
        assert made.status_code == 201 and forged.status_code == 429  # not from 10.9.9.9: its own address counts
    assert process.stdout is not None and "biriba: warning" not in process.stdout.read().decode()


def test_every_flag_of_biriba_serve_is_documented_and_every_limit_with_its_default() -> None:
    """docs/operations.md lists every limit with its default and its flag (issue 49); the cluster's flags are
    docs/deploy.md's."""
    import argparse

    from biriba.cli import build_parser

    docs = Path(__file__).resolve().parent.parent / "docs"
    operations, deploy = (docs / "operations.md").read_text(), (docs / "deploy.md").read_text()
    listed = {m[1]: m[2].strip() for m in re.finditer(r"^\| `(--[a-z-]+)[^`]*` \| ([^|]+) \|", operations, re.M)}
    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    serve = subparsers.choices["serve"]
    for action in serve._actions:
        flag = max(action.option_strings, key=len, default="")
        if flag in ("", "--help"):
            continue
        if flag in ("--host", "--port", "--db", "--workers", "--redis", "--lease-ttl"):
            assert f"`{flag}" in operations or f"`{flag}" in deploy or f"{flag} " in operations, flag
            continue
        assert flag in listed, f"{flag} is not in docs/operations.md's table of limits"
        number = isinstance(action.default, int | float) and not isinstance(action.default, bool)
        if number and flag != "--bot-workers":  # that one's default is the machine's cores but one
            assert float(listed[flag].split()[0]) == action.default, f"{flag}: {listed[flag]} in the docs"


@pytest.mark.parametrize(
    "command",
    [["play"], ["rules"], ["simulate", "--deals", "1", "--bots", "random"], ["tournament", "random", "greedy"]],
)
def test_a_misspelt_option_is_named_as_it_was_written(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, _, err = run(capsys, *command, "--set", "foo=1")
    assert code == 2
    assert err.startswith("biriba: --set foo=1: no such option"), err


@pytest.mark.parametrize(
    ("command", "bots"),
    [
        (["simulate", "--deals", "2", "--bots", "greedy,random", "--rules", "italian"], ["greedy", "random"]),
        (["tournament", "greedy", "random", "--deals", "2", "--rules", "italian"], ["greedy", "random"]),
    ],
)
def test_a_runs_json_says_what_the_run_was(
    capsys: pytest.CaptureFixture[str], command: list[str], bots: list[str]
) -> None:
    code, out, _ = run(capsys, *command, "--seed", "9", "--set", "target=3000", "--json", "--no-progress")
    settings = json.loads(out)["settings"]
    assert code == 0 and (settings["rules"], settings["deals"], settings["seed"], settings["bots"]) == (
        "italian*",
        2,
        "9",
        bots,
    )
    assert settings["options"]["target"] == 3000 and settings["version"] == __version__


def test_a_tournament_stopped_by_ctrl_c_says_its_pairs_are_kept_and_how_to_go_on(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    command = [SERVE, "tournament", "greedy", "random", "--deals", "2000", "--state", str(state), "--jobs", "1"]
    process = subprocess.Popen(
        [*command, "--no-progress"], stderr=subprocess.PIPE, text=True, preexec_fn=default_interrupt
    )
    for _ in range(600):  # until a pair is kept (at most a minute)
        if state.exists() and state.stat().st_size:
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert f"pairs played are kept in {state}: the same command goes on from them" in err, err


def test_a_progress_bar_says_what_its_time_is() -> None:
    """On a terminal the bar's time column is labelled: the time left, not the time spent."""
    child = pexpect.spawn(SERVE, ["simulate", "--deals", "60", "--bots", "greedy"], dimensions=(24, 100), timeout=60)
    child.expect(r"\d+/60\S* +left ")
    child.expect(pexpect.EOF)


def test_rules_says_any_rule_or_decision_by_its_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "R13")
    assert code == 0 and out.startswith("R13 Adding the natural card a wild stands for: the natural card takes")
    assert max(map(len, out.splitlines())) <= 78
    text = (Path(__file__).parents[1] / "docs" / "rules.md").read_text()
    ids = set(re.findall(r"^(?:- )?(?:\*\*)?([RD]\d+[a-z]?)\b", text, re.MULTILINE))
    assert {"R1", "R30", "D1", "D38"} <= ids
    for rule in sorted(ids):
        code, out, _ = run(capsys, "rules", rule.lower())
        assert code == 0 and out.startswith(rule + " "), rule
    code, _, err = run(capsys, "rules", "R99")
    assert code == 2 and "no rule R99" in err
