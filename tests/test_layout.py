"""The package's boundaries: the engine and the bots import no front end, nor rich.

Front ends live in their own subpackages (``tui/`` now, ``server/`` and
``envs/`` to come) and build on the engine, never the other way round.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import biriba

PACKAGE = Path(biriba.__file__).parent
FRONT_ENDS = ("tui", "server", "envs")
#: Modules that present the engine to people: they may import the front ends.
PRESENTERS = ("cli", "__main__")
#: Libraries of the front ends; the engine stays on the standard library.
FORBIDDEN = (
    "rich",
    "textual",
    "fastapi",
    "starlette",
    "uvicorn",
    "sqlalchemy",
    "websockets",
    "numpy",
    "gymnasium",
    "pettingzoo",
    "pyspiel",
    "open_spiel",
    "torch",
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def engine_modules() -> list[Path]:
    """Every module of the package but the front ends and the command line."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = module_name(path).split(".")
        if len(parts) > 1 and (parts[1] in FRONT_ENDS or parts[1] in PRESENTERS):
            continue
        out.append(path)
    return out


def imported_names(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module ``source`` (the text of ``module``) imports, as absolute dotted names."""
    names = set()
    here = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                names.add(".".join([*base, *([node.module] if node.module else [])]))
            else:
                names.add(node.module or "")
    return names


def violations(names: set[str]) -> list[str]:
    bad = []
    for name in sorted(names):
        parts = name.split(".")
        if parts[0] in FORBIDDEN or (parts[0] == "biriba" and len(parts) > 1 and parts[1] in FRONT_ENDS):
            bad.append(name)
    return bad


def test_engine_and_bots_import_no_front_end_nor_rich() -> None:
    modules = engine_modules()
    expected = {"biriba.deal", "biriba.table", "biriba.bots.greedy", "biriba.melds.classic"}
    assert expected <= set(map(module_name, modules))
    for path in modules:
        names = imported_names(path.read_text(), module_name(path), path.name == "__init__.py")
        assert not violations(names), f"{module_name(path)} imports {violations(names)}"


def test_the_check_sees_a_front_end_import() -> None:
    names = imported_names("from ..tui import Game\nimport rich.console\nfrom ..rules import Rules\n", "biriba.bots.x")
    assert names == {"biriba.tui", "rich.console", "biriba.rules"}
    assert violations(names) == ["biriba.tui", "rich.console"]


def test_importing_the_engine_loads_no_front_end() -> None:
    modules = [module_name(path) for path in engine_modules()]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"forbidden, front = {FORBIDDEN!r}, {FRONT_ENDS!r}\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in forbidden"
        " or (m.startswith('biriba.') and m.split('.')[1] in front))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing the engine loaded {out.stdout.strip()}"
