#!/usr/bin/env bash
# The main job on the bundled examples; run through `make demo`.
set -euo pipefail
BIN=${1:-.venv/bin}
PE="$BIN/policy-engine"
cd "$(dirname "$0")/.."

echo "== lint the example policy repos"
"$PE" lint policies/
