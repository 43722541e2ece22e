"""Answering a question set under several conditions, saved as each answer completes
(an interrupted run resumes). Conditions, named as in the paper: C0, C1, ... (global
search at that community level), global (the configured level), local, basic (the
paper's SS: vector RAG over chunks) and ts (map-reduce over source chunks)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import ConfigError
from ..query import Session, result_dict
from .questions import question_id

ANSWERS = "answers.jsonl"
ALIASES = {"ss": "basic"}


def parse_conditions(text: str, levels: list[int]) -> list[tuple[str, str, str | None]]:
    """(condition name, search method, level) for a comma-separated list."""
    out = []
    for raw in (c.strip() for c in text.split(",")):
        if not raw:
            continue
        name = ALIASES.get(raw.lower(), raw.lower())
        if name[0] == "c" and name[1:].isdigit():
            if int(name[1:]) not in levels:
                raise ConfigError(f"condition {raw}: the index has no reports at level {name[1:]} "
                                  f"(levels: {', '.join(map(str, levels)) or 'none'})")
            out.append((name.upper(), "global", name[1:]))
        elif name in ("global", "local", "basic", "ts", "drift"):
            out.append((name, name, None))
        else:
            raise ConfigError(f"unknown condition '{raw}'; use C0, C1, ..., global, local, basic "
                              "(or SS), ts and drift")
    if len({c[0] for c in out}) != len(out) or not out:
        raise ConfigError(f"conditions must be distinct and non-empty (got '{text}')")
    return out


def read_answers(out_dir: Path) -> list[dict]:
    """The answers saved so far. A line cut by a crash is skipped (that answer is redone);
    an answer without a question id (older runs of CSV questions) gets its question's
    content hash, as `load_questions` gives it now."""
    path = out_dir / ANSWERS
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict) or "condition" not in row or "question" not in row:
            continue
        if not row.get("question_id"):
            row["question_id"] = question_id(row["question"])
        rows.append(row)
    return rows


def answer_questions(
    session: Session,
    questions: list[dict],
    conditions: list[tuple[str, str, str | None]],
    out_dir: Path,
    progress: Callable[[int, int, str], None] = lambda done, total, what: None,
) -> list[dict]:
    out_dir.mkdir(parents=True, exist_ok=True)
    done = {(r["question_id"], r["condition"]) for r in read_answers(out_dir)}
    todo = [(q, c) for c in conditions for q in questions if (q["id"], c[0]) not in done]
    total = len(todo)
    with (out_dir / ANSWERS).open("a", encoding="utf-8") as f:
        for i, (q, (name, method, level)) in enumerate(todo):
            progress(i, total, f"{name}: {q['question'][:60]}")
            started = time.perf_counter()
            result = session.ask(q["question"], method=method, level=level)
            d = result_dict(result, session.model_name)
            row = {
                "question_id": q["id"], "question": q["question"], "condition": name,
                "method": method, "level": result.level, "answer": result.answer,
                "no_answer": result.no_answer, "context_tokens": d["context_tokens"],
                "map_calls": d["map_calls"], "llm_calls": d["llm_calls"],
                "prompt_tokens": d["prompt_tokens"], "completion_tokens": d["completion_tokens"],
                "seconds": round(time.perf_counter() - started, 2),
                "citations": [c["ref"] for c in d["citations"]], "model": d["model"],
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            f.flush()
        progress(total, total, "done")
    return read_answers(out_dir)
