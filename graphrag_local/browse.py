"""Browsing what a build made, as plain data for `graphrag-local show`: the community
tree from the root level down with each community's report title, the reports, and an
entity with its relationships, communities and sources. Reads `IndexData` only."""

from __future__ import annotations

from typing import Any

from .errors import InputError
from .search.common import IndexData

KINDS = ("communities", "reports", "entities")


def show(data: IndexData, kind: str, name: str = "", level: int | None = None) -> dict[str, Any]:
    if kind not in KINDS:
        raise InputError(f"cannot show '{kind}'; choose one of {', '.join(KINDS)}")
    if kind == "communities":
        return {"kind": kind, "tree": community_tree(data, level, name)}
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
    return [{"name": e.name, "type": e.type, "degree": e.degree, "description": e.description}
            for e in rows]


def entity(data: IndexData, name: str) -> dict:
    e = data.entities[_entity_name(data, name)]
    rels = [
        {"source": r.source, "target": r.target, "description": r.description,
         "weight": r.weight, "count": r.count}
        for r in sorted(data.relationships, key=lambda r: (-r.weight, r.id))
        if e.name in (r.source, r.target)
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
                       "description": e.description, "relationships": rels,
                       "claims": [c.description for c in data.claims if c.subject == e.name],
                       "communities": comms, "sources": sources}}


def _entity_name(data: IndexData, name: str) -> str:
    if name in data.entities:
        return name
    folded = {n.casefold(): n for n in data.entities}
    if name.casefold() in folded:
        return folded[name.casefold()]
    close = sorted(n for n in data.entities if name.casefold() in n.casefold())[:5]
    hint = f"; did you mean: {', '.join(close)}" if close else "; `graphrag-local show entities` lists them"
    raise InputError(f"no entity named '{name}' in this index{hint}")


def _snippet(text: str, name: str, width: int = 160) -> str:
    at = text.casefold().find(name.casefold())
    start = max(0, at - width // 2) if at >= 0 else 0
    body = " ".join(text[start : start + width].split())
    return ("…" if start else "") + body + ("…" if start + width < len(text) else "")
