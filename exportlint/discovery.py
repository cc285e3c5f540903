"""Which files to lint: paths, recursion, exclude / extend-exclude, explicit files."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exportlint.config import Config


class DiscoveryError(Exception):
    pass


@dataclass
class Discovered:
    files: list[str] = field(default_factory=list)
    #: (path, reason) for things we did not lint but the user may want to know about
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: directories that could not be listed (an error: exit 2, the rest is still linted)
    unreadable: list[str] = field(default_factory=list)


def _link_problem(path: str) -> str:
    """Why a path that lexists does not exist: a symlink loop or a dangling link."""
    import errno

    try:
        os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "symbolic link loop"
        return f"broken symbolic link ({e.strerror})"
    return "broken symbolic link"


def _excluded(path: Path, root: Path, patterns: tuple[str, ...]) -> bool:
    name = path.name
    try:
        rel = path.resolve().relative_to(root).as_posix() if path.is_absolute() else path.as_posix()
    except (ValueError, RuntimeError, OSError):  # RuntimeError: a symlink loop (Python 3.11)
        rel = path.as_posix()
    for pat in patterns:
        p = pat.rstrip("/")
        if fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(path.as_posix(), p):
            return True
        if "/" in p and (rel == p or rel.startswith(p + "/")):
            return True
    return False


def excluded_with_parents(path: Path, root: Path, patterns: tuple[str, ...]) -> bool:
    """For paths named on the command line: excluded if it or any folder above it (up to the
    project root) matches."""
    p = Path(os.path.abspath(path))
    while True:
        if _excluded(p, root, patterns):
            return True
        if p == root or p.parent == p or root not in p.parents:
            return False
        p = p.parent


class _IgnoreFiles:
    """.gitignore / .ignore files of the walked folders (git's semantics via pathspec). pathspec
    is imported only when a folder has such a file."""

    NAMES = (".gitignore", ".ignore")

    def __init__(self) -> None:
        self.specs: dict[str, Any] = {}  # folder -> spec (or None)

    def load(self, folder: str, filenames: list[str]) -> None:
        lines: list[str] = []
        for n in self.NAMES:
            if n in filenames:
                try:
                    with open(os.path.join(folder, n), encoding="utf-8", errors="replace") as fh:
                        lines += fh.read().splitlines()
                except OSError:
                    pass
        if lines:
            import pathspec

            self.specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines)

    def ignored(self, folder: str, name: str, is_dir: bool) -> bool:
        """Is folder/name ignored by the ignore file of folder or of a walked folder above?"""
        path = os.path.join(folder, name)
        for base, spec in self.specs.items():
            if path.startswith(base.rstrip(os.sep) + os.sep):
                rel = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if is_dir else "")
                if spec.match_file(rel):
                    return True
        return False


def discover(paths: list[str], config: Config, *, force_exclude: bool = False,
             respect_gitignore: bool = True) -> Discovered:
    patterns = tuple(config.exclude) + tuple(config.extend_exclude)
    root = config.root.resolve()
    out = Discovered()
    seen: set[str] = set()

    def add(p: str) -> None:
        key = os.path.realpath(p)
        if key in seen:
            return
        seen.add(key)
        out.files.append(p)

    for raw in paths:
        p = Path(raw)
        if not os.path.lexists(raw):
            raise DiscoveryError(f"{raw}: no such file or directory")
        if p.is_file() or (p.is_symlink() and not p.is_dir()):
            if not p.exists():
                raise DiscoveryError(f"{raw}: {_link_problem(raw)}")
            if force_exclude and excluded_with_parents(p, root, patterns):
                out.skipped.append((raw, "excluded"))
                continue
            add(raw)  # explicit files are linted whatever their suffix
            continue
        if not p.is_dir():
            raise DiscoveryError(f"{raw}: not a file or directory")
        if force_exclude and excluded_with_parents(p, root, patterns):
            out.skipped.append((raw, "excluded"))
            continue
        visited_dirs: set[tuple[int, int]] = set()
        ignores = _IgnoreFiles() if respect_gitignore else None
        def onerror(e: OSError) -> None:
            out.skipped.append((e.filename, f"cannot read directory: {e.strerror or e}"))
            out.unreadable.append(e.filename)

        for dirpath, dirnames, filenames in os.walk(raw, followlinks=True, onerror=onerror):
            try:
                st = os.stat(dirpath)
                ident = (st.st_dev, st.st_ino)
            except OSError:
                dirnames[:] = []
                continue
            if ident in visited_dirs:  # symlink loop
                dirnames[:] = []
                out.skipped.append((dirpath, "symlink loop"))
                continue
            visited_dirs.add(ident)
            if ignores is not None:
                ignores.load(dirpath, filenames)
                dirnames[:] = [d for d in dirnames if d != ".git" and not ignores.ignored(dirpath, d, True)]
                filenames = [f for f in filenames if not ignores.ignored(dirpath, f, False)]
            dirnames[:] = sorted(d for d in dirnames if not _excluded(Path(dirpath, d), root, patterns))
            for fn in sorted(filenames):
                if not fn.endswith((".py", ".pyi")) or fn.endswith(".pyi"):
                    continue
                fp = Path(dirpath, fn)
                if _excluded(fp, root, patterns):
                    continue
                if not fp.exists():
                    out.skipped.append((str(fp), _link_problem(str(fp))))
                    continue
                add(str(fp))
    return out
