"""Extractive element summaries: an entity's description is the sentences of the corpus
that name it, and a relationship's the sentences that name both ends; ranked, with
near-duplicates dropped, until the summary budget is full. Nothing is written: each
sentence is kept verbatim (whitespace collapsed) with its chunk and offsets.

Ranking for an entity: a sentence whose subject is the entity ("Mara Quill founded ...",
"The Aldren Water Trust is ...") first, a defining sentence ("X is a/the ...") before
others, then sentences that relate it to more entities, shorter before longer, earlier
before later. No model: the 135M default model cannot rank better than this, and a
summary must be cheap to redo when a document changes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..schema import Source
from ..sentences import near_duplicate
from .ground import normalise


@dataclass(frozen=True)
class Evidence:
    source: Source
    text: str  # the sentence, whitespace collapsed
    order: tuple[int, int] = (0, 0)  # (chunk position in the corpus, offset): reading order
    names: tuple[str, ...] = ()  # the entities it names


_DEFINING = re.compile(r"^\W*(is|was|are|were|has been|,)\b", re.IGNORECASE)


def entity_score(name: str, e: Evidence) -> tuple:
    text = normalise(e.text)
    key = normalise(name)
    at = text.find(key)
    subject = at in (0, 4) and (at == 0 or text.startswith("the "))
    rest = e.text[e.text.lower().find(name.lower()) + len(name):] if name.lower() in e.text.lower() else ""
    defining = bool(_DEFINING.match(rest))
    others = len([n for n in e.names if n != name])
    return (-subject, -defining, -min(others, 3), len(e.text) // 40, e.order)


def relationship_score(e: Evidence) -> tuple:
    return (len(e.names), len(e.text) // 40, e.order)


def select(ranked: list[Evidence], max_chars: int) -> list[Evidence]:
    """The best sentences, no two alike, within `max_chars`; when none fits, the
    shortest of the best few (a description is never empty while there is evidence)."""
    chosen: list[Evidence] = []
    used = 0
    for e in ranked:
        if used + len(e.text) + 1 > max_chars or any(near_duplicate(e.text, c.text) for c in chosen):
            continue
        chosen.append(e)
        used += len(e.text) + 1
    if not chosen and ranked:
        chosen = [min(ranked[:3], key=lambda e: len(e.text))]
    return chosen


def describe_entity(name: str, evidence: list[Evidence], max_chars: int) -> tuple[str, tuple[Source, ...]]:
    chosen = select(sorted(evidence, key=lambda e: entity_score(name, e)), max_chars)
    return " ".join(e.text for e in chosen), tuple(e.source for e in chosen)


def describe_relationship(evidence: list[Evidence], max_chars: int) -> tuple[str, tuple[Source, ...]]:
    chosen = select(sorted(evidence, key=relationship_score), max_chars)
    return " ".join(e.text for e in chosen), tuple(e.source for e in chosen)
