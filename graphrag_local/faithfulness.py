"""How much of what an index stores can be found in its documents.

Every sentence of the stored entity descriptions, relationship descriptions, report
summaries and findings is looked up in the corpus: verbatim (the same words in the same
order, whitespace aside) or near-verbatim (at least 80% of its word trigrams occur in
the corpus). Names and numbers that occur nowhere in the corpus are listed (invented
places, dates, amounts). Within each report, findings that say the same thing twice are
counted, and so are findings that carry no source. Sources themselves are checked: the
span a source points to must be text the statement holds.

Used by the build (a line in its summary; in extractive mode any breach is a bug and is
reported as one) and by `graphrag-local eval faithfulness`. It trusts nothing the build
recorded about provenance: the corpus text is the only reference."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from .schema import Chunk, CommunityReport, Document, Entity, Relationship, Source
from .sentences import near_duplicate, split_sentences, squash


def _trigram_hashes(words: list[str]) -> np.ndarray:
    """A 64-bit hash per word trigram (wrapping arithmetic; collisions are negligible)."""
    h = np.fromiter((hash(w) for w in words), dtype=np.int64, count=len(words)).view(np.uint64)
    if len(h) < 3:
        return np.zeros(0, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return h[:-2] * np.uint64(1_000_003) ** 2 + h[1:-1] * np.uint64(1_000_003) + h[2:]


def _corpus_trigrams(documents: list[Document], window: int = 100_000) -> np.ndarray:
    """Every lower-cased word trigram of the documents as sorted unique hashes, read in
    windows of words so that no list of millions of strings is held at once."""
    parts = []
    for d in documents:
        words: list[str] = []
        for m in _TOKEN.finditer(d.text):
            words.append(m.group().lower())
            if len(words) >= window:
                parts.append(_trigram_hashes(words))
                words = words[-2:]
        parts.append(_trigram_hashes(words))
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.uint64)


_ANY_END = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…]['\"’”)\]])) (?=\S)")
FIELDS = ("entity_descriptions", "relationship_descriptions", "report_summaries", "findings")
_TOKEN = re.compile(r"[A-Za-zÀ-ÿ][\w'’-]*|\d[\d,.]*\d|\d")


class Corpus:
    """The documents' text, indexed for lookups. Word trigrams are kept as a sorted array
    of 64-bit hashes (8 bytes each; a set of tuples of strings takes ~200), built on the
    first near-verbatim lookup: a 10 MB document has two million of them."""

    def __init__(self, documents: list[Document]):
        self.documents = documents
        self.sentences: set[str] = set()
        self.text = "\n".join(squash(d.text) for d in documents)
        self.tokens: set[str] = set()
        for d in documents:
            self.sentences.update(squash(d.text[a:b]) for a, b in split_sentences(d.text))
            self.tokens.update(m.group() for m in _TOKEN.finditer(d.text))
        self._lower_tokens: set[str] | None = None
        self._trigrams: np.ndarray | None = None

    def verbatim(self, sentence: str) -> bool:
        s = squash(sentence)
        if s in self.sentences or s in self.text:
            return True
        # statements stored one after another where the second starts in lower case (the
        # rest of a long sentence cut at a clause) read back as one: each part must be there
        parts = [p for p in _ANY_END.split(s) if p]
        return len(parts) > 1 and all(p in self.sentences or p in self.text for p in parts)

    def near(self, sentence: str) -> bool:
        words = [t.lower() for t in _TOKEN.findall(sentence)]
        if len(words) < 3:
            if self._lower_tokens is None:
                self._lower_tokens = {t.lower() for t in self.tokens}
            return bool(words) and all(w in self._lower_tokens for w in words)
        grams = _trigram_hashes(words)
        if self._trigrams is None:
            self._trigrams = _corpus_trigrams(self.documents)
        at = np.searchsorted(self._trigrams, grams).clip(max=max(len(self._trigrams) - 1, 0))
        found = self._trigrams[at] == grams if len(self._trigrams) else np.zeros(len(grams), bool)
        return found.sum() / len(grams) >= 0.8

    def unknown_tokens(self, sentence: str) -> list[str]:
        """Capitalised words and numbers of `sentence` that occur nowhere in the corpus."""
        out = []
        for t in _TOKEN.findall(sentence):
            if (t[0].isupper() or t[0].isdigit()) and t not in self.tokens:
                out.append(t)
        return out


def statements(entities: list[Entity], relationships: list[Relationship],
               reports: list[CommunityReport],
               chunk_text: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Every stored sentence, by field. A text stored with its sources (extractive) is
    read as the pieces its sources point at when it is exactly those pieces, one after
    another: a piece of a long sentence (cut at a clause, ending with a comma) would
    otherwise read back glued to the next statement. Each piece is then looked up in the
    corpus like any sentence, so nothing is taken on trust."""
    chunk_text = chunk_text or {}

    def sentences(text: str, sources: tuple[Source, ...] = ()) -> list[str]:
        pieces = [squash(chunk_text[x.chunk_id][x.start : x.end]) for x in sources
                  if x.chunk_id in chunk_text]
        if pieces and len(pieces) == len(sources) and " ".join(pieces) == squash(text):
            return pieces
        return [squash(text[a:b]) for a, b in split_sentences(text)]

    ok = [r for r in reports if r.status == "ok"]
    return {
        "entity_descriptions": [s for e in entities for s in sentences(e.description, e.sources)],
        "relationship_descriptions": [s for r in relationships
                                      for s in sentences(r.description, r.sources)],
        "report_summaries": [s for r in ok for s in sentences(r.summary, r.summary_sources)],
        "findings": [s for r in ok for f in r.findings
                     for s in sentences(f.summary, f.sources) + sentences(f.explanation)],
    }


def check(
    documents: list[Document],
    chunks: list[Chunk],
    entities: list[Entity],
    relationships: list[Relationship],
    reports: list[CommunityReport],
    *,
    examples: int = 5,
) -> dict:
    corpus = Corpus(documents)
    by_field = statements(entities, relationships, reports, {c.id: c.text for c in chunks})
    fields: dict[str, dict] = {}
    unknown: Counter = Counter()
    misses: list[str] = []
    for field in FIELDS:
        items = by_field[field]
        is_verbatim = [corpus.verbatim(s) for s in items]
        verbatim = [s for s, v in zip(items, is_verbatim) if v]
        is_near = [not v and corpus.near(s) for s, v in zip(items, is_verbatim)]
        near = [s for s, n in zip(items, is_near) if n]
        misses += [s for s, v, n in zip(items, is_verbatim, is_near) if not v and not n]
        for s in items:
            unknown.update(corpus.unknown_tokens(s))
        fields[field] = {
            "sentences": len(items),
            "verbatim": len(verbatim),
            "near_verbatim": len(near),
            "traceable_share": round((len(verbatim) + len(near)) / len(items), 4) if items else 1.0,
            "verbatim_share": round(len(verbatim) / len(items), 4) if items else 1.0,
        }
    total = sum(f["sentences"] for f in fields.values())
    ok_reports = [r for r in reports if r.status == "ok"]
    duplicated = sum(
        1
        for r in ok_reports
        for i, f in enumerate(r.findings)
        if any(near_duplicate(f.summary + " " + f.explanation, g.summary + " " + g.explanation)
               for g in r.findings[:i])
    )
    findings = [f for r in ok_reports for f in r.findings]
    return {
        "sentences": total,
        "verbatim": sum(f["verbatim"] for f in fields.values()),
        "near_verbatim": sum(f["near_verbatim"] for f in fields.values()),
        "traceable_share": round(
            sum(f["verbatim"] + f["near_verbatim"] for f in fields.values()) / total, 4
        ) if total else 1.0,
        "verbatim_share": round(sum(f["verbatim"] for f in fields.values()) / total, 4)
        if total else 1.0,
        "fields": fields,
        "unknown_names_and_numbers": len(unknown),
        "unknown_examples": [t for t, _ in unknown.most_common(examples)],
        "untraceable_examples": misses[:examples],
        "findings": len(findings),
        "duplicated_findings": duplicated,
        "findings_without_source": sum(1 for f in findings if not f.sources),
        "bad_sources": bad_sources(chunks, entities, relationships, ok_reports),
    }


def bad_sources(chunks: list[Chunk], entities: list[Entity], relationships: list[Relationship],
                reports: list[CommunityReport]) -> int:
    """Sources whose span is not text of the statement that cites it (or points nowhere)."""
    text = {c.id: c.text for c in chunks}

    def bad(sources: tuple[Source, ...], statement: str) -> int:
        held = squash(statement)
        return sum(
            1 for s in sources
            if s.chunk_id not in text or squash(text[s.chunk_id][s.start : s.end]) not in held
        )

    return (
        sum(bad(e.sources, e.description) for e in entities)
        + sum(bad(r.sources, r.description) for r in relationships)
        + sum(bad(r.summary_sources, r.summary) for r in reports)
        + sum(bad(f.sources, f.summary + " " + f.explanation) for r in reports for f in r.findings)
    )


def breaches(result: dict) -> list[str]:
    """What an extractive index must never hold, in words (empty when all is well)."""
    out = []
    untraceable = result["sentences"] - result["verbatim"]
    if untraceable:
        out.append(f"{untraceable} stored sentences are not verbatim in the documents "
                   f"(e.g. {result['untraceable_examples'][:1]})")
    if result["duplicated_findings"]:
        out.append(f"{result['duplicated_findings']} duplicated findings")
    if result["findings_without_source"]:
        out.append(f"{result['findings_without_source']} findings without a source")
    if result["bad_sources"]:
        out.append(f"{result['bad_sources']} sources that point at other text")
    return out
