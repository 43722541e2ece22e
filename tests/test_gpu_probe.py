"""The GPU-load probe (`models/gpu_probe.py`): a child killed by a signal is a crash, kept
per model file and llama.cpp build; a model whose GPU load would kill us runs on the CPU,
with a warning that says how to use the GPU. No GPU here: the crash is staged in the child
(a real SIGSEGV), and the real child is run on the CPU to prove it loads what we import."""

import logging
import subprocess
import sys
from dataclasses import replace

import pytest

from graphrag_local import doctor
from graphrag_local.models import gpu_probe
from graphrag_local.models import llama as llama_mod
from graphrag_local.models.presets import get_preset, require

SEGV = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"


@pytest.fixture
def gguf(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF")
    return path


def test_a_child_killed_by_a_signal_is_a_crash_and_is_kept(gguf, monkeypatch):
    monkeypatch.setattr(gpu_probe, "CHILD", SEGV)
    assert gpu_probe.gpu_load_crash(gguf, -1, "0.3.36|lib|1").startswith("SIGSEGV")
    monkeypatch.setattr(gpu_probe, "CHILD", "pass\n")  # it would load now: the verdict stands
    assert gpu_probe.gpu_load_crash(gguf, -1, "0.3.36|lib|1").startswith("SIGSEGV")
    assert gpu_probe.gpu_load_crash(gguf, -1, "0.3.36|lib|2") == ""  # a rebuild is asked anew
    check = doctor._gpu_load_check("0.3.36")
    assert check.status == "warn" and str(gguf) in check.detail and "llama-server" in check.fix


def test_an_error_in_the_child_or_the_switch_off_is_no_crash(gguf, monkeypatch):
    monkeypatch.setattr(gpu_probe, "CHILD", "raise SystemExit(3)\n")
    assert gpu_probe.gpu_load_crash(gguf, -1, "b") == ""  # the load here says what is wrong
    monkeypatch.setattr(gpu_probe, "CHILD", SEGV)
    monkeypatch.setenv("GRAPHRAG_LOCAL_GPU_PROBE", "0")
    assert gpu_probe.gpu_load_crash(gguf, -1, "b2") == ""
    assert doctor._gpu_load_check("b2").status == "ok"


@pytest.mark.e2e
def test_the_child_loads_the_real_model_after_what_we_import():
    path = require(get_preset(None))
    done = subprocess.run([sys.executable, "-c", gpu_probe.CHILD, str(path), "0"],
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode()[-500:]


@pytest.mark.e2e
def test_a_model_whose_gpu_load_would_kill_us_runs_on_the_cpu(monkeypatch, caplog):
    import llama_cpp

    asked = []
    monkeypatch.setattr(llama_cpp, "llama_supports_gpu_offload", lambda: True)
    monkeypatch.setattr(llama_mod, "gpu_load_crash",
                        lambda path, n, build: asked.append((path, n, build)) or "SIGSEGV")
    preset = get_preset(None)
    with caplog.at_level(logging.WARNING, logger=llama_mod.__name__):
        model = llama_mod.LlamaChatModel(preset=replace(preset, n_gpu_layers=-1),
                                         path=require(preset), n_threads=2)
    try:
        assert model.n_gpu_layers == 0
        assert asked and asked[0][1] == -1 and llama_cpp.__version__ in asked[0][2]
        assert "SIGSEGV" in caplog.text and "llama-server" in caplog.text
        assert model.complete([{"role": "user", "content": "Say yes."}], max_tokens=3)
    finally:
        model.close()
