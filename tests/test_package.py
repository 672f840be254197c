"""The package as users get it: the built wheel, installed in fresh virtual environments.

The editable checkout of ``make test`` has every extra installed, which
would hide a dependency missing from an extra (SQLAlchemy's greenlet once
did).  So the wheel is built and installed six ways: with no dependency
at all (the engine and the bots need none), as ``pip install biriba`` (the
terminal game, played from piped input), as ``pip install 'biriba[web]'``
(the web game, served and fetched), as ``pip install 'biriba[rl]'`` (the
research interfaces and the IS-MCTS bot), as ``pip install
'biriba[rl,train]'`` (a policy trained and played) and as ``pip install
'biriba[fuzz]'`` (the checkout's fuzzers, run on the installed package).  The tests share one wheel on one
worker (``--dist loadgroup``); the fresh venvs take two to three minutes,
most of it pip installing the web and rl extras.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import httpx
import pytest
from pexpect.popen_spawn import PopenSpawn

from serverkit import server_process

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.xdist_group("package"), pytest.mark.needs("index")]


def run(*command: str | Path, timeout: float = 600, **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the sources: the checkout's compiled engine, caches and build folders
    stay out of it, and the other tests' workers writing their caches meanwhile cannot disturb the build."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    leave = shutil.ignore_patterns("__pycache__", "*.so", ".compiled.json", "*.egg-info", "build")
    shutil.copytree(ROOT / "src", source / "src", ignore=leave)
    folder = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", folder, source)
    (built,) = folder.glob("biriba-*.whl")
    return built


def fresh_venv(folder: Path, *requirement: str) -> Path:
    """A new virtual environment with ``pip install`` of ``requirement``; returns its bin folder."""
    run(sys.executable, "-m", "venv", folder)
    bin_ = folder / "bin"
    pip_install(bin_, *requirement)
    return bin_


def pip_install(bin_: Path, *requirement: str) -> None:
    """``pip install``, leaving out the byte-compiling of every installed file (torch has thousands):
    Python compiles what it imports as it imports it, as it would without pip's help."""
    run(bin_ / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile", *requirement)


def plays_a_tournament(bin_: Path, kind: str) -> bool:
    """Does the venv's ``biriba tournament`` play two duplicate pairs of ``kind`` against random?"""
    played = run(bin_ / "biriba", "tournament", kind, "random", "--deals", "2", "--json", "--no-progress")
    return bool(json.loads(played.stdout)["pairs"] == 2)


def test_the_wheel_holds_the_page_the_migrations_and_the_entry_point(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for part in (
        "biriba/__main__.py",
        "biriba/py.typed",
        "biriba/server/static/index.html",
        "biriba/server/static/table/index.js",
        "biriba/server/static/style.css",
        "biriba/server/static/i18n/el.json",
        "biriba/server/migrations/env.py",
        "biriba/server/migrations/script.py.mako",
        "biriba/server/migrations/versions/0001_tables_deals_actions.py",
        "biriba/server/static/manifest.webmanifest",
        "biriba/server/static/icons/icon-512.png",
        "biriba/rules.md",
    ):
        assert part in names, f"{part} is missing from {wheel.name}"
    shipped = zipfile.ZipFile(wheel).read("biriba/rules.md").decode()
    assert shipped == (Path(__file__).parents[1] / "docs" / "rules.md").read_text()  # the rules themselves, whole
    assert not any(name.startswith("tests/") or name.endswith(".so") for name in names)
    metadata = next(name for name in names if name.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    required = [line for line in text.splitlines() if line.startswith("Requires-Dist:")]
    base = [line for line in required if "extra ==" not in line]
    assert sorted(line.split()[1].split("<")[0].split(">")[0] for line in base) == ["platformdirs", "rich", "textual"]
    assert any("sqlalchemy[asyncio]" in line and 'extra == "web"' in line for line in required)


ENGINE_ALONE = textwrap.dedent(
    """
    import sys
    before = set(sys.modules)
    from biriba import Match, Table, preset
    from biriba.bots import BOT_KINDS, make_bot
    from biriba.records import position_to_json
    for name in ("classic", "italian"):
        kinds = ["greedy", "random", "easy", "hard"]
        table = Table(Match(preset(name), seed=5), [make_bot(k, s, think_ms=50) for s, k in enumerate(kinds)])
        table.start_deal()
        table.run()
        deal = table.match.deals[-1]
        assert deal.is_over and deal.result().team_scores, name
        position_to_json(deal)
    from biriba.bots import known_kinds
    assert "openspiel-ismcts" not in known_kinds() and "policy" not in known_kinds(), "their extras are missing"
    outside = sorted({m.split(".")[0] for m in set(sys.modules) - before} - set(sys.stdlib_module_names) - {"biriba"})
    print("outside the standard library:", outside)
    """
)


def test_the_engine_and_the_bots_run_with_no_third_party_package(wheel: Path, tmp_path: Path) -> None:
    bin_ = fresh_venv(tmp_path / "none", "--no-deps", str(wheel))
    for package in ("rich", "textual", "platformdirs", "fastapi"):  # nothing to import by mistake
        assert run(bin_ / "python", "-c", f"import importlib.util as u; print(u.find_spec('{package}'))").stdout == (
            "None\n"
        )
    played = run(bin_ / "python", "-c", ENGINE_ALONE, cwd=tmp_path)
    assert played.stdout.strip() == "outside the standard library: []"
    rules = run(bin_ / "biriba", "rules", "italian")
    assert rules.stdout.startswith("italian:")
    assert run(bin_ / "biriba", "rules", "R13").stdout.startswith("R13 Adding the natural card a wild stands for")
    simulated = run(bin_ / "biriba", "simulate", "--deals", "2", "--bots", "greedy,random", "--json", "--no-progress")
    assert json.loads(simulated.stdout)["deals"] == 2
    # the terminal game needs the packages biriba installs with it: installed without them, it says so
    play = subprocess.run(
        [bin_ / "biriba", "play"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert play.returncode == 2 and "Traceback" not in play.stderr, play.stderr
    assert "biriba play needs the package" in play.stderr and "pip install --force-reinstall biriba" in play.stderr


def test_pip_install_biriba_plays_in_the_terminal_from_piped_input(wheel: Path, tmp_path: Path) -> None:
    bin_ = fresh_venv(tmp_path / "base", str(wheel))
    assert run(bin_ / "python", "-m", "biriba", "--version").stdout.startswith("biriba ")
    refused = subprocess.run([bin_ / "biriba", "serve"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert "biriba serve needs biriba's web extra" in refused.stderr and "pip install 'biriba[web]'" in refused.stderr
    # the research interfaces and their bot need the rl extra: each says so
    envs = subprocess.run([bin_ / "python", "-c", "import biriba.envs"], capture_output=True, text=True, timeout=60)
    assert "biriba.envs needs biriba's rl extra" in envs.stderr and "pip install 'biriba[rl]'" in envs.stderr
    plugin = subprocess.run(
        [bin_ / "biriba", "tournament", "openspiel-ismcts", "greedy", "--deals", "2"], capture_output=True, text=True
    )
    assert plugin.returncode == 2
    assert plugin.stderr == "biriba: bot kind 'openspiel-ismcts' needs biriba's rl extra: pip install 'biriba[rl]'\n"

    save = tmp_path / "match.json"
    env = dict(os.environ, BIRIBA_DATA_DIR=str(tmp_path / "data"))
    command = [str(bin_ / "biriba"), "play", "--seed", "7", "--delay", "0", "--save", str(save)]
    child = PopenSpawn(command, env=env, encoding="utf-8", timeout=120)  # pipes, not a terminal: the line mode
    prompt = r"Your move \((?:draw|take|pass|meld|add|discard|, )+\) > "
    played = 0
    while played < 4:  # four actions of ours: two turns or more, each as the hint says
        child.expect(prompt)
        child.sendline("hint")
        child.expect(r"Hint: ([^\r\n]+)\r?\n")
        action = child.match.group(1).strip()
        child.expect(prompt)
        child.sendline(action)
        played += 1
    child.expect(prompt)
    child.sendline("quit")
    child.expect(r"\(y/N\) > ")
    child.sendline("y")
    child.expect("Stopped. The match is saved in")
    assert child.wait() == 0
    record = json.loads(save.read_text())
    ours = [action for seat, action in record["deals"][0]["actions"] if seat == 0]
    assert len(ours) == 4


def test_pip_install_biriba_web_serves_the_page_and_the_api(wheel: Path, tmp_path: Path) -> None:
    bin_ = fresh_venv(tmp_path / "web", f"biriba[web] @ {wheel.as_uri()}")
    with server_process(f"sqlite:///{tmp_path}/web.sqlite3", biriba=str(bin_ / "biriba")) as (url, _process):
        page = httpx.get(url + "/", timeout=10)
        assert page.status_code == 200 and "<html" in page.text.lower()
        script = httpx.get(url + "/static/table/index.js", timeout=10)
        assert script.status_code == 200 and "function" in script.text
        rules = httpx.get(url + "/api/rules", timeout=10).json()
        assert "classic" in rules["presets"] and "italian" in rules["presets"]
        table = httpx.post(
            url + "/api/tables", json={"rules": "classic", "seats": [{"kind": "bot", "bot": "greedy"}] * 4}, timeout=10
        )
        assert table.status_code == 201, table.text  # the store's schema was made by the wheel's migrations


RESEARCH = textwrap.dedent(
    """
    import gymnasium, pyspiel
    import biriba.envs
    import biriba.envs.openspiel
    from biriba.envs import biriba_v0
    env = biriba_v0.env(rules="italian", seats=4)
    env.reset(seed=3)
    for agent in env.agent_iter(60):
        observation, reward, ended, cut, info = env.last()
        mask = observation["action_mask"]
        env.step(None if ended or cut else int(mask.nonzero()[0][0]))
    one = gymnasium.make("biriba/Biriba-v0", opponents="greedy")
    observation, info = one.reset(seed=1)
    assert observation.shape == (7299,) and one.unwrapped.action_masks().any()
    game = pyspiel.load_game("python_biriba")
    state = game.new_initial_state()
    assert state.is_chance_node()
    print("research interfaces ready")
    """
)


def test_pip_install_biriba_rl_brings_every_research_interface_and_the_ismcts_bot(wheel: Path, tmp_path: Path) -> None:
    """The rl extra alone (no test extras beside it): PettingZoo, Gymnasium, OpenSpiel, and the plugin bot kind."""
    bin_ = fresh_venv(tmp_path / "rl", f"biriba[rl] @ {wheel.as_uri()}")
    assert run(bin_ / "python", "-c", RESEARCH, cwd=tmp_path).stdout.strip() == "research interfaces ready"
    kinds = run(bin_ / "biriba", "play", "--bots", "help").stdout
    assert "openspiel-ismcts" in kinds and "policy" not in kinds, "policy needs the train extra too"
    assert plays_a_tournament(bin_, "openspiel-ismcts:simulations=5")


def test_pip_install_biriba_fuzz_runs_every_fuzzer_against_the_installed_package(wheel: Path, tmp_path: Path) -> None:
    """The fuzz extra alone runs fuzz/ (from the checkout) on the wheel's biriba: atheris and the protocol's reader.

    A fixed seed and number of inputs make it the same run each time: a chance finding belongs to ``make fuzz``."""
    bin_ = fresh_venv(tmp_path / "fuzz", f"biriba[fuzz] @ {wheel.as_uri()}")
    work = tmp_path / "work"
    fuzz = ROOT / "fuzz" / "fuzz.py"
    run(bin_ / "python", fuzz, "--runs", "10000", "--seed", "1", "--seconds", "120", "--work", work, cwd=tmp_path)
    summary = json.loads((work / "summary.json").read_text())
    assert [s["target"] for s in summary] == ["notation", "position", "record", "options", "protocol"]
    assert all(s["runs"] > 0 and s["exit"] == 0 and not s["findings"] for s in summary), summary
    where = run(bin_ / "python", "-c", "import biriba; print(biriba.__file__)", cwd=tmp_path).stdout
    assert str(tmp_path / "fuzz") in where


def test_pip_install_biriba_train_trains_a_policy_and_plays_it(wheel: Path, tmp_path: Path) -> None:
    """The train and rl extras alone (torch 2.13.0 first, the CPU build on this machine's disk, as docs/envs.md
    says): examples/train_ppo.py trains a few hundred steps, and the policy plays as the bot kind policy:PATH."""
    folder = tmp_path / "train"
    bin_ = fresh_venv(folder, "torch==2.13.0")
    pip_install(bin_, f"biriba[rl,train] @ {wheel.as_uri()}")
    out = tmp_path / "ppo"
    example = ROOT / "examples" / "train_ppo.py"
    run(bin_ / "python", example, "--steps", "600", "--out", out, "--seed", "1", cwd=tmp_path, timeout=900)
    assert (out / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((out / "training.json").read_text())["steps"] == 600
    assert plays_a_tournament(bin_, f"policy:{out / 'policy.zip'}")
