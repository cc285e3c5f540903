"""EXL2xx: work that leaves the graph (numpy/math on tensors, Python autograd.Functions,
mutation of Python state, non-torch libraries, side effects)."""

from __future__ import annotations

import re

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import applies_without_symbolic, declares_dynamic, snippet
from exportlint.checks.state_reset import reset_calls, resetting_method_call
from exportlint.checks.tensor_data import rewrites_weights
from exportlint.findings import Severity
from exportlint.semantics.kinds import CONST, DATA, MODULE, NONE, SHAPE, TENSOR, TENSORISH
from exportlint.semantics.model import MISSING, iter_nodes, literal_value, names_in

#: math's rounding functions: on a value read with `.item()` torch.export rounds it symbolically
_SYM_ROUNDING = frozenset({"math.ceil", "math.floor", "math.trunc"})
_PY_NUMERIC = ("numpy.", "math.", "random.", "statistics.", "cmath.")
_FOREIGN = ("scipy.", "cv2.", "PIL.", "sklearn.", "skimage.", "pandas.", "numba.", "imageio.", "open3d.", "shapely.")
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
_LOGGER_NAMES = frozenset({"logger", "log", "logging", "LOGGER", "_logger", "_LOGGER", "LOG", "_log"})
_TIME_FUNCS = frozenset({"time.time", "time.perf_counter", "time.monotonic", "time.process_time", "time.time_ns",
                         "time.perf_counter_ns", "datetime.datetime.now"})


_UNSET = object()


@register
class PythonNumericLib(Rule):
    code = "EXL201"
    name = "python-numeric-lib"
    severity = Severity.ERROR
    summary = "numpy / math / random on tensor values, or .numpy(), inside forward."

    def check(self, ctx):
        mode: object = _UNSET
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                if q.startswith("numpy.") and not any(k in TENSORISH or k == DATA for k in call.arg_kinds) and any(
                        k == SHAPE for k in call.arg_kinds):
                    if mode is _UNSET:
                        mode = declares_dynamic(ctx)
                    dyn = mode is not False
                    if not numpy_size_fails_static(fn, call.node):
                        # measured (torch 2.13, static shapes): strict and non-strict export and match
                        # for numpy over sizes used in arithmetic or as a size (`int(np.round(h / s))`
                        # in reshape, `torch.reshape(x, [b, np.prod(dims), -1])`); with a dynamic
                        # dimension non-strict fails ('loop of ufunc does not support argument 0 of
                        # type SymFloat') and the legacy tracer bakes the number: a hazard of
                        # dynamic shapes, reported as EXL111 is (a warning when unknown)
                        if mode is False:
                            continue
                        if q in ("numpy.array", "numpy.asarray"):
                            # measured (bench/labels/probes_zoo16/probe_numpy_size_list.jsonl): an array built
                            # from a list holding a dynamic size specialises it in strict export too
                            # ('Constraints violated ... specialized it to be a constant'), onnx-dynamo
                            # exports it static and the legacy tracer bakes it (bigbird's plan list)
                            ctx.report(
                                call.node,
                                f"`{q}` on tensor sizes (`{snippet(ctx, call.node)}`): with a dynamic dimension "
                                "torch.export specialises the size (strict and non-strict: 'Constraints "
                                "violated ... specialized it to be a constant'), onnx-dynamo exports it static "
                                "and the legacy tracer bakes the number (static shapes export). Keep sizes in "
                                "Python lists and arithmetic (`[n // k for n in sizes]`).",
                                exporters=("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"),
                                severity=None if mode else Severity.WARNING,
                            )
                            continue
                        ctx.report(
                            call.node,
                            f"`{q}` on tensor sizes (`{snippet(ctx, call.node)}`): with a dynamic dimension "
                            "torch.export non-strict fails ('loop of ufunc does not support argument 0 of type "
                            "SymInt/SymFloat') and the legacy tracer bakes the number (static shapes export). "
                            "Use Python arithmetic (`math.prod(x.shape[1:])`, `round(h / s)`) or `x.flatten(1)`.",
                            exporters=("export-nonstrict", "onnx-legacy"),
                            severity=None if mode else Severity.WARNING,
                        )
                        continue
                    why = (": it traces numpy arrays as tensors, so an element of one is a data-dependent size "
                           "('Could not guard on data-dependent expression Eq(u0, 1)')"
                           if _numpy_factory_of_numpy_size(fn, call.node) else
                           "('Pending unbacked symbols ... not in returned outputs')")
                    ctx.report(
                        call.node,
                        f"`{q}` on tensor sizes (`{snippet(ctx, call.node)}`): torch.export strict fails on numpy "
                        f"over sizes even with static shapes {why}"
                        + ("; with a dynamic dimension non-strict fails too ('loop of ufunc does not support "
                           "argument 0 of type SymInt') and the legacy tracer bakes the number" if dyn else "")
                        + ". Use Python arithmetic (`math.prod(x.shape[1:])`) or `x.flatten(1)`.",
                        exporters=("export-strict", "export-nonstrict", "onnx-legacy") if dyn else ("export-strict",),
                    )
                    continue
                if q.startswith(_PY_NUMERIC) and any(
                    isinstance(a.value, cst.Call) and isinstance(a.value.func, cst.Attribute)
                    and a.value.func.attr.value == "numpy"
                    for a in call.node.args
                ):
                    continue  # reported once, at the `.numpy()` inside
                if call.receiver_kind in TENSORISH and call.method == "numpy":
                    # measured (torch 2.13): strict torch.export traces numpy (torch._numpy), so
                    # `torch.from_numpy(x.numpy() * 2)` and `x.numpy().shape` export and match, and
                    # onnx-dynamo falls back to strict; non-strict fails ('.numpy() is not supported
                    # for tensor subclasses') and the legacy tracer records a constant
                    ctx.report(
                        call.node,
                        f"`.numpy()` in forward (`{snippet(ctx, call.node)}`): the value leaves the graph. Non-strict "
                        "torch.export fails ('.numpy() is not supported for tensor subclasses'); ONNX tracing records "
                        "a constant (strict torch.export and onnx-dynamo trace numpy). Use the torch equivalent and "
                        "keep a tensor.",
                        exporters=("export-nonstrict", "onnx-legacy"),
                    )
                elif q.startswith(_PY_NUMERIC) and any(k in TENSORISH or k == DATA for k in call.arg_kinds):
                    lib = q.split(".", 1)[0]
                    if q in _SYM_ROUNDING and not any(k in TENSORISH for k in call.arg_kinds):
                        # measured (torch 2.13, bench/labels/probes_cases16, pkg_item_ceil_tensor from
                        # pytorch#113778): `math.ceil(s.item())` (floor, trunc; also of `s.item() / 4`,
                        # multiplied into a tensor or in `torch.tensor([...])`) exports and matches
                        # at other values with strict, non-strict and onnx-dynamo (the value stays a
                        # symbolic float, rounded symbolically); the legacy tracer bakes the number
                        ctx.report(
                            call.node,
                            f"`{q}` of a value read from tensor data (`{snippet(ctx, call.node)}`): the legacy "
                            "ONNX tracer records the number as a constant (wrong for other inputs); torch.export "
                            "and onnx-dynamo keep it symbolic. Keep it a tensor: "
                            f"`torch.{q.rsplit('.', 1)[-1]}(t)`.",
                            exporters=("onnx-legacy",),
                        )
                        continue
                    ctx.report(
                        call.node,
                        f"`{q}` called on a tensor-derived value (`{snippet(ctx, call.node)}`): {lib} runs in Python "
                        "at export time, so the result is a constant in the graph (or the export fails). Use the "
                        f"torch equivalent (e.g. `torch.{q.rsplit('.', 1)[-1]}`) on tensors.",
                    )
        return ()


@register
class AutogradFunctionWithoutSymbolic(Rule):
    code = "EXL202"
    name = "autograd-function-without-symbolic"
    severity = Severity.ERROR
    summary = "A torch.autograd.Function whose forward leaves torch is applied without `symbolic`."

    def check(self, ctx):
        for _fn, call, c in applies_without_symbolic(ctx):
            fwd = c.find_method("forward")
            facts = ctx.model.facts_for(fwd[1]) if fwd else None
            if facts is None or not _leaves_torch(facts):
                continue  # a pure-torch forward is traced through by every exporter (measured)
            ctx.report(
                call.node,
                f"`{c.name}` is a torch.autograd.Function whose forward leaves torch (numpy, Python numbers, "
                "other libraries) and has no `symbolic`: exporters trace into forward and fail or record "
                "constants. Rewrite forward with torch ops, or make it a custom op (`torch.library.custom_op`) "
                "with a fake kernel and an ONNX translation.",
            )
        return ()


def _sizes_only(e) -> bool:
    """``e`` is arithmetic of number literals and size reads of a name (``x.shape[1]``,
    ``x.size(1)``, ``x.ndim``, ``x.dim()``, ``x.numel()``, ``len(x)``): a Python number from
    sizes whatever ``x``'s kind (an autograd.Function's forward takes its tensors as unknown)."""
    if isinstance(e, (cst.Integer, cst.Float)):
        return True
    if isinstance(e, cst.BinaryOperation):
        return _sizes_only(e.left) and _sizes_only(e.right)
    if isinstance(e, cst.UnaryOperation):
        return _sizes_only(e.expression)
    if isinstance(e, cst.Subscript):
        v = e.value
        return (isinstance(v, cst.Attribute) and v.attr.value == "shape" and isinstance(v.value, cst.Name)
                and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index)
                and isinstance(e.slice[0].slice.value, (cst.Integer, cst.UnaryOperation)))
    if isinstance(e, cst.Attribute):
        return e.attr.value == "ndim" and isinstance(e.value, cst.Name)
    if isinstance(e, cst.Call):
        f = e.func
        if isinstance(f, cst.Attribute) and f.attr.value in ("size", "dim", "numel") and isinstance(f.value, cst.Name):
            return all(isinstance(a.value, (cst.Integer, cst.UnaryOperation)) for a in e.args)
        return isinstance(f, cst.Name) and f.value == "len" and len(e.args) == 1 and isinstance(e.args[0].value, cst.Name)
    return False


def _leaves_torch(facts) -> bool:
    for call in facts.calls:
        q = call.qualname or ""
        if q.startswith("math.") and call.node.args and all(
                k in (SHAPE, CONST) or _sizes_only(a.value) for a, k in zip(call.node.args, call.arg_kinds)):
            # `math.sqrt(2.0 / (x.shape[1] * x.shape[2] * x.shape[3])) * x.sign()` (pytorchcv's
            # 1-bit `Binarize`): Python arithmetic on sizes, a number every exporter folds or keeps
            # symbolic; all four pass and match (probes_prec14/o2 c17)
            continue
        if q.startswith(_PY_NUMERIC + _FOREIGN):
            return True
        if call.receiver_kind in TENSORISH and call.method in ("numpy", "item", "tolist"):
            return True
    return False


@register
class ForwardMutatesPythonState(Rule):
    code = "EXL203"
    name = "forward-mutates-python-state"
    severity = Severity.ERROR
    summary = "forward writes a Python attribute or global (counter, cache, list)."

    def check(self, ctx):
        # state matters when export-path code reads it before writing it (a value carried from
        # one call to the next); bookkeeping that forward never reads back is baked harmlessly
        carried = _carried_attrs(ctx.model.functions)
        self_fed = None  # (computed for the first carried write only: most files have none)
        one_shot = (_weight_rewriters(ctx.model) if ".data" in ctx.text or _DEL_ATTR.search(ctx.text)
                    else set())
        for fn in ctx.model.functions:
            # a weight rewrite (peft's merge/unmerge: `weight.data = ...`, then
            # `self.merged_adapters.append(name)`, `self._base_weight_before_merge = None`): its
            # Python bookkeeping goes with the `.data` rewrite, which EXL213 reports there: one
            # finding, at the line the exporters fail on (P-DATASTATE). A tensor or a module
            # written to state (`self.bias = nn.Embedding(...)`) stays reported.
            rewriter = id(fn.node) in one_shot
            for w in fn.state_writes:
                if rewriter and _bookkeeping_write(fn, w.node):
                    continue
                if w.target.startswith("self.") and w.target[5:] not in carried:
                    continue
                if w.target.startswith("self."):
                    if self_fed is None:
                        self_fed = _self_fed_attrs(ctx.model.functions)
                    if w.target[5:] in self_fed:
                        continue  # `self.calls += 1`, `self.t = self.t + dt`: read only to feed itself
                if w.cached:
                    continue  # `if self._cache is None: self._cache = ...`: filled once, exports (measured)
                if w.in_handler:
                    continue  # `except RuntimeError: self.chunk = n // 2`: runs only when the body raised
                if w.target.startswith("self.") and _helper_cache_fill(ctx.model.functions, fn, w.target[5:]):
                    continue  # `if n > self.table.size(0): self._grow(n)`: the helper refills a cache
                if w.target.startswith("self.") and _latch_write(ctx.model.functions, fn, w):
                    continue  # `if self.mode == "a" and ...: self.set_mode("b")`: moves once, never back
                if w.target.startswith("self.") and _is_buffer(fn, w.target[5:].split("[", 1)[0]):
                    continue  # a registered buffer: torch.export records the update (measured)
                node = w.node
                if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                    tgt = node.targets[0].target if isinstance(node, cst.Assign) else node.target
                else:
                    tgt = node
                ctx.report(
                    tgt,
                    f"forward writes Python state (`{w.target}`): export runs forward once, so the write happens "
                    "at export time only and is not part of the graph: the exported model keeps the value the "
                    "state had at export time (no exporter warns for a plain attribute; a buffer created or a "
                    "submodule re-bound in forward fails export-strict; measured, torch 2.13). Return the value "
                    "instead, or keep state in a registered buffer updated in place.",
                )
            resets = None  # (read only for a `.clear()` / `.pop()` call: most functions have none)
            for call in fn.calls:
                # self.cache.append(x), self.items.update(...), GLOBAL_LIST.append(x)
                if call.method in ("append", "extend", "insert", "update", "pop", "clear", "setdefault", "add") and isinstance(
                    call.node.func, cst.Attribute
                ):
                    if call.method in ("clear", "pop") and resets is None:
                        resets = reset_calls(fn)  # (only such calls are in it)
                    if resets is not None and id(call.node) in resets:
                        continue  # `.clear()`, a `while self.l: self.l.pop()` drain: empty whatever it held
                    base = call.node.func.value
                    if (
                        fn.self_name
                        and isinstance(base, cst.Attribute)
                        and isinstance(base.value, cst.Name)
                        and base.value.value == fn.self_name
                    ):
                        attr = fn.cls.find_attr(base.attr.value) if fn.cls else None
                        if attr is not None and attr.what in ("submodule", "parameter", "buffer", "tensor"):
                            continue
                        if base.attr.value not in carried:
                            continue
                        if resetting_method_call(ctx.model, attr, call.method, fn.cls, base.attr.value):
                            continue  # `self.save_output.clear(dev)`: a method that only empties (U-SCRATCH)
                        if rewriter and not any(fn.kind(a.value) in (TENSOR, MODULE) for a in call.node.args):
                            continue  # `self.merged_adapters.append(name)` beside a `.data` rewrite
                        if call.method in ("update", "setdefault") and fn._under_unset_test(
                                base.attr.value, call.conds):
                            continue  # a keyed cache filled only for the keys it lacks (P-KEYCACHE)
                        ctx.report(
                            call.node,
                            f"forward mutates `self.{base.attr.value}` (`.{call.method}(...)`): the change happens "
                            "once at export time and is not in the graph. Keep per-call values local and return them.",
                        )
        return ()


#: `del a.b` (a parameter of another object deleted: tensor_data.unseen_weight_rewrite)
_DEL_ATTR = re.compile(r"\bdel\s+[A-Za-z_][\w.]*\.\w+")


def _bookkeeping_write(fn, node) -> bool:
    """A write of a value that is neither a tensor nor a module (`self.x = None`, a flag, a name)."""
    value = node.value if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) else None
    return value is not None and fn.kind(value) not in (TENSOR, MODULE)


def _weight_rewriters(model) -> set[int]:
    """ids of the export-path functions that rewrite a weight in place (a `.data` rewrite EXL213
    reports, or one of an object of unknown kind: `w.data.copy_(...)`, `del layer.w` then re-bound;
    tensor_data.rewrites_weights), or that an export-path caller in the file doing so calls: peft's
    `unmerge()` that writes `weight.data` and re-runs `merge()`."""
    reported = {id(f.node) for f in model.functions if rewrites_weights(f)}
    if not reported:
        return reported
    out = set(reported)
    for f in model.functions:
        if id(f.node) in reported:
            for callee, _ in getattr(f, "callee_sites", ()):
                out.add(id(callee))
    return out


def numpy_size_fails_static(fn, node: cst.Call) -> bool:
    """Whether numpy over sizes fails strict torch.export even with static shapes (measured,
    torch 2.13): its value reaches a branch test (`if np.prod(f.shape) % n != 0:`, also through
    `int(...)`: 'Data-dependent branching' / 'Could not guard on data-dependent expression'), or
    it is passed unconverted as an explicit size of `reshape`/`view` with no `-1`
    (`x.reshape(x.shape[0], np.prod(x.shape[1:]))`: 'Pending unbacked symbols'). Used in
    arithmetic, through `int()`, or as a size next to a `-1`, it exports."""
    if _numpy_factory_of_numpy_size(fn, node):
        return True
    direct: set[str] = set()
    names: set[str] = set()
    for st in iter_nodes(fn.node.body):
        if isinstance(st, cst.Assign) and len(st.targets) == 1 and isinstance(st.targets[0].target, cst.Name):
            if st.value is node:
                direct.add(st.targets[0].target.value)
            elif any(n is node for n in iter_nodes(st.value)):
                names.add(st.targets[0].target.value)
    names |= direct
    for br in fn.branches:
        if any(n is node for n in iter_nodes(br.node)) or (names and names_in(br.node) & names):
            return True
    for c in fn.calls:
        f = c.node.func
        if not (isinstance(f, cst.Attribute) and f.attr.value in ("reshape", "view")):
            continue
        args = [a.value for a in c.node.args if a.keyword is None]
        if c.qualname == "torch.reshape":
            args = args[1:]
        if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)):
            args = [e.value for e in args[0].elements]
        if any(literal_value(a) == -1 for a in args):
            continue
        if any(a is node or (isinstance(a, cst.Name) and a.value in direct) for a in args):
            return True
    return False


#: numpy functions whose positional arguments are sizes (counts, shapes, bounds)
_NP_SIZED = frozenset({"numpy.arange", "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full",
                       "numpy.linspace", "numpy.eye", "numpy.tile", "numpy.repeat"})


def _numpy_factory_of_numpy_size(fn, node: cst.Call) -> bool:
    """A numpy factory given an element of a numpy array computed in the function
    (``g = (np.array(x.shape[2:]) + 15) // 16; np.arange(g[0])``). Measured (torch 2.13,
    bench/labels/probes_cases16): strict torch.export traces numpy arrays as tensors, so the
    element is a 0-d tensor and the size is data-dependent ('Could not guard on data-dependent
    expression Eq(u0, 1)'), with static shapes too; a Python int size (``np.zeros((x.shape[2],
    2))``, ``np.arange(x.shape[2])``) exports."""
    q = fn.imports.resolve(node.func) or ""
    if q not in _NP_SIZED:
        return False
    binds: dict = {}
    counts: dict = {}
    for st in iter_nodes(fn.node.body):
        if isinstance(st, cst.Assign):
            for t in st.targets:
                if isinstance(t.target, cst.Name):
                    counts[t.target.value] = counts.get(t.target.value, 0) + 1
                    binds[t.target.value] = st.value
        elif isinstance(st, (cst.AugAssign, cst.For)) and isinstance(getattr(st, "target", None), cst.Name):
            counts[st.target.value] = counts.get(st.target.value, 0) + 2

    def numpy_valued(e, depth: int = 0) -> bool:
        if depth > 6:
            return False
        if isinstance(e, cst.Call):
            return (fn.imports.resolve(e.func) or "").startswith("numpy.")
        if isinstance(e, cst.BinaryOperation):
            return numpy_valued(e.left, depth + 1) or numpy_valued(e.right, depth + 1)
        if isinstance(e, cst.Name) and counts.get(e.value) == 1:
            return numpy_valued(binds[e.value], depth + 1)
        return False

    for a in node.args:
        if a.keyword is not None or a.star:
            continue
        v = a.value
        if isinstance(v, cst.Subscript) and numpy_valued(v.value):
            return True
    return False


def _self_callee(fns_by_node: dict, fn, method: str):
    if fn.cls is None:
        return None
    r = fn.cls.find_method(method)
    return fns_by_node.get(id(r[1])) if r is not None else None


def _self_fed_attrs(functions) -> set[str]:
    """Attributes of ``self`` that export-path code reads only to feed the attribute itself or a
    write-only record (R-SELFFED): the target of its own augmented assignment (``self.calls += 1``),
    an operand of the value assigned back to it (``self.seen = self.seen + dt``), or the whole value
    stored into an item of another attribute that is only ever item-assigned
    (``self.metadata["t"] = self.t``; torchscale's all-to-all timing counter). No value of the graph
    depends on such state: all four exporters pass and match, fresh and warmed (probe r2 c1; the
    counter read into the output, c1c, is carried state: legacy does not match). Only state every
    write of which is a known Python number (or None): not a tensor total (`self.v_acc += spike`),
    whose in-place update of the constant fails onnx-dynamo once warmed (r2 c2w), nor a value of
    unknown kind.
    Keyed by name over every class of the file (a read in any class keeps the name out)."""
    bad: set[str] = set()
    valued: set[str] = set()  # written with a value that is not known to be a Python number
    flows: dict[str, set[str]] = {}  # attribute -> the records it is stored into
    seen: set[str] = set()
    for f in functions:
        me = f.self_name
        if me is None:
            continue
        ok: set[int] = set()  # self.<attr> nodes that are stores, record bases or self-feeding reads
        for a, k in f.attr_write_kinds.items():
            if k not in (CONST, SHAPE, DATA, NONE):
                # a Python number only: a tensor total (`self.v_acc += spike`) fails onnx-dynamo
                # warmed (the in-place update of the constant, r2 c2w); an unknown value may be one
                # (a record it is stored into may hold anything)
                valued.add(a)

        def is_self(n, me=me) -> bool:
            return type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == me

        def training_arm(test, me=me) -> bool:
            # `if self.training:` / `if self.training and ...:`: an arm an eval-mode export never runs
            if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
                return training_arm(test.left) or training_arm(test.right)
            return is_self(test) and test.attr.value == "training"

        for n in f.nodes():
            if type(n) is cst.If and training_arm(n.test):
                # a read only a training-mode call makes (ptlflow CRAFT's `if self.training: if
                # self.call_count % self.attn_diag_cycles == 0: print0(...)`, T-TRAINREAD): no
                # value of an eval-mode export depends on it (a training-mode export is EXL501's)
                ok.update(id(x) for x in iter_nodes(n.body) if is_self(x))
        for n in f.nodes():
            t = type(n)
            if t is cst.AugAssign and is_self(n.target):
                ok.add(id(n.target))
            elif t is cst.Assign:
                for tg in n.targets:
                    x = tg.target
                    if is_self(x):
                        ok.add(id(x))
                        if len(n.targets) == 1 and type(n.value) is cst.BinaryOperation:
                            for side in (n.value.left, n.value.right):
                                if is_self(side) and side.attr.value == x.attr.value:
                                    ok.add(id(side))
                    elif type(x) is cst.Tuple or type(x) is cst.List:
                        ok.update(id(el.value) for el in x.elements if is_self(el.value))  # stores
                    elif type(x) is cst.Subscript and is_self(x.value):
                        ok.add(id(x.value))
                        if len(n.targets) == 1 and is_self(n.value):
                            ok.add(id(n.value))
                            flows.setdefault(n.value.attr.value, set()).add(x.value.attr.value)
            elif t is cst.Attribute and is_self(n):
                seen.add(n.attr.value)
                if id(n) not in ok:
                    bad.add(n.attr.value)
    return {a for a in seen if a not in bad and a not in valued and not (flows.get(a, set()) & bad)}


def _carried_attrs(functions) -> set[str]:
    """Attributes some export entry reads before it writes them, with the reads and writes of the
    methods it calls on `self` taken in call order (`self.set_mode("text")` then `if self.mode ==`:
    written before read, not carried). Functions no entry of their class expands are read alone."""
    by_node = {id(f.node): f for f in functions}
    # helpers: methods some other function of the file calls on `self` (read in their caller's order)
    expanded: set[int] = set()
    for f in functions:
        for attr, ev in f.attr_events:
            if ev == "call":
                g = _self_callee(by_node, f, attr)
                if g is not None and g is not f:
                    expanded.add(id(g.node))

    def events(f, seen: frozenset, prefix: tuple):
        paths = f.attr_event_paths if len(f.attr_event_paths) == len(f.attr_events) else [()] * len(f.attr_events)
        for (attr, ev), path in zip(f.attr_events, paths):
            if ev == "call":
                g = _self_callee(by_node, f, attr)
                if g is not None and id(g.node) not in seen:
                    yield from events(g, seen | {id(g.node)}, prefix + path)
                continue
            yield attr, ev, prefix + path

    mode_ifs: dict[int, bool] = {}

    def mode_if(i: int) -> bool:
        if not mode_ifs:
            for g in functions:
                params = _param_names(g.node)
                for n in g.nodes():
                    if type(n) is cst.If:
                        mode_ifs[id(n)] = _mode_test(n.test, params)
        return mode_ifs.get(i, False)

    def first_reads(f) -> set[str]:
        # a read is carried unless an earlier write can have run in the same call: a write in
        # another arm of an `if` the read sits in (`if fresh: self.x = ...` / `elif ...: use
        # self.x`) cannot, it was made by an earlier call
        writes: dict[str, list[dict]] = {}
        out: set[str] = set()
        evs = list(events(f, frozenset({id(f.node)}), ()))
        unmet: dict[str, list[dict]] = {}
        for attr, ev, path in evs:
            if ev == "read":
                arms = dict(path)
                if not any(all(arms.get(i, a) == a for i, a in w.items()) for w in writes.get(attr, ())):
                    out.add(attr)
                    unmet.setdefault(attr, []).append(arms)
            else:
                writes.setdefault(attr, []).append(dict(path))
        for attr in list(out):
            # P-MODESTATE: `forward(self, x, mode)` writing `self.mean` under `if mode == "norm":`
            # and reading it under `elif mode == "denorm":` (RevIN): the state is handed from one
            # mode's call to the other's, which the parent module makes in one forward (measured
            # g1d: all four exporters pass and match); carried only if a read that no earlier
            # write of the same call meets has no such write
            w_paths = [dict(p) for a, e, p in evs if a == attr and e != "read"]
            if w_paths and all(any(_diverge_at_mode(r, w, mode_if) for w in w_paths) for r in unmet[attr]):
                out.discard(attr)
        return out

    carried: set[str] = set()
    for f in functions:
        if id(f.node) not in expanded:
            carried |= first_reads(f)
    return carried


def _param_names(fn: cst.FunctionDef) -> set[str]:
    ps = list(fn.params.posonly_params) + list(fn.params.params) + list(fn.params.kwonly_params)
    return {p.name.value for p in ps[1:]} if ps else set()


def _str_literals(e) -> bool:
    if isinstance(e, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(e, (cst.Tuple, cst.List, cst.Set)):
        return bool(e.elements) and all(isinstance(x.value, cst.SimpleString) for x in e.elements)
    return False


def _mode_test(t, params: set[str]) -> bool:
    """`mode == "norm"` / `mode in ("a", "b")` / `"norm" == mode` on a parameter of the function:
    the caller picks the arm with a string, per call."""
    if not (isinstance(t, cst.Comparison) and len(t.comparisons) == 1):
        return False
    op = t.comparisons[0].operator
    if not isinstance(op, (cst.Equal, cst.NotEqual, cst.In, cst.NotIn)):
        return False
    a, b = t.left, t.comparisons[0].comparator
    return ((isinstance(a, cst.Name) and a.value in params and _str_literals(b))
            or (isinstance(b, cst.Name) and b.value in params and _str_literals(a)))


def _diverge_at_mode(r: dict, w: dict, mode_if) -> bool:
    """The read's and the write's paths take different arms of one `if` on a mode string."""
    return any(i in w and w[i] != a and mode_if(i) for i, a in r.items())


def _helper_cache_fill(functions, fn, attr: str) -> bool:
    """`fn` (a method) writes self.<attr>, and every export-path call of it on `self` sits under a
    test that refills a cache of that attribute (`if self.<attr> is None`, `if n > self.<attr>.size(0)`)."""
    if fn.cls is None:
        return False
    name = fn.node.name.value
    sites = []
    for g in functions:
        if g.cls is None:
            continue
        for c in g.calls:
            if c.receiver_kind == "self" and c.method == name:
                r = g.cls.find_method(name)
                if r is not None and r[1] is fn.node:
                    sites.append((g, c))
    if not sites:
        return False
    if all(g._under_unset_test(attr, c.conds) for g, c in sites):
        return True
    # `if seq_len > self.max_seq_len_cached: self._set_cos_sin_cache(seq_len)`: the attribute is
    # the length of a tensor cache the helper rebuilds (registers a buffer / stores a tensor), and
    # every call grows it only when this call needs more: a cache grown on demand, as for
    # `n > self.table.size(0)` (a running maximum with no tensor rebuilt stays reported)
    return _rebuilds_tensor_cache(fn) and all(_grows_on_demand(g, attr, c.conds) for g, c in sites)


def _latch_write(functions, fn, w) -> bool:
    """A one-way latch (hf BigBirdPegasus: ``if self.attention_type == "block_sparse" and seq <= k:
    self.set_attention_type("original_full")``): ``fn`` is a method whose write is
    ``self.<attr> = <parameter>``, every call of it on ``self`` passes that parameter one and the
    same literal ``B`` and sits under an ``if`` whose test is (or ``and``-s) ``self.<attr> == A``
    with a literal ``A`` other than ``B``, and no other write of the attribute is on the export
    path. The state then moves from ``A`` to ``B`` at most once and never back: measured
    (bench/labels/probes_zoo19/probe_latch_state.py), all four exporters pass and match eager
    whether the latch fires during export or not; a toggling write stays reported (the legacy
    exporter's model then differs from eager's next call). What the size in the test decides is
    EXL111's finding at the ``if``."""
    node = w.node
    if fn.cls is None or w.how != "assign" or not isinstance(node, cst.Assign) or len(node.targets) != 1:
        return False
    attr = w.target[5:]
    value = node.value
    params = [p.name.value for p in fn.node.params.posonly_params + fn.node.params.params][1:]
    if not (isinstance(value, cst.Name) and value.value in params) or fn.node.params.star_arg not in (None,
                                                                                                     cst.MaybeSentinel.DEFAULT):
        return False
    idx = params.index(value.value)
    for g in functions:  # the only write of the attribute on the export path is this one
        for x in g.state_writes:
            if x.target == w.target and x.node is not node:
                return False
    name = fn.node.name.value
    written: set = set()
    sites = 0
    for g in functions:
        if g.cls is None:
            continue
        for c in g.calls:
            if not (c.receiver_kind == "self" and c.method == name):
                continue
            r = g.cls.find_method(name)
            if r is None or r[1] is not fn.node:
                continue
            pos = [a for a in c.node.args if a.keyword is None]
            arg = next((a for a in c.node.args if a.keyword is not None and a.keyword.value == value.value), None)
            if arg is None:
                if any(a.star for a in pos) or idx >= len(pos):
                    return False
                arg = pos[idx]
            lit = literal_value(arg.value)
            if lit is MISSING or isinstance(lit, (list, dict, set)):
                return False
            written.add(lit)
            if len(written) != 1 or not any(_tests_other_value(g, attr, t, lit) for t in c.conds):
                return False
            sites += 1
    return sites > 0


def _tests_other_value(g, attr: str, t, written) -> bool:
    """``t`` is, or ``and``-s, ``self.<attr> == A`` (either side) with a literal ``A`` other than ``written``."""
    if isinstance(t, cst.BooleanOperation) and isinstance(t.operator, cst.And):
        return _tests_other_value(g, attr, t.left, written) or _tests_other_value(g, attr, t.right, written)
    if not (isinstance(t, cst.Comparison) and len(t.comparisons) == 1
            and isinstance(t.comparisons[0].operator, cst.Equal)):
        return False
    a, b = t.left, t.comparisons[0].comparator

    def is_attr(e) -> bool:
        return (isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == g.self_name
                and e.attr.value == attr)

    other = b if is_attr(a) else a if is_attr(b) else None
    if other is None:
        return False
    lit = literal_value(other)
    return lit is not MISSING and not isinstance(lit, (list, dict, set)) and lit != written


def _rebuilds_tensor_cache(fn) -> bool:
    for c in fn.calls:
        if c.receiver_kind == "self" and c.method == "register_buffer":
            return True
    return any(w.target.startswith("self.") and isinstance(w.node, cst.Assign)
               and fn.kind(w.node.value) in (TENSOR,) for w in fn.state_writes)


def _grows_on_demand(g, attr: str, conds) -> bool:
    """An enclosing test ``n > self.<attr>`` / ``self.<attr> < n`` (``>=`` / ``<=`` too)."""
    for t in conds or ():
        if not (isinstance(t, cst.Comparison) and len(t.comparisons) == 1):
            continue
        op, left, right = t.comparisons[0].operator, t.left, t.comparisons[0].comparator

        def is_attr(e) -> bool:
            return (isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == g.self_name
                    and e.attr.value == attr)

        if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)) and is_attr(right) and not is_attr(left):
            return True
        if isinstance(op, (cst.LessThan, cst.LessThanEqual)) and is_attr(left) and not is_attr(right):
            return True
    return False


def _is_buffer(fn, attr: str) -> bool:
    fact = fn.cls.find_attr(attr) if fn.cls is not None else None
    return fact is not None and fact.what in ("buffer", "parameter")


@register
class NonTorchLibrary(Rule):
    code = "EXL204"
    name = "non-torch-library-in-forward"
    severity = Severity.ERROR
    summary = "forward calls scipy / cv2 / PIL / sklearn (untraceable)."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                if q.startswith(_FOREIGN):
                    lib = q.split(".", 1)[0]
                    ctx.report(
                        call.node,
                        f"`{q}` in forward: {lib} works on NumPy/Python values outside the graph, so no exporter "
                        "can capture it (torch.export fails on the tensor→numpy conversion; tracing records a "
                        "constant). Reimplement it with torch ops, or do it before/after the model.",
                    )
        return ()


@register
class SideEffectInForward(Rule):
    code = "EXL205"
    name = "side-effect-in-forward"
    severity = Severity.WARNING
    exporters = ("export-strict",)
    summary = "print/logging of tensor values or wall-clock reads in forward."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                node = call.node
                if q in _TIME_FUNCS:
                    ctx.report(
                        node,
                        f"`{q}()` in forward runs once at export time; the exported graph has no clock. "
                        "Time the model from outside.",
                    )
                    continue
                is_print = call.method is None and q in ("print", "builtins.print")
                is_log = (
                    call.method in _LOG_METHODS
                    and isinstance(node.func, cst.Attribute)
                    and isinstance(node.func.value, cst.Name)
                    and node.func.value.value in _LOGGER_NAMES
                )
                if (is_print or is_log) and any(k in TENSORISH or k == DATA for k in call.arg_kinds):
                    ctx.report(
                        node,
                        f"`{snippet(ctx, node)}` prints tensor values in forward: exporters run it once at export "
                        "time (torch.export strict fails on it), and the exported graph never prints. Remove it "
                        "or guard it with `if not torch.compiler.is_exporting():`.",
                    )
        return ()
