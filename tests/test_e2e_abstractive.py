"""The abstractive path (the paper's: the model writes), on the real embedded model: a
build with `content = "abstractive"` on two sample documents, then every search method.
The 135M model writes fiction; what is asserted is that the path works: tables fill,
structured replies parse, map and reduce (and DRIFT's primer, follow-ups and reduce)
run, citations resolve to records of the index, and queries take the content mode from
the index's manifest, not from the config they are given."""

import pytest
from conftest import copy_corpus, no_network

from graphrag_local import api
from graphrag_local.store import Store

pytestmark = pytest.mark.e2e
DOCS = ["01_water_trust.md", "03_halvard_shipping.md"]


@pytest.fixture(scope="module")
def abstractive(tmp_path_factory):
    base = tmp_path_factory.mktemp("abstractive")
    docs = copy_corpus(base / "docs", DOCS)
    build_cfg = base / "build.toml"
    build_cfg.write_text('content = "abstractive"\nparallel = 4\n')
    query_cfg = base / "query.toml"  # budgets only: the content mode comes from the index
    query_cfg.write_text("parallel = 4\n[query]\nanswer_max_tokens = 96\ndrift_depth = 1\n"
                         "drift_max_followups = 2\ndrift_top_reports = 3\n")
    index = base / "index"
    with no_network() as attempts:
        summary = api.build(docs, index, config=build_cfg)
        session = api.open_session(index, config=query_cfg)
        answers = {}
        try:
            for method in ("global", "local", "basic", "ts", "drift"):
                answers[method] = session.ask("Who founded the Aldren Water Trust?", method=method)
            answers["often"] = session.ask("How often is the Aldren Water Trust mentioned?",
                                           method="basic")
            content = session.content
        finally:
            session.close()
        bare = api.open_session(index)  # no config at all
        try:
            bare_content = bare.content
        finally:
            bare.close()
    t = {name: Store(index).read(name) for name in ("entities", "relationships",
                                                    "community_reports", "chunks")}
    return {"summary": summary, "answers": answers, "content": content, "tables": t,
            "bare_content": bare_content, "attempts": attempts}


def test_the_abstractive_build_fills_its_tables(abstractive):
    s, t = abstractive["summary"], abstractive["tables"]
    assert s["content"] == "abstractive" and s["failed_chunks"] == 0
    assert s["entities"] >= 3 and s["relationships"] >= 1 and s["reports"] >= 1
    ok = [r for r in t["community_reports"] if r["status"] == "ok"]
    assert ok and all(r["title"] and r["summary"] for r in ok)
    calls = s["llm_calls_by_stage"]
    assert calls["extract"] >= 2 and calls["reports"] >= 1
    assert abstractive["attempts"] == []


def test_a_how_often_question_is_counted_before_the_models_answer(abstractive):
    """The count (`search/tally.py`) is the same in either content mode: sentences of the
    documents, quoted and cited; the model's answer follows."""
    r = abstractive["answers"]["often"]
    count, _, written = r.answer.partition("\n\n")
    assert count.startswith('**How often "Aldren Water Trust" comes up, and where**')
    assert r.tally["by_document"][0]["document"] == "01_water_trust.md"
    assert written.strip() and [c.purpose for c in r.calls] == ["answer"]
    chunks = {x["id"] for x in abstractive["tables"]["chunks"]}
    cited = {c.ref for c in r.citations if c.kind == "chunk" and c.cited and c.id in chunks}
    assert cited >= {ref for line in count.splitlines() if line.startswith("- ")
                     for ref in line.rsplit("[", 1)[1].rstrip("]").split(", ")}


def test_queries_take_the_content_mode_from_the_index(abstractive):
    assert abstractive["content"] == abstractive["bare_content"] == "abstractive"


@pytest.mark.parametrize("method", ["global", "local", "basic", "ts", "drift"])
def test_every_method_runs_its_model_calls_and_cites_records_of_the_index(abstractive, method):
    r = abstractive["answers"][method]
    t = abstractive["tables"]
    ids = {"report": {x["id"] for x in t["community_reports"]},
           "entity": {x["id"] for x in t["entities"]}, "chunk": {x["id"] for x in t["chunks"]},
           "relationship": {x["id"] for x in t["relationships"]}}
    assert r.answer.strip() and r.calls
    assert all(c.id in ids[c.kind] for c in r.citations), r.citations
    purposes = [c.purpose for c in r.calls]
    if method in ("global", "ts"):
        assert "map" in purposes and r.failed_calls < r.map_calls
        assert purposes[-1] == "reduce" or r.no_answer
    if method == "global":
        assert "relevance" in purposes  # dynamic selection: the model's YES/NO per report
    if method == "drift":
        assert purposes[0] == "drift_primer" and r.failed_calls < len(r.calls)
        assert purposes[-1] == "reduce" or r.no_answer
    if method in ("local", "basic"):
        assert purposes == ["answer"] and r.context_tokens > 0
