"""The dynamic dims the project's own export calls declare, per exported model class.

``--confirm`` exports a target with the ``dynamic_shapes`` the target itself gives. A model
file usually has no export call: the project exports it from a script elsewhere
(``torch.export.export(Net(), args, dynamic_shapes={"x": {0: batch}})``,
``torch.onnx.export(..., input_names=["x"], dynamic_axes={"x": {0: "b"}})``). This module
reads those calls statically (the same index the static rules use, no torch, no user code
run) and keys their dims by the class they export: (real path of the class's file, class
name) -> {forward parameter (or ONNX input name) -> dims}. The worker declares them (as
``Dim.DYNAMIC``, which unifies equal sizes and raises when the code specialises a dim) for a
target whose model is of that class and gives no dims of its own.

The ``dynamic-shapes`` config key: ``false`` says the project exports fixed shapes (no dims
are taken from the calls); ``true``/``"auto"`` take the declared ones. Calls whose model
class cannot be resolved to a project file are skipped (a short class name alone could be
another class of the same name).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Sequence

#: a module-level ``dynamic_shapes = {...}`` of an ExportDB-style module is its target's own
#: declaration (the worker reads it from the module): not a project export call
_OWN_DECLARATION = "dynamic_shapes"


def project_dims(config: Any, paths: Sequence[Path] = ()) -> list[dict]:
    """[{"path", "class", "dims": {name: [dim, ...]}, "where": "file:line", ...}] from the export
    calls in ``paths`` (the linted paths; the config root when none)."""
    if getattr(config, "dynamic_shapes", None) is False:
        return []
    root = Path(getattr(config, "root", None) or Path.cwd()).resolve()
    files = _files(config, [str(p) for p in paths] or [str(root)])
    cand = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if b"dynamic_shapes" in data or b"dynamic_axes" in data:
            cand.append(f)
    if not cand:
        return []
    from exportlint.semantics.project import Project

    project = Project(cand)
    for extra in (root, root / "src"):
        if extra.is_dir() and extra not in project.roots:
            project.roots.append(extra)
    merged: dict[tuple[str, str], dict] = {}
    for f in cand:
        try:
            fi = project.index_path(f)
        except Exception:  # noqa: BLE001 - an unparsable file declares nothing
            continue
        if fi is None:
            continue
        for ec in fi.export_calls:
            if ec.api == _OWN_DECLARATION or not ec.dynamic:
                continue
            cls_q = ec.model_class or ec.model
            if not cls_q:
                continue
            try:
                rc = project.base_class(fi, cls_q, None)
            except Exception:  # noqa: BLE001
                rc = None
            if rc is None:
                continue
            cfi, cname = rc
            params = project.forward_params(cfi, cname)
            key = (os.path.realpath(cfi.path), cname)
            entry = merged.setdefault(key, {"path": key[0], "class": cname, "dims": {}, "where": []})
            declared = dict(ec.dynamic)
            if "*" in declared:  # dynamic_shapes=ds: the dict literal assigned to ds before the call
                named = _named_declaration(fi.path, ec.line)
                if named:
                    declared.pop("*")
                    for k, dims in named.items():
                        declared.setdefault(k, set()).update(dims)
            for k, dims in declared.items():
                ints = sorted(d for d in dims if isinstance(d, int) and d >= 0)
                if not ints or not isinstance(k, str):
                    continue
                if k.startswith("#"):  # the i-th positional input of a tuple of specs
                    i = int(k[1:])
                    if i >= len(params):
                        continue
                    k = params[i]
                names = [k]
                if ec.input_names and k in ec.input_names and params:
                    i = ec.input_names.index(k)
                    if i < len(params):
                        names = [params[i]]
                for n in names:
                    have = set(entry["dims"].get(n, []))
                    entry["dims"][n] = sorted(have | set(ints))
            entry["where"].append(f"{_rel(fi.path, root)}:{ec.line}")
    return [e for e in merged.values() if e["dims"]]


def _rel(p: str, root: Path) -> str:
    try:
        rel = os.path.relpath(p, root)
    except ValueError:
        return p
    return p if rel.startswith("..") else rel


def _files(config: Any, paths: list[str]) -> list[str]:
    try:
        from exportlint.discovery import discover

        return [os.path.abspath(f) for f in discover(paths, config).files if f.endswith(".py")]
    except Exception:  # noqa: BLE001 - a path that vanished: no project dims
        return []


def dims_for(entries: list[dict], cls_path: str, cls_name: str) -> Optional[dict]:
    """The entry for the class defined in ``cls_path`` named ``cls_name``, or None."""
    real = os.path.realpath(cls_path) if cls_path else ""
    for e in entries or ():
        if e.get("class") == cls_name and e.get("path") == real:
            return e
    return None


_TREES: dict[str, Any] = {}


def _named_declaration(path: str, line: int) -> dict[str, set]:
    """``export(..., dynamic_shapes=ds)`` / ``dynamic_axes=axes`` at ``line`` where ``ds`` is a
    name: the dims of the dict literal last assigned to it before the call, in the same
    function (or module). {} when it is not such a literal."""
    import ast

    from exportlint.confirm.locate import innermost_function
    from exportlint.semantics.index import spec_dims

    tree = _TREES.get(path)
    if tree is None:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, ValueError):
            return {}
        _TREES[path] = tree
    scope = innermost_function(tree, line) or tree
    out: dict[str, set] = {}
    for call in ast.walk(scope):
        if not (isinstance(call, ast.Call) and call.lineno == line):
            continue
        for kw in call.keywords:
            if kw.arg not in ("dynamic_shapes", "dynamic_axes") or not isinstance(kw.value, ast.Name):
                continue
            value = None
            for node in ast.walk(scope):
                if isinstance(node, ast.Assign) and node.lineno < line and isinstance(node.value, ast.Dict) and any(
                        isinstance(t, ast.Name) and t.id == kw.value.id for t in node.targets):
                    if value is None or node.lineno > value.lineno:
                        value = node
            if value is None:
                continue
            for k, v in zip(value.value.keys, value.value.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out.setdefault(k.value, set()).update(spec_dims(v, kw.arg))
    return out
