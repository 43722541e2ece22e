"""The `graphrag-local` command. Each command parses options, calls one function of
`graphrag_local.api`, and renders the result with rich. Heavy imports happen inside
commands so `--help` is instant. Only `GraphragError`s are caught: they print one line
and exit non-zero; anything else is a bug and keeps its traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .errors import GraphragError
from .settings import DEFAULT_INDEX_DIR

app = typer.Typer(
    help="Local-first GraphRAG: index private documents with a GGUF model, offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
models_app = typer.Typer(help="List model presets, or register your own GGUF.")
app.add_typer(models_app, name="models")
eval_app = typer.Typer(help="Evaluate offline: questions, answers, judging, extraction, figures.")
app.add_typer(eval_app, name="eval")

out = Console()
err = Console(stderr=True)

IndexOpt = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", "-i", help="Index folder.")
ModelOpt = typer.Option(None, "--model", "-m", help="Model preset (see `graphrag-local models`).")
ConfigOpt = typer.Option(None, "--config", "-c", help="Config file (TOML).")
JsonOpt = typer.Option(False, "--json", help="Print machine-readable JSON.")


def _fail(exc: GraphragError) -> None:
    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
    raise typer.Exit(exc.exit_code)


@app.command()
def build(
    docs_dir: Path = typer.Argument(..., help="Folder of .txt, .md and .csv documents."),
    index: Path = IndexOpt,
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    method: str | None = typer.Option(
        None, "--method",
        help="standard (the model extracts) or fast (candidate spans and co-occurrence; "
        "no model before the reports). Default: the config's method, else standard.",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate calls and time; run nothing."),
    as_json: bool = JsonOpt,
) -> None:
    """Build (or resume, or update) the index of DOCS_DIR."""
    from . import api

    try:
        if dry_run:
            result = api.dry_run(docs_dir, index, config=config, model=model, method=method)
            if as_json:
                print(json.dumps(result, indent=2))
            else:
                _render_dry_run(result)
            return
        with _progress(quiet=as_json) as progress:
            summary = api.build(docs_dir, index, config=config, model=model, method=method,
                                progress=progress)
    except GraphragError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]: completed work is saved; run the same command to resume")
        raise typer.Exit(130) from None
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        _render_summary(summary, index)


@app.command()
def status(index: Path = IndexOpt, as_json: bool = JsonOpt) -> None:
    """Show what an index holds: row counts, manifest, failures."""
    from . import api

    try:
        result = api.status(index)
    except GraphragError as exc:
        _fail(exc)
    if as_json:
        print(json.dumps(result, indent=2))
        return
    t = Table(title=f"index {result['index']}" + ("" if result["complete"] else " (incomplete)"))
    t.add_column("table")
    t.add_column("rows", justify="right")
    for name, n in {**result["tables"], **result["work_tables"]}.items():
        t.add_row(name, str(n))
    out.print(t)
    m = result["manifest"]
    out.print(
        f"model [bold]{m['model']['preset']}[/] sha256 {m['model']['sha256'][:12]}…  "
        f"n_ctx {m['model']['n_ctx']}  tokenizer {m['tokenizer']}  embedder {m['embedder']}  "
        f"seed {m['seed']}"
    )
    _render_quality(result["community_quality"], result["partition_change"])
    for f in result["failed_chunks"]:
        out.print(f"[red]failed chunk[/] {f['chunk_id']}: {escape(f['error'])}")
    for f in result["failed_reports"]:
        out.print(
            f"[red]failed report[/] {f['community_id']} (level {f['level']}): {escape(f['error'])}"
        )


@models_app.callback(invoke_without_command=True)
def models(ctx: typer.Context, as_json: bool = JsonOpt) -> None:
    """List model presets and whether each is available on this machine."""
    if ctx.invoked_subcommand is not None:
        return
    from . import api

    try:
        rows = api.list_models()
    except GraphragError as exc:
        _fail(exc)
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    t = Table(title="model presets")
    for col in ("preset", "available", "size", "n_ctx", "sha256", "description"):
        t.add_column(col)
    for r in rows:
        t.add_row(
            r["name"] + (" (default)" if r["default"] else ""),
            "[green]yes[/]" if r["available"] else "[dim]no[/]",
            f"{r['size_mb']} MB" if r["size_mb"] else "",
            str(r["n_ctx"]),
            r["sha256"][:12],
            r["description"],
        )
    out.print(t)


@models_app.command("add")
def models_add(
    name: str = typer.Argument(..., help="Preset name to register."),
    path: Path = typer.Argument(..., help="Path of the GGUF file."),
    n_ctx: int = typer.Option(8192, help="Context window to use."),
    chat_format: str = typer.Option("auto", help='"auto" (GGUF template), "plain", or a llama-cpp format.'),
) -> None:
    """Register your own GGUF as a preset."""
    from . import api

    try:
        where = api.add_model(name, path, n_ctx, chat_format)
    except GraphragError as exc:
        _fail(exc)
    out.print(f"registered [bold]{name}[/] -> {path} in {where}")


@app.command()
def init(
    folder: Path = typer.Argument(Path("."), help="Where to write graphrag-local.toml."),
    prompts: bool = typer.Option(False, "--prompts", help="Also copy the prompts for editing."),
) -> None:
    """Write a commented config file (and optionally the prompts) to customise."""
    from . import api

    try:
        written = api.init_project(folder, copy_prompts=prompts)
    except GraphragError as exc:
        _fail(exc)
    for p in written:
        out.print(f"wrote {p}")


@app.command()
def config(config: Path | None = ConfigOpt, model: str | None = ModelOpt) -> None:
    """Print the resolved settings (defaults <- config file <- flags)."""
    from . import api

    try:
        print(api.config_text(config, model), end="")
    except GraphragError as exc:
        _fail(exc)


MethodOpt = typer.Option(
    "global", "--method", "-M",
    help="global (map-reduce over community reports), local (entities and their "
    "neighbourhood), basic (vector RAG over chunks) or ts (map-reduce over chunks).",
)
LevelOpt = typer.Option(
    None, "--level", "-l",
    help='Community level for global search: a number (0 = root) or "auto" '
    "(default: query.level in the config).",
)


@app.command()
def query(
    question: str = typer.Argument(..., help="The question."),
    method: str = MethodOpt,
    level: str | None = LevelOpt,
    index: Path = IndexOpt,
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    show_context: bool = typer.Option(False, "--show-context", help="Print what the model was given."),
    as_json: bool = JsonOpt,
) -> None:
    """Answer a question from the index, with its sources."""
    from . import api
    from .query import result_dict

    try:
        session = api.open_session(index, config=config, model=model)
        try:
            with _Stream(enabled=not as_json) as stream:
                result = session.ask(question, method=method, level=level, on_text=stream)
            data = result_dict(result, session.model.name)
        finally:
            session.close()
    except GraphragError as exc:
        _fail(exc)
    if as_json:
        if show_context:
            data["context"] = result.context
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    _render_answer_tail(result, data, stream)
    if show_context:
        _render_context(result)
    _render_sources(result)


@app.command()
def chat(
    method: str = MethodOpt,
    level: str | None = LevelOpt,
    index: Path = IndexOpt,
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Ask questions in a conversation; follow-ups use what was said. Reads piped input
    too. Type /help for commands."""
    from . import api
    from .query import METHODS, result_dict

    interactive = sys.stdin.isatty()
    try:
        session = api.open_session(index, config=config, model=model)
    except GraphragError as exc:
        _fail(exc)
    history: list[tuple[str, str]] = []
    last = None
    if interactive:
        out.print(f"[bold]graphrag-local chat[/] on {index} ({method}); /help for commands, /quit to leave")
    try:
        while True:
            try:
                line = out.input("[bold cyan]you>[/] ") if interactive else sys.stdin.readline()
            except EOFError:
                break
            if not interactive and not line:
                break
            line = line.strip()
            if not line:
                continue
            if not interactive:
                out.print(f"[bold cyan]you>[/] {escape(line)}")
            if line.startswith("/"):
                cmd, _, arg = line[1:].partition(" ")
                arg = arg.strip()
                if cmd in ("quit", "exit", "q"):
                    break
                if cmd == "method" and arg in METHODS:
                    method = arg
                    out.print(f"method: {method}")
                elif cmd == "level" and arg:
                    try:
                        session.resolve_level(arg)
                        level = arg
                        out.print(f"level: {level}")
                    except GraphragError as exc:
                        err.print(f"[red]{escape(str(exc))}[/]")
                elif cmd == "sources" and last is not None:
                    _render_sources(last)
                elif cmd == "context" and last is not None:
                    _render_context(last)
                elif cmd == "clear":
                    history.clear()
                    out.print("conversation cleared")
                else:
                    out.print(CHAT_HELP.format(methods="|".join(METHODS)))
                continue
            try:
                with _Stream(enabled=True) as stream:
                    last = session.ask(line, method=method, level=level, history=history, on_text=stream)
            except GraphragError as exc:
                err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
                continue
            _render_answer_tail(last, result_dict(last, session.model.name), stream, brief=True)
            history.append((line, last.answer))
    except KeyboardInterrupt:
        out.print()
    finally:
        session.close()


CHAT_HELP = """commands:
  /method {methods}   switch the search method
  /level N|auto       community level for global search
  /sources            the sources of the last answer
  /context            what the model was given for the last answer
  /clear              forget the conversation
  /quit               leave (or Ctrl-D)"""


@app.command()
def show(
    what: str = typer.Argument(..., help="communities, reports, entities, or graph."),
    name: str = typer.Argument("", help="An entity name, or a report ref (R3) or id."),
    level: int | None = typer.Option(None, "--level", "-l", help="Only this community level."),
    index: Path = IndexOpt,
    out_file: Path | None = typer.Option(
        None, "--out", "-o", help="graph: the HTML file to write (default: graph.html)."),
    as_json: bool = JsonOpt,
) -> None:
    """Browse what was built: the community tree, reports, an entity with its
    relationships and sources, or (graph) one offline HTML page of the whole graph."""
    from . import api

    try:
        title = name or f"graphrag-local: {index}" if what == "graph" else name
        data = api.show(index, what, title, level)
        if what == "graph":
            from .graph_view import write_graph_html

            path = write_graph_html(data["payload"], out_file or Path("graph.html"))
            p = data["payload"]
            out.print(f"wrote {path}: {len(p['nodes'])} entities, {len(p['edges'])} "
                      f"relationships, {len(p['communities'])} communities in "
                      f"{len(p['levels'])} levels; open it in a browser (works offline)")
            return
    except GraphragError as exc:
        _fail(exc)
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    _render_show(data)


@app.command()
def export(
    index: Path = typer.Argument(..., help="The index folder to export."),
    fmt: str = typer.Option(..., "--format", "-f",
                            help="graphrag (microsoft/graphrag's parquet tables), graphml "
                            "(Gephi, networkx) or csv (Neo4j LOAD CSV, spreadsheets)."),
    out_dir: Path = typer.Option(..., "--out", "-o", help="Folder to write the files into."),
    as_json: bool = JsonOpt,
) -> None:
    """Export an index for other tools."""
    from . import api

    try:
        r = api.export(index, fmt, out_dir)
    except GraphragError as exc:
        _fail(exc)
    if as_json:
        print(json.dumps(r, indent=2))
        return
    counts = ", ".join(f"{k} {v}" for k, v in r["counts"].items())
    out.print(f"wrote {len(r['files'])} {r['format']} files to {r['out']}: {counts}")


def _command() -> str:
    return "graphrag-local " + " ".join(
        a if a and all(ch.isalnum() or ch in "-_./=," for ch in a) else json.dumps(a)
        for a in sys.argv[1:]
    )


def _log(msg: str) -> None:
    err.print(f"[dim]{escape(msg)}[/]", highlight=False)


@eval_app.command("questions")
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
    from .eval import commands

    try:
        r = commands.questions(out_file, index=index, description=description,
                               personas=personas or n, tasks=tasks or n, per_task=questions or n,
                               model=model, config=config, command=_command(), progress=_log)
    except GraphragError as exc:
        _fail(exc)
    out.print(f"wrote {r['questions']} questions to {r['out']} ({r['llm_calls']} LLM calls)")


@eval_app.command("answer")
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
    from .eval import commands

    try:
        with _progress(quiet=False) as bar:
            r = commands.answer(questions_file, index, conditions, out_dir, limit=limit,
                                model=model, config=config, command=_command(),
                                progress=lambda d, t, what: bar("answers", d, t))
    except GraphragError as exc:
        _fail(exc)
    out.print(f"{r['answers']} answers in {r['out']}")


@eval_app.command("judge")
def eval_judge(
    answers_dir: Path = typer.Argument(..., help="A folder made by `eval answer`."),
    out_dir: Path = typer.Option(..., "--out", "-o", help="Where to write judgments, tables and the PNG."),
    judge: str | None = typer.Option(None, "--judge", help="Judge model preset (default: the default preset)."),
    criteria: str = typer.Option("", "--criteria", help="Comma list (default: all four)."),
    config: Path | None = ConfigOpt,
) -> None:
    """Pairwise LLM-as-judge in both orders: win rates, intervals, judge consistency, heatmap."""
    from .eval import commands
    from .eval.judge import markdown_table

    try:
        with _progress(quiet=False) as bar:
            r = commands.judge(answers_dir, out_dir, judge_model=judge, criteria=criteria,
                               config=config, command=_command(),
                               progress=lambda d, t: bar("judge", d, t))
    except GraphragError as exc:
        _fail(exc)
    out.print(markdown_table(r["rows"]))
    out.print(r["verdict"])
    out.print(f"{r['judgments']} judgments in {r['out']}" + (f"; figure {r['png']}" if r["png"] else
              "; no figure (install matplotlib: pip install 'graphrag-local[eval]')"))


@eval_app.command("extraction")
def eval_extraction(
    gold_file: Path = typer.Argument(..., help="Re-DocRED JSON, e.g. ../shared/data/re_docred/dev_revised.json"),
    limit: int = typer.Option(12, "--limit", help="First N documents."),
    offset: int = typer.Option(0, "--offset", help="Skip the first N documents (tune on other documents than you report)."),
    model: str | None = ModelOpt,
    gleanings: int | None = typer.Option(None, "--gleanings", help="Gleaning rounds (default: settings)."),
    no_grounding: bool = typer.Option(False, "--no-grounding", help="Keep ungrounded records."),
    names: str | None = typer.Option(None, "--names", help='Abstractive: "spans" or "free" (default: the preset\'s).'),
    method: str | None = typer.Option(None, "--method", help="standard or fast (default: the config's)."),
    content: str | None = typer.Option(None, "--content", help="extractive or abstractive (default: the preset's)."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write extraction.json here."),
    config: Path | None = ConfigOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Entity precision/recall/F1, type accuracy and relationship precision/recall of the
    extraction stage against gold data."""
    from .eval import commands

    try:
        r = commands.extraction(gold_file, limit=limit, model=model, gleanings=gleanings,
                                grounding=not no_grounding, names=names, method=method,
                                content=content, offset=offset, out=out_dir, config=config,
                                command=_command(), progress=_log)
    except GraphragError as exc:
        _fail(exc)
    if as_json:
        print(json.dumps(r, indent=2))
        return
    out.print(
        f"{r['model']} ({r['method']}, {r['content']}, {r['gleanings']} gleanings) on "
        f"{r['docs']} documents: entities P {r['precision']:.3f} R {r['recall']:.3f} "
        f"F1 {r['f1']:.3f}; type accuracy {r['type_accuracy']:.3f} ({r['typed_entities']} "
        f"PER/ORG/LOC entities); relationships P {r['rel_precision']:.3f} "
        f"R {r['rel_recall']:.3f}; {r['seconds_per_doc']} s/doc; {r['failures']} failed"
    )


@eval_app.command("facts")
def eval_facts(
    questions_file: Path = typer.Argument(..., help="JSONL with question and answers (gold), e.g. samples/facts.jsonl."),
    index: Path = IndexOpt,
    methods: str = typer.Option("basic,local,global", "--methods", help="Comma list of search methods."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write facts.json here."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Factual questions: the share of answers that contain the gold answer, per method."""
    from .eval import commands

    try:
        with _progress(quiet=as_json) as bar:
            r = commands.facts(questions_file, index, methods=methods, out=out_dir, model=model,
                               config=config, command=_command(),
                               progress=lambda d, t: bar("answers", d, t))
    except GraphragError as exc:
        _fail(exc)
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


@eval_app.command("faithfulness")
def eval_faithfulness(
    index: Path = typer.Argument(..., help="An index folder."),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="Also write faithfulness.json here."),
    as_json: bool = JsonOpt,
) -> None:
    """How much of what the index stores its documents hold: verbatim and near-verbatim
    sentences per field, unknown names and numbers, duplicated and unsourced findings."""
    from .eval import commands

    try:
        r = commands.faithfulness(index, out=out_dir, command=_command())
    except GraphragError as exc:
        _fail(exc)
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
    from .eval import commands

    try:
        r = commands.chunking(text_file, out_dir, tokens=tokens, sizes=sizes, gleanings=gleanings,
                              model=model, n_ctx=n_ctx, config=config, command=_command(),
                              progress=_log)
    except GraphragError as exc:
        _fail(exc)
    for row in r["rows"]:
        out.print(f"chunk size {row['chunk_size']:>5}  gleanings {row['gleanings']}  "
                  f"entity references {row['entity_references']}")
    out.print(f"written to {r['out']}" + (f"; figure {r['png']}" if r["png"] else ""))


@eval_app.command("report")
def eval_report(
    run_dirs: list[Path] = typer.Argument(..., help="Run folders from eval answer/judge/extraction/chunking."),
    out_file: Path | None = typer.Option(None, "--out", "-o", help="Markdown file (default: print)."),
) -> None:
    """One markdown summary of evaluation runs, with their tables, figures and commands."""
    from .eval.report import build_report

    missing = [d for d in run_dirs if not d.is_dir()]
    if missing:
        _fail(GraphragError(f"no run folder at {missing[0]}"))
    text = build_report(run_dirs, out_file)
    if out_file is None:
        print(text)
    else:
        out.print(f"wrote {out_file}")


# --- rendering ---------------------------------------------------------------------------


class _progress:
    """A rich progress bar per stage (count, elapsed, ETA), as a pipeline callback."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.tasks: dict[str, int] = {}

    def __enter__(self):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("{task.description:<12}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=err, disable=self.quiet,
        )
        self.bar.__enter__()
        return self

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage not in self.tasks:
            self.tasks[stage] = self.bar.add_task(stage, total=total)
        self.bar.update(self.tasks[stage], completed=done, total=total)

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)
        return False


def _render_summary(s: dict, index: Path) -> None:
    for w in s["warnings"]:
        err.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)
    for c in s["changes"]:
        err.print(f"[cyan]note:[/] {escape(c)}", highlight=False)
    sync = s.get("sync", {})
    moved = [f"{k.removeprefix('documents_')} {len(v)}: {', '.join(v[:3])}{' ...' if len(v) > 3 else ''}"
             for k, v in sync.items() if k.startswith("documents_") and isinstance(v, list) and v]
    if moved:
        err.print(f"[cyan]sync:[/] documents {escape('; '.join(moved))}", highlight=False)
    t = Table(title=f"built {index}", show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    levels = ", ".join(f"L{k}: {v}" for k, v in s["communities_per_level"].items())
    rows = [
        ("documents", s["documents"]), ("chunks", s["chunks"]), ("entities", s["entities"]),
        ("relationships", s["relationships"]), ("claims", s["claims"]),
        ("communities", f"{s['communities']} ({levels})"), ("reports", s["reports"]),
        ("failed chunks / reports", f"{s['failed_chunks']} / {s['failed_reports']}"),
        ("dropped ungrounded (ent / rel / claim)",
         f"{s['dropped_entities']} / {s['dropped_relationships']} / {s['dropped_claims']}"),
        ("chunks extracted / reused",
         f"{s.get('sync', {}).get('chunks_extracted', 0)} / {s.get('sync', {}).get('chunks_reused', 0)}"),
        ("reports new / reused",
         f"{s.get('sync', {}).get('reports_new', 0)} / {s.get('sync', {}).get('reports_reused', 0)}"),
        ("faithful (verbatim share)", f"{(s.get('faithfulness') or {}).get('verbatim_share') or 0:.0%}"),
        ("LLM calls", s["llm_calls"]),
        ("tokens in (evaluated) / reused / out",
         f"{s['tokens_in']} / {s['reused_prompt_tokens']} / {s['tokens_out']}"),
    ]
    rows += [(f"time: {k}", f"{v:.1f} s") for k, v in s["stage_seconds"].items()]
    rows.append(("wall time", f"{s['wall_seconds']:.1f} s"))
    for k, v in rows:
        t.add_row(k, str(v))
    out.print(t)


def _render_dry_run(r: dict) -> None:
    for w in r["warnings"]:
        err.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)
    out.print(
        f"{r['documents']} documents, {r['chunks']} chunks "
        f"({r['chunks_already_extracted']} already extracted, {r['chunks_to_extract']} to do)\n"
        f"method {r['method']}, {r['content']} content; estimated LLM calls: "
        f"~{r['estimated_llm_calls']}\n"
        f"estimated time on {r['model']}: ~{r['estimated_seconds'] // 60} min "
        f"{r['estimated_seconds'] % 60} s (CPU speeds from models.toml)"
    )


class _Stream:
    """Shows a streamed answer as it arrives: live markdown on a terminal, plain text
    when output is piped."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.text = ""
        self.live = None

    def __enter__(self):
        if self.enabled and out.is_terminal:
            from rich.live import Live

            self.live = Live(console=out, refresh_per_second=8, vertical_overflow="visible")
            self.live.__enter__()
        return self

    def __call__(self, piece: str) -> None:
        if not self.enabled:
            return
        self.text += piece
        if self.live is not None:
            from rich.markdown import Markdown

            self.live.update(Markdown(self.text))
        else:
            sys.stdout.write(piece)
            sys.stdout.flush()

    def __exit__(self, *exc):
        if self.live is not None:
            self.live.__exit__(*exc)
        elif self.enabled and self.text:
            sys.stdout.write("\n")
        return False


def _render_answer_tail(result, data: dict, stream: _Stream, brief: bool = False) -> None:
    """What follows a streamed answer: the answer itself when nothing was streamed (no
    answer, or a cut loop), and one line of figures."""
    from rich.markdown import Markdown

    if result.no_answer:
        out.print(f"[yellow]{escape(result.answer)}[/]")
    elif result.stopped_loop:
        if out.is_terminal:
            out.print(Markdown(result.answer))
        err.print("[yellow]note:[/] the model started repeating itself; the answer was cut there")
    elif not stream.text:
        out.print(Markdown(result.answer))
    level = f" level {result.level}" if result.level is not None else ""
    refs = " ".join(c.ref for c in result.citations)
    first = result.timings.get("first_token_seconds")
    loads = [f"{k.removesuffix('_load_seconds')} load {v:.1f} s"
             for k, v in result.timings.items() if k.endswith("_load_seconds")]
    err.print(
        f"[dim]{result.method}{level} · {data['llm_calls']} LLM calls · "
        f"{data['context_tokens']} context tokens · {data['completion_tokens']} generated · "
        f"{result.timings.get('total_seconds', 0):.1f} s"
        + (f" (first token {first:.1f} s)" if first is not None else "")
        + (f" · of which {', '.join(loads)}" if loads else "")
        + (f" · sources {refs}" if brief and refs else "") + "[/]",
        highlight=False,
    )
    if result.unknown_refs:
        err.print(
            f"[yellow]note:[/] the answer names sources that were not in its context: "
            f"{', '.join(result.unknown_refs)}"
        )


def _render_sources(result) -> None:
    if not result.citations:
        return
    t = Table(title="sources")
    for col in ("ref", "kind", "source", "where", "score", "cited"):
        t.add_column(col)
    for c in result.citations:
        score = f"{c.score:.0f}" if c.kind == "report" and result.method == "global" else f"{c.score:.2f}"
        t.add_row(c.ref, c.kind, escape(c.title), escape(c.detail), score, "yes" if c.cited else "")
    out.print(t)


def _render_context(result) -> None:
    from rich.panel import Panel

    for i, text in enumerate(result.context, 1):
        out.print(Panel(escape(text), title=f"context {i}/{len(result.context)}", expand=False))


def _render_quality(quality: dict, change: dict) -> None:
    """Community quality per level, and how far each level moved since the last build."""
    if not quality:
        return
    t = Table(title="community quality per level")
    for col in ("level", "communities", "modularity", "coverage", "performance",
                "sizes min/med/max", "singletons", "moved NMI/ARI"):
        t.add_column(col)
    for lv, q in quality.items():
        moved = change.get(lv)
        t.add_row(lv, str(q["communities"]), f"{q['modularity']:.3f}", f"{q['coverage']:.3f}",
                  f"{q['performance']:.3f}",
                  f"{q['sizes']['min']}/{q['sizes']['median']:g}/{q['sizes']['max']}",
                  str(q["singletons"]),
                  f"{moved['nmi']:.2f}/{moved['ari']:.2f}" if moved else "-")
    out.print(t)
    if change:
        out.print("[dim]moved: NMI and ARI between this build's partition and the previous "
                  "build's, over the entities both hold (1 = unchanged)[/]")


def _render_show(data: dict) -> None:
    from rich.tree import Tree

    kind = data["kind"]
    if kind == "communities":
        tree = Tree("communities")

        def add(parent, node):
            label = (f"[bold]{node['report'] or '-'}[/] L{node['level']} {node['id']} "
                     f"({node['size']} entities) {escape(node['title'])}")
            branch = parent.add(label)
            for child in node["children"]:
                add(branch, child)

        for node in data["tree"]:
            add(tree, node)
        out.print(tree)
        _render_quality(data.get("quality", {}), data.get("partition_change", {}))
    elif "report" in data:
        from rich.markdown import Markdown

        r = data["report"]
        out.print(f"[bold]{r['ref']}[/] level {r['level']} · rating {r['rating']} · "
                  f"{len(r['entities'])} entities: {escape(', '.join(r['entities']))}")
        out.print(Markdown(r["content"]))
    elif "reports" in data:
        t = Table(title="community reports")
        for col in ("ref", "level", "size", "rating", "title"):
            t.add_column(col)
        for r in data["reports"]:
            t.add_row(r["ref"], str(r["level"]), str(r["size"]), str(r["rating"]), escape(r["title"]))
        out.print(t)
    elif "entity" in data:
        e = data["entity"]
        out.print(f"[bold]{escape(e['name'])}[/] ({e['type']}, degree {e['degree']})\n{escape(e['description'])}")
        t = Table(title="relationships")
        for col in ("source", "target", "weight", "description"):
            t.add_column(col)
        for r in e["relationships"]:
            t.add_row(escape(r["source"]), escape(r["target"]), f"{r['weight']:.2f}", escape(r["description"]))
        out.print(t)
        for c in e["communities"]:
            out.print(f"community L{c['level']} {c['id']} {c['report']} {escape(c['title'])}")
        for s in e["sources"]:
            out.print(f"[bold]{s['ref']}[/] {escape(s['path'])} ({s['position']}): {escape(s['text'])}")
    else:
        t = Table(title="entities")
        for col in ("name", "type", "degree", "description"):
            t.add_column(col)
        for e in data["entities"]:
            t.add_row(escape(e["name"]), e["type"], str(e["degree"]), escape(e["description"][:100]))
        out.print(t)


def main() -> None:
    try:
        app()
    except GraphragError as exc:  # raised outside a command body
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(exc.exit_code)
