"""The policy-section registry: an enforcer package owns the policy section it reads.

An enforcer package (``enforcers/<name>/`` or an installed package named by
the ``policy_engine.enforcers`` entry-point group) may hold a ``settings.py``
that declares its sections::

    SECTIONS = (Section("differential_privacy", DifferentialPrivacySettings),)

:func:`sections` imports every such ``settings.py`` (never the enforcer body)
once, the first time the policy model is built, and returns the name ->
:class:`Section` map from which :mod:`policy_engine.policy.model` adds one
field per section to ``PolicyDocument`` and ``Policy``.  A YAML key named
after a section is then validated against the enforcer's own model, with
positions, and ``schemas/policy.schema.json`` describes it.

Section models derive from :class:`StrictModel` (unknown keys are errors,
values are immutable).  A ``settings.py`` is imported while the policy model
is being built, so it may import this module and pydantic but not
:mod:`policy_engine.policy.model`.  The policy layer imports no enforcer statically:
discovery goes by module name through :mod:`importlib`, as the enforcer
registry does.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import pkgutil
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from policy_engine.errors import PolicyEngineError

#: Entry-point group through which installed packages contribute enforcers (shared with the enforcer registry).
ENTRY_POINT_GROUP = "policy_engine.enforcers"
#: The package whose sub-packages are the built-in enforcers.
BUILTIN_PACKAGE = "enforcers"
#: Sections the policy layer itself declares; no enforcer may take these names.
CORE_SECTIONS = frozenset(
    {"apiVersion", "api_version", "kind", "metadata", "include", "vocabulary", "constraints", "private_knowledge", "corpus", "audit", "enforcement", "model"}
    | {"sources", "root_dir", "revision"}
)


class StrictModel(BaseModel):
    """Base for policy sections: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class SectionError(PolicyEngineError, RuntimeError):
    """A settings module declares a section that cannot be added (reserved name, name taken, not a model)."""


@dataclass(frozen=True)
class Section:
    """One top-level policy section owned by an enforcer package.

    ``merge`` says how the files of one policy combine it: ``single`` (one
    file defines it; a second definition is PE013) or ``concat`` (every file
    may contribute: list fields are concatenated in include order, other
    fields set in a later file override earlier ones).  ``default`` is what a
    policy without the section holds: ``none`` (the attribute is ``None``, the
    enforcer has no work) or ``empty`` (the model built with no arguments).
    """

    name: str
    model: type[StrictModel]
    merge: Literal["single", "concat"] = "single"
    default: Literal["none", "empty"] = "none"


_LOCK = threading.RLock()
_SECTIONS: dict[str, Section] = {}
_discovered = False


def _package_of(module: str) -> str | None:
    """The enforcer package of an entry point's module: ``pkg`` for ``pkg.enforcer``, else None (a one-module enforcer)."""
    package, _, leaf = module.rpartition(".")
    return package if package and leaf == "enforcer" else None


def enforcer_packages() -> list[str]:
    """Module names of every enforcer package: the built-in ``enforcers.<name>`` and those named by entry points.

    An entry point names its enforcer module (``my_pkg.enforcer``); its
    package is the one that holds it.  Only package ``__init__`` modules are
    imported here, never an enforcer body.
    """
    builtin = importlib.import_module(BUILTIN_PACKAGE)
    names = [f"{BUILTIN_PACKAGE}.{m.name}" for m in pkgutil.iter_modules(builtin.__path__) if m.ispkg]
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        package = _package_of(entry_point.value.partition(":")[0].strip())
        if package is not None and package not in names:
            names.append(package)
    return names


def companion_modules(leaf: str) -> list[str]:
    """The importable ``<package>.<leaf>`` modules (e.g. ``settings``, ``lint``) of every enforcer package."""
    return [f"{package}.{leaf}" for package in enforcer_packages() if importlib.util.find_spec(f"{package}.{leaf}") is not None]


def _add(section: Section, origin: str) -> None:
    if section.name in CORE_SECTIONS:
        raise SectionError(f"{origin}: section name {section.name!r} is reserved by the policy model")
    if not (isinstance(section.model, type) and issubclass(section.model, StrictModel)):
        raise SectionError(f"{origin}: section {section.name!r} must be a StrictModel subclass, not {section.model!r}")
    existing = _SECTIONS.get(section.name)
    if existing is not None and existing.model.__qualname__ != section.model.__qualname__:
        raise SectionError(f"{origin}: section {section.name!r} is taken by {existing.model.__module__}.{existing.model.__qualname__}")
    _SECTIONS[section.name] = section


def sections() -> Mapping[str, Section]:
    """Every enforcer-owned section by name, discovered once per process (in package order, then entry points)."""
    global _discovered
    with _LOCK:
        if not _discovered:
            for module_name in companion_modules("settings"):
                module = importlib.import_module(module_name)
                for section in getattr(module, "SECTIONS", ()):
                    _add(section, module_name)
            _discovered = True
        return dict(_SECTIONS)
