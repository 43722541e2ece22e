"""Question sets: generated the paper's way (a corpus description -> N personas -> N tasks
per persona -> N questions per (persona, task), each needing the whole corpus), or read
from a CSV or JSONL file. Replies are grammar-constrained; duplicates are removed."""

from __future__ import annotations

import csv
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, create_model

from ..errors import InputError, ModelError
from ..models import ChatModel
from ..models.structured import ask
from ..prompts import Prompts
from ..schema import content_id

Progress = Callable[[str], None]


@lru_cache(maxsize=16)
def _list_model(field: str, n: int, chars: int, item: str = "str") -> type[BaseModel]:
    if item == "persona":
        Persona = create_model(
            "Persona", role=(str, Field(min_length=2, max_length=60)),
            wants=(str, Field(min_length=2, max_length=chars)),
        )
        return create_model(field.title(), **{field: (list[Persona], Field(min_length=n, max_length=n))})
    Item = Annotated[str, Field(min_length=8, max_length=chars)]
    return create_model(field.title(), **{field: (list[Item], Field(min_length=n, max_length=n))})


def _description_model() -> type[BaseModel]:
    return create_model("Description", description=(str, Field(min_length=10, max_length=300)))


def describe_corpus(model: ChatModel, prompts: Prompts, texts: list[str], seed: int) -> str:
    """A one-or-two-sentence description written by the model from a few excerpts."""
    sample = random.Random(seed).sample(texts, min(3, len(texts)))
    excerpts = "\n\n".join(t[:600] for t in sample)
    reply = ask(model, [{"role": "user", "content": prompts.render("eval_describe", excerpts=excerpts)}],
                _description_model(), purpose="eval_describe")
    if reply.value is None:
        raise ModelError(f"the model could not describe the corpus ({reply.error}); pass --description")
    return reply.value.description.strip()


def generate_questions(
    model: ChatModel,
    prompts: Prompts,
    description: str,
    *,
    personas: int = 3,
    tasks: int = 3,
    questions: int = 3,
    progress: Progress = lambda msg: None,
) -> list[dict]:
    """personas x tasks x questions questions, deduplicated, each with its persona and task."""
    def call(name: str, schema, **values) -> BaseModel | None:
        msg = [{"role": "user", "content": prompts.render(name, **values)}]
        return ask(model, msg, schema, purpose=name).value

    got = call("eval_personas", _list_model("users", personas, 160, "persona"),
               description=description, n=str(personas))
    if got is None:
        raise ModelError("the model gave no valid list of personas, even after a retry")
    out: list[dict] = []
    for user in got.users:
        persona = f"{user.role.strip()}: {user.wants.strip()}"
        progress(f"persona: {persona}")
        task_list = call("eval_tasks", _list_model("tasks", tasks, 160),
                         description=description, persona=persona, n=str(tasks))
        for task in (task_list.tasks if task_list else []):
            qs = call("eval_questions", _list_model("questions", questions, 200),
                      description=description, persona=persona, task=task.strip(), n=str(questions))
            for q in (qs.questions if qs else []):
                q = q.strip()
                out.append({"question": q if q.endswith("?") else q.rstrip(".") + "?",
                            "persona": persona, "task": task.strip()})
    return dedupe(out)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def question_id(question: str) -> str:
    """A question's content-hash id: equal after normalising case and punctuation."""
    return content_id("q", _norm(question), length=12)


def dedupe(items: list[dict], threshold: float = 0.8) -> list[dict]:
    """Drop questions equal to an earlier one after normalising case and punctuation, or
    sharing at least `threshold` of their words with one (Jaccard). A question without an
    id gets its content hash."""
    kept: list[dict] = []
    seen: list[set[str]] = []
    for item in items:
        words = set(_norm(item["question"]).split())
        if not words:
            continue
        if any(len(words & s) / len(words | s) >= threshold for s in seen):
            continue
        seen.append(words)
        rest = {k: v for k, v in item.items() if k != "id"}
        kept.append({"id": item.get("id") or question_id(item["question"]), **rest})
    return kept


def load_questions(path: Path) -> list[dict]:
    """Questions from JSONL (a "question" or "question_text" field per line) or CSV (a
    `question` or `question_text` column; `question_id`/`id` kept when present, else the
    question's content hash)."""
    if not path.is_file():
        raise InputError(f"{path}: no such question file")
    rows: list[dict] = []
    if path.suffix.lower() == ".csv":
        with path.open(encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            col = next((c for c in ("question", "question_text") if c in (reader.fieldnames or [])), None)
            if col is None:
                raise InputError(f"{path}: no 'question' or 'question_text' column "
                                 f"(columns: {', '.join(reader.fieldnames or [])})")
            for r in reader:
                rows.append({"id": _given_id(r), "question": r[col] or ""})
    else:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except ValueError as exc:
                raise InputError(f"{path}:{n}: not a JSON line ({exc})") from None
            q = d.get("question") or d.get("question_text") if isinstance(d, dict) else None
            if not q or not isinstance(q, str):
                raise InputError(f"{path}:{n}: no 'question' field")
            rows.append({**d, "id": _given_id(d), "question": q})
    rows = [r for r in rows if r["question"].strip()]
    if not rows:
        raise InputError(f"{path}: holds no questions")
    rows = dedupe(rows, threshold=1.0)  # same words only, for given question sets
    twice = [i for i, n in Counter(r["id"] for r in rows).items() if n > 1]
    if twice:
        raise InputError(f"{path}: question id '{twice[0]}' is given to more than one question")
    return rows


def _given_id(row: dict) -> str:
    """The id a question file gives (`id` or `question_id`), or "" for none."""
    for key in ("id", "question_id"):
        value = row.get(key)
        if value is not None and str(value).strip():
            return str(value).strip()
    return ""


def save_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)
