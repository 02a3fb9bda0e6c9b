"""Positioned diagnostics: the one error currency of the policy toolchain.

Every problem found while reading or linting a policy is a :class:`Diagnostic`
carrying a stable code (``PE103``), a severity, a message, a help text and a
:class:`SourceSpan` (file, 1-based line and column).  Codes and their default
severities live in :data:`CODES`, so documentation, SARIF rule metadata and
tests all read from one registry.  Loading code never raises anything but
:class:`PolicyError`, which wraps a list of diagnostics.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from policy_engine.errors import PolicyEngineError


class Severity(str, enum.Enum):
    """How bad a finding is; ordered so that ``ERROR > WARNING > INFO``."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True, order=True)
class SourceSpan:
    """A region of a source file; lines and columns are 1-based.

    ``end_line``/``end_col`` are inclusive of the last character when known,
    otherwise equal to the start.
    """

    file: str
    line: int = 1
    col: int = 1
    end_line: int | None = None
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def stop_line(self) -> int:
        return self.end_line if self.end_line is not None else self.line

    @property
    def stop_col(self) -> int:
        return self.end_col if self.end_col is not None else self.col


@dataclass(frozen=True)
class CodeInfo:
    """Registry entry for one diagnostic code."""

    code: str
    name: str
    severity: Severity
    summary: str
    help: str


def _codes(*entries: tuple[str, str, Severity, str, str]) -> dict[str, CodeInfo]:
    return {code: CodeInfo(code, name, sev, summary, hlp) for code, name, sev, summary, hlp in entries}


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741 - one letter per severity keeps the table below readable

#: Every diagnostic the toolchain can emit.  Codes are stable: never renumber.
CODES: dict[str, CodeInfo] = _codes(
    # -- reading files (PE0xx)
    ("PE001", "yaml-syntax", E, "The file is not valid YAML.", "Fix the YAML syntax at the position shown; indentation and unclosed quotes or brackets are the usual causes."),
    ("PE002", "not-utf8", E, "The file is not UTF-8 text.", "Re-save the file as UTF-8 (policies are text; binary files do not belong in a policy repo)."),
    ("PE003", "empty-file", E, "The file is empty.", "Add a policy document (apiVersion, kind, metadata) or delete the file."),
    ("PE004", "file-too-large", E, "The file is larger than the policy size limit.", "Split the policy into several files joined with `include`, or raise --max-file-bytes if the size is intended."),
    ("PE005", "duplicate-key", E, "A mapping has the same key twice; YAML would silently keep only one.", "Remove or rename one of the duplicate keys."),
    ("PE006", "include-not-found", E, "An included file does not exist.", "Fix the path (it is relative to the including file) or remove the include."),
    ("PE007", "include-cycle", E, "Files include each other in a cycle.", "Remove one include so that the include graph has no cycle."),
    ("PE008", "unsupported-document", E, "The document's apiVersion or kind is not one this engine reads.", "Use `apiVersion: policy-engine.dev/v1` and `kind: PrivacyPolicy` (or `PolicyFragment` for included parts)."),
    ("PE009", "orphan-fragment", W, "A PolicyFragment is not included by any policy, so none of it is enforced.", "Add the fragment to a policy's `include` list or delete it."),
    ("PE010", "no-policy-found", E, "No policy file was found under the given path.", "Point the command at a policy file or a directory holding `*.yaml` files with `kind: PrivacyPolicy`."),
    ("PE011", "unreadable-file", E, "The file could not be read.", "Check that the path exists and is readable."),
    ("PE012", "not-a-mapping", E, "A policy document must be a YAML mapping at the top level.", "Start the file with `apiVersion:`, `kind:` and `metadata:` keys."),
    ("PE013", "duplicate-section", E, "A single-valued section is defined in more than one file of the same policy.", "Keep the section in one file; sections that are lists (constraints, triples, rules) may be split, the others may not."),
    ("PE014", "alias-expansion-too-large", E, "YAML aliases expand the document beyond the loader's limit (an alias bomb, or a recursive anchor).", "Write the values out instead of nesting anchors of anchors; a policy needs few aliases."),
    ("PE015", "nesting-too-deep", E, "The document nests mappings or lists deeper than the loader's limit.", "Flatten the structure; policy sections nest only a few levels."),
    ("PE016", "too-many-includes", E, "The policy includes more files than the loader's limit.", "Merge fragments into fewer files."),
    ("PE017", "include-outside-root", E, "An include (or a corpus path) points outside the policy repository.", "Keep included files inside the repository (the nearest directory holding .git, or the root file's directory); for corpus paths set corpus.allow_outside_root: true if that is intended."),
    # -- structure (PE1xx)
    ("PE100", "unknown-key", E, "The key is not part of the policy format.", "Check the spelling against the schema (schemas/policy.schema.json) or remove the key."),
    ("PE101", "invalid-value", E, "The value has the wrong type or is out of its allowed range.", "Change the value to the type and range the schema expects."),
    ("PE102", "missing-field", E, "A required field is missing.", "Add the field shown."),
    ("PE103", "duplicate-constraint-id", E, "Two constraints share an id; ids must be unique within a policy.", "Give each constraint its own id; ids are referenced by audit records, so keep existing ids stable."),
    ("PE104", "unstable-constraint-id", W, "The constraint id is derived from its text and changes whenever the text is edited.", "Give the statement an explicit id: `- Hide the names of patients {#hide-patient-names}`."),
    ("PE105", "empty-statement", E, "The constraint's statement is empty or has no words.", "Write the constraint as a sentence, e.g. `Hide the names of patients`."),
    ("PE106", "permissive-statement", W, "The statement reads as a permission, not a restriction.", "Constraints say what must not be disclosed (`Hide ...`, `Do not reveal ...`); drop permissions, everything not constrained is disclosed anyway."),
    ("PE107", "duplicate-statement", W, "Two constraints have the same statement.", "Merge them into one constraint."),
    ("PE108", "redaction-mode-mismatch", W, "The redaction mode cannot serve what the constraint protects.", "Use `redaction: extractive` for identifiers: they have no meaningful generalization."),
    ("PE109", "unresolved-statement", E, "The engine cannot tell which kind of data the statement protects, so it would enforce nothing; the engine refuses to open the policy. A restriction that names a kind of fact no category lists (\"tenants' safeguarding concerns\") is enforced by meaning alone: a warning at the kind, quoting the matcher's modest measured precision.", "Name the category in the statement (e.g. `names`, `dates of birth`, `doses`; `policy-engine vocab categories` lists them), add `detect: {categories: [...]}`, or mark guidance that is not enforced `advisory: true` (`{#id advisory=true}` in a statements file)."),
    ("PE110", "invalid-pattern", E, "A detector regex does not compile.", "Fix the regular expression (Python `re` syntax)."),
    ("PE111", "unknown-category", E, "A detector names a sensitive category that is not in the vocabulary.", "Use a built-in category (`policy-engine vocab categories`) or declare it under `vocabulary.categories`."),
    ("PE112", "unknown-entity-type", W, "A detector names an entity type the NER pipeline never produces.", "Use one of the spaCy labels: PERSON, NORP, FAC, ORG, GPE, LOC, PRODUCT, EVENT, WORK_OF_ART, LAW, LANGUAGE, DATE, TIME, PERCENT, MONEY, QUANTITY, ORDINAL, CARDINAL."),
    ("PE113", "contradictory-statement", E, "The statement both forbids and allows the same disclosure.", "Split it into one restriction; permissions are implicit."),
    ("PE114", "allow-list-contradiction", E, "A term the vocabulary allow-list exempts from redaction is also named as something to hide.", "Remove the term from `vocabulary.allow`, or from the constraint's `detect.terms`/`detect.patterns` or `private_knowledge.entities`; a value cannot be both hidden and allowed."),
    ("PE115", "no-detector-installed", W, "The statement resolves to categories that no installed detector finds, so the engine reports it as not applied (and refuses it when strict).", "Install the package that provides the recognizer, add `detect.terms` or `detect.patterns`, or name a category with a detector (`policy-engine vocab categories`)."),
    ("PE116", "uncovered-identifier-kind", W, "The statement names a kind of identifier (a national number, a format) that no detector covers, so values of that kind pass through while the rest of the statement is enforced.", "Add `detect.patterns` for the format, or name a kind the engine knows (the warning lists the closest ones)."),
    # -- private knowledge (PE12x)
    ("PE120", "private-triple-inferable", E, "A private triple stays inferable: its head and tail are connected through public triples (Eraser4RAG 3.1.1).", "Make one of the connecting public triples private, or drop the private triple."),
    ("PE121", "public-triple-implied", W, "A public triple is implied by private ones: its head and tail are connected through private triples.", "Mark the public triple private, or accept that releasing it reveals the private path."),
    ("PE122", "triple-conflict", E, "The same triple is declared both private and public.", "Keep it in one list."),
    ("PE123", "malformed-triple", E, "A triple element is empty.", "Write triples as `[head, relation, tail]` with non-empty strings; a standalone private entity is `[A, A, A]` or listed under `entities`."),
    # -- necessity (PE13x)
    ("PE130", "unknown-task-type", E, "The necessity rule names a task type that is not in the vocabulary.", "Use one of the 20 task types (`policy-engine vocab tasks`) or declare it under `vocabulary.task_types`."),
    ("PE131", "unknown-attribute", E, "The necessity rule names an attribute or family that is not in the vocabulary.", "Use a built-in attribute or family (`policy-engine vocab attributes`) or declare it under `vocabulary.attributes`."),
    ("PE132", "essential-and-non-essential", E, "An attribute is both essential and non-essential for the same task.", "Decide: keep it in `essential` (forwarded) or `non_essential` (removed or generalized), not both."),
    ("PE133", "duplicate-necessity-rule", E, "Two necessity rules are given for the same task type.", "Merge them into one rule."),
    # -- differential privacy (PE14x)
    ("PE140", "epsilon-out-of-range", E, "Epsilon must be a positive, finite number.", "Set `differential_privacy.epsilon` to a value > 0 (typical: 1 to 8)."),
    ("PE141", "delta-out-of-range", E, "Delta must lie in (0, 1/N) where N is the number of protected documents.", "Choose delta well below 1/N, e.g. 1e-5 for up to 10,000 documents."),
    ("PE142", "step-budget-too-small", E, "The per-step budget cannot cover the configured generation length within the policy's (epsilon, delta).", "Lower `decoding.step_epsilon` or `decoding.max_new_tokens`, or raise `epsilon`."),
    ("PE143", "budget-split-invalid", E, "The budget split fractions must be non-negative and sum to 1.", "Adjust `decoding.budget_split` so generation + selection + refill = 1."),
    ("PE144", "weak-epsilon", I, "Epsilon above 10 gives little formal protection.", "Consider a budget of 1 to 8."),
    ("PE145", "dp-timeout-too-short", W, "The enforcement timeout cannot cover the DP answer's generation length at the reference per-token cost: private answers may time out.", "Raise `enforcement.timeout_s` to the estimate in the message, or lower `decoding.max_new_tokens`."),
    ("PE146", "answer-budget-share", W, "One answer may spend more than a quarter of the window's privacy budget.", "Set `differential_privacy.answer_epsilon` to at most epsilon/4 (unset, it defaults to epsilon/8)."),
    ("PE149", "fixed-dp-noise-seed", E, "A fixed DP decoding seed makes the noise predictable: anyone who reads the policy can replay the sampler, so the (epsilon, delta) guarantee does not hold. The engine refuses to serve such a policy.", "Remove `differential_privacy.decoding.seed`; every request draws fresh noise from a secure source."),
    # -- quasi-identifiers (PE15x)
    ("PE150", "qi-cannot-trigger", W, "The quasi-identifier guard can never trigger with these settings.", "Set `max_per_subject` to at most the number of QI classes."),
    ("PE151", "qi-operating-point", E, "The abstain rate of the operating point is outside (0, 0.5]: 0 would release every out-of-distribution answer unreviewed, more than half would withhold most answers.", "Set `operating_point.abstain_rate` to a share such as 0.05."),
    ("PE152", "unknown-qi-class", E, "The QI class is not in the taxonomy.", "Use one of AGE, OCCUPATION, LOCATION, AFFILIATION, FAMILY or the domain classes (`policy-engine vocab qi`), or declare it under `vocabulary.qi_classes`."),
    # -- corpus and bundle (PE16x)
    ("PE160", "corpus-path-empty", W, "A corpus path or glob matches no file.", "Fix the path (relative to the policy file) or remove it."),
    ("PE161", "dead-constraint", W, "The constraint's detectors find nothing in the corpus, so it never redacts anything.", "Check the statement and detect hints against the corpus (`policy-engine explain POLICY` shows what it resolved to)."),
    ("PE162", "enforcer-unknown", E, "The enforcement order names an enforcer that is not installed: the engine would refuse to serve the policy.", "Install the enforcer (a module in enforcers/ or a package with a 'policy_engine.enforcers' entry point) or remove it from enforcement.order."),
    ("PE163", "corpus-file-skipped", W, "A corpus file or record cannot be used and will be skipped by compile (or refused with --strict).", "Fix or remove the file named, or keep it out of corpus.paths."),
)


@dataclass(frozen=True)
class Diagnostic:
    """One finding, positioned in a source file."""

    code: str
    message: str
    span: SourceSpan
    severity: Severity | None = None
    help: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unregistered diagnostic code {self.code}")
        if self.severity is None:
            object.__setattr__(self, "severity", CODES[self.code].severity)
        if self.help is None:
            object.__setattr__(self, "help", CODES[self.code].help)

    @property
    def info(self) -> CodeInfo:
        return CODES[self.code]

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.file, self.span.line, self.span.col, self.code)


class ExitCode(enum.IntEnum):
    """The exit codes every command and library report shares (one set for the whole CLI)."""

    OK = 0  # success, nothing to report
    TOOL = 1  # tool or usage error: bad arguments, unreadable input, internal failure
    WARNINGS = 2  # warnings only, when asked to fail on warnings
    POLICY = 3  # policy errors: lint findings, a policy that does not load, tampering found
    REFUSED = 4  # ask: the answer was refused (outcome denied or abstained)
    INTERRUPTED = 130  # interrupted by the user (Ctrl-C)


class PolicyError(PolicyEngineError):
    """Raised when a policy cannot be loaded; carries positioned diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(diagnostics, key=lambda d: d.sort_key)
        first = self.diagnostics[0] if self.diagnostics else None
        super().__init__(f"{first.span}: {first.code} {first.message}" if first else "policy error")


def display_path(path: Path | str) -> str:
    """Path as shown in diagnostics: relative to the working directory when possible."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)
