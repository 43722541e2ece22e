"""The `graphrag-local eval` commands as library functions: each resolves settings and
models, runs one step of the evaluation and writes its results (and a meta.json naming
the command that made them) into an output folder."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import api
from ..errors import ConfigError, InputError
from ..private import writes_private
from .answers import answer_questions, parse_conditions
from .judge import CRITERIA, heatmap, judge_verdict, run_judge, win_rates
from .questions import describe_corpus, generate_questions, load_questions, save_jsonl
from .report import read_meta


def _write_meta(out: Path, **meta: Any) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "meta.json"
    old = read_meta(out)
    path.write_text(json.dumps({**old, **{k: v for k, v in meta.items() if v}}, indent=2),
                    encoding="utf-8")


def _model(preset_name: str | None, config: Path | None = None, n_ctx: int = 0):
    settings = api.resolve_settings(config, preset_name)
    info = api.model_info(settings)
    if n_ctx and info.remote is None:
        info = replace(info, preset=replace(info.preset, n_ctx=n_ctx))
    return api.open_chat_model(info, settings.seed), settings


@writes_private  # run folders are yours only unless private = false
def questions(
    out: Path, *, index: Path | None = None, description: str = "", personas: int = 3,
    tasks: int = 3, per_task: int = 3, model: str | None = None, config: Path | None = None,
    command: str = "", progress=lambda msg: None,
) -> dict:
    """Generate a question set (JSONL at `out`)."""
    if not description and index is None:
        raise InputError("give --description, or --index so the model can describe the corpus")
    if index is not None:
        session = api.open_session(index, config=config, model=model)
        chat, seed = session.model, session.settings.seed
        texts = [c.text for c in session.data.chunks.values()]
    else:
        session = None
        chat, settings = _model(model, config)
        seed, texts = settings.seed, []
    try:
        prompts = api.project_prompts(config)
        if not description:
            description = describe_corpus(chat, prompts, texts, seed)
            progress(f"description: {description}")
        rows = generate_questions(chat, prompts, description, personas=personas, tasks=tasks,
                                  questions=per_task, progress=progress)
        calls = len(chat.calls)
    finally:
        (session or chat).close()
    save_jsonl(out, rows)
    return {"questions": len(rows), "out": str(out), "description": description,
            "llm_calls": calls, "command": command}


@writes_private
def answer(
    questions_file: Path, index: Path, conditions: str, out: Path, *, limit: int = 0,
    model: str | None = None, config: Path | None = None, command: str = "",
    progress=lambda done, total, what: None,
) -> dict:
    qs = load_questions(questions_file)
    if limit:
        qs = qs[:limit]
    session = api.open_session(index, config=config, model=model)
    try:
        conds = parse_conditions(conditions, session.data.levels)
        _write_meta(out, title=f"Answers: {', '.join(c[0] for c in conds)}", command=command,
                    index=str(index), questions=f"{len(qs)} from {questions_file}",
                    model=session.settings.model or "")
        rows = answer_questions(session, qs, conds, out, progress)
        _write_meta(out, model=session.model_name)
    finally:
        session.close()
    return {"answers": len(rows), "out": str(out)}


@writes_private
def judge(
    answers_dir: Path, out: Path, *, judge_model: str | None = None, criteria: str = "",
    config: Path | None = None, command: str = "", progress=lambda done, total: None,
) -> dict:
    from .answers import read_answers

    answers = read_answers(answers_dir)
    if not answers:
        raise InputError(f"{answers_dir}: no answers.jsonl with answers; run `eval answer` first")
    wanted = [c.strip() for c in criteria.split(",") if c.strip()] or list(CRITERIA)
    unknown = [c for c in wanted if c not in CRITERIA]
    if unknown:
        raise ConfigError(f"unknown criteria {unknown}; choose from {', '.join(CRITERIA)}")
    if len({a["condition"] for a in answers}) < 2:
        raise InputError(f"{answers_dir}: answers of at least two conditions are needed to judge")
    answers_meta = read_meta(answers_dir)
    read_meta(out)  # a corrupt one fails now, not after the judging
    chat, _settings = _model(judge_model, config)
    try:
        judgments = run_judge(chat, api.project_prompts(config), answers, out,
                              wanted, progress=progress)
        judge_name = chat.name
    finally:
        chat.close()
    rows = win_rates(judgments)
    (out / "winrates.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
    png = heatmap(rows, out / "winrates.png")
    _write_meta(out, title=f"Judged: {answers_meta.get('title', answers_dir.name)}",
                command="\n".join(filter(None, [answers_meta.get("command"), command])),
                judge=judge_name, model=answers_meta.get("model", ""),
                questions=answers_meta.get("questions", ""))
    # the judge folder also carries the answers' Table 3, when judged in place or copied
    if out.resolve() != answers_dir.resolve() and not (out / "answers.jsonl").exists():
        (out / "answers.jsonl").write_text((answers_dir / "answers.jsonl").read_text())
    return {"judgments": len(judgments), "rows": rows, "png": str(png) if png else "",
            "verdict": judge_verdict(rows), "out": str(out)}


@writes_private
def extraction(
    gold_file: Path, *, limit: int = 12, model: str | None = None, gleanings: int | None = None,
    grounding: bool = True, names: str | None = None, method: str | None = None,
    content: str | None = None, offset: int = 0, out: Path | None = None,
    config: Path | None = None, command: str = "", progress=lambda msg: None,
    aliases: bool = True,
) -> dict:
    from ..recipe import make_recipe
    from .extraction import evaluate
    from .ner_gold import load_golds

    if not gold_file.is_file():
        raise InputError(f"{gold_file}: no such gold file")
    try:
        source, golds = load_golds(gold_file, limit, offset)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise InputError(f"{gold_file}: not Re-DocRED or NER gold data ({exc})") from None
    settings = api.resolve_settings(config, model, method)
    if content:
        settings = replace(settings, content=content).validate()
    info = api.model_info(settings)
    recipe = make_recipe(settings, info.preset)
    e, c = recipe.extract, recipe.classify
    recipe = replace(
        recipe,
        extract=replace(e, grounding=grounding, names=names or e.names,
                        max_gleanings=e.max_gleanings if gleanings is None else gleanings),
        classify=replace(c, max_gleanings=c.max_gleanings if gleanings is None else gleanings),
    )
    chat = api.open_chat_model(info, settings.seed) if recipe.method == "standard" else None
    try:
        row = evaluate(chat, api.project_prompts(config), golds, recipe, progress, aliases)
    finally:
        if chat is not None:
            chat.close()
    row = {"model": info.preset.name, "method": recipe.method, "content": recipe.content,
           "language": golds[0].language if golds else "", "offset": offset,
           "names": "spans" if recipe.mode.verbatim_only else recipe.extract.names,
           "gleanings": (recipe.classify if recipe.mode.verbatim_only else recipe.extract).max_gleanings,
           "grounding": grounding, "aliases": aliases, **row}
    if out:
        _write_meta(out, title=f"Extraction: {info.preset.name} ({recipe.method}, {recipe.content}), "
                    f"{len(golds)} {source} documents", command=command, model=info.preset.name)
        (out / "extraction.json").write_text(json.dumps(row, indent=2), encoding="utf-8")
    return row


@writes_private
def facts(
    questions_file: Path, index: Path, *, methods: str = "basic,local,global",
    out: Path | None = None, model: str | None = None, config: Path | None = None,
    command: str = "", progress=lambda done, total: None, writer: str | None = None,
) -> dict:
    """Score answers to factual questions by whether they contain a gold answer (written
    by `writer` where one is named: `query --writer`)."""
    from ..query import METHODS
    from .facts import load_facts, score_facts

    wanted = [m.strip() for m in methods.split(",") if m.strip()]
    unknown = [m for m in wanted if m not in METHODS]
    if unknown or not wanted:
        raise ConfigError(f"unknown methods {unknown}; choose from {', '.join(METHODS)}")
    rows = load_facts(questions_file)
    session = api.open_session(index, config=config, model=model, writer=writer)
    try:
        result = score_facts(session, rows, wanted, progress)
        name = session.model_name
        content = session.content
    finally:
        session.close()
    result = {"questions_file": str(questions_file), "index": str(index), "model": name,
              "content": content, "writer": session.writer_name, **result}
    if out:
        _write_meta(out, title=f"Facts: {questions_file.name}", command=command,
                    index=str(index), model=name)
        (out / "facts.json").write_text(json.dumps(result, indent=2, ensure_ascii=False),
                                        encoding="utf-8")
    return result


@writes_private
def faithfulness(index: Path, *, out: Path | None = None, command: str = "") -> dict:
    """How much of what an index stores its documents hold (see `faithfulness.py`)."""
    from .. import faithfulness as faith
    from ..query import load_index_data, open_index
    from ..schema import document_from_row

    store, manifest = open_index(index)
    data = load_index_data(store)
    docs = [document_from_row(r) for r in store.read("documents")]
    result = faith.check(docs, list(data.chunks.values()), list(data.entities.values()),
                         data.relationships, [r.record for r in data.reports])
    result = {"index": str(index), "content": manifest.get("content", "abstractive"),
              "method": manifest.get("method", "standard"),
              "model": manifest.get("model", {}).get("preset", ""), **result,
              "breaches": faith.breaches(result)}
    if out:
        _write_meta(out, title=f"Faithfulness: {index}", command=command)
        (out / "faithfulness.json").write_text(json.dumps(result, indent=2, ensure_ascii=False),
                                               encoding="utf-8")
    return result


def parse_sizes(text: str) -> list[int]:
    """Chunk sizes from a comma list such as "600,1200,2400"."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    bad = [p for p in parts if not p.isdigit() or int(p) < 1]
    if bad or not parts:
        raise ConfigError(f"--sizes '{text}': give chunk sizes in tokens as a comma list of "
                          "positive whole numbers, e.g. 600,1200,2400")
    return [int(p) for p in parts]


@writes_private
def chunking(
    text_file: Path, out: Path, *, tokens: int = 12000, sizes: str = "600,1200,2400",
    gleanings: int = 3, model: str | None = None, n_ctx: int = 0, config: Path | None = None,
    command: str = "", progress=lambda msg: None,
) -> dict:
    from ..recipe import make_recipe
    from ..tokenizer import corpus_encoding
    from .chunking import entity_references, figure

    size_list = parse_sizes(sizes)
    if not text_file.is_file():
        raise InputError(f"{text_file}: no such text file")
    enc = corpus_encoding()
    text = enc.decode(enc.encode(text_file.read_text(encoding="utf-8", errors="replace"))[:tokens])
    chat, settings = _model(model, config, n_ctx)
    try:
        rows = entity_references(chat, api.project_prompts(config), text, enc,
                                 size_list, gleanings, make_recipe(settings, chat.preset).extract,
                                 progress)
    finally:
        chat.close()
    _write_meta(out, title=f"Figure 2: {text_file.name}, first {tokens} tokens",
                command=command, model=chat.name)
    (out / "chunking.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
    png = figure(rows, out / "chunking.png")
    return {"rows": rows, "png": str(png) if png else "", "out": str(out)}


@writes_private
def reference(
    index: Path, reference_dir: Path, *, question: str = "", method: str = "global",
    top: int = 10, out: Path | None = None, model: str | None = None,
    config: Path | None = None, command: str = "", writer: str | None = None,
) -> dict:
    """Our level-0 report summaries against a microsoft/graphrag index of the same text
    (see `reference.py`), and, with `question`, which of its largest communities our
    answer names (written by `writer`, if given: issue 30's Carol criterion is
    `eval reference INDEX --reference REF -q "What are the main themes of the story?"
    --writer qwen2.5-coder-1.5b`)."""
    from ..query import load_index_data, open_index
    from .reference import lines, load_reference, summary_recall, themes_named

    ref = load_reference(reference_dir)
    store, _manifest = open_index(index)
    data = load_index_data(store)
    level0 = [c for c in data.communities if c.level == 0]
    summaries = {r.id: r.summary for r in data.reports}
    result: dict[str, Any] = {
        "index": str(index), "reference": str(reference_dir), "top": top,
        "summaries": summary_recall(ref, [(c.id, c.entities) for c in level0], summaries, top),
    }
    if question:
        session = api.open_session(index, config=config, model=model, writer=writer)
        try:
            answer = session.ask(question, method=method)
        finally:
            session.close()
        documents = {data.chunks[c.id].document_id for c in answer.citations
                     if c.kind == "chunk" and c.cited and c.id in data.chunks}
        result["answer"] = {"question": question, "method": method, "text": answer.answer,
                            "documents_cited": sorted(data.documents[d].path for d in documents),
                            "words": len(answer.answer.split()),
                            "seconds": answer.timings.get("total_seconds"),
                            **({"written": {k: answer.written[k] for k in ("writer", "kept", "dropped")}}
                               if answer.written else {}),
                            **themes_named(ref, answer.answer, top),
                            "lines": lines(answer.answer, {
                                c.ref: data.chunks[c.id].text for c in answer.citations
                                if c.kind == "chunk" and c.id in data.chunks})}
    if out:
        _write_meta(out, title=f"Reference: {index} against {reference_dir.name}",
                    command=command, index=str(index))
        (out / "reference.json").write_text(json.dumps(result, indent=2, ensure_ascii=False),
                                            encoding="utf-8")
    return result


@writes_private
def coverage(
    questions_file: Path, index: Path, *, conditions: str = "global,drift,ts,basic,local",
    limit: int = 0, offset: int = 0, out: Path | None = None, model: str | None = None,
    config: Path | None = None, command: str = "", progress=lambda done, total: None,
) -> dict:
    """Judge-free comprehensiveness and diversity per condition (see `coverage.py`)."""
    from .coverage import score_coverage

    questions = load_questions(questions_file)[offset:][: limit or None]
    session = api.open_session(index, config=config, model=model)
    try:
        parsed = parse_conditions(conditions, session.data.levels)
        result = score_coverage(session, questions, parsed, progress)
        content = session.content
    finally:
        session.close()
    result = {"questions_file": str(questions_file), "index": str(index), "content": content,
              **result}
    if out:
        _write_meta(out, title=f"Coverage: {questions_file.name} on {index}", command=command,
                    index=str(index))
        (out / "coverage.json").write_text(json.dumps(result, indent=2, ensure_ascii=False),
                                           encoding="utf-8")
    return result


@writes_private
def relevance(
    facts_files: list[Path], index: Path, *, level: int = 0, with_model: bool = True,
    out: Path | None = None, model: str | None = None, config: Path | None = None,
    command: str = "", progress=lambda done, total: None,
) -> dict:
    """AUC of dynamic community selection's relevance tests (see `relevance.py`)."""
    from .facts import load_facts
    from .relevance import measure

    facts = [f for path in facts_files for f in load_facts(path)]
    session = api.open_session(index, config=config, model=model)
    try:
        result = measure(session, facts, level, with_model, progress)
    finally:
        session.close()
    result = {"facts": [str(p) for p in facts_files], "index": str(index), **result}
    if out:
        _write_meta(out, title=f"Relevance tests on {index}", command=command, index=str(index))
        (out / "relevance.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result
