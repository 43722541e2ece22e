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
from .schema import (
    Claim,
    Source,
    chunk_from_row,
    community_from_row,
    document_from_row,
    entity_from_row,
    relationship_from_row,
    report_from_row,
    sentence_from_row,
)
from .search.basic_search import basic_search
from .search.common import (
    Citation,
    IndexData,
    Report,
    SearchResult,
    budget_for,
    followup_text,
)
from .search.global_search import global_search, text_search
from .search.local_search import local_search
from .settings import Settings
from .store import Store, describe_marker, running_build

METHODS = ("global", "local", "basic", "ts")


def open_index(index_dir: Path) -> tuple[Store, dict]:
    """The store and manifest of the last finished build, or a clear error. The store
    reads that build's table versions, so a build running meanwhile is not seen until it
    finishes (see `store.py`)."""
    running = running_build(index_dir)
    wait = (f"; a build is running on it ({describe_marker(running)}): ask again when it "
            "has finished" if running else "")
    if not (index_dir / "manifest.json").is_file():
        if index_dir.is_dir() and (index_dir / "lancedb").is_dir():
            raise IndexStateError(f"{index_dir} holds no finished index (no manifest.json)"
                                  + wait)
        if running:
            raise IndexStateError(f"{index_dir} holds no finished index yet" + wait)
        raise IndexStateError(
            f"no index at {index_dir}; build one with `graphrag-local build DOCS_DIR "
            f"--index {index_dir}`"
        )
    store = Store(index_dir)
    manifest = store.read_manifest() if not store.manifest else store.manifest
    if not manifest.get("complete"):
        if running:
            raise IndexStateError(f"the index at {index_dir} has no finished build yet" + wait)
        raise IndexStateError(
            f"the index at {index_dir} is unfinished (its build stopped part-way); run the "
            "same `graphrag-local build` again to resume it"
        )
    return store, manifest


def load_index_data(store: Store) -> IndexData:
    def rows(table: str) -> list[dict]:
        cols = [c for c in store.columns(table) if c != "vector"]
        return store.read(table, cols) if cols else []

    communities = [community_from_row(r) for r in rows("communities")]
    members = {c.id: c.entities for c in communities}
    ok = sorted((report_from_row(r) for r in rows("community_reports") if r["status"] == "ok"),
                key=lambda r: (r.level, r.id))
    reports = [Report(f"R{i}", r, members.get(r.id, ())) for i, r in enumerate(ok, 1)]
    return IndexData(
        entities={e.name: e for e in map(entity_from_row, rows("entities"))},
        relationships=[relationship_from_row(r) for r in rows("relationships")],
        claims=[Claim(**r) for r in rows("claims")],
        chunks={c.id: c for c in map(chunk_from_row, rows("chunks"))},
        reports=reports,
        communities=communities,
        sentences=[sentence_from_row(r) for r in rows("sentences")],
        documents={d.id: d for d in (document_from_row(r) for r in store.read(
            "documents", [c for c in store.columns("documents") if c != "text"]))},
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
        content: str = "abstractive",
    ):
        self.index_dir = index_dir
        self.content = content  # "extractive": answers quote the documents
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
        self._sentence_vectors = None  # (matrix, row of (chunk_id, start)), on first use
        self.load_seconds: dict[str, float] = {}  # one-time costs: model, embedder

    @property
    def model(self) -> ChatModel:
        if self._model is None:
            started = time.perf_counter()
            self._model = self._get_model()
            self.load_seconds["model"] = round(time.perf_counter() - started, 3)
        return self._model

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            started = time.perf_counter()
            self._embedder = self._get_embedder()
            self.load_seconds["embedder"] = round(time.perf_counter() - started, 3)
        return self._embedder

    def close(self) -> None:
        if self._model is not None:
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
        if self.content == "extractive":  # the most detailed level whose findings the model can score
            for lv in reversed(levels):
                if self._level_statements(lv) <= q.map_max_statements:
                    return lv
            return levels[0]
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

    def _level_statements(self, level: int) -> int:
        return sum(len(r.findings) + len(r.record.summary_sources)
                   for r in self.data.reports if r.level == level)

    # -- asking -------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        method: str = "global",
        level: str | int | None = None,
        history: list[tuple[str, str]] | None = None,
        on_text: OnText | None = None,
        lead: bool | None = None,
    ) -> SearchResult:
        question = (question or "").strip()
        if not question:
            raise InputError("the question is empty; ask something, e.g. "
                             "graphrag-local query \"What are the main themes?\"")
        if method not in METHODS:
            raise ConfigError(f"unknown method '{method}'; use one of {', '.join(METHODS)}")
        loaded = dict(self.load_seconds)
        result = self._ask(question, method, level, history or [], on_text, lead)
        for what, seconds in self.load_seconds.items():
            if what not in loaded:  # loaded for this question: say so, it is not search time
                result.timings[f"{what}_load_seconds"] = seconds
        return result

    def _ask(self, question, method, level, history, on_text, lead) -> SearchResult:
        q = self.settings.query
        if self.content == "extractive":
            return self._ask_extractive(question, method, level, history, on_text,
                                        q.lead if lead is None else lead)
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


    def _ask_extractive(self, question: str, method: str, level, history, on_text,
                        lead: bool) -> SearchResult:
        """Answers made of sentences of the documents (see `search/extractive.py`)."""
        from .search import extractive as ex

        q = self.settings.query
        started = time.perf_counter()
        vector = self.embedder.embed([followup_text(question, history)])[0]
        similarity = self._similarity(vector)
        common = dict(prompts=self.prompts, settings=q, lead=lead, on_text=on_text,
                      started=started)
        if method == "basic":
            found = self.store.nearest("sentences", vector, q.basic_top_sentences,
                                       ["chunk_id", "start", "end"])
            hits = [(Source(r["chunk_id"], r["start"], r["end"]), r["similarity"]) for r in found
                    if r["chunk_id"] in self.data.chunks]
            model = self.model if lead else None
            return ex.answer("basic", question, ex.basic_quotes(hits, self.data), self.data,
                             model=model, **common)
        if method == "local":
            found = self.store.nearest("entities", vector, q.local_top_entities, ["name"])
            names = [r["name"] for r in found if r["name"] in self.data.entities]
            quotes = ex.local_quotes(names, self.data, similarity)
            cites = [Citation("entity", f"E{i}", self.data.entities[n].id, n,
                              self.data.entities[n].type) for i, n in enumerate(names, 1)]
            result = ex.answer("local", question, quotes, self.data,
                               model=self.model if lead else None, **common)
            result.citations += cites
            return result
        if method == "global":
            lv = self.resolve_level(level)
            before = len(self.model.calls)
            quotes, cites, scored = ex.global_quotes(self.model, self.prompts, question,
                                                     self.data, lv, similarity, q, history)
            result = ex.answer("global", question, quotes, self.data, model=self.model,
                               extra_citations=cites, level=lv, **common)
            result.map_calls = 1 if scored else 0
            result.context_tokens = scored
            result.calls = list(self.model.calls[before:])
            return result
        # ts: the model scores the source sentences nearest the question
        found = self.store.nearest("sentences", vector, q.map_max_statements,
                                   ["chunk_id", "start", "end"])
        sources = [Source(r["chunk_id"], r["start"], r["end"]) for r in found
                   if r["chunk_id"] in self.data.chunks]
        texts = [ex.sentence_quote(self.data, s, 0).text for s in sources]
        asks = [self.prompts.render("global_map_score", question=question, statement=t).rstrip()
                for t in texts]
        before = len(self.model.calls)
        picks = self.model.choose(asks, ex.SCORES, purpose="map") if asks else []
        near = {s: r["similarity"] for s, r in zip(sources, found)}
        scored = list(zip(sources, picks))
        if sum(p > 0 for _, p in scored) >= q.quote_count:
            scored = [(s, p) for s, p in scored if p > 0]
        scored.sort(key=lambda x: -(near[x[0]] + q.map_score_weight * x[1] / 100))
        quotes = [ex.sentence_quote(self.data, s, float(p)) for s, p in scored]
        result = ex.answer("ts", question, quotes, self.data, model=self.model, **common)
        result.calls = list(self.model.calls[before:])
        result.map_calls = 1 if asks else 0
        result.context_tokens = sum(self.model.count_tokens(t) for t in texts)
        return result

    def _similarity(self, vector: list[float]):
        """Cosine nearness of sentences (by source) to `vector`, from the index's vectors."""
        import numpy as np

        if self._sentence_vectors is None:
            rows, matrix = self.store.read_with_vectors("sentences", ["chunk_id", "start"])
            self._sentence_vectors = (matrix, {(r["chunk_id"], r["start"]): i
                                               for i, r in enumerate(rows)})
        matrix, row = self._sentence_vectors
        q = np.asarray(vector, dtype=np.float32)

        def near(sources: list[Source]) -> list[float]:
            idx = [row.get((s.chunk_id, s.start), -1) for s in sources]
            sims = matrix @ q if len(matrix) else np.zeros(0)
            return [float(sims[i]) if i >= 0 else 0.0 for i in idx]

        return near


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

