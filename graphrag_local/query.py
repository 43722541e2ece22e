"""Answering questions: a `Session` opens an index once (its tables, the chat model and
the embedder, each loaded on first use), checks that the index is complete and was
embedded by this embedder, and runs one search method per question. `chat` keeps one
session, so the model is loaded once per process."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .content import METHODS, content_mode
from .errors import ConfigError, IndexStateError, InputError, StoreError
from .language.messages import question_language
from .language.often import asked_often, may_ask_often
from .models import ChatModel, OnText
from .models.embed import EMBEDDER_NAME, Embedder
from .prompts import Prompts
from .schema import (
    Chunk,
    Claim,
    Community,
    Document,
    Entity,
    Relationship,
    chunk_from_row,
    community_from_row,
    document_from_row,
    entity_from_row,
    relationship_from_row,
    report_from_row,
)
from .search import tally
from .search.common import IndexData, Report, SearchResult
from .search.evidence import SentenceIndex, settled
from .settings import Settings
from .store import Store, describe_marker, running_build
from .work import sentence_key

TIE_MARGIN = 8  # rows read past the k asked for, to settle a tie at the cut

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


class StoredIndexData(IndexData):
    """`IndexData` read from a store, each table on its first use: a question reads the
    tables its method touches (basic search: chunks; `show entities`: entities), not all
    of them. The store pins the build's table versions, so a table read late is the one
    read early would have been (or, once two newer builds replaced it, an
    `IndexStateError` saying to open the index again, as `sentences` always did)."""

    def __init__(self, store: Store):  # no dataclass fields set: each is read below
        self._store = store

    def _rows(self, table: str) -> list[dict]:
        cols = [c for c in self._store.columns(table) if c != "vector"]
        return self._store.read(table, cols) if cols else []

    @cached_property
    def entities(self) -> dict[str, Entity]:
        return {e.name: e for e in map(entity_from_row, self._rows("entities"))}

    @cached_property
    def relationships(self) -> list[Relationship]:
        return [relationship_from_row(r) for r in self._rows("relationships")]

    @cached_property
    def claims(self) -> list[Claim]:
        return [Claim(**r) for r in self._rows("claims")]

    @cached_property
    def chunks(self) -> dict[str, Chunk]:
        return {c.id: c for c in map(chunk_from_row, self._rows("chunks"))}

    @cached_property
    def communities(self) -> list[Community]:
        return [community_from_row(r) for r in self._rows("communities")]

    @cached_property
    def reports(self) -> list[Report]:
        members = {c.id: c.entities for c in self.communities}
        ok = sorted((report_from_row(r) for r in self._rows("community_reports")
                     if r["status"] == "ok"), key=lambda r: (r.level, r.id))
        return [Report(f"R{i}", r, members.get(r.id, ())) for i, r in enumerate(ok, 1)]

    @cached_property
    def documents(self) -> dict[str, Document]:
        cols = [c for c in self._store.columns("documents") if c != "text"]
        return {d.id: d for d in map(document_from_row, self._store.read("documents", cols))}


def load_index_data(store: Store) -> IndexData:
    """The index's tables as search reads them, each read from `store` on first use."""
    return StoredIndexData(store)


class WrittenCache:
    """The index's `written_cache` work table: what a writer model wrote, by request
    (`search/replies.request_key`). Read on first use; each answer's new replies are one
    append. An index the user cannot write to still gets written answers, not kept."""

    def __init__(self, store: Store):
        self.store = store
        self._rows: dict[str, str] | None = None

    def _loaded(self) -> dict[str, str]:
        if self._rows is None:
            self._rows = {r["key"]: r["text"] for r in self.store.read("written_cache")}
        return self._rows

    def get(self, key: str) -> str | None:
        return self._loaded().get(key)

    def put(self, rows: dict[str, str], sources: dict[str, list[str]] | None = None) -> None:
        """Keep `rows` (replies by request key), each with the texts of the sentences it
        was written from (`sources`, by key): a later build keeps a reply while the
        documents still say them all (`forget.py`)."""
        self._loaded().update(rows)
        sources = sources or {}
        try:
            if self.store.has("written_cache") and "sources" not in self.store.columns(
                    "written_cache"):  # written before replies named their sentences
                self.store.write("written_cache", [
                    {"key": k, "text": v, "sources": []} for k, v in self._rows.items()
                    if k not in rows])
            self.store.append("written_cache", [
                {"key": k, "text": v, "sources": [sentence_key(t) for t in sources.get(k, ())]}
                for k, v in rows.items()])
        except StoreError:  # kept for this session only
            pass


class Session:
    """One open index and the models that answer over it. The content mode is the one
    the index was built with (its manifest), so answers quote or write as the build did."""

    def __init__(
        self,
        index_dir: Path,
        settings: Settings,
        prompts: Prompts,
        get_model: Callable[[], ChatModel],
        get_embedder: Callable[[], Embedder],
        content: str | None = None,
        get_writer: Callable[[str], ChatModel] | None = None,
    ):
        self.index_dir = index_dir
        self.store, self.manifest = open_index(index_dir)
        self.mode = content_mode(content or self.manifest.get("content") or "abstractive")
        built_with = self.manifest.get("embedder")
        if built_with != EMBEDDER_NAME:
            raise IndexStateError(
                f"the index at {index_dir} was embedded with '{built_with}', but questions "
                f"are embedded with '{EMBEDDER_NAME}'; rebuild the index with "
                "`graphrag-local build` (only the embeddings are recomputed)"
            )
        if "entities" not in self.store.columns("sentences"):
            raise IndexStateError(
                f"the index at {index_dir} was built by an older graphrag-local (its sentences "
                "do not record the entities they name); run the same `graphrag-local build` "
                "again: finished extraction work is reused"
            )
        self.settings = settings
        self.prompts = prompts
        self.data = load_index_data(self.store)
        self._get_model, self._get_embedder = get_model, get_embedder
        self._get_writer = get_writer
        self._writer: ChatModel | None = None
        self._written_cache: WrittenCache | None = None
        self._model: ChatModel | None = None
        self._embedder: Embedder | None = None
        self._sentences: SentenceIndex | None = None
        self._vectors: dict[str, np.ndarray] = {}
        self.load_seconds: dict[str, float] = {}  # one-time costs: model, embedder

    @property
    def content(self) -> str:
        return self.mode.name

    @property
    def model_name(self) -> str:
        """The chat model's preset name, without loading it."""
        if self._model is not None:
            return self._model.name
        return self.settings.model or self.manifest.get("model", {}).get("preset", "")

    @property
    def model(self) -> ChatModel:
        if self._model is None:
            started = time.perf_counter()
            self._model = self._get_model()
            self.load_seconds["model"] = round(time.perf_counter() - started, 3)
        return self._model

    @property
    def written_cache(self) -> WrittenCache:
        """What writers wrote for this index before (kept in the index, through syncs)."""
        if self._written_cache is None:
            self._written_cache = WrittenCache(self.store)
        return self._written_cache

    @property
    def writer_name(self) -> str:
        """The writer preset answers are written by ("": quoted answers)."""
        name = self.settings.query.writer
        return "" if name in ("", "none") else name

    @property
    def writer(self) -> ChatModel:
        """The writer model (`writer_name`), opened on first use (`api.open_writer`: its
        weights load when it first writes, and `ask` counts that as its load)."""
        if self._writer is None:
            if self._get_writer is None:
                raise ConfigError("this session has no way to load a writer model")
            self._writer = self._get_writer(self.writer_name)
        return self._writer

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
        if self._writer is not None:
            self._writer.close()

    # -- what the search methods read --------------------------------------------------
    def vector(self, text: str) -> np.ndarray:
        """The embedding of `text` (a question), computed once per session."""
        if text not in self._vectors:
            self._vectors[text] = np.asarray(self.embedder.embed([text])[0], dtype=np.float32)
        return self._vectors[text]

    @property
    def sentences(self) -> SentenceIndex:
        """Every sentence with its vector and the entities it names, loaded on first use."""
        if self._sentences is None:
            rows, matrix = self.store.read_with_vectors(
                "sentences", ["chunk_id", "start", "end", "entities"])
            self._sentences = SentenceIndex(rows, matrix, self.data)
        return self._sentences

    def nearest(self, table: str, vector, k: int, columns: list[str]) -> list[dict]:
        """The `k` rows of `table` nearest `vector`, best first; rows whose nearness ties at
        SCORE_DECIMALS go in the order of their `columns` (an id, a name), so the ranking
        is the same on every CPU (a row's score moves in its last bits from one to the
        next). A few rows past `k` are read so that a tie at the cut is settled too."""
        found = self.store.nearest(table, vector, k + TIE_MARGIN if k > 0 else 0, columns)
        found.sort(key=lambda r: (-settled(r["similarity"]), [str(r[c]) for c in columns]))
        return found[:k]

    def entity_hits(self, vector, k: int) -> list[tuple[Entity, float]]:
        found = self.nearest("entities", vector, k, ["name"])
        return [(self.data.entities[r["name"]], r["similarity"]) for r in found
                if r["name"] in self.data.entities]

    def primer(self, vector) -> list[Report]:
        """DRIFT's primer: the community reports nearest the question."""
        by_id = {r.id: r for r in self.data.reports}
        found = self.nearest("community_reports", vector,
                                   self.settings.query.drift_top_reports * 2, ["id", "status"])
        return [by_id[r["id"]] for r in found if r["id"] in by_id][
            : self.settings.query.drift_top_reports]

    def relevance_test(self, question: str):
        """Dynamic community selection's test: None (the embedder's nearness) or the
        model's YES/NO (`query.relevance_test`; "auto": the model for abstractive
        presets, the embedder for extractive ones, whose YES/NO measures at chance)."""
        from .search.selection import model_test

        choice = self.settings.query.relevance_test
        if choice == "auto":
            choice = "embedding" if self.mode.verbatim_only else "model"
        return model_test(self.model, self.prompts, question, self.data) if choice == "model" else None

    # -- levels ---------------------------------------------------------------------------
    def resolve_level(self, level: str | int | None) -> int | None:
        """A level number, or None for "auto": dynamic community selection from the root
        (the configured default when `level` is None)."""
        levels = self.data.levels
        if not levels:
            raise IndexStateError(
                f"the index at {self.index_dir} has no community reports (its communities "
                "are all too small); use --method local or basic"
            )
        level = self.settings.query.level if level is None else str(level)
        if level == "auto":
            return None
        if not level.isdigit() or int(level) not in levels:
            raise ConfigError(
                f"level {level!r} has no reports in this index; levels: "
                f"{', '.join(map(str, levels))} (or \"auto\")"
            )
        return int(level)

    # -- written reports ------------------------------------------------------------------
    def write_reports(self, on_progress: Callable[[int, int], None] | None = None,
                      batch: int = 8) -> dict[str, int]:
        """Every community's report written by the writer now (`build --write-reports`, the
        paper's way: worth it on a GPU), instead of when a question first reaches it. Each
        is the request a collection-wide global question makes for that community
        (`themes.report_rows`, `replies.topic_request`), kept in `written_cache`: later
        questions read it back. Returns how many were written and how many were there."""
        from .search import replies as rp
        from .search import written as wr

        count, requests = self._report_requests()
        writer, cache = self.writer, self.written_cache
        keys = [rp.request_key(writer, r) for _g, _rows, r in requests]
        first: dict[str, int] = {}  # two communities with the same evidence: one request
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        todo = [i for key, i in first.items() if cache.get(key) is None]
        if on_progress is not None:
            on_progress(0, len(todo))
        for start in range(0, len(todo), batch):
            part = todo[start:start + batch]
            given = [[self.sentences.text(r) for r in requests[i][1]] for i in part]
            replies = rp.decoded(writer, [requests[i][2] for i in part], given)
            cache.put({keys[i]: text for i, text in zip(part, replies)},
                      {keys[i]: texts for i, texts in zip(part, given)})
            if on_progress is not None:
                on_progress(start + len(part), len(todo))
        # and the heading of each whose heading is only names, worded again (`written.
        # retitle`) as an answer would, so that a later question writes nothing
        checkers = []
        for i in first.values():
            group, rows, _request = requests[i]
            evidence = [wr.Evidence(self.sentences.text(r), ()) for r in rows]
            checkers.append(wr.topic_checker(
                cache.get(keys[i]) or "", evidence, group.title, self.data.name_words,
                self.settings.query.writer_bound, self.data.cased, self.data.names_pattern))
        for start in range(0, len(checkers), batch):
            wr.retitle(writer, checkers[start:start + batch], cache, self.data.languages)
        return {"communities": count, "written": len(todo),
                "cached": len(first) - len(todo)}

    def written_reports(self, ids: list[str] | None = None) -> dict[str, dict]:
        """The reports the writer has written (by `write_reports`, or when a collection-wide
        question reached them), by community id (of `ids`, default all): the writer's
        title, the lines the support check kept with the refs of the chunks they cite, and
        how many it dropped (`written.read_topic`). A report not written yet is absent;
        nothing is written here."""
        from .search import replies as rp
        from .search import written as wr

        _count, requests = self._report_requests(ids)
        writer, cache = self.writer, self.written_cache
        out: dict[str, dict] = {}
        for group, rows, request in requests:
            reply = cache.get(rp.request_key(writer, request))
            if reply is None:
                continue
            evidence = [wr.Evidence(self.sentences.text(r),
                                    (self.data.chunk_ref[self.sentences.sources[r].chunk_id],))
                        for r in rows]
            out[group.key] = wr.read_topic(reply, evidence, group.title, self.data.name_words,
                                           self.settings.query.writer_bound, self.data.cased)
        return out

    def _report_requests(self, ids: list[str] | None = None):
        """Each community's report request, as a collection-wide global question makes it
        (`themes.report_rows`, `replies.topic_request`): (its group, its evidence rows, the
        request), and how many communities were considered."""
        from .search import extractive as ex
        from .search import replies as rp
        from .search import themes
        from .search import written as wr

        if not self.writer_name:
            raise ConfigError("written reports need a writer: --writer PRESET (or `writer` "
                              "under [query] in the config)")
        if self.mode.name != "extractive":
            raise ConfigError(f"the index at {self.index_dir} is {self.mode.name}: its model "
                              "wrote its reports at build time")
        s, sentences = self.settings.query, self.sentences
        groups = ex.community_groups(self.data, sentences,
                                     ids if ids is not None else
                                     [c.id for c in self.data.communities])
        count = len(groups)
        if ids is None:  # and the threads a question reaches a community too big to split by
            most = self.settings.graph.max_cluster_size
            groups += [t for g in groups if not g.children
                       for t in ex.threads(g, sentences, most)]
        requests = []
        for g in groups:
            rows = themes.report_rows(g, sentences, s.writer_theme_quotes, wr.REPORT_WORDS)
            if rows:
                requests.append((g, rows, rp.topic_request(
                    self.prompts, [sentences.text(r) for r in rows], bound=s.writer_bound,
                    languages=self.data.languages)))
        return count, requests

    # -- asking -------------------------------------------------------------------------
    def _counted_first(self, method, question, level, history, on_text, lead) -> SearchResult:
        """The method's answer; to a question asking how often something comes up
        (`language/often.py`), after the count of the sentences about it by document
        (`search/tally.py`), streamed first; where none is about it, the count alone (the
        method would answer from sentences about something else)."""
        started = time.perf_counter()
        language = (question_language(question, self.data.languages)
                    if may_ask_often(question) else "")
        topic = asked_often(question, language) if language else ""
        if not topic:
            return self.mode.answer(self, method, question, level, history or [], on_text, lead)
        counted = tally.count(self.sentences, self.vector(topic), topic, language)
        text, quotes = tally.shown(counted, self.data, self.sentences, language)
        first = round(time.perf_counter() - started, 3)
        if not counted.sentences:
            if on_text is not None:
                on_text(text)
            result = SearchResult(question, method, "")
            result.timings["total_seconds"] = first
        else:
            if on_text is not None:
                on_text(text + "\n\n")
            result = self.mode.answer(self, method, question, level, history or [], on_text,
                                      lead)
            if result.no_answer and on_text is not None:  # (not streamed: shown now)
                on_text(result.answer)
        result.timings["first_token_seconds"] = first
        return tally.prefixed(result, text, quotes, counted, self.data)

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
        if self.writer_name and self.mode.name != "extractive":
            raise ConfigError(f"a writer ({self.writer_name}) writes over an extractive index; "
                              f"the index at {self.index_dir} is {self.mode.name}: its model "
                              "writes the answers (ask without --writer)")
        loaded = dict(self.load_seconds)
        lead = self.settings.query.lead if lead is None else lead
        result = self._counted_first(method, question, level, history, on_text, lead)
        if (opened := getattr(self._writer, "opened_seconds", None)) is not None:
            self.load_seconds.setdefault("writer", opened)
        for what, seconds in self.load_seconds.items():
            if what not in loaded:  # loaded for this question: say so, it is not search time
                result.timings[f"{what}_load_seconds"] = seconds
        return result


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
        "written": result.written,
        "tally": result.tally,
    }

