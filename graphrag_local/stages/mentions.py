"""Where entities are named, without a model: which names each sentence of a chunk holds
(longest name first, no overlaps, so "River Aldren Restoration Project" is not also a
mention of "River Aldren"), the sentences that mention each entity, and relationships
between entities named in one sentence, described by that sentence. Used by the
extractive and the fast methods; `fast_extraction` is the whole of the fast method's
extraction: candidate spans typed by their head word, linked by co-occurrence."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ..language.english import KIN
from ..language.scripts import UNSPACED
from ..schema import Chunk, ChunkExtraction, EntityRecord, RelationshipRecord, Sentence, Source
from ..sentences import is_statement, squash
from .ground import candidate_names, find_key, name_language, normalise

Span = tuple[int, int]


def names_in(text: str, names: list[str]) -> list[str]:
    """The names `text` mentions, in order of first mention; a name inside a longer
    mentioned name does not count."""
    normalised = normalise(text)
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for name in sorted(dict.fromkeys(names), key=lambda n: (-len(normalise(n)), n)):
        key = normalise(name)
        if not key:
            continue
        at = find_key(normalised, key)  # whole words; inside unspaced text
        edge = 0 if UNSPACED.search(key) else 1  # a word's span holds the spaces around it
        while at != -1:
            span = (at - edge, at + len(key) + edge)
            if not any(a < span[1] and span[0] < b for a, b in taken):
                taken.append(span)
                found.append((at, name))
                break
            at = find_key(normalised, key, at + 1)
    return [n for _, n in sorted(found)]


def sentence_names(sentences: list[Sentence], names: list[str]) -> list[list[str]]:
    """The names each sentence mentions; none for a heading or fragment (not evidence)."""
    return [names_in(s.text, names) if is_statement(s.text) else [] for s in sentences]


def mention_spans(sentences: list[Sentence], named: list[list[str]], name: str) -> tuple[Span, ...]:
    return tuple((s.start, s.end) for s, found in zip(sentences, named) if name in found)


def cooccurrence(
    sentences: list[Sentence],
    named: list[list[str]],
    chunk_id: str,
    max_per_sentence: int = 4,
) -> list[RelationshipRecord]:
    """One relationship record per pair of entities named in one sentence, per sentence,
    described by that sentence (verbatim, whitespace collapsed). A sentence naming many
    entities is a list, not a relation: only its first `max_per_sentence` count."""
    out: list[RelationshipRecord] = []
    for s, found in zip(sentences, named):
        inside = found[:max_per_sentence]
        for i, a in enumerate(inside):
            for b in inside[i + 1 :]:
                out.append(RelationshipRecord(a, b, squash(s.text), 1, chunk_id, ((s.start, s.end),)))
    return out


def entity_records(
    typed: list[tuple[str, str]], sentences: list[Sentence], chunk_id: str
) -> tuple[list[EntityRecord], list[RelationshipRecord]]:
    """Entities (name, type) of a chunk with the sentences that name them, and the
    relationships their sentences imply. A name no sentence of the chunk holds (a span
    glued across a sentence end: "Sir Roger de Coverley.' Then") is not an entity: it
    would have no description and no source."""
    names = [n for n, _ in typed]
    named = sentence_names(sentences, names)
    entities = []
    for name, type_ in typed:
        spans = mention_spans(sentences, named, name)
        if not spans:  # named only in a fragment (a piece of a long sentence, a heading)
            spans = tuple((s.start, s.end) for s in sentences if name in names_in(s.text, [name]))[:3]
        if spans:
            entities.append(EntityRecord(name, type_, "", chunk_id, spans))
    return entities, cooccurrence(sentences, named, chunk_id)


# head words that say what a name names, for the fast method (no model)
HEADS = {
    "LOCATION": {
        "river", "harbour", "harbor", "marsh", "street", "road", "city", "town", "village",
        "county", "province", "island", "islands", "mountain", "mountains", "lake", "sea",
        "ocean", "valley", "bay", "park", "square", "bridge", "district", "region", "state",
        "country", "kingdom", "republic", "hills", "forest", "coast", "port", "station",
    },
    "ORGANIZATION": {
        "company", "trust", "council", "university", "college", "school", "bank", "party",
        "association", "society", "institute", "corporation", "inc", "ltd", "group", "club",
        "committee", "ministry", "department", "agency", "foundation", "church", "army",
        "navy", "team", "band", "records", "press", "union", "board", "office", "court",
    },
    "EVENT": {
        "festival", "flood", "war", "battle", "election", "vote", "fair", "games",
        "olympics", "championship", "cup", "conference", "summit", "storm", "revolution",
        "treaty", "crisis", "strike",
    },
}
UNTYPED = "UNKNOWN"


def guess_type(name: str, entity_types: tuple[str, ...]) -> str:
    """The type a name's last word says, if it is one of `entity_types`; else UNKNOWN. A
    person known by kin ("Scrooge's nephew") is a PERSON."""
    words = normalise(name).split()
    head = words[-1] if words else ""
    if head in KIN and words[-2:-1] == ["s"] and "PERSON" in entity_types:
        return "PERSON"  # "Scrooge's nephew"
    for type_, heads in HEADS.items():
        if head in heads and type_ in entity_types:
            return type_
    return UNTYPED


def _segmenter_types(chunk: Chunk) -> dict[str, str]:
    language = name_language(chunk.text, chunk.language)
    if language not in ("zh", "ja"):
        return {}
    from ..language.names import cjk_types

    return cjk_types(chunk.text, language)


def fast_extraction(chunk: Chunk, sentences: list[Sentence], entity_types: tuple[str, ...],
                    key: str) -> ChunkExtraction:
    """The fast method: every candidate span is an entity, no model; in Chinese and
    Japanese typed by the segmenter's tag (person, place, organisation)."""
    tagged = _segmenter_types(chunk)
    typed = [(n, tagged.get(n) if tagged.get(n) in entity_types else guess_type(n, entity_types))
             for n in candidate_names(chunk.text, language=chunk.language)]
    entities, relationships = entity_records(typed, sentences, chunk.id)
    return ChunkExtraction(chunk.id, key, "ok", "", tuple(entities), tuple(relationships))


def find_mentions(sentences: list[Sentence], chunk_names: dict[str, list[str]]
                  ) -> dict[str, tuple[Source, ...]]:
    """Every sentence naming each entity, where extraction kept no sentences (abstractive
    content): `chunk_names` gives the entity names found in each chunk."""
    by_chunk: dict[str, list[Sentence]] = {}
    for s in sentences:
        by_chunk.setdefault(s.chunk_id, []).append(s)
    out: dict[str, list[Source]] = {}
    for chunk_id, names in chunk_names.items():
        mine = by_chunk.get(chunk_id, [])
        for s, found in zip(mine, sentence_names(mine, names)):
            for name in found:
                out.setdefault(name, []).append(Source(s.chunk_id, s.start, s.end))
    return {name: tuple(v) for name, v in out.items()}


def spread_names(extractions: list[ChunkExtraction], chunks: list[Chunk],
                 sentences: list[Sentence]) -> list[ChunkExtraction]:
    """In Chinese a name is a name wherever its document writes it. jieba guesses a word
    it does not know by its context and misses a name in some places: 未庄 (Weizhuang, the
    village of 阿Q正传) is written in 28 of its 56 chunks and was a candidate in 2. So a
    name that a chunk of a Chinese document yielded is also an entity of every other chunk
    of that document that writes it other than inside a longer name of the document
    (`names_in`), with
    the type the document gives it most often, and that chunk's entities and
    co-occurrences are found again with it (`entity_records`). Japanese is left alone:
    MeCab's dictionary reads names alike in every chunk, and spreading there only added
    pieces of longer names and counts (兵衛 of 権兵衛, 弥一 of 弥一右衛門, 百石 "a hundred
    koku") to the 15 most named entities of 阿部一族. Spaced scripts mark names by their
    capitals in every chunk alike; failed chunks and records that kept no sentences are
    left as they are too."""
    by_chunk: dict[str, list[Sentence]] = {}
    for s in sentences:
        by_chunk.setdefault(s.chunk_id, []).append(s)
    chinese = {c.id: c for c in chunks if name_language(c.text, c.language) == "zh"}
    types: dict[str, Counter] = {}  # document id -> Counter of (name, type)
    for r in extractions:
        c = chinese.get(r.chunk_id)
        if c is not None and r.status == "ok":
            types.setdefault(c.document_id, Counter()).update((e.name, e.type) for e in r.entities)
    typed_in: dict[str, dict[str, str]] = {}
    for doc, counts in types.items():
        best: dict[str, str] = {}
        for (name, type_), _n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            best.setdefault(name, type_)
        typed_in[doc] = best
    out = []
    for r in extractions:
        c = chinese.get(r.chunk_id)
        if c is None or r.status != "ok" or any(not e.spans for e in r.entities):
            out.append(r)
            continue
        have = {e.name for e in r.entities}
        doc_types = typed_in.get(c.document_id, {})
        more = [(n, doc_types[n]) for n in names_in(c.text, list(doc_types)) if n not in have]
        if not more:
            out.append(r)
            continue
        typed = [(e.name, e.type) for e in r.entities] + more
        entities, relationships = entity_records(typed, by_chunk.get(c.id, []), c.id)
        out.append(replace(r, entities=tuple(entities), relationships=tuple(relationships)))
    return out


def names_by_sentence(mentions: dict[str, tuple[Source, ...]]) -> dict[tuple[str, int], tuple[str, ...]]:
    """(chunk id, start) of each sentence -> the entity names it names, sorted."""
    out: dict[tuple[str, int], list[str]] = {}
    for name, sources in mentions.items():
        for s in sources:
            out.setdefault((s.chunk_id, s.start), []).append(name)
    return {k: tuple(sorted(set(v))) for k, v in out.items()}


def neighbour_relations(entities: list[EntityRecord], sentences: list[Sentence],
                        max_per_sentence: int = 2) -> list[RelationshipRecord]:
    """Relationships between entities named in two consecutive sentences of a chunk
    (narrative text names one actor per sentence more often than two: "Fred laughed.
    Topper followed him."), described by the two sentences, each verbatim. Only
    sentences naming at most `max_per_sentence` entities count: a list is no relation.
    Built after aliases are resolved, from the records' sentence spans."""
    by_chunk: dict[str, list[Sentence]] = {}
    for s in sentences:
        by_chunk.setdefault(s.chunk_id, []).append(s)
    named: dict[tuple[str, int], set[str]] = {}
    for e in entities:
        for start, _end in e.spans:
            named.setdefault((e.chunk_id, start), set()).add(e.name)
    out: list[RelationshipRecord] = []
    for chunk_id, mine in by_chunk.items():
        for s1, s2 in zip(mine, mine[1:]):
            a, b = named.get((chunk_id, s1.start), set()), named.get((chunk_id, s2.start), set())
            if not a or not b or len(a) > max_per_sentence or len(b) > max_per_sentence:
                continue
            text = squash(s1.text) + " " + squash(s2.text)
            for x in sorted(a):
                for y in sorted(b - a):
                    if normalise(x) != normalise(y):
                        out.append(RelationshipRecord(x, y, text, 1, chunk_id,
                                                      ((s1.start, s1.end), (s2.start, s2.end))))
    return out
