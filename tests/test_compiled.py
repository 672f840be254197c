"""The compiled engine (``make fast``, :mod:`biriba.compiled`) plays exactly as the pure-Python one.

A copy of the package is played pure, then compiled by mypyc (with the C
compiler's optimisations off, which change its speed, not its code) and played
again: every legal action list, greedy choice and score of random deals under
every preset must come out the same.  A build older than its source must be
refused at import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from biriba import compiled

SRC = Path(compiled.__file__).resolve().parent.parent

#: Plays random and greedy deals under every preset, then a pickled and a deep-copied
#: deal on from where they were made, then (with the rl extra) a PettingZoo deal and a pickled
#: and a deep-copied environment deal; prints where the compiled modules came from and a
#: digest of every listing, choice, score, observation and mask.
PLAY = """
import copy, hashlib, importlib.util, pickle, random, sys
import biriba.melds.classic, biriba.scoring, biriba.bots.greedy
from biriba.bots import make_bot
from biriba.deal import Deal
from biriba.rules import PRESETS
envs = importlib.util.find_spec("pettingzoo") is not None
if envs:
    import biriba.envs.observation
    from biriba.envs import biriba_v0
    from biriba.envs.core import StepDeal
files = [biriba.melds.classic.__file__, biriba.scoring.__file__, biriba.bots.greedy.__file__]
print(*files, *([biriba.envs.observation.__file__] if envs else []))
digest = hashlib.sha256()
for name in sorted(PRESETS):
    for n in range(int(sys.argv[1])):
        rng = random.Random(n)
        deal = Deal.shuffled(f"{name}/{n}", rules=PRESETS[name], dealer=n % PRESETS[name].seats, max_turns=200)
        greedy = make_bot("greedy", f"{name}/{n}")
        while not deal.is_over:
            legal = list(deal.legal_actions())
            digest.update(" ".join(map(str, legal)).encode())
            if deal.to_move % 2:
                action = greedy.choose(deal.view_for(deal.to_move), legal)
            else:
                action = legal[rng.randrange(len(legal))]
            deal.apply(action, check=n % 2 == 0)
        digest.update(repr(deal.result()).encode())
rng = random.Random(1)
deal = Deal.shuffled("copies", max_turns=200)
for _ in range(30):
    legal = list(deal.legal_actions())
    deal.apply(legal[rng.randrange(len(legal))])
played = len(deal.history)
for twin in (pickle.loads(pickle.dumps(deal)), copy.deepcopy(deal)):
    assert type(twin) is Deal and twin.hands == deal.hands and twin.hands[0] is not deal.hands[0]
    while not twin.is_over:
        legal = list(twin.legal_actions())
        twin.apply(legal[rng.randrange(len(legal))])
    digest.update(repr(twin.result()).encode())
assert len(deal.history) == played and not deal.is_over  # the copies played on alone
if envs:
    env = biriba_v0.env(rules="italian")
    env.reset(seed=5)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        digest.update(observation["observation"].tobytes() + observation["action_mask"].tobytes())
        if termination or truncation:
            env.step(None)
            continue
        legal = [step for step, allowed in enumerate(observation["action_mask"]) if allowed]
        env.step(legal[rng.randrange(len(legal))])
    play = StepDeal(PRESETS["classic"])
    play.new_deal(random.Random(2))
    while len(play.deal.history) < 12 or not play.turn.prefix:  # stopped within a meld's steps
        play.step(rng.choice(play.legal_steps()))
    for twin in (pickle.loads(pickle.dumps(play)), copy.deepcopy(play)):
        assert twin.turn.prefix == play.turn.prefix and twin.legal_steps() == play.legal_steps()
        digest.update(twin.observation(twin.mover).tobytes())
print(digest.hexdigest())
"""


def _run(src: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PYTHONPATH": str(src)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=src, timeout=600)


@pytest.mark.needs("compiler")
def test_the_compiled_engine_plays_as_the_pure_one_and_a_build_unlike_its_source_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    skip = shutil.ignore_patterns("*.so", ".compiled.json", "__pycache__")
    shutil.copytree(SRC / "biriba", src / "biriba", ignore=skip)
    tool = str(src / "biriba" / "compiled.py")

    pure = _run(src, "-c", PLAY, "3")
    assert pure.returncode == 0, pure.stderr
    assert ".so" not in pure.stdout.splitlines()[0]

    made = _run(src, tool, "build", "--opt-level", "0")  # the code -O3 makes, compiled sooner
    assert made.returncode == 0, made.stderr
    made = compiled.modules()
    assert len(compiled.built(src)) == len(made) + 1
    fast = _run(src, "-c", PLAY, "3")
    assert fast.returncode == 0, fast.stderr
    expected = 3 + (compiled.ENV_MODULES[1] in made)  # the extensions ran, not the sources
    assert fast.stdout.splitlines()[0].count(compiled.SUFFIX) == expected
    assert fast.stdout.splitlines()[1] == pure.stdout.splitlines()[1]

    for edited in ("biriba/melds/classic.py", "biriba/rules.py"):  # compiled, or read by what is compiled
        source = src / edited
        times = (source.stat().st_atime_ns, source.stat().st_mtime_ns)
        os.utime(source, ns=(times[0], times[1] + 10**9))  # as if edited after the build
        refused = _run(src, "-c", "import biriba")
        assert refused.returncode != 0
        assert f"{edited} changed since the build" in refused.stderr and "make fast" in refused.stderr
        assert f"stale: {edited} changed" in _run(src, tool, "status").stdout
        os.utime(source, ns=times)
        assert _run(src, "-c", "import biriba").returncode == 0

    stray = src / "biriba" / ("stray" + compiled.SUFFIX)  # an extension the build did not make
    shutil.copy(compiled.extension_of("biriba/scoring.py", src), stray)
    assert "biriba/stray" in _run(src, "-c", "import biriba").stderr
    stray.unlink()

    assert _run(src, tool, "remove").returncode == 0
    assert compiled.built(src) == [] and not (src / compiled.RECORD).exists()
    assert _run(src, "-c", "import biriba").returncode == 0
