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
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate calls and time; run nothing."),
    as_json: bool = JsonOpt,
) -> None:
    """Build (or resume, or update) the index of DOCS_DIR."""
    from . import api

    try:
        if dry_run:
            result = api.dry_run(docs_dir, index, config=config, model=model)
            if as_json:
                print(json.dumps(result, indent=2))
            else:
                _render_dry_run(result)
            return
        with _progress(quiet=as_json) as progress:
            summary = api.build(docs_dir, index, config=config, model=model, progress=progress)
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
        f"estimated LLM calls: ~{r['estimated_llm_calls']} "
        f"(extraction at most {r['extraction_calls_max']})\n"
        f"estimated time on {r['model']}: ~{r['estimated_seconds'] // 60} min "
        f"{r['estimated_seconds'] % 60} s (CPU speeds from models.toml)"
    )


def main() -> None:
    try:
        app()
    except GraphragError as exc:  # raised outside a command body
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(exc.exit_code)
