"""Extraction quality against gold data (Re-DocRED; NER sets in other languages through
`ner_gold.py`), for `graphrag-local eval extraction`
and scripts/eval_extraction.py.

Read Re-DocRED documents into text, gold entity names and gold related pairs; rebuild
the first extraction round's records from its raw reply; score predicted entity names and
relationships (precision, recall, F1, micro-averaged over documents). A relationship is
correct when its two ends name two gold entities that the gold relates (either way)."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..schema import Chunk, EntityRecord, RelationshipRecord
from ..stages.ground import normalise

# how Re-DocRED's types map onto ours (TIME, NUM and MISC have no counterpart)
TYPE_MAP = {"PER": ("PERSON",), "ORG": ("ORGANIZATION",), "LOC": ("LOCATION", "GEO")}

# no space before these tokens; no space after the opening ones
_NO_SPACE_BEFORE = {",", ".", ";", ":", "!", "?", ")", "]", "}", "%", "'", "'s", "'S", "n't",
                    "'re", "'ve", "'ll", "'d", "'m", "’s", "’"}
_NO_SPACE_AFTER = {"(", "[", "{", "$", "#"}


@dataclass(frozen=True)
class GoldDoc:
    index: int  # position in the data file
    title: str
    text: str
    # one tuple per gold entity (vertexSet entry): the normalised names of its mentions
    entities: tuple[frozenset[str], ...]
    types: tuple[str, ...]  # the type of each gold entity (its first mention's)
    pairs: frozenset[frozenset[int]] = frozenset()  # gold entity pairs with a relation
    language: str = "en"  # ISO 639-1; the chunk's, as a build would detect it
    # whether the gold groups a name's mentions under one entity (Re-DocRED's vertexSet);
    # NER sets list each distinct name alone, so joining two of them is not scored
    coreference: bool = True


def detokenise(tokens: list[str]) -> str:
    """Tokens joined with spaces, without the space before closing punctuation and
    clitics or after opening brackets; straight double quotes alternate open/close."""
    out: list[str] = []
    glue_next = False
    quote_open = False
    for tok in tokens:
        glue = glue_next or not out
        glue_next = False
        if tok == '"':
            if quote_open:
                glue = True  # closing quote hugs the word before it
            else:
                glue_next = True  # opening quote hugs the word after it
            quote_open = not quote_open
        elif tok in _NO_SPACE_BEFORE:
            glue = True
        if tok in _NO_SPACE_AFTER:
            glue_next = True
        out.append(tok if glue else " " + tok)
    return "".join(out)


def doc_text(sents: list[list[str]]) -> str:
    return " ".join(detokenise(s) for s in sents)


def load_docred(path: Path) -> list[dict]:
    with Path(path).open(encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, list):
        raise TypeError(f"{path}: expected a JSON list of documents")
    return data


def select(docs: list[dict], limit: int, seed: int | None = None, offset: int = 0) -> list[int]:
    """Indices of the evaluated documents: `limit` from `offset` on (settings are tuned
    on other documents than those reported: e.g. --offset 100 for tuning), or with `seed`
    a seeded random sample of `limit` (kept in file order)."""
    n = min(limit, len(docs))
    if seed is None:
        return list(range(offset, min(offset + limit, len(docs))))
    return sorted(random.Random(seed).sample(range(len(docs)), n))


def gold_doc(docs: list[dict], index: int) -> GoldDoc:
    d = docs[index]
    entities: list[frozenset[str]] = []
    types: list[str] = []
    for vertex in d["vertexSet"]:
        names = frozenset(k for k in (normalise(m["name"]) for m in vertex) if k)
        entities.append(names)
        types.append(vertex[0].get("type", "") if vertex else "")
    pairs = frozenset(
        frozenset((lab["h"], lab["t"])) for lab in d.get("labels", []) if lab["h"] != lab["t"]
    )
    return GoldDoc(index, d.get("title", ""), doc_text(d["sents"]), tuple(entities),
                   tuple(types), pairs)


def first_round_records(
    raw: str, chunk_id: str
) -> tuple[list[EntityRecord], list[RelationshipRecord]] | None:
    """The records of one extraction reply (the raw JSON text of `raw_replies[0]`), kept
    once each by (normalised name, description) as extract._collect does; None if the
    reply is not a JSON object."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    entities: list[EntityRecord] = []
    seen_e: set[tuple[str, str]] = set()
    for e in value.get("entities") or []:
        name, desc = str(e.get("name", "")).strip(), str(e.get("description", "")).strip()
        if (normalise(name), desc) not in seen_e:
            seen_e.add((normalise(name), desc))
            entities.append(EntityRecord(name, str(e.get("type", "")), desc, chunk_id))
    rels: list[RelationshipRecord] = []
    seen_r: set[tuple[str, str, str]] = set()
    for r in value.get("relationships") or []:
        src, tgt = str(r.get("source", "")).strip(), str(r.get("target", "")).strip()
        desc = str(r.get("description", "")).strip()
        k = (normalise(src), normalise(tgt), desc)
        if k not in seen_r:
            seen_r.add(k)
            rels.append(RelationshipRecord(src, tgt, desc, int(r.get("strength", 1)), chunk_id))
    return entities, rels


@dataclass
class Score:
    """Counts summed over documents (micro-average)."""

    docs: int = 0
    predicted: int = 0  # distinct normalised predicted names
    correct: int = 0  # of those, equal to some gold mention name
    gold: int = 0  # gold entities
    found: int = 0  # gold entities with at least one mention name predicted
    gold_typed: int = 0  # gold entities of the extracted kinds (PER/ORG/LOC)
    found_typed: int = 0
    typed: int = 0  # predicted entities naming a PER/ORG/LOC gold entity (type compared)
    typed_correct: int = 0  # of those, with our type matching the gold type (TYPE_MAP)
    rel_predicted: int = 0  # distinct predicted (unordered) name pairs
    rel_correct: int = 0  # of those, naming two gold entities the gold relates
    rel_gold: int = 0  # gold related pairs
    rel_found: int = 0  # gold related pairs some predicted relationship names
    failures: int = 0  # documents whose extraction failed or crashed
    # mention clustering: B-cubed over the predicted names that are gold mention names
    coreference_docs: int = 0  # documents whose gold groups mentions
    cluster_names: int = 0
    cluster_precision: float = 0.0  # summed over names
    cluster_recall: float = 0.0
    merged_pairs: int = 0  # pairs of gold-matched names we put in one entity
    merged_right: int = 0  # of those, pairs the gold puts in one entity too
    wrong_merges: list[tuple[str, str]] = field(default_factory=list)  # the others, to read
    llm_calls: int = 0
    seconds: float = 0.0

    def add_types(self, gold: GoldDoc, entities: list[tuple[str, str]]) -> None:
        """Compare our types with the gold's, for entities naming a PER, ORG or LOC gold
        entity (Re-DocRED's TIME, NUM and MISC have no counterpart among our types)."""
        seen: set[str] = set()
        for name, type_ in entities:
            key = normalise(name)
            if not key or key in seen:
                continue
            seen.add(key)
            gold_types = [t for names, t in zip(gold.entities, gold.types) if key in names]
            if gold_types and gold_types[0] in TYPE_MAP:
                self.typed += 1
                self.typed_correct += type_ in TYPE_MAP[gold_types[0]]

    def _clustering(self, gold: GoldDoc, groups: list[set[str]]) -> None:
        entity_of = {}
        for i, names in enumerate(gold.entities):
            for n in names:
                entity_of.setdefault(n, i)
        matched = [{n for n in g if n in entity_of} for g in groups]
        by_gold: Counter = Counter(entity_of[n] for g in matched for n in g)
        for g in matched:
            for n in g:
                same = sum(entity_of[m] == entity_of[n] for m in g)
                self.cluster_names += 1
                self.cluster_precision += same / len(g)
                self.cluster_recall += same / by_gold[entity_of[n]]
            pairs = [(a, b) for a in g for b in g if a < b]
            self.merged_pairs += len(pairs)
            self.merged_right += sum(entity_of[a] == entity_of[b] for a, b in pairs)
            self.wrong_merges += [(a, b) for a, b in pairs if entity_of[a] != entity_of[b]]

    def _clustering_result(self) -> dict:
        """Mention clustering's figures; None where no document's gold groups mentions."""
        scored = self.coreference_docs > 0
        b3 = self.bcubed
        return {
            "clustering_b3_precision": round(b3[0], 4) if scored else None,
            "clustering_b3_recall": round(b3[1], 4) if scored else None,
            "clustering_b3_f1": round(b3[2], 4) if scored else None,
            "merged_pairs": self.merged_pairs if scored else None,
            "merge_precision": (round(self.merged_right / self.merged_pairs, 4)
                                if self.merged_pairs else None),
            "wrong_merges": [list(p) for p in self.wrong_merges],
        }

    @property
    def bcubed(self) -> tuple[float, float, float]:
        if not self.cluster_names:
            return 0.0, 0.0, 0.0
        p, r = self.cluster_precision / self.cluster_names, self.cluster_recall / self.cluster_names
        return p, r, (2 * p * r / (p + r) if p + r else 0.0)

    @property
    def type_accuracy(self) -> float:
        return self.typed_correct / self.typed if self.typed else 0.0

    def add(self, gold: GoldDoc, names: list[str] | tuple[str, ...], typed=("PER", "ORG", "LOC"),
            clusters: list[set[str]] | None = None):
        """Score predicted entities: one per name, or, with `clusters`, one per cluster of
        names (an entity and its aliases): correct when any of its names is a gold mention's."""
        predicted = {k for k in (normalise(n) for n in names) if k}
        groups = clusters if clusters is not None else [{k} for k in predicted]
        groups = [{normalise(n) for n in g} - {""} for g in groups]
        groups = [g for g in groups if g]
        every = set().union(*groups) if groups else set()
        all_gold = set().union(*gold.entities) if gold.entities else set()
        self.docs += 1
        self.predicted += len(groups)
        self.correct += sum(bool(g & all_gold) for g in groups)
        self.gold += len(gold.entities)
        hits = [bool(e & every) for e in gold.entities]
        if gold.coreference:
            self.coreference_docs += 1
            self._clustering(gold, groups)
        self.found += sum(hits)
        for hit, t in zip(hits, gold.types):
            if t in typed:
                self.gold_typed += 1
                self.found_typed += hit

    def add_relationships(self, gold: GoldDoc, pairs: list[tuple[str, str]]) -> None:
        """Score predicted relationships (source, target names) against the gold pairs."""
        def ids(name: str) -> set[int]:
            k = normalise(name)
            return {i for i, names in enumerate(gold.entities) if k in names}

        predicted = {frozenset((normalise(a), normalise(b))) for a, b in pairs
                     if normalise(a) and normalise(b) and normalise(a) != normalise(b)}
        found: set[frozenset[int]] = set()
        for pair in predicted:
            a, b = (list(pair) * 2)[:2]
            hits = {frozenset((i, j)) for i in ids(a) for j in ids(b) if i != j} & gold.pairs
            self.rel_correct += bool(hits)
            found |= hits
        self.rel_predicted += len(predicted)
        self.rel_gold += len(gold.pairs)
        self.rel_found += len(found)

    @property
    def rel_precision(self) -> float:
        return self.rel_correct / self.rel_predicted if self.rel_predicted else 0.0

    @property
    def rel_recall(self) -> float:
        return self.rel_found / self.rel_gold if self.rel_gold else 0.0

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 0.0

    @property
    def recall_typed(self) -> float:
        return self.found_typed / self.gold_typed if self.gold_typed else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def row(self) -> dict:
        d = max(self.docs, 1)
        return {
            "docs": self.docs,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "recall_per_org_loc": round(self.recall_typed, 4),
            "type_accuracy": round(self.type_accuracy, 4),
            "typed_entities": self.typed,
            "entities_per_doc": round(self.predicted / d, 2),
            "correct": self.correct,
            "predicted": self.predicted,
            "gold_found": self.found,
            "gold": self.gold,
            "rel_precision": round(self.rel_precision, 4),
            "rel_recall": round(self.rel_recall, 4),
            **self._clustering_result(),
            "rel_predicted": self.rel_predicted,
            "rel_gold": self.rel_gold,
            "failures": self.failures,
            "llm_calls_per_doc": round(self.llm_calls / d, 2),
            "seconds_per_doc": round(self.seconds / d, 2),
        }


def evaluate(model, prompts, golds: list[GoldDoc], recipe, progress=lambda msg: None,
             aliases: bool = True) -> dict:
    """Run the extraction stage the build would run (`recipe`: method, content, options)
    on each gold document as one chunk, then (`aliases`) the build's name cleaning and
    alias resolution with the document as the corpus, and score its entities, types,
    mention clustering and relationships."""
    import time

    from ..schema import Document
    from ..stages.aliases import rename_records, resolve_records, word_stats
    from ..stages.chunk import chunk_sentences

    score = Score()
    for gold in golds:
        doc = Document(f"docred-{gold.index}", gold.title, gold.title, gold.text, "utf-8",
                       language=gold.language)
        chunk = Chunk(f"docred-{gold.index}", doc.id, gold.title, 0, 0, 0,
                      len(gold.text) // 4, gold.text, 0, len(gold.text), language=gold.language)
        sentences = chunk_sentences([doc], [chunk])
        before = len(model.calls) if model is not None else 0
        started = time.perf_counter()
        try:
            result = recipe.extract_chunk(model, prompts, chunk, sentences, chunk.id)
            ok = result.status == "ok"
        except Exception as exc:  # noqa: BLE001 - a crash on one document is a finding
            result, ok = None, False
            progress(f"doc {gold.index}: {type(exc).__name__}: {exc}")
        ents = list(result.entities) if result else []
        rels = list(result.relationships) if result else []
        clusters = None
        if aliases and ents:
            resolved = resolve_records(ents, {chunk.id: doc.id}, word_stats([gold.text]))
            groups: dict[str, set[str]] = {}
            for e in ents:
                target = resolved.rename.get(normalise(e.name))
                if target:
                    groups.setdefault(target, {target}).add(e.name)
            clusters = list(groups.values())
            ents, rels = rename_records(ents, rels, resolved)
        score.add(gold, [e.name for e in ents], clusters=clusters)
        score.add_types(gold, [(e.name, e.type) for e in ents])
        score.add_relationships(gold, [(r.source, r.target) for r in rels])
        score.failures += not ok
        score.llm_calls += (len(model.calls) - before) if model is not None else 0
        score.seconds += time.perf_counter() - started
        progress(f"doc {gold.index}: {len(ents)} entities, {len(rels)} relationships")
    return score.row()
