"""`build`, top to bottom. Read this file to know what a build does:

    load -> chunk -> extract (+ gleanings, grounding, claims) -> merge & summarise
         -> graph & communities -> community reports -> embed -> store

Every unit of LLM work (a chunk's extraction, an element summary, a community report)
is keyed by a hash of everything it depends on (its input text, the model file, the
prompts, the settings) and persisted the moment it completes. A build that was killed
resumes where it stopped; a finished build run again makes no LLM call; a new document
only costs its own chunks; a changed model or prompt redoes exactly the work that
depends on it."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import __version__
from .embed import EMBEDDER_NAME, Embedder
from .errors import BudgetError
from .llm import CallRecord, ChatModel
from .presets import Preset
from .prompts import BUILD_PROMPTS, Prompts
from .schema import (
    Chunk,
    ChunkExtraction,
    Claim,
    ClaimRecord,
    Community,
    CommunityReport,
    Document,
    Entity,
    EntityRecord,
    Finding,
    Relationship,
    RelationshipRecord,
    content_id,
)
from .settings import Settings
from .stages.chunk import chunk_documents
from .stages.communities import Cluster, build_graph, hierarchical_leiden
from .stages.extract import ExtractOptions, extract_chunk
from .stages.ground import normalise
from .stages.load import load_documents
from .stages.merge import (
    entity_id,
    merge_entities,
    merge_relationships,
    relationship_id,
    summarize,
)
from .stages.reports import Elements, build_context, write_report
from .store import BuildLock, Store
from .structured import extraction_model, max_reply_tokens, report_model, schema_of
from .tokenizer import ENCODING_NAME, corpus_encoding

Progress = Callable[[str, int, int], None]
EXTRACT_PROMPTS = (
    "extract_entities", "glean_check", "glean_continue", "extract_relationships", "extract_claims",
)


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


@dataclass
class ModelInfo:
    """What identifies the model's behaviour: part of every LLM work key."""

    preset: Preset
    path: Path
    sha256: str

    @property
    def key(self) -> str:
        p = self.preset
        return content_id(
            self.sha256, p.chat_format, str(p.n_ctx), str(p.temperature), str(p.top_k),
            str(p.top_p), str(p.repeat_penalty),
        )


@dataclass
class Build:
    """State shared by the stages of one build (the pipeline's working memory)."""

    docs_dir: Path
    settings: Settings
    store: Store
    prompts: Prompts
    model_info: ModelInfo
    get_model: Callable[[], ChatModel]
    get_embedder: Callable[[], Embedder]
    progress: Progress
    build_id: str = ""
    documents: list[Document] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    extractions: list[ChunkExtraction] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    reports: list[CommunityReport] = field(default_factory=list)
    vectors: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)
    calls: list[tuple[str, CallRecord]] = field(default_factory=list)
    embedder_dim: int = 0
    _model: ChatModel | None = None

    @property
    def model(self) -> ChatModel:
        if self._model is None:
            self._model = self.get_model()
        return self._model

    def close(self) -> None:
        if self._model is not None and hasattr(self._model, "close"):
            self._model.close()

    def log_calls(self, stage: str) -> None:
        """Persist the LLM calls made since the last log (one append per unit of work)."""
        if self._model is None:
            return
        new = self._model.calls[len(self.calls) :]
        if not new:
            return
        self.calls.extend((stage, c) for c in new)
        self.store.append(
            "llm_calls",
            [{"build_id": self.build_id, "stage": stage, **asdict(c)} for c in new],
        )

    def key(self, *parts: str) -> str:
        return content_id(self.model_info.key, *parts, length=24)


# --- the stages, in order ----------------------------------------------------------------


def load(b: Build) -> None:
    s = b.settings.input
    b.documents, warnings = load_documents(b.docs_dir, s.extensions, s.csv_text_column)
    b.warnings.extend(warnings)


def chunk(b: Build) -> None:
    c = b.settings.chunks
    b.chunks = chunk_documents(b.documents, corpus_encoding(), c.size, c.overlap)


def extract(b: Build) -> None:
    opts = extract_options(b.settings, b.model_info.preset)
    settings_key = json.dumps(asdict(opts), sort_keys=True)
    prompt_key = b.prompts.digest(*EXTRACT_PROMPTS)
    done = {r["key"]: r for r in b.store.read("extractions")}
    keys = [b.key("extract", c.text, prompt_key, settings_key) for c in b.chunks]
    todo = [c for c, key in zip(b.chunks, keys) if key not in done]
    if todo:
        check_chunk_budgets(b.model, b.prompts, todo, opts)
    total = len(b.chunks)
    for i, (c, key) in enumerate(zip(b.chunks, keys)):
        if key in done:
            result = extraction_from_row(done[key], c.id)
        else:
            result = extract_chunk(b.model, b.prompts, c, opts, key)
            b.store.append("extractions", [extraction_row(result)])
            b.log_calls("extract")
        b.extractions.append(result)
        b.progress("extract", i + 1, total)
    b.store.compact("extractions")
    for r in b.extractions:
        b.counts["failed_chunks"] += r.status != "ok"
        b.counts["dropped_entities"] += r.dropped_entities
        b.counts["dropped_relationships"] += r.dropped_relationships
        b.counts["dropped_claims"] += r.dropped_claims
        b.counts["gleanings"] += r.gleanings
        if r.status != "ok":
            path = next(c.path for c in b.chunks if c.id == r.chunk_id)
            b.warnings.append(f"{path}: chunk {r.chunk_id} failed extraction: {r.error}")


def summarize_elements(b: Build) -> None:
    ent_records = [e for r in b.extractions for e in r.entities]
    rel_records = [x for r in b.extractions for x in r.relationships]
    merged_entities = merge_entities(ent_records)
    merged_rels = merge_relationships(rel_records, merged_entities)
    s = b.settings.summary
    prompt_key = b.prompts.digest("summarize_descriptions")
    cache = {r["key"]: r["text"] for r in b.store.read("summaries")}
    jobs = [(e.name, e.descriptions) for e in merged_entities] + [
        (f"{r.source}, {r.target}", r.descriptions) for r in merged_rels
    ]
    texts: list[str] = []
    for i, (name, descriptions) in enumerate(jobs):
        if len(descriptions) <= 1:
            texts.append(descriptions[0] if descriptions else "")
        else:
            key = b.key("summary", name, *descriptions, prompt_key, str(asdict(s)))
            if key not in cache:
                cache[key] = summarize(
                    b.model, b.prompts, name, descriptions,
                    max_input_tokens=s.max_input_tokens, max_output_chars=s.max_output_chars,
                )
                b.store.append("summaries", [{"key": key, "text": cache[key]}])
                b.log_calls("summarize")
            texts.append(cache[key])
        b.progress("summarize", i + 1, len(jobs))
    b.store.compact("summaries")
    max_count = max((r.count for r in merged_rels), default=1)
    b.relationships = [
        Relationship(
            id=relationship_id(r.key), source=r.source, target=r.target,
            description=texts[len(merged_entities) + i], weight=r.count / max_count,
            strength=round(r.strength, 3), count=r.count, chunk_ids=r.chunk_ids,
        )
        for i, r in enumerate(merged_rels)
    ]
    degree = Counter()
    for r in b.relationships:
        degree[r.source] += 1
        degree[r.target] += 1
    b.entities = [
        Entity(entity_id(e.key), e.name, e.type, texts[i], e.chunk_ids, degree[e.name])
        for i, e in enumerate(merged_entities)
    ]
    names = {normalise(e.name): e.name for e in b.entities}
    b.claims = sorted(
        {
            _claim(c, names)
            for r in b.extractions
            for c in r.claims
        },
        key=lambda c: c.id,
    )


def communities(b: Build) -> None:
    g = b.settings.graph
    graph = build_graph(
        [e.name for e in b.entities],
        [(r.source, r.target, r.weight) for r in b.relationships],
    )
    b.clusters = hierarchical_leiden(graph, g.max_cluster_size, g.seed, g.max_levels)
    b.progress("communities", 1, 1)


def reports(b: Build) -> None:
    s = b.settings.reports
    schema_model = report_model(s.max_findings, s.max_summary_chars, s.max_finding_chars)
    prompt_key = b.prompts.digest("community_report")
    elements = Elements(
        entities={e.name: e for e in b.entities},
        relationships=b.relationships,
        claims_by_entity=_group_claims(b.claims),
        degree={e.name: e.degree for e in b.entities},
    )
    by_id = {c.id: c for c in b.clusters}
    cache = {r["key"]: json.loads(r["record_json"]) for r in b.store.read("report_cache")}
    todo = [c for c in b.clusters if len(c.members) >= s.min_community_size]
    b.counts["skipped_communities"] = len(b.clusters) - len(todo)
    done: dict[str, CommunityReport] = {}
    budget = 0
    for i, cluster in enumerate(sorted(todo, key=lambda c: (-c.level, c.id))):
        if not budget:
            budget = report_budget(b.model, b.prompts, schema_model, s.max_input_tokens, s.max_findings)
        children = [by_id[c] for c in cluster.children]
        context = build_context(
            cluster, children, done, elements, b.model.count_tokens, budget
        )
        key = b.key("report", context.text, prompt_key, str(asdict(s)))
        if key in cache:
            report = _report_from_json(cache[key], cluster, key, context)
        else:
            report = write_report(
                b.model, b.prompts, cluster, context, key,
                max_findings=s.max_findings, max_summary_chars=s.max_summary_chars,
                max_finding_chars=s.max_finding_chars,
            )
            cache[key] = _report_json(report)
            b.store.append("report_cache", [{"key": key, "record_json": json.dumps(cache[key])}])
            b.log_calls("reports")
        done[cluster.id] = report
        b.progress("reports", i + 1, len(todo))
    b.store.compact("report_cache")
    b.reports = sorted(done.values(), key=lambda r: (r.level, r.id))
    b.counts["failed_reports"] = sum(r.status != "ok" for r in b.reports)
    for r in b.reports:
        if r.status != "ok":
            b.warnings.append(f"community {r.community_id} (level {r.level}): report failed: {r.error}")


def embed(b: Build) -> None:
    """Vectors for chunks, entities and reports. Cached by (embedder, text): a rerun or an
    update embeds only new text, and loads no embedder when nothing is new."""
    groups = {
        "chunks": [(c.id, c.text) for c in b.chunks],
        "entities": [(e.id, f"{e.name}: {e.description}") for e in b.entities],
        "community_reports": [(r.id, r.full_content) for r in b.reports if r.status == "ok"],
    }
    cache = {r["key"]: r["vector"] for r in b.store.read("embedding_cache")}
    name = EMBEDDER_NAME

    def key(text: str) -> str:
        return content_id(name, text, length=24)

    todo = list(dict.fromkeys(t for items in groups.values() for _, t in items if key(t) not in cache))
    total = len(todo)
    if todo:
        embedder = b.get_embedder()
        batch = b.settings.embed.batch_size
        for start in range(0, total, batch):
            part = todo[start : start + batch]
            rows = [{"key": key(t), "vector": v} for t, v in zip(part, embedder.embed(part))]
            b.store.append("embedding_cache", rows)
            cache.update((r["key"], r["vector"]) for r in rows)
            b.progress("embed", start + len(part), total)
        b.store.compact("embedding_cache")
    b.progress("embed", total, total)
    b.vectors = {t: {i: cache[key(x)] for i, x in items} for t, items in groups.items()}
    b.embedder_dim = len(next(iter(cache.values()))) if cache else 0


def store(b: Build) -> None:
    dim = b.embedder_dim
    zero = [0.0] * dim
    v = b.vectors
    b.store.write("documents", [asdict(d) for d in b.documents], dim)
    b.store.write(
        "chunks", [{**asdict(c), "vector": v["chunks"][c.id]} for c in b.chunks], dim
    )
    b.store.write(
        "entities",
        [{**asdict(e), "vector": v["entities"].get(e.id, zero)} for e in b.entities], dim,
    )
    b.store.write("relationships", [asdict(r) for r in b.relationships], dim)
    b.store.write("claims", [asdict(c) for c in b.claims], dim)
    b.store.write("communities", [asdict(c) for c in community_records(b)], dim)
    b.store.write(
        "community_reports",
        [
            {
                **{k: val for k, val in asdict(r).items() if k != "findings"},
                "findings_json": json.dumps([asdict(f) for f in r.findings]),
                "full_content": r.full_content,
                "vector": v["community_reports"].get(r.id, zero),
            }
            for r in b.reports
        ],
        dim,
    )
    b.store.compact("llm_calls")
    b.progress("store", 1, 1)


STAGES: list[tuple[str, Callable[[Build], None]]] = [
    ("load", load),
    ("chunk", chunk),
    ("extract", extract),
    ("summarize", summarize_elements),
    ("communities", communities),
    ("reports", reports),
    ("embed", embed),
    ("store", store),
]


def run_build(b: Build) -> dict:
    """Run every stage in order, holding the index lock; returns the build summary."""
    with BuildLock(b.store.dir):
        previous = b.store.read_manifest()
        manifest = make_manifest(b)
        changes = manifest_changes(previous, manifest)
        b.build_id = content_id(str(time.time_ns()), length=12)
        b.store.write_manifest({**manifest, "complete": False})
        for name, stage in STAGES:
            started = time.perf_counter()
            stage(b)
            b.seconds[name] = round(time.perf_counter() - started, 3)
        summary = build_summary(b, changes)
        b.store.write_manifest({**manifest, "complete": True, "summary": summary})
        return summary


# --- helpers ---------------------------------------------------------------------------


def extract_options(settings: Settings, preset: Preset) -> ExtractOptions:
    e = settings.extract
    return ExtractOptions(
        entity_types=e.entity_types, max_gleanings=e.max_gleanings,
        max_entities=e.max_entities, max_relationships=e.max_relationships,
        max_name_chars=e.max_name_chars, max_description_chars=e.max_description_chars,
        names=e.names or preset.names, grounding=e.grounding, claims=e.claims,
        max_claims=e.max_claims, claim_types=e.claim_types,
    )


def extraction_reply_tokens(opts: ExtractOptions) -> int:
    return max_reply_tokens(
        schema_of(
            extraction_model(
                opts.entity_types, opts.max_entities, opts.max_relationships,
                opts.max_name_chars, opts.max_description_chars,
            )
        )
    )


def check_chunk_budgets(
    model: ChatModel, prompts: Prompts, chunks: list[Chunk], opts: ExtractOptions
) -> None:
    """Fail before any LLM call if a chunk cannot fit: never truncate silently."""
    reply = extraction_reply_tokens(opts)
    for c in chunks:
        content = prompts.render(
            "extract_entities", entity_types=", ".join(opts.entity_types), text=c.text
        )
        need = model.prompt_tokens([{"role": "user", "content": content}])
        if need + min(reply, 256) > model.n_ctx:
            raise BudgetError(
                f"{c.path}: chunk {c.index} needs {need} model tokens with the extraction "
                f"prompt, more than the model's n_ctx={model.n_ctx} allows with room to "
                "answer; lower chunks.size in the config or raise n_ctx in the model preset"
            )


def report_budget(
    model: ChatModel, prompts: Prompts, schema_model, configured: int, max_findings: int
) -> int:
    """Context tokens a report prompt may use: n_ctx minus the prompt and the reply."""
    empty = prompts.render("community_report", context="", max_findings=str(max_findings))
    overhead = model.prompt_tokens([{"role": "user", "content": empty}])
    reply = min(max_reply_tokens(schema_of(schema_model)), model.n_ctx // 3)
    room = model.n_ctx - overhead - reply
    if room < 200:
        raise BudgetError(
            f"n_ctx={model.n_ctx} leaves only {room} tokens for community report context; "
            "raise n_ctx in the model preset or lower reports.max_findings"
        )
    return min(configured, room) if configured else room


def extraction_row(r: ChunkExtraction) -> dict:
    return {
        "chunk_id": r.chunk_id, "key": r.key, "status": r.status, "error": r.error,
        "record_json": json.dumps(asdict(r), ensure_ascii=False),
    }


def extraction_from_row(row: dict, chunk_id: str) -> ChunkExtraction:
    d = json.loads(row["record_json"])
    return ChunkExtraction(
        chunk_id=chunk_id, key=d["key"], status=d["status"], error=d["error"],
        entities=tuple(EntityRecord(**{**e, "chunk_id": chunk_id}) for e in d["entities"]),
        relationships=tuple(
            RelationshipRecord(**{**r, "chunk_id": chunk_id}) for r in d["relationships"]
        ),
        claims=tuple(ClaimRecord(**{**c, "chunk_id": chunk_id}) for c in d["claims"]),
        raw_replies=tuple(d["raw_replies"]), gleanings=d["gleanings"],
        dropped_entities=d["dropped_entities"], dropped_relationships=d["dropped_relationships"],
        dropped_claims=d["dropped_claims"],
    )


def _claim(c: ClaimRecord, names: dict[str, str]) -> Claim:
    subject = names.get(normalise(c.subject), c.subject)
    obj = names.get(normalise(c.object), c.object)
    return Claim(
        id=content_id("claim", subject, obj, c.type, c.description, c.chunk_id),
        subject=subject, object=obj, type=c.type, status=c.status,
        description=c.description, source_text=c.source_text, start_date=c.start_date,
        end_date=c.end_date, chunk_id=c.chunk_id,
    )


def _group_claims(claims: list[Claim]) -> dict[str, list[Claim]]:
    out: dict[str, list[Claim]] = {}
    for c in claims:
        out.setdefault(c.subject, []).append(c)
    return out


def _report_json(r: CommunityReport) -> dict:
    d = asdict(r)
    return {k: d[k] for k in ("status", "error", "title", "summary", "rating", "rating_explanation", "findings")}


def _report_from_json(d: dict, cluster: Cluster, key: str, context) -> CommunityReport:
    return CommunityReport(
        id=cluster.id, community_id=cluster.id, level=cluster.level, key=key,
        status=d["status"], error=d["error"], title=d["title"], summary=d["summary"],
        rating=d["rating"], rating_explanation=d["rating_explanation"],
        findings=tuple(Finding(**f) for f in d["findings"]),
        context_tokens=context.tokens, substituted=context.substituted,
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


def make_manifest(b: Build) -> dict:
    mi = b.model_info
    return {
        "version": __version__,
        "model": {
            "preset": mi.preset.name, "file": str(mi.path), "sha256": mi.sha256,
            "chat_format": mi.preset.chat_format, "n_ctx": mi.preset.n_ctx,
        },
        "prompts": {name: b.prompts.digest(name) for name in BUILD_PROMPTS},
        "tokenizer": ENCODING_NAME,
        "embedder": EMBEDDER_NAME,
        "settings": {k: v for k, v in b.settings.to_dict().items() if k != "query"},
        "seed": b.settings.seed,
        "docs_dir": str(b.docs_dir),
    }


def manifest_changes(old: dict, new: dict) -> list[str]:
    """What differs from the index's previous build, in words."""
    if not old:
        return []
    new = json.loads(json.dumps(new))  # compare as stored (tuples become lists)
    changes = []
    if old.get("model", {}).get("sha256") != new["model"]["sha256"]:
        changes.append(
            f"model changed ({old.get('model', {}).get('preset')} -> {new['model']['preset']}): "
            "extraction, summaries and reports are redone"
        )
    for name, digest in new["prompts"].items():
        if old.get("prompts", {}).get(name) != digest:
            changes.append(f"prompt '{name}' changed: the work that uses it is redone")
    for section, value in new["settings"].items():
        if old.get("settings", {}).get(section) != value:
            changes.append(f"settings [{section}] changed: dependent stages are redone")
    if old.get("embedder") != new["embedder"]:
        changes.append("embedder changed: embeddings are recomputed")
    if old.get("complete") is False:
        changes.append("previous build did not finish: resuming")
    return changes


def build_summary(b: Build, changes: list[str]) -> dict:
    by_level = Counter(c.level for c in b.clusters)
    calls = [c for _, c in b.calls]
    return {
        "documents": len(b.documents),
        "chunks": len(b.chunks),
        "entities": len(b.entities),
        "relationships": len(b.relationships),
        "claims": len(b.claims),
        "communities": len(b.clusters),
        "communities_per_level": {str(k): by_level[k] for k in sorted(by_level)},
        "reports": sum(r.status == "ok" for r in b.reports),
        "failed_chunks": b.counts["failed_chunks"],
        "failed_reports": b.counts["failed_reports"],
        "failures": b.counts["failed_chunks"] + b.counts["failed_reports"],
        "skipped_communities": b.counts["skipped_communities"],
        "dropped_entities": b.counts["dropped_entities"],
        "dropped_relationships": b.counts["dropped_relationships"],
        "dropped_claims": b.counts["dropped_claims"],
        "gleanings": b.counts["gleanings"],
        "llm_calls": len(calls),
        "llm_calls_by_stage": dict(Counter(stage for stage, _ in b.calls)),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "reused_prompt_tokens": sum(c.reused_tokens for c in calls),
        "tokens_in": sum(c.prompt_tokens - c.reused_tokens for c in calls),
        "tokens_out": sum(c.completion_tokens for c in calls),
        "llm_seconds": round(sum(c.seconds for c in calls), 3),
        "stage_seconds": dict(b.seconds),
        "wall_seconds": round(sum(b.seconds.values()), 3),
        "warnings": b.warnings,
        "changes": changes,
        "model": b.model_info.preset.name,
    }
