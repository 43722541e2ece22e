"""The pipeline with a scripted fake model and a hash embedder: resume, rerun, incremental
updates, determinism and the manifest, without a real model (those are in test_e2e)."""

import json
from pathlib import Path

import pytest
from conftest import copy_corpus
from fakes import FakeChatModel, HashEmbedder

from graphrag_local.errors import BudgetError, IndexStateError, InjectedFailure
from graphrag_local.model_info import ModelInfo
from graphrag_local.models.presets import Preset
from graphrag_local.pipeline import Build, run_build
from graphrag_local.prompts import load_prompts
from graphrag_local.recipe import make_recipe
from graphrag_local.schema import OUTPUT_TABLES
from graphrag_local.settings import ExtractSettings, GraphSettings, Settings
from graphrag_local.stages.ground import candidate_names
from graphrag_local.store import BuildLock, Store

REPORT = {"title": "Community", "summary": "About it.", "rating": 5,
          "rating_explanation": "Because.", "findings": [{"summary": "F", "explanation": "E"}]}


def scripted(messages, grammar, purpose):
    """Answers like a well-behaved model would, from the prompt itself."""
    if purpose in ("extract", "glean"):
        text = messages[0]["content"].split("-Real data-")[1]
        names = list(candidate_names(text))[:4] if purpose == "extract" else []
        ents = [{"name": n, "type": "PERSON", "description": f"{n} appears here."} for n in names]
        rels = [{"source": a, "target": b, "description": f"{a} and {b}", "strength": 5}
                for a, b in zip(names, names[1:])]
        return json.dumps({"entities": ents, "relationships": rels})
    if purpose == "glean_check":
        return "YES"
    if purpose == "summarize":
        return "A combined summary."
    if purpose == "report":
        return json.dumps(REPORT)
    raise AssertionError(purpose)


def make_build(docs: Path, index: Path, model, sha="sha-1", settings=None) -> Build:
    settings = settings or Settings(content="abstractive", extract=ExtractSettings(names="free"))
    preset = Preset(name="fake")
    return Build(
        docs_dir=docs, settings=settings, recipe=make_recipe(settings, preset),
        store=Store(index, create=True), prompts=load_prompts(),
        model_info=ModelInfo(preset, Path("m.gguf"), sha),
        get_model=lambda: model, get_embedder=HashEmbedder, progress=lambda *a: None,
    )


def tables(index: Path) -> dict:
    store = Store(index)
    return {t: store.read(t) for t in OUTPUT_TABLES}


@pytest.fixture
def corpus(tmp_path):
    return copy_corpus(tmp_path / "docs")


def test_build_produces_every_table(corpus, tmp_path):
    model = FakeChatModel(default=scripted)
    summary = run_build(make_build(corpus, tmp_path / "idx", model))
    assert summary["documents"] == 5 and summary["chunks"] == 5
    assert summary["entities"] > 5 and summary["relationships"] > 3
    assert summary["communities"] >= 1 and summary["reports"] >= 1
    assert summary["llm_calls"] == len(model.calls)
    assert summary["llm_calls_by_stage"]["extract"] == 5 * 3  # extract, check, glean
    t = tables(tmp_path / "idx")
    assert all(len(r["vector"]) == HashEmbedder.dim for r in t["chunks"])
    store = Store(tmp_path / "idx")
    assert store.count("llm_calls") == summary["llm_calls"]
    assert store.read_manifest()["complete"] is True


def test_rerun_makes_no_llm_call_and_gives_identical_tables(corpus, tmp_path):
    run_build(make_build(corpus, tmp_path / "idx", FakeChatModel(default=scripted)))
    first = tables(tmp_path / "idx")
    model = FakeChatModel()  # any call would fail: nothing is queued
    summary = run_build(make_build(corpus, tmp_path / "idx", model))
    assert summary["llm_calls"] == 0 and model.calls == []
    assert tables(tmp_path / "idx") == first


def test_texts_are_embedded_shortest_first(corpus, tmp_path):
    """A batch is padded to its longest text: like lengths together waste least."""
    calls = []

    class Recording(HashEmbedder):
        def embed(self, texts):
            calls.append([len(t) for t in texts])
            return super().embed(texts)

    b = make_build(corpus, tmp_path / "idx", FakeChatModel(default=scripted))
    b.get_embedder = Recording
    run_build(b)
    lengths = [n for batch in calls for n in batch]
    assert len(lengths) > 50 and lengths == sorted(lengths)
    # a new document: only its texts (and what changed with it) are embedded
    (corpus / "zz_new.md").write_text("Ilse Marten opened the Harbour Museum in Millbrook.\n",
                                      encoding="utf-8")
    calls.clear()
    again = make_build(corpus, tmp_path / "idx", FakeChatModel(default=scripted))
    again.get_embedder = Recording
    run_build(again)
    assert 0 < sum(map(len, calls)) < len(lengths) / 2


def test_two_fresh_builds_are_identical(corpus, tmp_path):
    run_build(make_build(corpus, tmp_path / "a", FakeChatModel(default=scripted)))
    run_build(make_build(corpus, tmp_path / "b", FakeChatModel(default=scripted)))
    assert tables(tmp_path / "a") == tables(tmp_path / "b")


def test_interrupted_build_resumes_without_repeating_completed_calls(corpus, tmp_path):
    idx = tmp_path / "idx"
    crashing = FakeChatModel(default=scripted, fail_after=7)
    with pytest.raises(InjectedFailure):
        run_build(make_build(corpus, idx, crashing))
    assert Store(idx).read_manifest()["complete"] is False
    done_before = {c.prompt_hash for c in crashing.calls}
    resumed = FakeChatModel(default=scripted)
    summary = run_build(make_build(corpus, idx, resumed))
    # chunks 1 and 2 (3 calls each) were saved; chunk 3's first call was lost with the crash
    assert summary["llm_calls_by_stage"]["extract"] == 3 * 3
    redone = {c.prompt_hash for c in resumed.calls} & done_before
    assert len(redone) <= 1  # at most the call whose chunk was cut off is asked again
    fresh = tmp_path / "fresh"
    run_build(make_build(corpus, fresh, FakeChatModel(default=scripted)))
    assert tables(idx) == tables(fresh)


def test_new_document_only_extracts_its_own_chunks(corpus, tmp_path):
    idx = tmp_path / "idx"
    run_build(make_build(corpus, idx, FakeChatModel(default=scripted)))
    (corpus / "06_new.md").write_text("Ada Byron met Charles Babbage in London.")
    model = FakeChatModel(default=scripted)
    summary = run_build(make_build(corpus, idx, model))
    assert summary["llm_calls_by_stage"]["extract"] == 3
    assert summary["documents"] == 6
    assert any(e["name"] == "Ada Byron" for e in Store(idx).read("entities"))


def test_changed_model_is_reported_and_redone(corpus, tmp_path):
    idx = tmp_path / "idx"
    run_build(make_build(corpus, idx, FakeChatModel(default=scripted), sha="sha-1"))
    model = FakeChatModel(default=scripted)
    summary = run_build(make_build(corpus, idx, model, sha="sha-2"))
    assert any("model changed" in c for c in summary["changes"])
    assert summary["llm_calls_by_stage"]["extract"] == 15


def test_failed_chunks_and_reports_are_counted_not_dropped(corpus, tmp_path):
    def bad_reports(messages, grammar, purpose):
        return "not json" if purpose == "report" else scripted(messages, grammar, purpose)

    summary = run_build(make_build(corpus, tmp_path / "idx", FakeChatModel(default=bad_reports)))
    assert summary["failed_reports"] == summary["communities"] - summary["skipped_communities"]
    assert summary["failed_reports"] > 0
    rows = Store(tmp_path / "idx").read("community_reports")
    assert rows and all(r["status"] == "failed" and r["error"] for r in rows)
    assert any("report failed" in w for w in summary["warnings"])


def test_chunk_that_cannot_fit_is_an_error_before_any_call(corpus, tmp_path):
    model = FakeChatModel(default=scripted, n_ctx=300)
    with pytest.raises(BudgetError, match="chunks.size"):
        run_build(make_build(corpus, tmp_path / "idx", model))
    assert model.calls == []


def test_second_build_on_same_index_is_refused(tmp_path):
    with BuildLock(tmp_path):
        with pytest.raises(IndexStateError, match="another build is running"):
            with BuildLock(tmp_path):
                pass
    with BuildLock(tmp_path):  # released
        pass


def test_progress_reports_every_stage(corpus, tmp_path):
    seen = []
    b = make_build(corpus, tmp_path / "idx", FakeChatModel(default=scripted))
    b.progress = lambda stage, done, total: seen.append((stage, done, total))
    run_build(b)
    stages = {s for s, _, _ in seen}
    assert {"extract", "summarize", "communities", "reports", "embed", "store"} <= stages
    assert ("extract", 5, 5) in seen


def test_claims_are_stored_under_the_merged_entity_names(corpus, tmp_path):
    def with_claims(messages, grammar, purpose):
        if purpose != "claims":
            return scripted(messages, grammar, purpose)
        text = messages[0]["content"].split("-Real data-")[1]
        name = candidate_names(text)[0]
        quote = text.split("Text:")[1].strip().split(".")[0]
        return json.dumps({"claims": [{
            "subject": name.upper() + "!", "object": "NONE", "type": "FACT", "status": "TRUE",
            "description": "A fact.", "source_text": quote, "start_date": "NONE",
            "end_date": "NONE"}]})

    settings = Settings(content="abstractive",
                        extract=ExtractSettings(names="free", claims=True, max_gleanings=0))
    summary = run_build(make_build(corpus, tmp_path / "idx", FakeChatModel(default=with_claims),
                                   settings=settings))
    claims = Store(tmp_path / "idx").read("claims")
    names = {e["name"] for e in Store(tmp_path / "idx").read("entities")}
    assert summary["claims"] == len(claims) > 0
    assert all(c["subject"] in names for c in claims)


def test_a_community_that_does_not_split_is_reported_once(corpus, tmp_path):
    """A community whose one sub-community has the same members is that community: its
    report is the sub-community's (no second model call), under its own id and level."""
    model = FakeChatModel(default=scripted)
    settings = Settings(content="abstractive", extract=ExtractSettings(names="free"),
                        graph=GraphSettings(max_cluster_size=4))  # some split, some not
    summary = run_build(make_build(corpus, tmp_path / "idx", model, settings=settings))
    t = tables(tmp_path / "idx")
    communities = {c["id"]: c for c in t["communities"]}
    reports = {r["id"]: r for r in t["community_reports"]}
    same = [c for c in communities.values() if c["id"] in reports and len(c["children"]) == 1
            and set(communities[c["children"][0]]["entities"]) == set(c["entities"])]
    assert same, "the sample's hierarchy has no unsplit community: the test proves nothing"
    for c in same:
        mine, child = reports[c["id"]], reports[c["children"][0]]
        assert (mine["summary"], mine["findings_json"]) == (child["summary"], child["findings_json"])
        assert (mine["level"], list(mine["substituted"])) == (c["level"], [child["id"]])
        assert mine["key"] != child["key"]
    report_calls = sum(1 for call in model.calls if call.purpose == "report")
    assert report_calls == len(reports) - len(same)
    assert summary["reports"] == len(reports)
