"""A whole build against an OpenAI-compatible model server: the embedded SmolLM2 served
by llama-cpp-python's server (tests/serve_llama.py), registered as a `source = "server"`
preset with `parallel = 4`. Its tables are the in-process build's; a server killed
mid-build ends the build with the resume hint and the build resumes on a new server
without redoing the finished chunks; a wrong URL fails before any work."""

from __future__ import annotations

import time

import pytest
from conftest import copy_corpus
from test_remote import MODEL_ID, model_server

from graphrag_local import api
from graphrag_local.errors import ModelError
from graphrag_local.schema import OUTPUT_TABLES
from graphrag_local.store import Store

pytestmark = pytest.mark.e2e
DOCS = ["01_water_trust.md", "02_millbrook_flood.txt", "04_dredging_vote.txt"]


def rows(index, table):
    """A table's rows as comparable text, vectors rounded (the embedder is the same)."""
    out = []
    for r in Store(index).read(table):
        r = dict(r)
        if r.get("vector") is not None:
            r["vector"] = [round(float(x), 4) for x in r["vector"]]
        out.append(repr(sorted(r.items())))
    return sorted(out)


def add_server(name: str, url: str) -> None:
    api.add_server_model(name, url, MODEL_ID, n_ctx=4096, parallel=4, content="extractive")


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    base = tmp_path_factory.mktemp("server")
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHRAG_LOCAL_HOME", str(base / "home"))
    docs = copy_corpus(base / "docs", DOCS)
    out = {"docs": docs, "local": base / "local", "served": base / "served",
           "killed": base / "killed"}
    # two chunks in flight: the kill comes after the first group, the third chunk fails
    config = base / "graphrag-local.toml"
    config.write_text("[extract]\nin_flight = 2\n")
    out["local_summary"] = api.build(docs, out["local"], config=config)
    with model_server("llama-cpp-python", base) as (url, _proc):
        add_server("srv", url)
        out["served_summary"] = api.build(docs, out["served"], model="srv", config=config)

    # killed mid-extraction: the build stops with the resume hint
    with model_server("llama-cpp-python", base) as (url, proc):
        add_server("srv", url)

        def kill_after_one_chunk(stage: str, done: int, total: int) -> None:
            if stage == "extract" and 1 <= done < 3 and proc.poll() is None:
                proc.kill()
                proc.wait()

        started = time.perf_counter()
        with pytest.raises(ModelError) as info:
            api.build(docs, out["killed"], model="srv", config=config,
                      progress=kill_after_one_chunk)
        out["kill_error"], out["kill_seconds"] = str(info.value), time.perf_counter() - started
    # a new server (another port): the same model, so the same work keys
    with model_server("llama-cpp-python", base) as (url, _proc):
        add_server("srv", url)
        out["resumed_summary"] = api.build(docs, out["killed"], model="srv", config=config)
    yield out
    mp.undo()


def test_a_served_build_has_the_tables_of_the_in_process_build(builds):
    s = builds["served_summary"]
    assert s["model"] == "srv" and s["parallel"] == 4 and s["failures"] == 0
    assert s["llm_calls_by_stage"] == builds["local_summary"]["llm_calls_by_stage"]
    for table in OUTPUT_TABLES:
        if table == "community_reports":
            continue  # see below
        assert rows(builds["served"], table) == rows(builds["local"], table), table
    # Reports choose findings to fit a budget counted with the chat template's tokens:
    # llama-cpp-python's server does not expose its template, so the served model
    # measures it with the template's default system message included (an
    # over-estimate, the safe side). Same communities, same titles, all findings
    # verbatim; a finding near the budget's edge may differ.
    local = {r["id"]: r for r in Store(builds["local"]).read("community_reports")}
    served = {r["id"]: r for r in Store(builds["served"]).read("community_reports")}
    assert local.keys() == served.keys()
    assert all(local[k]["title"] == served[k]["title"] for k in local)
    assert s["faithfulness"]["verbatim_share"] == 1.0


def test_a_killed_server_ends_the_build_with_the_resume_hint(builds):
    message = builds["kill_error"]
    assert "stopped answering" in message and "resumable" in message, message
    assert builds["kill_seconds"] < 120


def test_the_build_resumes_on_a_new_server_without_redoing_finished_chunks(builds):
    s = builds["resumed_summary"]
    assert s["sync"]["chunks_reused"] >= 1, s["sync"]
    assert s["sync"]["chunks_extracted"] == s["chunks"] - s["sync"]["chunks_reused"]
    for table in OUTPUT_TABLES:
        assert rows(builds["killed"], table) == rows(builds["served"], table), table


def test_a_wrong_url_fails_before_any_work(tmp_path):
    add_server("nowhere", "http://127.0.0.1:9")
    docs = copy_corpus(tmp_path / "docs", DOCS[:1])
    started = time.perf_counter()
    with pytest.raises(ModelError, match="http://127.0.0.1:9"):
        api.build(docs, tmp_path / "index", model="nowhere")
    assert time.perf_counter() - started < 5
    assert not (tmp_path / "index").exists() or not any((tmp_path / "index").iterdir())
