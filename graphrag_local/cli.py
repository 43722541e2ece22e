"""The `graphrag-local` command. Each command parses options, calls one function of
`graphrag_local.api`, and renders the result with rich. Heavy imports happen inside
commands so `--help` is instant. `@user_errors` catches only `GraphragError`s: they print
one line and exit non-zero; anything else is a bug and keeps its traceback. The `eval`
commands live in `eval/cli.py`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from .cli_common import (
    ConfigOpt,
    IndexOpt,
    JsonOpt,
    ModelOpt,
    ProgressBars,
    WriterOpt,
    err,
    out,
    user_errors,
)
from .errors import ConfigError, GraphragError, IndexStateError
from .eval.cli import eval_app

app = typer.Typer(
    help="Local-first GraphRAG: index private documents with a GGUF model, offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
models_app = typer.Typer(help="List model presets, or register your own GGUF.")
app.add_typer(models_app, name="models")
app.add_typer(eval_app, name="eval")


@app.command()
@user_errors(resume="completed work is saved")
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
    writer: str | None = typer.Option(
        None, "--writer", help="A writer preset (e.g. qwen2.5-coder-1.5b) that writes every "
        "community's report once the index is built (implies --write-reports)."),
    write_reports: bool = typer.Option(
        False, "--write-reports", help="Write every community's report now with the writer "
        "(--writer, or the config's), not when a question first reaches it: worth it on a GPU."),
    as_json: bool = JsonOpt,
) -> None:
    """Build (or resume, or update) the index of DOCS_DIR."""
    from . import api

    if dry_run:
        result = api.dry_run(docs_dir, index, config=config, model=model, method=method)
        if as_json:
            print(json.dumps(result, indent=2))
        else:
            _render_dry_run(result)
        return
    with ProgressBars(quiet=as_json) as progress:
        summary = api.build(docs_dir, index, config=config, model=model, method=method,
                            progress=progress)
        if writer or write_reports:
            summary["written_reports"] = api.write_reports(
                index, config=config, writer=writer,
                progress=lambda done, total: progress("written", done, total))
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        _render_summary(summary, index)


@app.command()
@user_errors
def status(index: Path = IndexOpt, as_json: bool = JsonOpt) -> None:
    """Show what an index holds: row counts, manifest, failures."""
    from . import api

    result = api.status(index)
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
    if result["languages"]:
        out.print("languages: " + ", ".join(
            f"{lang} ({n} document{'s' * (n != 1)})" for lang, n in sorted(
                result["languages"].items(), key=lambda x: -x[1])))
    _render_quality(result["community_quality"], result["partition_change"])
    for f in result["failed_chunks"]:
        out.print(f"[red]failed chunk[/] {f['chunk_id']}: {escape(f['error'])}")
    for f in result["failed_reports"]:
        out.print(
            f"[red]failed report[/] {f['community_id']} (level {f['level']}): {escape(f['error'])}"
        )


@models_app.callback(invoke_without_command=True)
@user_errors
def models(ctx: typer.Context, as_json: bool = JsonOpt) -> None:
    """List model presets and whether each is available on this machine."""
    if ctx.invoked_subcommand is not None:
        return
    from . import api

    rows = api.list_models()
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    t = Table(title="model presets")
    for col in ("preset", "available", "size", "n_ctx", "sha256", "description"):
        t.add_column(col)
    for r in rows:
        t.add_row(
            r["name"] + (" (default)" if r["default"] else ""),
            "[cyan]server[/]" if r["available"] is None
            else "[green]yes[/]" if r["available"] else "[dim]no[/]",
            (f"{r['size_mb']} MB" if r["size_mb"] else "")
            + (" [dim](pinned; assembled on first use)[/]" if r.get("pinned") else ""),
            str(r["n_ctx"]),
            r["sha256"][:12],
            r["description"],
        )
    out.print(t)


@models_app.command("add")
@user_errors
def models_add(
    name: str = typer.Argument(..., help="Preset name to register."),
    path: Path | None = typer.Argument(None, help="Path of the GGUF file (or use --url)."),
    n_ctx: int = typer.Option(8192, help="Context window to use (a server's own wins if it says)."),
    chat_format: str = typer.Option("auto", help='"auto" (GGUF template), "plain", or a llama-cpp format.'),
    url: str = typer.Option("", help="An OpenAI-compatible model server instead of a GGUF "
                            "(llama-server, vLLM, Ollama: http://host:port; several: comma-separated)."),
    model_id: str = typer.Option("", "--model", help="With --url: the model id the server lists at /v1/models."),
    api_name: str = typer.Option("llama.cpp", "--api", help='With --url: "llama.cpp", "vllm" or "openai" (no grammars).'),
    parallel: int = typer.Option(0, help="Requests in flight at once (0: the server's slot count, else 4)."),
    api_key_env: str = typer.Option("", help="With --url: environment variable that holds the API key."),
    content: str = typer.Option("abstractive", help='With --url: "abstractive" (the model writes) or "extractive".'),
) -> None:
    """Register your own GGUF, or a model server, as a preset."""
    from . import api

    if url:
        where = api.add_server_model(name, url, model_id, api=api_name, n_ctx=n_ctx,
                                     parallel=parallel, api_key_env=api_key_env, content=content)
        target = f"{model_id} at {url}"
    elif path is None:
        raise ConfigError("give the GGUF's PATH, or --url and --model for a model server")
    else:
        where, target = api.add_model(name, path, n_ctx, chat_format), str(path)
    out.print(f"registered [bold]{name}[/] -> {target} in {where}")


@app.command()
@user_errors
def init(
    folder: Path = typer.Argument(Path("."), help="Where to write graphrag-local.toml."),
    prompts: bool = typer.Option(False, "--prompts", help="Also copy the prompts for editing."),
) -> None:
    """Write a commented config file (and optionally the prompts) to customise."""
    from . import api

    written = api.init_project(folder, copy_prompts=prompts)
    for p in written:
        out.print(f"wrote {p}")


@app.command()
@user_errors
def config(config: Path | None = ConfigOpt, model: str | None = ModelOpt) -> None:
    """Print the resolved settings (defaults <- config file <- flags)."""
    from . import api

    print(api.config_text(config, model), end="")


@app.command()
@user_errors
def doctor(
    index: Path | None = typer.Argument(None, help="An index folder to check too."),
    as_json: bool = JsonOpt,
) -> None:
    """Check the install (and an index): what works, and what to do about what does not.
    Exits 1 when a check fails."""
    from .doctor import run_checks

    report = run_checks(index)
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        colour = {"ok": "green", "warn": "yellow", "fail": "red"}
        t = Table(title="graphrag-local doctor")
        for col in ("check", "status", "detail", "fix"):
            t.add_column(col)
        for c in report["checks"]:
            t.add_row(escape(c["name"]), f"[{colour[c['status']]}]{c['status']}[/]",
                      escape(c["detail"]), escape(c["fix"]))
        out.print(t)
    if report["status"] == "fail":
        raise typer.Exit(1)


MethodOpt = typer.Option(
    "global", "--method", "-M",
    help="global (the corpus's themes: community reports), local (entities and their "
    "neighbourhood), drift (reports nearest the question, then local follow-ups), basic "
    "(vector RAG over chunks) or ts (over the source texts, by document).",
)
LevelOpt = typer.Option(
    None, "--level", "-l",
    help='Community level for global search: a number (0 = root) or "auto" (dynamic '
    "community selection from the root; default: query.level in the config).",
)


@app.command()
@user_errors
def query(
    question: str = typer.Argument(..., help="The question."),
    method: str = MethodOpt,
    level: str | None = LevelOpt,
    index: Path = IndexOpt,
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    show_context: bool = typer.Option(False, "--show-context", help="Print what the model was given."),
    local: bool = typer.Option(False, "--local", help="Answer in this process even when `serve` runs for this index."),
    writer: str | None = WriterOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Answer a question from the index, with its sources (through a running `serve` of
    the same index when there is one: it is warm)."""
    served = None if local or show_context or writer else _served(index)
    if served is not None:
        result, data = _ask_served(served, {"question": question, "method": method,
                                            "level": level})
        stream = _Stream(enabled=False)
        if as_json:
            print(json.dumps(data, indent=2, ensure_ascii=False))
            return
        _render_answer_tail(result, data, stream)
        _render_sources(result)
        return
    from . import api
    from .query import result_dict

    session = api.open_session(index, config=config, model=model, writer=writer)
    try:
        with _Stream(enabled=not as_json) as stream:
            result = session.ask(question, method=method, level=level, on_text=stream)
        data = result_dict(result, session.model_name)
    finally:
        session.close()
    if as_json:
        if show_context:
            data["context"] = result.context
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    _render_answer_tail(result, data, stream)
    if show_context:
        _render_context(result)
    _render_sources(result)


def _served(index: Path):
    """A running `serve` of this index that answers, or None."""
    from .serve.discovery import find_server, healthy

    server = find_server(index)
    return server if server is not None and healthy(server) else None


class _ServedSession:
    """A running `serve` in the place of a session, for `chat`."""

    def __init__(self, server: dict):
        self.server, self.model_name = server, f"served by {server['url']}"

    def ask(self, question, method="global", level=None, history=(), on_text=None):
        result, _ = _ask_served(self.server, {"question": question, "method": method,
                                              "level": level, "history": list(history)})
        return result

    def resolve_level(self, level):  # the server says when a level has no reports
        return level

    def close(self) -> None:
        pass


def _ask_served(server: dict, body: dict):
    """The server's answer, as a SearchResult (for the renderers) and its JSON."""
    from .search.common import Citation, SearchResult
    from .serve.discovery import ask_server

    try:
        data = ask_server(server, body)
    except OSError as exc:
        raise IndexStateError(f"the running `graphrag-local serve` at {server['url']} did not "
                              f"answer ({exc}); ask with --local to answer here") from None
    if "error" in data:
        raise IndexStateError(f"{server['url']}: {data['error'].get('message', data['error'])}")
    result = SearchResult(question=data["question"], method=data["method"], answer=data["answer"],
                          level=data["level"], no_answer=data["no_answer"],
                          citations=[Citation(**c) for c in data["citations"]],
                          unknown_refs=data["unknown_refs"], timings=data["timings"])
    data.setdefault("served_by", server["url"])
    return result, data


@app.command()
@user_errors
def chat(
    method: str = MethodOpt,
    level: str | None = LevelOpt,
    index: Path = IndexOpt,
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    local: bool = typer.Option(False, "--local", help="Answer in this process even when `serve` runs for this index."),
    writer: str | None = WriterOpt,
) -> None:
    """Ask questions in a conversation; follow-ups use what was said. Reads piped input
    too. Type /help for commands. Uses a running `serve` of the same index when there is one."""
    from . import api
    from .query import METHODS, result_dict

    interactive = sys.stdin.isatty()
    served = None if local or writer else _served(index)
    session = (_ServedSession(served) if served
               else api.open_session(index, config=config, model=model, writer=writer))
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
            _render_answer_tail(last, result_dict(last, session.model_name), stream, brief=True)
            history.append((line, last.answer))
    except KeyboardInterrupt:
        out.print()
    finally:
        session.close()


@app.command()
@user_errors
def serve(
    index: Path = IndexOpt,
    host: str | None = typer.Option(None, "--host", help="Address to listen on (default: serve.host, 127.0.0.1). Any other than loopback needs a token."),
    port: int | None = typer.Option(None, "--port", "-p", help="Port (default: serve.port, 8765)."),
    name: str | None = typer.Option(None, "--name", help="The model id clients see (default: the index folder's name)."),
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
    writer: str | None = WriterOpt,
) -> None:
    """Serve the index warm to other tools: OpenAI-compatible chat (/v1/chat/completions,
    /v1/models), a query API (/query) and /health. `query` and `chat` use it too."""
    from .serve.app import serve as run

    def ready(url: str) -> None:
        err.print(f"serving {index} at {url} (OpenAI base URL {url}/v1); Ctrl-C stops it",
                  highlight=False)

    run(index, config=config, model=model, host=host, port=port, name=name, ready=ready,
        writer=writer)


@app.command()
@user_errors
def mcp(
    index: Path = IndexOpt,
    model: str | None = ModelOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Serve the index to an MCP client over stdio (tools: query, entity, reports, status)."""
    from .serve.mcp_server import run_stdio

    run_stdio(index, config=config, model=model)


CHAT_HELP = """commands:
  /method {methods}   switch the search method
  /level N|auto       community level for global search
  /sources            the sources of the last answer
  /context            what the model was given for the last answer
  /clear              forget the conversation
  /quit               leave (or Ctrl-D)"""


@app.command()
@user_errors
def show(
    what: str = typer.Argument(..., help="communities, reports, entities, or graph."),
    name: str = typer.Argument("", help="An entity name, or a report ref (R3) or id."),
    level: int | None = typer.Option(None, "--level", "-l", help="Only this community level."),
    index: Path = IndexOpt,
    out_file: Path | None = typer.Option(
        None, "--out", "-o", help="graph: the HTML file to write (default: graph.html)."),
    config: Path | None = ConfigOpt,
    writer: str | None = typer.Option(
        None, "--writer", help="reports: also what this writer preset wrote of each (by "
        "`build --write-reports` or a collection-wide question), its lines checked."),
    as_json: bool = JsonOpt,
) -> None:
    """Browse what was built: the community tree, reports, an entity with its
    relationships and sources, or (graph) one offline HTML page of the whole graph."""
    from . import api

    title = name or f"graphrag-local: {index}" if what == "graph" else name
    data = api.show(index, what, title, level, writer=writer, config=config)
    if what == "graph":
        from .graph_view import write_graph_html
        from .private import project_private

        path = write_graph_html(data["payload"], out_file or Path("graph.html"),
                                private=project_private(config))
        p = data["payload"]
        out.print(f"wrote {path}: {len(p['nodes'])} entities, {len(p['edges'])} "
                  f"relationships, {len(p['communities'])} communities in "
                  f"{len(p['levels'])} levels; open it in a browser (works offline)")
        return
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    _render_show(data)


def _render_written_report(written: dict | None, writer: str, sources: list[dict]) -> None:
    """`show reports R3 --writer P`: what the writer wrote of it, each line checked."""
    if not written:
        out.print(f"[dim]{escape(writer)} has not written this report yet (a collection-wide "
                  "question that reaches it, or `build --write-reports`, writes it)[/]")
        return
    out.print(f"\n[bold]written by {escape(writer)}:[/] {escape(written['title'])}")
    for line in written["lines"]:
        out.print(f"- {escape(line['text'])} [{', '.join(line['refs'])}]", highlight=False)
    if not written["lines"]:
        out.print("[dim](no line the writer wrote passed the support check)[/]")
    if written["dropped"]:
        out.print(f"[dim]({written['dropped']} written sentence"
                  f"{'s' * (written['dropped'] != 1)} dropped by the support check)[/]")
    for s in sources:
        out.print(f"[dim]{s['ref']}: {escape(s['where'])}[/]", highlight=False)


@app.command()
@user_errors
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

    r = api.export(index, fmt, out_dir)
    if as_json:
        print(json.dumps(r, indent=2))
        return
    counts = ", ".join(f"{k} {v}" for k, v in r["counts"].items())
    out.print(f"wrote {len(r['files'])} {r['format']} files to {r['out']}: {counts}")


# --- rendering ---------------------------------------------------------------------------


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
    if "work_rows_forgotten" in sync:
        err.print(f"[cyan]sync:[/] the old text removed from the index folder "
                  f"({sync['work_rows_forgotten']} work rows, the previous build's tables)",
                  highlight=False)
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
    if "written_reports" in s:
        w = s["written_reports"]
        rows.append((f"reports written by {w['writer']} (new / kept)",
                     f"{w['written']} / {w['cached']} in {w['seconds']:.1f} s"))
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
    level = (f" level {result.level}" if result.level is not None
             else " dynamic selection" if result.method == "global" else "")
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
    w = getattr(result, "written", None)
    if w:
        speed = result.timings.get("writer_tokens_per_second", 0)
        # an answer whose every part was read from the index wrote nothing: no speed
        pace = f"{speed} tokens/s" if result.calls else "read back, nothing written now"
        kept = f"{w['kept']} sentence{'' if w['kept'] == 1 else 's'}"
        err.print(f"[dim]written by {w['writer']}: {kept} kept, {w['dropped']} "
                  f"dropped by the support check · {pace}[/]", highlight=False)
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
        score = f"{c.score:.0f}" if c.score > 1 else f"{c.score:.2f}"
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
        if "writer" in data:
            _render_written_report(r.get("written"), data["writer"], data.get("sources", []))
    elif "reports" in data:
        t = Table(title="community reports")
        columns = ("ref", "level", "size", "rating", "title")
        columns += (f"written by {data['writer']}",) if "writer" in data else ()
        for col in columns:
            t.add_column(col)
        for r in data["reports"]:
            row = [r["ref"], str(r["level"]), str(r["size"]), str(r["rating"]), escape(r["title"])]
            if "writer" in data:
                row.append(escape(r["written"]["title"]) if r.get("written") else "[dim]not yet[/]")
            t.add_row(*row)
        out.print(t)
    elif "entity" in data:
        e = data["entity"]
        out.print(f"[bold]{escape(e['name'])}[/] ({e['type']}, degree {e['degree']})")
        if e["aliases"]:
            out.print("also: " + escape(", ".join(f"{a['name']} ({a['mentions']})" for a in e["aliases"])))
        out.print(escape(e["description"]))
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
        for col in ("name", "type", "degree", "also", "description"):
            t.add_column(col)
        for e in data["entities"]:
            t.add_row(escape(e["name"]), e["type"], str(e["degree"]),
                      escape(", ".join(e["aliases"][:4])), escape(e["description"][:100]))
        out.print(t)


def main() -> None:
    try:
        app()
    except GraphragError as exc:  # raised outside a command body
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(exc.exit_code)
