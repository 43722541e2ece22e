"""Local search: the entities nearest the question (by embedding), then what the graph
holds around them: their relationships and claims, the reports of their communities and
the source chunks that mention them, each section packed within its share of the
budget. Answers questions about specific things; global search answers the whole."""

from __future__ import annotations

from ..models import ChatModel
from ..prompts import Prompts
from ..schema import Entity
from ..settings import QuerySettings
from .common import (
    Citation,
    Count,
    IndexData,
    SearchResult,
    answer_from_context,
    take_within,
    truncate_tokens,
)


def local_context(
    hits: list[tuple[Entity, float]],
    data: IndexData,
    budget: int,
    settings: QuerySettings,
    count: Count,
) -> tuple[str, list[Citation]]:
    """The data tables for `hits` (entities, best first) within `budget` tokens: entities,
    relationships and claims share what the text and report shares leave; what a section
    leaves unused passes to the next (entities -> reports -> text)."""
    names = [e.name for e, _ in hits]
    rank = {n: i for i, n in enumerate(names)}
    citations: list[Citation] = []
    sections: list[str] = []

    # entities, then their relationships and claims
    graph_budget = int(budget * (1 - settings.local_text_share - settings.local_report_share))
    lines = [f"[E{i}] {e.name} ({e.type}): {e.description}" for i, (e, _) in enumerate(hits, 1)]
    n = take_within(lines, graph_budget, count)
    for i, (e, sim) in enumerate(hits[:n], 1):
        citations.append(Citation("entity", f"E{i}", e.id, e.name, e.type, round(sim, 3)))
    used = sum(count(x) + 1 for x in lines[:n])
    graph_lines = ["-Entities-", *lines[:n]]
    inside = set(names[:n])
    rels = data.edges.touching(inside)
    rels.sort(key=lambda r: (-(r.source in inside and r.target in inside), -r.weight,
                             min(rank.get(r.source, 99), rank.get(r.target, 99)), r.id))
    rel_lines = [f"{r.source} -> {r.target}: {r.description}" for r in rels]
    claim_lines = [
        f"{c.subject} -> {c.object} [{c.type}, {c.status}]: {c.description}"
        for c in data.claims_about(inside)
    ]
    for title, extra in (("-Relationships-", rel_lines), ("-Claims-", claim_lines)):
        k = take_within(extra, graph_budget - used - count(title), count)
        if k:
            graph_lines += [title, *extra[:k]]
            used += count(title) + sum(count(x) + 1 for x in extra[:k])
    sections.append("\n".join(graph_lines))

    # reports of the communities the entities belong to
    report_budget = int(budget * settings.local_report_share) + max(0, graph_budget - used)
    matched: dict[str, set[str]] = {}
    for name in names[:n]:
        for _level, cid in data.community_of.get(name, []):
            if cid in data.report_by_community:
                matched.setdefault(cid, set()).add(name)
    reports = sorted(
        (data.report_by_community[cid] for cid in matched),
        key=lambda r: (-len(matched[r.id]), -r.level, -r.rating, r.id),
    )
    seen, report_lines, chosen = set(), [], []
    for r in reports:
        if r.full_content not in seen:  # a community carried to the next level repeats
            seen.add(r.full_content)
            report_lines.append(f"[{r.ref}] {r.title}: {r.summary}")
            chosen.append(r)
    k = take_within(report_lines, report_budget - 2, count)
    if k:
        sections.append("\n".join(["-Reports-", *report_lines[:k]]))
        citations += [data.report_citation(r, float(len(matched[r.id]))) for r in chosen[:k]]
    used_reports = sum(count(x) + 1 for x in report_lines[:k])

    # source chunks that mention the entities, those of the best entities first
    text_budget = budget - used - used_reports - 8
    mentions: dict[str, list[str]] = {}
    for name in names[:n]:
        for cid in data.entities[name].chunk_ids:
            mentions.setdefault(cid, []).append(name)
    order = sorted(
        (cid for cid in mentions if cid in data.chunks),
        key=lambda cid: (min(rank[x] for x in mentions[cid]), -len(mentions[cid]), cid),
    )
    text_lines: list[str] = []
    for cid in order:
        chunk = data.chunks[cid]
        head = f"[{data.chunk_ref[cid]}] ({chunk.path}, chunk {chunk.index + 1}) "
        left = text_budget - sum(count(x) + 1 for x in text_lines) - count(head) - 4
        if left < 40:
            break
        text_lines.append(head + truncate_tokens(chunk.text, left, count))
        citations.append(data.chunk_citation(chunk, float(len(mentions[cid]))))
    if text_lines:
        sections.append("\n".join(["-Sources-", *text_lines]))
    return "\n\n".join(sections), citations


def local_search(
    model: ChatModel,
    prompts: Prompts,
    question: str,
    data: IndexData,
    hits: list[tuple[Entity, float]],
    **kwargs,
) -> SearchResult:
    """Answer from the graph around `hits`; kwargs as `common.answer_from_context`."""
    settings = kwargs["settings"]
    return answer_from_context(
        model, prompts, "local_search", "local", question,
        lambda budget: local_context(hits, data, budget, settings, model.count_tokens), **kwargs,
    )
