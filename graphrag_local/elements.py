"""Element descriptions and community reports, the two ways a build can make them:
from the documents' sentences (extractive content, and the fast method's descriptions),
or written by the model (abstractive content, the paper). `content.py` chooses which;
the pipeline calls them with its `Build` (they read its chunks, entities, mentions and
work caches, and save each unit of model work as it completes)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict

from .edges import Edges
from .language.messages import main_language
from .schema import Chunk, Claim, CommunityReport, Finding, Source, content_id
from .sentences import squash
from .stages.communities import Cluster
from .stages.describe import Evidence, describe_entity, describe_relationship
from .stages.findings import CommunityEvidence, extractive_report
from .stages.merge import MergedEntity, MergedRelationship, summarize_many
from .stages.reports import Elements, build_context, report_budget, write_reports
from .work import report_key, summary_key


def describe_extractively(
    b, entities: list[MergedEntity], relationships: list[MergedRelationship]
) -> list[tuple[str, tuple[Source, ...]]]:
    b.mentions = {e.name: e.sources for e in entities}
    b.evidence = read_evidence(b.chunks, b.mentions)
    budget = b.settings.summary.max_output_chars
    ev = b.evidence
    out = [describe_entity(e.name, [ev[s] for s in e.sources], budget, b.aliases.get(e.name, ()))
           for e in entities]
    out += [describe_relationship([ev[s] for s in r.sources], budget, (r.source, r.target))
            for r in relationships]
    b.progress("summarize", 1, 1)
    return out


def read_evidence(chunks: list[Chunk], mentions: dict[str, tuple[Source, ...]]
                   ) -> dict[Source, Evidence]:
    """Each sentence that names an entity, as evidence: its text, its place in reading
    order and the entities it names."""
    position = {c.id: i for i, c in enumerate(chunks)}
    text = {c.id: c.text for c in chunks}
    named: dict[Source, list[str]] = {}
    for name, sources in mentions.items():
        for s in sources:
            named.setdefault(s, []).append(name)
    return {
        s: Evidence(s, squash(text[s.chunk_id][s.start : s.end]),
                    (position[s.chunk_id], s.start), tuple(names))
        for s, names in named.items()
    }


def describe_with_model(
    b, entities: list[MergedEntity], relationships: list[MergedRelationship]
) -> list[tuple[str, tuple[Source, ...]]]:
    s = b.settings.summary
    cache = b.cache("summaries", "text")
    prompt_digest = b.prompts.digest("summarize_descriptions")
    jobs = [(e.name, e.descriptions) for e in entities] + [
        (f"{r.source}, {r.target}", r.descriptions) for r in relationships
    ]
    keys = [summary_key(b.model_info.key, name, d, prompt_digest, asdict(s)) for name, d in jobs]
    todo = [i for i, (job, key) in enumerate(zip(jobs, keys)) if len(job[1]) > 1 and key not in cache]
    step = max(1, b.model.parallel) if todo else 1
    for start in range(0, len(todo), step):  # saved as each group completes
        group = todo[start : start + step]
        texts = summarize_many(b.model, b.prompts, [jobs[i] for i in group],
                               max_input_tokens=s.max_input_tokens,
                               max_output_chars=s.max_output_chars)
        for i, text in zip(group, texts):
            cache.put(keys[i], text)
        b.log_calls("summarize")
        b.progress("summarize", start + len(group), len(todo))
    b.progress("summarize", len(todo), len(todo))
    return [(cache.get(key), ()) if len(d) > 1 else (d[0] if d else "", ())
            for (_, d), key in zip(jobs, keys)]



def extractive_reporter(b):
    """Reports chosen from the documents' sentences (no model; cheap to redo)."""
    s = b.settings.reports
    evidence = b.evidence
    edges = Edges(b.relationships)
    chunk_language = {c.id: c.language for c in b.chunks}

    def write(clusters: list[Cluster], by_id: dict, done: dict) -> dict[str, CommunityReport]:
        return {c.id: write_one(c, [by_id[k] for k in c.children], done) for c in clusters}

    def write_one(cluster: Cluster, children: list[Cluster], done: dict) -> CommunityReport:
        members = set(cluster.members)
        inside = edges.inside(members)
        degree = Counter(n for r in inside for n in (r.source, r.target))
        sentences = {
            src: evidence[src] for name in cluster.members
            for src in b.mentions.get(name, ()) if src in evidence
        }
        relating = {evidence[src].text for r in inside for src in r.sources if src in evidence}
        kept = [
            Evidence(e.source, e.text, e.order, tuple(n for n in e.names if n in members))
            for e in sentences.values()
        ]
        ev = CommunityEvidence(cluster.members, dict(degree), kept, relating)
        child_findings = [
            (c.id, Evidence(f.sources[0], f.summary, (0, 0),
                            tuple(n for n in evidence[f.sources[0]].names if n in members)))
            for c in children if c.id in done and done[c.id].status == "ok"
            for f in done[c.id].findings if f.sources and f.sources[0] in evidence
        ]
        child_summaries = [
            Evidence(r.summary_sources[0], evidence[r.summary_sources[0]].text, (0, 0),
                     tuple(n for n in evidence[r.summary_sources[0]].names if n in members))
            for c in sorted(children, key=lambda c: (-len(c.members), c.id))
            if (r := done.get(c.id)) is not None and r.status == "ok" and r.summary_sources
            and r.summary_sources[0] in evidence and len(c.members) < len(cluster.members)
        ]
        language = main_language(chunk_language.get(e.source.chunk_id, "") for e in kept)
        key = content_id("extractive-report", json.dumps(asdict(s)), *cluster.members,
                         *sorted(e.text for e in kept), *sorted(e.text for _, e in child_findings),
                         *(e.text for e in child_summaries),
                         *(() if language == "en" else (f"language {language}",)), length=24)
        return extractive_report(cluster, ev, child_findings, key,
                                 max_findings=s.max_findings, max_summary_chars=s.max_summary_chars,
                                 child_summaries=child_summaries, language=language)

    return write


def model_reporter(b):
    """Reports written by the model from the packed context (the paper)."""
    s = b.settings.reports
    cache = b.cache("report_cache")
    prompt_digest = b.prompts.digest("community_report")
    elements = Elements(
        entities={e.name: e for e in b.entities},
        relationships=b.relationships,
        claims_by_entity=group_claims(b.claims),
        degree={e.name: e.degree for e in b.entities},
    )
    budget: list[int] = []

    def write(clusters: list[Cluster], by_id: dict, done: dict) -> dict[str, CommunityReport]:
        """A level's reports: cached ones reused, the rest written together."""
        if not budget:
            budget.append(report_budget(b.model, b.prompts, s.max_input_tokens, s.max_findings,
                                        s.max_summary_chars, s.max_finding_chars))
        out: dict[str, CommunityReport] = {}
        todo = []
        for cluster in clusters:
            children = [by_id[c] for c in cluster.children]
            context = build_context(cluster, children, done, elements, b.model.count_tokens,
                                    budget[0])
            key = report_key(b.model_info.key, context.text, prompt_digest, asdict(s))
            cached = cache.get(key)
            if cached is not None:
                out[cluster.id] = report_from_json(json.loads(cached), cluster, key, context)
            else:
                todo.append((cluster, context, key))
        step = max(1, b.model.parallel)
        for start in range(0, len(todo), step):  # saved as each group completes
            group = todo[start : start + step]
            for report in write_reports(
                b.model, b.prompts, group, max_findings=s.max_findings,
                max_summary_chars=s.max_summary_chars, max_finding_chars=s.max_finding_chars,
            ):
                cache.put(report.key, json.dumps(report_json(report)))
                out[report.id] = report
            b.log_calls("reports")
        return out

    return write



def group_claims(claims: list[Claim]) -> dict[str, list[Claim]]:
    out: dict[str, list[Claim]] = {}
    for c in claims:
        out.setdefault(c.subject, []).append(c)
    return out


def report_json(r: CommunityReport) -> dict:
    d = asdict(r)
    return {k: d[k] for k in ("status", "error", "title", "summary", "rating", "rating_explanation", "findings")}


def report_from_json(d: dict, cluster: Cluster, key: str, context) -> CommunityReport:
    return CommunityReport(
        id=cluster.id, community_id=cluster.id, level=cluster.level, key=key,
        status=d["status"], error=d["error"], title=d["title"], summary=d["summary"],
        rating=d["rating"], rating_explanation=d["rating_explanation"],
        findings=tuple(Finding(f["summary"], f["explanation"]) for f in d["findings"]),
        context_tokens=context.tokens, substituted=context.substituted,
    )


