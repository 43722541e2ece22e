"""What the command modules (`cli.py` and `eval/cli.py`) share: the two rich consoles,
the common options, one way to turn user errors and Ctrl-C into a message, the progress
bars, and the command line as typed. Only light imports, so `--help` stays instant."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from .errors import GraphragError
from .settings import DEFAULT_INDEX_DIR

out = Console()
err = Console(stderr=True)

IndexOpt = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", "-i", help="Index folder.")
ModelOpt = typer.Option(None, "--model", "-m", help="Model preset (see `graphrag-local models`).")
ConfigOpt = typer.Option(None, "--config", "-c", help="Config file (TOML).")
JsonOpt = typer.Option(False, "--json", help="Print machine-readable JSON.")
WriterOpt = typer.Option(
    None, "--writer", help="A model preset that writes the answer from the sentences it would "
    "quote, every sentence cited and checked (e.g. qwen2.5-coder-1.5b; none: quoted answers).")


def fail(exc: GraphragError) -> None:
    """Print a user error on one line (the terminal wraps it, not rich) and exit with its
    code."""
    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(exc.exit_code)


def user_errors(command=None, *, resume: str = ""):
    """Decorate a command (`@user_errors`, or `@user_errors(resume="what is saved")` where
    its work resumes): a `GraphragError` prints its one-line message and exits with its
    code; Ctrl-C prints "interrupted" and exits 130, and with `resume` also says what is
    saved and how to go on. Anything else is a bug and keeps its traceback."""

    def decorate(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except GraphragError as exc:
                fail(exc)
            except KeyboardInterrupt:
                hint = f": {resume}; run the same command to resume" if resume else ""
                err.print(f"[yellow]interrupted[/]{hint}", soft_wrap=True)
                raise typer.Exit(130) from None

        return run

    return decorate(command) if command is not None else decorate


class ProgressBars:
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


def command_line() -> str:
    """The command as typed, quoted where needed (eval runs record what made them)."""
    return "graphrag-local " + " ".join(
        a if a and all(ch.isalnum() or ch in "-_./=," for ch in a) else json.dumps(a)
        for a in sys.argv[1:]
    )


def log(msg: str) -> None:
    err.print(f"[dim]{escape(msg)}[/]", highlight=False)
