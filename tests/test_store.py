"""The store when the disk says no: what a failed write says (full disk, read-only medium,
no permission), a table that a cut-off first write left without a version, and builds on
a real small tmpfs that fills up or is read-only (skipped where mounting is not allowed).
The fake model and hash embedder stand in: these are storage tests."""

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import copy_corpus
from fakes import FakeChatModel
from test_pipeline import make_build, scripted, tables

from graphrag_local import api
from graphrag_local.errors import StoreError
from graphrag_local.pipeline import run_build
from graphrag_local.store import Store, write_error


@pytest.mark.parametrize("exc,words", [
    (OSError(errno.ENOSPC, "No space left on device"), "no space left on device"),
    (RuntimeError("lance error: LanceError(IO): No space left on device (os error 28), "
                  "lance-file/src/writer.rs:191:9"), "no space left on device"),
    (RuntimeError("LanceError(IO): Read-only file system (os error 30)"), "read-only file system"),
    (PermissionError(errno.EACCES, "Permission denied"), "permission denied"),
])
def test_write_errors_name_the_folder_and_say_what_to_do(exc, words, tmp_path):
    error = write_error(tmp_path, exc)
    assert isinstance(error, StoreError)
    assert str(error).startswith(f"{tmp_path}: {words}")
    if "space" in words:
        assert "run the same build again" in str(error) and "resumable" in str(error)


def test_other_errors_stay_bugs(tmp_path):
    assert write_error(tmp_path, RuntimeError("lance error: schema mismatch")) is None
    assert write_error(tmp_path, OSError(errno.ENOENT, "No such file")) is None


def test_a_table_left_without_a_version_reads_empty_and_is_written_again(tmp_path):
    """A kill or a full disk during a table's first write leaves a folder LanceDB lists
    but cannot open: it reads as empty, and the next write creates the table."""
    store = Store(tmp_path / "idx", create=True)
    for name in ("summaries", "documents"):
        (tmp_path / "idx" / "lancedb" / f"{name}.lance" / "data").mkdir(parents=True)
    assert store.has("summaries") and store.read("summaries") == [] and store.count("summaries") == 0
    store.append("summaries", [{"key": "k", "text": "t"}])
    assert store.read("summaries") == [{"key": "k", "text": "t"}]
    row = {"id": "d", "path": "a.md", "title": "A", "text": "x", "encoding": "utf-8",
           "kind": "text", "sections_json": "[]", "language": "en"}
    store.write("documents", [row])
    assert Store(tmp_path / "idx").read("documents") == [row]


# --- on a real small disk -------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path):
    """A 20 MB tmpfs mounted at tmp_path/disk (root only; skipped elsewhere), unmounted
    after the test."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no `mount` command here: cannot make a small disk")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(disk)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield disk
    finally:
        if subprocess.run(["umount", str(disk)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def _fill(disk: Path, leave: int) -> Path:
    """A file taking all the free space of `disk` but `leave` bytes."""
    st = os.statvfs(disk)
    filler = disk / "filler"
    with open(filler, "wb") as f:
        f.truncate(0)
        chunk = b"\0" * (1 << 20)
        todo = st.f_bavail * st.f_frsize - leave
        while todo > 0:
            todo -= f.write(chunk[: min(len(chunk), todo)])
    return filler


@pytest.fixture
def corpus(tmp_path):
    return copy_corpus(tmp_path / "docs")


def test_full_disk_stops_with_a_clear_error_and_the_build_resumes(small_disk, corpus, tmp_path):
    index = small_disk / "index"
    run_build(make_build(corpus, tmp_path / "fresh", FakeChatModel(default=scripted)))
    size = sum(p.stat().st_size for p in (tmp_path / "fresh").rglob("*") if p.is_file())
    filler = _fill(small_disk, leave=size // 3)  # the disk fills a third of the way
    with pytest.raises(StoreError) as failed:
        run_build(make_build(corpus, index, FakeChatModel(default=scripted)))
    message = str(failed.value)
    assert message.startswith(f"{index}: no space left on device")
    assert "run the same build again" in message and "resumable" in message
    filler.unlink()
    summary = run_build(make_build(corpus, index, FakeChatModel(default=scripted)))
    assert summary["resumed"] and any("did not finish" in c for c in summary["changes"])
    assert tables(index) == tables(tmp_path / "fresh")


def test_read_only_index_is_refused_before_any_work_and_still_read(small_disk, corpus):
    index = small_disk / "index"
    run_build(make_build(corpus, index, FakeChatModel(default=scripted)))
    before = tables(index)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    model = FakeChatModel()  # any call would fail: nothing is queued
    with pytest.raises(StoreError, match="read-only file system") as failed:
        run_build(make_build(corpus, index, model))
    assert str(failed.value).startswith(f"{index}: ") and model.calls == []
    status = api.status(index)  # an index on read-only media can still be read
    assert status["complete"] and status["build_running"] is None
    assert tables(index) == before
    assert api.show(index, "entities")["entities"]


def test_unwritable_parent_folder_is_refused_with_its_name(small_disk, corpus):
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    with pytest.raises(StoreError, match="read-only file system") as failed:
        Store(small_disk / "new" / "index", create=True)
    assert str(failed.value).startswith(f"{small_disk / 'new' / 'index'}: ")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through file permissions")
def test_unwritable_index_folder_is_refused_before_any_work(corpus, tmp_path):
    index = tmp_path / "index"
    run_build(make_build(corpus, index, FakeChatModel(default=scripted)))
    modes = {p: p.stat().st_mode for p in [index, *index.rglob("*")]}
    for p in modes:
        p.chmod(p.stat().st_mode & ~0o222)
    try:
        model = FakeChatModel()  # any call would fail: nothing is queued
        with pytest.raises(StoreError, match="permission denied") as failed:
            run_build(make_build(corpus, index, model))
        assert str(failed.value).startswith(f"{index}: ") and model.calls == []
        assert api.status(index)["complete"]  # still readable
    finally:
        for p, mode in modes.items():
            p.chmod(mode)
