"""User errors end as one line and an exit code, never a traceback; Ctrl-C in a command
whose work resumes says so; a GGUF is checked whole (header, metadata, tensor table and
size) when it is registered, not half way through a build."""

import json
import struct
from pathlib import Path

import pytest
import typer
from cli_helpers import one_line_error, run, runner

from graphrag_local.cli_common import user_errors
from graphrag_local.errors import ConfigError, ModelError
from graphrag_local.models.presets import check_gguf

# --- GGUF files -----------------------------------------------------------------------


def _s(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def tiny_gguf(path: Path, *, version: int = 3, arch: str | None = "llama",
              shapes=((32, 2),), cut: int = 0) -> Path:
    """A small well-formed GGUF (F32 tensors of zeros), optionally cut `cut` bytes short."""
    kvs = [_s("general.name") + struct.pack("<I", 8) + _s("tiny"),
           _s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 3)
           + b"".join(_s(t) for t in ("a", "b", "c")),
           _s("tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, 3) + b"\0" * 12]
    if arch:
        kvs.insert(0, _s("general.architecture") + struct.pack("<I", 8) + _s(arch))
    head = b"GGUF" + struct.pack("<IQQ", version, len(shapes), len(kvs)) + b"".join(kvs)
    offset, data = 0, b""
    for i, shape in enumerate(shapes):
        head += _s(f"t{i}") + struct.pack("<I", len(shape)) + b"".join(
            struct.pack("<Q", d) for d in shape) + struct.pack("<IQ", 0, offset)
        nbytes = 4 * shape[0] * (shape[1] if len(shape) > 1 else 1)
        padded = -(-nbytes // 32) * 32
        data += b"\0" * padded
        offset += padded
    head += b"\0" * (-len(head) % 32)
    blob = head + data
    path.write_bytes(blob[:len(blob) - cut])
    return path


def test_a_well_formed_gguf_passes(tmp_path):
    check_gguf(tiny_gguf(tmp_path / "ok.gguf"))
    check_gguf(tiny_gguf(tmp_path / "v2.gguf", version=2, shapes=((64,), (32, 4))))


@pytest.mark.parametrize("make, why", [
    (lambda p: p.write_bytes(b"GGUF" + b"\x07" * 4096), "GGUF version"),
    (lambda p: p.write_bytes(b"GGUF" + struct.pack("<I", 3) + b"\xff" * 64), "cannot fit"),
    (lambda p: p.write_bytes(b"GGUF\x03\x00\x00\x00"), "ends inside its header"),
    (lambda p: tiny_gguf(p, version=1), "GGUF version 1"),
    (lambda p: tiny_gguf(p, arch=None), "general.architecture"),
    (lambda p: tiny_gguf(p, shapes=()), "no tensors"),
    (lambda p: tiny_gguf(p, cut=20), "truncated"),  # inside the tensor data
    (lambda p: p.write_bytes(tiny_gguf(p).read_bytes()[:150]), "ends inside its header"),
])
def test_garbage_or_truncated_gguf_fails_naming_the_file(tmp_path, make, why):
    path = tmp_path / "model.gguf"
    make(path)
    with pytest.raises(ModelError, match="model.gguf") as info:
        check_gguf(path)
    assert why in str(info.value)


def test_models_add_checks_the_whole_header(tmp_path):
    bad = tmp_path / "corrupt.gguf"
    bad.write_bytes(b"GGUF" + b"\x07" * 4096)
    one_line_error(run("models", "add", "broken", bad), 4, "corrupt.gguf", "not a usable GGUF")
    short = tiny_gguf(tmp_path / "short.gguf", cut=40)
    one_line_error(run("models", "add", "short", short), 4, "short.gguf", "truncated")
    assert run("models", "add", "fine", tiny_gguf(tmp_path / "fine.gguf")).exit_code == 0


# --- one-line errors ------------------------------------------------------------------


def test_eval_chunking_with_a_bad_size_is_one_line(tmp_path):
    (tmp_path / "t.txt").write_text("Some text.")
    one_line_error(run("eval", "chunking", tmp_path / "t.txt", "--sizes", "600,x",
                       "--out", tmp_path / "o"), 2, "--sizes '600,x'", "positive whole numbers")


def _answers_dir(tmp_path: Path) -> Path:
    d = tmp_path / "answers"
    d.mkdir()
    rows = [{"question_id": q, "question": f"{q}?", "condition": c, "answer": f"{c} {q}",
             "context_tokens": 10, "llm_calls": 1, "seconds": 1.0, "no_answer": False}
            for c in ("C0", "basic") for q in ("q1", "q2")]
    (d / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d


def test_corrupt_run_files_are_named_not_tracebacks(tmp_path):
    run_dir = _answers_dir(tmp_path)
    (run_dir / "meta.json").write_text("{not json")
    one_line_error(run("eval", "report", run_dir), 3, "meta.json", "not a readable JSON file")
    one_line_error(run("eval", "judge", run_dir, "--out", tmp_path / "j"), 3, "meta.json")
    (run_dir / "meta.json").write_text("[1, 2]")
    one_line_error(run("eval", "report", run_dir), 3, "meta.json", "not the JSON object")
    (run_dir / "meta.json").unlink()
    (run_dir / "winrates.json").write_text("{oops")
    one_line_error(run("eval", "report", run_dir), 3, "winrates.json")
    (run_dir / "winrates.json").write_text(json.dumps([{"criterion": "diversity"}]))
    one_line_error(run("eval", "report", run_dir), 3, "winrates.json", "not what `eval` writes")
    (run_dir / "winrates.json").unlink()
    (run_dir / "facts.json").write_text(json.dumps({"methods": []}))
    one_line_error(run("eval", "report", run_dir), 3, "facts.json")
    one_line_error(run("eval", "report", tmp_path / "nowhere"), 3, "no run folder at")


def test_threads_variable_must_be_a_number(tmp_path, monkeypatch):
    from graphrag_local.models.llama import env_threads

    monkeypatch.setenv("GRAPHRAG_LOCAL_THREADS", "3")
    assert env_threads() == 3
    for bad in ("four", "0", "-2", "1.5"):
        monkeypatch.setenv("GRAPHRAG_LOCAL_THREADS", bad)
        with pytest.raises(ConfigError, match=f"GRAPHRAG_LOCAL_THREADS='{bad}'"):
            env_threads()
    monkeypatch.setenv("GRAPHRAG_LOCAL_THREADS", "four")  # through a real model load
    one_line_error(run("eval", "questions", "--description", "Town records.",
                       "--out", tmp_path / "q.jsonl"), 2, "GRAPHRAG_LOCAL_THREADS='four'")


def test_unwritable_folders_are_config_errors(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("a file, not a folder")
    one_line_error(run("init", tmp_path / "file" / "proj"), 2, "cannot write",
                   str(tmp_path / "file" / "proj"))
    gguf = tiny_gguf(tmp_path / "m.gguf")
    monkeypatch.setenv("GRAPHRAG_LOCAL_HOME", str(tmp_path / "file" / "home"))
    one_line_error(run("models", "add", "mine", gguf), 2, "cannot write", "models.toml")
    one_line_error(run("models", "add", "srv", "--url", "http://127.0.0.1:9", "--model", "m"),
                   2, "cannot write", "models.toml")


def test_permission_denied_is_a_config_error(tmp_path, monkeypatch):
    # tests run as root, where chmod does not stop writes: deny them by hand
    def denied(self, *a, **k):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_text", denied)
    one_line_error(run("init", tmp_path / "proj"), 2, "cannot write", "Permission denied",
                   "graphrag-local.toml")


# --- Ctrl-C ---------------------------------------------------------------------------


def _interrupt(*a, **k):
    raise KeyboardInterrupt


@pytest.mark.parametrize("target, args, saved", [
    ("graphrag_local.api.build", ["build", "docs"], "completed work is saved"),
    ("graphrag_local.eval.commands.answer", ["eval", "answer", "q.jsonl", "--out", "o"],
     "the answers so far are saved in the run folder"),
    ("graphrag_local.eval.commands.judge", ["eval", "judge", "a", "--out", "o"],
     "the judgments so far are saved in the output folder"),
])
def test_ctrl_c_in_resumable_commands_gives_the_resume_hint(monkeypatch, target, args, saved):
    monkeypatch.setattr(target, _interrupt)
    result = run(*args)
    assert result.exit_code == 130, result.output
    assert f"interrupted: {saved}; run the same command to resume" in result.output
    assert "Aborted" not in result.output and "Traceback" not in result.output


def test_ctrl_c_elsewhere_just_says_interrupted(monkeypatch):
    monkeypatch.setattr("graphrag_local.api.export", _interrupt)
    result = run("export", "idx", "--format", "csv", "--out", "o")
    assert result.exit_code == 130 and result.output.strip() == "interrupted"


def test_user_errors_keeps_the_command_signature_and_help():
    @user_errors(resume="it is saved")
    def cmd(name: str = typer.Argument(..., help="A name.")) -> None:
        """Say hello."""

    assert cmd.__doc__ == "Say hello." and cmd.__wrapped__.__name__ == "cmd"
    one = typer.Typer()
    one.command()(cmd)
    assert "A name." in runner.invoke(one, ["--help"]).output


def test_a_query_session_checks_the_gguf_when_it_loads_the_model(tmp_path):
    """A session does not read the GGUF up front (an extractive answer loads no model),
    but loading a bad file still fails with the file's name, not inside llama.cpp."""
    from graphrag_local import api
    from graphrag_local.model_info import ModelInfo
    from graphrag_local.models.presets import get_preset

    bad = tmp_path / "corrupt.gguf"
    bad.write_bytes(b"GGUF" + b"\x07" * 4096)
    info = ModelInfo(get_preset(None), bad, "0" * 64)
    with pytest.raises(ModelError, match="corrupt.gguf"):
        api.open_chat_model(info, seed=1)
