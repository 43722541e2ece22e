"""Whether llama.cpp survives loading a GGUF on the GPU in a process like ours, asked of a
child process, so that a crash there is a warning here rather than the silent end of a
build or a query.

Why: on two lent machines (an H100 on 2026-11-26, an H200 on 2026-11-27; llama-cpp-python
0.3.36 built there for CUDA 13.0, sm_90) the 1.5B writer loaded on the GPU in a process that
had imported nothing else, but the load died in llama.cpp (SIGSEGV) once numpy, pyarrow or
lancedb had been imported, as they are in every graphrag-local process; importing pyarrow
after llama_cpp aborted instead ("free(): invalid pointer"). No order of imports worked in
one process; the same model behind a server in a process of its own did. A llama.cpp built
elsewhere (other compiler and flags) did not crash on the same machine, and this probe let
it load on the GPU there (4 s, once). The cause was not found
(`docs/eval_runs/gpu_h200_writer/`).

`gpu_load_crash` runs the child once per model file and llama.cpp build (seconds: one load)
and keeps the verdict in the user cache (`gpu_probe.json`). It names a crash only when the
child was killed by a signal; an error the child raises (no GPU memory, say) is left for
the load here to raise with its own message, and a child still loading after `TIMEOUT`
counts as no crash. GRAPHRAG_LOCAL_GPU_PROBE=0 skips the child. What to do about a crash
(run on the CPU, or behind a server) is the caller's; this module only asks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from .. import resources

TIMEOUT = 600  # seconds: an 8B GGUF read from a slow disk
CHILD = """import sys
import numpy, pyarrow, lancedb  # loaded in every graphrag-local process before a model
from llama_cpp import Llama
Llama(model_path=sys.argv[1], n_gpu_layers=int(sys.argv[2]), n_ctx=256, verbose=False)
"""


def enabled() -> bool:
    return os.environ.get("GRAPHRAG_LOCAL_GPU_PROBE", "1").strip() != "0"


def _cache_file() -> Path:
    return resources.user_cache_dir() / "gpu_probe.json"


def verdicts() -> dict[str, dict]:
    """Every verdict kept: {key: {"model": path, "crash": what killed the child, or ""}}."""
    try:
        data = json.loads(_cache_file().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _key(path: Path, n_gpu_layers: int, build: str) -> str:
    stat = path.stat()
    return f"{build}|{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{n_gpu_layers}"


def _ask_child(path: Path, n_gpu_layers: int) -> str:
    """What killed a child that loaded `path` after importing what we import ("" if
    nothing did)."""
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(n_gpu_layers)],
                              capture_output=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return ""
    if done.returncode >= 0:
        return ""
    try:
        name = signal.Signals(-done.returncode).name
    except ValueError:
        name = f"signal {-done.returncode}"
    last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
    return name + (f" ({last[0][:200]})" if last else "")


def gpu_load_crash(path: Path, n_gpu_layers: int, build: str) -> str:
    """What kills a process like ours that loads `path` with `n_gpu_layers` on the GPU
    under the llama.cpp build `build` (its version and where it lives): "" when nothing
    does, or when not asked (GRAPHRAG_LOCAL_GPU_PROBE=0)."""
    if not enabled():
        return ""
    key = _key(path, n_gpu_layers, build)
    known = verdicts()
    if key in known:
        return str(known[key].get("crash", ""))
    crash = _ask_child(path, n_gpu_layers)
    known[key] = {"model": str(path), "crash": crash}
    try:
        _cache_file().parent.mkdir(parents=True, exist_ok=True)
        _cache_file().write_text(json.dumps(known, indent=1))
    except OSError:
        pass
    return crash
