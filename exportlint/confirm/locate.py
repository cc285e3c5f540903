"""Map an exporter failure to the deepest frame in the user's project (file:line).

The rules come from EXPORT_FACTS.md ("Where the failing line comes from"); the first rule
that yields a frame in user code wins:

1. strict mode: ``e.innermost_user_frame_summary`` / ``e.real_stack``, and the
   ``from user code:`` / ``User stack:`` blocks of the message (``File "…", line N``);
2. non-strict: the innermost user frame of the traceback, and ``Caused by: (x.py:9 in f)``;
3. constraint violations (a declared dynamic dim specialised; no line in the error): re-export
   recording every guard the shape environment adds with its user frame (Python stack in
   non-strict, ``TracingContext.extract_stack()`` in strict); the first guard the error names
   (or that is false for another size in the declared range) gives the line, moved to the line
   that made the value when the guard is about ``round``/``int(a / b)``/``min``/``max`` of a size
   (``guard-provenance``); else ``draft_export``'s report;
4. ONNX dynamo: walk ``__cause__`` (rules 1–3 on the wrapped error); step 3/3 names only the
   node: re-export non-strict, decompose, and read that node's ``stack_trace``;
5. legacy symbolic failures (``UnsupportedOperatorError``, ``SymbolicValueError``, assertions in
   a symbolic function): the op is the one whose ``symbolic_opset*.py`` function raised (else the
   op the message names); trace with ``torch.jit.trace(check_trace=False)`` and read
   ``node.sourceRange()`` of that op's node. A SymbolicValueError's "(node defined in …)" is the
   *producer* of the bad value: used only to choose among several nodes of the op;
6. otherwise no line: the caller points at the target.

Only this module's second passes (3–5) import torch, and only when called.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
import site
import sys
import sysconfig
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

_FILE_LINE_RE = re.compile(r'File "([^"]+)", line (\d+)')
_CAUSED_BY_RE = re.compile(r"\(([^()\s]+\.py):(\d+) in [\w<>.]+\)")
SOURCE_RANGE_RE = re.compile(r"([^\s()]+\.py)\((\d+)\)")
_STACK_LINE_RE = re.compile(r"#\s*File:\s*([^\s:]+\.py):(\d+)")
_NODE_NAME_RE = re.compile(r"%(\w+)\s*:")


#: TracerWarnings of a tensor's data turned into a constant of the trace (Python numbers, NumPy)
DATA_TO_CONSTANT = ("Converting a tensor to a Python", "Converting a tensor to a NumPy array")


@dataclass
class Location:
    path: str
    line: int
    how: str  # which rule found it
    #: all user frames seen by that rule, innermost first
    stack: list[tuple[str, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "how": self.how, "stack": [list(s) for s in self.stack]}


class UserFiles:
    """Decides which files belong to the user's project."""

    def __init__(self, roots: Iterable[str], extra_files: Iterable[str] = ()):
        self.roots = [os.path.realpath(r) for r in roots if r]
        self.files = {os.path.realpath(f) for f in extra_files}
        excl = set()
        for p in list(site.getsitepackages()) + [site.getusersitepackages(), sysconfig.get_paths().get("purelib", ""),
                                                 sysconfig.get_paths().get("stdlib", "")]:
            if p:
                excl.add(os.path.realpath(p))
        here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the exportlint package
        self.exportlint_dir = here
        # a library folder is excluded unless a root lies inside it (ExportDB lives in torch)
        self.excluded = [p for p in excl if not any(_under(r, p) for r in self.roots)]
        self._cache: dict[str, Optional[str]] = {}
        self._suffix_index: Optional[dict[str, str]] = None

    def resolve(self, filename: str) -> Optional[str]:
        """The real path of ``filename`` if it is a user file, else None."""
        if filename in self._cache:
            return self._cache[filename]
        out: Optional[str] = None
        if filename and not filename.startswith("<"):
            real = os.path.realpath(filename) if os.path.isabs(filename) else self._from_relative(filename)
            if real and self._is_user_real(real):
                out = real
        self._cache[filename] = out
        return out

    def _is_user_real(self, real: str) -> bool:
        if _under(real, self.exportlint_dir):
            return False
        if real in self.files:
            return True
        if not any(_under(real, r) for r in self.roots):
            return False
        return not any(_under(real, p) for p in self.excluded)

    def _from_relative(self, rel: str) -> Optional[str]:
        for r in self.roots:
            cand = os.path.realpath(os.path.join(r, rel))
            if os.path.isfile(cand):
                return cand
        # torch prints paths relative to some prefix (e.g. "site-packages/torch/…" or
        # "examples/x.py"): match by suffix against the loaded user modules
        rel = rel.replace("\\", "/").lstrip("./")
        for mod in list(sys.modules.values()):
            f = getattr(mod, "__file__", None)
            if f and os.path.realpath(f).replace("\\", "/").endswith("/" + rel):
                return os.path.realpath(f)
        for f in self.files:
            if f.replace("\\", "/").endswith("/" + rel):
                return f
        return None


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def exception_chain(exc: BaseException) -> list[BaseException]:
    """exc, its cause/context, …: outermost first, no repeats."""
    out: list[BaseException] = []
    seen: set[int] = set()
    e: Optional[BaseException] = exc
    while e is not None and id(e) not in seen:
        out.append(e)
        seen.add(id(e))
        e = e.__cause__ or (None if e.__suppress_context__ else e.__context__)
    return out


def frames_from_text(text: str, users: UserFiles) -> list[tuple[str, int]]:
    """User frames named in an exception message, in the order printed (outermost first)."""
    out = []
    for m in _FILE_LINE_RE.finditer(text):
        p = users.resolve(m.group(1))
        if p:
            out.append((p, int(m.group(2))))
    for m in _STACK_LINE_RE.finditer(text):
        p = users.resolve(m.group(1))
        if p:
            out.append((p, int(m.group(2))))
    return out


def _frames_caused_by(text: str, users: UserFiles) -> list[tuple[str, int]]:
    out = []
    for m in _CAUSED_BY_RE.finditer(text):
        p = users.resolve(m.group(1))
        if p:
            out.append((p, int(m.group(2))))
    return out


def _frames_from_summaries(frames: Any, users: UserFiles) -> list[tuple[str, int]]:
    out = []
    try:
        for fs in frames or ():
            fn = getattr(fs, "filename", None)
            ln = getattr(fs, "lineno", None)
            p = users.resolve(fn) if fn else None
            if p and ln:
                out.append((p, int(ln)))
    except Exception:  # noqa: BLE001 - foreign objects
        return out
    return out


def dedupe_innermost_first(frames: list[tuple[str, int]]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for f in reversed(frames):
        if f not in out:
            out.append(f)
    return out


def locate_direct(exc: BaseException, users: UserFiles) -> Optional[Location]:
    """Rules 1, 2 and the text forms of 4: everything readable from the exception itself."""
    chain = exception_chain(exc)
    # rule 1: strict mode attributes (on any exception of the chain, innermost cause first)
    for e in reversed(chain):
        fs = getattr(e, "innermost_user_frame_summary", None)
        frames = _frames_from_summaries([fs] if fs is not None else [], users)
        real = _frames_from_summaries(getattr(e, "real_stack", None), users)
        if frames or real:
            stack = dedupe_innermost_first(real + frames)
            best = frames[-1] if frames else stack[0]
            return Location(best[0], best[1], "strict-user-frame", _merge(best, stack))
    # rule 1b / 4: "from user code:", "User stack:", "Original traceback:" blocks
    for e in reversed(chain):
        text = _safe_str(e)
        frames = frames_from_text(text, users)
        if frames:
            stack = dedupe_innermost_first(frames)
            return Location(stack[0][0], stack[0][1], "message-user-stack", stack)
    # rule 2: the user's code really ran: innermost user frame of the traceback
    for e in reversed(chain):
        frames = []
        try:
            for fs in traceback.extract_tb(e.__traceback__):
                p = users.resolve(fs.filename)
                if p:
                    frames.append((p, fs.lineno or 0))
        except Exception:  # noqa: BLE001
            frames = []
        if frames:
            stack = dedupe_innermost_first(frames)
            return Location(stack[0][0], stack[0][1], "traceback", stack)
    # rule 2b: "Caused by: (path.py:9 in forward)"
    for e in reversed(chain):
        frames = _frames_caused_by(_safe_str(e), users)
        if frames:
            stack = dedupe_innermost_first(frames)
            return Location(stack[0][0], stack[0][1], "caused-by", stack)
    return None


def _merge(best: tuple[str, int], stack: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return [best] + [s for s in stack if s != best]


def _safe_str(e: BaseException) -> str:
    try:
        return str(e)
    except Exception:  # noqa: BLE001
        return repr(e)


# --------------------------------------------------------------------------- second passes
def locate_by_draft_export(model: Any, args: tuple, kwargs: dict, dynamic_shapes: Any, users: UserFiles,
                           strict: bool = False, message: str = "",
                           cache: Optional[dict] = None) -> Optional[Location]:
    """Rule 3: constraint violations carry no location; draft_export's report has user stacks.

    ``cache``: a dict shared by the callers that draft-export the same (pristine) model, inputs
    and dims (one target's exporters): the draft program is made once and read per message."""
    import torch

    key = ("draft-export", bool(strict))
    if cache is not None and key in cache:
        ep = cache[key]
    else:
        try:
            ep = torch.export.draft_export(model, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict)
        except Exception:  # noqa: BLE001
            ep = None
        if cache is not None:
            cache[key] = ep
    if ep is None:
        return None
    report = getattr(ep, "_report", None)
    if report is None:
        return None
    str_to_filename = getattr(report, "str_to_filename", {}) or {}
    for failure in getattr(report, "failures", []) or []:
        data = getattr(failure, "data", {}) or {}
        frames = []
        for fr in data.get("user_stack", []) or []:
            fn = getattr(fr, "filename", None)
            if fn is None and isinstance(fr, dict):
                fn = fr.get("filename")
            ln = getattr(fr, "lineno", None) or getattr(fr, "line", None)
            if ln is None and isinstance(fr, dict):
                ln = fr.get("lineno") or fr.get("line")
            if isinstance(fn, int):
                fn = str_to_filename.get(fn, fn)
            if isinstance(fn, str) and isinstance(ln, int):
                p = users.resolve(fn)
                if p:
                    frames.append((p, ln))
        if frames:
            stack = dedupe_innermost_first(frames)
            return Location(stack[0][0], stack[0][1], "draft-export", stack)
    # the guard's stack is often all framework code: find the symbolic-shape node the guard
    # talks about (e.g. ``round``) in the draft program and read its stack_trace
    text = " ".join(str(getattr(f, "data", {}).get("expr", "")) for f in getattr(report, "failures", []) or [])
    text += " " + (message or "")
    best = None
    for node in _all_nodes(ep.graph_module):
        frames = frames_from_text(node.meta.get("stack_trace") or "", users)
        if not frames or node.op != "call_function":
            continue
        name = getattr(node.target, "__name__", str(node.target)).split(".")[-1]
        val = node.meta.get("val")
        symbolic = val is not None and not isinstance(val, torch.Tensor)
        score = (2 if name and re.search(r"\b" + re.escape(name) + r"\b", text, re.I) else 0) + (1 if symbolic else 0)
        if score and (best is None or score > best[0]):
            best = (score, frames)
    if best:
        stack = dedupe_innermost_first(best[1])
        return Location(stack[0][0], stack[0][1], "draft-export-node", stack)
    return None


@contextlib.contextmanager
def full_stack_traces():
    """Node ``stack_trace``s with every user frame while exporting.

    Non-strict torch.export records a node's stack with only the frames named ``forward``
    (``_record_forward_stack_traces_only``, torch/fx/proxy.py ``_filter_traceback_frames``): an op
    called from a helper function (``def _grouped_mm(...)``) is attributed to the innermost
    ``forward`` that led there, not to the helper's line. Under this context the filter keeps
    the frames from the first ``forward`` on, as for any other tracer."""
    import torch.fx.proxy as fx_proxy

    orig = fx_proxy.TracerBase._filter_traceback_frames

    def _all_frames(self, summary):
        saved = getattr(self, "_record_forward_stack_traces_only", False)
        self._record_forward_stack_traces_only = False
        try:
            return orig(self, summary)
        finally:
            self._record_forward_stack_traces_only = saved

    fx_proxy.TracerBase._filter_traceback_frames = _all_frames
    try:
        yield
    finally:
        fx_proxy.TracerBase._filter_traceback_frames = orig


def locate_dispatch_node(exc: BaseException, model: Any, args: tuple, kwargs: dict, dynamic_shapes: Any,
                         users: UserFiles) -> Optional[Location]:
    """Rule 4, step 3/3: find the failing node by name in the decomposed program."""
    names = []
    for e in exception_chain(exc):
        names += _NODE_NAME_RE.findall(_safe_str(e))
    if not names:
        return None
    import torch

    ep = None
    for attempt in (torch.export.export, torch.export.draft_export):
        try:
            with full_stack_traces():
                ep = attempt(copy.deepcopy(model), args, kwargs, dynamic_shapes=dynamic_shapes, strict=False)
            break
        except Exception:  # noqa: BLE001
            continue
    if ep is None:
        return None
    programs = [ep]
    try:
        from exportlint.confirm.onnx_locate import _onnx_decomposition_table

        programs.insert(0, ep.run_decompositions(_onnx_decomposition_table()))
    except Exception:  # noqa: BLE001
        pass
    for prog in programs:
        by_name = {n.name: n for n in _all_nodes(prog.graph_module)}
        for name in names:
            node = by_name.get(name)
            if node is None:
                continue
            frames = frames_from_text(node.meta.get("stack_trace") or "", users)
            if frames:
                stack = dedupe_innermost_first(frames)
                return Location(stack[0][0], stack[0][1], "node-stack-trace", stack)
    return None


def _all_nodes(gm: Any):
    import torch

    for n in gm.graph.nodes:
        yield n
    for _, sub in gm.named_modules():
        if sub is not gm and isinstance(sub, torch.fx.GraphModule):
            yield from sub.graph.nodes


def locate_legacy_op(exc: BaseException, model: Any, args: tuple, users: UserFiles) -> Optional[Location]:
    """Rule 5: an unsupported operator in the legacy exporter: find its node in a jit trace."""
    text = _safe_str(exc)
    # the op whose symbolic function raised; a SymbolicValueError's "(node defined in …)" is the
    # node that *produced* the offending value, used only to pick among nodes of that kind
    m = re.search(r"operator '?([\w:.]+)'?", text) or re.search(r"aten::(\w+)", text)
    ops = [o for o in (_symbolic_frame_op(exc), m.group(1) if m else None) if o]
    if not ops:
        return None
    producer = None
    i = text.find("node defined in")
    if i >= 0:
        pm = next((mm for mm in SOURCE_RANGE_RE.finditer(text[i:]) if users.resolve(mm.group(1))), None)
        if pm:
            producer = (users.resolve(pm.group(1)), int(pm.group(2)))
    ops = [o if "::" in o else "aten::" + o.split(".")[-1] for o in ops]
    import torch

    try:
        with _quiet_warnings():
            traced = torch.jit.trace(model, args, check_trace=False)
    except Exception:  # noqa: BLE001
        return None
    graphs = [traced.inlined_graph] if hasattr(traced, "inlined_graph") else [traced.graph]
    found: list[list[tuple[str, int]]] = []
    nodes = [n for g in graphs for n in g.nodes()]
    kinds = {n.kind() for n in nodes}
    # the symbolic function's name when it is an op's (``roll``); else the op the message names
    # (factory-made symbolics such as the adaptive pools are all called ``symbolic_fn``)
    op = next((o for o in ops if o in kinds), None)
    for g in graphs:
        for node in g.nodes():
            if op is not None and node.kind() == op:
                try:
                    src = node.sourceRange()
                except Exception:  # noqa: BLE001
                    src = ""
                frames = []
                for mm in SOURCE_RANGE_RE.finditer(src):
                    p = users.resolve(mm.group(1))
                    if p:
                        frames.append((p, int(mm.group(2))))
                if frames:
                    found.append(list(dict.fromkeys(frames)))  # sourceRange lists innermost first
    if not found:
        return None
    stack = found[0]
    if producer is not None and len(found) > 1:
        # the consumer of the producer's value: same file, at or after the producer's line
        after = [f for f in found if f[0][0] == producer[0] and f[0][1] >= producer[1]]
        if after:
            stack = min(after, key=lambda f: f[0][1])
    return Location(stack[0][0], stack[0][1], "jit-source-range", stack)


def _symbolic_frame_op(exc: BaseException) -> Optional[str]:
    """The op whose legacy symbolic function raised: the innermost traceback frame in a
    ``symbolic_opset*.py`` file is named after the aten op (``roll``, ``_pad_circular`` -> pad…)."""
    for e in exception_chain(exc):
        try:
            frames = traceback.extract_tb(e.__traceback__)
        except Exception:  # noqa: BLE001
            continue
        for fs in reversed(frames):
            if re.search(r"symbolic_opset\d+\.py$", fs.filename or ""):
                name = fs.name.strip("_")
                return name or None
    return None


class _quiet_warnings:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a):
        return self._cm.__exit__(*a)


_BINDING_RE = re.compile(r"forward\(\) (got multiple values for argument|missing \d+ required|"
                         r"got an unexpected keyword argument|takes \d+ positional)")


def is_binding_error(exc: BaseException) -> bool:
    """The exporter could not bind the example inputs to forward (no line of the model is at fault)."""
    return any(isinstance(e, TypeError) and _BINDING_RE.search(_safe_str(e)) for e in exception_chain(exc))


def binding_call_in_user_code(exc: BaseException, users: UserFiles) -> Optional[Location]:
    """A binding ``TypeError`` raised by a call the user's code made: the exporter's own call of
    forward bound, and a wrapper in the project then called the inner forward with clashing
    arguments (measured: the legacy exporter passes keyword inputs positionally in forward's
    order, and transformers' output-capturing wrapper adds ``use_cache=`` as a keyword:
    "forward() got multiple values for argument 'use_cache'" raised at the wrapper's call).
    A call's binding error is raised in the calling frame, so the innermost traceback frame
    is the call; when it is a user file, that line is the failing line. None when the
    innermost frame is the exporter's (it called forward itself: rule 6, the target)."""
    for e in exception_chain(exc):
        if not (isinstance(e, TypeError) and _BINDING_RE.search(_safe_str(e))):
            continue
        try:
            tb = traceback.extract_tb(e.__traceback__)
        except Exception:  # noqa: BLE001
            continue
        if not tb:
            continue
        p = users.resolve(tb[-1].filename)
        if not p:
            continue
        frames = dedupe_innermost_first([(q, fs.lineno or 0) for fs in tb if (q := users.resolve(fs.filename))])
        return Location(p, tb[-1].lineno or 0, "traceback (call binding)", frames)
    return None


def locate(exc: BaseException, exporter: str, users: UserFiles, *,
           second_pass: Optional[Callable[[], Optional[Location]]] = None) -> Optional[Location]:
    if is_binding_error(exc):
        # rule 6: input/output structure: the caller points at the target, unless the clashing
        # call is the project's own
        return binding_call_in_user_code(exc, users)
    loc = locate_direct(exc, users)
    if loc is None and second_pass is not None:
        try:
            loc = second_pass()
        except Exception:  # noqa: BLE001
            loc = None
    return loc


def exporter_message(exc: BaseException, limit: int = 600) -> str:
    """The exporter's own words: the most specific exception in the chain, first lines."""
    chain = exception_chain(exc)
    # ONNX wrappers ("Failed to export … step 1/3") are less telling than their cause
    pick = chain[0]
    for e in chain:
        t = _safe_str(e)
        if "This is step" in t or "Failed to export the model" in t or "Failed to convert" in t:
            continue
        pick = e
        break
    text = _strip_ansi(_safe_str(pick)).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    head = " ".join(lines[:3]) if lines else ""
    msg = f"{type(pick).__name__}: {head}" if head else type(pick).__name__
    if pick is not chain[0]:
        outer = _strip_ansi(_safe_str(chain[0])).strip().splitlines()
        step = re.search(r"step (\d)/3", _strip_ansi(_safe_str(chain[0])))
        if step:
            msg = f"[step {step.group(1)}/3] " + msg
        elif outer:
            pass
    return msg[:limit] + ("…" if len(msg) > limit else "")


_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


def _strip_ansi(s: str) -> str:
    return _ANSI_RE.sub("", s)


# --------------------------------------------------------------------------- guard provenance
#: sympy functions of torch's symbolic shapes that come from Python arithmetic on sizes which
#: torch cannot keep exact (``round``, ``int(a / b)``, ``math.floor``, ``min``/``max``, float
#: division): a guard on them is usually caused where the value was made, not where it is used
_PRODUCER_FUNCS = ("RoundToInt", "TruncToInt", "FloorToInt", "CeilToInt", "IntTrueDiv", "FloatTrueDiv",
                   "ToFloat", "Min", "Max", "RoundDecimal", "PythonMod")
_CONSTRAINT_MARKERS = ("Constraints violated", "specialized it to be a constant", "Specializations unexpectedly",
                       "requested dynamic but exported static", "marked as dynamic but",
                       # the ONNX dynamo exporter retries with Dim.AUTO, then compares with the hints
                       "but tracing inferred a static shape")
#: the message says a declared dim became a constant (not that two dims must be equal)
_PINNED_MARKERS = ("specialized it to be a constant", "but tracing inferred a static shape")


def is_constraint_violation(text: str) -> bool:
    return any(m in text for m in _CONSTRAINT_MARKERS)


@dataclass
class GuardRecord:
    expr: Any  # sympy boolean
    text: str
    frames: list[tuple[str, int]]  # user frames, outermost first
    violated: bool
    #: the guard as torch prints it in a ConstraintViolationError (sizes by source name), normalised
    printed: str = ""


class GuardRecorder:
    """Records every guard the shape environment adds, with the user frames that added it.

    Non-strict export runs the user's code, so the Python stack holds the user frame; strict
    export (dynamo) keeps the user's stack in ``TracingContext.extract_stack()``. A guard is
    *violated* when it is false for another value of a dynamic dimension inside its declared
    range (``var_to_range``): those are the guards a ConstraintViolationError reports.
    """

    def __init__(self, users: UserFiles):
        self.users = users
        self.records: list[GuardRecord] = []

    def __enter__(self) -> "GuardRecorder":
        from torch.fx.experimental.symbolic_shapes import ShapeEnv

        self._cls = ShapeEnv
        self._orig = ShapeEnv._log_guard
        rec = self

        def _log_guard(env, prefix, g, forcing_spec):  # type: ignore[no-untyped-def]
            try:
                rec._record(env, g)  # suppressed guards too: they show where the value was first tested
            except Exception:  # noqa: BLE001 - never break the export we observe
                pass
            return rec._orig(env, prefix, g, forcing_spec)

        ShapeEnv._log_guard = _log_guard  # type: ignore[method-assign]
        return self

    def __exit__(self, *a: Any) -> None:
        self._cls._log_guard = self._orig  # type: ignore[method-assign]

    def _record(self, env: Any, g: Any) -> None:
        frames: list[tuple[str, int]] = []
        f = sys._getframe(2)
        while f is not None:
            p = self.users.resolve(f.f_code.co_filename)
            if p:
                frames.append((p, f.f_lineno))
            f = f.f_back
        frames.reverse()
        if not frames:
            try:
                from torch._guards import TracingContext

                for fs in TracingContext.extract_stack() or ():
                    p = self.users.resolve(fs.filename)
                    if p and fs.lineno:
                        frames.append((p, int(fs.lineno)))
            except Exception:  # noqa: BLE001
                pass
        if not frames:
            # retracing a program (run_decompositions): the node being retraced is the current
            # meta, and its stack_trace names the user line the guard comes from
            try:
                from torch.fx.traceback import get_current_meta

                frames = frames_from_text((get_current_meta() or {}).get("stack_trace") or "", self.users)
            except Exception:  # noqa: BLE001
                pass
        printed = str(g)
        try:
            names = {str(v): k for k, v in env.source_to_var.items()}
            for sym in sorted(names, key=len, reverse=True):
                printed = re.sub(r"\b" + re.escape(sym) + r"\b", names[sym], printed)
        except Exception:  # noqa: BLE001
            pass
        self.records.append(GuardRecord(g, str(g), frames, _violated(env, g), _norm_guard(printed)))

    def location(self, message: str = "") -> Optional[Location]:
        """The user line that added the first guard the error names (or, failing that, the first
        guard false for another value in the declared range), refined to the producer of a
        round/int-division/min/max value the guard is about."""
        named = {_norm_guard(m) for m in re.findall(r"satisfy the generated guard (.+?)\.?\s*$", message, re.M)}
        shapes = {_guard_shape(n) for n in named}
        picks = [r for r in self.records if r.frames and r.printed and r.printed in named]
        picks += [r for r in self.records if r.frames and r.violated]
        # strict mode names sources its own way: compare the guards' form with sizes blanked out
        picks += [r for r in self.records if r.frames and _guard_shape(_norm_guard(r.text)) in shapes]
        if any(m in message for m in _PINNED_MARKERS):
            # a dim pinned to a constant: a guard on one size symbol pins it; a relation
            # between two sizes (``x * mask`` makes them equal) only unifies them
            picks = [r for r in picks if _symbols(r.expr) == 1] + [r for r in picks if _symbols(r.expr) != 1]
        for r in picks:
            stack = dedupe_innermost_first(r.frames)
            best = stack[0]
            how = "guard-provenance"
            prod = _producer_line(best[0], best[1], r.text)
            if prod is not None:
                best = (best[0], prod)
                stack = _merge(best, stack)
                how = "guard-provenance (producer)"
            return Location(best[0], best[1], how, stack)
        return None


def _symbols(expr: Any) -> int:
    try:
        return len([s for s in expr.free_symbols if str(s).startswith("s")])
    except Exception:  # noqa: BLE001
        return 0


def _norm_guard(text: str) -> str:
    return re.sub(r"\s+", "", text).lower().rstrip(".")


_SOURCE_SIZE_RE = re.compile(r"l\[[^\]]*\](?:\[\d+\]|\.\w+)*\.size\(\)\[\d+\]")
_SYMBOL_RE = re.compile(r"\bs\d+\b")


def _guard_shape(normed: str) -> str:
    return _SYMBOL_RE.sub("?", _SOURCE_SIZE_RE.sub("?", normed))


def _violated(env: Any, g: Any) -> bool:
    """True if ``g`` is false for some other value of one of its size symbols in its range."""
    import sympy

    syms = [s for s in g.free_symbols if str(s).startswith("s")]
    if not syms:
        return False
    vals = getattr(env, "backed_var_to_val", None) or getattr(env, "var_to_val", {})
    hint = {s: vals.get(s) for s in syms}
    if any(v is None for v in hint.values()):
        return False
    for s in syms:
        vr = env.var_to_range.get(s)
        lo = _finite_int(vr.lower if vr is not None else None, 0)
        hi = _finite_int(vr.upper if vr is not None else None, 1 << 20)
        h = int(hint[s])
        for v in sorted({lo, lo + 1, h - 1, h + 1, h + 2, 2 * h + 1, min(hi, 4 * h + 3), hi}):
            if v == h or v < lo or v > hi:
                continue
            sub = {k: sympy.Integer(int(x)) for k, x in hint.items()}
            sub[s] = sympy.Integer(v)
            try:
                r = g.xreplace(sub)
            except Exception:  # noqa: BLE001
                continue
            if r is sympy.false:
                return True
    return False


def _finite_int(v: Any, default: int) -> int:
    """A range bound as an int; torch's ``int_oo`` (an unbounded Dim: ``Dim.DYNAMIC``,
    ``Dim("b")`` without ``max``) is not sympy-finite and ``int()`` of it raises."""
    try:
        if v is None or v.is_finite is not True:
            return default
        return int(v)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return default


def innermost_function(tree: Any, line: int) -> Any:
    """The innermost ``def`` of an ``ast`` tree whose lines contain ``line``, or None."""
    import ast

    func = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or 0):
            if func is None or node.lineno > func.lineno:
                func = node
    return func


def _producer_line(path: str, line: int, guard_text: str) -> Optional[int]:
    """If the guard is about a value made by round()/int(a / b)/min/max…, and the statement at
    ``line`` reads a name assigned earlier in the same function from such a call, that line."""
    if not any(f + "(" in guard_text for f in _PRODUCER_FUNCS):
        return None
    import ast

    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    func = innermost_function(tree, line)
    if func is None:
        return None
    stmt = None
    for node in ast.walk(func):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.lineno <= line <= (node.end_lineno or node.lineno):
            if stmt is None or node.lineno >= stmt.lineno:
                stmt = node
    if stmt is None or _makes_inexact_size(stmt):
        return None
    used = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    best = None
    for node in ast.walk(func):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.lineno < stmt.lineno:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if names & used and _makes_inexact_size(node):
                if best is None or node.lineno > best:
                    best = node.lineno
    return best


def _makes_inexact_size(node: Any) -> bool:
    import ast

    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            if name in ("round", "int", "float", "floor", "ceil", "sym_min", "sym_max", "min", "max", "sym_int",
                        "sym_float", "trunc"):
                return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Mod)):
            return True
    return False


def locate_by_guards(model: Any, args: tuple, kwargs: dict, dynamic_shapes: Any, users: UserFiles,
                     strict: bool = False, message: str = "",
                     cache: Optional[dict] = None) -> Optional[Location]:
    """Rule 3 (guard provenance): re-export recording guards and their user frames; the line
    that added the first guard a declared dynamic dimension cannot satisfy.

    ``cache``: as for ``locate_by_draft_export``; it may already hold the guards recorded while
    the exporter itself ran (``guard_cache_key``), and then nothing is re-exported."""
    import torch

    key = guard_cache_key(strict)
    rec = cache.get(key) if cache is not None else None
    if rec is None:
        with GuardRecorder(users) as rec:
            try:
                torch.export.export(model, args, kwargs or None, dynamic_shapes=dynamic_shapes, strict=strict)
            except Exception:  # noqa: BLE001 - the failure we are locating
                pass
        if cache is not None:
            cache[key] = rec
    return rec.location(message)


def guard_cache_key(strict: bool) -> tuple:
    """Where ``locate_by_guards`` keeps the guards of a torch.export run (strict or not)."""
    return ("guards", bool(strict))
