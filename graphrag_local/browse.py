"""Browsing what a build made, as plain data for `graphrag-local show`: the community
tree from the root level down with each community's report title, the reports, and an
entity with its relationships, communities and sources. Reads `IndexData` only."""

from __future__ import annotations

from typing import Any

from .errors import InputError
from .search.common import IndexData

KINDS = ("communities", "reports", "entities", "graph")


def show(data: IndexData, kind: str, name: str = "", level: int | None = None) -> dict[str, Any]:
    if kind not in KINDS:
        raise InputError(f"cannot show '{kind}'; choose one of {', '.join(KINDS)}")
    if kind == "communities":
        return {"kind": kind, "tree": community_tree(data, level, name)}
    if kind == "graph":
        return {"kind": kind, "payload": graph_payload(data, name or "graphrag-local")}
    if kind == "reports":
        return {"kind": kind, **(report(data, name) if name else {"reports": reports(data, level)})}
    return {"kind": kind, **(entity(data, name) if name else {"entities": entities(data)})}


def community_tree(data: IndexData, level: int | None = None, name: str = "") -> list[dict]:
    """Communities as nested dicts, from `level` (default the root level) down; with
    `name`, only the branches holding that entity."""
    by_id = {c.id: c for c in data.communities}
    if name:
        name = _entity_name(data, name)
    top = min((c.level for c in data.communities), default=0) if level is None else level

    def node(cid: str) -> dict:
        c = by_id[cid]
        r = data.report_by_community.get(cid)
        kids = [k for k in c.children if k in by_id and (not name or name in by_id[k].entities)]
        return {
            "id": c.id, "level": c.level, "size": len(c.entities),
            "report": r.ref if r else "", "title": r.title if r else "",
            "entities": list(c.entities), "children": [node(k) for k in sorted(kids)],
        }

    roots = sorted(
        (c for c in data.communities if c.level == top and (not name or name in c.entities)),
        key=lambda c: (-len(c.entities), c.id),
    )
    return [node(c.id) for c in roots]


def reports(data: IndexData, level: int | None = None) -> list[dict]:
    return [
        {"ref": r.ref, "id": r.id, "level": r.level, "title": r.title, "rating": r.rating,
         "size": len(r.entities)}
        for r in data.reports if level is None or r.level == level
    ]


def report(data: IndexData, ref_or_id: str) -> dict:
    for r in data.reports:
        if ref_or_id.upper() == r.ref or ref_or_id == r.id:
            return {"report": {"ref": r.ref, "id": r.id, "level": r.level, "title": r.title,
                               "rating": r.rating, "entities": list(r.entities),
                               "content": r.full_content}}
    raise InputError(
        f"no report '{ref_or_id}' in this index; `graphrag-local show reports` lists them"
    )


def entities(data: IndexData) -> list[dict]:
    rows = sorted(data.entities.values(), key=lambda e: (-e.degree, e.name))
    return [{"name": e.name, "type": e.type, "degree": e.degree, "description": e.description,
             "aliases": [a for a, _ in e.aliases]}
            for e in rows]


def entity(data: IndexData, name: str) -> dict:
    e = data.entities[_entity_name(data, name)]
    rels = [
        {"source": r.source, "target": r.target, "description": r.description,
         "weight": r.weight, "count": r.count}
        for r in sorted(data.edges.touching([e.name]), key=lambda r: (-r.weight, r.id))
    ]
    comms = []
    for level, cid in data.community_of.get(e.name, []):
        r = data.report_by_community.get(cid)
        comms.append({"level": level, "id": cid, "report": r.ref if r else "",
                      "title": r.title if r else ""})
    sources = []
    for cid in e.chunk_ids:
        c = data.chunks.get(cid)
        if c is not None:
            cite = data.chunk_citation(c)
            sources.append({"ref": cite.ref, "path": c.path, "position": cite.detail,
                            "text": _snippet(c.text, e.name)})
    return {"entity": {"name": e.name, "type": e.type, "degree": e.degree,
                       "aliases": [{"name": a, "mentions": n} for a, n in e.aliases],
                       "description": e.description, "relationships": rels,
                       "claims": [c.description for c in data.claims_about([e.name])],
                       "communities": comms, "sources": sources}}


def _entity_name(data: IndexData, name: str) -> str:
    """The entity `name` names: its own name or one of its aliases, in any case."""
    if name in data.entities:
        return name
    folded = {n.casefold(): n for n in data.entities}
    if name.casefold() in folded:
        return folded[name.casefold()]
    if name.casefold() in data.alias_of:
        return data.alias_of[name.casefold()]
    close = sorted(n for n in data.entities if name.casefold() in n.casefold())[:5]
    hint = f"; did you mean: {', '.join(close)}" if close else "; `graphrag-local show entities` lists them"
    raise InputError(f"no entity named '{name}' in this index{hint}")


def _snippet(text: str, name: str, width: int = 160) -> str:
    at = text.casefold().find(name.casefold())
    start = max(0, at - width // 2) if at >= 0 else 0
    body = " ".join(text[start : start + width].split())
    return ("…" if start else "") + body + ("…" if start + width < len(text) else "")


def graph_payload(data: IndexData, title: str) -> dict:
    """The entity graph as plain data for `graph_view.render_graph_html`: nodes with their
    description, sources and community per level; edges; communities with their report."""
    ids = {name: f"n{i}" for i, name in enumerate(sorted(data.entities))}
    nodes = []
    for name, nid in ids.items():
        e = data.entities[name]
        nodes.append({
            "id": nid, "name": name, "type": e.type, "degree": e.degree,
            "aliases": [list(a) for a in e.aliases],
            "description": e.description, "sources": _node_sources(data, e),
            "communities": {str(lv): cid for lv, cid in data.community_of.get(name, [])},
        })
    edges = [{"source": ids[r.source], "target": ids[r.target], "weight": r.weight,
              "description": r.description}
             for r in data.relationships if r.source in ids and r.target in ids]
    communities = []
    for c in sorted(data.communities, key=lambda c: (c.level, c.id)):
        r = data.report_by_community.get(c.id)
        report = None
        if r is not None:
            report = {"ref": r.ref, "summary": r.summary, "rating": r.rating,
                      "findings": [{"text": " ".join(x for x in (f.summary, f.explanation) if x),
                                    "where": _where(data, f.sources[0]) if f.sources else ""}
                                   for f in r.findings]}
        communities.append({"id": c.id, "level": c.level, "parent": c.parent,
                            "size": len(c.entities), "title": r.title if r else "",
                            "report": report})
    levels = sorted({c.level for c in data.communities})
    return {"title": title, "levels": levels, "nodes": nodes, "edges": edges,
            "communities": communities}


def _where(data: IndexData, source) -> str:
    chunk = data.chunks.get(source.chunk_id)
    if chunk is None:
        return ""
    doc = data.documents.get(chunk.document_id)
    return _place(chunk, doc.label_at(chunk.start_char + source.start) if doc
                  else chunk.location)


def _place(chunk, label: str) -> str:
    """A chunk's file, and the section `label` or else its number."""
    return f"{chunk.path}" + (f" {label}" if label else f", chunk {chunk.index + 1}")


def chunk_sources(data: IndexData, refs: list[str]) -> list[dict]:
    """Where the chunks of `refs` (S3, ...) are: their file, and section or chunk."""
    by_ref = {ref: cid for cid, ref in data.chunk_ref.items()}
    out = []
    for ref in refs:
        c = data.chunks.get(by_ref.get(ref, ""))
        if c is not None:
            out.append({"ref": ref, "where": _place(c, c.location)})
    return out


def _node_sources(data: IndexData, e, limit: int = 6) -> list[dict]:
    if e.sources:  # extractive: the sentences of its description
        return [{"ref": data.chunk_ref.get(s.chunk_id, ""), "where": _where(data, s),
                 "text": " ".join(data.chunks[s.chunk_id].text[s.start:s.end].split())}
                for s in e.sources[:limit] if s.chunk_id in data.chunks]
    out = []
    for cid in e.chunk_ids[:limit]:
        c = data.chunks.get(cid)
        if c is not None:
            out.append({"ref": data.chunk_ref[cid], "where": f"{c.path}, chunk {c.index + 1}",
                        "text": _snippet(c.text, e.name)})
    return out
