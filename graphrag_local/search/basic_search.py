"""Basic search: plain vector RAG over the source chunks (the paper's "SS" baseline):
the chunks nearest the question, packed into one context, one answer. For comparison with
the graph-based methods; it sees only what resembles the question."""

from __future__ import annotations

from ..models import ChatModel
from ..prompts import Prompts
from ..schema import Chunk
from .common import (
    Citation,
    Count,
    IndexData,
    SearchResult,
    answer_from_context,
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
    **kwargs,
) -> SearchResult:
    """Answer from the chunks in `hits`; kwargs as `common.answer_from_context`."""
    return answer_from_context(
        model, prompts, "basic_search", "basic", question,
        lambda budget: basic_context(hits, data, budget, model.count_tokens), **kwargs,
    )
