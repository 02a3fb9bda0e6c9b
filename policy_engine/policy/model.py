"""The policy language: pydantic v2 models, the single source of truth.

A policy file is a YAML document::

    apiVersion: policy-engine.dev/v1
    kind: PrivacyPolicy            # or PolicyFragment for a file another one includes
    metadata: {name: clinic, owner: privacy@clinic.example, version: "3"}
    include: [constraints.yaml, statements.md]
    constraints: [...]             # SD-RAG Section III: natural-language constraints
    private_knowledge: {...}       # Eraser4RAG Section 2: private/public triples
    corpus: {...}                  # what compile reads and how it builds the bundle
    audit: {...}                   # where decisions are logged, what is masked
    enforcement: {...}             # enforcer order and failure behaviour
    necessity: {...}               # an enforcer's own section (enforcers/query_rewrite/settings.py)

This module declares the sections the policy layer itself reads (the ones
compile, detection and the engine use: constraints, private knowledge,
corpus, audit, enforcement, model, vocabulary).  A section only one enforcer
reads (``necessity``, ``quasi_identifiers``, ``differential_privacy``) is
declared by that enforcer's ``settings.py`` and added to
:class:`PolicyDocument` and :class:`Policy` here, one field per
:class:`~policy_engine.policy.sections.Section`, when this module is imported.

Structural rules (types, allowed keys, enum values) are enforced by the
models; semantic rules that relate several values are lint rules
(:mod:`policy_engine.lint`, and each enforcer's ``lint.py``) so that they are
reported with codes and positions rather than as generic validation errors.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, create_model

from policy_engine.policy.countries import country_code
from policy_engine.policy.sections import StrictModel, sections

API_VERSION = "policy-engine.dev/v1"
SUPPORTED_API_VERSIONS = (API_VERSION,)

Identifier = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=128)]
NonEmpty = Annotated[str, Field(min_length=1)]
#: An ISO 3166-1 alpha-2 code, upper-cased (:mod:`policy_engine.policy.countries`).
CountryCode = Annotated[str, AfterValidator(country_code)]
_COUNTRIES_HELP = "ISO 3166-1 alpha-2 codes of the countries the documents come from; scopes national phone, identity-number and postcode formats (empty: a broad default)."


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


class PolicyDocumentCore(StrictModel):
    """The sections of one policy file that the policy layer declares (see :class:`PolicyDocument`)."""

    api_version: str = Field(alias="apiVersion")
    kind: Literal["PrivacyPolicy", "PolicyFragment"]
    metadata: Metadata | None = None
    include: list[str] = Field(default_factory=list)
    countries: list[CountryCode] = Field(default_factory=list, description=_COUNTRIES_HELP)
    vocabulary: VocabularyExtension | None = None
    constraints: list[Constraint] = Field(default_factory=list)
    private_knowledge: PrivateKnowledge | None = None
    corpus: CorpusSettings | None = None
    audit: AuditSettings | None = None
    enforcement: EnforcementSettings | None = None
    model: ModelSettings | None = None


class PolicyCore(StrictModel):
    """The sections of a whole policy that the policy layer declares (see :class:`Policy`)."""

    api_version: str = Field(default=API_VERSION, alias="apiVersion")
    metadata: Metadata
    constraints: list[Constraint] = Field(default_factory=list)
    countries: list[CountryCode] = Field(default_factory=list, description=_COUNTRIES_HELP + " Included files add theirs.")
    private_knowledge: PrivateKnowledge = Field(default_factory=PrivateKnowledge)
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


def _section_fields(document: bool) -> dict[str, Any]:
    """One pydantic field per enforcer-owned section: optional in a file; in a policy, ``None`` or an empty model."""
    fields: dict[str, Any] = {}
    for section in sections().values():
        if document or section.default == "none":
            fields[section.name] = (section.model | None, None)
        else:
            fields[section.name] = (section.model, Field(default_factory=section.model))
    return fields


PolicyDocument = create_model(
    "PolicyDocument",
    __base__=PolicyDocumentCore,
    __module__=__name__,
    __doc__="One YAML file of a policy repo, as written (before includes are merged).",
    **_section_fields(document=True),
)

Policy = create_model(
    "Policy",
    __base__=PolicyCore,
    __module__=__name__,
    __doc__="""A whole policy: its root document merged with everything it includes.

    List sections (constraints, triples, necessity rules, vocabulary entries)
    are concatenated in include order; single-valued sections come from the
    one file that defines them.  ``revision`` is a content digest of the
    canonical JSON form, so two checkouts of the same policy agree on it.
    Enforcer-owned sections are attributes like the others (``policy.differential_privacy``).
    """,
    **_section_fields(document=False),
)
