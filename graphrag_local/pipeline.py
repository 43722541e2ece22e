"""`build`, top to bottom. Read this file to know what a build does:

    load -> chunk (+ sentences) -> extract (+ gleaning) -> describe elements
         -> graph & communities -> community reports -> embed -> check -> store

How each step works depends on the recipe (`recipe.py`): the method (standard: the model
extracts; fast: candidate spans and co-occurrence, no model before the reports) and the
content mode (extractive: everything stored is a sentence of the documents with its
source, the model only chooses; abstractive: the model writes, as in the paper).

Every unit of model work (a chunk's extraction, an element summary, a community report)
and every embedding is kept in a work table under a key that hashes all it depends on:
a chat model's reply the moment it completes, cheaper units about once a second
(`work.py`). A build that was killed resumes where it stopped; a
finished build run again makes no LLM call; a new document only costs its own chunks; a
changed model or prompt redoes exactly the work that depends on it. While a build runs,
readers answer from the last finished build: the store stage writes new table versions,
and only the manifest written at the very end points readers at them (`store.py`)."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path

import numpy as np

from . import faithfulness, forget
from .language.detect import detect_language
from .manifest import build_summary, make_manifest, manifest_changes
from .model_info import ModelInfo
from .models import ChatModel
from .models.embed import EMBEDDER_NAME, Embedder
from .prompts import Prompts
from .recipe import Recipe
from .schema import (
    OUTPUT_TABLES,
    Chunk,
    ChunkExtraction,
    Claim,
    ClaimRecord,
    Community,
    CommunityReport,
    Document,
    Entity,
    Relationship,
    Sentence,
    Source,
    chunk_row,
    community_row,
    content_id,
    document_row,
    entity_row,
    extraction_from_row,
    extraction_row,
    relationship_row,
    report_row,
    sentence_row,
)
from .sentences import squash
from .settings import Settings
from .stages.aliases import rename_records, resolve_records, word_stats
from .stages.chunk import chunk_documents, chunk_sentences
from .stages.communities import Cluster, build_graph, hierarchical_leiden
from .stages.describe import Evidence
from .stages.ground import normalise
from .stages.load import load_documents
from .stages.mentions import find_mentions, names_by_sentence, neighbour_relations, spread_names
from .stages.merge import (
    entity_id,
    merge_entities,
    merge_relationships,
    relationship_id,
)
from .stages.quality import level_quality, partition_change
from .store import BuildLock, Store
from .tokenizer import corpus_encoding
from .work import (
    TableWriter,
    VectorCache,
    WorkCache,
    embedding_key,
    extraction_key,
)

Progress = Callable[[str, int, int], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


@dataclass
class Build:
    """State shared by the stages of one build (the pipeline's working memory)."""

    docs_dir: Path
    settings: Settings
    recipe: Recipe
    store: Store
    prompts: Prompts
    model_info: ModelInfo
    get_model: Callable[[], ChatModel]
    get_embedder: Callable[[], Embedder]
    progress: Progress
    build_id: str = ""
    documents: list[Document] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)
    extractions: list[ChunkExtraction] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    reports: list[CommunityReport] = field(default_factory=list)
    mentions: dict[str, tuple[Source, ...]] = field(default_factory=dict)  # every sentence naming an entity
    evidence: dict[Source, Evidence] = field(default_factory=dict)  # those sentences, read
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # an entity's other names
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # per table, a row per row
    faithfulness: dict = field(default_factory=dict)
    sync: dict = field(default_factory=dict)  # what changed since the index's last build
    previous: dict = field(default_factory=dict)  # what the last build left, for `sync`
    community_quality: dict = field(default_factory=dict)  # per level
    partition_change: dict = field(default_factory=dict)  # per level, against the last build
    warnings: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)
    calls: list = field(default_factory=list)  # (stage, CallRecord)
    embedder_dim: int = 0
    caches: dict[str, WorkCache | VectorCache] = field(default_factory=dict)
    embedded: set[str] = field(default_factory=set)  # the embedding keys used (`forget.py`)
    _calls_log: TableWriter | None = None
    _model: ChatModel | None = None

    @property
    def model(self) -> ChatModel:
        if self._model is None:
            self._model = self.get_model()
        return self._model

    def close(self) -> None:
        if self._model is not None:
            self._model.close()

    def cache(self, table: str, value: str = "record_json") -> WorkCache:
        if table not in self.caches:
            self.caches[table] = WorkCache(self.store, table, value)
        return self.caches[table]

    def vector_cache(self) -> VectorCache:
        if "embedding_cache" not in self.caches:
            self.caches["embedding_cache"] = VectorCache(self.store)
        return self.caches["embedding_cache"]

    def log_calls(self, stage: str) -> None:
        """Persist the LLM calls made since the last log (one append per unit of work)."""
        if self._model is None:
            return
        new = self._model.calls[len(self.calls) :]
        if new:
            self.calls.extend((stage, c) for c in new)
            if self._calls_log is None:
                self._calls_log = TableWriter(self.store, "llm_calls")
            self._calls_log.add(
                [{"build_id": self.build_id, "stage": stage, **asdict(c)} for c in new],
                durable=True,
            )

    def writers(self) -> list:
        """Every work table's writer, to commit and merge at a stage's end."""
        return [c.writer for c in self.caches.values()] + [
            w for w in (self._calls_log,) if w is not None]

    @property
    def chunk_by_id(self) -> dict[str, Chunk]:
        return {c.id: c for c in self.chunks}


# --- the stages, in order ----------------------------------------------------------------


def load(b: Build) -> None:
    """The folder's documents, and how they differ from the index's previous build: a
    build syncs the index with the folder (what only a removed or changed document
    supported disappears with it; what is unchanged is reused)."""
    s = b.settings.input
    b.documents, warnings = load_documents(b.docs_dir, s.extensions, s.csv_text_column)
    b.documents = [replace(d, language=s.language if s.language != "auto"
                           else detect_language(d.text)) for d in b.documents]
    b.warnings.extend(warnings)
    before = {r["path"]: r["id"] for r in b.store.read("documents", ["path", "id"])}
    now = {d.path: d.id for d in b.documents}
    b.previous = {
        "entities": {r["name"] for r in b.store.read("entities", ["name"])},
        "report_keys": {r["key"] for r in b.store.read("community_reports", ["key", "status"])
                        if r["status"] == "ok"},
    }
    b.sync = {
        "documents_added": sorted(p for p in now if p not in before),
        "documents_changed": sorted(p for p in now if p in before and before[p] != now[p]),
        "documents_removed": sorted(p for p in before if p not in now),
        "documents_unchanged": sum(1 for p in now if before.get(p) == now[p]),
    }


def chunk(b: Build) -> None:
    c = b.settings.chunks
    b.chunks = chunk_documents(b.documents, corpus_encoding(), c.size, c.overlap)
    b.sentences = chunk_sentences(b.documents, b.chunks)


def extract(b: Build) -> None:
    recipe = b.recipe
    cache = b.cache("extractions")
    prompt_digest = b.prompts.digest(*recipe.extract_prompts)
    options = recipe.extraction_options()
    keys = [extraction_key(b.model_info.key, c.text, prompt_digest, options) for c in b.chunks]
    todo = [c for c, k in zip(b.chunks, keys) if k not in cache]
    if todo and recipe.uses_model_to_extract and not recipe.mode.verbatim_only:
        from .stages.extract import check_chunk_budgets

        check_chunk_budgets(b.model, b.prompts, todo, recipe.extract)
    by_chunk: dict[str, list[Sentence]] = {}
    for s in b.sentences:
        by_chunk.setdefault(s.chunk_id, []).append(s)
    b.sync["chunks_extracted"], b.sync["chunks_reused"] = len(todo), len(b.chunks) - len(todo)
    results: dict[str, ChunkExtraction] = {}
    for c, key in zip(b.chunks, keys):
        row = cache.row(key)
        if row is not None:
            results[c.id] = extraction_from_row(row, c.id)
    model = b.model if todo and recipe.uses_model_to_extract else None
    # chunks in flight: their model calls are asked together; each is saved when done
    together = model is not None and recipe.method == "standard" and recipe.mode.chunks_together
    window = max(1, b.settings.extract.in_flight) if together else 1
    pending = [(c, by_chunk.get(c.id, []), k) for c, k in zip(b.chunks, keys) if c.id not in results]
    for start in range(0, len(pending), window):
        part = pending[start : start + window]
        for (c, _, key), result in zip(part, recipe.extract_chunks(model, b.prompts, part)):
            r = extraction_row(result)
            cache.put(key, r["record_json"], chunk_id=c.id, status=r["status"], error=r["error"],
                      durable=model is not None)  # cheap units go in batches
            results[c.id] = result
        b.log_calls("extract")
        b.progress("extract", len(results), len(b.chunks))
    b.extractions = [results[c.id] for c in b.chunks]
    b.progress("extract", len(b.chunks), len(b.chunks))
    for r in b.extractions:
        b.counts["failed_chunks"] += r.status != "ok"
        b.counts["dropped_entities"] += r.dropped_entities
        b.counts["dropped_relationships"] += r.dropped_relationships
        b.counts["dropped_claims"] += r.dropped_claims
        b.counts["gleanings"] += r.gleanings
        if r.status != "ok":
            path = b.chunk_by_id[r.chunk_id].path
            b.warnings.append(f"{path}: chunk {r.chunk_id} failed extraction: {r.error}")
    kept = sum(len(r.entities) for r in b.extractions)
    dropped = b.counts["dropped_entities"]
    if not b.recipe.mode.verbatim_only and dropped > kept:  # say why the graph is thin
        b.warnings.append(
            f"the model named {kept + dropped} entities and {dropped} were dropped because "
            "their names are not in the text of their chunk (grounding); "
            f"{b.counts['dropped_relationships']} relationships were dropped because an end "
            "was not a kept entity of that chunk")


def summarize_elements(b: Build) -> None:
    """Merge the chunks' records into entities and relationships, and describe each:
    extractively (its sentences, ranked) when extraction kept sentences, else with the
    model's summary of its descriptions."""
    extractions = b.extractions
    if b.recipe.mode.verbatim_only or b.recipe.method == "fast":  # records hold sentences
        extractions = spread_names(extractions, b.chunks, b.sentences)
    ent_records = [e for r in extractions for e in r.entities]
    rel_records = [x for r in extractions for x in r.relationships]
    # one entity, one node: names cleaned, aliases resolved (`stages/aliases.py`)
    resolved = resolve_records(ent_records, {c.id: c.document_id for c in b.chunks},
                               word_stats(d.text for d in b.documents))
    ent_records, rel_records = rename_records(ent_records, rel_records, resolved)
    b.counts["dropped_names"] = resolved.dropped
    if b.recipe.mode.verbatim_only or b.recipe.method == "fast":  # relations are co-occurrence
        rel_records += neighbour_relations(ent_records, b.sentences)
    merged = merge_entities(ent_records)
    b.aliases = {name: tuple(forms) for name, forms in resolved.aliases.items()}
    merged_rels = merge_relationships(rel_records, merged)
    texts = b.recipe.mode.describe(b, merged, merged_rels)
    max_count = max((r.count for r in merged_rels), default=1)
    b.relationships = [
        Relationship(
            id=relationship_id(r.key), source=r.source, target=r.target,
            description=texts[len(merged) + i][0], weight=r.count / max_count,
            strength=round(r.strength, 3), count=r.count, chunk_ids=r.chunk_ids,
            sources=texts[len(merged) + i][1],
        )
        for i, r in enumerate(merged_rels)
    ]
    degree: Counter = Counter()
    for r in b.relationships:
        degree[r.source] += 1
        degree[r.target] += 1
    b.entities = [
        Entity(entity_id(e.key), e.name, e.type, texts[i][0], e.chunk_ids, degree[e.name],
               texts[i][1], tuple(sorted(resolved.aliases.get(e.name, Counter()).items(),
                                         key=lambda a: (-a[1], a[0]))))
        for i, e in enumerate(merged)
    ]
    if not b.mentions:  # abstractive: extraction kept no sentences; find them by name
        chunk_names: dict[str, list[str]] = {}
        for e in b.entities:
            for cid in e.chunk_ids:
                chunk_names.setdefault(cid, []).append(e.name)
        b.mentions = find_mentions(b.sentences, chunk_names)
    names = {normalise(e.name): e.name for e in b.entities}
    names.update({k: v for k, v in resolved.rename.items() if v})  # an alias names its entity
    b.claims = sorted({_claim(c, names) for r in b.extractions for c in r.claims},
                      key=lambda c: c.id)


def communities(b: Build) -> None:
    """Hierarchical Leiden; then how good each level is, and how far each level moved
    since the index's previous build (NMI/ARI over the entities both hold)."""
    g = b.settings.graph
    graph = build_graph(
        [e.name for e in b.entities],
        [(r.source, r.target, r.weight) for r in b.relationships],
    )
    b.clusters = hierarchical_leiden(graph, g.max_cluster_size, g.seed, g.max_levels)
    levels = sorted({c.level for c in b.clusters})
    b.community_quality = {
        str(lv): level_quality(graph, [list(c.members) for c in b.clusters if c.level == lv])
        for lv in levels
    }
    before: dict[int, dict[str, str]] = {}
    for row in b.store.read("communities", ["id", "level", "entities"]):
        for name in row["entities"]:
            before.setdefault(row["level"], {})[name] = row["id"]
    now = {lv: {m: c.id for c in b.clusters if c.level == lv for m in c.members} for lv in levels}
    b.partition_change = {str(lv): partition_change(before[lv], now[lv])
                          for lv in levels if lv in before}
    b.progress("communities", 1, 1)


def reports(b: Build) -> None:
    """Bottom-up, so every sub-community's report exists when its parent needs it. A
    community smaller than `reports.min_community_size` gets none, unless it is one entity
    that `reports.alone_sentences` sentences describe (a story's hero with no relationship
    found would otherwise be in no report, and so in no global answer)."""
    s = b.settings.reports
    by_id = {c.id: c for c in b.clusters}
    described = {e.name: len(e.sources) for e in b.entities}
    todo = [c for c in b.clusters if len(c.members) >= s.min_community_size
            or (len(c.members) == 1 and described.get(c.members[0], 0) >= s.alone_sentences)]
    b.counts["skipped_communities"] = len(b.clusters) - len(todo)
    write = b.recipe.mode.reporter(b)
    done: dict[str, CommunityReport] = {}
    copied = 0
    for level in sorted({c.level for c in todo}, reverse=True):  # a level's are independent
        clusters = sorted((c for c in todo if c.level == level), key=lambda c: c.id)
        same = {c.id: r for c in clusters if (r := report_of_same(c, by_id, done)) is not None}
        done.update(write([c for c in clusters if c.id not in same], by_id, done))
        done.update(same)
        copied += len(same)
        b.progress("reports", len(done), len(todo))
    b.counts["reports_of_unsplit"] = copied
    b.reports = sorted(done.values(), key=lambda r: (r.level, r.id))
    b.counts["failed_reports"] = sum(r.status != "ok" for r in b.reports)
    reused = sum(r.key in b.previous["report_keys"] for r in b.reports if r.status == "ok")
    names = {e.name for e in b.entities}
    b.sync.update({
        "reports_reused": reused, "reports_new": len(b.reports) - reused,
        "entities_added": len(names - b.previous["entities"]),
        "entities_removed": len(b.previous["entities"] - names),
    })
    for r in b.reports:
        if r.status != "ok":
            b.warnings.append(f"community {r.community_id} (level {r.level}): report failed: {r.error}")
    if b.clusters and not any(r.status == "ok" for r in b.reports):
        b.warnings.append(
            f"no community reports: {len(b.clusters) - len(todo)} of {len(b.clusters)} "
            f"communities have fewer than reports.min_community_size = {s.min_community_size} "
            f"entities (an entity without relationships stays alone; {len(b.relationships)} "
            f"relationships), and {b.counts['failed_reports']} reports failed; global and drift "
            "search need reports, local and basic search work")


def report_of_same(cluster: Cluster, by_id: dict[str, Cluster],
                   done: dict[str, CommunityReport]) -> CommunityReport | None:
    """The report of a community that does not split at the next level: its one
    sub-community has the same members, so it is the same community and its report is
    that one's (written once, not again per level: on the whole podcast corpus 1,548 of
    2,168 reports are such copies, and written again 1,545 of them came out the same)."""
    if len(cluster.children) != 1:
        return None
    child = by_id[cluster.children[0]]
    report = done.get(child.id)
    if report is None or report.status != "ok" or set(child.members) != set(cluster.members):
        return None
    return replace(report, id=cluster.id, community_id=cluster.id, level=cluster.level,
                   key=content_id("report-of-same", report.key, cluster.id, length=24),
                   substituted=(child.id,))


def entity_text(e: Entity) -> str:
    """What an entity's vector embeds: its name, its other names, its description."""
    also = f" (also {', '.join(a for a, _ in e.aliases[:6])})" if e.aliases else ""
    return f"{e.name}{also}: {e.description}"


def embed(b: Build) -> None:
    """Vectors for chunks, sentences, entities and reports. Cached by (embedder, text): a
    rerun, a resumed build or an update embeds only new text, and loads no embedder when
    nothing is new. A text's vector depends on the texts embedded with it only in its last
    bits (the embedder pads none; VECTOR_TOLERANCE), so a resumed or synced index equals a
    fresh build's in every field, vectors within that. New texts go shortest first, so
    that texts of one length meet in one part."""
    groups = {  # a text per row of each table (a report that failed gets a zero vector)
        "chunks": [c.text for c in b.chunks],
        "sentences": [squash(s.text) for s in b.sentences],
        "entities": [entity_text(e) for e in b.entities],
        "community_reports": [r.full_content if r.status == "ok" else None for r in b.reports],
    }
    cache = b.vector_cache()

    def key(text: str) -> str:
        return embedding_key(EMBEDDER_NAME, text)

    texts = {t for items in groups.values() for t in items if t is not None}
    new = sorted((t for t in texts if key(t) not in cache), key=lambda t: (len(t), t))
    size = max(b.settings.embed.batch_size, 1) * 16  # texts per part: committed, reported
    parts = [new[i : i + size] for i in range(0, len(new), size)]
    embedder = b.get_embedder() if parts else None
    for i, part in enumerate(parts, 1):
        cache.put_many([key(t) for t in part], embedder.embed(part))
        b.progress("embed", i, len(parts))
    b.progress("embed", len(parts), len(parts))
    b.embedder_dim = cache.dim
    b.vectors = {table: cache.matrix([key(t) if t is not None else "" for t in items],
                                     b.embedder_dim)
                 for table, items in groups.items()}
    cache.finish()  # committed; its vectors are now in b.vectors: let it go
    b.embedded = cache.used
    del b.caches["embedding_cache"]


def check(b: Build) -> None:
    """What share of the stored statements the documents hold. In extractive mode all of
    them must be verbatim with a source, findings unrepeated: a breach is a bug."""
    b.faithfulness = faithfulness.check(b.documents, b.chunks, b.entities, b.relationships,
                                        b.reports)
    if b.recipe.mode.verbatim_only:
        for breach in faithfulness.breaches(b.faithfulness):
            b.warnings.append(f"BUG (please report): extractive index holds {breach}")
    b.progress("check", 1, 1)


def store(b: Build) -> None:
    """Each output table rewritten as a new version. Readers keep reading the versions the
    last finished build's manifest pins until `run_build` writes the new manifest."""
    tables: list[tuple[str, Callable[[], list[dict]]]] = [
        ("documents", lambda: [document_row(d) for d in b.documents]),
        ("chunks", lambda: [chunk_row(c) for c in b.chunks]),
        ("sentences", lambda: [sentence_row(replace(s, entities=named.get((s.chunk_id, s.start), ())))
                               for s in b.sentences]),
        ("entities", lambda: [entity_row(e) for e in b.entities]),
        ("relationships", lambda: [relationship_row(r) for r in b.relationships]),
        ("claims", lambda: [asdict(c) for c in b.claims]),
        ("communities", lambda: [community_row(c) for c in community_records(b)]),
        ("community_reports", lambda: [report_row(r) for r in b.reports]),
    ]
    named = names_by_sentence(b.mentions)
    for i, (name, rows) in enumerate(tables, 1):
        b.store.write(name, rows(), b.embedder_dim, vectors=b.vectors.get(name))
        b.progress("store", i, len(tables))


STAGES: list[tuple[str, Callable[[Build], None]]] = [
    ("load", load),
    ("chunk", chunk),
    ("extract", extract),
    ("summarize", summarize_elements),
    ("communities", communities),
    ("reports", reports),
    ("embed", embed),
    ("check", check),
    ("store", store),
]


def run_build(b: Build) -> dict:
    """Run every stage in order, holding the index lock; returns the build summary. The
    manifest of the last finished build stays in place (readers answer from it) until
    every table is written; then the new one replaces it and older table versions go."""
    with BuildLock(b.store.dir) as lock:
        previous = b.store.read_manifest()
        manifest = make_manifest(b)
        changes = manifest_changes(previous, manifest, lock.interrupted)
        b.build_id = content_id(str(time.time_ns()), length=12)
        begun = datetime.now()
        if not previous.get("complete"):  # nothing finished to keep serving
            b.store.write_manifest({**manifest, "complete": False})
        kill_at = _kill_at()
        if kill_at:
            b.progress = _killing(b.progress, kill_at)
        for name, stage in STAGES:
            if kill_at == (name, 0):
                os.kill(os.getpid(), signal.SIGKILL)
            started = time.perf_counter()
            try:
                stage(b)
            except BaseException:
                _keep_finished_work(b)
                raise
            for writer in b.writers():
                writer.finish()
            b.seconds[name] = round(time.perf_counter() - started, 3)
        resumed = lock.interrupted is not None or previous.get("complete") is False
        forgetting = forget.needed(b.sync)  # a document removed or changed: its old text goes
        if forgetting:
            started = time.perf_counter()
            b.sync["work_rows_forgotten"] = forget.forget_work(b)
            b.seconds["forget"] = round(time.perf_counter() - started, 3)
        summary = build_summary(b, changes, resumed)
        b.store.write_manifest({**manifest, "complete": True, "summary": summary,
                                "tables": b.store.versions(OUTPUT_TABLES)})
        b.store.drop_old_versions(previous.get("tables", {}) if previous.get("complete") else {},
                                  begun)
        if forgetting:  # the previous build's versions too
            forget.forget_versions(b.store)
        return summary


def _keep_finished_work(b: Build) -> None:
    """A stage failed (or was interrupted): commit the cheap units still waiting, so the
    next build resumes after them. A failure here (a full disk) adds nothing to the one
    being raised."""
    for writer in b.writers():
        try:
            writer.flush()
        except Exception:  # noqa: BLE001 - the stage's own error is the one to report
            pass


def _kill_at() -> tuple[str, int] | None:
    """Test hook for crash safety (tests/test_e2e_crash.py, scripts/soak_kill.py):
    GRAPHRAG_LOCAL_KILL_AT="stage:n" makes the build kill itself with SIGKILL, as a crash
    would, once `stage` has reported n units done through the progress callback (n = 0:
    as the stage starts; "store:n": after n output tables). Unset: None, no hook."""
    value = os.environ.get("GRAPHRAG_LOCAL_KILL_AT", "")
    if not value:
        return None
    stage, _, n = value.partition(":")
    return stage, int(n or 0)


def _killing(progress: Progress, at: tuple[str, int]) -> Progress:
    def report(stage: str, done: int, total: int) -> None:
        progress(stage, done, total)
        if stage == at[0] and done >= at[1]:
            os.kill(os.getpid(), signal.SIGKILL)

    return report


# --- helpers ---------------------------------------------------------------------------


def _claim(c: ClaimRecord, names: dict[str, str]) -> Claim:
    subject = names.get(normalise(c.subject), c.subject)
    obj = names.get(normalise(c.object), c.object)
    return Claim(
        id=content_id("claim", subject, obj, c.type, c.description, c.chunk_id),
        subject=subject, object=obj, type=c.type, status=c.status,
        description=c.description, source_text=c.source_text, start_date=c.start_date,
        end_date=c.end_date, chunk_id=c.chunk_id,
    )


def community_records(b: Build) -> list[Community]:
    rels_by_source: dict[str, list[Relationship]] = {}
    for r in b.relationships:
        rels_by_source.setdefault(r.source, []).append(r)
    out = []
    for c in b.clusters:
        members = set(c.members)
        rel_ids = sorted(
            {r.id for m in c.members for r in rels_by_source.get(m, []) if r.target in members}
        )
        out.append(Community(c.id, c.level, c.parent, c.children, c.members, tuple(rel_ids)))
    return sorted(out, key=lambda c: (c.level, c.id))
