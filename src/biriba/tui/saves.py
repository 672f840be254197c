"""Where terminal matches are saved: the file a player names, or an autosave.

Every match is saved after every action, so none is lost to a closed
window: with ``--save FILE`` in that file, otherwise in the user's data
directory (``platformdirs``; ``BIRIBA_DATA_DIR`` overrides it).
``biriba play --resume`` with no file continues the last unfinished match,
and ``biriba play --list`` lists them: the autosaves, and the files named
with ``--save`` (remembered in the data folder's ``elsewhere`` list while
they exist).  A file that is not a match saved by this program is never
written over, and nothing a player types (the seed above all, which would
show the cards) shapes the name of a save.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from ..errors import BiribaError
from ..records import RECORD_FORMAT


class SaveError(BiribaError):
    """A save file that cannot be used: the message says why and what to do."""


def data_dir() -> Path:
    """The folder of autosaved matches."""
    override = os.environ.get("BIRIBA_DATA_DIR")
    base = Path(override) if override else Path(platformdirs.user_data_dir("biriba", appauthor=False))
    return base / "matches"


def play_command(args: str = "") -> str:
    """``biriba play ARGS`` as the player can type it where they are.

    After ``make play`` the program is the virtual environment's, not on the
    PATH: then ``make play ARGS="..."`` (run by make) or the script's own path.
    """
    tail = f" {args}" if args else ""
    if os.environ.get("MAKELEVEL"):
        return f'make play ARGS="{args}"' if args else "make play"
    script = Path(sys.argv[0])
    on_path = shutil.which("biriba")
    if script.name != "biriba" or (on_path is not None and Path(on_path).resolve() == script.resolve()):
        return f"biriba play{tail}"
    here = os.path.relpath(script) if not os.path.relpath(script).startswith("..") else str(script)
    return f"{shlex.quote(here)} play{tail}"


def resume_command(path: Path) -> str:
    """The exact command that continues the match saved in ``path``."""
    return play_command(f"--resume {shlex.quote(str(path))}")


def _elsewhere_list() -> Path:
    return data_dir() / "elsewhere"


def _elsewhere() -> list[Path]:
    """The files named with ``--save`` that are still there."""
    try:
        paths = [Path(p) for p in json.loads(_elsewhere_list().read_text())["saved"]]
    except (OSError, ValueError, TypeError, KeyError):
        return []
    return [path for path in paths if path.is_file()]


def remember(path: Path) -> None:
    """Keep a match saved outside the data folder in its list, so that ``--list`` and ``--resume`` know it."""
    path = path.resolve()
    if path.parent == data_dir().resolve():
        return
    kept = [p for p in _elsewhere() if p != path] + [path]
    with contextlib.suppress(OSError):  # a data folder that cannot be written: the match is saved, only not listed
        write_atomically(_elsewhere_list(), {"saved": [str(p) for p in kept]})


def autosave_path() -> Path:
    """A new autosave file for a match starting now, named by the time alone."""
    stem = f"match-{time.strftime('%Y%m%d-%H%M%S')}"
    path, number = data_dir() / f"{stem}.json", 1
    while path.exists():
        number += 1
        path = data_dir() / f"{stem}-{number}.json"
    return path


def check_save_path(path: Path, force: bool) -> None:
    """Refuse, before a match starts, a save file that cannot be written or would overwrite a file.

    Only a match saved by this program may be written over, and only with ``force``.
    """
    if path.is_dir():
        raise SaveError(f"--save {path}: that is a folder; name a file, e.g. {path / 'match.json'}")
    if path.exists() and not path.is_file():  # a pipe or a device would be read for ever, or written into
        raise SaveError(f"--save {path}: that is not a file; name a file, e.g. match.json")
    if path.exists() and not _is_record(path):
        raise SaveError(
            f"--save {path}: that file is not a match saved by biriba, and it is left as it is"
            f"{' (--force writes only over a saved match)' if force else ''}; name a new file"
        )
    if path.exists() and not force:
        raise SaveError(
            f"--save {path}: a saved match is already there; continue it with '{resume_command(path)}',"
            " or add --force to start over in it"
        )
    if not path.parent.is_dir():
        raise SaveError(f"--save {path}: the folder {path.parent} does not exist")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise SaveError(f"--save {path}: cannot write there (permission denied)")


def write_atomically(path: Path, data: dict[str, Any]) -> None:
    """Write the record so that a crash leaves the old file or the new one, never half of one.

    Through a link, the file it points to is written; the file keeps its permissions (a new one gets the
    umask's, as any file the user makes).
    """
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as tmp:
            tmp.write(json.dumps(data) + "\n")
        os.chmod(name, path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _is_record(path: Path) -> bool:
    try:
        return _read(path) is not None
    except BiribaError:
        return False


def _read(path: Path) -> dict[str, Any] | None:
    """The saved match in ``path``, or None for another kind of file; SaveError says why it cannot be read."""
    try:
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise SaveError(exc.strerror or str(exc)) from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise SaveError("not JSON: cut short or damaged") from None
    return data if isinstance(data, dict) and data.get("format") == RECORD_FORMAT else None


@dataclass(frozen=True)
class SavedMatch:
    """One saved match, as ``biriba play --list`` shows it; ``problem`` says why a file cannot be read."""

    path: Path
    modified: float
    rules: str = ""
    deals: int = 0
    totals: tuple[int, ...] = ()
    over: bool = False
    problem: str | None = None

    def line(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.modified))
        if self.problem is not None:
            return f"{when}  cannot be read: {self.problem}  {self.path}"
        state = "over" if self.over else "unfinished"
        totals = " - ".join(map(str, self.totals)) or "no deal yet"
        return f"{when}  {self.rules:18} {self.deals:2} deal(s)  {totals:15} {state:10}  {self.path}"


def saved_matches() -> list[SavedMatch]:
    """The saved matches (the autosaves and the files named with ``--save``), newest first, with the files that
    cannot be read."""
    folder = data_dir()
    out = []
    for path in [*(folder.glob("*.json") if folder.is_dir() else []), *_elsewhere()]:
        try:
            modified = path.stat().st_mtime
        except OSError:  # a link to nothing: not a save
            continue
        try:
            data = _read(path) if path.is_file() else None
        except BiribaError as exc:
            out.append(SavedMatch(path, modified, problem=str(exc)))
            continue
        if data is None:
            out.append(SavedMatch(path, modified, problem="not a match saved by biriba"))
            continue
        rules = data.get("rules", "classic")
        name = rules if isinstance(rules, str) else str(rules.get("name", "custom"))
        deals = data.get("deals", [])
        over = "winners" in data or "winner" in data
        out.append(SavedMatch(path, modified, name, len(deals), tuple(data.get("totals", ())), over))
    return sorted(out, key=lambda m: m.modified, reverse=True)


def last_unfinished() -> Path | None:
    """The newest saved match that is not over.

    Raises :class:`SaveError` when a newer save cannot be read: going on with
    an older match without a word would look like a lost one.
    """
    for match in saved_matches():
        if match.problem is not None:
            raise SaveError(
                f"a newer save, {match.path}, cannot be read ({match.problem}); move it away, or name the"
                f" match to continue: '{play_command('--resume FILE')}' ('{play_command('--list')}' lists them)"
            )
        if not match.over:
            return match.path
    return None
