"""Resume, in one place. Every unit of work whose result is worth keeping (a chunk's
extraction, an element summary, a community report, an embedding) is stored under a key
that hashes everything it depends on, the moment it completes, in a work table of the
index. A killed build finds its finished units by key and does only the rest; a build
run again does nothing; a changed model, prompt or setting changes the keys of exactly
the work that depends on it. The key recipes are named here so that the build and
`build --dry-run` agree on them."""

from __future__ import annotations

import json
from typing import Any

from .schema import content_id


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


class WorkCache:
    """The finished units of one work table, by key. `put` appends the row at once (one
    LanceDB commit), so a build killed right after keeps it."""

    def __init__(self, store, table: str, value: str):
        self.store, self.table, self.value = store, table, value
        self._rows = {r["key"]: r for r in store.read(table)}
        self.dirty = False

    def __contains__(self, key: str) -> bool:
        return key in self._rows

    def get(self, key: str) -> Any:
        row = self._rows.get(key)
        return None if row is None else row[self.value]

    def row(self, key: str) -> dict | None:
        return self._rows.get(key)

    def put(self, key: str, value: Any, **columns: Any) -> None:
        row = {"key": key, self.value: value, **columns}
        self.store.append(self.table, [row])
        self._rows[key] = row
        self.dirty = True

    def put_many(self, rows: list[tuple[str, Any]]) -> None:
        if rows:
            self.store.append(self.table, [{"key": k, self.value: v} for k, v in rows])
            self._rows.update((k, {"key": k, self.value: v}) for k, v in rows)
            self.dirty = True

    def compact(self) -> None:
        """Merge the small fragments the appends left (once per stage, by the runner)."""
        if self.dirty:
            self.store.compact(self.table)
            self.dirty = False
