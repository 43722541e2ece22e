"""Extractive element summaries: an entity's description is the sentences of the corpus
that name it, and a relationship's the sentences that name both ends; ranked, with
near-duplicates dropped, until the summary budget is full. Nothing is written: each
sentence is kept verbatim (whitespace collapsed) with its chunk and offsets.

Ranking for an entity: a sentence whose subject is the entity, by its name or any name
the text calls it by ("Mara Quill founded ...", "The Aldren Water Trust is ...",
"Scrooge never painted out Old Marley's name"), first, a defining sentence ("X is a/the
...") before others; then sentences that stand alone as statements before dialogue and
fragments (`sentences.standalone`: "'Fred!' said Scrooge." tells a reader nothing of
Fred); then sentences that relate it to more entities, shorter before longer, earlier
before later. A person known by whose kin they are ("Scrooge's niece") is no second
entity of a sentence about Scrooge: counted, the niece's harp-playing had opened
Scrooge's description. A relationship's sentences: those naming both its ends first,
statements before dialogue, then those naming fewer other entities, shorter, earlier.
No model: the 135M default model cannot rank better than this, and a summary must be
cheap to redo when a document changes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..schema import Source
from ..sentences import near_duplicate, standalone
from .ground import normalise


@dataclass(frozen=True)
class Evidence:
    source: Source
    text: str  # the sentence, whitespace collapsed
    order: tuple[int, int] = (0, 0)  # (chunk position in the corpus, offset): reading order
    names: tuple[str, ...] = ()  # the entities it names


_DEFINING = re.compile(r"^\W*(is|was|are|were|has been|,)\b", re.IGNORECASE)
_LEADING = frozenset({"the", "old", "young", "little", "poor", "mr", "mrs", "ms", "miss",
                      "master", "dr", "sir", "lady", "lord", "uncle", "aunt"})
STATEMENT = 0.6  # `standalone` at or above this: a statement, not dialogue or a fragment


def _forms(name: str, aliases: tuple[str, ...]) -> list[str]:
    """The entity's names, normalised, longest first."""
    keys = {normalise(n) for n in (name, *aliases)} - {""}
    return sorted(keys, key=lambda k: (-len(k), k))


def _subject_form(text: str, forms: list[str]) -> str | None:
    """The name `text` opens with (after "the" or a title), unless it is a possessive
    ("Scrooge's niece played ..." is about the niece)."""
    words = normalise(text).split()
    while words:
        opening = " ".join(words)
        for key in forms:
            if opening == key or opening.startswith(key + " "):
                return None if opening[len(key):].split()[:1] == ["s"] else key
        if words[0] not in _LEADING:
            return None
        words = words[1:]
    return None


def _kin_of(other: str, forms: list[str]) -> bool:
    """`other` names someone by whose kin they are of this entity ("Scrooge's niece")."""
    key = normalise(other)
    return any(key.startswith(f + " s ") for f in forms)


def entity_score(name: str, e: Evidence, forms: list[str]) -> tuple:
    """`forms`: the entity's names, normalised, longest first (`_forms`)."""
    quality = standalone(e.text)
    said = _subject_form(e.text, forms)
    subject = said is not None and quality >= STATEMENT
    found = subject and re.search(r"\W+".join(map(re.escape, said.split())), e.text, re.IGNORECASE)
    defining = bool(found and _DEFINING.match(e.text[found.end():]))
    others = len([n for n in e.names if n != name and not _kin_of(n, forms)])
    return (-subject, -defining, -round(quality, 1), -min(others, 3), len(e.text) // 40,
            e.order)


def relationship_score(e: Evidence, ends: tuple[str, ...] = ()) -> tuple:
    both = bool(ends) and all(end in e.names for end in ends)
    return (-both, -round(standalone(e.text), 1), len(e.names), len(e.text) // 40, e.order)


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


def describe_entity(name: str, evidence: list[Evidence], max_chars: int,
                    aliases: tuple[str, ...] = ()) -> tuple[str, tuple[Source, ...]]:
    """`aliases`: the other names the text calls the entity by."""
    forms = _forms(name, aliases)
    chosen = select(sorted(evidence, key=lambda e: entity_score(name, e, forms)), max_chars)
    return " ".join(e.text for e in chosen), tuple(e.source for e in chosen)


def describe_relationship(evidence: list[Evidence], max_chars: int,
                          ends: tuple[str, ...] = ()) -> tuple[str, tuple[Source, ...]]:
    """`ends`: the two entities; a sentence naming both comes first (a relationship of
    neighbouring sentences, "Fred laughed. Topper followed him.", has none)."""
    chosen = select(sorted(evidence, key=lambda e: relationship_score(e, ends)), max_chars)
    return " ".join(e.text for e in chosen), tuple(e.source for e in chosen)
