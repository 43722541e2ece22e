#!/usr/bin/env bash
# The main job: set up, build an index of the sample corpus with the embedded default
# model, print what was built, then answer a global question over it: quoted, then written.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
INDEX=${INDEX:-graphrag_index}
.venv/bin/graphrag-local build samples/corpus --index "$INDEX"
.venv/bin/graphrag-local status --index "$INDEX"
.venv/bin/graphrag-local query "What are the main themes of these documents?" --index "$INDEX"
# The same question written by the 1.5B writer from the sentences above, every sentence
# cited and checked against what it cites (~30 s on 2 cores, the model's load included)
.venv/bin/graphrag-local query "What are the main themes of these documents?" --index "$INDEX" \
  --writer qwen2.5-coder-1.5b --local
