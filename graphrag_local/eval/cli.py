"""The `graphrag-local eval` commands: each parses options, calls one function of
`eval.commands` (or `eval.report`) and renders its result with rich. Registered on the
main app by `cli.py`; heavy imports happen inside the commands."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from ..cli_common import (
    ConfigOpt,
    IndexOpt,
    JsonOpt,
    ModelOpt,
    ProgressBars,
    WriterOpt,
    command_line,
    log,
    out,
    user_errors,
)

eval_app = typer.Typer(help="Evaluate offline: questions, answers, judging, extraction, figures.")


@eval_app.command("questions")
@user_errors
def eval_questions(
    out_file: Path = typer.Option(..., "--out", "-o", help="Where to write the questions (JSONL)."),
    index: Path | None = typer.Option(None, "--index", "-i", help="Index whose chunks the model describes."),
    description: str = typer.Option("", "--description", help="A short description of the corpus."),
    n: int = typer.Option(3, "--n", help="Personas, tasks per persona and questions per task."),
    personas: int | None = typer.Option(None, help="Override --n for personas."),
    tasks: int | None = typer.Option(None, help="Override --n for tasks per persona."),
    questions: int | None = typer.Option(None, help="Override --n for questions per task."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Generate questions the paper's way: personas -> tasks -> questions about the whole corpus."""
    from . import commands

    r = commands.questions(out_file, index=index, description=description,
                           personas=personas or n, tasks=tasks or n, per_task=questions or n,
                           model=model, config=config, command=command_line(), progress=log)
    out.print(f"wrote {r['questions']} questions to {r['out']} ({r['llm_calls']} LLM calls)")


@eval_app.command("answer")
@user_errors(resume="the answers so far are saved in the run folder")
def eval_answer(
    questions_file: Path = typer.Argument(..., help="JSONL, or CSV with a question/question_text column."),
    index: Path = IndexOpt,
    conditions: str = typer.Option("C0,basic", "--conditions", help="Comma list: C0, C1, ..., global, local, basic (SS), ts."),
    out_dir: Path = typer.Option(..., "--out", "-o", help="Run folder (answers.jsonl; resumes)."),
    limit: int = typer.Option(0, "--limit", help="Only the first N questions."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Answer a question set under each condition; saved as each answer completes."""
    from . import commands

    with ProgressBars(quiet=False) as bar:
        r = commands.answer(questions_file, index, conditions, out_dir, limit=limit,
                            model=model, config=config, command=command_line(),
                            progress=lambda d, t, what: bar("answers", d, t))
    out.print(f"{r['answers']} answers in {r['out']}")


@eval_app.command("judge")
@user_errors(resume="the judgments so far are saved in the output folder")
def eval_judge(
    answers_dir: Path = typer.Argument(..., help="A folder made by `eval answer`."),
    out_dir: Path = typer.Option(..., "--out", "-o", help="Where to write judgments, tables and the PNG."),
    judge: str | None = typer.Option(None, "--judge", help="Judge model preset (default: the default preset)."),
    criteria: str = typer.Option("", "--criteria", help="Comma list (default: all four)."),
    config: Path | None = ConfigOpt,
) -> None:
    """Pairwise LLM-as-judge in both orders: win rates, intervals, judge consistency, heatmap."""
    from . import commands
    from .judge import markdown_table

    with ProgressBars(quiet=False) as bar:
        r = commands.judge(answers_dir, out_dir, judge_model=judge, criteria=criteria,
                           config=config, command=command_line(),
                           progress=lambda d, t: bar("judge", d, t))
    out.print(markdown_table(r["rows"]))
    out.print(r["verdict"])
    out.print(f"{r['judgments']} judgments in {r['out']}" + (f"; figure {r['png']}" if r["png"] else
              "; no figure (install matplotlib: pip install 'graphrag-local[eval]')"))


@eval_app.command("extraction")
@user_errors
def eval_extraction(
    gold_file: Path = typer.Argument(..., help="Re-DocRED JSON (e.g. ../shared/data/re_docred/dev_revised.json), or gold NER: Universal NER .iob2, token-TAG .bio, Stockmark NER .json (10 sentences a document)."),
    limit: int = typer.Option(12, "--limit", help="First N documents."),
    offset: int = typer.Option(0, "--offset", help="Skip the first N documents (tune on other documents than you report)."),
    model: str | None = ModelOpt,
    gleanings: int | None = typer.Option(None, "--gleanings", help="Gleaning rounds (default: settings)."),
    no_grounding: bool = typer.Option(False, "--no-grounding", help="Keep ungrounded records."),
    no_aliases: bool = typer.Option(False, "--no-aliases", help="Score the names as extracted, before cleaning and alias resolution."),
    names: str | None = typer.Option(None, "--names", help='Abstractive: "spans" or "free" (default: the preset\'s).'),
    method: str | None = typer.Option(None, "--method", help="standard or fast (default: the config's)."),
    content: str | None = typer.Option(None, "--content", help="extractive or abstractive (default: the preset's)."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write extraction.json here."),
    config: Path | None = ConfigOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Entity precision/recall/F1, type accuracy and relationship precision/recall of the
    extraction stage against gold data."""
    from . import commands

    r = commands.extraction(gold_file, limit=limit, model=model, gleanings=gleanings,
                            grounding=not no_grounding, names=names, method=method,
                            content=content, offset=offset, out=out_dir, config=config,
                            command=command_line(), progress=log, aliases=not no_aliases)
    if as_json:
        print(json.dumps(r, indent=2))
        return
    out.print(
        f"{r['model']} ({r['method']}, {r['content']}, {r['gleanings']} gleanings) on "
        f"{r['docs']} documents ({r['language']}): entities P {r['precision']:.3f} R {r['recall']:.3f} "
        f"F1 {r['f1']:.3f}; type accuracy {r['type_accuracy']:.3f} ({r['typed_entities']} "
        f"PER/ORG/LOC entities); relationships P {r['rel_precision']:.3f} "
        f"R {r['rel_recall']:.3f}; {r['seconds_per_doc']} s/doc; {r['failures']} failed"
    )
    if r["clustering_b3_f1"] is None:
        out.print("mention clustering: not scored (this gold set does not group a name's "
                  "mentions under one entity)")
        return
    out.print(
        f"mention clustering (B-cubed over the gold mention names predicted): "
        f"P {r['clustering_b3_precision']:.3f} R {r['clustering_b3_recall']:.3f} "
        f"F1 {r['clustering_b3_f1']:.3f}; {r['merged_pairs']} merged name pairs, "
        f"precision {r['merge_precision'] if r['merge_precision'] is not None else '-'}"
    )


@eval_app.command("facts")
@user_errors
def eval_facts(
    questions_file: Path = typer.Argument(..., help="JSONL with question and answers (gold), e.g. samples/facts.jsonl."),
    index: Path = IndexOpt,
    methods: str = typer.Option("basic,local,global", "--methods", help="Comma list of search methods."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write facts.json here."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    writer: str | None = WriterOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Factual questions: the share of answers that contain the gold answer, per method."""
    from . import commands

    with ProgressBars(quiet=as_json) as bar:
        r = commands.facts(questions_file, index, methods=methods, out=out_dir, model=model,
                           config=config, command=command_line(), writer=writer,
                           progress=lambda d, t: bar("answers", d, t))
    if as_json:
        print(json.dumps(r, indent=2, ensure_ascii=False))
        return
    t = Table(title=f"facts: {r['questions_file']} on {r['index']} ({r['content']})")
    for col in ("method", "correct", "accuracy", "median s / answer", "LLM calls / answer"):
        t.add_column(col)
    for m in r["methods"]:
        t.add_row(m["method"], f"{m['correct']}/{m['questions']}", f"{m['accuracy']:.0%}",
                  f"{m['median_seconds']:.1f}", str(m["llm_calls_per_answer"]))
    out.print(t)
    for a in r["answers"]:
        if not a["correct"]:
            out.print(f"[yellow]missed[/] {a['method']} {escape(a['question'])} (gold: "
                      f"{escape(', '.join(a['gold']))})")


@eval_app.command("coverage")
@user_errors
def eval_coverage(
    questions_file: Path = typer.Argument(..., help="JSONL, or CSV with a question/question_text column."),
    index: Path = IndexOpt,
    conditions: str = typer.Option("global,drift,ts,basic,local", "--conditions",
                                   help="Comma list: C0, C1, ..., global, drift, ts, basic, local."),
    limit: int = typer.Option(0, "--limit", help="Only the first N questions."),
    offset: int = typer.Option(0, "--offset", help="Skip the first N questions."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write coverage.json here."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Judge-free comprehensiveness and diversity: documents cited, communities covered,
    entities named, redundancy, words and seconds, per condition."""
    from . import commands

    with ProgressBars(quiet=as_json) as bar:
        r = commands.coverage(questions_file, index, conditions=conditions, limit=limit, offset=offset,
                              out=out_dir, model=model, config=config, command=command_line(),
                              progress=lambda d, t: bar("answers", d, t))
    if as_json:
        print(json.dumps(r, indent=2, ensure_ascii=False))
        return
    out.print(coverage_table(r))


def share(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def coverage_table(r: dict) -> Table:
    t = Table(title=f"coverage: {Path(r['questions_file']).name} on {r['index']} "
              f"({r['documents']} documents, {r['root_communities']} root communities)")
    for col in ("condition", "questions", "documents cited", "communities covered",
                "entities named", "redundancy", "sourced", "verbatim", "words (max)", "seconds",
                "LLM calls"):
        t.add_column(col)
    for c in r["conditions"]:
        t.add_row(c["condition"], str(c["questions"]),
                  f"{c['documents_cited']} ({c['documents_share']:.0%})",
                  f"{c['communities_covered']} ({c['communities_share']:.0%})",
                  str(c["entities_named"]),
                  "-" if c["redundancy"] is None else f"{c['redundancy']:.2f}",
                  share(c.get("sourced")), share(c.get("verbatim")),
                  f"{c['words']:.0f} ({c['max_words']})", f"{c['seconds']:.1f}", str(c["llm_calls"]))
    return t


@eval_app.command("relevance")
@user_errors
def eval_relevance(
    facts_files: list[Path] = typer.Argument(..., help="JSONL with question and answers (gold), e.g. samples/facts.jsonl."),
    index: Path = IndexOpt,
    level: int = typer.Option(0, "--level", help="The communities of this level are tested."),
    no_model: bool = typer.Option(False, "--no-model", help="Only the embedding and graph tests."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write relevance.json here."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    as_json: bool = JsonOpt,
) -> None:
    """AUC of the community relevance tests (the model's YES/NO, the embedder, the graph)
    on (question, community) pairs labelled by gold answers."""
    from . import commands

    with ProgressBars(quiet=as_json) as bar:
        r = commands.relevance(facts_files, index, level=level, with_model=not no_model,
                               out=out_dir, model=model, config=config, command=command_line(),
                               progress=lambda d, t: bar("pairs", d, t))
    if as_json:
        print(json.dumps(r, indent=2))
        return
    out.print(f"{r['pairs']} (question, community) pairs at level {r['level']}, "
              f"{r['relevant']} relevant: AUC " + ", ".join(
                  f"{k} {v if v is not None else '-'}" for k, v in r["auc"].items())
              + (f" ({r['model']} says YES to {r['model_says_yes']:.0%})" if "model" in r else ""))


@eval_app.command("faithfulness")
@user_errors
def eval_faithfulness(
    index: Path = typer.Argument(..., help="An index folder."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write faithfulness.json here."),
    as_json: bool = JsonOpt,
) -> None:
    """How much of what the index stores its documents hold: verbatim and near-verbatim
    sentences per field, unknown names and numbers, duplicated and unsourced findings."""
    from . import commands

    r = commands.faithfulness(index, out=out_dir, command=command_line())
    if as_json:
        print(json.dumps(r, indent=2, ensure_ascii=False))
        return
    t = Table(title=f"faithfulness of {r['index']} ({r['content']}, {r['method']}, {r['model']})")
    for col in ("field", "sentences", "verbatim", "near-verbatim", "traceable"):
        t.add_column(col)
    for name, f in r["fields"].items():
        t.add_row(name.replace("_", " "), str(f["sentences"]), str(f["verbatim"]),
                  str(f["near_verbatim"]), f"{f['traceable_share']:.0%}")
    t.add_row("all", str(r["sentences"]), str(r["verbatim"]), str(r["near_verbatim"]),
              f"{r['traceable_share']:.0%}")
    out.print(t)
    out.print(f"names and numbers absent from the corpus: {r['unknown_names_and_numbers']}"
              + (f" (e.g. {', '.join(r['unknown_examples'])})" if r["unknown_examples"] else ""))
    out.print(f"findings: {r['findings']}; duplicated: {r['duplicated_findings']}; without a "
              f"source: {r['findings_without_source']}; sources pointing at other text: "
              f"{r['bad_sources']}")
    for s in r["untraceable_examples"]:
        out.print(f"[yellow]not in the documents:[/] {escape(s)}")


@eval_app.command("chunking")
@user_errors
def eval_chunking(
    text_file: Path = typer.Argument(..., help="A text file, e.g. ../shared/data/christmas_carol/a_christmas_carol.txt"),
    out_dir: Path = typer.Option(..., "--out", "-o"),
    tokens: int = typer.Option(12000, "--tokens", help="First N cl100k tokens of the file."),
    sizes: str = typer.Option("600,1200,2400", "--sizes", help="Chunk sizes (tokens)."),
    gleanings: int = typer.Option(3, "--gleanings", help="Up to this many gleaning rounds."),
    n_ctx: int = typer.Option(0, "--n-ctx", help="Model context for large chunks (0: the preset's)."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """The paper's Figure 2: entity references vs chunk size x gleanings (table and PNG)."""
    from . import commands

    r = commands.chunking(text_file, out_dir, tokens=tokens, sizes=sizes, gleanings=gleanings,
                          model=model, n_ctx=n_ctx, config=config, command=command_line(),
                          progress=log)
    for row in r["rows"]:
        out.print(f"chunk size {row['chunk_size']:>5}  gleanings {row['gleanings']}  "
                  f"entity references {row['entity_references']}")
    out.print(f"written to {r['out']}" + (f"; figure {r['png']}" if r["png"] else ""))


@eval_app.command("reference")
@user_errors
def eval_reference(
    index: Path = typer.Argument(..., help="Our index of the text."),
    reference_dir: Path = typer.Option(..., "--reference", help="A microsoft/graphrag output folder of the same text (parquet)."),
    question: str = typer.Option("", "--question", "-q", help="Also ask this and say which reference communities the answer names."),
    method: str = typer.Option("global", "--method", help="The search method for --question."),
    top: int = typer.Option(10, "--top", help="The reference's N largest level-0 communities."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write reference.json here."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    writer: str | None = WriterOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Our report summaries (and an answer's themes) against another GraphRAG index of the
    same text: how many of its largest communities' key entities ours name."""
    from . import commands

    r = commands.reference(index, reference_dir, question=question, method=method, top=top,
                           out=out_dir, model=model, config=config, command=command_line(),
                           writer=writer)
    if as_json:
        print(json.dumps(r, indent=2, ensure_ascii=False))
        return
    s = r["summaries"]
    t = Table(title=f"level-0 summaries against {reference_dir.name}: key entities named "
              f"{s['named']}/{s['wanted']}, mean recall {s['mean_recall']}")
    for col in ("reference community", "size", "key entities of its summary", "our match", "named"):
        t.add_column(col)
    for c in s["communities"]:
        t.add_row(escape(c["title"][:60]), str(c["size"]), escape(", ".join(c["key_entities"])),
                  f"{c['ours'][:8]} ({c['overlap']:.2f})", escape(", ".join(c["named"])))
    out.print(t)
    if "answer" in r:
        a = r["answer"]
        out.print(a["text"])
        out.print(f"\n[bold]{a['named']} of {a['of']}[/] largest reference communities named; "
                  f"{len(a['documents_cited'])} documents cited; {a['words']} words"
                  + (f"; written by {a['written']['writer']}: {a['written']['kept']} sentences "
                     f"kept, {a['written']['dropped']} dropped" if "written" in a else ""))
        n = a["lines"]
        out.print(f"{n['citing']} of {n['lines']} lines cite; {n['copies']} of the "
                  f"{n['written']} written ones are copies (80% or more of the line one run of "
                  "a chunk it cites)")
        for c in a["communities"]:
            mark = "[green]named[/]" if c["named_by"] else "[red]not named[/]"
            out.print(f"{mark} {escape(c['title'])} (key: {escape(', '.join(c['key_entities']))})"
                      + (f" by {escape(', '.join(c['named_by']))}" if c["named_by"] else ""))


@eval_app.command("report")
@user_errors
def eval_report(
    run_dirs: list[Path] = typer.Argument(..., help="Run folders from eval answer/judge/extraction/chunking."),
    out_file: Path | None = typer.Option(None, "--out", "-o", help="Markdown file (default: print)."),
) -> None:
    """One markdown summary of evaluation runs, with their tables, figures and commands."""
    from .report import build_report

    text = build_report(run_dirs, out_file)
    if out_file is None:
        print(text)
    else:
        out.print(f"wrote {out_file}")
