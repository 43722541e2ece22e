"""Work tables: when rows are committed (model work at once, cheap work in batches), that
thousands of units keep a table's versions and folder small, and that vectors go in and
come out as the same float32 values."""

import time
from pathlib import Path

import numpy as np
import pytest
from conftest import copy_corpus
from fakes import FakeChatModel
from test_pipeline import make_build, scripted, tables

from graphrag_local import work
from graphrag_local.errors import InjectedFailure
from graphrag_local.models.embed import EMBEDDER_NAME
from graphrag_local.pipeline import run_build
from graphrag_local.settings import Settings
from graphrag_local.store import Store
from graphrag_local.work import COMPACT_COMMITS, TableWriter, VectorCache, WorkCache, embedding_key


@pytest.fixture
def corpus(tmp_path):
    return copy_corpus(tmp_path / "docs")


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def test_model_work_is_committed_at_once_and_cheap_work_in_batches(tmp_path):
    store = Store(tmp_path / "i", create=True)
    cache = WorkCache(store, "summaries", "text")
    cache.put("a", "from the model")  # durable by default
    assert store.count("summaries") == 1
    for i in range(10):
        cache.put(f"cheap{i}", "rule-based", durable=False)
    assert store.count("summaries") == 1  # waiting: less than a second, < FLUSH_ROWS
    assert "cheap9" in cache and cache.get("cheap9") == "rule-based"
    cache.finish()
    assert store.count("summaries") == 11
    assert set(WorkCache(store, "summaries", "text")._rows) == (
        {"a"} | {f"cheap{i}" for i in range(10)})


def test_cheap_work_waits_at_most_flush_seconds(tmp_path, monkeypatch):
    monkeypatch.setattr(work, "FLUSH_SECONDS", 0.05)
    store = Store(tmp_path / "i", create=True)
    writer = TableWriter(store, "summaries")
    writer.add([{"key": "1", "text": "x"}], durable=False)
    time.sleep(0.06)
    writer.add([{"key": "2", "text": "x"}], durable=False)
    assert store.count("summaries") == 2 and writer.pending == []


def test_thousands_of_commits_keep_few_versions_and_a_small_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(work, "COMPACT_SHARE", 1e9)  # merge on count alone, however slow
    store = Store(tmp_path / "i", create=True)
    cache = WorkCache(store, "report_cache", "record_json")
    for i in range(6 * COMPACT_COMMITS):
        cache.put(f"k{i}", "x" * 500)  # each one commit, as model work is
    # without merging: one version per commit, each listing every fragment before it
    assert store.version_count("report_cache") <= COMPACT_COMMITS + 1
    cache.finish()
    assert store.version_count("report_cache") <= 2
    assert store.count("report_cache") == 6 * COMPACT_COMMITS
    assert folder_bytes(tmp_path / "i") < 2_000_000


def test_vectors_round_trip_as_the_same_float32_values(tmp_path):
    store = Store(tmp_path / "i", create=True)
    rng = np.random.default_rng(0)
    first, second = rng.standard_normal((5, 7), dtype=np.float32), rng.standard_normal(
        (3, 7), dtype=np.float32)
    cache = VectorCache(store)
    cache.put_many([f"a{i}" for i in range(5)], first)
    cache.put_many(["a0", "b0", "b1"], second)  # a0 is kept, not replaced
    cache.finish()
    again = VectorCache(store)
    assert again.dim == 7 and store.count("embedding_cache") == 7
    assert np.array_equal(again.get("a3"), first[3]) and np.array_equal(again.get("b1"), second[2])
    assert np.array_equal(again.get("a0"), first[0])
    matrix = again.matrix(["b0", "missing", "a1"], 7)
    assert matrix.dtype == np.float32 and np.array_equal(matrix[0], second[1])
    assert not matrix[1].any() and np.array_equal(matrix[2], first[1])


def test_vectors_of_an_output_table_are_stored_as_given(corpus, tmp_path):
    run_build(make_build(corpus, tmp_path / "idx", FakeChatModel(default=scripted)))
    store = Store(tmp_path / "idx")
    cache = VectorCache(store)
    for row in store.read("chunks", ["text", "vector"]):
        stored = np.asarray(row["vector"], dtype=np.float32)
        assert np.array_equal(stored, cache.get(embedding_key(EMBEDDER_NAME, row["text"])))
    rows, matrix = store.read_with_vectors("sentences", ["id"])
    plain = store.read("sentences", ["id", "vector"])
    assert [r["id"] for r in rows] == [r["id"] for r in plain] and matrix.dtype == np.float32
    assert np.array_equal(matrix, np.array([r["vector"] for r in plain], dtype=np.float32))


def test_a_failed_stage_keeps_the_cheap_units_it_finished(corpus, tmp_path):
    """The fast method extracts without the model, so its units wait to be committed in
    batches; a stage that fails commits them before the error goes up."""
    settings = Settings(method="fast")
    build = make_build(corpus, tmp_path / "idx", FakeChatModel(default=scripted), settings=settings)

    def failing(stage, done, total):
        if stage == "extract" and done == 3:
            raise InjectedFailure("stop after three chunks")

    build.progress = failing
    with pytest.raises(InjectedFailure):
        run_build(build)
    assert Store(tmp_path / "idx").count("extractions") == 3
    resumed = run_build(make_build(corpus, tmp_path / "idx", FakeChatModel(default=scripted),
                                   settings=settings))
    assert resumed["sync"]["chunks_reused"] == 3
    run_build(make_build(corpus, tmp_path / "fresh", FakeChatModel(default=scripted),
                         settings=settings))
    assert tables(tmp_path / "idx") == tables(tmp_path / "fresh")
