"""How often a question's matter comes up, counted by document: the first part of the
answer to "How often do guests mention funding?" or "Which guests speak the most about
educational technology?" (`language/often.py` says whether a question asks so, and of what).

A sentence counts when it names its topic ("Lantern Festival", "the old Fox" for "foxes":
whole words, case, singular and plural aside), or, asked in English of English text, the
embedder puts it `NEAR` its topic or nearer; and it is a statement (not a heading) of
`MIN_WORDS` words or more that the documents do not all say (a greeting, a sign-off:
`SentenceIndex.formulaic`). The answer says what share the count is of those statements
(the ones that could count): "1.0% of the 4,872 statements" is what "How frequently do
discussions about artificial intelligence arise compared to other topics?" can compare. In
the other languages of `language/often.py` only naming counts, with their plural and case
endings (`_forms`): the embedder reads English. The answer shows the count: how many
sentences, in how many of the documents, and for the documents holding most, each one's
count and, quoted and cited, its sentence nearest the topic that best stands alone
(`sentences.standalone`: "Now, it might not be AI." is near "artificial intelligence" and
says nothing of it). Where none is near enough it says so and quotes the nearest: "rarely,
if ever" is an answer too.

`NEAR`, measured with all-MiniLM-L6-v2 over the paper's podcast transcripts (ten episodes,
6,434 sentences) by `scripts/eval_tally.py`: of 68 sentences sampled evenly through the
bands of nearness to four topics and labelled by reading (`docs/eval_runs/tally_labels.jsonl`),
8 of 9 from 0.50 are about their topic, 8 of 12 from 0.45 to 0.50, 12 of 25 from 0.40 to
0.45 and 7 of 22 below: counted from 0.45, 16 of 21; from 0.40, 28 of 46, and
"artificial intelligence" would count 119 sentences, not 45. No sentence is 0.40 near
"cooking recipes" or "football", which the podcast never speaks of. So a count is of the
order, not exact, and the answer says how it counted; which documents hold most is the
surer part ("Which guests speak the most about educational technology?": Danielle
Feinberg's episode, 7 of 17).

It writes nothing and asks no model."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np

from ..language.messages import QUOTED, TALLY, said
from ..sentences import is_statement, standalone, unlabelled, word_count
from ..stages.ground import normalise
from .common import IndexData, SearchResult
from .evidence import SentenceIndex, settled
from .extractive import Quote, quote_citations, row_quote

NEAR = 0.45  # a sentence this near its topic (the embedder's cosine) counts as about it
MIN_WORDS = 4  # a sentence of fewer words says nothing of a topic ("Sustainability.")
NAMED_WORDS = 4  # a topic of at most so many words counts the sentences naming it (`naming`)
SHARED_LABELS = 0.8  # a run of words this share of the documents' labels say is left out
SHOWN = 5  # documents shown with their count and nearest sentence, those holding most


@dataclass(frozen=True)
class Count:
    document: str  # its id
    sentences: int
    nearest: int  # the row of its nearest sentence
    nearness: float


@dataclass(frozen=True)
class Tally:
    topic: str
    sentences: int  # sentences about it, in all the documents
    counts: tuple[Count, ...]  # the documents holding any, most first
    documents: int  # documents in the index
    nearest: int | None  # where none is near enough: the nearest sentence of all
    nearness: float  # ... and its nearness
    counted: int = 0  # the statements that could count (`MIN_WORDS`, no formula): the share's whole


def count(sentences: SentenceIndex, vector: np.ndarray, topic: str, language: str = "en"
          ) -> Tally:
    """The sentences about `topic` (its embedding `vector`), by document. Asked in
    English, a sentence in English counts by its nearness too; in another language, or of
    a sentence in one, only by naming it (the embedder reads English)."""
    documents = len(set(sentences.document))
    if not len(sentences):
        return Tally(topic, 0, (), 0, None, 0.0)
    sims = sentences.plain_similarity(vector)
    formulas = sentences.formulaic()
    texts = {r: sentences.text(r) for r in range(len(sentences))}
    usable = [r for r, text in texts.items() if not formulas[r] and is_statement(text)
              and word_count(unlabelled(text)) >= MIN_WORDS]
    if not usable:
        return Tally(topic, 0, (), documents, None, 0.0)
    read = sentences.in_english() if language == "en" else np.zeros(len(sentences), bool)
    named = naming(topic, language)
    near = [r for r in usable if (read[r] and sims[r] >= NEAR)
            or (named is not None and named.search(normalise(texts[r])))]
    by_doc: dict[str, list[int]] = {}
    for r in near:
        by_doc.setdefault(sentences.document[r], []).append(r)
    counts = []
    for doc, rows in by_doc.items():  # quoted: its nearest that stands alone best
        best = max(rows, key=lambda r: (
            settled((sims[r] if read[r] else 1.0) * standalone(texts[r])), -r))
        counts.append(Count(doc, len(rows), best, round(float(sims[best]), 3)))
    counts.sort(key=lambda c: (-c.sentences, -c.nearness, c.document))
    if counts:
        return Tally(topic, len(near), tuple(counts), documents, None, 0.0, len(usable))
    english = [r for r in usable if read[r]]
    if not english:  # (nearness says nothing of the rest)
        return Tally(topic, 0, (), documents, None, 0.0, len(usable))
    best = max(english, key=lambda r: (float(sims[r]), -r))
    return Tally(topic, 0, (), documents, best, round(float(sims[best]), 3), len(usable))


def share(part: int, whole: int, language: str = "en") -> str:
    """`part` of `whole` as a percentage, written as `language` writes one ("0.8%",
    "0,8 %"); "<0.1%" where it rounds to nothing."""
    value = 100 * part / whole if whole else 0.0
    text = f"{value:.1f}" if value >= 0.1 or not part else "<0.1"
    if language in ("en", "zh", "ja"):
        return text + "%"
    return text.replace(".", ",") + "\u00a0%"


def naming(topic: str, language: str = "en") -> re.Pattern | None:
    """What a sentence that names `topic` says (normalised, whole words), its words as
    `_forms` allows: "foxes" is named by "the old Fox", "kings" by "the King", "Hafen" by
    "des Hafens", "порт" by "порта". In Chinese and Japanese, the topic anywhere. None for a
    topic of more than `NAMED_WORDS` words: a phrase that long is not said so."""
    key = normalise(topic)
    if language in ("zh", "ja"):
        return re.compile(re.escape(key)) if key else None
    words = key.split()
    while words and words[0] in ("the", "a", "an"):
        words = words[1:]
    if not words or len(words) > NAMED_WORDS:
        return None
    return re.compile(r"(?<!\w)" + r"\s+".join(_forms(w, language) for w in words) + r"(?!\w)")


# the endings a word of these languages takes in a sentence naming it (after `_forms`
# takes off the last vowel of a Russian word): plural and case, no more
_ENDINGS = {"fr": "(?:s|x|e|es)?", "es": "(?:s|es)?", "de": "(?:e|en|n|s|es|er|ern)?",
            "ru": r"\w{0,3}"}


def _forms(word: str, language: str = "en") -> str:
    """A pattern of a word's forms: in English its singular and plural ("fox", "foxes";
    "city", "cities"); in French, Spanish, German and Russian, the word with the endings of
    `_ENDINGS`; in another language the word itself."""
    if language != "en":
        if language == "ru" and len(word) > 3 and word[-1] in "аяоеёиыуюьй":
            word = word[:-1]
        return re.escape(word) + _ENDINGS.get(language, "")
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith(("ches", "shes", "xes", "sses", "zes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 2 and word.endswith("y") and word[-2] not in "aeiou":
        return re.escape(word[:-1]) + "(?:y|ies)"
    if word.endswith(("ch", "sh", "x", "ss", "z")):
        return re.escape(word) + "(?:es)?"
    return re.escape(word) + "(?:s|es)?"


def _label(data: IndexData, document: str) -> str:
    """A document as the count names it: its title, else its file's name read as words
    ("ep05 EP-05 Behind the Tech Kevin Scott Podcast with Danielle Feinberg")."""
    doc = data.documents[document]
    stem = PurePosixPath(doc.path).stem
    if doc.title and doc.title != stem:
        return doc.title
    return " ".join(stem.replace("_", " ").split())


def labels(data: IndexData) -> dict[str, str]:
    """Every document's `_label`, without a run of two or more words that most of them
    (`SHARED_LABELS`, of three or more) say: the podcast's "ep05 EP-05 Danielle Feinberg",
    not "... Behind the Tech Kevin Scott Podcast with Danielle Feinberg" ten times over."""
    out = {d: _label(data, d) for d in data.documents}
    words = {d: text.split() for d, text in out.items()}
    least = max(3, SHARED_LABELS * len(out))
    runs: dict[tuple[str, ...], int] = {}
    for ws in words.values():
        seen = {tuple(ws[i:j]) for i in range(len(ws)) for j in range(i + 2, len(ws) + 1)}
        for run in seen:
            runs[run] = runs.get(run, 0) + 1
    shared = max((r for r, n in runs.items() if n >= least), key=lambda r: (len(r), r),
                 default=None)
    if shared is None:
        return out
    for d, ws in words.items():
        for i in range(len(ws) - len(shared) + 1):
            if tuple(ws[i:i + len(shared)]) == shared and len(ws) > len(shared):
                out[d] = " ".join(ws[:i] + ws[i + len(shared):])
                break
    return out


def shown(tally: Tally, data: IndexData, sentences: SentenceIndex, language: str = "en"
          ) -> tuple[str, list[Quote]]:
    """The count as the answer shows it (markdown, the tool's words in `language`), and the
    sentences it quotes."""
    words = said(TALLY, language)
    head = f"**{words['head'].format(topic=tally.topic)}** ({said(QUOTED, language)})"
    rule = words["rule"].format(near=f"{NEAR:.2f}") if language == "en" else ""
    if not tally.counts:
        lines = [head, words["none"].format(documents=tally.documents, rule=rule)]
        if tally.nearest is None:
            return "\n".join(lines), []
        q = row_quote(sentences, data, tally.nearest, tally.nearness)
        below = math.floor(tally.nearness * 100) / 100  # (0.447 is not shown as 0.45)
        lines.append(f"- {words['nearest']} ({below:.2f}): {q.shown} [{', '.join(q.refs)}]")
        return "\n".join(lines), [q]
    many = words["count"] if tally.sentences != 1 else words["one"]
    lines = [head, many.format(n=tally.sentences, rule=rule, held=len(tally.counts),
                               documents=tally.documents,
                               counted=f"{tally.counted:,}" if language == "en" else tally.counted,
                               share=share(tally.sentences, tally.counted, language))]
    quotes = []
    named = labels(data)
    for c in tally.counts[:SHOWN]:
        q = row_quote(sentences, data, c.nearest, c.nearness)
        quotes.append(q)
        lines.append(f"- *{named[c.document]}* ({c.sentences}): {q.shown} "
                     f"[{', '.join(q.refs)}]")
    rest = tally.counts[SHOWN:]
    if rest:
        lines.append(words["more"].format(k=len(rest), m=sum(c.sentences for c in rest)))
    return "\n".join(lines), quotes


def prefixed(result: SearchResult, text: str, quotes: list[Quote], tally: Tally,
             data: IndexData) -> SearchResult:
    """`result` with the count before its answer, the count's sentences among its sources."""
    result.answer = f"{text}\n\n{result.answer}" if result.answer else text
    result.no_answer = False
    result.citations = quote_citations(quotes, data, result.citations)  # the count's first
    result.tally = {
        "topic": tally.topic, "near": NEAR, "sentences": tally.sentences,
        "of_sentences": tally.counted, "documents": tally.documents,
        "by_document": [{"document": data.documents[c.document].path, "sentences": c.sentences,
                         "nearest": c.nearness} for c in tally.counts],
    }
    return result

