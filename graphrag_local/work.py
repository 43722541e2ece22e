"""Resume, in one place. Every unit of work whose result is worth keeping (a chunk's
extraction, an element summary, a community report, an embedding) is stored under a key
that hashes everything it depends on, in a work table of the index: a chat model's reply
the moment it completes, cheaper units (an embedder batch, a fast-method extraction)
about once a second (`TableWriter`). A killed build finds its finished units by key and
does only the rest; a build run again does nothing; a changed model, prompt or setting
changes the keys of exactly the work that depends on it. The key recipes are named here
so that the build and `build --dry-run` agree on them."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .schema import content_id

# A unit of the chat model's work is committed at once. Cheaper units (fast extraction, an
# embedder batch) are committed together, once a second has passed since the last commit
# or this many rows wait: a kill loses at most about a second of such work, never a
# model's reply, and a build makes at most about one such commit a second.
FLUSH_ROWS = 4096
FLUSH_SECONDS = 1.0
# Every commit is a LanceDB version whose manifest lists every fragment before it: a
# version per unit grows the table's folder (and LanceDB's cache of manifests) with the
# square of the units. After this many commits the fragments are merged and the older
# versions removed, unless the last merge took more than a tenth of the time since it.
COMPACT_COMMITS = 64
COMPACT_SHARE = 0.1


def work_key(model_key: str, kind: str, *parts: str) -> str:
    return content_id(model_key, kind, *parts, length=24)


def extraction_key(model_key: str, chunk_text: str, prompt_digest: str, options: dict) -> str:
    return work_key(model_key, "extract", chunk_text, prompt_digest,
                    json.dumps(options, sort_keys=True))


def summary_key(model_key: str, name: str, descriptions: tuple[str, ...], prompt_digest: str,
                settings: dict) -> str:
    return work_key(model_key, "summary", name, *descriptions, prompt_digest,
                    json.dumps(settings, sort_keys=True))


def report_key(model_key: str, context: str, prompt_digest: str, settings: dict) -> str:
    return work_key(model_key, "report", context, prompt_digest,
                    json.dumps(settings, sort_keys=True))


def embedding_key(embedder: str, text: str) -> str:
    return content_id(embedder, text, length=24)


def sentence_key(text: str) -> str:
    """A sentence of the documents as a writer's cached reply names what it was written
    from (`written_cache.sources`): by its text, so that a build can tell whether the
    documents still say it (`forget.py`)."""
    return content_id("sentence", text, length=16)


class TableWriter:
    """Appends to one work table: committed at once for a unit of model work (durable),
    otherwise gathered and committed about once a second; fragments merged and old
    versions removed every so often, so that thousands of units keep the table small."""

    def __init__(self, store, table: str, commit: Callable[[list], None] | None = None):
        self.store, self.table = store, table
        self._commit = commit or (lambda parts: store.append(table, parts))
        self.pending: list = []
        self._committed_at = time.monotonic()  # the work since then is what a kill loses
        self.commits = 0  # since the last merge
        self._merged_at, self._merge_took = time.monotonic(), 0.0
        self.dirty = False  # committed since the last merge

    def add(self, parts: list, *, durable: bool) -> None:
        if not parts:
            return
        self.pending.extend(parts)
        if (durable or len(self.pending) >= FLUSH_ROWS
                or time.monotonic() - self._committed_at >= FLUSH_SECONDS):
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        self._commit(self.pending)
        self.pending = []
        self.dirty = True
        self.commits += 1
        now = self._committed_at = time.monotonic()
        if (self.commits >= COMPACT_COMMITS
                and self._merge_took <= COMPACT_SHARE * (now - self._merged_at)):
            self._merge(now)

    def _merge(self, now: float) -> None:
        self.store.compact(self.table, drop_versions=True)
        self._merged_at = time.monotonic()
        self._merge_took = self._merged_at - now
        self.commits = 0
        self.dirty = False

    def finish(self) -> None:
        """Commit what waits and merge the fragments left since the last merge (at each
        stage's end)."""
        self.flush()
        if self.dirty:
            self._merge(time.monotonic())


class WorkCache:
    """The finished units of one work table, by key. `put` keeps the row and hands it to
    the table's writer: a unit of model work is committed at once (one LanceDB commit),
    so a build killed right after keeps it; cheap units go in batches."""

    def __init__(self, store, table: str, value: str):
        self.store, self.table, self.value = store, table, value
        self.writer = TableWriter(store, table)
        self._rows = {r["key"]: r for r in store.read(table)}
        self.used: set[str] = set()  # the keys this build asked for (`forget.py`)

    def __contains__(self, key: str) -> bool:
        self.used.add(key)
        return key in self._rows

    def get(self, key: str) -> Any:
        row = self.row(key)
        return None if row is None else row[self.value]

    def row(self, key: str) -> dict | None:
        self.used.add(key)
        return self._rows.get(key)

    def put(self, key: str, value: Any, *, durable: bool = True, **columns: Any) -> None:
        row = {"key": key, self.value: value, **columns}
        self._rows[key] = row
        self.used.add(key)
        self.writer.add([row], durable=durable)

    def keep_used(self) -> int:
        """Rewrite the table with only the rows this build asked for, its older versions
        removed; returns how many rows went."""
        self.finish()
        gone = [k for k in self._rows if k not in self.used]
        if gone:
            self._rows = {k: r for k, r in self._rows.items() if k in self.used}
            self.store.replace_rows(self.table, list(self._rows.values()))
        return len(gone)

    def finish(self) -> None:
        self.writer.finish()


class VectorCache:
    """The embedding cache: vectors by key (embedder and text), held as float32 rows of
    numpy blocks (1.5 KB a 384-dim vector; a list of Python floats takes 12 KB). Embedder
    batches are cheap units: committed about once a second."""

    def __init__(self, store, table: str = "embedding_cache"):
        self.store, self.table = store, table
        rows, matrix = store.read_with_vectors(table, ["key"])
        self._blocks: list[np.ndarray] = [matrix]
        self._where: dict[str, tuple[int, int]] = {r["key"]: (0, i) for i, r in enumerate(rows)}
        self.writer = TableWriter(store, table, self._commit)
        self.used: set[str] = set()  # the keys this build asked for (`forget.py`)

    def _commit(self, parts: list[tuple[str, np.ndarray]]) -> None:
        self.store.append_vectors(self.table, [k for k, _ in parts],
                                  np.stack([v for _, v in parts]))

    def __contains__(self, key: str) -> bool:
        self.used.add(key)
        return key in self._where

    @property
    def dim(self) -> int:
        return next((b.shape[1] for b in self._blocks if b.size), 0)

    def get(self, key: str) -> np.ndarray | None:
        self.used.add(key)
        at = self._where.get(key)
        return None if at is None else self._blocks[at[0]][at[1]]

    def put_many(self, keys: list[str], vectors: np.ndarray, *, durable: bool = False) -> None:
        self.used.update(keys)
        vectors = np.asarray(vectors, dtype=np.float32)
        new = [(k, i) for i, k in enumerate(keys) if k not in self._where]
        if not new:
            return
        block = vectors[[i for _, i in new]]
        self._blocks.append(block)
        for row, (k, _) in enumerate(new):
            self._where[k] = (len(self._blocks) - 1, row)
        self.writer.add([(k, block[row]) for row, (k, _) in enumerate(new)], durable=durable)

    def matrix(self, keys: list[str], dim: int) -> np.ndarray:
        """The vectors of `keys`, one row each (zeros for a key not embedded)."""
        out = np.zeros((len(keys), dim), dtype=np.float32)
        for i, k in enumerate(keys):
            v = self.get(k)
            if v is not None:
                out[i] = v
        return out

    def finish(self) -> None:
        self.writer.finish()

    def keep_used(self) -> int:
        """Rewrite the table with only the vectors this build asked for, its older
        versions removed; returns how many went."""
        self.finish()
        kept = [k for k in self._where if k in self.used]
        gone = len(self._where) - len(kept)
        if gone:
            dim = self.dim
            matrix = (np.stack([self.get(k) for k in kept]) if kept
                      else np.zeros((0, dim), np.float32))
            self._blocks, self._where = [matrix], {k: (0, i) for i, k in enumerate(kept)}
            self.store.replace_vectors(self.table, kept, matrix)
        return gone
