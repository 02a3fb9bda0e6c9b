#!/usr/bin/env bash
# The main job on the bundled clinic example; run through `make demo`.
# lint -> compile -> query -> protect -> rewrite -> erase -> guard (QI clusters) -> ask (local SmolLM2) -> ask --dp -> audit verify + report
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

step "retrieve: chunks and the constraints that govern them (ids only: the chunks are unredacted until protect)"
"$PE" query bundles/clinic "$QUESTION" --ids-only

step "protect: the sanitized context any LLM may see, and the redaction table"
"$PE" protect bundles/clinic "$QUESTION" --principal demo-nurse --purpose care

step "rewrite: the question as any model sees it (query_rewrite: keep what the task needs, drop the rest)"
"$PE" rewrite policies/clinic "My name is Dana Whitfield and I'm going through a divorce. I take metformin for my type 2 diabetes. Which side effects of metformin should I watch for?"

step "erase: the clinic's cross-document fact (address in one file, patient name in the other) no longer connects; redaction then hides what the policy protects"
"$PE" erase policies/clinic examples/clinic/docs/clinic-049.md examples/clinic/docs/clinic-050.txt --redact

step "output guard (shipped, nothing to train): a QI-cluster answer is generalized; a generic answer is released"
"$PE" guard check policies/clinic "Regarding the patient: she is 52 years old, works as a welder and lives in Omaha. Blood pressure should be rechecked after any change in medication."
"$PE" guard check policies/clinic "Among adults aged 50 to 65, regular exercise lowers blood pressure. Annual screening is recommended from age 45."

step "ask: answer from the sanitized context with the local SmolLM2-135M model (sentences the context does not support are cut; if none is left, the context sentences most relevant to the question are quoted, labelled as quotations)"
"$PE" models pull
"$PE" ask bundles/clinic "$QUESTION" --principal demo-nurse --purpose care --model default || [ $? -eq 4 ]

step "ask --dp: a differentially private answer (PEARL), charged to demo-nurse's privacy budget (unsupported sentences cut; never quoted, which would bypass the private decoder: with nothing supported it abstains)"
# The demo principal's budget (epsilon 4 per 30 days, 1 per answer) would be spent after four demo runs; each run
# starts it afresh. A real deployment never deletes its ledger.
rm -f policies/clinic/.policy-engine/clinic-ledger.sqlite
# exit 4 is a refusal (nothing the mechanism could release): shown, not a failure
"$PE" ask bundles/clinic "$QUESTION" --principal demo-nurse --purpose care --dp || [ $? -eq 4 ]

step "audit: verify the tamper-evident decision log and export the auditor's report"
"$PE" audit verify policies/clinic/.policy-engine/audit/clinic-decisions.jsonl
mkdir -p out
"$PE" audit report policies/clinic/.policy-engine/audit/clinic-decisions.jsonl --policy policies/clinic --ledger policies/clinic/.policy-engine/clinic-ledger.sqlite -o out/audit-report.html
echo "open out/audit-report.html in a browser (self-contained, works offline)"
