"""Stage 9: community reports, bottom-up, with the paper's context packing.

Leaf community: its edges in decreasing combined (source + target) degree; for each, add
the source, the target, their claims and the edge, until the token budget is reached.
Higher-level community: if all its element summaries fit, the same; otherwise rank its
sub-communities by element-summary tokens, largest first, and substitute each one's
(shorter) report for its elements until the context fits. Reports are built from the
deepest level up, so every sub-community report exists when its parent needs it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from ..edges import Edges
from ..errors import BudgetError
from ..models import ChatModel
from ..models.structured import Ask, ask_many, max_reply_tokens, report_model, schema_of
from ..prompts import Prompts
from ..schema import Claim, CommunityReport, Entity, Finding, Relationship
from .communities import Cluster


@dataclass(frozen=True)
class ReportContext:
    text: str
    tokens: int
    substituted: tuple[str, ...]


@dataclass(frozen=True)
class Elements:
    """Lookup tables the packer needs, built once per build."""

    entities: dict[str, Entity]  # by name
    relationships: list[Relationship]
    claims_by_entity: dict[str, list[Claim]]
    degree: dict[str, int]

    @cached_property
    def edges(self) -> Edges:
        return Edges(self.relationships)


def _entity_line(e: Entity) -> str:
    return f"{e.name} ({e.type}): {e.description}"


def _rel_line(r: Relationship) -> str:
    return f"{r.source} -- {r.target}: {r.description}"


def _claim_line(c: Claim) -> str:
    obj = "" if c.object == "NONE" else f" -> {c.object}"
    return f"{c.subject}{obj} [{c.type}, {c.status}]: {c.description}"


def _render(entities: list[str], rels: list[str], claims: list[str], reports: list[str]) -> str:
    parts = []
    if reports:
        parts.append("Sub-community reports:\n" + "\n\n".join(reports))
    if entities:
        parts.append("Entities:\n" + "\n".join(f"- {x}" for x in entities))
    if rels:
        parts.append("Relationships:\n" + "\n".join(f"- {x}" for x in rels))
    if claims:
        parts.append("Claims:\n" + "\n".join(f"- {x}" for x in claims))
    return "\n\n".join(parts)


def pack_elements(
    members: tuple[str, ...],
    el: Elements,
    count_tokens: Callable[[str], int],
    budget: int,
) -> tuple[list[str], list[str], list[str], int, bool]:
    """Entities, relationships and claim lines of a community, edges by decreasing combined
    degree, until `budget` tokens. Returns the lines, tokens used, and whether all fit."""
    inside = set(members)
    edges = el.edges.inside(inside)
    edges.sort(key=lambda r: (-(el.degree.get(r.source, 0) + el.degree.get(r.target, 0)), r.id))
    ent_lines: list[str] = []
    rel_lines: list[str] = []
    claim_lines: list[str] = []
    seen: set[str] = set()
    used = 0
    complete = True

    def add(lines: list[str], line: str) -> bool:
        nonlocal used
        n = count_tokens(line) + 2
        if used + n > budget:
            return False
        lines.append(line)
        used += n
        return True

    def add_entity(name: str) -> bool:
        if name in seen or name not in el.entities:
            return True
        seen.add(name)
        if not add(ent_lines, _entity_line(el.entities[name])):
            return False
        return all(add(claim_lines, _claim_line(c)) for c in el.claims_by_entity.get(name, []))

    for r in edges:
        if not (add_entity(r.source) and add_entity(r.target) and add(rel_lines, _rel_line(r))):
            complete = False
            break
    if complete:  # members without edges inside the community
        for name in sorted(inside - seen, key=lambda n: (-el.degree.get(n, 0), n)):
            if not add_entity(name):
                complete = False
                break
    return ent_lines, rel_lines, claim_lines, used, complete


def build_context(
    cluster: Cluster,
    children: list[Cluster],
    child_reports: dict[str, CommunityReport],
    el: Elements,
    count_tokens: Callable[[str], int],
    budget: int,
) -> ReportContext:
    ents, rels, claims, used, complete = pack_elements(cluster.members, el, count_tokens, budget)
    usable = [c for c in children if c.id in child_reports and child_reports[c.id].status == "ok"]
    if complete or not usable:
        text = _render(ents, rels, claims, [])
        return ReportContext(text, count_tokens(text), ())
    # Substitute sub-community reports, largest sub-community (by element tokens) first.
    sizes = {
        c.id: pack_elements(c.members, el, count_tokens, 10**9)[3] for c in usable
    }
    ranked = sorted(usable, key=lambda c: (-sizes[c.id], c.id))
    for k in range(1, len(ranked) + 1):
        subs = ranked[:k]
        report_texts = [child_reports[c.id].full_content for c in subs]
        report_tokens = sum(count_tokens(t) + 2 for t in report_texts)
        replaced = {m for c in subs for m in c.members}
        rest = tuple(m for m in cluster.members if m not in replaced)
        if report_tokens > budget:
            break
        ents, rels, claims, _, complete = pack_elements(
            rest, el, count_tokens, budget - report_tokens
        )
        if complete:
            text = _render(ents, rels, claims, report_texts)
            return ReportContext(text, count_tokens(text), tuple(c.id for c in subs))
    # Even all reports do not leave room for the rest: pack reports alone, largest first.
    texts, used, subs_ids = [], 0, []
    for c in ranked:
        t = child_reports[c.id].full_content
        n = count_tokens(t) + 2
        if used + n > budget:
            break
        texts.append(t)
        used += n
        subs_ids.append(c.id)
    text = _render([], [], [], texts)
    return ReportContext(text, count_tokens(text), tuple(subs_ids))


def write_reports(
    model: ChatModel,
    prompts: Prompts,
    jobs: list[tuple[Cluster, ReportContext, str]],
    *,
    max_findings: int,
    max_summary_chars: int,
    max_finding_chars: int,
) -> list[CommunityReport]:
    """The reports of independent communities (one level), written together: each
    (cluster, context, key) gives one report, validated, or a failed one with the reason."""
    schema_model = report_model(max_findings, max_summary_chars, max_finding_chars)
    asks = [
        Ask([{"role": "user", "content": prompts.render(
            "community_report", context=context.text, max_findings=str(max_findings))}],
            schema_model)
        for _, context, _ in jobs
    ]
    out = []
    for (cluster, context, key), reply in zip(jobs, ask_many(model, asks, purpose="report")):
        base = dict(
            id=cluster.id, community_id=cluster.id, level=cluster.level, key=key,
            context_tokens=context.tokens, substituted=context.substituted,
        )
        if reply.value is None:
            out.append(CommunityReport(status="failed", error=reply.error, **base))
            continue
        v = reply.value
        out.append(CommunityReport(
            status="ok", error="", title=v.title.strip(), summary=v.summary.strip(),
            rating=float(v.rating), rating_explanation=v.rating_explanation.strip(),
            findings=tuple(Finding(f.summary.strip(), f.explanation.strip()) for f in v.findings),
            **base,
        ))
    return out


def write_report(model: ChatModel, prompts: Prompts, cluster: Cluster, context: ReportContext,
                 key: str, **limits) -> CommunityReport:
    return write_reports(model, prompts, [(cluster, context, key)], **limits)[0]


def report_budget(
    model: ChatModel, prompts: Prompts, configured: int, max_findings: int,
    summary_chars: int, finding_chars: int,
) -> int:
    """Context tokens a report prompt may use: n_ctx minus the prompt and the reply."""
    empty = prompts.render("community_report", context="", max_findings=str(max_findings))
    overhead = model.prompt_tokens([{"role": "user", "content": empty}])
    schema = schema_of(report_model(max_findings, summary_chars, finding_chars))
    reply = min(max_reply_tokens(schema), model.n_ctx // 3)
    room = model.n_ctx - overhead - reply
    if room < 200:
        raise BudgetError(
            f"n_ctx={model.n_ctx} leaves only {room} tokens for community report context; "
            "raise n_ctx in the model preset or lower reports.max_findings"
        )
    return min(configured, room) if configured else room
