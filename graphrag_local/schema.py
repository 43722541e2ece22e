"""Record types and table schemas, defined once. Every table the index holds is a list of
these dataclasses in memory and a pyarrow schema on disk (written by `store.py`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

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


@dataclass(frozen=True)
class EntityRecord:
    """One entity instance as extracted from one chunk."""

    name: str
    type: str
    description: str
    chunk_id: str


@dataclass(frozen=True)
class RelationshipRecord:
    source: str
    target: str
    description: str
    strength: int
    chunk_id: str


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
            [("id", _s()), ("path", _s()), ("title", _s()), ("text", _s()), ("encoding", _s())]
        ),
        "chunks": pa.schema(
            [
                ("id", _s()), ("document_id", _s()), ("path", _s()), ("index", pa.int32()),
                ("start_token", pa.int32()), ("end_token", pa.int32()), ("n_tokens", pa.int32()),
                ("text", _s()), ("vector", _vec(dim)),
            ]
        ),
        "entities": pa.schema(
            [
                ("id", _s()), ("name", _s()), ("type", _s()), ("description", _s()),
                ("chunk_ids", strs), ("degree", pa.int32()), ("vector", _vec(dim)),
            ]
        ),
        "relationships": pa.schema(
            [
                ("id", _s()), ("source", _s()), ("target", _s()), ("description", _s()),
                ("weight", pa.float64()), ("strength", pa.float64()), ("count", pa.int32()),
                ("chunk_ids", strs),
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
                ("substituted", strs), ("vector", _vec(dim)),
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
        "llm_calls": pa.schema(
            [
                ("build_id", _s()), ("stage", _s()), ("purpose", _s()), ("prompt_hash", _s()),
                ("prompt_tokens", pa.int32()), ("reused_tokens", pa.int32()),
                ("completion_tokens", pa.int32()), ("seconds", pa.float64()),
                ("finish_reason", _s()),
            ]
        ),
    }


OUTPUT_TABLES = (
    "documents", "chunks", "entities", "relationships", "claims", "communities",
    "community_reports",
)
