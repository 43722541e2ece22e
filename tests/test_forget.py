"""A removed or changed document leaves the index folder at the next build (`forget.py`):
no file under the index holds its text, the work tables hold only what this build used,
and a writer's cached reply stays only while the documents still say the sentences it was
written from. Built through `api.build` with the fake model and the hash embedder."""

from pathlib import Path

from conftest import copy_corpus, traces
from test_privacy import fake_models  # noqa: F401 - a fixture

from graphrag_local import api
from graphrag_local.query import WrittenCache
from graphrag_local.sentences import squash
from graphrag_local.store import Store
from graphrag_local.work import sentence_key

MARKER = "Quillonbray"  # a word no other document says


def sentence_texts(index: Path) -> list[str]:
    store = Store(index)
    chunks = {r["id"]: r["text"] for r in store.read("chunks", ["id", "text"])}
    return [squash(chunks[r["chunk_id"]][r["start"]:r["end"]])
            for r in store.read("sentences", ["chunk_id", "start", "end"])]


def test_a_removed_document_leaves_no_trace_in_the_index_folder(tmp_path, fake_models):  # noqa: F811
    docs = copy_corpus(tmp_path / "docs", names={"01_water_trust.md", "05_lantern_festival.md"})
    secret = docs / "06_secret.md"
    secret.write_text(f"# Note\n\nThe {MARKER} Foundation paid Ada Byron in London in 1843. "
                      f"Charles Babbage met the {MARKER} trustees at the Royal Society.\n")
    index = tmp_path / "idx"
    api.build(docs, index)
    texts = sentence_texts(index)
    theirs = [t for t in texts if MARKER in t]
    ours = [t for t in texts if MARKER not in t]
    WrittenCache(Store(index)).put({"from-secret": f"The {MARKER} Foundation paid Ada.",
                                    "from-kept": "A reply from kept sentences.",
                                    "unnamed": f"{MARKER} said so."},
                                   {"from-secret": [theirs[0], ours[0]],
                                    "from-kept": ours[:2]})
    assert theirs and traces(index, MARKER)  # the control: its text is there to find

    secret.unlink()
    summary = api.build(docs, index)

    assert summary["sync"]["documents_removed"] == ["06_secret.md"]
    assert summary["sync"]["work_rows_forgotten"] > 0
    assert traces(index, MARKER) == []
    store = Store(index)
    assert {r["key"] for r in store.read("written_cache")} == {"from-kept"}
    assert store.count("extractions") == store.count("chunks")
    vectors = store.count("embedding_cache")
    assert vectors >= len(set(sentence_texts(index)))
    # what stays is reused: the same folder builds again extracting and embedding nothing
    again = api.build(docs, index)
    assert again["sync"]["chunks_extracted"] == 0
    assert "work_rows_forgotten" not in again["sync"]
    assert Store(index).count("embedding_cache") == vectors


def test_a_changed_document_leaves_its_old_text_behind_no_more(tmp_path, fake_models):  # noqa: F811
    docs = copy_corpus(tmp_path / "docs", names={"01_water_trust.md"})
    note = docs / "02_note.md"
    note.write_text(f"# Note\n\nThe {MARKER} Foundation paid Ada Byron in London in 1843.\n")
    index = tmp_path / "idx"
    api.build(docs, index)
    assert traces(index, MARKER)

    note.write_text("# Note\n\nThe Lovelace Foundation paid Ada Byron in London in 1843.\n")
    summary = api.build(docs, index)

    assert summary["sync"]["documents_changed"] == ["02_note.md"]
    assert traces(index, MARKER) == []
    assert "Lovelace" in " ".join(sentence_texts(index))


def test_an_added_document_keeps_the_work_of_earlier_builds(tmp_path, fake_models):  # noqa: F811
    docs = copy_corpus(tmp_path / "docs", names={"01_water_trust.md"})
    index = tmp_path / "idx"
    api.build(docs, index)
    before = Store(index).count("extractions")
    copy_corpus(docs, names={"05_lantern_festival.md"})
    summary = api.build(docs, index)
    assert "work_rows_forgotten" not in summary["sync"]
    assert Store(index).count("extractions") > before


def test_a_written_cache_from_before_sources_is_kept_and_gains_the_column(tmp_path):
    """An index whose `written_cache` predates `sources`: its replies still read back, a
    new reply is kept with its sentences, and the old ones (sentences unknown) go at the
    next build that forgets."""
    import lancedb
    import pyarrow as pa

    store = Store(tmp_path / "idx", create=True)
    old = pa.table({"key": ["k1"], "text": ["an old reply"]})
    lancedb.connect(str(tmp_path / "idx" / "lancedb")).create_table("written_cache", data=old)
    cache = WrittenCache(Store(tmp_path / "idx"))
    assert cache.get("k1") == "an old reply"
    cache.put({"k2": "a new reply"}, {"k2": ["The harbour was dredged."]})
    rows = {r["key"]: r for r in store.read("written_cache")}
    assert rows["k1"]["text"] == "an old reply" and rows["k1"]["sources"] == []
    assert rows["k2"]["sources"] == [sentence_key("The harbour was dredged.")]
