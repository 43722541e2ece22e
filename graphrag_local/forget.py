"""What a removed or changed document leaves behind, removed from the index folder.

A build keeps its work (extractions, summaries, reports, embeddings) in work tables by
content key (`work.py`), and a writer's replies in `written_cache`, so that unchanged
work is reused. After a build that found a document removed or changed, that store would
still hold what was computed from the old text: its chunks' extraction records, its
sentences' vectors, replies written from its sentences. Here every work table is cut to
what this build asked for (`WorkCache.used`, `VectorCache.used`: every key the stages
looked up or wrote; `Build.embedded` for the embedding cache, let go after `embed`), a
work table this build did not open is emptied, and a cached reply is kept only while the
documents still say every sentence it was written from (`written_cache.sources`). Each table cut is rewritten and its older versions removed,
and so are the output tables' older versions once the new manifest pins the new ones: a
reader still on the previous build is told to open the index again.

What it costs: putting the document back, or going back to settings the last build did
not use, computes that work again. What it does not do: touch a build that only added
documents (nothing old to remove), or `llm_calls` (timings and hashes, no text)."""

from __future__ import annotations

from .schema import OUTPUT_TABLES
from .sentences import squash
from .work import VectorCache, sentence_key

KEPT_WHOLE = ("llm_calls",)  # work tables with no document text in them
WRITTEN = "written_cache"


def needed(sync: dict) -> bool:
    """Whether the build's documents changed in a way that leaves old text behind."""
    return bool(sync.get("documents_removed") or sync.get("documents_changed"))


def forget_work(b) -> int:
    """Cut the work tables of build `b` (a `pipeline.Build`, every stage done) to what
    it used; returns how many rows went."""
    caches = list(b.caches.values())
    if b.embedded and not any(isinstance(c, VectorCache) for c in caches):
        vectors = VectorCache(b.store)  # let go after `embed` (its vectors were in memory)
        vectors.used = b.embedded
        caches.append(vectors)
    gone = sum(cache.keep_used() for cache in caches)
    opened = {cache.table for cache in caches}
    for name in b.store.tables():
        if name in OUTPUT_TABLES or name in KEPT_WHOLE or name in opened or name == WRITTEN:
            continue
        count = b.store.count(name)
        if count:
            b.store.replace_rows(name, [])
            gone += count
    return gone + _forget_replies(b)


def _forget_replies(b) -> int:
    """Keep a writer's cached reply only while every sentence it was written from is a
    sentence of the documents now (one written before replies named their sentences
    goes)."""
    if not b.store.has(WRITTEN):
        return 0
    chunks = {c.id: c.text for c in b.chunks}
    said = {sentence_key(squash(chunks[s.chunk_id][s.start:s.end])) for s in b.sentences
            if s.chunk_id in chunks}
    rows = b.store.read(WRITTEN)
    kept = [r for r in rows if r.get("sources") and set(r["sources"]) <= said]
    if len(kept) < len(rows):
        b.store.replace_rows(WRITTEN, kept)
    return len(rows) - len(kept)


def forget_versions(store) -> None:
    """Every output table's versions but the latest (the new manifest's) removed."""
    for name in OUTPUT_TABLES:
        store.keep_latest(name)
