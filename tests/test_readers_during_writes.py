"""Readers while a build writes: `query`, `show` and `status` answer from the last
finished build (the table versions its manifest pins) or say that a build is running;
never half-new tables, never a traceback. A build that finds an unfinished one's marker
says it is taking over. The fast tests use the fake model; the e2e test rewrites a real
index in a subprocess, kills it half-way through writing its tables, and reads it
meanwhile and while the resumed build finishes."""

import json
import os
import shutil
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import copy_corpus
from fakes import FakeChatModel, HashEmbedder
from test_pipeline import make_build, scripted, tables

from graphrag_local import api
from graphrag_local import store as store_mod
from graphrag_local.errors import IndexStateError
from graphrag_local.pipeline import run_build
from graphrag_local.prompts import load_prompts
from graphrag_local.query import Session, open_index
from graphrag_local.schema import OUTPUT_TABLES
from graphrag_local.settings import Settings
from graphrag_local.store import RUNNING, Store

EXE = Path(sys.executable).parent / "graphrag-local"


@pytest.fixture
def built(tmp_path):
    docs = copy_corpus(tmp_path / "docs")
    run_build(make_build(docs, tmp_path / "idx", FakeChatModel(default=scripted)))
    return docs, tmp_path / "idx"


def _readers(index: Path) -> dict:
    """What each reader says: tables, status counts, `show`, and a session's data."""
    session = Session(index, Settings(), load_prompts(), FakeChatModel, HashEmbedder)
    return {
        "tables": tables(index),
        "status": api.status(index)["tables"],
        "show": api.show(index, "entities"),
        "session": sorted(session.data.entities),
    }


def test_tables_written_without_a_new_manifest_are_not_seen(built):
    _docs, index = built
    before = _readers(index)
    writer = Store(index, create=True)  # a build in its store stage: some tables rewritten
    writer.write("entities", writer.read("entities")[:1], dim=HashEmbedder.dim)
    writer.write("chunks", [], dim=HashEmbedder.dim)
    assert len(Store(index, create=True).read("entities")) > 1  # pinned for writers too
    assert _readers(index) == before
    manifest = writer.read_manifest()
    writer.write_manifest({**manifest, "tables": writer.versions(OUTPUT_TABLES)})  # finished
    after = _readers(index)
    assert len(after["tables"]["entities"]) == 1 and after["tables"]["chunks"] == []
    assert after["status"]["entities"] == 1 and len(after["session"]) == 1


def test_old_versions_go_but_the_previous_build_stays_readable(built, monkeypatch):
    docs, index = built
    monkeypatch.setattr(store_mod, "KEEP_MARGIN", timedelta(seconds=0.2))

    def rebuild(n: int) -> None:
        time.sleep(0.3)
        (docs / f"new{n}.md").write_text(f"Ada Byron{n} met Charles Babbage in London{n}.")
        run_build(make_build(docs, index, FakeChatModel(default=scripted)))

    rebuild(1)
    reader = Store(index)  # a session opened on the second build
    second = reader.read("entities")
    rebuild(2)
    assert reader.read("entities") == second  # the previous build's versions are kept
    assert {t: Store(index).version_count(t) for t in OUTPUT_TABLES} == {t: 2 for t in OUTPUT_TABLES}
    assert Store(index).version_count("llm_calls") <= 4  # this build's appends and compaction
    rebuild(3)
    with pytest.raises(IndexStateError, match="open the index again"):
        reader.read("entities")


def _marker(index: Path, pid: int) -> None:
    (index / RUNNING).write_text(json.dumps({"pid": pid, "started": "2030-01-01 00:00:00"}))


def test_readers_say_that_a_build_is_running(built, tmp_path):
    _docs, index = built
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        _marker(index, sleeper.pid)
        status = api.status(index)  # the last finished build, and the running one
        assert status["complete"] and status["build_running"]["pid"] == sleeper.pid
        first = tmp_path / "first"  # a first build, running: nothing finished yet
        shutil.copytree(index, first)
        manifest = Store(first).read_manifest()
        Store(first).write_manifest({**manifest, "complete": False})
        for read in (open_index, lambda i: api.show(i, "entities")):
            with pytest.raises(IndexStateError, match=f"a build is running on it .pid {sleeper.pid}"):
                read(first)
        status = api.status(first)
        assert not status["complete"] and status["build_running"]["pid"] == sleeper.pid
        (first / "manifest.json").unlink()
        with pytest.raises(IndexStateError, match="a build is running on it"):
            api.status(first)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert api.status(index)["build_running"] is None  # its process is gone


def test_a_build_that_did_not_finish_is_taken_over(built):
    docs, index = built
    gone = subprocess.Popen(["true"])
    gone.wait()
    _marker(index, gone.pid)  # what a build killed with -9 leaves
    summary = run_build(make_build(docs, index, FakeChatModel(default=scripted)))
    assert summary["resumed"]
    assert any(f"did not finish (pid {gone.pid}" in c for c in summary["changes"])
    assert not (index / RUNNING).exists()
    again = run_build(make_build(docs, index, FakeChatModel(default=scripted)))
    assert not again["resumed"] and not again["changes"]


# --- the real thing ----------------------------------------------------------------------

BUILD = ("import json, sys; from pathlib import Path; from graphrag_local import api; "
         "print(json.dumps(api.build(Path(sys.argv[1]), Path(sys.argv[2]))))")
NEW_DOC = ("Ines Calder opened the Harbor Lantern Museum in Port Aldren in 2019. "
           "The museum keeps the lanterns of the Lantern Festival. Ines Calder also "
           "advises the Aldren Water Trust on the history of the Millbrook flood.\n")


def _real_readers(index: Path, embedder) -> dict:
    """Each reader's answer, or the error it gave (only IndexStateError is allowed)."""
    settings = api.resolve_settings()
    session = Session(index, settings, api.project_prompts(), get_model=_no_model,
                      get_embedder=lambda: embedder, content="extractive")
    return {
        "tables": {t: session.store.read(t) for t in OUTPUT_TABLES},
        "status": api.status(index)["tables"],
        "show": api.show(index, "entities"),
        "answer": session.ask("Who founded the Aldren Water Trust?", method="basic",
                              lead=False).answer,
    }


def _no_model():
    raise AssertionError("a basic extractive answer needs no chat model")


def _read_while(proc: subprocess.Popen, index: Path, embedder) -> list:
    seen = []
    while proc.poll() is None:
        try:
            seen.append(_real_readers(index, embedder))
        except IndexStateError as exc:  # allowed only as "a build is running"
            assert "a build is running" in str(exc)
            seen.append("running")
        time.sleep(0.2)  # leave the build some of the CPU
    return seen


@pytest.mark.e2e
def test_queries_during_a_real_rebuild_see_the_last_finished_build(e2e, tmp_path):
    from graphrag_local.models.embed import MiniLMEmbedder

    docs = tmp_path / "docs"
    index = tmp_path / "index"
    shutil.copytree(e2e["docs"], docs)
    shutil.copytree(e2e["index"], index)
    embedder = MiniLMEmbedder()
    old = _real_readers(index, embedder)
    (docs / "06_museum.md").write_text(NEW_DOC)
    env = {**os.environ, "GRAPHRAG_LOCAL_KILL_AT": "store:4"}  # 4 of 8 tables rewritten
    killed = subprocess.Popen([sys.executable, "-c", BUILD, str(docs), str(index)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    during_killed = _read_while(killed, index, embedder)
    assert killed.wait() == -9, killed.stderr.read()[-2000:]
    assert during_killed and all(s == old for s in during_killed)
    assert _real_readers(index, embedder) == old  # half-new tables on disk, never seen
    resume = subprocess.Popen([str(EXE), "build", str(docs), "--index", str(index)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    during_resume = _read_while(resume, index, embedder)
    _out, err = resume.communicate()
    assert resume.returncode == 0, err[-3000:]
    new = _real_readers(index, embedder)
    assert any(e["name"] == "Ines Calder" for e in new["show"]["entities"])
    assert len(new["tables"]["documents"]) == len(old["tables"]["documents"]) + 1
    assert during_resume
    for s in during_resume:  # each reader saw a finished build (not all the same one)
        assert s == "running" or all(s[k] in (old[k], new[k]) for k in old), s
    # the resumed build said that it took over from the killed one
    note = " ".join(err.split())
    assert f"previous build did not finish (pid {killed.pid}," in note and "resuming it" in note
