"""Record types and table schemas, defined once. Every table the index holds is a list of
these dataclasses in memory and a pyarrow schema on disk (written by `store.py`); the
row codecs at the end turn one into the other.

Provenance: a `Source` is a span of one chunk's text (character offsets). In extractive
mode every stored description, summary and finding is made of such spans, and carries
them, so any statement can be traced to its place in the documents."""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left, bisect_right
from dataclasses import asdict, dataclass
from functools import cached_property

import pyarrow as pa


def content_id(*parts: str, length: int = 16) -> str:
    """Deterministic id from content: same input, same id, on every machine."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:length]


@dataclass(frozen=True)
class Document:
    id: str
    path: str  # relative to the corpus folder
    title: str
    text: str
    encoding: str
    kind: str = "text"  # "text", "markdown", "csv", "pdf", "docx", "html"
    # where each part of the text came from: (start, end, label) with labels like "p. 12"
    # (PDF pages) or "§ Heading" (DOCX, HTML and markdown headings); they tile the text
    sections: tuple[tuple[int, int, str], ...] = ()
    language: str = ""  # ISO 639-1, detected at load (`language/detect.py`) or set

    def label_at(self, offset: int, end: int | None = None) -> str:
        """The section label of `offset` ("p. 3"), or of the range up to `end` ("pp. 3-4").
        Sections tile the text in order, so each lookup is a binary search."""
        first = self._section(lambda x: x[0] <= offset < x[1], offset, right=True)
        if first is None:
            return ""
        last = (self._section(lambda x: x[0] < end <= x[1], end, right=False) or first
                if end else first)
        if last is first or not first[2].startswith("p. ") or not last[2].startswith("p. "):
            return first[2]
        return f"pp. {first[2][3:]}-{last[2][3:]}"

    def _section(self, holds, at: int, right: bool):
        """The section for which `holds` is true: the last one starting at or before `at`
        (`right`), or before it; None when there is none."""
        starts = [x[0] for x in self.sections] if len(self.sections) < 64 else self._starts
        i = (bisect_right if right else bisect_left)(starts, at) - 1
        return self.sections[i] if 0 <= i < len(self.sections) and holds(self.sections[i]) else None

    @cached_property
    def _starts(self) -> list[int]:
        return [x[0] for x in self.sections]


@dataclass(frozen=True)
class Chunk:
    id: str
    document_id: str
    path: str
    index: int  # position of the chunk within its document
    start_token: int
    end_token: int
    n_tokens: int
    text: str
    start_char: int = 0  # where `text` lies in its document's text
    end_char: int = 0
    location: str = ""  # its page(s) or section in the document ("p. 12"), when known
    language: str = ""  # its document's


@dataclass(frozen=True)
class Source:
    """A span of a chunk's text: the provenance of a stored statement."""

    chunk_id: str
    start: int  # character offsets in the chunk's text
    end: int


@dataclass(frozen=True)
class Sentence:
    """A sentence of a chunk (kept whole in the chunk that holds it whole)."""

    id: str
    chunk_id: str
    start: int
    end: int
    text: str
    entities: tuple[str, ...] = ()  # the entities it names (set once the graph is built)


@dataclass(frozen=True)
class EntityRecord:
    """One entity instance as extracted from one chunk."""

    name: str
    type: str
    description: str
    chunk_id: str
    spans: tuple[tuple[int, int], ...] = ()  # extractive: the sentences that name it


@dataclass(frozen=True)
class RelationshipRecord:
    source: str
    target: str
    description: str
    strength: int
    chunk_id: str
    spans: tuple[tuple[int, int], ...] = ()  # extractive: the sentence naming both


@dataclass(frozen=True)
class ClaimRecord:
    subject: str
    object: str
    type: str
    status: str
    description: str
    source_text: str
    start_date: str
    end_date: str
    chunk_id: str


@dataclass(frozen=True)
class ChunkExtraction:
    """What one chunk yielded (after gleaning and grounding), persisted as it completes."""

    chunk_id: str
    key: str  # hash of chunk text + model + prompts + settings: the unit of resume
    status: str  # "ok" or "failed"
    error: str
    entities: tuple[EntityRecord, ...] = ()
    relationships: tuple[RelationshipRecord, ...] = ()
    claims: tuple[ClaimRecord, ...] = ()
    raw_replies: tuple[str, ...] = ()
    gleanings: int = 0
    dropped_entities: int = 0
    dropped_relationships: int = 0
    dropped_claims: int = 0


@dataclass(frozen=True)
class Entity:
    id: str
    name: str
    type: str
    description: str
    chunk_ids: tuple[str, ...]
    degree: int = 0
    sources: tuple[Source, ...] = ()  # extractive: where each description sentence is
    aliases: tuple[tuple[str, int], ...] = ()  # its other names, with their mentions


@dataclass(frozen=True)
class Relationship:
    id: str
    source: str
    target: str
    description: str
    weight: float  # normalised count of instances (the paper)
    strength: float  # mean extracted strength 1-10
    count: int
    chunk_ids: tuple[str, ...]
    sources: tuple[Source, ...] = ()


@dataclass(frozen=True)
class Claim:
    id: str
    subject: str
    object: str
    type: str
    status: str
    description: str
    source_text: str
    start_date: str
    end_date: str
    chunk_id: str


@dataclass(frozen=True)
class Community:
    id: str
    level: int
    parent: str  # "" at level 0
    children: tuple[str, ...]
    entities: tuple[str, ...]  # entity names, sorted
    relationship_ids: tuple[str, ...]


@dataclass(frozen=True)
class Finding:
    summary: str
    explanation: str
    sources: tuple[Source, ...] = ()  # extractive: the finding is these spans, verbatim


@dataclass(frozen=True)
class CommunityReport:
    id: str  # = community id
    community_id: str
    level: int
    key: str  # hash of the report context: reports are reused when their input is unchanged
    status: str  # "ok" or "failed"
    error: str
    title: str = ""
    summary: str = ""
    rating: float = 0.0
    rating_explanation: str = ""
    findings: tuple[Finding, ...] = ()
    context_tokens: int = 0
    substituted: tuple[str, ...] = ()  # sub-communities whose reports stood in for elements
    summary_sources: tuple[Source, ...] = ()  # extractive: the summary's sentences
    rating_by: str = "model"  # "model" (chosen from 0-10) or "graph" (computed)

    @property
    def full_content(self) -> str:
        lines = [f"# {self.title}", "", self.summary, ""]
        for f in self.findings:
            lines += [f"## {f.summary}", "", f.explanation, ""]
        return "\n".join(lines).strip()


def _s() -> pa.DataType:
    return pa.string()


def _vec(dim: int) -> pa.DataType:
    return pa.list_(pa.float32(), dim)


def table_schemas(dim: int) -> dict[str, pa.Schema]:
    """pyarrow schema of each table; `dim` is the embedder's vector size."""
    strs = pa.list_(pa.string())
    return {
        "documents": pa.schema(
            [("id", _s()), ("path", _s()), ("title", _s()), ("text", _s()), ("encoding", _s()),
             ("kind", _s()), ("sections_json", _s()), ("language", _s())]
        ),
        "chunks": pa.schema(
            [
                ("id", _s()), ("document_id", _s()), ("path", _s()), ("index", pa.int32()),
                ("start_token", pa.int32()), ("end_token", pa.int32()), ("n_tokens", pa.int32()),
                ("text", _s()), ("start_char", pa.int64()), ("end_char", pa.int64()),
                ("location", _s()), ("language", _s()), ("vector", _vec(dim)),
            ]
        ),
        "sentences": pa.schema(
            [
                ("id", _s()), ("chunk_id", _s()), ("start", pa.int32()), ("end", pa.int32()),
                ("text", _s()), ("entities", strs), ("vector", _vec(dim)),
            ]
        ),
        "entities": pa.schema(
            [
                ("id", _s()), ("name", _s()), ("type", _s()), ("description", _s()),
                ("chunk_ids", strs), ("degree", pa.int32()), ("sources_json", _s()),
                ("aliases_json", _s()), ("vector", _vec(dim)),
            ]
        ),
        "relationships": pa.schema(
            [
                ("id", _s()), ("source", _s()), ("target", _s()), ("description", _s()),
                ("weight", pa.float64()), ("strength", pa.float64()), ("count", pa.int32()),
                ("chunk_ids", strs), ("sources_json", _s()),
            ]
        ),
        "claims": pa.schema(
            [
                ("id", _s()), ("subject", _s()), ("object", _s()), ("type", _s()),
                ("status", _s()), ("description", _s()), ("source_text", _s()),
                ("start_date", _s()), ("end_date", _s()), ("chunk_id", _s()),
            ]
        ),
        "communities": pa.schema(
            [
                ("id", _s()), ("level", pa.int32()), ("parent", _s()), ("children", strs),
                ("entities", strs), ("relationship_ids", strs),
            ]
        ),
        "community_reports": pa.schema(
            [
                ("id", _s()), ("community_id", _s()), ("level", pa.int32()), ("key", _s()),
                ("status", _s()), ("error", _s()), ("title", _s()), ("summary", _s()),
                ("rating", pa.float64()), ("rating_explanation", _s()),
                ("findings_json", _s()), ("full_content", _s()), ("context_tokens", pa.int32()),
                ("substituted", strs), ("summary_sources_json", _s()), ("rating_by", _s()),
                ("vector", _vec(dim)),
            ]
        ),
        # work tables: persisted as each unit completes, so a build resumes
        "extractions": pa.schema(
            [
                ("chunk_id", _s()), ("key", _s()), ("status", _s()), ("error", _s()),
                ("record_json", _s()),
            ]
        ),
        "summaries": pa.schema([("key", _s()), ("text", _s())]),
        "embedding_cache": pa.schema([("key", _s()), ("vector", pa.list_(pa.float32()))]),
        "report_cache": pa.schema([("key", _s()), ("record_json", _s())]),
        # what a writer model wrote for a query (`search/written.py`), by its request: a
        # later question giving the writer the same evidence reads it back; `sources`, the
        # sentences it was written from (`work.sentence_key`): a build keeps it while the
        # documents still say them all (`forget.py`)
        "written_cache": pa.schema([("key", _s()), ("text", _s()), ("sources", strs)]),
        "llm_calls": pa.schema(
            [
                ("build_id", _s()), ("stage", _s()), ("purpose", _s()), ("prompt_hash", _s()),
                ("prompt_tokens", pa.int32()), ("reused_tokens", pa.int32()),
                ("completion_tokens", pa.int32()), ("seconds", pa.float64()),
                ("finish_reason", _s()), ("forced_tokens", pa.int32()),
            ]
        ),
    }


OUTPUT_TABLES = (
    "documents", "chunks", "sentences", "entities", "relationships", "claims", "communities",
    "community_reports",
)


# --- row codecs: records <-> table rows ---------------------------------------------------


def sources_to_json(sources: tuple[Source, ...]) -> str:
    return json.dumps([[x.chunk_id, x.start, x.end] for x in sources])


def sources_from_json(text: str | None) -> tuple[Source, ...]:
    return tuple(Source(c, int(a), int(b)) for c, a, b in json.loads(text or "[]"))


def _plain(record, drop: tuple[str, ...] = ()) -> dict:
    return {k: v for k, v in asdict(record).items() if k not in drop}


def document_row(d: Document) -> dict:
    return {**_plain(d, ("sections",)), "sections_json": json.dumps(d.sections, ensure_ascii=False)}


def document_from_row(r: dict) -> Document:
    sections = tuple((int(a), int(b), str(c)) for a, b, c in json.loads(r.get("sections_json") or "[]"))
    return Document(r["id"], r["path"], r["title"], r.get("text", ""), r["encoding"],
                    r.get("kind") or "text", sections, r.get("language") or "")


def chunk_row(c: Chunk) -> dict:
    return _plain(c)


def chunk_from_row(r: dict) -> Chunk:
    return Chunk(**{k: r[k] for k in Chunk.__dataclass_fields__ if k in r})


def sentence_row(s: Sentence) -> dict:
    return _plain(s)


def sentence_from_row(r: dict) -> Sentence:
    return Sentence(r["id"], r["chunk_id"], r["start"], r["end"], r.get("text", ""),
                    tuple(r.get("entities") or ()))


def entity_row(e: Entity) -> dict:
    return {**_plain(e, ("sources", "aliases")), "sources_json": sources_to_json(e.sources),
            "aliases_json": json.dumps([list(a) for a in e.aliases], ensure_ascii=False)}


def entity_from_row(r: dict) -> Entity:
    return Entity(r["id"], r["name"], r["type"], r["description"], tuple(r["chunk_ids"]),
                  r["degree"], sources_from_json(r.get("sources_json")),
                  tuple((str(a), int(n)) for a, n in json.loads(r.get("aliases_json") or "[]")))


def relationship_row(r: Relationship) -> dict:
    return {**_plain(r, ("sources",)), "sources_json": sources_to_json(r.sources)}


def relationship_from_row(r: dict) -> Relationship:
    return Relationship(r["id"], r["source"], r["target"], r["description"], r["weight"],
                        r["strength"], r["count"], tuple(r["chunk_ids"]),
                        sources_from_json(r.get("sources_json")))


def community_row(c: Community) -> dict:
    return _plain(c)


def community_from_row(r: dict) -> Community:
    return Community(r["id"], r["level"], r["parent"], tuple(r["children"]),
                     tuple(r["entities"]), tuple(r["relationship_ids"]))


def findings_to_json(findings: tuple[Finding, ...]) -> str:
    return json.dumps([{"summary": f.summary, "explanation": f.explanation,
                        "sources": [[x.chunk_id, x.start, x.end] for x in f.sources]}
                       for f in findings], ensure_ascii=False)


def findings_from_json(text: str) -> tuple[Finding, ...]:
    return tuple(
        Finding(f["summary"], f["explanation"],
                tuple(Source(c, int(a), int(b)) for c, a, b in f.get("sources", [])))
        for f in json.loads(text or "[]")
    )


def report_row(r: CommunityReport) -> dict:
    row = _plain(r, ("findings", "summary_sources"))
    return {**row, "findings_json": findings_to_json(r.findings), "full_content": r.full_content,
            "summary_sources_json": sources_to_json(r.summary_sources)}


def report_from_row(r: dict) -> CommunityReport:
    return CommunityReport(
        id=r["id"], community_id=r["community_id"], level=r["level"], key=r["key"],
        status=r["status"], error=r["error"], title=r["title"], summary=r["summary"],
        rating=r["rating"], rating_explanation=r["rating_explanation"],
        findings=findings_from_json(r["findings_json"]), context_tokens=r["context_tokens"],
        substituted=tuple(r["substituted"]),
        summary_sources=sources_from_json(r.get("summary_sources_json")),
        rating_by=r.get("rating_by") or "model",
    )


def extraction_row(x: ChunkExtraction) -> dict:
    """A chunk's extraction as a work-table row (the unit of resume)."""
    return {"chunk_id": x.chunk_id, "key": x.key, "status": x.status, "error": x.error,
            "record_json": json.dumps(asdict(x), ensure_ascii=False)}


def extraction_from_row(row: dict, chunk_id: str) -> ChunkExtraction:
    d = json.loads(row["record_json"])

    def spans(r: dict) -> tuple:
        return tuple(tuple(s) for s in r.get("spans", ()))

    return ChunkExtraction(
        chunk_id=chunk_id, key=d["key"], status=d["status"], error=d["error"],
        entities=tuple(EntityRecord(**{**e, "chunk_id": chunk_id, "spans": spans(e)})
                       for e in d["entities"]),
        relationships=tuple(
            RelationshipRecord(**{**r, "chunk_id": chunk_id, "spans": spans(r)})
            for r in d["relationships"]
        ),
        claims=tuple(ClaimRecord(**{**c, "chunk_id": chunk_id}) for c in d["claims"]),
        raw_replies=tuple(d["raw_replies"]), gleanings=d["gleanings"],
        dropped_entities=d["dropped_entities"], dropped_relationships=d["dropped_relationships"],
        dropped_claims=d["dropped_claims"],
    )
