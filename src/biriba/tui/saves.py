"""Where terminal matches are saved: the file a player names, or an autosave.

Every match is saved after every action, so none is lost to a closed
window: with ``--save FILE`` in that file, otherwise in the user's data
directory (``platformdirs``; ``BIRIBA_DATA_DIR`` overrides it).
``biriba play --resume`` with no file continues the last unfinished match,
and ``biriba play --list`` lists them.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from ..errors import BiribaError
from ..records import RECORD_FORMAT, load_json


class SaveError(BiribaError):
    """A save file that cannot be used: the message says why and what to do."""


def data_dir() -> Path:
    """The folder of autosaved matches."""
    override = os.environ.get("BIRIBA_DATA_DIR")
    base = Path(override) if override else Path(platformdirs.user_data_dir("biriba", appauthor=False))
    return base / "matches"


def autosave_path(seed: object) -> Path:
    """A new autosave file for a match starting now."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return data_dir() / f"match-{stamp}-{str(seed)[:12]}.json"


def check_save_path(path: Path, force: bool) -> None:
    """Refuse, before a match starts, a save file that cannot be written or would overwrite a match."""
    if path.is_dir():
        raise SaveError(f"--save {path}: that is a folder; name a file, e.g. {path / 'match.json'}")
    if path.exists() and not force and _is_record(path):
        raise SaveError(
            f"--save {path}: a saved match is already there; continue it with 'biriba play --resume {path}',"
            " or add --force to start over in it"
        )
    if not path.parent.is_dir():
        raise SaveError(f"--save {path}: the folder {path.parent} does not exist")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise SaveError(f"--save {path}: cannot write there (permission denied)")


def write_atomically(path: Path, data: dict[str, Any]) -> None:
    """Write the record so that a crash leaves the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data) + "\n")
    tmp.replace(path)


def _is_record(path: Path) -> bool:
    try:
        data = load_json(path)
    except BiribaError:
        return False
    return isinstance(data, dict) and data.get("format") == RECORD_FORMAT


@dataclass(frozen=True)
class SavedMatch:
    """One saved match, as ``biriba play --list`` shows it."""

    path: Path
    modified: float
    rules: str
    deals: int
    totals: tuple[int, ...]
    over: bool

    def line(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.modified))
        state = "over" if self.over else "unfinished"
        totals = " - ".join(map(str, self.totals)) or "no deal yet"
        return f"{when}  {self.rules:14} {self.deals:2} deal(s)  {totals:15} {state:10}  {self.path}"


def saved_matches() -> list[SavedMatch]:
    """The autosaved matches, newest first (a file that is no record is skipped)."""
    folder = data_dir()
    out = []
    for path in folder.glob("*.json") if folder.is_dir() else []:
        try:
            data = load_json(path)
        except BiribaError:
            continue
        if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
            continue
        rules = data.get("rules", "classic")
        name = rules if isinstance(rules, str) else str(rules.get("name", "custom"))
        deals = data.get("deals", [])
        over = "winners" in data or "winner" in data
        out.append(SavedMatch(path, path.stat().st_mtime, name, len(deals), tuple(data.get("totals", ())), over))
    return sorted(out, key=lambda m: m.modified, reverse=True)


def last_unfinished() -> Path | None:
    """The newest autosaved match that is not over."""
    return next((m.path for m in saved_matches() if not m.over), None)
