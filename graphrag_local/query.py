"""Answering questions: a `Session` opens an index once (its tables, the chat model and
the embedder, each loaded on first use), checks that the index is complete and was
embedded by this embedder, and runs one search method per question. `chat` keeps one
session, so the model is loaded once per process."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .embed import EMBEDDER_NAME, Embedder
from .errors import ConfigError, IndexStateError, InputError
from .llm import ChatModel, OnText
from .prompts import Prompts
from .schema import Chunk, Claim, Community, Entity, Relationship
from .search.basic_search import basic_search
from .search.common import IndexData, Report, SearchResult, budget_for, followup_text
from .search.global_search import global_search, text_search
from .search.local_search import local_search
from .settings import Settings
from .store import Store

METHODS = ("global", "local", "basic", "ts")


def open_index(index_dir: Path) -> tuple[Store, dict]:
    """The store and manifest of a complete index, or a clear error."""
    if not (index_dir / "manifest.json").is_file():
        if index_dir.is_dir() and (index_dir / "lancedb").is_dir():
            raise IndexStateError(f"{index_dir} holds no finished index (no manifest.json)")
        raise IndexStateError(
            f"no index at {index_dir}; build one with `graphrag-local build DOCS_DIR "
            f"--index {index_dir}`"
        )
    store = Store(index_dir)
    manifest = store.read_manifest()
    if not manifest.get("complete"):
        raise IndexStateError(
            f"the index at {index_dir} is unfinished (its build stopped part-way); run the "
            "same `graphrag-local build` again to resume it"
        )
    return store, manifest


def load_index_data(store: Store) -> IndexData:
    def rows(table: str) -> list[dict]:
        cols = [c for c in store.columns(table) if c != "vector"]
        return store.read(table, cols) if cols else []

    def tup(d: dict, *keys: str) -> dict:
        return {**d, **{k: tuple(d[k]) for k in keys}}

    communities = [Community(**tup(r, "children", "entities", "relationship_ids"))
                   for r in rows("communities")]
    members = {c.id: c.entities for c in communities}
    ok = sorted((r for r in rows("community_reports") if r["status"] == "ok"),
                key=lambda r: (r["level"], r["id"]))
    reports = [
        Report(f"R{i}", r["id"], r["level"], r["title"], r["summary"], r["full_content"],
               r["rating"], members.get(r["id"], ()))
        for i, r in enumerate(ok, 1)
    ]
    return IndexData(
        entities={r["name"]: Entity(**tup(r, "chunk_ids")) for r in rows("entities")},
        relationships=[Relationship(**tup(r, "chunk_ids")) for r in rows("relationships")],
        claims=[Claim(**r) for r in rows("claims")],
        chunks={r["id"]: Chunk(**r) for r in rows("chunks")},
        reports=reports,
        communities=communities,
    )


class Session:
    """One open index and the models that answer over it."""

    def __init__(
        self,
        index_dir: Path,
        settings: Settings,
        prompts: Prompts,
        get_model: Callable[[], ChatModel],
        get_embedder: Callable[[], Embedder],
    ):
        self.index_dir = index_dir
        self.store, self.manifest = open_index(index_dir)
        built_with = self.manifest.get("embedder")
        if built_with != EMBEDDER_NAME:
            raise IndexStateError(
                f"the index at {index_dir} was embedded with '{built_with}', but questions "
                f"are embedded with '{EMBEDDER_NAME}'; rebuild the index with "
                "`graphrag-local build` (only the embeddings are recomputed)"
            )
        self.settings = settings
        self.prompts = prompts
        self.data = load_index_data(self.store)
        self._get_model, self._get_embedder = get_model, get_embedder
        self._model: ChatModel | None = None
        self._embedder: Embedder | None = None
        self._tokens_by_level: dict[int, int] = {}

    @property
    def model(self) -> ChatModel:
        if self._model is None:
            self._model = self._get_model()
        return self._model

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self._get_embedder()
        return self._embedder

    def close(self) -> None:
        if self._model is not None and hasattr(self._model, "close"):
            self._model.close()

    # -- levels ---------------------------------------------------------------------------
    def resolve_level(self, level: str | int | None) -> int:
        """A level number from "auto", a number, or None (the configured default).
        "auto" is the most detailed level whose reports fit in `max_map_calls` map
        contexts; the root level (0) when none does."""
        levels = self.data.levels
        if not levels:
            raise IndexStateError(
                f"the index at {self.index_dir} has no community reports (its communities "
                "are all too small); use --method local or basic"
            )
        level = self.settings.query.level if level is None else str(level)
        if level != "auto":
            if not level.isdigit() or int(level) not in levels:
                raise ConfigError(
                    f"level {level!r} has no reports in this index; levels: "
                    f"{', '.join(map(str, levels))} (or \"auto\")"
                )
            return int(level)
        q = self.settings.query
        empty = self.prompts.render("global_map", max_points=str(q.map_max_points), question="", data="")
        budget = budget_for(self.model, empty, 600, q.context_tokens)
        for lv in reversed(levels):
            if self._level_tokens(lv) <= q.max_map_calls * budget:
                return lv
        return levels[0]

    def _level_tokens(self, level: int) -> int:
        """Tokens of a level's reports, counted once per session."""
        if level not in self._tokens_by_level:
            self._tokens_by_level[level] = sum(
                self.model.count_tokens(r.full_content) + 4
                for r in self.data.reports if r.level == level
            )
        return self._tokens_by_level[level]

    # -- asking -------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        method: str = "global",
        level: str | int | None = None,
        history: list[tuple[str, str]] | None = None,
        on_text: OnText | None = None,
    ) -> SearchResult:
        question = (question or "").strip()
        if not question:
            raise InputError("the question is empty; ask something, e.g. "
                             "graphrag-local query \"What are the main themes?\"")
        if method not in METHODS:
            raise ConfigError(f"unknown method '{method}'; use one of {', '.join(METHODS)}")
        history = history or []
        q = self.settings.query
        common = dict(settings=q, history=history, on_text=on_text)
        started = time.perf_counter()
        if method == "global":
            lv = self.resolve_level(level)
            return global_search(self.model, self.prompts, question, self.data, lv,
                                 seed=self.settings.seed, **common)
        if method == "ts":
            return text_search(self.model, self.prompts, question, self.data,
                               seed=self.settings.seed, **common)
        vector = self.embedder.embed([followup_text(question, history)])[0]
        if method == "local":
            found = self.store.nearest("entities", vector, q.local_top_entities, ["name"])
            hits = [(self.data.entities[r["name"]], r["similarity"]) for r in found
                    if r["name"] in self.data.entities]
            return local_search(self.model, self.prompts, question, self.data, hits,
                                started=started, **common)
        found = self.store.nearest("chunks", vector, q.basic_top_chunks, ["id"])
        hits = [(self.data.chunks[r["id"]], r["similarity"]) for r in found
                if r["id"] in self.data.chunks]
        return basic_search(self.model, self.prompts, question, self.data, hits,
                            started=started, **common)


def result_dict(result: SearchResult, model_name: str = "") -> dict[str, Any]:
    """A search result as plain JSON-ready data (for --json and the evaluation)."""
    calls = result.calls
    return {
        "question": result.question,
        "method": result.method,
        "level": result.level,
        "answer": result.answer,
        "no_answer": result.no_answer,
        "citations": [asdict(c) for c in result.citations],
        "unknown_refs": result.unknown_refs,
        "stopped_loop": result.stopped_loop,
        "context_tokens": result.context_tokens,
        "map_calls": result.map_calls,
        "failed_calls": result.failed_calls,
        "llm_calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "reused_prompt_tokens": sum(c.reused_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "llm_seconds": round(sum(c.seconds for c in calls), 3),
        "timings": result.timings,
        "model": model_name,
    }

