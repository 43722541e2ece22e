"""DRIFT search (microsoft/graphrag's `drift_search`): a global primer, then local
follow-ups, then one reduce.

1. Primer: the `drift_top_reports` community reports nearest the question.
2. Follow-ups, up to `drift_depth` rounds:
   - abstractive presets: the model reads the primer reports and answers with an
     intermediate answer, a 0-100 score and follow-up questions (one grammar-constrained
     reply per fold of reports); each follow-up question runs as a local search (its own
     nearest entities, their graph and texts) and answers the same way, with new
     follow-ups for the next round;
   - extractive presets: a follow-up is a local search around a key entity of a primer
     report (the members whose sentences come nearest the question); the next round
     follows the entities those sentences name. No model call.
3. Reduce: abstractive, the intermediate answers (best scored first) are written into one
   answer by the model (the global reduce prompt); extractive, the follow-ups' sentences,
   nearest the question first, no two alike, quoted under the primer report each came
   through."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..language.messages import nothing_relevant
from ..models import ChatModel
from ..models.structured import Ask, ask_many, drift_model
from ..prompts import Prompts
from ..sentences import near_duplicate
from ..settings import QuerySettings
from .common import (
    Citation,
    IndexData,
    Report,
    SearchResult,
    answer_from_context,
    budget_for,
    pack_batches,
    take_within,
    truncate_tokens,
)
from .evidence import SentenceIndex
from .extractive import Answering, Quote, finish, heading, is_heading, row_quote, short

# --- extractive ---------------------------------------------------------------------------


@dataclass
class FollowUp:
    entity: str
    report: Report  # the primer report it came through
    depth: int
    rows: list[int] = field(default_factory=list)


def key_entities(names: tuple[str, ...], sentences: SentenceIndex, q: np.ndarray, k: int,
                 skip: set[str]) -> list[tuple[str, float]]:
    """The `k` entities of `names` whose sentences come nearest the question."""
    scored = []
    for name in names:
        if name in skip:
            continue
        rows = sentences.rows_naming([name])
        if len(rows):
            scored.append((name, float(sentences.similarity(q, rows).max())))
    scored.sort(key=lambda x: (-x[1], x[0]))
    return scored[:k]


def drift_extractive(a: Answering, sentences: SentenceIndex, q: np.ndarray,
                     primer: list[Report]) -> SearchResult:
    s = a.settings
    explored: set[str] = set()
    follow: list[FollowUp] = []
    round_: list[FollowUp] = []
    for r in primer:
        for name, _ in key_entities(r.entities, sentences, q, s.drift_followups, explored):
            explored.add(name)
            round_.append(FollowUp(name, r, 1))
    for depth in range(1, s.drift_depth + 1):
        nxt: list[FollowUp] = []
        for f in round_:
            rows = sentences.rows_in_chunks_of(sentences.rows_naming([f.entity]))
            f.rows = sentences.nearest(q, s.drift_sentences, rows).tolist()
            named = {n for row in f.rows[:2] for n in sentences.entities[row]} - explored
            if depth < s.drift_depth:
                for name, _ in key_entities(tuple(sorted(named)), sentences, q, 1, explored):
                    explored.add(name)
                    nxt.append(FollowUp(name, f.report, depth + 1))
        follow += round_
        round_ = nxt
    # reduce: every follow-up's sentences, nearest first, no two alike
    through: dict[int, Report] = {}
    for f in follow:
        for row in f.rows:
            through.setdefault(row, f.report)
    rows = np.asarray(sorted(through), dtype=np.int64)
    sims = sentences.similarity(q, rows) if len(rows) else np.zeros(0)
    ranked = [int(rows[k]) for k in np.argsort(-sims, kind="stable")]
    # a cry of a word or two, or a title, last (as `extractive.choose_quotes`)
    ranked.sort(key=lambda r: is_heading(sentences.text(r)) or short(sentences.text(r)))
    near = {int(r): float(x) for r, x in zip(rows, sims)}
    chosen: list[Quote] = []
    for row in ranked:
        if len(chosen) == s.drift_quotes:
            break
        quote = row_quote(sentences, a.data, row, near[row])
        if not any(near_duplicate(quote.text, c.text) for c in chosen):
            chosen.append(quote)
    blocks = report_blocks(chosen, [through[sentences.row_of[(c.source.chunk_id, c.source.start)]]
                                    for c in chosen])
    shown = {ref for _h, ref, _q in blocks}
    cites = [a.data.report_citation(r, 1.0) for r in primer]
    cites = [Citation(c.kind, c.ref, c.id, c.title, c.detail, c.score, c.ref in shown) for c in cites]
    cites += [Citation("entity", f"E{i}", a.data.entities[f.entity].id, f.entity,
                       f"follow-up, depth {f.depth}") for i, f in enumerate(follow, 1)
              if f.entity in a.data.entities]
    result = finish("drift", a, chosen, themes=blocks, extra_citations=cites)
    result.timings["follow_ups"] = len(follow)
    return result


def report_blocks(quotes: list[Quote], reports: list[Report]) -> list[tuple[str, str, list[Quote]]]:
    """The quotes under the headings of the reports they came through (`reports[i]` is
    `quotes[i]`'s), in order of first appearance, as (heading, report ref, quotes): one block
    a heading, under the first report's ref. A community carried down a level unchanged is
    two reports of one title: Carol's "Ebenezer Scrooge, Ghost and Spirit" was two blocks."""
    blocks: dict[str, tuple[str, str, list[Quote]]] = {}
    for quote, r in zip(quotes, reports):
        blocks.setdefault(heading(r.title), (heading(r.title), r.ref, []))[2].append(quote)
    return list(blocks.values())


# --- abstractive --------------------------------------------------------------------------


@dataclass
class Node:
    question: str
    answer: str
    score: int
    refs: tuple[str, ...]
    depth: int


def drift_abstractive(
    model: ChatModel, prompts: Prompts, question: str, data: IndexData, primer: list[Report],
    local_context, embed, *, settings: QuerySettings, history=None, on_text=None,
) -> SearchResult:
    """`local_context(vector, budget) -> (text, citations)`: a local search's data for a
    follow-up question's vector; `embed(texts) -> vectors`."""
    started = time.perf_counter()
    s = settings
    calls_before = len(model.calls)
    schema = drift_model(s.drift_followups, s.map_point_chars)
    empty = prompts.render("drift_primer", question=question, data="",
                           max_followups=str(s.drift_followups))
    budget = budget_for(model, empty, 400, s.context_tokens)
    texts = [truncate_tokens(f"[{r.ref}] {r.full_content}", budget - 2, model.count_tokens)
             for r in primer]
    folds = pack_batches(texts, budget, model.count_tokens)
    asks = [Ask([{"role": "user", "content": prompts.render(
        "drift_primer", question=question, data="\n\n".join(texts[i] for i in fold),
        max_followups=str(s.drift_followups))}], schema) for fold in folds]
    nodes: list[Node] = []
    contexts: list[str] = []
    failed = 0
    pending: list[tuple[str, int]] = []
    for fold, reply in zip(folds, ask_many(model, asks, purpose="drift_primer")):
        if reply.value is None:
            failed += 1
            continue
        v = reply.value
        refs = tuple(primer[i].ref for i in fold)
        nodes.append(Node(question, v.answer.strip(), int(v.score), refs, 0))
        pending += [(f.strip(), 1) for f in v.follow_ups if f.strip()]
    cites: dict[str, Citation] = {r.ref: data.report_citation(r) for r in primer}
    asked = {question.casefold()}
    for depth in range(1, s.drift_depth + 1):
        todo = []
        for f, d in pending:
            if d == depth and f.casefold() not in asked and len(todo) < s.drift_max_followups:
                asked.add(f.casefold())
                todo.append(f)
        if not todo:
            break
        vectors = embed(todo)
        asks, refs_of = [], []
        for f, vec in zip(todo, vectors):
            empty = prompts.render("drift_followup", question=f, original=question, context="",
                                   max_followups=str(s.drift_followups))
            room = budget_for(model, empty, 400, s.context_tokens)
            context, found = local_context(vec, room)
            contexts.append(context)
            for c in found:
                cites.setdefault(c.ref, c)
            refs_of.append(tuple(c.ref for c in found))
            asks.append(Ask([{"role": "user", "content": prompts.render(
                "drift_followup", question=f, original=question, context=context,
                max_followups=str(s.drift_followups))}], schema))
        for f, refs, reply in zip(todo, refs_of, ask_many(model, asks, purpose="drift_followup")):
            if reply.value is None:
                failed += 1
                continue
            v = reply.value
            nodes.append(Node(f, v.answer.strip(), int(v.score), refs, depth))
            pending += [(x.strip(), depth + 1) for x in v.follow_ups if x.strip()]
    ranked = sorted((n for n in nodes if n.score > 0), key=lambda n: -n.score)

    def reduce_context(room: int) -> tuple[str, list[Citation]]:
        lines = [f"- (score {n.score}) {n.answer} [{', '.join(n.refs[:4])}]" for n in ranked]
        kept = max(1, take_within(lines, room, model.count_tokens)) if lines else 0
        named = {ref for n in ranked[:kept] for ref in n.refs}
        return "\n".join(lines[:kept]), [c for ref, c in cites.items() if ref in named]

    if ranked:
        result = answer_from_context(model, prompts, "global_reduce", "drift", question,
                                     reduce_context, settings=s, history=history,
                                     on_text=on_text, started=started, purpose="reduce")
    else:
        result = SearchResult(question=question, method="drift", answer="", no_answer=True)
        result.answer = nothing_relevant(question, "the primer and its follow-ups found "
                                         f"nothing helpful ({failed} replies malformed).",
                                         data.languages)
    result.context = contexts + result.context
    result.map_calls, result.failed_calls = len(folds), failed
    result.calls = list(model.calls[calls_before:])
    result.timings["follow_ups"] = len(nodes) - len(folds) + failed
    result.timings["total_seconds"] = round(time.perf_counter() - started, 3)
    return result
