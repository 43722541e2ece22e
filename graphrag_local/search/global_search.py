"""Global search, the paper's method: map-reduce over community reports of one level.

Map: the level's reports, shuffled with a seed, are packed into contexts that fit the
model's window; each context yields up to a few points, each scored 0-100 for helpfulness
and tied to the report ids it came from (by grammar: only ids that were in that context).
Reduce: points scored 0 are dropped, the rest sorted by score and packed into one context,
and the final answer is streamed from it. If every point scored 0, no answer is invented.

`map_reduce` takes any units; `text_units` makes them from source chunks instead of
reports: the paper's TS condition (map-reduce over the source texts)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace

from ..language.messages import nothing_relevant
from ..models import ChatModel, OnText
from ..models.structured import Ask, ask_many, map_model, max_reply_tokens, schema_of
from ..prompts import Prompts
from ..settings import QuerySettings
from .common import (
    Citation,
    IndexData,
    Report,
    SearchResult,
    Unit,
    answer_from_context,
    budget_for,
    followup_text,
    pack_batches,
    take_within,
    truncate_tokens,
)

NOTHING_RELEVANT = (
    "every point the map step found in {n} {what} scored 0 for helpfulness, so no answer "
    "was written."
)

MALFORMED = (
    "No answer: all {n} map replies were malformed even after a retry, so the index could "
    "not be searched (the model may be too small for this prompt; try another preset)."
)


@dataclass(frozen=True)
class Point:
    description: str
    score: int
    sources: tuple[str, ...]
    batch: int


def report_units(reports: list[Report]) -> list[Unit]:
    return [
        Unit(r.ref, f"[{r.ref}] {r.full_content}",
             Citation("report", r.ref, r.id, r.title, f"level {r.level}"))
        for r in reports
    ]


def text_units(data: IndexData) -> list[Unit]:
    units = []
    for chunk in sorted(data.chunks.values(), key=lambda c: (c.path, c.index)):
        ref = data.chunk_ref[chunk.id]
        units.append(Unit(ref, f"[{ref}] ({chunk.path}) {chunk.text}", data.chunk_citation(chunk)))
    return units


def shuffled(units: list[Unit], seed: int) -> list[Unit]:
    """The paper shuffles reports before packing, so no context holds only one region of
    the graph; seeded, so the same question gets the same contexts."""
    order = list(units)
    random.Random(seed).shuffle(order)
    return order


def rank_points(points: list[Point]) -> list[Point]:
    """Drop points scored 0 and sort the rest by score, best first (stable). A point
    repeated word for word (small models do this across map calls) is kept once, with
    its best score and the sources of every copy."""
    merged: dict[str, Point] = {}
    for p in sorted((p for p in points if p.score > 0), key=lambda p: -p.score):
        key = " ".join(p.description.casefold().strip(" .").split())
        if key in merged:
            first = merged[key]
            merged[key] = replace(first, sources=tuple(dict.fromkeys(first.sources + p.sources)))
        else:
            merged[key] = p
    return list(merged.values())


@dataclass
class Mapped:
    """What the map step found: points from every context, and what it read."""

    points: list[Point]
    contexts: list[str]
    context_tokens: int
    calls: int
    failed: int
    seconds: float


def map_step(
    model: ChatModel, prompts: Prompts, asked: str, units: list[Unit], settings: QuerySettings,
    seed: int,
) -> Mapped:
    """The units, shuffled and packed into contexts that fit the window; each context
    answered by points with 0-100 scores and their sources (by grammar: only ids of that
    context)."""
    started = time.perf_counter()
    q = settings
    longest = max((u.ref for u in units), key=len, default="R1")
    reply_tokens = max_reply_tokens(
        schema_of(map_model((longest,) * 3, q.map_max_points, q.map_point_chars))
    )
    empty = prompts.render("global_map", max_points=str(q.map_max_points), question=asked, data="")
    budget = budget_for(model, empty, reply_tokens, q.context_tokens)
    order = shuffled(units, seed)
    texts = [truncate_tokens(u.text, budget - 2, model.count_tokens) for u in order]
    mapped = Mapped([], [], 0, 0, 0, 0.0)
    batches = pack_batches(texts, budget, model.count_tokens)
    mapped.calls = len(batches)
    asks = []
    for batch in batches:
        data = "\n\n".join(texts[i] for i in batch)
        refs = tuple(order[i].ref for i in batch)
        prompt = prompts.render(
            "global_map", max_points=str(q.map_max_points), question=asked, data=data
        )
        mapped.contexts.append(data)
        mapped.context_tokens += model.count_tokens(data)
        asks.append(Ask([{"role": "user", "content": prompt}],
                        map_model(refs, q.map_max_points, q.map_point_chars)))
    for b, reply in enumerate(ask_many(model, asks, purpose="map")):  # decoded together
        if reply.value is None:
            mapped.failed += 1
            continue
        mapped.points += [
            Point(p.description.strip(), int(p.score), tuple(dict.fromkeys(p.sources)), b)
            for p in reply.value.points
        ]
    mapped.seconds = round(time.perf_counter() - started, 3)
    return mapped


def reduce_context(
    ranked: list[Point], units: list[Unit], budget: int, count
) -> tuple[str, list[Citation]]:
    """The best points that fit `budget`, each with its score and sources, and the
    citations of the units they came from (scored by their best point)."""
    lines = [f"- (score {p.score}) {p.description} [{', '.join(p.sources)}]" for p in ranked]
    kept = max(1, take_within(lines, budget, count))
    text = "\n".join(truncate_tokens(line, budget, count) for line in lines[:kept])
    by_ref = {u.ref: u for u in units}
    best: dict[str, int] = {}
    for p in ranked[:kept]:
        for ref in p.sources:
            best[ref] = max(best.get(ref, 0), p.score)
    cites = [
        replace(by_ref[ref].citation, score=float(s))
        for ref, s in sorted(best.items(), key=lambda kv: -kv[1]) if ref in by_ref
    ]
    return text, cites


def map_reduce(
    model: ChatModel,
    prompts: Prompts,
    question: str,
    units: list[Unit],
    *,
    settings: QuerySettings,
    seed: int,
    method: str = "global",
    level: int | None = None,
    history: list[tuple[str, str]] | None = None,
    on_text: OnText | None = None,
    what: str = "community reports",
) -> SearchResult:
    started = time.perf_counter()
    calls_before = len(model.calls)
    mapped = map_step(model, prompts, followup_text(question, history or []), units,
                      settings, seed)
    ranked = rank_points(mapped.points)
    if ranked:  # reduce: one answer from the best points
        result = answer_from_context(
            model, prompts, "global_reduce", method, question,
            lambda budget: reduce_context(ranked, units, budget, model.count_tokens),
            settings=settings, history=history, on_text=on_text, started=started,
            purpose="reduce",
        )
        result.timings["reduce_seconds"] = round(result.timings["total_seconds"] - mapped.seconds, 3)
    else:
        result = SearchResult(question=question, method=method, answer="", no_answer=True)
        if mapped.failed and mapped.failed == mapped.calls:
            result.answer = MALFORMED.format(n=mapped.calls)
        else:
            result.answer = nothing_relevant(
                question, NOTHING_RELEVANT.format(n=len(units), what=what))
            if mapped.failed:
                result.answer += f" ({mapped.failed} map replies were malformed and skipped.)"
    result.level = level
    result.map_calls, result.failed_calls = mapped.calls, mapped.failed
    result.context = mapped.contexts + result.context
    result.context_tokens += mapped.context_tokens
    result.timings["map_seconds"] = mapped.seconds
    result.calls = list(model.calls[calls_before:])
    result.timings["total_seconds"] = round(time.perf_counter() - started, 3)
    return result


def global_search(
    model: ChatModel,
    prompts: Prompts,
    question: str,
    reports: list[Report],
    level: int | None,
    **kwargs,
) -> SearchResult:
    """Map-reduce over `reports`: a level's (`level`), or those dynamic community
    selection chose (`level` None)."""
    return map_reduce(
        model, prompts, question, report_units(reports), level=level, method="global", **kwargs
    )


def text_search(
    model: ChatModel, prompts: Prompts, question: str, data: IndexData, **kwargs
) -> SearchResult:
    """The paper's TS condition: map-reduce over every source chunk."""
    return map_reduce(
        model, prompts, question, text_units(data), method="ts", what="source chunks", **kwargs
    )
