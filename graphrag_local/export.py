"""Exporting a finished index for other tools, in one of three formats:

- `graphrag`: the six parquet tables microsoft/graphrag's query readers load (entities,
  relationships, communities, community_reports, text_units, documents), with graphrag's
  column names, order and arrow types. Our string community ids become graphrag's integer
  community numbers, numbered in (level, id) order; `parent` is -1 at the root level.
  Relationships name their endpoints by entity title, as graphrag's do.
- `graphml`: the entity graph (nodes named by entity name) for Gephi, yEd or networkx,
  with each entity's community at every level as `community_L0`, `community_L1`, ...
- `csv`: nodes.csv, edges.csv and communities.csv with a header row, for spreadsheets and
  Neo4j `LOAD CSV WITH HEADERS`; edges name their endpoints by entity name.

Left out: vectors (graphrag keeps them in its own vector store), sentences, the work
tables, provenance spans, claims as a table of their own (graphrag's `covariates`; text
units still list their claim ids) and failed reports. Files of the same names in the
output folder are overwritten; nothing else there is touched."""

from __future__ import annotations

import csv
import json
import re
from datetime import datetime
from pathlib import Path

import pyarrow as pa

from .errors import ConfigError
from .query import load_index_data, open_index
from .schema import Community, document_from_row
from .search.common import IndexData
from .store import MANIFEST, Store

FORMATS = ("graphrag", "graphml", "csv")


def _list(t: pa.DataType) -> pa.DataType:
    return pa.list_(pa.field("element", t))


_STR, _INT, _STRS, _INTS = pa.string(), pa.int64(), _list(pa.string()), _list(pa.int64())
_FINDINGS = _list(pa.struct([("explanation", _STR), ("summary", _STR)]))

GRAPHRAG_SCHEMAS: dict[str, pa.Schema] = {
    "entities": pa.schema([
        ("id", _STR), ("human_readable_id", _INT), ("title", _STR), ("type", _STR),
        ("description", _STR), ("text_unit_ids", _STRS), ("frequency", _INT), ("degree", _INT),
    ]),
    "relationships": pa.schema([
        ("id", _STR), ("human_readable_id", _INT), ("source", _STR), ("target", _STR),
        ("description", _STR), ("weight", pa.float64()), ("combined_degree", _INT),
        ("text_unit_ids", _STRS),
    ]),
    "communities": pa.schema([
        ("id", _STR), ("human_readable_id", _INT), ("community", _INT), ("level", _INT),
        ("parent", _INT), ("children", _INTS), ("title", _STR), ("entity_ids", _STRS),
        ("relationship_ids", _STRS), ("text_unit_ids", _STRS), ("period", _STR), ("size", _INT),
    ]),
    "community_reports": pa.schema([
        ("id", _STR), ("human_readable_id", _INT), ("community", _INT), ("level", _INT),
        ("parent", _INT), ("children", _INTS), ("title", _STR), ("summary", _STR),
        ("full_content", _STR), ("rank", pa.float64()), ("rating_explanation", _STR),
        ("findings", _FINDINGS), ("full_content_json", _STR), ("period", _STR), ("size", _INT),
    ]),
    "text_units": pa.schema([
        ("id", _STR), ("human_readable_id", _INT), ("text", _STR), ("n_tokens", _INT),
        ("document_id", _STR), ("entity_ids", _STRS), ("relationship_ids", _STRS),
        ("covariate_ids", _STRS),
    ]),
    "documents": pa.schema([
        ("id", _STR), ("human_readable_id", _INT), ("title", _STR), ("text", _STR),
        ("text_unit_ids", _STRS), ("creation_date", _STR), ("raw_data", pa.null()),
    ]),
}


def export_index(index_dir: Path, fmt: str, out: Path) -> dict:
    """Write the index in `fmt` under `out` (created); returns {"format", "out", "files",
    "counts": {table: rows}}. Raises ConfigError for an unknown format, and what
    `open_index` raises for a missing or unfinished index."""
    if fmt not in FORMATS:
        raise ConfigError(f"unknown export format '{fmt}'; choose one of {', '.join(FORMATS)}")
    store, _manifest = open_index(index_dir)
    data = load_index_data(store)
    out.mkdir(parents=True, exist_ok=True)
    if fmt == "graphrag":
        built = datetime.fromtimestamp((index_dir / MANIFEST).stat().st_mtime).astimezone()
        tables = graphrag_tables(data, store, built)
        counts = {name: len(rows) for name, rows in tables.items()}
        files = [_write_parquet(out / f"{name}.parquet", rows, GRAPHRAG_SCHEMAS[name])
                 for name, rows in tables.items()]
    elif fmt == "graphml":
        files, counts = _write_graphml(data, out / "graph.graphml")
    else:
        files, counts = _write_csv(data, out)
    return {"format": fmt, "out": str(out), "files": [str(f) for f in files], "counts": counts}


# --- graphrag ------------------------------------------------------------------------------


def community_numbers(communities: list[Community]) -> dict[str, int]:
    """graphrag's integer community number of each of our community ids, in (level, id)
    order, so the root level comes first and the numbering is stable for an index."""
    ordered = sorted(communities, key=lambda c: (c.level, c.id))
    return {c.id: n for n, c in enumerate(ordered)}


def graphrag_tables(data: IndexData, store: Store, built: datetime) -> dict[str, list[dict]]:
    """The rows of graphrag's six output tables, in its column order."""
    period = built.date().isoformat()
    entities = sorted(data.entities.values(), key=lambda e: e.name)
    degree = {e.name: e.degree for e in entities}
    chunks = sorted(data.chunks.values(), key=lambda c: (c.path, c.index))

    entity_rows = [  # graphrag has no column for aliases: they end the description
        {"id": e.id, "human_readable_id": i, "title": e.name, "type": e.type,
         "description": e.description + (f"\nAlso called: {aliases_text(e)}." if e.aliases else ""),
         "text_unit_ids": list(e.chunk_ids), "frequency": len(e.chunk_ids), "degree": e.degree}
        for i, e in enumerate(entities)
    ]
    relationship_rows = [
        {"id": r.id, "human_readable_id": i, "source": r.source, "target": r.target,
         "description": r.description, "weight": float(r.weight),
         "combined_degree": degree.get(r.source, 0) + degree.get(r.target, 0),
         "text_unit_ids": list(r.chunk_ids)}
        for i, r in enumerate(data.relationships)
    ]

    number = community_numbers(data.communities)
    community_rows, position = [], {}  # position: our id -> the community's shared columns
    for c in sorted(data.communities, key=lambda c: number[c.id]):
        shared = {
            "community": number[c.id], "level": c.level,
            "parent": number[c.parent] if c.parent in number else -1,
            "children": sorted(number[x] for x in c.children if x in number),
        }
        position[c.id] = shared
        members = [data.entities[n] for n in c.entities if n in data.entities]
        community_rows.append({
            "id": c.id, "human_readable_id": number[c.id], **shared,
            "title": f"Community {number[c.id]}", "entity_ids": [e.id for e in members],
            "relationship_ids": list(c.relationship_ids),
            "text_unit_ids": sorted({x for e in members for x in e.chunk_ids}),
            "period": period, "size": len(c.entities),
        })

    report_rows = []
    for r in data.reports:
        rec = r.record
        if rec.community_id not in position:
            continue
        findings = [{"explanation": f.explanation, "summary": f.summary} for f in rec.findings]
        content = {"title": rec.title, "summary": rec.summary,
                   "findings": [{"summary": f.summary, "explanation": f.explanation}
                                for f in rec.findings],
                   "rating": float(rec.rating), "rating_explanation": rec.rating_explanation}
        report_rows.append({
            "id": rec.id, "human_readable_id": number[rec.community_id],
            **position[rec.community_id], "title": rec.title, "summary": rec.summary,
            "full_content": rec.full_content, "rank": float(rec.rating),
            "rating_explanation": rec.rating_explanation, "findings": findings,
            "full_content_json": json.dumps(content, indent=4, ensure_ascii=False),
            "period": period, "size": len(r.entities),
        })

    def ids_by_chunk(pairs) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for chunk_ids, item_id in pairs:
            for chunk_id in chunk_ids:
                out.setdefault(chunk_id, []).append(item_id)
        return out

    chunk_entities = ids_by_chunk((e.chunk_ids, e.id) for e in entities)
    chunk_relationships = ids_by_chunk((r.chunk_ids, r.id) for r in data.relationships)
    chunk_claims = ids_by_chunk(((c.chunk_id,), c.id) for c in data.claims)
    text_unit_rows = [
        {"id": c.id, "human_readable_id": i, "text": c.text, "n_tokens": c.n_tokens,
         "document_id": c.document_id, "entity_ids": chunk_entities.get(c.id, []),
         "relationship_ids": chunk_relationships.get(c.id, []),
         "covariate_ids": chunk_claims.get(c.id, [])}
        for i, c in enumerate(chunks)
    ]

    documents = sorted(map(document_from_row, store.read("documents")), key=lambda d: d.path)
    created = built.strftime("%Y-%m-%d %H:%M:%S %z")
    document_rows = [
        {"id": d.id, "human_readable_id": i, "title": d.path, "text": d.text,
         "text_unit_ids": [c.id for c in chunks if c.document_id == d.id],
         "creation_date": created, "raw_data": None}
        for i, d in enumerate(documents)
    ]
    return {
        "entities": entity_rows, "relationships": relationship_rows,
        "communities": community_rows, "community_reports": report_rows,
        "text_units": text_unit_rows, "documents": document_rows,
    }


def _write_parquet(path: Path, rows: list[dict], schema: pa.Schema) -> Path:
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


# --- graphml and csv -----------------------------------------------------------------------

# characters XML 1.0 cannot hold (control characters, e.g. form feeds from PDF text)
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub("", text)


def level_columns(data: IndexData) -> list[str]:
    return [f"community_L{level}" for level in sorted({c.level for c in data.communities})]


def aliases_text(e) -> str:
    """An entity's other names, most mentioned first: "Scrooge, Mr Scrooge"."""
    return ", ".join(a for a, _ in e.aliases)


def node_records(data: IndexData) -> list[dict]:
    """One dict per entity, by name: id, name, type, aliases, description, degree,
    community_L*."""
    columns = level_columns(data)
    rows = []
    for e in sorted(data.entities.values(), key=lambda e: e.name):
        levels = dict.fromkeys(columns, "")
        levels.update({f"community_L{lv}": cid for lv, cid in data.community_of.get(e.name, [])})
        rows.append({"id": e.id, "name": e.name, "type": e.type, "aliases": aliases_text(e),
                     "description": e.description, "degree": e.degree, **levels})
    return rows


def edge_records(data: IndexData) -> list[dict]:
    return [{"source": r.source, "target": r.target, "description": r.description,
             "weight": float(r.weight), "count": int(r.count)} for r in data.relationships]


def _write_graphml(data: IndexData, path: Path) -> tuple[list[Path], dict[str, int]]:
    import networkx as nx

    graph = nx.Graph()
    for node in node_records(data):
        attrs = {k: _xml_safe(v) if isinstance(v, str) else v
                 for k, v in node.items() if k not in ("id", "name")}
        graph.add_node(_xml_safe(node["name"]), **attrs)
    for edge in edge_records(data):
        graph.add_edge(_xml_safe(edge["source"]), _xml_safe(edge["target"]),
                       description=_xml_safe(edge["description"]), weight=edge["weight"],
                       count=edge["count"])
    nx.write_graphml(graph, path)
    return [path], {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()}


def _write_rows(path: Path, header: list[str], rows: list[dict]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    return path


def _write_csv(data: IndexData, out: Path) -> tuple[list[Path], dict[str, int]]:
    nodes, edges = node_records(data), edge_records(data)
    communities = [
        {"id": c.id, "level": c.level, "parent": c.parent, "size": len(c.entities),
         "title": report.title if report else "", "summary": report.summary if report else ""}
        for c in sorted(data.communities, key=lambda c: (c.level, c.id))
        for report in [data.report_by_community.get(c.id)]
    ]
    files = [
        _write_rows(out / "nodes.csv",
                    ["id", "name", "type", "aliases", "description", "degree",
                     *level_columns(data)], nodes),
        _write_rows(out / "edges.csv", ["source", "target", "description", "weight", "count"],
                    edges),
        _write_rows(out / "communities.csv",
                    ["id", "level", "parent", "size", "title", "summary"], communities),
    ]
    return files, {"nodes": len(nodes), "edges": len(edges), "communities": len(communities)}
