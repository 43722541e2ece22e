import json
import subprocess
import sys
import time
from pathlib import Path

from cli_helpers import one_line_error, run
from conftest import ROOT, SAMPLE
from test_cli_errors import tiny_gguf


def test_help_is_instant_in_a_subprocess():
    exe = Path(sys.executable).parent / "graphrag-local"
    started = time.perf_counter()
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=True)
    assert time.perf_counter() - started < 5
    for command in ("build", "status", "models", "init", "config", "query", "chat", "show"):
        assert command in out.stdout
    # heavy libraries are imported inside commands, not for --help
    probe = subprocess.run(
        [sys.executable, "-c", "import sys, graphrag_local.cli; "
         "print(any(m in sys.modules for m in ('llama_cpp', 'torch', 'lancedb', 'sentence_transformers')))"],
        capture_output=True, text=True, check=True,
    )
    assert probe.stdout.strip() == "False"


def test_missing_folder(tmp_path):
    one_line_error(run("build", tmp_path / "nope", "--index", tmp_path / "i"), 3,
                   "documents folder not found", "nope")


def test_folder_with_nothing_usable(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.bin").write_bytes(b"\x00\x01")
    one_line_error(run("build", tmp_path / "d", "--index", tmp_path / "i"), 3, "no usable documents")


def test_bad_config_value(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[chunks]\nsize = 'huge'\n")
    one_line_error(run("build", SAMPLE, "--config", cfg, "--index", tmp_path / "i"), 2,
                   "bad.toml", "size", "integer")


def test_unknown_model_lists_presets(tmp_path):
    one_line_error(run("build", SAMPLE, "--model", "gpt-5", "--index", tmp_path / "i"), 2,
                   "unknown model preset 'gpt-5'", "smollm2-135m")


def test_models_add_rejects_missing_and_non_gguf_files(tmp_path):
    one_line_error(run("models", "add", "mine", tmp_path / "none.gguf"), 4, "not found")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"<html>not a model</html>")
    one_line_error(run("models", "add", "mine", bad), 4, "not a GGUF")


def test_models_lists_and_registers(tmp_path):
    gguf = tiny_gguf(tmp_path / "tiny.gguf")
    result = run("models", "add", "mytiny", gguf, "--n-ctx", "2048")
    assert result.exit_code == 0, result.output
    rows = json.loads(run("models", "--json").output)
    mine = next(r for r in rows if r["name"] == "mytiny")
    assert mine["available"] and mine["n_ctx"] == 2048 and len(mine["sha256"]) == 64
    smol = next(r for r in rows if r["name"] == "smollm2-135m")
    assert smol["available"] and smol["size_mb"] > 50
    assert any(r["default"] for r in rows)
    assert {"llama3.2-3b", "qwen2.5-7b", "llama3.1-8b"} <= {r["name"] for r in rows}
    # a writer in parts says its size and sha256 before it is assembled (those assembling
    # checks), and the same once it is
    writer = next(r for r in rows if r["name"] == "qwen2.5-coder-0.5b")
    assert writer["sha256"] == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert writer["size_mb"] == 491.4 and writer["pinned"] == (writer["path"] == "")
    assert "491.4 MB" in run("models").output


def test_one_rule_for_model_names_in_models_add_and_models_toml(tmp_path):
    """A packaged preset's name ('qwen2.5-7b') is a name `models add` takes; what a TOML
    table header or a shell would mangle is refused by both, naming the file."""
    from graphrag_local.models import presets

    gguf = tiny_gguf(tmp_path / "tiny.gguf")
    for name in ("qwen2.5-1.5b", "my_model.v2"):
        assert run("models", "add", name, gguf).exit_code == 0, name
    for packaged in presets._read_toml(presets.resources.models_toml())["presets"]:
        presets.check_name(packaged)  # the packaged presets obey the rule they impose
    for bad in ("", "two words", 'say"hi', "a[1]", ".hidden", "_x", "a/b"):
        one_line_error(run("models", "add", bad, gguf), 2, "must be 1-64 letters")
    user = presets.user_models_toml()
    kept = user.read_text()
    try:
        user.write_text(kept + '\n[presets."bad name"]\nsource = "path"\n')
        one_line_error(run("models"), 2, "models.toml: model preset 'bad name' must be")
    finally:
        user.write_text(kept)  # the home is shared by the session's tests


def test_corrupt_gguf_fails_with_a_clear_message(tmp_path):
    gguf = tmp_path / "corrupt.gguf"
    gguf.write_bytes(b"GGUF" + b"\x07" * 4096)
    one_line_error(run("models", "add", "broken", gguf), 4, "not a usable GGUF", "corrupt.gguf")
    # a well-formed file llama.cpp still cannot load fails at build, with the same clarity
    tiny_gguf(gguf, arch="no-such-architecture")
    assert run("models", "add", "broken", gguf).exit_code == 0
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Mara Quill leads the Aldren Water Trust.")
    one_line_error(run("build", docs, "--model", "broken", "--index", tmp_path / "i"), 4,
                   "could not load", "corrupt.gguf")


def test_status_of_missing_index(tmp_path):
    one_line_error(run("status", "--index", tmp_path / "none"), 6, "no index at")


def test_init_and_config(tmp_path):
    result = run("init", tmp_path / "proj", "--prompts")
    assert result.exit_code == 0, result.output
    cfg = tmp_path / "proj" / "graphrag-local.toml"
    assert cfg.is_file() and (tmp_path / "proj" / "prompts" / "extract_entities.txt").is_file()
    assert cfg.read_text().startswith("#")
    printed = run("config", "--config", cfg, "--model", "gemma3-270m")
    assert printed.exit_code == 0
    assert 'model = "gemma3-270m"' in printed.output and "size = 600" in printed.output
    one_line_error(run("init", tmp_path / "proj"), 2, "already exists")


def test_dry_run_estimates_without_a_model_call(tmp_path):
    result = run("build", SAMPLE, "--index", tmp_path / "i", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    est = json.loads(result.output)
    assert est["chunks"] == est["chunks_to_extract"] == 5
    assert est["estimated_llm_calls"] >= 5 and est["estimated_seconds"] > 0
    assert est["content"] == "extractive" and est["method"] == "standard"
    assert est["estimated_seconds"] > 0
    assert not (tmp_path / "i").exists()


def test_readme_commands_exist():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bash scripts/demo.sh" in readme and "bash scripts/test.sh" in readme
    assert "bash scripts/test.sh" in ci


def test_missing_model_file_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_LOCAL_MODELS_DIR", str(tmp_path / "models"))
    one_line_error(run("build", SAMPLE, "--model", "llama3.2-3b", "--index", tmp_path / "i"), 4,
                   "not found", "Llama-3.2-3B-Instruct-Q4_K_M.gguf", str(tmp_path / "models"))


def _fake_index(tmp_path):
    from conftest import copy_corpus
    from fakes import FakeChatModel
    from test_pipeline import make_build, scripted

    from graphrag_local.pipeline import run_build

    run_build(make_build(copy_corpus(tmp_path / "docs"), tmp_path / "idx",
                         FakeChatModel(default=scripted)))
    return tmp_path / "idx"


def test_query_without_an_index_fails_with_one_line(tmp_path):
    r = run("query", "What?", "--index", tmp_path / "none")
    one_line_error(r, 6, "no index at", "graphrag-local build")


def test_query_errors_empty_question_unknown_method_and_level(tmp_path):
    idx = _fake_index(tmp_path)
    one_line_error(run("query", "  ", "--index", idx), 3, "question is empty")
    one_line_error(run("query", "Q?", "--method", "magic", "--index", idx), 2, "unknown method")
    one_line_error(run("query", "Q?", "--level", "9", "--index", idx), 2, "no reports")
    (idx / "manifest.json").write_text(
        (idx / "manifest.json").read_text().replace('"complete": true', '"complete": false'))
    one_line_error(run("query", "Q?", "--index", idx), 6, "unfinished", "resume")


def test_show_browses_the_index(tmp_path):
    idx = _fake_index(tmp_path)
    tree = json.loads(run("show", "communities", "--index", idx, "--json").output)["tree"]
    assert tree and all(node["level"] == 0 for node in tree)
    ents = json.loads(run("show", "entities", "--index", idx, "--json").output)["entities"]
    name = ents[0]["name"]
    one = json.loads(run("show", "entities", name.lower(), "--index", idx, "--json").output)
    assert one["entity"]["name"] == name and one["entity"]["sources"]
    assert one["entity"]["sources"][0]["path"].endswith((".md", ".txt"))
    reports = json.loads(run("show", "reports", "--index", idx, "--json").output)["reports"]
    full = json.loads(run("show", "reports", reports[0]["ref"], "--index", idx, "--json").output)
    assert full["report"]["content"].startswith("# ")
    assert run("show", "communities", "--index", idx).exit_code == 0
    one_line_error(run("show", "entities", "Nobody At All", "--index", idx), 3, "no entity named")
    one_line_error(run("show", "planets", "--index", idx), 3, "cannot show")


def test_show_graph_writes_one_offline_page_and_export_writes_files(tmp_path):
    idx = _fake_index(tmp_path)
    page = tmp_path / "view" / "graph.html"
    result = run("show", "graph", "--index", idx, "--out", page)
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "<svg" in html or "graph_view" in html or "<script" in html
    assert "http://" not in html and "https://" not in html
    ents = json.loads(run("show", "entities", "--index", idx, "--json").output)["entities"]
    assert ents[0]["name"] in html
    for fmt, name in (("graphrag", "entities.parquet"), ("graphml", "graph.graphml"),
                      ("csv", "nodes.csv")):
        result = run("export", idx, "--format", fmt, "--out", tmp_path / fmt)
        assert result.exit_code == 0, result.output
        assert (tmp_path / fmt / name).is_file()
    one_line_error(run("export", idx, "--format", "xlsx", "--out", tmp_path / "x"), 2, "format")
    q = json.loads(run("show", "communities", "--index", idx, "--json").output)["quality"]
    assert q["0"]["communities"] >= 1 and -1 <= q["0"]["modularity"] <= 1
