"""Stage 7: merge entity and relationship instances across chunks, and summarise the
descriptions of each element into one. Entities merge by normalised name (type kept by
majority), relationships by their (unordered) endpoint pair. Edge weight is the
normalised count of relationship instances (the paper); mean strength is kept too."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..models import ChatModel, Request
from ..prompts import Prompts
from ..schema import EntityRecord, RelationshipRecord, Source, content_id
from .ground import normalise


@dataclass(frozen=True)
class MergedEntity:
    key: str
    name: str
    type: str
    descriptions: tuple[str, ...]
    chunk_ids: tuple[str, ...]
    sources: tuple[Source, ...] = ()  # extractive: every sentence that names it


@dataclass(frozen=True)
class MergedRelationship:
    key: tuple[str, str]
    source: str
    target: str
    descriptions: tuple[str, ...]
    count: int
    strength: float
    chunk_ids: tuple[str, ...]
    sources: tuple[Source, ...] = ()


def _unique(items) -> tuple:
    return tuple(dict.fromkeys(items))


def _majority(values: list[str]) -> str:
    counts = Counter(values)
    return min(counts, key=lambda v: (-counts[v], v))


def merge_entities(records: list[EntityRecord]) -> list[MergedEntity]:
    groups: dict[str, list[EntityRecord]] = {}
    for r in records:
        groups.setdefault(normalise(r.name), []).append(r)
    out = []
    for key in sorted(groups):
        rs = groups[key]
        out.append(
            MergedEntity(
                key=key,
                name=_majority([r.name for r in rs]),
                type=_majority([r.type for r in rs]),
                descriptions=_unique(r.description for r in rs if r.description),
                chunk_ids=_unique(r.chunk_id for r in rs),
                sources=_sources(rs),
            )
        )
    return out


def _sources(records) -> tuple[Source, ...]:
    return _unique(Source(r.chunk_id, a, b) for r in records for a, b in r.spans)


def merge_relationships(
    records: list[RelationshipRecord], entities: list[MergedEntity]
) -> list[MergedRelationship]:
    names = {e.key: e.name for e in entities}
    groups: dict[tuple[str, str], list[RelationshipRecord]] = {}
    for r in records:
        a, b = normalise(r.source), normalise(r.target)
        if a == b or a not in names or b not in names:
            continue
        groups.setdefault((min(a, b), max(a, b)), []).append(r)
    out = []
    for key in sorted(groups):
        rs = groups[key]
        out.append(
            MergedRelationship(
                key=key,
                source=names[key[0]],
                target=names[key[1]],
                descriptions=_unique(r.description for r in rs if r.description),
                count=len(rs),
                strength=sum(r.strength for r in rs) / len(rs),
                chunk_ids=_unique(r.chunk_id for r in rs),
                sources=_sources(rs),
            )
        )
    return out


def entity_id(key: str) -> str:
    return content_id("entity", key)


def relationship_id(key: tuple[str, str]) -> str:
    return content_id("relationship", *key)


SUMMARY_GRAMMAR = 'root ::= [^\\n]{{1,{n}}}'


def summarize(
    model: ChatModel,
    prompts: Prompts,
    name: str,
    descriptions: tuple[str, ...],
    *,
    max_input_tokens: int,
    max_output_chars: int,
) -> str:
    """One summary of several descriptions; descriptions that exceed the input budget
    are folded in batches (each batch summarised, then the summaries summarised)."""
    if len(descriptions) == 1:
        return descriptions[0]
    # at least two per batch, so each fold round shrinks the list even for long descriptions
    batches = pack_by_tokens(list(descriptions), model.count_tokens, max_input_tokens, min_items=2)
    if len(batches) > 1:
        partial = tuple(
            summarize(
                model, prompts, name, tuple(b),
                max_input_tokens=max_input_tokens, max_output_chars=max_output_chars,
            )
            for b in batches
        )
        if len(partial) < len(descriptions):
            return summarize(
                model, prompts, name, partial,
                max_input_tokens=max_input_tokens, max_output_chars=max_output_chars,
            )
    text = "\n".join(f"- {d}" for d in descriptions)
    messages = [
        {"role": "user", "content": prompts.render("summarize_descriptions", name=name, descriptions=text)}
    ]
    reply = model.complete(
        messages,
        grammar=SUMMARY_GRAMMAR.format(n=max_output_chars),
        max_tokens=max(16, max_output_chars // 2),
        purpose="summarize",
    )
    return reply.strip() or descriptions[0]


def summarize_many(
    model: ChatModel,
    prompts: Prompts,
    jobs: list[tuple[str, tuple[str, ...]]],
    *,
    max_input_tokens: int,
    max_output_chars: int,
) -> list[str]:
    """`summarize` for independent (name, descriptions) jobs: those whose descriptions fit
    one prompt are summarised together (`complete_many`), the rest folded one by one."""
    out: list[str] = [""] * len(jobs)
    together: list[int] = []
    for i, (name, descriptions) in enumerate(jobs):
        fits = len(pack_by_tokens(list(descriptions), model.count_tokens, max_input_tokens, 2)) == 1
        if len(descriptions) > 1 and fits:
            together.append(i)
        else:
            out[i] = summarize(model, prompts, name, descriptions,
                               max_input_tokens=max_input_tokens, max_output_chars=max_output_chars)
    requests = [
        Request(
            [{"role": "user", "content": prompts.render(
                "summarize_descriptions", name=jobs[i][0],
                descriptions="\n".join(f"- {d}" for d in jobs[i][1]))}],
            SUMMARY_GRAMMAR.format(n=max_output_chars), max(16, max_output_chars // 2),
            "summarize",
        )
        for i in together
    ]
    for i, reply in zip(together, model.complete_many(requests)):
        out[i] = reply.strip() or jobs[i][1][0]
    return out


def pack_by_tokens(
    items: list[str], count_tokens: Callable[[str], int], budget: int, min_items: int = 1
) -> list[list[str]]:
    """Greedy batches of items whose token counts sum to at most `budget`; a batch holds at
    least `min_items` items even when they exceed the budget."""
    batches: list[list[str]] = []
    current: list[str] = []
    used = 0
    for item in items:
        n = count_tokens(item) + 2
        if len(current) >= min_items and used + n > budget:
            batches.append(current)
            current, used = [], 0
        current.append(item)
        used += n
    if current:
        batches.append(current)
    return batches
