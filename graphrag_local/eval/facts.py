"""Factual questions with gold answers: does an answer contain the right name? For
`graphrag-local eval facts`. A question file is JSONL with `question`, `answers` (the
accepted strings; one of them must occur in the answer, case and whitespace aside) and an
optional `id`. Each method answers every question in one session; the result gives the
share correct per method, with time per answer (and time to the first token)."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from ..schema import content_id
from ..sentences import squash


def load_facts(path: Path) -> list[dict]:
    rows = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise InputError(f"{path}: line {n} is not JSON") from None
        answers = row.get("answers")
        if not isinstance(row.get("question"), str) or not answers or not isinstance(answers, list):
            raise InputError(f"{path}: line {n} needs \"question\" and a list \"answers\"")
        rows.append({"id": row.get("id") or content_id(row["question"], length=10),
                     "question": row["question"], "answers": [str(a) for a in answers]})
    if not rows:
        raise InputError(f"{path}: no questions")
    return rows


def contains_gold(answer: str, golds: list[str]) -> bool:
    text = squash(answer).casefold().replace("’", "'")
    return any(squash(g).casefold().replace("’", "'") in text for g in golds)


def score_facts(session, facts: list[dict], methods: list[str], progress=lambda d, t: None
                ) -> dict:
    rows = []
    total = len(facts) * len(methods)
    for m in methods:
        for f in facts:
            result = session.ask(f["question"], method=m)
            rows.append({
                "method": m, "id": f["id"], "question": f["question"],
                "correct": contains_gold(result.answer, f["answers"]),
                "gold": f["answers"], "answer": result.answer,
                "seconds": result.timings.get("total_seconds", 0.0),
                "first_token_seconds": result.timings.get("first_token_seconds"),
                "llm_calls": len(result.calls),
            })
            progress(len(rows), total)
    summary = []
    for m in methods:
        mine = [r for r in rows if r["method"] == m]
        summary.append({
            "method": m, "questions": len(mine),
            "correct": sum(r["correct"] for r in mine),
            "accuracy": round(sum(r["correct"] for r in mine) / len(mine), 4),
            "median_seconds": sorted(r["seconds"] for r in mine)[len(mine) // 2],
            "llm_calls_per_answer": round(sum(r["llm_calls"] for r in mine) / len(mine), 2),
        })
    return {"methods": summary, "answers": rows}
