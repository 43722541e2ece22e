"""Hostile documents, without a model: what a folder or a text can do to loading,
chunking, sentence splitting and name spotting. Each must finish in time proportional
to its input, keep offsets exact, and skip or clean what it cannot use with a warning
that names the file. The real-model side (prompt injection, special tokens) is in
test_e2e_hostile.py."""

import os
import time

import pytest

from graphrag_local.readers import clean_text
from graphrag_local.schema import Document
from graphrag_local.sentences import split_sentences
from graphrag_local.stages import load as load_mod
from graphrag_local.stages.chunk import chunk_sentences, chunk_text, token_offsets
from graphrag_local.stages.ground import candidate_names, doubtful_names
from graphrag_local.stages.load import load_documents
from graphrag_local.tokenizer import corpus_encoding

EXTS = (".txt", ".md", ".csv", ".pdf", ".html")
SENTENCE = "Mara Quill met Tobias Renn at the Aldren Water Trust in 2023. "


def doc(text: str) -> Document:
    return Document("d", "a.txt", "a", text, "utf-8")


def timed(fn, *args):
    started = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - started


# --- one long line ------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "lorem ipsum dolor sit amet " * 40_000,  # 1 MB, no sentence end, no line break
    "." * 1_000_000 + " Then",  # a run of stops (was quadratic: every dot a start)
    "x" * 1_000_000,  # one word
    SENTENCE * 16_000,  # 1 MB of sentences on one line
], ids=["words", "dots", "one-word", "sentences"])
def test_sentences_of_a_megabyte_line_are_linear(text):
    spans, seconds = timed(split_sentences, text)
    assert seconds < 5  # quadratic takes minutes (or a RecursionError) here
    assert all(b - a <= 320 for a, b in spans)
    assert all(a < b <= c for (a, b), (c, _) in zip(spans, spans[1:]))


def test_a_megabyte_line_chunks_with_exact_offsets_and_every_sentence_placed():
    d = doc(SENTENCE * 16_000)
    chunks, seconds = timed(chunk_text, d, corpus_encoding(), 600, 100)
    sentences, more = timed(chunk_sentences, [d], chunks)
    assert seconds + more < 10
    assert len(chunks) > 300
    assert all(d.text[c.start_char : c.end_char] == c.text for c in chunks)
    by_id = {c.id: c for c in chunks}
    assert len(sentences) == 16_000
    assert all(by_id[s.chunk_id].text[s.start : s.end] == s.text for s in sentences)


@pytest.mark.parametrize("text", [
    "é漢🙂👍🏽 " * 3_000 + "a" * 2_000,
    "\u202eabc\u200b " * 2_000,
    "",
])
def test_token_offsets_are_tiktokens_without_decoding_everything(text):
    enc = corpus_encoding()
    tokens = enc.encode(text)
    _, expected = enc.decode_with_offsets(tokens)
    marks = sorted({0, len(tokens), *range(0, len(tokens), 7)})
    got = token_offsets(enc, tokens, marks)
    assert got == {m: ([*expected, len(text)])[m] for m in marks}


def test_special_token_text_in_a_document_is_chunked_as_text():
    text = "Mara Quill wrote <|endoftext|> and <|fim_prefix|> in her notes."
    (chunk,) = chunk_text(doc(text), corpus_encoding(), 600, 100)  # tiktoken raised here
    assert chunk.text == text and chunk.n_tokens > 10


def test_names_in_a_chunk_of_dots_are_found_in_linear_time():
    text = chunk_text(doc("A" + "." * 200_000 + "b Mara Quill"), corpus_encoding(), 600, 100)[0].text
    (sure, seconds) = timed(candidate_names, text)
    (doubt, more) = timed(doubtful_names, text)
    assert seconds + more < 2  # stripping one dot at a time took over a minute
    assert len(text) > 30_000


# --- characters that hide ---------------------------------------------------------------


def test_invisible_and_bidi_controls_are_removed_and_rtl_letters_kept():
    text, removed = clean_text("Mill\u200bbrook\u202e Port\u2066 Aldren\u2069\x00 שלום عربي "
                               "\U000e0049\U000e0047 a\u200db\r\nend\x0cpage")
    assert text == "Millbrook Port Aldren שלום عربي  a\u200db\nend\npage"
    assert removed == 7


def test_nul_bytes_in_a_text_file_are_dropped_with_a_warning(tmp_path):
    (tmp_path / "nul.txt").write_bytes(b"Mara Quill\x00 leads the trust." * 50 + b"\x00" * 3)
    (tmp_path / "blob.txt").write_bytes(b"\x00\x01\x02PNG\x00" * 50)  # NUL everywhere: binary
    (tmp_path / "zw.md").write_text("# Mill\u200bbrook\n\nThe \u202eflood\u202c came.\n")
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    by_path = {d.path: d for d in docs}
    assert by_path["nul.txt"].text == "Mara Quill leads the trust." * 50
    assert by_path["zw.md"].text == "# Millbrook\n\nThe flood came.\n"
    assert by_path["zw.md"].title == "Millbrook"
    text = "\n".join(warnings)
    assert "nul.txt: 53 control" in text and "zw.md: 3 control" in text
    assert "blob.txt: skipped (binary file)" in text


# --- folders that fight back ------------------------------------------------------------


def test_symlink_loops_and_broken_links_are_skipped_by_name(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "real.txt").write_text("Mara Quill leads the trust.")
    (tmp_path / "sub" / "up").symlink_to("..", target_is_directory=True)  # a loop
    (tmp_path / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    (tmp_path / "self.txt").symlink_to(tmp_path / "self.txt")  # ELOOP
    (tmp_path / "alias.txt").symlink_to(tmp_path / "sub" / "real.txt")  # a link to a file
    os.mkfifo(tmp_path / "pipe.txt")  # reading it would block forever
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    assert [d.path for d in docs] == ["alias.txt"]  # sub/real.txt is its duplicate
    text = "\n".join(warnings)
    assert "sub/up: skipped (a link to a folder" in text
    assert "gone.txt: skipped (a broken or looping link)" in text
    assert "self.txt: skipped (a broken or looping link)" in text
    assert "pipe.txt: skipped (not a regular file)" in text
    assert "sub/real.txt: skipped (identical to alias.txt)" in text


def test_a_folder_that_cannot_be_listed_is_a_warning(tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("Alpha text.")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "b.txt").write_text("Beta text.")
    (tmp_path / "z.txt").write_text("Zeta text.")
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):  # as chmod 0 would, but for root too
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    assert [d.path for d in docs] == ["a.txt", "z.txt"]
    assert warnings == ["locked/: skipped (cannot list the folder: Permission denied)"]


@pytest.mark.parametrize("name", ["gone.txt", "gone.html"])
def test_a_file_that_vanishes_after_listing_is_a_warning(tmp_path, monkeypatch, name):
    (tmp_path / "a.txt").write_text("Alpha text.")
    (tmp_path / name).write_text("<p>Mara Quill leads the trust.</p>")
    real = load_mod.list_files

    def list_then_delete(folder):
        listed = real(folder)
        (tmp_path / name).unlink()
        return listed

    monkeypatch.setattr(load_mod, "list_files", list_then_delete)
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    assert [d.path for d in docs] == ["a.txt"]
    assert len(warnings) == 1 and warnings[0].startswith(f"{name}: skipped (")
    assert "vanished" in warnings[0] or "No such file" in warnings[0]


def test_five_thousand_tiny_files_load_and_chunk_in_proportion(tmp_path):
    for i in range(5000):
        (tmp_path / f"f{i:04d}.txt").write_text(f"Tiny note {i}.")
    (docs, warnings), seconds = timed(load_documents, tmp_path, EXTS, "text")
    chunks, more = timed(lambda: [c for d in docs for c in chunk_text(d, corpus_encoding(), 600, 100)])
    assert len(docs) == 5000 and not warnings
    assert len(chunks) == 5000  # one unit of extraction work per file, no more
    assert seconds + more < 30

