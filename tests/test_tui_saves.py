"""Where terminal matches are saved: a player's files are never lost, names never shaped by input, and a
save that cannot be read is said, not skipped."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from biriba.cli import main
from biriba.rules import CLASSIC
from biriba.tui.saves import data_dir, last_unfinished, saved_matches, write_atomically
from biriba.tui.session import Session


@pytest.fixture(autouse=True)
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BIRIBA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("MAKELEVEL", raising=False)  # the commands said as a player types them, not as make runs them
    return tmp_path / "data" / "matches"


def play(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """``biriba play ARGS`` up to where it would start the match (refusals come before)."""
    code = main(["play", *argv])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize(
    "content",
    [b"my notes: call Maria on Tuesday\n", b"", b"\x89PNG\r\n\x1a\n\x00\xff garbage", b'{"format": "other/1"}'],
    ids=["notes", "empty", "binary", "other-json"],
)
@pytest.mark.parametrize("force", [False, True])
def test_save_refuses_every_existing_file_that_is_not_a_saved_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, force: bool
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(content)
    code, out = play(capsys, "--save", str(notes), *(["--force"] if force else []))
    assert code == 2 and "is not a match saved by biriba, and it is left as it is" in out, out
    assert ("--force writes only over a saved match" in out) == force
    assert notes.read_bytes() == content and "Traceback" not in out


def test_saving_never_touches_a_file_beside_the_save(tmp_path: Path) -> None:
    save = tmp_path / "match.json"
    beside = tmp_path / "match.json.tmp"  # the name a save once wrote through
    beside.write_text("a file of the user's")
    write_atomically(save, {"format": "x"})
    write_atomically(save, {"format": "y"})
    assert json.loads(save.read_text()) == {"format": "y"} and beside.read_text() == "a file of the user's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.json", "match.json.tmp"]  # no leftovers


@pytest.mark.parametrize("seed", ["../../evil", "a/b", "/etc/passwd", "x" * 300, "ok"])
def test_the_seed_never_shapes_the_autosave_path(seed: str, data: Path) -> None:
    first = Session.new(CLASSIC, ["greedy"], seed=seed)
    second = Session.new(CLASSIC, ["greedy"], seed=seed)  # the same second: a file of its own
    for session in (first, second):
        assert session.save_path.parent == data_dir() == data
        assert re.fullmatch(r"match-\d{8}-\d{6}(-\d+)?\.json", session.save_path.name), session.save_path
        assert seed not in session.save_path.name
    assert first.save_path != second.save_path and {m.path for m in saved_matches()} == {
        first.save_path,
        second.save_path,
    }


def test_a_save_that_cannot_be_read_is_listed_and_resume_says_so(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    older = Session.new(CLASSIC, ["greedy"], seed=1)
    broken = data / "match-20991231-235959.json"
    broken.write_text(older.save_path.read_text()[:100])  # cut short, as by a full disk
    past = time.time() - 60
    os.utime(older.save_path, (past, past))
    code, out = play(capsys, "--list")
    assert code == 0 and f"cannot be read: not JSON: cut short or damaged  {broken}" in out
    assert str(older.save_path) in out and "'biriba play --resume' would stop" in out
    code, out = play(capsys, "--resume")
    assert code == 2 and f"a newer save, {broken}, cannot be read" in out and "--resume FILE" in out
    broken.unlink()
    code, out = play(capsys, "--list")
    assert f"continues the newest unfinished one: {older.save_path}" in out


@pytest.mark.parametrize(
    "extra",
    [["--rules", "italian"], ["--set", "target=900"], ["--seed", "5"], ["--name", "Ann"], ["--save", "x.json"]],
)
def test_resume_refuses_what_the_saved_match_fixes(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = Session.new(CLASSIC, ["greedy"], seed=2)
    before = saved.save_path.read_text()
    code, out = play(capsys, "--resume", str(saved.save_path), *extra)
    assert code == 2 and f"{extra[0]}: a resumed match goes on as it was saved" in out, out
    assert saved.save_path.read_text() == before


def test_save_refuses_a_pipe_and_keeps_a_files_permissions_and_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    code, out = play(capsys, "--save", str(pipe))
    assert code == 2 and "that is not a file" in out  # and it did not hang reading it
    real = tmp_path / "real.json"
    write_atomically(real, {"format": "x"})
    assert real.stat().st_mode & 0o777 == 0o666 & ~_current_umask()
    os.chmod(real, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomically(link, {"format": "y"})
    assert link.is_symlink() and json.loads(real.read_text()) == {"format": "y"}
    assert real.stat().st_mode & 0o777 == 0o640


def test_a_link_to_nothing_in_the_saves_folder_is_passed_over(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = Session.new(CLASSIC, ["greedy"], seed=3)
    (data / "gone.json").symlink_to(data / "nowhere.json")
    code, out = play(capsys, "--list")
    assert code == 0 and str(saved.save_path) in out and "gone.json" not in out


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_match_saved_where_the_player_chose_is_listed_and_resumed(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = tmp_path / "elsewhere" / "our match.json"
    named.parent.mkdir()
    Session.new(CLASSIC, ["greedy"], seed=4, save=named)
    code, out = play(capsys, "--list")
    assert code == 0 and str(named.resolve()) in out, out
    assert f"continues the newest unfinished one: {named.resolve()}" in out
    assert last_unfinished() == named.resolve()  # what a bare --resume goes on with
    older = Session.new(CLASSIC, ["greedy"], seed=5)  # an autosave, newer: the newest unfinished now
    assert last_unfinished() == older.save_path
    named.unlink()  # a file the player moved away is no longer listed
    code, out = play(capsys, "--list")
    assert "our match" not in out and str(older.save_path) in out
