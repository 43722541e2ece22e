#!/usr/bin/env bash
# The test suite: set up (idempotent), then every test, the real-model end-to-end tier
# included. Pass pytest arguments through, e.g. `bash scripts/test.sh -m fast`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
