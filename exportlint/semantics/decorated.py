"""What the decorators of a function in another project file say about exporting it.

The project index (``index.py``) records each function's and method's decorators, qualified
through its file's imports, and the fake (meta) kernels a file registers at module level.
Rules read them here for calls that resolve into another file (``project.cross_file_calls``,
through ``FileContext.project_calls``):

- ``@torch.compiler.disable`` / ``@torch._dynamo.disable`` (not ``recursive=False``): strict
  torch.export refuses to run the function (EXL211, at the call);
- ``@torch.library.custom_op("ns::op", ...)``: the call runs a custom op, which torch.export
  traces only with a fake kernel registered (``@op.register_fake``,
  ``torch.library.register_fake("ns::op")``, ``torch.library.impl("ns::op", "Meta")``), in
  the op's file or in another file of its package (EXL403).
"""

from __future__ import annotations

import os
from typing import Any, Optional

#: decorators that make strict torch.export (dynamo) skip a function
DISABLE = frozenset({"torch.compiler.disable", "torch._dynamo.disable", "torch._dynamo.eval_frame.disable"})

#: words that a file registering a fake kernel contains (a cheap filter before indexing it)
_FAKE_WORDS = ("register_fake", "impl_abstract", "register_meta", "Meta")


def decorators_of(project: Any, target: Any, deps: Optional[set] = None) -> list:
    """The recorded decorators of a project function (``Target``): [name, called?, first str
    argument, recursive=False?] each."""
    fi = project.index(target.module)
    if fi is None or fi.path != target.path:
        fi = project.index_path(target.path)
    if fi is None:
        return []
    if deps is not None:
        deps.add(fi.path)
    return list(fi.decorators.get(target.qual, ()))


def disabled_by(project: Any, target: Any, deps: Optional[set] = None) -> Optional[str]:
    """The ``torch.compiler.disable``-like decorator on ``target``, or None (also for
    ``recursive=False``, which skips only the frame itself: not measured)."""
    for name, _called, _first, rec_false in decorators_of(project, target, deps):
        if name in DISABLE and not rec_false:
            return name
    return None


def custom_op_name(project: Any, target: Any, deps: Optional[set] = None) -> Optional[str]:
    """"ns::op" when ``target`` is decorated with ``torch.library.custom_op("ns::op", ...)``."""
    for name, called, first, _ in decorators_of(project, target, deps):
        if called and isinstance(first, str) and "::" in first and (
                name.endswith("library.custom_op") or name == "custom_op"):
            return first
    return None


def has_fake_kernel(project: Any, target: Any, opname: str, deps: Optional[set] = None) -> bool:
    """A fake kernel for the custom op ``target`` (named ``opname``) is registered in its file,
    in a file of its package folder (where projects keep their kernel registrations) or in the
    ``__init__.py`` of a package above it."""
    fi = project.index(target.module)
    if fi is None or fi.path != target.path:
        fi = project.index_path(target.path)
    if fi is None:
        return True  # unknown stays unknown: no claim
    qual = f"{fi.module}.{target.qual}"
    folder = os.path.dirname(target.path)
    paths = [target.path]
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = []
    for n in names:
        p = os.path.join(folder, n)
        if n.endswith(".py") and p != target.path:
            paths.append(p)
    # and the __init__.py of the packages above (`pkg/__init__.py` registering the kernels of
    # `pkg/ops/*.py` when it is imported)
    up = os.path.dirname(folder)
    for _ in range(8):
        init = os.path.join(up, "__init__.py")
        if not os.path.isfile(init):
            break
        paths.append(init)
        up = os.path.dirname(up)
    for p in paths:
        if p != target.path:
            try:
                with open(p, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            if not any(w in text for w in _FAKE_WORDS):
                continue
        other = project.index_path(p)
        if other is None:
            continue
        if opname in other.fakes or qual in other.fakes:
            if deps is not None:
                deps.add(other.path)
            return True
        # `from .ops import clipped_gelu as op` then `@op.register_fake`: the index resolved it
        # through that file's imports; a package re-export names the op by its package path
        short = target.qual.rsplit(".", 1)[-1]
        if any(f.rsplit(".", 1)[-1] == short for f in other.fakes):
            if deps is not None:
                deps.add(other.path)
            return True
    if deps is not None:
        deps.update(p for p in paths if p.endswith(".py"))
    return False


def op_definition(project: Any, opname: str, near: str, deps: Optional[set] = None) -> Optional[Any]:
    """Where the project defines the custom op ``ns::op`` that a ``torch.ops.ns.op`` call in the
    file ``near`` runs: a ``Target`` in the defining file (``qual`` the op's name), searched in the
    files of the run and in ``near``'s folder; None when no file there defines it (an op of an
    installed package or a C++ extension: unknown stays unknown)."""
    from exportlint.semantics.project import Target

    ns, _, op = opname.partition("::")
    st = project.__dict__.get("_op_defs")
    if st is None or st[0] is not project.run_files or project.run_files is None:
        # one run's answers (files may be edited between runs; none kept without a run)
        st = project.__dict__["_op_defs"] = (project.run_files, {})
    cache = st[1]
    key = (opname, os.path.dirname(os.path.abspath(near)))
    if key in cache:
        hit = cache[key]
    else:
        paths: list[str] = sorted(project.run_files or ())
        folder = os.path.dirname(os.path.abspath(near))
        try:
            paths += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
        except OSError:
            pass
        hit = None
        seen: set = set()
        for p in paths:
            if p in seen or not p.endswith(".py"):
                continue
            seen.add(p)
            try:
                with open(p, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            if op not in text or ns not in text:
                continue
            fi = project.index_path(p)
            if fi is not None and opname in fi.ops:
                hit = Target(fi.path, fi.module, op, False)
                break
        cache[key] = hit
    if hit is not None and deps is not None:
        deps.add(hit.path)
    return hit


__all__ = ["DISABLE", "decorators_of", "disabled_by", "custom_op_name", "has_fake_kernel", "op_definition"]
