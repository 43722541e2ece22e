"""The judge-free halves of the paper's comprehensiveness and diversity, for `graphrag-local
eval coverage`: per answer, how much of the corpus it cites and names, and how much it
repeats itself. No model judges anything here:

- documents cited: the share of the corpus's documents whose chunks the answer cites;
- communities covered: root-level communities with at least one member named in the
  answer (comparable across methods, whether they read reports or not);
- entities named: distinct entities of the index whose names appear in the answer;
- redundancy: mean pairwise cosine similarity of the answer's sentences (embedder);
- sourced: the share of the answer's statements (its quoted lines, or its sentences
  when it quotes none) that carry a citation ref;
- verbatim: the share of them found word for word in the documents (case, spacing and
  punctuation aside): 1.0 for an extractive answer, low for an abstractive one;
- words and seconds."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..query import Session, result_dict
from ..search.evidence import unit
from ..sentences import split_sentences
from ..stages.ground import contains, normalise

_REFS = re.compile(r"\s*\[[A-Z]\d+(?:, [A-Z]\d+)*\]")
_MARKS = re.compile(r"^\s*(?:[-*]|\d+\.)\s+|\*\*|^#+\s*", re.M)


def plain(answer: str) -> str:
    """The answer's words: citation refs and markdown marks removed."""
    return _MARKS.sub("", _REFS.sub("", answer))


def named_entities(text: str, names: list[str]) -> set[str]:
    norm = normalise(text)
    return {n for n in names if contains(norm, normalise(n))}


_BULLET = re.compile(r"^\s*(?:[-*]|\d+\.)\s+(.*)$")


def statements(answer: str) -> list[tuple[str, bool]]:
    """The answer's statements, each with whether it carries a citation ref: its bullet
    lines when it has any (headings are not statements), else its sentences."""
    bullets = [m.group(1) for line in answer.splitlines() if (m := _BULLET.match(line))]
    if bullets:
        units = bullets
    else:
        units = [answer[a:b] for a, b in split_sentences(answer)]
    out = []
    for u in units:
        words = plain(u).strip()
        if len(words.split()) >= 3:
            out.append((words, bool(_REFS.search(u))))
    return out


def verbatim_share(found: list[str], corpus: str) -> float | None:
    """The share of `found` statements that occur in `corpus` (both normalised)."""
    if not found:
        return None
    return sum(normalise(s) in corpus for s in found) / len(found)


def redundancy(sentences: list[str], embed: Callable[[list[str]], list]) -> float | None:
    """Mean pairwise cosine similarity of the sentences (None for fewer than two)."""
    if len(sentences) < 2:
        return None
    m = unit(np.asarray(embed(sentences), dtype=np.float32))
    sims = m @ m.T
    n = len(sentences)
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))


def corpus_text(session: Session) -> str:
    """The documents' text (their chunks), normalised, for the verbatim test."""
    chunks = sorted(session.data.chunks.values(), key=lambda c: (c.document_id, c.index))
    return "\n".join(normalise(c.text) for c in chunks)


def answer_coverage(session: Session, result, corpus: str) -> dict:
    data = session.data
    text = plain(result.answer) if not result.no_answer else ""
    docs = {data.chunks[c.id].document_id for c in result.citations
            if c.kind == "chunk" and c.cited and c.id in data.chunks}
    names = named_entities(text, list(data.entities))
    roots = [c for c in data.communities if c.level == 0]
    covered = [c.id for c in roots if names & set(c.entities)]
    lines = [text[a:b] for a, b in split_sentences(text)]
    lines = [s for s in lines if len(s.split()) >= 3]
    said = statements(result.answer) if not result.no_answer else []
    return {
        "documents_cited": len(docs),
        "documents_share": round(len(docs) / max(1, len(data.documents)), 3),
        "communities_covered": len(covered),
        "communities_share": round(len(covered) / max(1, len(roots)), 3),
        "entities_named": len(names),
        "redundancy": (round(r, 3) if (r := redundancy(lines, session.embedder.embed)) is not None
                       else None),
        "sourced": round(sum(c for _, c in said) / len(said), 3) if said else None,
        "verbatim": (round(v, 3) if (v := verbatim_share([s for s, _ in said], corpus))
                     is not None else None),
        "words": len(text.split()),
        "sentences": len(lines),
        "seconds": result.timings.get("total_seconds", 0.0),
    }


def score_coverage(session: Session, questions: list[dict],
                   conditions: list[tuple[str, str, str | None]],
                   progress=lambda done, total: None) -> dict:
    rows = []
    corpus = corpus_text(session)
    total = len(questions) * len(conditions)
    for name, method, level in conditions:
        for q in questions:
            result = session.ask(q["question"], method=method, level=level)
            d = result_dict(result)
            rows.append({"condition": name, "method": method, "level": result.level,
                         "question_id": q["id"], "question": q["question"],
                         "answer": result.answer, "llm_calls": d["llm_calls"],
                         **answer_coverage(session, result, corpus)})
            progress(len(rows), total)
    summary = []
    for name, _method, _level in conditions:
        mine = [r for r in rows if r["condition"] == name]

        def mean(key: str, rows=mine) -> float | None:
            xs = [r[key] for r in rows if r[key] is not None]
            return round(sum(xs) / len(xs), 3) if xs else None

        summary.append({
            "condition": name, "questions": len(mine),
            **{k: mean(k) for k in ("documents_cited", "documents_share", "communities_covered",
                                    "communities_share", "entities_named", "redundancy",
                                    "sourced", "verbatim", "words", "seconds", "llm_calls")},
            "max_words": max((r["words"] for r in mine), default=0),
        })
    return {"documents": len(session.data.documents),
            "root_communities": sum(c.level == 0 for c in session.data.communities),
            "conditions": summary, "answers": rows}
