"""What to export: targets from the config, from the command line, and ExportDB-style modules.

Resolution happens in the parent process and never imports the user's code: a module name is
looked up on disk (under the project root and ``src/``) only to know its file; the worker
imports it.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

_SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", ".mypy_cache",
              ".pytest_cache", ".ruff_cache", ".exportlint_cache", "build", "dist", "node_modules",
              "site-packages", ".eggs"}


@dataclass
class Target:
    name: str
    spec: str
    module: Optional[str] = None
    file: Optional[str] = None
    attr: Optional[str] = None
    sys_path: list[str] = field(default_factory=list)
    user_roots: list[str] = field(default_factory=list)
    #: where a target-level finding goes (the file of the factory / module), best known
    path: str = ""
    line: int = 1
    #: resolution problem found before running (missing file, bad spec)
    error: Optional[str] = None
    kind: str = "factory"  # or "exportdb"

    def job(self) -> dict:
        return {"name": self.name, "spec": self.spec, "module": self.module, "file": self.file,
                "attr": self.attr, "sys_path": self.sys_path, "user_roots": self.user_roots}


def _search_path(root: Path) -> list[str]:
    out = [str(root)]
    if (root / "src").is_dir():
        out.append(str(root / "src"))
    return out


def _module_file(module: str, search: Iterable[str]) -> Optional[str]:
    rel = module.replace(".", os.sep)
    for base in search:
        for cand in (Path(base) / (rel + ".py"), Path(base) / rel / "__init__.py"):
            if cand.is_file():
                return str(cand.resolve())
    return None


def _line_of(file: str, attr: Optional[str]) -> int:
    if not attr:
        return 1
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return 1
    first = attr.split(".")[0]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == first:
            return node.lineno
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == first for t in node.targets):
            return node.lineno
    return 1


def resolve_spec(spec: str, *, root: Path, name: Optional[str] = None, cwd: Optional[Path] = None) -> Target:
    """``pkg.mod:fn``, ``path/to/file.py:fn`` or ``path/to/file.py`` (ExportDB-style module)."""
    cwd = cwd or Path.cwd()
    root = Path(root).resolve()
    search = _search_path(root)
    if str(cwd.resolve()) not in search:
        search.append(str(cwd.resolve()))
    spec = spec.strip()
    left, sep, attr = spec.rpartition(":")
    if not sep or (len(left) == 1 and left.isalpha()):  # no ":" (or a Windows drive letter only)
        left, attr = spec, ""
    attr = attr or None
    t = Target(name=name or spec, spec=spec, attr=attr, sys_path=list(search), user_roots=[str(root)])
    if left.endswith(".py") or os.sep in left or "/" in left:
        p = Path(left)
        if not p.is_absolute():
            p = (cwd / p) if (cwd / p).exists() else (root / p)
        if not p.is_file():
            t.error = f"target {t.name!r}: no such file: {left}"
            return t
        p = p.resolve()
        t.file = str(p)
        t.path = str(p)
        t.line = _line_of(t.file, attr)
        if str(p.parent) not in t.sys_path:
            t.sys_path.append(str(p.parent))
        if not any(_under(str(p), r) for r in t.user_roots):
            t.user_roots.append(str(p.parent))
        dotted, top = _package_name(p)
        if dotted and _has_relative_imports(p):
            t.module, t.file = dotted, None
            t.sys_path.insert(0, top)
        if attr is None:
            t.kind = "exportdb"
            if not is_exportdb_module(p):
                t.error = (f"target {t.name!r}: {left} names no callable (use FILE.py:FUNCTION) and is not an "
                           "ExportDB-style module (an nn.Module class and `example_args`)")
        return t
    if not attr:
        t.error = (f"target {t.name!r}: {spec!r} is neither a target in [tool.exportlint.targets] nor of the "
                   "form 'package.module:callable'")
        return t
    if not all(part.isidentifier() for part in left.split(".")):
        t.error = f"target {t.name!r}: {left!r} is not a module name"
        return t
    t.module = left
    f = _module_file(left, search)
    if f:
        t.path = f
        t.line = _line_of(f, attr)
    return t


def _under(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _package_name(p: Path) -> tuple[Optional[str], str]:
    parts = [p.stem]
    d = p.parent
    while (d / "__init__.py").is_file():
        parts.insert(0, d.name)
        d = d.parent
    if len(parts) == 1:
        return None, str(p.parent)
    return ".".join(parts), str(d)


def _has_relative_imports(p: Path) -> bool:
    try:
        tree = ast.parse(p.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return False
    return any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree))


def is_exportdb_module(p: Path) -> bool:
    """A module-level nn.Module subclass (or `model` variable) and `example_args`."""
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "example_args" not in text:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    has_args = has_model = False
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for tgt in targets:
            if isinstance(tgt, ast.Name) and tgt.id == "example_args":
                has_args = True
            if isinstance(tgt, ast.Name) and tgt.id == "model":
                has_model = True
        if isinstance(node, ast.ClassDef):
            for b in node.bases:
                name = b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
                if name == "Module":
                    has_model = True
    return has_args and has_model


def discover(paths: Iterable[Path], *, root: Path) -> list[Target]:
    """ExportDB-style modules under ``paths`` (files or folders), in path order."""
    out: list[Target] = []
    seen: set[str] = set()
    for base in paths:
        base = Path(base)
        if base.is_file():
            files = [base] if base.suffix == ".py" else []
            top = base.parent
        elif base.is_dir():
            files = sorted(_walk(base))
            top = base
        else:
            continue
        for f in files:
            rf = str(f.resolve())
            if rf in seen or f.name == "__init__.py" or not is_exportdb_module(f):
                continue
            seen.add(rf)
            try:
                rel = f.resolve().relative_to(Path(root).resolve())
            except ValueError:
                rel = f.resolve().relative_to(top.resolve()) if _under(str(f), str(top)) else Path(f.name)
            t = resolve_spec(str(f.resolve()), root=Path(root), name=str(rel.with_suffix("")).replace(os.sep, "/"))
            if not any(_under(str(f), r) for r in t.user_roots):
                t.user_roots.append(str(top.resolve()))
            if str(top.resolve()) not in t.user_roots:
                t.user_roots.append(str(top.resolve()))
            out.append(t)
    return out


def _walk(d: Path):
    for dirpath, dirnames, filenames in os.walk(d):
        dirnames[:] = sorted(x for x in dirnames if x not in _SKIP_DIRS and not x.startswith("."))
        for fn in filenames:
            if fn.endswith(".py"):
                yield Path(dirpath) / fn
