"""The optional compiled engine: the hottest modules built as C extensions by mypyc, from the same source.

Search spends most of its time listing melds and adds, scoring and choosing
greedy moves.  ``make fast`` (``python src/biriba/compiled.py build``) compiles
the modules named in :data:`MODULES` next to their sources; Python then loads
the extension in preference to the ``.py`` file.  ``make pure`` (``remove``)
deletes them.  It needs a C compiler, Python's headers and ``mypy`` (which
ships mypyc); the pure-Python engine needs none of them and behaves the same.

A build older than its source would play by the old code, so importing
:mod:`biriba` refuses that (:func:`refuse_stale`, run when this module is
imported as part of the package, before any compiled module loads).  Run it
as a script (``python src/biriba/compiled.py build``) to build or remove a
stale engine without importing it.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: The compiled modules, as paths under ``src``: what random and greedy rollouts spend their time in.
MODULES = (
    "biriba/melds/types.py",
    "biriba/melds/memo.py",
    "biriba/melds/classic.py",
    "biriba/melds/general.py",
    "biriba/melds/options.py",
    "biriba/scoring.py",
    "biriba/bots/greedy.py",
)
#: The extension that holds the compiled code of all of :data:`MODULES`; each module's own file is a shim.
SHARED = "biriba__mypyc"
#: The folder holding the ``biriba`` package.
SRC = Path(__file__).resolve().parent.parent
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def extension_of(module: str, src: Path = SRC) -> Path:
    """The extension file that Python would load instead of ``module`` (a path of :data:`MODULES`)."""
    return src / (module.removesuffix(".py") + SUFFIX)


def built(src: Path = SRC) -> list[Path]:
    """The extension files of the compiled engine present under ``src``."""
    files = [extension_of(module, src) for module in MODULES] + [src / (SHARED + SUFFIX)]
    return [path for path in files if path.exists()]


def stale(src: Path = SRC) -> list[str]:
    """The modules whose extension is older than their source, or that the build left out."""
    out = []
    for module in MODULES:
        extension = extension_of(module, src)
        if extension.exists() and extension.stat().st_mtime < (src / module).stat().st_mtime:
            out.append(module)
    if built(src) and not all(extension_of(module, src).exists() for module in MODULES):
        out += [module for module in MODULES if not extension_of(module, src).exists()]
    return out


def refuse_stale(src: Path = SRC) -> None:
    """Raise :class:`ImportError` if a compiled module no longer matches its source (it would run old code)."""
    old = stale(src)
    if old:
        raise ImportError(
            f"the compiled engine does not match its source ({', '.join(old)}: edited since the build, "
            "or left out of it): "
            "rebuild it with `make fast`, or remove it with `make pure`"
        )


#: The setup script that compiles :data:`MODULES` in place; mypyc writes C into ``{scratch}``.
_SETUP = """
from setuptools import setup
from mypyc.build import mypycify
setup(
    name="biriba-compiled",
    ext_modules=mypycify({modules!r}, opt_level="3", target_dir={scratch!r}, group_name={group!r}),
    script_args=["build_ext", "--inplace", "--build-temp", {scratch!r}, "--build-lib", {scratch!r}],
)
"""


def build(src: Path = SRC) -> list[Path]:
    """Compile :data:`MODULES` in place under ``src`` (some seconds of C compiling); return the files made."""
    remove(src)
    with tempfile.TemporaryDirectory() as scratch:
        script = _SETUP.format(modules=list(MODULES), scratch=scratch, group=SHARED.removesuffix("__mypyc"))
        done = subprocess.run([sys.executable, "-c", script], cwd=src, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"mypyc could not build the engine:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return built(src)


def remove(src: Path = SRC) -> list[Path]:
    """Delete the compiled engine under ``src``; the pure-Python modules are used again."""
    gone = built(src)
    for path in gone:
        os.remove(path)
    return gone


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python src/biriba/compiled.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("build", "remove", "status"))
    args = parser.parse_args(argv)
    if args.command == "build":
        files = build()
        print(f"compiled {len(MODULES)} modules: {', '.join(MODULES)}")
        print(f"{len(files)} extension files under {SRC}")
    elif args.command == "remove":
        print(f"removed {len(remove())} extension files; the engine is pure Python")
    else:
        old = stale()
        state = "stale: " + ", ".join(old) if old else ("compiled" if built() else "pure Python")
        print(f"engine: {state}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
refuse_stale()  # imported as part of the package, before any compiled module loads
