"""Running the CLI in-process, and what a user error must look like."""

from typer.testing import CliRunner

from graphrag_local.cli import app

runner = CliRunner()


def run(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def one_line_error(result, code, *fragments):
    """Exit `code`, no traceback, each fragment said, on one line."""
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    for f in fragments:
        assert f in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
