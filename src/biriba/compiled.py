"""The optional compiled engine: the hottest modules built as C extensions by mypyc, from the same source.

Search spends most of its time listing melds and adds, scoring and choosing
greedy moves.  ``make fast`` (``python src/biriba/compiled.py build``) compiles
the modules named in :data:`MODULES` next to their sources, and the research
environments' step and observation (:data:`ENV_MODULES`) where the ``rl``
extra is installed; Python then loads the extension in preference to the
``.py`` file.  ``make pure`` (``remove``) deletes them.  It needs a C
compiler, Python's headers, ``mypy`` (which ships mypyc) and ``setuptools``
(the ``fast`` extra); the pure-Python engine needs none of them and behaves
the same.

A build that no longer matches the source would play by old code, or crash
on a type that changed in a module it imports, so importing :mod:`biriba`
refuses it (:func:`refuse_stale`, run when this module is imported as part of
the package, before any compiled module loads).  The build records the
modules it compiled and the size and time of every ``.py`` file of the
package as it starts (:data:`RECORD`); any difference since, or an extension
the build did not make, is refused.  Run this file as a script (``python
src/biriba/compiled.py build``) to build or remove a stale engine without
importing it.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path

#: The compiled modules, as paths under ``src``: what random and greedy rollouts spend their time in.
#: A compiled class cannot have an interpreted subclass: ``views.py`` comes with ``state.py``.
MODULES = (
    "biriba/melds/types.py",
    "biriba/melds/memo.py",
    "biriba/melds/classic.py",
    "biriba/melds/general.py",
    "biriba/melds/options.py",
    "biriba/scoring.py",
    "biriba/bots/greedy.py",
    "biriba/state.py",
    "biriba/views.py",
    "biriba/deal.py",
    "biriba/opening.py",
)
#: The environments' modules that a step runs through (docs/envs.md, "Speed"): compiled where the ``rl``
#: extra's libraries are installed, which they import.
ENV_MODULES = ("biriba/envs/encoding.py", "biriba/envs/observation.py", "biriba/envs/core.py")
#: What :data:`ENV_MODULES` import: without them the build leaves the environments out.
ENV_NEEDS = ("numpy", "gymnasium", "pettingzoo")
#: The extension that holds the compiled code of every module built; each module's own file is a shim.
SHARED = "biriba__mypyc"
#: The build's record of the modules it compiled and the sources it read (size and time of each ``.py`` file).
RECORD = "biriba/.compiled.json"
#: The folder holding the ``biriba`` package.
SRC = Path(__file__).resolve().parent.parent
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def modules() -> tuple[str, ...]:
    """What a build here compiles: :data:`MODULES`, and :data:`ENV_MODULES` if their libraries are installed."""
    import importlib.util

    if all(importlib.util.find_spec(name) is not None for name in ENV_NEEDS):
        return MODULES + ENV_MODULES
    return MODULES


def extension_of(module: str, src: Path = SRC) -> Path:
    """The extension file that Python would load instead of ``module`` (a path of :data:`MODULES`)."""
    return src / (module.removesuffix(".py") + SUFFIX)


def built(src: Path = SRC) -> list[Path]:
    """Every extension file under ``src`` that this Python would load for the package (any build's)."""
    return sorted(src.glob(f"{SHARED}{SUFFIX}")) + sorted((src / "biriba").rglob(f"*{SUFFIX}"))


def sources(src: Path = SRC) -> dict[str, list[int]]:
    """The size and modification time (ns) of every ``.py`` file of the package: what a build reads."""
    out = {}
    for path in sorted((src / "biriba").rglob("*.py")):
        stat = path.stat()
        out[path.relative_to(src).as_posix()] = [stat.st_size, stat.st_mtime_ns]
    return out


def stale(src: Path = SRC) -> list[str]:
    """Why the compiled engine under ``src`` does not match its source (nothing if it does, or if there is none)."""
    present = built(src)
    if not present:
        return []
    import json  # here, not above: every import of biriba runs this module, and most have no build

    try:
        record = json.loads((src / RECORD).read_text())
        made, read = list(record["modules"]), dict(record["sources"])
    except (OSError, ValueError, KeyError, TypeError):
        return ["there is no record of what it was built from"]
    expected = {extension_of(module, src) for module in made} | {src / (SHARED + SUFFIX)}
    why = [f"{path.relative_to(src)} is not part of the build" for path in present if path not in expected]
    why += [f"{path.relative_to(src)} is missing" for path in sorted(expected - set(present))]
    now = sources(src)
    for name in sorted(now.keys() | read.keys()):
        if now.get(name) != read.get(name):
            why.append(f"{name} changed since the build")
    return why


def refuse_stale(src: Path = SRC) -> None:
    """Raise :class:`ImportError` if the compiled engine no longer matches its source (it would run old code)."""
    why = stale(src)
    if why:
        raise ImportError(
            f"the compiled engine does not match its source ({'; '.join(why[:3])}{'...' if len(why) > 3 else ''}): "
            "rebuild it with `make fast`, or remove it with `make pure`"
        )


#: mypy's settings for the build.  Gymnasium's and PettingZoo's types are not followed: the compiled modules
#: only make Gymnasium's spaces, once, and reading all that Gymnasium imports took four minutes of the six
#: the build took.  numpy's types are kept: the environments' step was 5% slower without them.  Some research
#: libraries ship no types (as pyproject.toml's mypy settings say, which a copy of ``src`` alone lacks).
_MYPY_CONFIG = """
[mypy]
ignore_missing_imports = True
[mypy-gymnasium,gymnasium.*,pettingzoo,pettingzoo.*]
follow_imports = skip
"""
#: The setup script that compiles ``{modules}`` in place; mypyc writes C into ``{scratch}``.
_SETUP = """
from setuptools import setup
from mypyc.build import mypycify
setup(
    name="biriba-compiled",
    ext_modules=mypycify(
        [*{modules!r}, "--config-file", {config!r}],
        opt_level={opt_level!r},
        target_dir={scratch!r},
        group_name={group!r},
    ),
    script_args=["build_ext", "--inplace", "--build-temp", {scratch!r}, "--build-lib", {scratch!r}],
)
"""


def build(src: Path = SRC, opt_level: str = "3") -> list[Path]:
    """Compile :func:`modules` in place under ``src`` (a few minutes of C compiling); return the files made.

    The sources are recorded before mypyc reads them, so that an edit made
    during the build shows as a change.  ``opt_level`` is the C compiler's
    (``-O3`` by default): ``"0"`` builds several times sooner the same code,
    unoptimised, which is all a test of what the build does needs.
    """
    import json
    import subprocess
    import tempfile

    remove(src)
    made = modules()
    record = {"modules": list(made), "sources": sources(src)}
    with tempfile.TemporaryDirectory() as scratch:
        group = SHARED.removesuffix("__mypyc")
        config = Path(scratch) / "mypy.ini"
        config.write_text(_MYPY_CONFIG)
        script = _SETUP.format(
            modules=list(made), scratch=scratch, group=group, opt_level=opt_level, config=str(config)
        )
        env = os.environ | {"MYPY_CACHE_DIR": str(Path(scratch) / "mypy")}
        done = subprocess.run([sys.executable, "-c", script], cwd=src, capture_output=True, text=True, env=env)
    if done.returncode:
        remove(src)
        raise RuntimeError(f"mypyc could not build the engine:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    (src / RECORD).write_text(json.dumps(record, indent=0))
    return built(src)


def remove(src: Path = SRC) -> list[Path]:
    """Delete the compiled engine under ``src`` (every extension of the package); pure Python is used again."""
    gone = built(src)
    for path in gone:
        os.remove(path)
    (src / RECORD).unlink(missing_ok=True)
    return gone


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python src/biriba/compiled.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("build", "remove", "status"))
    parser.add_argument("--opt-level", choices="0123", default="3", help="the C compiler's -O (default 3)")
    args = parser.parse_args(argv)
    if args.command == "build":
        files = build(opt_level=args.opt_level)
        made = modules()
        print(f"compiled {len(made)} modules: {', '.join(made)}")
        if made == MODULES:
            print(f"not the environments' ({', '.join(ENV_NEEDS)} not installed: the rl extra)")
        print(f"{len(files)} extension files under {SRC}")
    elif args.command == "remove":
        print(f"removed {len(remove())} extension files; the engine is pure Python")
    else:
        why = stale()
        state = "stale: " + "; ".join(why) if why else ("compiled" if built() else "pure Python")
        print(f"engine for this Python: {state}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
refuse_stale()  # imported as part of the package, before any compiled module loads
