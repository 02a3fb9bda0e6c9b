#!/usr/bin/env bash
# The main job on the bundled clinic example; run through `make demo`.
# lint -> compile -> query -> protect -> ask (local SmolLM2) -> ask --dp -> audit verify + report
set -euo pipefail
BIN=${1:-.venv/bin}
PE="$BIN/policy-engine"
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# Demo-only audit key: in production it comes from a secret store (see docs/audit.md).
export POLICY_ENGINE_AUDIT_KEY=${POLICY_ENGINE_AUDIT_KEY:-demo-key-not-for-production}
QUESTION="Which medication and dose was the patient with type 2 diabetes prescribed?"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "lint the example policy repos"
"$PE" lint policies/

step "compile the clinic policy and its corpus into bundles/clinic"
"$PE" compile policies/clinic -o bundles/clinic

step "retrieve: chunks and the constraints that govern them"
"$PE" query bundles/clinic "$QUESTION"

step "protect: the sanitized context any LLM may see, and the redaction table"
"$PE" protect bundles/clinic "$QUESTION" --principal demo-nurse --purpose care

step "ask: answer from the sanitized context with the local SmolLM2-135M model"
"$PE" models pull
"$PE" ask bundles/clinic "$QUESTION" --principal demo-nurse --purpose care --model default

step "ask --dp: a differentially private answer (PEARL), charged to demo-nurse's privacy budget"
"$PE" ask bundles/clinic "$QUESTION" --principal demo-nurse --purpose care --dp

step "audit: verify the tamper-evident decision log and export the auditor's report"
"$PE" audit verify policies/clinic/.policy-engine/audit/clinic-decisions.jsonl
mkdir -p out
"$PE" audit report policies/clinic/.policy-engine/audit/clinic-decisions.jsonl --policy policies/clinic --ledger policies/clinic/.policy-engine/clinic-ledger.sqlite -o out/audit-report.html
echo "open out/audit-report.html in a browser (self-contained, works offline)"
