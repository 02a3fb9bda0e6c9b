"""The policy language: pydantic v2 models, the single source of truth.

A policy file is a YAML document::

    apiVersion: policy-engine.dev/v1
    kind: PrivacyPolicy            # or PolicyFragment for a file another one includes
    metadata: {name: clinic, owner: privacy@clinic.example, version: "3"}
    include: [constraints.yaml, statements.md]
    constraints: [...]             # SD-RAG Section III: natural-language constraints
    private_knowledge: {...}       # Eraser4RAG Section 2: private/public triples
    necessity: {...}               # Need-to-Know Sections 1 and 3: CI rules per task
    quasi_identifiers: {...}       # PPE Sections III, IV-B: QI cluster guard
    differential_privacy: {...}    # PEARL Sections 2, 4: DP decoding budget
    corpus: {...}                  # what compile reads and how it builds the bundle
    audit: {...}                   # where decisions are logged, what is masked
    enforcement: {...}             # enforcer order and failure behaviour

Structural rules (types, allowed keys, enum values) are enforced here;
semantic rules that relate several values (inferable triples, unknown task
types, budgets that cannot cover a generation) are lint rules in
:mod:`policy_engine.lint` so that they are reported with codes and positions
rather than as generic validation errors.

Size: ~400 lines of declarations on purpose: the whole policy language in one module
is the schema's single source of truth.
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

API_VERSION = "policy-engine.dev/v1"
SUPPORTED_API_VERSIONS = (API_VERSION,)

Identifier = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=128)]
NonEmpty = Annotated[str, Field(min_length=1)]


class StrictModel(BaseModel):
    """Base for policy sections: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# --------------------------------------------------------------- constraints


class RedactionMode(str, Enum):
    """How a constraint is enforced on retrieved text (SD-RAG Section III-C2)."""

    EXTRACTIVE = "extractive"  # replace spans with typed placeholders
    PERIPHRASTIC = "periphrastic"  # rewrite so the constraint holds while meaning survives


class ConstraintSeverity(str, Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class DetectorHints(StrictModel):
    """Optional hints that pin down what a constraint protects.

    ``categories`` overrides the automatic resolution of the statement to
    sensitive categories; ``entity_types`` are spaCy NER labels; ``patterns``
    are Python regular expressions; ``terms`` are literal strings (matched
    case-insensitively and by normalized form); ``roles`` qualifies whose data
    is protected (``patient`` but not ``doctor``).
    """

    categories: list[str] = Field(default_factory=list)
    entity_types: list[str] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list)
    terms: list[str] = Field(default_factory=list)
    roles: list[str] = Field(default_factory=list)


class Constraint(StrictModel):
    """A natural-language disclosure constraint (SD-RAG Section III-B)."""

    id: Identifier
    statement: str
    redaction: RedactionMode = RedactionMode.EXTRACTIVE
    detect: DetectorHints = Field(default_factory=DetectorHints)
    severity: ConstraintSeverity = ConstraintSeverity.MEDIUM
    labels: list[str] = Field(default_factory=list)
    advisory: bool = Field(
        default=False,
        description="Guidance for people, not an enforced rule: a statement the engine cannot resolve to a category is then "
        "reported as not applied instead of refusing the policy (lint PE109 becomes a warning).",
    )


# --------------------------------------------------------- private knowledge

Triple = tuple[str, str, str]


class PrivateKnowledge(StrictModel):
    """Private facts to erase across documents (Eraser4RAG Section 2).

    ``private`` and ``public`` are ``[head, relation, tail]`` triples; a
    standalone private entity ``A`` is the self-loop ``[A, A, A]`` and may be
    listed under ``entities`` for brevity.
    """

    private: list[Triple] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    public: list[Triple] = Field(default_factory=list)
    on_conflict: Literal["erase", "withhold"] = Field(
        default="erase",
        description="When cutting a cross-document connection needs a public triple: erase it anyway (recorded) or withhold the passages.",
    )

    def private_triples(self) -> list[Triple]:
        """All private triples, standalone entities expanded to self-loops."""
        return list(self.private) + [(e, e, e) for e in self.entities]


# ----------------------------------------------------------------- necessity


class NecessityAction(str, Enum):
    REMOVE = "remove"
    GENERALIZE = "generalize"


class NecessityRule(StrictModel):
    """Contextual-integrity rule for one task type (Need-to-Know Section 3).

    ``essential`` attributes (or attribute families) are forwarded because the
    task needs them; ``non_essential`` ones are removed or generalized.  With
    ``purposes`` the rule applies only to requests made for one of them.
    """

    task: str
    essential: list[str] = Field(default_factory=list)
    non_essential: list[str] = Field(default_factory=list)
    action: NecessityAction = NecessityAction.GENERALIZE
    purposes: list[str] = Field(default_factory=list, description="Request purposes the rule applies to; empty = every purpose.")


class NecessitySettings(StrictModel):
    default_action: NecessityAction = NecessityAction.GENERALIZE
    default_task: str | None = Field(default=None, description="Task assumed when the query's task is classified below min_confidence.")
    min_confidence: float = Field(default=0.3, ge=0, le=1, description="Task-classifier confidence below which default_task (or the most protective rule) applies.")
    rules: list[NecessityRule] = Field(default_factory=list)


# --------------------------------------------------------- quasi-identifiers


class OperatingPoint(StrictModel):
    """Decision threshold and abstain gate of the QI guard (PPE Sections V-C, V-D).

    ``preset`` picks the trained output guard's decision threshold on
    delta = sigma_u - sigma_s: ``conservative`` flags when sigma_u > sigma_s,
    ``balanced`` at 90% and ``strict`` at 95% within-distribution TPR.
    ``abstain_rate`` sets the abstain gate: the share of answers from a
    generator the model was not trained on that are withheld for review
    (calibrated leave-one-generator-family-out when the model is trained;
    re-derived from the saved reference margins when the guard is built).
    """

    preset: Literal["conservative", "balanced", "strict"] = "balanced"
    abstain_rate: float = 0.05


class QuasiIdentifierSettings(StrictModel):
    """Quasi-identifier cluster guard settings (PPE Sections III, IV-B)."""

    domain: Literal["medical", "finance", "law", "general"] = "general"
    classes: list[str] = Field(default_factory=lambda: ["AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "FAMILY"])
    max_per_subject: int = Field(default=2, ge=1)
    operating_point: OperatingPoint = Field(default_factory=OperatingPoint)


# ----------------------------------------------------- differential privacy

_WINDOW = re.compile(r"^(\d+)\s*([smhdw])$")
_WINDOW_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class BudgetSplit(StrictModel):
    """Fractions of the policy's epsilon spent on each PEARL stage."""

    generation: float = 0.7
    selection: float = 0.15
    refill: float = 0.15


class DPDecodingSettings(StrictModel):
    """Settings of the DP ensemble decoder (PEARL Algorithm 1, Section 4)."""

    subsets: int = Field(default=4, ge=1, description="M, number of disjoint document subsets.")
    clip: float = Field(default=5.0, gt=0, description="C, per-subset log-probabilities are clipped to [-C, 0].")
    max_new_tokens: int = Field(default=64, ge=1)
    candidates: int = Field(default=64, ge=1, description="Tokens sampled from: the no-context model's top candidates (public).")
    cg_clip: float = Field(default=4.0, gt=0, description="B, bound on each subset's confidence-gap contribution.")
    svt_thresholds: tuple[float, float] = Field(default=(1.0, -1.0), description="Sparse-vector thresholds (PII, hallucination).")
    refill_max_new_tokens: int = Field(default=48, ge=1)
    step_epsilon: float | None = Field(default=None, description="Per-token budget; solved from epsilon when unset.")
    refill: Literal["pearl", "random", "none"] = "pearl"
    selection: Literal["topk", "svt"] = "topk"
    pii_sentences: int = Field(default=1, ge=0)
    refill_sentences: int = Field(default=1, ge=0)
    keywords: int = Field(default=5, ge=0)
    seed: int | None = Field(
        default=None,
        description="Never set: a fixed seed makes the DP noise predictable and voids the guarantee "
        "(lint PE149; the engine refuses to serve such a policy). Every request draws fresh secure noise.",
    )
    budget_split: BudgetSplit = Field(default_factory=BudgetSplit)


class DifferentialPrivacySettings(StrictModel):
    """Document-level (epsilon, delta) budget and DP decoding (PEARL Sections 2, 4)."""

    epsilon: float
    delta: float = 1e-5
    scope: Literal["principal", "policy", "document_set"] = "principal"
    window: str = "30d"
    documents: int | None = Field(default=None, ge=1, description="N, protected documents; delta must stay below 1/N.")
    answer_epsilon: float | None = Field(default=None, description="Epsilon one answer may spend; unset = epsilon/8 (lint warns above epsilon/4).")
    answer_delta: float | None = Field(default=None, description="Delta one answer may spend; unset = the same share of delta as answer_epsilon of epsilon.")
    decoding: DPDecodingSettings = Field(default_factory=DPDecodingSettings)

    @field_validator("window")
    @classmethod
    def _window_format(cls, value: str) -> str:
        if value != "none" and not _WINDOW.match(value.strip()):
            raise ValueError("window must be a duration like '30d', '12h', '1w', or 'none'")
        return value.strip()

    @property
    def window_seconds(self) -> float | None:
        """Length of one budget window in seconds; ``None`` means the budget never resets."""
        if self.window == "none":
            return None
        number, unit = _WINDOW.match(self.window).groups()  # type: ignore[union-attr]
        return float(int(number) * _WINDOW_SECONDS[unit])


# -------------------------------------------------------------------- corpus


class ChunkingSettings(StrictModel):
    max_tokens: int = Field(default=200, ge=16, le=8192)
    overlap: int = Field(default=32, ge=0)


class EmbeddingSettings(StrictModel):
    model: str = Field(default="all-MiniLM-L6-v2", description="Built-in name or a local model directory.")
    batch_size: int = Field(default=64, ge=1)
    precision: Literal["auto", "float32", "bfloat16"] = Field(
        default="auto",
        description="Arithmetic of the encoder on CPU: auto picks bfloat16 where the CPU has native bf16 instructions "
        "(AVX512-BF16 or AMX; about twice as fast, cosine to float32 above 0.9999), float32 elsewhere.",
    )


class IndexSettings(StrictModel):
    kind: Literal["flat", "ivf", "hnsw"] = "flat"
    nlist: int = Field(default=256, ge=1)
    hnsw_m: int = Field(default=32, ge=4)


class SummaryTreeSettings(StrictModel):
    """RAPTOR-style recursive summary tree (SD-RAG Section III-C1)."""

    enabled: bool = True
    depth: int = Field(default=3, ge=1, le=8)
    umap_dim: int = Field(default=10, ge=2)
    umap_neighbors: int = Field(default=15, ge=2)
    max_clusters: int = Field(default=50, ge=1)
    threshold: float = Field(default=0.1, gt=0, le=1, description="Soft-assignment probability threshold.")
    summary: Literal["extractive", "abstractive"] = "extractive"
    summary_sentences: int = Field(default=3, ge=1)
    seed: int = 0


class BindingSettings(StrictModel):
    """Constraint binding to corpus nodes (SD-RAG Section III-C1)."""

    top_k: int = Field(default=50, ge=1)
    explicit: bool = True


class RetrievalSettings(StrictModel):
    """Retrieval and constraint ranking (SD-RAG Section IV-C2)."""

    top_k: int = Field(default=5, ge=1)
    ranking: Literal["concat", "query", "max", "mean", "weighted_mean"] = "weighted_mean"
    max_constraints: int = Field(default=10, ge=1)
    enforce_unranked: bool = Field(
        default=True,
        description="Also enforce constraints the ranking cut or the binding left out (recall first); false = SD-RAG's top-K only.",
    )
    context_tokens: int | None = Field(
        default=1200,
        ge=1,
        description="Token budget (words and punctuation) of the assembled context; null = no budget.",
    )


class CorpusSettings(StrictModel):
    paths: list[str] = Field(default_factory=list, description="Files, directories or globs, relative to the policy file.")
    max_file_bytes: int = Field(default=64 * 1024 * 1024, ge=1)
    max_token_chars: int = Field(
        default=10_000, ge=64, description="Documents holding a run of more characters without whitespace are skipped (no text a person reads; it would reach spaCy as one token)."
    )
    allow_outside_root: bool = Field(default=False, description="Allow corpus paths outside the policy repository (the nearest git root above the policy file).")
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    summary_tree: SummaryTreeSettings = Field(default_factory=SummaryTreeSettings)
    binding: BindingSettings = Field(default_factory=BindingSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)


# --------------------------------------------------------------------- audit


class AuditSettings(StrictModel):
    """Decision-log location, masking and checkpointing (audit package)."""

    log: str = ".policy-engine/audit/decisions.jsonl"
    sink: Literal["file", "sqlite", "stdout"] = "file"
    mask_fields: list[str] = Field(default_factory=lambda: ["input.query", "input.context"])
    masking: Literal["hash", "remove"] = "hash"
    key_env: str = "POLICY_ENGINE_AUDIT_KEY"
    key_file: str | None = None
    checkpoint_every: int = Field(default=1000, ge=1)
    rotate_bytes: int | None = Field(default=64 * 1024 * 1024, ge=1024)
    rotate_daily: bool = False
    ledger: str = ".policy-engine/ledger.sqlite"
    ids: Literal["mask", "safe"] = Field(default="mask", description="mask: document and chunk ids are written as keyed hashes (file names can hold names or case numbers); safe: written as they are.")


# ---------------------------------------------------------- enforcement/model

class EnforcementSettings(StrictModel):
    """Which enforcers run, in which order, and how failures are handled."""

    order: list[str] = Field(default_factory=lambda: ["redaction"])
    on_error: Literal["deny", "mask"] = "deny"
    timeout_s: float = Field(default=30.0, gt=0)


class ModelSettings(StrictModel):
    """Local language model used by model-backed features (none by default)."""

    path: str | None = Field(default=None, description="Local model directory or .gguf file; unset = no model.")
    device: Literal["auto", "cpu", "cuda"] = "auto"
    use_for: list[Literal["answer", "summaries", "paraphrase", "rewrite"]] = Field(default_factory=list)


# ----------------------------------------------------------------- vocabulary


class CategoryDefinition(StrictModel):
    """A policy-specific sensitive category (extends the built-in taxonomy)."""

    description: str
    keywords: list[str] = Field(default_factory=list)
    entity_labels: list[str] = Field(default_factory=list)
    recognizers: list[str] = Field(default_factory=list)
    placeholder: str | None = None
    generalization: str | None = None


class VocabularyExtension(StrictModel):
    """Per-policy additions to the built-in vocabularies.

    ``allow`` lists terms that are never redacted although a detector finds
    them (the organization's own name, drug classes, court names): a finding
    that lies inside an occurrence of an allowed term is dropped, except
    findings of a constraint's own ``detect.terms`` and of private entities,
    which lint reports as contradictions (PE114).
    """

    categories: dict[Identifier, CategoryDefinition] = Field(default_factory=dict)
    task_types: dict[Identifier, str] = Field(default_factory=dict)
    attributes: dict[Identifier, list[str]] = Field(default_factory=dict, description="family -> attributes")
    qi_classes: list[str] = Field(default_factory=list)
    allow: list[NonEmpty] = Field(default_factory=list, description="Terms never redacted; matched as whole words, case-insensitively.")


# ----------------------------------------------------------------- documents


class Metadata(StrictModel):
    name: Identifier
    owner: str | None = None
    version: str = "0"
    description: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)


class PolicyDocument(StrictModel):
    """One YAML file of a policy repo, as written (before includes are merged)."""

    api_version: str = Field(alias="apiVersion")
    kind: Literal["PrivacyPolicy", "PolicyFragment"]
    metadata: Metadata | None = None
    include: list[str] = Field(default_factory=list)
    vocabulary: VocabularyExtension | None = None
    constraints: list[Constraint] = Field(default_factory=list)
    private_knowledge: PrivateKnowledge | None = None
    necessity: NecessitySettings | None = None
    quasi_identifiers: QuasiIdentifierSettings | None = None
    differential_privacy: DifferentialPrivacySettings | None = None
    corpus: CorpusSettings | None = None
    audit: AuditSettings | None = None
    enforcement: EnforcementSettings | None = None
    model: ModelSettings | None = None


class Policy(StrictModel):
    """A whole policy: its root document merged with everything it includes.

    List sections (constraints, triples, necessity rules, vocabulary entries)
    are concatenated in include order; single-valued sections come from the
    one file that defines them.  ``revision`` is a content digest of the
    canonical JSON form, so two checkouts of the same policy agree on it.
    """

    api_version: str = Field(default=API_VERSION, alias="apiVersion")
    metadata: Metadata
    constraints: list[Constraint] = Field(default_factory=list)
    private_knowledge: PrivateKnowledge = Field(default_factory=PrivateKnowledge)
    necessity: NecessitySettings = Field(default_factory=NecessitySettings)
    quasi_identifiers: QuasiIdentifierSettings | None = None
    differential_privacy: DifferentialPrivacySettings | None = None
    corpus: CorpusSettings = Field(default_factory=CorpusSettings)
    audit: AuditSettings = Field(default_factory=AuditSettings)
    enforcement: EnforcementSettings = Field(default_factory=EnforcementSettings)
    model: ModelSettings = Field(default_factory=ModelSettings)
    vocabulary: VocabularyExtension = Field(default_factory=VocabularyExtension)
    sources: list[str] = Field(default_factory=list, description="Files the policy was read from, root first.")
    root_dir: str = Field(default=".", description="Directory of the root file; relative paths resolve against it.")
    revision: str = Field(default="", description="sha256 of the canonical policy content.")

    def resolve_path(self, path: str | Path) -> Path:
        """``path`` made absolute against the policy's directory (how audit, ledger, model and guard paths resolve)."""
        candidate = Path(path).expanduser()
        return candidate if candidate.is_absolute() else Path(self.root_dir) / candidate

    def constraint(self, constraint_id: str) -> Constraint:
        for c in self.constraints:
            if c.id == constraint_id:
                return c
        raise KeyError(constraint_id)
