"""Basic search: plain vector RAG over the source chunks (the paper's "SS" baseline):
the chunks nearest the question, packed into one context, one answer. For comparison with
the graph-based methods; it sees only what resembles the question."""

from __future__ import annotations

import time

from ..llm import ChatModel, OnText
from ..prompts import Prompts
from ..schema import Chunk
from ..settings import QuerySettings
from .common import (
    Citation,
    Count,
    IndexData,
    SearchResult,
    answer_from_context,
    budget_for,
    history_block,
    truncate_tokens,
)


def basic_context(
    hits: list[tuple[Chunk, float]], data: IndexData, budget: int, count: Count
) -> tuple[str, list[Citation]]:
    """The nearest chunks, best first, as long as they fit in `budget` tokens."""
    lines: list[str] = []
    citations: list[Citation] = []
    used = 0
    for chunk, sim in hits:
        head = f"[{data.chunk_ref[chunk.id]}] ({chunk.path}, chunk {chunk.index + 1}) "
        left = budget - used - count(head) - 2
        if left < 40:
            break
        line = head + truncate_tokens(chunk.text, left, count)
        lines.append(line)
        used += count(line) + 2
        citations.append(data.chunk_citation(chunk, round(sim, 3)))
    return "\n\n".join(lines), citations


def basic_search(
    model: ChatModel,
    prompts: Prompts,
    question: str,
    data: IndexData,
    hits: list[tuple[Chunk, float]],
    *,
    settings: QuerySettings,
    history: list[tuple[str, str]] | None = None,
    on_text: OnText | None = None,
    started: float | None = None,
) -> SearchResult:
    started = started or time.perf_counter()
    calls_before = len(model.calls)
    result = SearchResult(question=question, method="basic", answer="")
    hist = history_block(history or [], settings.history_turns, 300, model.count_tokens)
    empty = prompts.render("basic_search", context="", history=hist, question=question)
    budget = budget_for(model, empty, settings.answer_max_tokens, settings.context_tokens)
    context, citations = basic_context(hits, data, budget, model.count_tokens)
    return answer_from_context(
        model, prompts, "basic_search", result, context, citations, hist, settings,
        on_text, started, calls_before,
    )
