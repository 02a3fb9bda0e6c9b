"""Every file a shipped package reads at run time (models, vocabularies, templates) is declared package data.

An editable install reads files from the checkout, so a model left out of ``[tool.setuptools.package-data]``
works in development and goes missing from a built wheel; this test walks the packages and matches each
non-Python file against the declared patterns, as setuptools globs them: relative to the top-level package, a
``*`` within one directory (``output_guard/*.npz`` takes no file of a folder below it).
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

import pytest

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def _declared(path: PurePosixPath, pattern: PurePosixPath) -> bool:
    """Whether ``pattern`` takes ``path``: the same folder, and the file name matching the pattern's last part."""
    return path.parent == pattern.parent and fnmatch(path.name, pattern.name)


@pytest.mark.parametrize("package", sorted(SETUPTOOLS["package-data"]))
def test_every_data_file_of_a_shipped_package_is_declared(package: str) -> None:
    patterns = SETUPTOOLS["package-data"][package]
    files = [
        path.relative_to(ROOT / package).as_posix()
        for path in (ROOT / package).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    ]
    assert files, f"{package} holds no data file: the walk looks in the wrong place"
    undeclared = [f for f in files if not any(_declared(PurePosixPath(f), PurePosixPath(pattern)) for pattern in patterns)]
    assert undeclared == [], f"add to [tool.setuptools.package-data] {package}: {undeclared}"
