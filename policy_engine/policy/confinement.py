"""Where a policy repository ends: includes and corpus paths stay inside it.

The repository root of a policy is the nearest directory at or above the
root policy file that holds ``.git`` (a directory, or the file a worktree
has), else the root file's own directory.  Paths are compared after
resolving symlinks, so a link inside the repo that points outside is outside.
"""

from __future__ import annotations

from pathlib import Path


def repo_root(start: str | Path) -> Path:
    """The nearest enclosing git root of ``start`` (a file or directory), else ``start``'s directory."""
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def inside(path: str | Path, root: Path) -> bool:
    """True when ``path``, symlinks resolved, lies within ``root``."""
    return Path(path).resolve().is_relative_to(root.resolve())
