"""Extractive answers: the answer is the evidence, quoted. For the tiny presets (content
= "extractive") no search method lets the model write the answer; it is a short list of
sentences of the documents, each with its source, chosen for the question:

- basic: the sentences nearest the question (embeddings), the paper's SS baseline made
  extractive;
- local: the sentences that describe and relate the entities nearest the question,
  ranked by their nearness to it;
- global: the paper's map step over the community reports of one level, one finding at
  a time: the model scores each finding 0-100 for helpfulness (a choice among those
  numbers); findings scored 0 are dropped (unless that would leave too few to answer),
  the rest ranked by nearness to the question plus the score times
  `query.map_score_weight`, and quoted, at most two per report before the others. The
  weight is small by default because the tiny models' scores are near chance: measured
  on samples/facts.jsonl, SmolLM2-135M's scores separate the statements that answer a
  question from the others with an AUC of 0.49.

Optionally (`lead = true` under `[query]` in the config file) the model writes one
short lead sentence first; it is marked as the model's own words, not the documents'."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..llm import ChatModel, OnText
from ..prompts import Prompts
from ..schema import Source
from ..sentences import near_duplicate, squash
from ..settings import QuerySettings
from .common import Citation, IndexData, LoopGuard, SearchResult, followup_text

LEAD_MARK = "(model's own words, not from the documents)"
SCORES = tuple(f" {n}\n" for n in range(101))
Similarity = Callable[[list[Source]], list[float]]  # nearness of sentences to the question


@dataclass(frozen=True)
class Quote:
    text: str  # a sentence of the documents, whitespace collapsed
    source: Source
    refs: tuple[str, ...]  # the citation refs it carries (chunk ref, and report ref)
    score: float  # what ranked it (similarity, or the model's helpfulness score)


def choose_quotes(quotes: list[Quote], count: int, per_group: int = 0,
                  group: Callable[[Quote], str] = lambda q: "") -> list[Quote]:
    """The first `count` quotes (already ranked), no two alike; with `per_group`, at most
    that many from one group (a report) before the others had their turn."""
    chosen: list[Quote] = []
    taken: dict[str, int] = {}
    rest: list[Quote] = []
    for q in quotes:
        if any(near_duplicate(q.text, c.text) for c in chosen):
            continue
        if per_group and taken.get(group(q), 0) >= per_group:
            rest.append(q)
            continue
        taken[group(q)] = taken.get(group(q), 0) + 1
        chosen.append(q)
        if len(chosen) == count:
            return chosen
    for q in rest:
        if len(chosen) == count:
            break
        if not any(near_duplicate(q.text, c.text) for c in chosen):
            chosen.append(q)
    return chosen


def render(quotes: list[Quote], lead: str = "") -> str:
    lines = [f"{LEAD_MARK} {lead}", ""] if lead else []
    lines += [f"- {q.text} [{', '.join(q.refs)}]" for q in quotes]
    return "\n".join(lines)


def lead_sentence(model: ChatModel, prompts: Prompts, question: str, quotes: list[Quote],
                  max_tokens: int = 48) -> str:
    """One sentence in the model's own words, from the best quotes (marked as such)."""
    evidence = "\n".join(f"- {q.text}" for q in quotes[:3])
    prompt = prompts.render("answer_lead", evidence=evidence, question=question)
    guard = LoopGuard(window=30)
    model.complete([{"role": "user", "content": prompt}], max_tokens=max_tokens,
                   purpose="lead", on_text=guard)
    text = squash(guard.answer())
    end = min((text.find(p) for p in ".!?" if p in text), default=-1)
    return text[: end + 1] if end >= 0 else text


def sentence_quote(data: IndexData, source: Source, score: float, extra: tuple[str, ...] = ()
                   ) -> Quote:
    chunk = data.chunks[source.chunk_id]
    return Quote(squash(chunk.text[source.start : source.end]), source,
                 (*extra, data.chunk_ref[chunk.id]), score)


def answer(
    method: str,
    question: str,
    quotes: list[Quote],
    data: IndexData,
    *,
    model: ChatModel | None,
    prompts: Prompts,
    settings: QuerySettings,
    lead: bool,
    on_text: OnText | None,
    started: float,
    extra_citations: list[Citation] = (),
    level: int | None = None,
) -> SearchResult:
    """The result for ranked `quotes`: the best few, quoted with their sources."""
    result = SearchResult(question=question, method=method, answer="", level=level)
    calls_before = len(model.calls) if model is not None else 0
    chosen = choose_quotes(quotes, settings.quote_count, 2 if method == "global" else 0,
                           lambda q: q.refs[0])
    result.timings["retrieval_seconds"] = round(time.perf_counter() - started, 3)
    if not chosen:
        result.no_answer = True
        result.answer = "The index holds nothing relevant to this question: no sentence of the documents was chosen."
    else:
        text_lead = lead_sentence(model, prompts, question, chosen) if lead and model else ""
        result.answer = render(chosen, text_lead)
        result.context = [q.text for q in chosen]
        if on_text is not None:
            on_text(result.answer)
        result.timings["first_token_seconds"] = round(time.perf_counter() - started, 3)
        result.citations = _citations(chosen, data, extra_citations)
    if model is not None:
        result.calls = list(model.calls[calls_before:])
    result.timings["total_seconds"] = round(time.perf_counter() - started, 3)
    return result


def _citations(chosen: list[Quote], data: IndexData, extra: list[Citation]) -> list[Citation]:
    """Every ref the quotes carry, each once, marked cited (the answer names them all)."""
    by_ref = {c.ref: c for c in extra}
    out: dict[str, Citation] = {}
    for q in chosen:
        for ref in q.refs:
            if ref in out:
                continue
            if ref in by_ref:
                out[ref] = replace(by_ref[ref], cited=True)
            else:
                chunk = data.chunks[q.source.chunk_id]
                out[ref] = replace(data.chunk_citation(chunk, round(q.score, 3)), cited=True)
    return list(out.values())


# --- the three methods ------------------------------------------------------------------


def basic_quotes(hits: list[tuple[Source, float]], data: IndexData) -> list[Quote]:
    """The nearest sentences, best first."""
    return [sentence_quote(data, s, sim) for s, sim in hits]


def local_quotes(entities: list[str], data: IndexData, similarity: Similarity) -> list[Quote]:
    """The sentences describing the nearest entities and relating them, nearest the
    question first."""
    wanted = set(entities)
    sources: list[Source] = []
    for name in entities:
        sources += data.entities[name].sources
    for r in data.relationships:
        if r.source in wanted or r.target in wanted:
            sources += r.sources
    sources = list(dict.fromkeys(s for s in sources if s.chunk_id in data.chunks))
    scores = similarity(sources)
    ranked = sorted(zip(sources, scores), key=lambda x: -x[1])
    return [sentence_quote(data, s, sim) for s, sim in ranked]


def global_quotes(
    model: ChatModel,
    prompts: Prompts,
    question: str,
    data: IndexData,
    level: int,
    similarity: Similarity,
    settings: QuerySettings,
    history: list[tuple[str, str]] | None = None,
) -> tuple[list[Quote], list[Citation], int]:
    """Findings of the level's reports scored by the model; returns the quotes (best
    first), the report citations and the tokens of the findings the model read."""
    items: list[tuple[str, Source]] = []
    for r in (r for r in data.reports if r.level == level):
        for f in r.findings:
            items += [(r.ref, s) for s in f.sources]
        items += [(r.ref, s) for s in r.record.summary_sources]
    items = [(ref, s) for ref, s in dict.fromkeys(items) if s.chunk_id in data.chunks]
    near = similarity([s for _, s in items])
    # the model reads every finding unless there are too many: then the nearest ones
    order = sorted(range(len(items)), key=lambda i: -near[i])[: settings.map_max_statements]
    asked = followup_text(question, history or [])
    texts = [sentence_quote(data, items[i][1], 0).text for i in order]
    prompts_ = [
        prompts.render("global_map_score", question=asked, statement=t).rstrip() for t in texts
    ]
    picks = model.choose(prompts_, SCORES, purpose="map") if prompts_ else []
    read = sum(model.count_tokens(t) for t in texts)  # what the model read of the reports
    scored = list(zip(order, picks))
    if sum(p > 0 for _, p in scored) >= settings.quote_count:
        scored = [(i, p) for i, p in scored if p > 0]
    scored.sort(key=lambda x: -(near[x[0]] + settings.map_score_weight * x[1] / 100))
    quotes = [sentence_quote(data, items[i][1], float(p), (items[i][0],)) for i, p in scored]
    reports = {r.ref: r for r in data.reports}
    cites = [data.report_citation(reports[ref]) for ref in dict.fromkeys(ref for ref, _ in items)]
    return quotes, cites, read
