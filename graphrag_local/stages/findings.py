"""Extractive community reports: what a community's documents say, chosen from them.

The candidates are the community's evidence sentences (the sentences describing its
members, and the sentences that relate two of its members) and, for a community with
sub-communities, the findings of their reports. Each sentence scores by the members it
names, weighted by their degree inside the community, with a bonus for relating two of
them; a member already covered by a chosen sentence counts half as much again, so the
findings spread over the community instead of repeating its hub. Near-duplicates are
never chosen twice. The title is the community's key entity names; the summary is its
best one or two sentences; the rating is computed from the graph (how much the
documents say about the community), and says so. No model writes or rates anything
here: every stored sentence is a sentence of the corpus with its source."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..language.messages import joined, more
from ..schema import CommunityReport, Finding
from ..sentences import near_duplicate, standalone
from .communities import Cluster
from .describe import Evidence


@dataclass(frozen=True)
class CommunityEvidence:
    members: tuple[str, ...]
    degree: dict[str, int]  # degree of each member inside the community
    sentences: list[Evidence]  # each with the member names it holds (`names`)
    relating: set[str]  # texts of sentences that relate two members


def title_of(members: tuple[str, ...], degree: dict[str, int], max_names: int = 3,
             language: str = "en") -> str:
    """The community's most connected names, a list in its documents' `language`
    ("Phileas Fogg, Passepartout et Fix (+12)")."""
    top = sorted(members, key=lambda m: (-degree.get(m, 0), m))[:max_names]
    rest = len(members) - len(top)
    return joined(top, language) + (more(rest, language) if rest else "")


def pick(ev: CommunityEvidence, count: int, max_chars: int = 320) -> list[Evidence]:
    """Up to `count` sentences that together say the most about the community."""
    weight = {m: 1.0 + math.log1p(ev.degree.get(m, 0)) for m in ev.members}
    pool = [e for e in ev.sentences if e.names and len(e.text) <= max_chars]
    chosen: list[Evidence] = []
    while pool and len(chosen) < count:
        def score(e: Evidence) -> tuple:
            gain = math.fsum(weight.get(n, 0.0) for n in set(e.names))  # exact: no order
            gain = (gain + (1.0 if e.text in ev.relating else 0.0)) * standalone(e.text)
            return (-gain, len(e.text), e.order)

        best = min(pool, key=score)
        if -score(best)[0] <= 0:
            break
        chosen.append(best)
        for n in set(best.names):
            weight[n] = weight.get(n, 0.0) / 2
        pool = [e for e in pool if e is not best and not near_duplicate(e.text, best.text)]
    return chosen


def graph_rating(ev: CommunityEvidence) -> float:
    """0-10 from how much the documents say about the community: log2 of its distinct
    evidence sentences, scaled (1 sentence -> 1.5, 20 -> 6.6, 100 -> 10)."""
    return float(min(10, round(1.5 * math.log2(1 + len({e.text for e in ev.sentences})))))


def extractive_report(
    cluster: Cluster,
    ev: CommunityEvidence,
    child_findings: list[tuple[str, Evidence]],
    key: str,
    *,
    max_findings: int,
    max_summary_chars: int,
    child_summaries: list[Evidence] = (),
    language: str = "en",
) -> CommunityReport:
    """The report of `cluster`; `child_findings`: (sub-community id, finding) of its
    sub-communities' reports, candidates alongside its own sentences; `child_summaries`:
    the first summary sentence of each sub-community, largest first: a community with
    sub-communities is summed up by theirs (it summarises its whole subtree); `language`:
    its documents', the title's list is in."""
    from_child = {e.text: cid for cid, e in child_findings}
    candidates = CommunityEvidence(
        ev.members, ev.degree, ev.sentences + [e for _, e in child_findings], ev.relating
    )
    chosen = pick(candidates, max_findings + 2)
    summary: list[Evidence] = []
    for e in list(child_summaries[:2]) + chosen[:2]:
        if len(summary) == 2 or any(near_duplicate(e.text, s.text) for s in summary):
            continue
        if not summary or sum(len(s.text) + 1 for s in summary) + len(e.text) <= max_summary_chars:
            summary.append(e)
    rest = [e for e in chosen if e not in summary
            and not any(near_duplicate(e.text, s.text) for s in summary)][:max_findings]
    rest = rest or summary[-1:]
    n_rel = len(ev.relating)
    return CommunityReport(
        id=cluster.id, community_id=cluster.id, level=cluster.level, key=key, status="ok",
        error="", title=title_of(ev.members, ev.degree, language=language),
        summary=" ".join(e.text for e in summary),
        rating=graph_rating(ev), rating_by="graph",
        rating_explanation=(
            f"computed from the graph, not judged by a model: {len(ev.members)} entities, "
            f"{n_rel} relating sentences, {len({e.text for e in ev.sentences})} source sentences"
        ),
        findings=tuple(Finding(e.text, "", (e.source,)) for e in rest),
        summary_sources=tuple(e.source for e in summary),
        substituted=tuple(sorted({from_child[e.text] for e in chosen if e.text in from_child})),
    )
