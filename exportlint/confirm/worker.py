"""The confirm worker: builds one target and really exports it. Runs in its own process.

    python -m exportlint.confirm.worker JOB.json

The job (written by ``runner.py``) names the target, the exporters, tolerances and the static
findings. The worker appends one JSON object per line to ``job["events"]`` as it goes
(``loaded``, ``error``, ``exporter-start``, ``exporter``, ``coverage``, ``done``), so the parent
sees progress and keeps what finished when the worker hangs, crashes or runs out of memory.
The user's stdout/stderr go to a log file the parent reads for crash messages.

torch is imported here only, inside functions.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import importlib.util
import io
import json
import math
import os
import socket
import sys
import tempfile
import time
import traceback
import warnings
from typing import Any, Callable, Optional

from exportlint.confirm.locate import DATA_TO_CONSTANT, GuardRecorder, Location, UserFiles, exception_chain, exporter_message, \
    guard_cache_key, innermost_function, is_constraint_violation, locate, locate_by_draft_export, locate_by_guards, \
    locate_direct, locate_dispatch_node, locate_legacy_op

#: static rule codes whose finding sits on a value-dependent branch (choose flipping inputs)
VALUE_BRANCH_CODES = ("EXL101", "EXL102", "EXL103", "EXL104")


class TargetError(Exception):
    """A user-side problem with the target itself (import, factory, eager forward)."""

    def __init__(self, stage: str, message: str, tb: str = "", path: str = "", line: int = 0):
        super().__init__(message)
        self.stage, self.message, self.tb, self.path, self.line = stage, message, tb, path, line


# ----------------------------------------------------------------------------- plumbing
class Emitter:
    def __init__(self, path: str):
        self._f = open(path, "a", encoding="utf-8")

    def __call__(self, event: str, **data: Any) -> None:
        data["event"] = event
        self._f.write(json.dumps(data, default=_json_default) + "\n")
        self._f.flush()


def _json_default(o: Any) -> Any:
    if isinstance(o, float) and not math.isfinite(o):
        return str(o)
    return str(o)


def _finite(x: Optional[float]) -> Optional[float]:
    if x is None:
        return None
    if math.isnan(x):
        return float("inf")
    return x


def _no_network() -> None:
    """Refuse every connection that leaves the machine (user code runs here)."""
    real_connect = socket.socket.connect

    def guarded(self, address, *a, **k):  # type: ignore[no-untyped-def]
        if self.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0] if isinstance(address, tuple) else address
            if host not in ("127.0.0.1", "::1", "localhost"):
                raise OSError(f"network access is disabled under exportlint --confirm (connect to {host})")
        return real_connect(self, address, *a, **k)

    socket.socket.connect = guarded  # type: ignore[method-assign]
    socket.socket.connect_ex = guarded  # type: ignore[method-assign,assignment]


def _user_traceback(exc: BaseException, users: UserFiles) -> str:
    """The traceback without exportlint's and importlib's own frames."""
    te = traceback.TracebackException.from_exception(exc)
    for t in _iter_te(te):
        t.stack = traceback.StackSummary.from_list(
            [f for f in t.stack if "exportlint" + os.sep + "confirm" not in f.filename
             and "importlib._bootstrap" not in f.filename and "<frozen importlib" not in f.filename
             and not f.filename.endswith(os.path.join("importlib", "__init__.py"))])
    return "".join(te.format())


def _iter_te(te: traceback.TracebackException):
    seen = set()
    while te is not None and id(te) not in seen:
        seen.add(id(te))
        yield te
        te = te.__cause__ or te.__context__


def _innermost_user(exc: BaseException, users: UserFiles) -> tuple[str, int]:
    loc = locate_direct(exc, users)
    if loc:
        return loc.path, loc.line
    if isinstance(exc, SyntaxError) and exc.filename:
        return exc.filename, exc.lineno or 0
    return "", 0


# ----------------------------------------------------------------------------- target
def load_target(job: dict, users: UserFiles):
    """Import the module of the target and return (object, module)."""
    for p in reversed(job.get("sys_path", [])):
        if p and p not in sys.path:
            sys.path.insert(0, p)
    module_name, file, attr = job.get("module"), job.get("file"), job.get("attr")
    try:
        if module_name:
            mod = importlib.import_module(module_name)
        else:
            name = job.get("module_alias") or "_exportlint_target_" + os.path.splitext(os.path.basename(file))[0]
            spec = importlib.util.spec_from_file_location(name, file)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot import {file}")
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
    except BaseException as e:  # noqa: BLE001 - user code
        if isinstance(e, KeyboardInterrupt):
            raise
        path, line = _innermost_user(e, users)
        raise TargetError("import", f"cannot import {module_name or file}: {type(e).__name__}: {e}",
                          _user_traceback(e, users), path, line) from None
    if attr:
        obj = mod
        try:
            for part in attr.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            raise TargetError("missing", f"{module_name or file} has no attribute {attr!r}",
                              path=getattr(mod, "__file__", "") or "") from None
        return obj, mod
    return None, mod


def _source_of(obj: Any) -> tuple[str, int]:
    import inspect

    try:
        target = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
        return os.path.realpath(inspect.getsourcefile(target) or ""), inspect.getsourcelines(target)[1]
    except (TypeError, OSError):
        return "", 0


def build_spec(obj: Any, mod: Any, users: UserFiles) -> dict:
    """Call the factory (or read ExportDB-style module variables): the export specification."""
    import torch

    if obj is None:  # ExportDB convention: module-level model/example_args
        model = getattr(mod, "model", None)
        if not isinstance(model, torch.nn.Module):
            classes = [v for v in vars(mod).values()
                       if isinstance(v, type) and issubclass(v, torch.nn.Module) and v.__module__ == mod.__name__]
            if len(classes) != 1:
                raise TargetError("factory", f"{mod.__file__}: expected one nn.Module class or a `model` variable")
            model = _call_user(classes[0], "factory", users)
        if not hasattr(mod, "example_args"):
            raise TargetError("factory", f"{mod.__file__}: no `example_args`")
        raw = {"model": model, "args": mod.example_args, "kwargs": getattr(mod, "example_kwargs", None),
               "dynamic_shapes": getattr(mod, "dynamic_shapes", None)}
        where = _source_of(model)
    elif isinstance(obj, torch.nn.Module):
        raise TargetError("factory", "the target is a module instance; point at a callable that returns "
                                     "(model, example_args)")
    else:
        where = _source_of(obj)
        if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
            model = _call_user(obj, "factory", users)
            if not hasattr(mod, "example_args"):
                raise TargetError("factory", f"{obj.__name__}: the module defines no `example_args`")
            raw = {"model": model, "args": mod.example_args, "kwargs": getattr(mod, "example_kwargs", None),
                   "dynamic_shapes": getattr(mod, "dynamic_shapes", None)}
        else:
            raw = _normalise_factory_result(_call_user(obj, "factory", users))
    model = raw["model"]
    if not isinstance(model, torch.nn.Module):
        if callable(model):
            model = _FnModule(model)
        else:
            raise TargetError("factory", f"the factory returned {type(model).__name__}, not an nn.Module")
    args = raw.get("args", ())
    if isinstance(args, torch.Tensor) or not isinstance(args, (tuple, list)):
        args = (args,)
    raw["args"] = tuple(args)
    raw["kwargs"] = dict(raw.get("kwargs") or {})
    raw["model"] = model
    raw["where"] = where
    return raw


def apply_project_dims(spec: dict, entries: Optional[list]) -> Optional[dict]:
    """Declare the dims the project's export calls declare for the model's class (read
    statically by ``project_dims.py``) when the target gives none of its own: each as
    ``Dim.DYNAMIC`` (equal sizes unify; a specialised dim raises, as a named Dim does).
    Returns {"where": [...], "dims": {param: [dims]}} when applied, else None."""
    if not entries or spec.get("dynamic_shapes") is not None or spec.get("dynamic_axes") is not None:
        return None
    import inspect

    import torch

    from exportlint.confirm.project_dims import dims_for

    cls = type(spec["model"])
    try:
        entry = dims_for(entries, inspect.getsourcefile(cls) or "", cls.__name__)
    except (TypeError, OSError):
        entry = None
    if entry is None:
        return None
    try:
        sig = inspect.signature(spec["model"].forward)
        bound = sig.bind(*spec["args"], **spec["kwargs"]).arguments
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
        return None  # no dict form of dynamic_shapes names them reliably
    ds: dict = {}
    used: dict = {}
    skipped: list[str] = []
    for name, value in bound.items():
        dims = [d for d in entry["dims"].get(name, []) if isinstance(value, torch.Tensor) and d < value.dim()]
        # a size of 0 or 1 in the target's example is specialised by torch whatever the code
        # does; the project's own export call may use another example: not declared here
        skipped += [f"{name}[{d}] (example size {int(value.shape[d])})" for d in dims if value.shape[d] < 2]
        dims = [d for d in dims if value.shape[d] >= 2]
        ds[name] = {d: torch.export.Dim.DYNAMIC for d in dims} if dims else None
        if dims:
            used[name] = dims
    if not used:
        return {"where": list(entry.get("where", [])), "dims": {}, "skipped": skipped} if skipped else None
    spec["dynamic_shapes"] = ds
    out = {"where": list(entry.get("where", [])), "dims": used}
    if skipped:
        out["skipped"] = skipped
    return out


def _call_user(fn: Callable, stage: str, users: UserFiles) -> Any:
    try:
        return fn()
    except BaseException as e:  # noqa: BLE001 - user code
        if isinstance(e, KeyboardInterrupt):
            raise
        path, line = _innermost_user(e, users)
        raise TargetError(stage, f"{getattr(fn, '__qualname__', fn)}() raised {type(e).__name__}: {e}",
                          _user_traceback(e, users), path, line) from None


_SPEC_KEYS = ("model", "args", "kwargs", "dynamic_shapes", "dynamic_axes", "input_names", "output_names")


def _normalise_factory_result(res: Any) -> dict:
    if isinstance(res, dict) and "model" in res:
        unknown = set(res) - set(_SPEC_KEYS)
        if unknown:
            raise TargetError("factory", f"unknown keys in the factory's result: {sorted(unknown)} "
                                         f"(known: {', '.join(_SPEC_KEYS)})")
        return dict(res)
    if hasattr(res, "model") and hasattr(res, "args"):
        return {k: getattr(res, k, None) for k in _SPEC_KEYS}
    if isinstance(res, (tuple, list)) and 2 <= len(res) <= 4:
        out = {"model": res[0], "args": res[1]}
        if len(res) > 2:
            out["kwargs"] = res[2]
        if len(res) > 3:
            out["dynamic_shapes"] = res[3]
        return out
    raise TargetError("factory", "the factory must return (model, args[, kwargs[, dynamic_shapes]]) or a dict "
                                 f"with keys {', '.join(_SPEC_KEYS)}; got {type(res).__name__}")


def _fn_module_class():
    import torch

    class FnModule(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, *args, **kwargs):
            return self.fn(*args, **kwargs)

    return FnModule


def _FnModule(fn):  # noqa: N802
    return _fn_module_class()(fn)


# ----------------------------------------------------------------------------- tensors
def tree_map(fn, tree):
    from torch.utils import _pytree

    return _pytree.tree_map(fn, tree)


def clone_inputs(args, kwargs):
    import torch

    c = lambda t: t.clone() if isinstance(t, torch.Tensor) else t  # noqa: E731
    return tree_map(c, args), tree_map(c, kwargs)


def tensor_leaves(tree) -> list:
    import torch
    from torch.utils import _pytree

    return [x for x in _pytree.tree_leaves(tree) if isinstance(x, torch.Tensor)]


def output_leaves(tree) -> list:
    import torch
    from torch.utils import _pytree

    out = []
    for x in _pytree.tree_leaves(tree):
        if isinstance(x, torch.Tensor):
            out.append(x)
        elif isinstance(x, (bool, int, float)) and not isinstance(x, torch.SymInt):
            out.append(torch.tensor(x))
    return out


def compare(expected: list, actual: list, rtol: float, atol: float) -> dict:
    """max abs/rel error and whether all leaves are close (NaN == NaN)."""
    import torch

    if len(expected) != len(actual):
        return {"ok": False, "max_abs": None, "max_rel": None,
                "message": f"{len(actual)} outputs, eager has {len(expected)}"}
    max_abs = 0.0
    max_rel = 0.0
    ok = True
    msg = ""
    for i, (e, a) in enumerate(zip(expected, actual)):
        a = torch.as_tensor(a)
        e = e.detach()
        if tuple(e.shape) != tuple(a.shape):
            if e.numel() == a.numel() == 1:
                a = a.reshape(e.shape)
            else:
                return {"ok": False, "max_abs": None, "max_rel": None,
                        "message": f"output {i}: shape {tuple(a.shape)}, eager {tuple(e.shape)}"}
        if e.is_complex():
            e = torch.view_as_real(e)
            a = a if a.shape == e.shape else torch.view_as_real(a)
        if not e.is_floating_point():
            if e.dtype == torch.bool or not a.is_floating_point():
                diff = (e.to(torch.float64) - a.to(torch.float64)).abs()
                if diff.numel() and diff.max().item() > 0:
                    ok = False
                    msg = msg or f"output {i}: integer values differ"
                max_abs = max(max_abs, diff.max().item() if diff.numel() else 0.0)
                continue
        e64 = e.to(torch.float64)
        a64 = a.to(torch.float64)
        both_nan = torch.isnan(e64) & torch.isnan(a64)
        same_inf = torch.isinf(e64) & (e64 == a64)
        diff = (e64 - a64).abs()
        diff = torch.where(both_nan | same_inf, torch.zeros_like(diff), diff)
        diff = torch.where(torch.isnan(diff), torch.full_like(diff, float("inf")), diff)
        if diff.numel() == 0:
            continue
        rel = diff / e64.abs().clamp_min(1e-12)
        rel = torch.where(diff == 0, torch.zeros_like(rel), rel)
        max_abs = max(max_abs, diff.max().item())
        max_rel = max(max_rel, rel.max().item())
        # elementwise tolerance plus a small share of the tensor's scale: deep networks on
        # large inputs differ by float rounding near zero crossings (not a divergence)
        finite = torch.nan_to_num(e64.abs(), posinf=0.0)
        scale = finite.max() if finite.numel() else torch.tensor(0.0, dtype=torch.float64)
        bad = diff > (atol + rtol * finite + 10 * rtol * scale)
        if bool(bad.any()):
            ok = False
            msg = msg or f"output {i}: {int(bad.sum())} of {bad.numel()} values differ"
    return {"ok": ok, "max_abs": _finite(max_abs), "max_rel": _finite(max_rel), "message": msg}


# ----------------------------------------------------------------------------- variants
def _declared_dims(model: Any, args: tuple, kwargs: dict, ds: Any) -> list[tuple[Any, int, Any]]:
    """(tensor, dim, Dim object) for each dimension the export call declares dynamic."""
    import inspect

    import torch

    if ds is None:
        return []
    pairs: list[tuple[Any, Any]] = []
    if isinstance(ds, dict):
        try:
            bound = inspect.signature(model.forward).bind(*args, **kwargs).arguments
        except (TypeError, ValueError):
            return []
        pairs = [(bound[n], spec) for n, spec in ds.items() if n in bound]
    elif isinstance(ds, (tuple, list)):
        pairs = list(zip(list(args) + list(kwargs.values()), ds))
    out = []
    for value, spec in pairs:
        if not isinstance(value, torch.Tensor):
            continue
        items = spec.items() if isinstance(spec, dict) else enumerate(spec) if isinstance(spec, (tuple, list)) else ()
        for d, dim in items:
            if dim is not None and isinstance(d, int) and d < value.dim():
                out.append((value, d, dim))
    return out


def _bound(v: Any, default: int) -> int:
    try:
        f = float(v)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return default
    return int(f) if math.isfinite(f) and abs(f) < (1 << 40) else default


def _declared_sizes(dims: list[tuple[Any, int, Any]]) -> dict[tuple[int, int], int]:
    """Another legal size for each declared dim, the same for dims that share a Dim (and derived
    dims follow their root): {(id(tensor), dim): new size}."""
    roots: dict[str, tuple[int, int, int]] = {}  # root name -> (hint, min, max)
    for t, d, dim in dims:
        root = getattr(dim, "root", None) or dim
        name = _dim_name(root, t, d)
        if not isinstance(name, str) or not hasattr(root, "min"):
            continue
        fn = getattr(dim, "fn", None)
        hint = int(t.shape[d])
        if fn is not None:  # derived: invert by search over small root values
            rhint = next((r for r in range(max(1, _bound(root.min, 1)), min(_bound(root.max, 4096), 4096) + 1)
                          if fn(r) == hint), None)
            if rhint is None:
                continue
            hint = rhint
        roots.setdefault(name, (hint, _bound(root.min, 0), _bound(root.max, 1 << 30)))
    new_root = {}
    for name, (hint, lo, hi) in roots.items():
        for cand in (hint + 1, hint + 2, hint - 1):
            if lo <= cand <= hi and cand >= 1:
                new_root[name] = cand
                break
    out = {}
    for t, d, dim in dims:
        root = getattr(dim, "root", None) or dim
        name = _dim_name(root, t, d)
        if name in new_root:
            fn = getattr(dim, "fn", None)
            out[(id(t), d)] = int(fn(new_root[name])) if fn is not None else new_root[name]
    return out


def _dim_name(root: Any, t: Any, d: int) -> Optional[str]:
    """A Dim's name; for ``Dim.DYNAMIC`` (no name) the example size, so dims of the same size
    move together (they may be one dimension torch unifies). ``Dim.AUTO`` accepts a static
    result: no variant."""
    name = getattr(root, "__name__", None)
    if isinstance(name, str):
        return name
    if type(root).__name__ == "_DimHint" and str(getattr(root, "type", root)).split(".")[-1] == "DYNAMIC":
        return f"<size {int(t.shape[d])}>"
    return None


def _untie(t, dim: int):
    """Repeated float data made distinct (a tiny per-position scale along ``dim``): copies would
    create exact ties, and tie-breaking (topk/argmax indices) differs between runtimes."""
    import torch

    if not t.is_floating_point() or t.dim() == 0 or t.shape[dim] < 2:
        return t
    shape = [1] * t.dim()
    shape[dim] = t.shape[dim]
    scale = 1 + 1e-3 * torch.arange(t.shape[dim], dtype=t.dtype).reshape(shape) / t.shape[dim]
    return t * scale


def make_variants(args: tuple, kwargs: dict, model: Any = None, dynamic_shapes: Any = None
                  ) -> list[tuple[str, str, tuple, dict]]:
    """(name, kind, args, kwargs): the declared dynamic dims at other sizes, other batch size,
    other spatial size, flipped values, halved integer values."""
    import torch

    out = []
    try:
        sizes = _declared_sizes(_declared_dims(model, args, kwargs, dynamic_shapes)) if model is not None else {}
    except Exception:  # noqa: BLE001 - an unusual dynamic_shapes spec: no declared-dim variant
        sizes = {}
    if sizes:
        def resize(t):
            if not isinstance(t, torch.Tensor):
                return t
            for d in range(t.dim()):
                n = sizes.get((id(t), d))
                if n is not None and n != t.shape[d] and t.shape[d] > 0:
                    t = _untie(t.index_select(d, torch.arange(n) % t.shape[d]), d)
            return t
        # map over the original leaves (ids are those of the example tensors)
        from torch.utils import _pytree

        ra = _pytree.tree_map(resize, args)
        rk = _pytree.tree_map(resize, kwargs)
        desc = ", ".join(f"{n}" for n in sorted(set(sizes.values())))
        out.append((f"declared dynamic dims at {desc}", "shape", ra, rk))
    leaves = tensor_leaves((args, kwargs))
    batched = [t for t in leaves if t.dim() >= 1]
    if batched:
        b = batched[0].shape[0]
        if all(t.shape[0] == b for t in batched) and b >= 1:
            def grow(t, b=b):
                if not isinstance(t, torch.Tensor) or t.dim() == 0:
                    return t
                idx = torch.arange(b + 1) % b
                return _untie(t.index_select(0, idx), 0)
            out.append((f"batch {b}->{b + 1}", "shape", tree_map(grow, args), tree_map(grow, kwargs)))
    spatial = [t for t in leaves if t.dim() >= 3]
    if spatial:
        def widen(t):
            if not isinstance(t, torch.Tensor) or t.dim() < 3:
                return t
            t = t.repeat(*([1, 1] + [2] * (t.dim() - 2)))
            return _untie(t, t.dim() - 1)
        out.append(("spatial x2", "shape", tree_map(widen, args), tree_map(widen, kwargs)))

    def values(fn):
        def f(t):
            if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.dtype == torch.bool):
                return fn(t)
            return t
        return f

    neg = values(lambda t: ~t if t.dtype == torch.bool else -t)
    zero = values(torch.zeros_like)
    big = values(lambda t: t if t.dtype == torch.bool else t * 100 + 1)
    out.append(("negated", "value", tree_map(neg, args), tree_map(neg, kwargs)))
    out.append(("zeros", "value", tree_map(zero, args), tree_map(zero, kwargs)))
    out.append(("scaled x100+1", "value", tree_map(big, args), tree_map(big, kwargs)))

    def is_int(t) -> bool:  # a non-empty integer tensor (not bool, not complex)
        return (isinstance(t, torch.Tensor) and not t.is_floating_point() and t.dtype != torch.bool
                and not t.is_complex() and bool(t.numel()))

    def is_flags(t) -> bool:  # only 0s and 1s: flags or masks
        return bool(((t == 0) | (t == 1)).all())

    ints = [t for t in leaves if is_int(t)]
    if ints:  # integer inputs used as sizes or counts (.item(), int()): other values
        def halve(t):
            if is_int(t):
                if is_flags(t):
                    # 0/1 flags or masks: flip one entry (a realistic change, never all-masked)
                    t = t.clone()
                    flat = t.view(-1)
                    flat[-1] = 1 - flat[-1]
                    return t
                return torch.where(t > 1, t // 2, t)
            return t
        out.append(("integer values halved", "value", tree_map(halve, args), tree_map(halve, kwargs)))

        def is_count(t) -> bool:
            return is_int(t) and not is_flags(t)

        if any(is_count(t) for t in ints):
            # sizes and grids read from an integer input (`for t, h, w in grid_thw: h.item()`):
            # halving can break what the model requires of them (even sizes, multiples of a
            # merge factor: then eager itself fails on the variant and it says nothing), doubling
            # keeps every such divisibility (a held-out case: the legacy export of a
            # `.item()`-driven loop baked the example's grid, seen only at doubled values)
            def double(t):
                return t * 2 if is_count(t) else t

            out.append(("integer values doubled", "value", tree_map(double, args), tree_map(double, kwargs)))
    return out


class LineTracer:
    """Which lines of user files ran (sys.settrace, user frames only)."""

    def __init__(self, users: UserFiles):
        self.users = users
        self.lines: dict[str, set[int]] = {}

    def _global(self, frame, event, arg):
        p = self.users.resolve(frame.f_code.co_filename)
        if p is None:
            return None
        s = self.lines.setdefault(p, set())
        s.add(frame.f_lineno)

        def local(frame, event, arg):
            if event == "line":
                s.add(frame.f_lineno)
            return local
        return local

    def __enter__(self):
        self._old = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *a):
        sys.settrace(self._old)


# ----------------------------------------------------------------------------- exporters
def _exported_input_problems(proto_or_ep: Any, spec: dict, kind: str) -> list[str]:
    """Dynamic dimensions that were asked for but exported static."""
    import torch

    ds = spec.get("dynamic_shapes")
    requested: list[tuple[int, int]] = []  # (flat input index, dim)
    flat_inputs = tensor_leaves((spec["args"], spec["kwargs"]))
    if ds is not None:
        seq = list(ds.values()) if isinstance(ds, dict) else list(ds)
        for i, d in enumerate(seq[: len(flat_inputs)]):
            if isinstance(d, dict):
                requested += [(i, int(k)) for k, v in d.items() if v is not None]
            elif isinstance(d, (tuple, list)):
                requested += [(i, k) for k, v in enumerate(d) if v is not None]
    if not requested:
        return []
    problems = []
    if kind == "onnx":
        inputs = list(proto_or_ep.graph.input)
        init = {x.name for x in proto_or_ep.graph.initializer}
        inputs = [x for x in inputs if x.name not in init]
        for i, d in requested:
            if i < len(inputs):
                dims = inputs[i].type.tensor_type.shape.dim
                if d < len(dims) and dims[d].HasField("dim_value"):
                    problems.append(f"input {inputs[i].name} dim {d} was requested dynamic but exported "
                                    f"static ({dims[d].dim_value})")
    else:
        ph = [n for n in proto_or_ep.graph.nodes if n.op == "placeholder"]
        sig = proto_or_ep.graph_signature
        user_inputs = set(getattr(sig, "user_inputs", []))
        ph = [n for n in ph if n.name in user_inputs]
        for i, d in requested:
            if i < len(ph):
                val = ph[i].meta.get("val")
                if val is not None and d < val.dim() and not isinstance(val.shape[d], torch.SymInt):
                    problems.append(f"input {ph[i].name} dim {d} was requested dynamic but exported static "
                                    f"({int(val.shape[d])})")
    return problems


def _legacy_dynamic_axes(spec: dict) -> tuple[Optional[list[str]], Optional[dict]]:
    if spec.get("dynamic_axes") is not None:
        return spec.get("input_names"), spec["dynamic_axes"]
    ds = spec.get("dynamic_shapes")
    if ds is None:
        return spec.get("input_names"), None
    n = len(tensor_leaves((spec["args"], spec["kwargs"])))
    names = spec.get("input_names") or [f"input_{i}" for i in range(n)]
    seq = list(ds.values()) if isinstance(ds, dict) else list(ds)
    axes = {}
    for i, d in enumerate(seq[:n]):
        if isinstance(d, dict):
            dims = [int(k) for k, v in d.items() if v is not None]
        elif isinstance(d, (tuple, list)):
            dims = [k for k, v in enumerate(d) if v is not None]
        else:
            dims = []
        if dims:
            axes[names[i]] = dims
    return names, (axes or None)


class Exported:
    """A successful export: run it on inputs."""

    def __init__(self, run: Callable[[tuple, dict], list], proto: Any = None, ep: Any = None):
        self.run, self.proto, self.ep = run, proto, ep


def _ort_runner(proto: Any, leaf_names: Optional[list] = None) -> Callable[[tuple, dict], list]:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(proto.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    state: dict = {}

    def run(args, kwargs):
        leaves = tensor_leaves((args, kwargs))
        if len(leaves) == len(names):
            feed = {n: t.detach().cpu().numpy() for n, t in zip(names, leaves)}
        elif leaf_names and len(leaf_names) == len(leaves) and set(names) <= set(leaf_names):
            # the exporter dropped inputs the traced graph does not read (their values were baked in)
            by = dict(zip(leaf_names, leaves))
            dropped = {n: tuple(t.shape) for n, t in by.items() if n not in names}
            first = state.setdefault("dropped", dropped)
            for n, shape in dropped.items():
                if first.get(n) != shape:  # like a static input: this size is not accepted
                    raise RuntimeError(f"Got invalid dimensions for input {n} (not an input of the exported "
                                       f"program: its shape {first.get(n)} was baked in)")
            feed = {n: by[n].detach().cpu().numpy() for n in names}
        else:
            raise _NotComparable(f"the ONNX model has {len(names)} inputs, the example has {len(leaves)} tensors")
        import torch

        return [torch.from_numpy(o) if hasattr(o, "dtype") else torch.tensor(o) for o in sess.run(None, feed)]

    return run


class _NotComparable(Exception):
    pass


def export_with(exporter: str, model: Any, spec: dict, opset: Optional[int], workdir: str,
                verbose: bool = False, guards: Any = None) -> Exported:
    """Export ``model``; ``verbose`` (legacy only) writes each node's source into its doc string;
    ``guards`` (a ``GuardRecorder``, torch.export only) records the export's shape guards."""
    import torch

    args, kwargs = clone_inputs(spec["args"], spec["kwargs"])
    if exporter in ("export-strict", "export-nonstrict"):
        with guards if guards is not None else contextlib.nullcontext():
            ep = torch.export.export(model, args, kwargs or None, dynamic_shapes=spec.get("dynamic_shapes"),
                                     strict=exporter == "export-strict")
        problems = _exported_input_problems(ep, spec, "ep")
        mod = ep.module()
        # buffers the program updates in place are state: every run starts from the exported state
        init = {k: v.detach().clone() for k, v in mod.state_dict().items()}

        def run(a, k):
            a, k = clone_inputs(a, k)
            with torch.no_grad():
                mod.load_state_dict(init, strict=False)
                return output_leaves(mod(*a, **k))
        ex = Exported(run, ep=ep)
        ex.problems = problems  # type: ignore[attr-defined]
        return ex
    if exporter == "onnx-dynamo":
        prog = torch.onnx.export(model, args, kwargs=kwargs or None, dynamo=True, verbose=False,
                                 dynamic_shapes=spec.get("dynamic_shapes"), opset_version=opset,
                                 input_names=spec.get("input_names"), output_names=spec.get("output_names"))
        proto = prog.model_proto
    elif exporter == "onnx-legacy":
        names, axes = _legacy_dynamic_axes(spec)
        if names is None:
            names = _input_names(model, spec)
        path = os.path.join(workdir, "legacy.onnx")
        torch.onnx.export(model, args, path, kwargs=kwargs or None, dynamo=False, verbose=verbose,
                          opset_version=opset, input_names=names, output_names=spec.get("output_names"),
                          dynamic_axes=axes)
        import onnx

        proto = onnx.load(path)
    else:
        raise ValueError(f"unknown exporter {exporter!r}")
    problems = _exported_input_problems(proto, spec, "onnx")
    ex = Exported(_ort_runner_lazy(proto, names if exporter == "onnx-legacy" else None), proto=proto)
    ex.problems = problems  # type: ignore[attr-defined]
    ex.input_names = names if exporter == "onnx-legacy" else None  # type: ignore[attr-defined]
    return ex


def _input_names(model: Any, spec: dict) -> Optional[list]:
    """Names for the legacy exporter's inputs (forward's parameter names) when every input is a
    plain tensor, so inputs the traced graph drops can still be fed by name."""
    import inspect

    import torch

    args, kwargs = spec["args"], spec["kwargs"]
    if kwargs or not all(isinstance(a, torch.Tensor) for a in args):
        return None
    try:
        params = [p.name for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    return params[: len(args)] if len(params) >= len(args) else None


def _ort_runner_lazy(proto, leaf_names=None):
    state: dict = {}

    def run(a, k):
        if "run" not in state:
            state["run"] = _ort_runner(proto, leaf_names)
        return state["run"](a, k)
    return run


def onnx_checks(proto: Any) -> dict:
    import onnx

    out = {"checker": "ok", "shape_inference": "ok"}
    try:
        onnx.checker.check_model(proto)
    except Exception as e:  # noqa: BLE001
        out["checker"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:400]
    try:
        onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True)
    except Exception as e:  # noqa: BLE001
        out["shape_inference"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:400]
    return out


_REJECT_MARKERS = (
    "Got invalid dimensions for input",  # onnxruntime input validation
    "Expected input at",  # torch.export input guards
    "to be equal to",
    "is not in range",
    "Guard failed",
    "Invalid rank for input",
)


def _is_input_rejection(exc: BaseException) -> bool:
    text = str(exc)
    return any(m in text for m in _REJECT_MARKERS)


# ----------------------------------------------------------------------------- the job
def run_job(job: dict, emit: Emitter) -> None:
    users = UserFiles(job.get("user_roots", []))
    t0 = time.time()
    obj, mod = load_target(job, users)
    import torch

    _set_threads(torch)
    torch.manual_seed(0)
    spec = build_spec(obj, mod, users)
    model = spec["model"]
    dims_from = apply_project_dims(spec, job.get("project_dims"))
    try:
        model.eval()
    except Exception:  # noqa: BLE001
        pass
    where = spec["where"]
    pristine = _Pristine(model)

    # eager reference, with line coverage
    def eager(args, kwargs, trace=True):
        m = pristine.fresh()
        a, k = clone_inputs(args, kwargs)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if trace:
                with LineTracer(users) as lt:
                    out = m(*a, **k)
                return output_leaves(out), lt.lines
            return output_leaves(m(*a, **k)), {}

    eager_error: Optional[dict] = None
    try:
        ref, base_cov = eager(spec["args"], spec["kwargs"])
    except BaseException as e:  # noqa: BLE001 - user code
        if isinstance(e, KeyboardInterrupt):
            raise
        # the exporters may still be tried (e.g. a .cuda() in forward on a CPU machine fails
        # eager and every export at the same line): no reference, so no parity checks
        path, line = _innermost_user(e, users)
        eager_error = {"message": f"the model's forward fails on its example inputs: {type(e).__name__}: {e}",
                       "traceback": _user_traceback(e, users), "path": path, "line": line}
        ref, base_cov = None, {}
    emit("loaded", path=where[0], line=where[1], seconds=round(time.time() - t0, 3),
         inputs=[list(t.shape) for t in tensor_leaves((spec["args"], spec["kwargs"]))], eager_error=eager_error,
         dynamic_shapes_from=dims_from)

    t_var = time.time()
    variants = []
    cov_by_variant: dict[str, dict[str, list[int]]] = {}
    for name, kind, a, k in (make_variants(spec["args"], spec["kwargs"], model, spec.get("dynamic_shapes"))
                             if eager_error is None else ()):
        try:
            out, cov = eager(a, k)
        except BaseException as e:  # noqa: BLE001 - the model does not accept this input
            if isinstance(e, KeyboardInterrupt):
                raise
            continue
        variants.append((name, kind, a, k, out))
        cov_by_variant[name] = {p: sorted(s) for p, s in cov.items()}
    # which static value-branch findings each variant flips
    flips = _flipping_variants(job.get("findings", []), base_cov, cov_by_variant)
    emit("coverage", lines={p: sorted(s) for p, s in base_cov.items()}, variants=cov_by_variant,
         flips=flips, files=sorted(_user_modules(users)), seconds=round(time.time() - t_var, 3))

    for exporter in job["exporters"]:
        emit("exporter-start", exporter=exporter)
        res = run_exporter(exporter, pristine, spec, variants, ref, users, job, base_cov, cov_by_variant)
        emit("exporter", exporter=exporter, **res)


def _set_threads(torch: Any) -> None:
    """Run the worker's tensor code on one intra-op thread (EXPORTLINT_CONFIRM_THREADS=N for N),
    like its onnxruntime sessions: the example inputs are small, and on a machine whose cores
    are busy (CI, other jobs) torch's OpenMP threads wait on each other at every op (measured:
    on 2 cores, torchvision resnet18 on a 2x3x64x64 input: 2 threads 8 ms quiet, 17-180 ms and
    8x the CPU time with the other core busy; 1 thread 12 ms either way)."""
    try:
        n = int(os.environ.get("EXPORTLINT_CONFIRM_THREADS", "1"))
    except ValueError:
        n = 1
    if n > 0:
        try:
            torch.set_num_threads(n)
        except Exception:  # noqa: BLE001
            pass


def _user_modules(users: UserFiles) -> set[str]:
    out = set()
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f:
            p = users.resolve(f)
            if p:
                out.add(p)
    return out


def _flipping_variants(findings: list[dict], base: dict[str, set[int]],
                       variants: dict[str, dict[str, list[int]]]) -> dict[str, list[str]]:
    """For each value-branch finding "path:line": the variants under which the lines run after it change."""
    out: dict[str, list[str]] = {}
    for f in findings:
        if f.get("code") not in VALUE_BRANCH_CODES:
            continue
        p = os.path.realpath(f["path"])
        line = f["line"]
        b = base.get(p, set())
        key = f"{p}:{line}"
        for name, cov in variants.items():
            v = set(cov.get(p, []))
            diff = b ^ v
            if line in (b | v) and any(d > line for d in diff):
                out.setdefault(key, []).append(name)
    return out


class _Pristine:
    """Fresh copies of the user's model for each use (export and forward can mutate it)."""

    def __init__(self, model):
        self.model = model
        try:
            self._copy = copy.deepcopy(model)
            self.mode = "deepcopy"
        except Exception:  # noqa: BLE001
            self._copy = None
            self._state = {k: v.clone() for k, v in model.state_dict().items()}
            self.mode = "state_dict"

    def fresh(self):
        if self._copy is not None:
            try:
                return copy.deepcopy(self._copy)
            except Exception:  # noqa: BLE001
                pass
        try:
            self.model.load_state_dict(self._state)
        except Exception:  # noqa: BLE001
            pass
        return self.model


def run_exporter(exporter: str, pristine: _Pristine, spec: dict, variants: list, ref: list, users: UserFiles,
                 job: dict, base_cov, cov_by_variant) -> dict:
    t0 = time.time()
    res: dict[str, Any] = {"status": "pass", "message": "", "location": None, "divergences": [],
                           "tracer_warnings": [], "max_abs": None, "max_rel": None}
    timing: dict[str, float] = {}
    res["timing"] = timing
    model = pristine.fresh()
    out_buf = io.StringIO()
    cache = _locate_cache(job)
    guards = None
    if exporter in ("export-strict", "export-nonstrict") and spec.get("dynamic_shapes"):
        # the guards this export adds, with their user frames: what locating a specialised
        # dim needs (``_guard_pass``), recorded now instead of by exporting again
        guards = GuardRecorder(users)
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out_buf):
        warnings.simplefilter("always")
        try:
            try:
                with tempfile.TemporaryDirectory() as wd:
                    ex = export_with(exporter, model, spec, job.get("opset"), wd, guards=guards)
            finally:
                if guards is not None:
                    cache[guard_cache_key(exporter == "export-strict")] = guards
            timing["export"] = round(time.time() - t0, 3)
        except BaseException as e:  # noqa: BLE001 - the exporter failed
            if isinstance(e, KeyboardInterrupt):
                raise
            timing["export"] = round(time.time() - t0, 3)
            res["status"] = "fail"
            res["message"] = exporter_message(e)
            res["exception"] = f"{type(e).__module__}.{type(e).__name__}"
            loc = None
            if exporter != "onnx-legacy" and is_constraint_violation(
                    " ".join(str(x) for x in exception_chain(e))):
                # a specialised dynamic dim names no line: the guard that specialised it does
                loc = _guard_pass(pristine, spec, users, strict=exporter == "export-strict",
                                  message=" ".join(str(x) for x in exception_chain(e)), cache=cache)
            if loc is None:
                loc = locate(e, exporter, users,
                             second_pass=lambda: _second_pass(e, exporter, pristine, spec, users, cache))
            res["location"] = loc.to_dict() if loc else None
            res["tracer_warnings"] = _tracer_warnings(caught, users)
            res["seconds"] = round(time.time() - t0, 3)
            timing["locate"] = round(res["seconds"] - timing["export"], 3)
            return res
    res["tracer_warnings"] = _tracer_warnings(caught, users)
    args, kwargs = spec["args"], spec["kwargs"]
    if ref is None:  # eager fails on the example: nothing to compare with
        res["parity"] = "not compared: the eager model fails on the example input"
        res["seconds"] = round(time.time() - t0, 3)
        return res
    if _state_moved(pristine, model):
        # exporting ran forward on the real model (legacy tracing) and updated its buffers in
        # place: the program starts from that state, so eager does too (state, not divergence)
        ref, variants = _rebase_references(model, args, kwargs, variants)
        res["state"] = "the export updated the model's buffers; eager references start from that state"
    t1 = time.time()
    if ex.proto is not None:
        res["onnx"] = onnx_checks(ex.proto)
    timing["checks"] = round(time.time() - t1, 3)
    t1 = time.time()
    for problem in getattr(ex, "problems", []):
        res["divergences"].append({"variant": "dynamic shapes", "kind": "shape", "message": problem})
    # parity on the example input
    try:
        got = ex.run(args, kwargs)
        cmp = compare(ref, got, job["rtol"], job["atol"])
        res["max_abs"], res["max_rel"] = cmp["max_abs"], cmp["max_rel"]
        if not cmp["ok"]:
            tie = _ties_explain(pristine, model, res, args, kwargs, ref, job, users, "example input")
            if tie:
                res.setdefault("tie_dependent", []).append({"variant": "example input", **tie})
            else:
                res["divergences"].append({"variant": "example input", "kind": "example", **cmp})
    except _NotComparable as e:
        res["parity"] = f"not compared: {e}"
    except Exception as e:  # noqa: BLE001
        res["divergences"].append({"variant": "example input", "kind": "example", "raised": True,
                                   "message": f"the exported program fails on the example input: {exporter_message(e)}"})
    # perturbed inputs
    checked = []
    for name, kind, a, k, expect in variants:
        try:
            got = ex.run(a, k)
        except _NotComparable:
            break
        except Exception as e:  # noqa: BLE001
            if kind == "shape" and _is_input_rejection(e) and not name.startswith("declared dynamic dims"):
                continue  # static shapes: the program refuses the input, which is not a divergence
            res["divergences"].append({"variant": name, "kind": kind, "raised": True,
                                       "message": f"the exported program fails where eager works: {exporter_message(e)}"})
            continue
        checked.append(name)
        if name == "zeros":  # all values tie: which index topk/argmax returns is up to the runtime
            keep = [i for i, e in enumerate(expect) if e.is_floating_point() or e.is_complex()]
            if len(got) == len(expect):
                expect, got = [expect[i] for i in keep], [got[i] for i in keep]
        cmp = compare(expect, got, job["rtol"], job["atol"])
        if not cmp["ok"]:
            if _ill_conditioned(pristine, a, k, expect, job):
                # eager itself moves this much when the input moves by rounding noise (a norm
                # over a constant input divides by sqrt(eps)): no evidence of a divergence
                res.setdefault("ill_conditioned", []).append(name)
                continue
            tie = _ties_explain(pristine, model, res, a, k, expect, job, users, name)
            if tie:
                res.setdefault("tie_dependent", []).append({"variant": name, **tie})
                continue
            res["divergences"].append({"variant": name, "kind": kind, **cmp})
    res["variants_checked"] = checked
    timing["parity"] = round(time.time() - t1, 3)
    t1 = time.time()
    guard_loc: dict = {}
    onnx_cache: dict = {}
    for d in res["divergences"]:
        if d["variant"] == "dynamic shapes" or (d.get("kind") == "shape" and exporter != "onnx-legacy"
                                                and spec.get("dynamic_shapes")):
            if "loc" not in guard_loc:  # the guard that specialised the requested dim (once)
                g = _guard_pass(pristine, spec, users, strict=exporter == "export-strict", cache=cache)
                guard_loc["loc"] = g.to_dict() if g else None
            if guard_loc["loc"] is None and "draft" not in guard_loc and d["variant"] == "dynamic shapes":
                guard_loc["draft"] = True
                a, k = clone_inputs(spec["args"], spec["kwargs"])
                try:
                    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                        warnings.simplefilter("ignore")
                        g = locate_by_draft_export(pristine.fresh(), a, k, spec.get("dynamic_shapes"), users,
                                                   message=d.get("message", ""), cache=cache)
                except Exception:  # noqa: BLE001
                    g = None
                guard_loc["loc"] = g.to_dict() if g else None
            if guard_loc["loc"]:
                d["location"] = guard_loc["loc"]
                continue
        d["location"] = _divergence_location(d, res["tracer_warnings"], job.get("findings", []), base_cov,
                                             cov_by_variant.get(d["variant"]))
        inputs = {"example input": (args, kwargs)}
        inputs.update({name: (a, k) for name, _, a, k, _ in variants})
        if d["location"] is None and ex.proto is not None:
            d["location"] = _onnx_location(d, exporter, ex, pristine, spec, job, users, inputs.get(d["variant"]),
                                           onnx_cache)
        if d["location"] is None and exporter != "onnx-legacy" and not d.get("raised") \
                and inputs.get(d["variant"]) is not None:
            d["location"] = _line_location(exporter, ex, pristine, spec, job, users, inputs[d["variant"]],
                                           onnx_cache, d["variant"])
    if res["divergences"]:
        res["status"] = "diverged"
        first = res["divergences"][0]
        res["message"] = f"{first['variant']}: {first.get('message') or 'values differ'}"
        ex_fail = next((d for d in res["divergences"] if d["variant"] == "example input" and d.get("raised")), None)
        if ex_fail is not None:
            # the export passed but its program cannot run on the very input it was exported
            # with (onnxruntime raises): a failure, at the line of the node that raised
            res["status"] = "fail"
            res["message"] = ex_fail["message"]
            res["location"] = ex_fail.get("location")
    if res["status"] == "pass" and res.get("tie_dependent"):
        t = res["tie_dependent"][0]
        res["message"] = (f"parity not established on {', '.join(x['variant'] for x in res['tie_dependent'])}: "
                          f"the outputs differ, and so do eager's own when {t['op']} "
                          + (f"at {os.path.basename(t['path'])}:{t['line']} " if t["path"] else "")
                          + "picks another of its tied values")
    if ex.proto is not None and res["status"] == "pass":
        bad = {k: v for k, v in res["onnx"].items() if v != "ok"}
        if "checker" in bad:
            res["status"] = "fail"
            res["message"] = f"onnx.checker: {bad['checker']}"
    res["seconds"] = round(time.time() - t0, 3)
    return res


def _locate_cache(job: dict) -> dict:
    """What locating learns from re-exporting the pristine model on the example (guards, the
    draft program), kept for the target's other exporters: the same inputs give the same."""
    return job.setdefault("_locate_cache", {})


def _guard_pass(pristine: _Pristine, spec: dict, users: UserFiles, strict: bool,
                message: str = "", cache: Optional[dict] = None) -> Optional[Location]:
    if not spec.get("dynamic_shapes"):
        return None
    a, k = clone_inputs(spec["args"], spec["kwargs"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                return locate_by_guards(pristine.fresh(), a, k, spec.get("dynamic_shapes"), users, strict=strict,
                                        message=message, cache=cache)
            except Exception:  # noqa: BLE001
                return None


def _state_moved(pristine: _Pristine, model: Any) -> bool:
    import torch

    before = pristine._copy.state_dict() if pristine._copy is not None else getattr(pristine, "_state", None)
    if not before:
        return False
    after = model.state_dict()
    for k, v in before.items():
        w = after.get(k)
        if isinstance(v, torch.Tensor) and isinstance(w, torch.Tensor) and v.shape == w.shape \
                and not torch.equal(v, w):
            return True
    return False


def _rebase_references(model: Any, args, kwargs, variants: list):
    import torch

    snap = copy.deepcopy(model)

    def ref_of(a, k):
        m = copy.deepcopy(snap)
        a, k = clone_inputs(a, k)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return output_leaves(m(*a, **k))

    out = []
    for name, kind, a, k, _ in variants:
        try:
            out.append((name, kind, a, k, ref_of(a, k)))
        except Exception:  # noqa: BLE001
            continue
    return ref_of(args, kwargs), out


def _second_pass(exc: BaseException, exporter: str, pristine: _Pristine, spec: dict, users: UserFiles,
                 cache: Optional[dict] = None):
    args, kwargs, ds = spec["args"], spec["kwargs"], spec.get("dynamic_shapes")
    text = " ".join(str(e) for e in exception_chain(exc))
    names = [type(e).__name__ for e in exception_chain(exc)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()):
            if exporter == "onnx-legacy":
                a, _ = clone_inputs(args, kwargs)
                return locate_legacy_op(exc, pristine.fresh(), a, users)
            if "__torch__.torch.classes." in text:
                # a TorchScript object in the module's state (quantized packed params): the
                # exporter fails before tracing; the op that takes the object has the line
                from exportlint.confirm.script_objects import locate_script_object_use

                a, k = clone_inputs(args, kwargs)
                loc = locate_script_object_use(pristine.fresh(), a, k, text, users)
                if loc:
                    return loc
            if "DispatchError" in names or "step 3/3" in text:
                a, k = clone_inputs(args, kwargs)
                loc = locate_dispatch_node(exc, pristine.fresh(), a, k, ds, users)
                if loc:
                    return loc
            if exporter in ("export-strict", "export-nonstrict", "onnx-dynamo"):
                a, k = clone_inputs(args, kwargs)
                return locate_by_draft_export(pristine.fresh(), a, k, ds, users, message=text, cache=cache)
    return None


def _ties_explain(pristine: _Pristine, model: Any, res: dict, args, kwargs, expect: list, job: dict,
                  users: UserFiles, variant: str) -> Optional[dict]:
    """{path, line, op} when eager's outputs on this input move with the order in which ties are
    broken (``ties.tie_dependent``): the mismatch is no evidence of a divergence. A property of
    eager on the input: computed once per input for all exporters (not when an export moved
    the model's state)."""
    import copy

    from exportlint.confirm.ties import tie_dependent

    cache = job.setdefault("_tie_verdicts", {})
    if not res.get("state") and variant in cache:
        return cache[variant]

    def run():
        m = copy.deepcopy(model) if res.get("state") else pristine.fresh()
        a, k = clone_inputs(args, kwargs)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            return output_leaves(m(*a, **k))
    try:
        hit = tie_dependent(run, expect, users,
                            lambda e, g: compare(e, g, job["rtol"], job["atol"])["ok"])
    except Exception:  # noqa: BLE001 - unknown: the divergence stands
        return None
    out = None if hit is None else {"path": hit[0], "line": hit[1], "op": hit[2]}
    if not res.get("state"):
        cache[variant] = out
    return out


def _ill_conditioned(pristine: _Pristine, args, kwargs, expect: list, job: dict) -> bool:
    """True if eager's outputs on ``args`` change beyond the tolerances when the float inputs
    move by a millionth of their scale: the reference itself is unstable at this input."""
    import torch

    gen = torch.Generator().manual_seed(1)

    def nudge(t):
        if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel():
            scale = float(t.detach().abs().max()) or 1.0
            return t + torch.randn(t.shape, generator=gen, dtype=t.dtype) * (1e-6 * scale)
        return t
    try:
        a, k = clone_inputs(args, kwargs)
        a, k = tree_map(nudge, a), tree_map(nudge, k)
        with torch.no_grad(), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            again = output_leaves(pristine.fresh()(*a, **k))
        if len(again) != len(expect):
            return False
        keep = [i for i, e in enumerate(expect) if e.is_floating_point() or e.is_complex()]
        return not compare([expect[i] for i in keep], [again[i] for i in keep], job["rtol"], job["atol"])["ok"]
    except Exception:  # noqa: BLE001 - unknown: the divergence stands
        return False


def _onnx_location(d: dict, exporter: str, ex: Exported, pristine: _Pristine, spec: dict, job: dict,
                   users: UserFiles, example: Optional[tuple], cache: dict) -> Optional[dict]:
    """A divergence of an exported ONNX model no guard, branch or TracerWarning explains: the
    source of the node onnxruntime raised in (legacy: re-exported verbosely for the nodes'
    source), or for dynamo the first value that differs (``onnx_locate.py``)."""
    from exportlint.confirm.onnx_locate import failing_node, locate_by_decomposition_guards, \
        locate_first_diverging_onnx_line, locate_first_diverging_value, locate_onnx_node

    msg = d.get("message") or ""
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            def sourced_proto():  # legacy nodes name their source only in a verbose export
                if exporter != "onnx-legacy":
                    return ex.proto
                if "verbose" not in cache:
                    try:
                        with tempfile.TemporaryDirectory() as wd:
                            cache["verbose"] = export_with(exporter, pristine.fresh(), spec, job.get("opset"), wd,
                                                           verbose=True).proto
                    except Exception:  # noqa: BLE001
                        cache["verbose"] = None
                return cache["verbose"]

            def same(e, g):
                return compare(e, g, job["rtol"], job["atol"])["ok"]
            if d.get("raised") and failing_node(msg):
                loc = locate_onnx_node(sourced_proto(), msg, users)
                return loc.to_dict() if loc else None
            if exporter == "onnx-dynamo" and not d.get("raised") and d.get("kind") == "shape" \
                    and spec.get("dynamic_shapes"):
                if "decomp" not in cache:
                    a, k = clone_inputs(spec["args"], spec["kwargs"])
                    loc = locate_by_decomposition_guards(pristine.fresh(), a, k, spec.get("dynamic_shapes"), users)
                    cache["decomp"] = loc.to_dict() if loc else None
                if cache["decomp"]:
                    return cache["decomp"]
            if exporter == "onnx-dynamo" and not d.get("raised") and example is not None \
                    and d["variant"] != "dynamic shapes":
                key = ("value", d["variant"])
                if key not in cache:
                    a, k = clone_inputs(*example)
                    sa, sk = clone_inputs(spec["args"], spec["kwargs"])
                    try:
                        loc = locate_first_diverging_value(ex.proto, pristine.fresh(), sa, sk,
                                                           spec.get("dynamic_shapes"), (a, k), users, same)
                    except Exception:  # noqa: BLE001
                        loc = None
                    cache[key] = loc.to_dict() if loc else None
                if cache[key]:
                    return cache[key]
            if not d.get("raised") and example is not None and d["variant"] != "dynamic shapes":
                key = ("onnx-line", d["variant"])
                if key not in cache:
                    proto = sourced_proto()
                    loc = None if proto is None else locate_first_diverging_onnx_line(
                        proto, pristine.fresh(), clone_inputs(*example), getattr(ex, "input_names", None), users, same)
                    cache[key] = loc.to_dict() if loc else None
                return cache[key]
    except Exception:  # noqa: BLE001 - a second pass never breaks the verdict
        return None
    return None


def _line_location(exporter: str, ex: Exported, pristine: _Pristine, spec: dict, job: dict, users: UserFiles,
                   example: tuple, cache: dict, variant: str) -> Optional[dict]:
    """A divergence nothing else explains: the first user line whose value differs between
    eager and the exported FX program (the dynamo exporter's: re-exported non-strict)."""
    from exportlint.confirm.diverge_locate import locate_first_diverging_line

    key = ("line", variant)
    if key in cache:
        return cache[key]
    cache[key] = None
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            import torch

            ep = ex.ep
            if ep is None:
                if "ep" not in cache:
                    sa, sk = clone_inputs(spec["args"], spec["kwargs"])
                    try:
                        cache["ep"] = torch.export.export(pristine.fresh(), sa, sk or None,
                                                          dynamic_shapes=spec.get("dynamic_shapes"), strict=False)
                    except Exception:  # noqa: BLE001
                        cache["ep"] = None
                ep = cache["ep"]
            if ep is None:
                return None

            def same(e, g):
                return compare(e, g, job["rtol"], job["atol"])["ok"]
            loc = locate_first_diverging_line(pristine.fresh(), ep, clone_inputs(*example), users, same)
            cache[key] = loc.to_dict() if loc else None
    except Exception:  # noqa: BLE001 - a second pass never breaks the verdict
        return None
    return cache[key]


def _tracer_warnings(caught, users: UserFiles) -> list[list]:
    out = []
    for w in caught:
        cat = getattr(w.category, "__name__", "")
        if "TracerWarning" not in cat:
            continue
        p = users.resolve(w.filename)
        if p:
            item = [p, w.lineno, str(w.message).splitlines()[0][:200]]
            if item not in out:
                out.append(item)
    return out


def _divergence_location(div: dict, tracer_warnings: list, findings: list[dict], base_cov,
                         var_cov: Optional[dict]) -> Optional[dict]:
    """The responsible line of a divergence: the static finding on the flipped branch, a TracerWarning, or None."""
    if div.get("kind") == "example":
        # the trace was taken on this very input: nothing it baked in differs here
        tracer_warnings = []
    elif div.get("kind") == "value":
        # other values, same shapes: only a tensor's *data* turned into a Python value can bake
        # them in (not a constant torch.tensor(3), not a value read from a shape)
        tracer_warnings = [t for t in tracer_warnings if str(t[2]).startswith(DATA_TO_CONSTANT)
                           and not _reads_shape(t[0], t[1])]
    if div.get("variant") == "dynamic shapes":
        # a requested dynamic dimension exported static: a shape branch that ran is the usual cause
        for f in findings:
            p = os.path.realpath(f["path"])
            if f.get("code") == "EXL111" and f["line"] in base_cov.get(p, ()):
                return {"path": p, "line": f["line"], "how": "static finding EXL111 (shape branch that ran)",
                        "stack": [[p, f["line"]]]}
    if var_cov is not None:
        for p, base_lines in base_cov.items():
            diff = set(base_lines) ^ set(var_cov.get(p, []))
            if not diff:
                continue
            first = min(diff)
            cands = [f for f in findings if f.get("code") in VALUE_BRANCH_CODES + ("EXL111",)
                     and os.path.realpath(f["path"]) == p and f["line"] < first]
            if cands:
                f = max(cands, key=lambda f: f["line"])
                return {"path": p, "line": f["line"], "how": f"static finding {f['code']} on the flipped branch",
                        "stack": [[p, f["line"]]]}
            tw = [t for t in tracer_warnings if t[0] == p and t[1] < first]
            if tw:
                t = max(tw, key=lambda t: t[1])
                return {"path": p, "line": t[1], "how": "TracerWarning before the flipped branch",
                        "stack": [[p, t[1]]]}
    if tracer_warnings:
        t = tracer_warnings[0]
        return {"path": t[0], "line": t[1], "how": "TracerWarning", "stack": [[t[0], t[1]]]}
    return None


_SHAPE_READ = None


def _reads_shape(path: str, line: int) -> bool:
    """The statement at ``line`` reads a shape (``.shape``, ``.size()``, ``len()``…) directly or
    through names assigned from shapes earlier in its function."""
    import ast
    import linecache

    def shapey(node) -> bool:
        for n in ast.walk(node):
            if isinstance(n, ast.Attribute) and n.attr in ("shape", "ndim"):
                return True
            if isinstance(n, ast.Call):
                f = n.func
                if (isinstance(f, ast.Attribute) and f.attr in ("size", "dim", "numel")) or \
                        (isinstance(f, ast.Name) and f.id == "len"):
                    return True
        return False

    try:
        tree = ast.parse("".join(linecache.getlines(path)))
    except (SyntaxError, ValueError):
        return False
    func = innermost_function(tree, line)
    if func is None:
        return False
    stmts = [n for n in ast.walk(func) if isinstance(n, ast.stmt) and n.lineno <= line <= (n.end_lineno or n.lineno)
             and not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not stmts:
        return False
    stmt = max(stmts, key=lambda n: n.lineno)
    test = getattr(stmt, "test", None) if isinstance(stmt, (ast.If, ast.While)) else None
    target = test if test is not None else stmt
    derived: set[str] = set()
    for _ in range(2):  # names assigned from shapes (or from such names), before the line
        for n in ast.walk(func):
            if isinstance(n, ast.Assign) and n.lineno < stmt.lineno and (
                    shapey(n.value) or any(isinstance(x, ast.Name) and x.id in derived for x in ast.walk(n.value))):
                for t in n.targets:
                    derived |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
    if shapey(target):
        return True
    names = {x.id for x in ast.walk(target) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load)}
    return bool(names) and names <= (derived | {"self", "int", "float", "bool", "min", "max", "abs", "round"})


# ----------------------------------------------------------------------------- entry point
def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        job = json.load(f)
    emit = Emitter(job["events"])
    _no_network()
    try:
        run_job(job, emit)
    except TargetError as e:
        emit("error", stage=e.stage, message=e.message, traceback=e.tb, path=e.path, line=e.line)
    except KeyboardInterrupt:
        emit("error", stage="interrupted", message="interrupted")
        return 130
    except BaseException as e:  # noqa: BLE001
        emit("error", stage="internal", message=f"exportlint worker failed: {type(e).__name__}: {e}",
             traceback=traceback.format_exc())
    emit("done")
    sys.stdout.flush()
    return 0


# ----------------------------------------------------------------------------- fork server
def _preload() -> None:
    """Import the export stack once; forked workers start with it loaded (no threads started)."""
    import torch  # noqa: F401
    import torch.export  # noqa: F401
    import torch.fx  # noqa: F401
    import torch.onnx  # noqa: F401

    for name in ("onnx", "onnx.checker", "onnx.shape_inference", "onnxruntime", "onnxscript",
                 "torch._dynamo", "torch.onnx._internal.exporter._core",
                 "torch.onnx._internal.torchscript_exporter.utils"):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - optional parts of the stack
            pass
    if os.environ.get("EXPORTLINT_CONFIRM_WARMUP", "1") != "0":
        _warm_up()


def _warm_up() -> None:
    """Export a tiny model once with every exporter: the one-time costs of each exporter
    (dynamo's and torchlib's registries, decomposition tables, onnxscript's optimizer) are paid
    here, once, and every forked worker starts warm, like a loop calling the exporters in
    one process. No onnxruntime session and no large tensors: no thread pool is started."""
    import torch

    class _Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x):
            return torch.relu(self.lin(x)).sum(-1)

    try:  # progress bars in the stack would start a monitor thread: none before fork()
        import tqdm

        tqdm.tqdm.monitor_interval = 0
    except Exception:  # noqa: BLE001
        pass
    x = (torch.randn(2, 4),)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        for fn in (lambda: torch.export.export(_Tiny(), x, strict=True),
                   lambda: torch.export.export(_Tiny(), x, strict=False),
                   lambda: torch.onnx.export(_Tiny(), x, dynamo=True, verbose=False),
                   lambda: torch.onnx.export(_Tiny(), x, io.BytesIO(), dynamo=False)):
            try:
                fn()
            except Exception:  # noqa: BLE001 - a warm-up only
                pass


def _set_memory_limit(memory_mb: Optional[int]) -> None:
    if not memory_mb:
        return
    try:
        import resource

        lim = int(memory_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    except (ImportError, ValueError, OSError):
        pass


def serve() -> int:
    """Fork server: read {"id", "job", "log", "memory_mb", "cwd"} lines on stdin; fork one
    isolated child per job (own session, own memory limit); answer {"id", "pid"} and later
    {"exit": pid, "status": code} on stdout. Single-threaded, so forking is safe."""
    import select

    out = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    try:
        _preload()
    except BaseException as e:  # noqa: BLE001
        out.write(json.dumps({"fatal": f"{type(e).__name__}: {e}"}) + "\n")
        return 1
    import gc

    gc.collect()
    gc.freeze()  # forked children do not touch (copy) the preloaded heap when they collect
    out.write(json.dumps({"ready": os.getpid()}) + "\n")
    children: set[int] = set()
    stdin = sys.stdin
    buf = ""
    eof = False
    while not eof or children:
        if not eof:
            r, _, _ = select.select([stdin], [], [], 0.05)
        else:
            r = []
            time.sleep(0.05)
        if r:
            chunk = os.read(stdin.fileno(), 65536).decode()
            if not chunk:
                eof = True
            buf += chunk
            while "\n" in buf:
                line, buf = buf.split("\n", 1)
                if not line.strip():
                    continue
                req = json.loads(line)
                pid = os.fork()
                if pid == 0:  # the child: one target, isolated
                    rc = 1
                    try:
                        os.setsid()
                        fd = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                        os.dup2(devnull, 0)
                        os.dup2(fd, 1)
                        os.dup2(fd, 2)
                        sys.stdin = open(os.devnull)  # noqa: SIM115
                        sys.stdout = os.fdopen(1, "w", buffering=1)
                        sys.stderr = os.fdopen(2, "w", buffering=1)
                        if req.get("cwd"):
                            os.chdir(req["cwd"])
                        _set_memory_limit(req.get("memory_mb"))
                        rc = main(["worker", req["job"]])
                    except BaseException:  # noqa: BLE001
                        traceback.print_exc()
                    finally:
                        try:
                            sys.stdout.flush()
                            sys.stderr.flush()
                        except Exception:  # noqa: BLE001
                            pass
                        os._exit(rc)
                children.add(pid)
                out.write(json.dumps({"id": req["id"], "pid": pid}) + "\n")
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                children.clear()
                break
            if pid == 0:
                break
            children.discard(pid)
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            out.write(json.dumps({"exit": pid, "status": code}) + "\n")
    return 0


if __name__ == "__main__":
    # the user's code may call sys.exit or leave threads: exit hard once the events are written
    rc = serve() if sys.argv[1:] == ["--serve"] else main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)
