#!/usr/bin/env bash
# The main job: set up, build an index of the sample corpus with the embedded default
# model, print what was built, then answer a global question over it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
INDEX=${INDEX:-graphrag_index}
.venv/bin/graphrag-local build samples/corpus --index "$INDEX"
.venv/bin/graphrag-local status --index "$INDEX"
.venv/bin/graphrag-local query "What are the main themes of these documents?" --index "$INDEX"
