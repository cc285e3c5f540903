"""Declared dynamic dims carried from an export entry into what it calls (issues 9 and 10).

The project's export calls (and ExportDB-style module declarations) say which dims of the
exported model's ``forward`` inputs are dynamic (``Project.export_facts``). Those dims do not stop
at ``forward``: a block the model builds (``self.up = Up(...)``; ``self.up(x, skip)``), a helper
it calls (``pixel_shuffle(self.conv(x), r)``), a method it inherits from a base class in another
file (``self.embed(x)``) all receive tensors whose dims are the declared ones, or sizes that are
(``window_reverse(win, ws, x.shape[1], x.shape[2])``). ``function_dims`` follows them, with the
stdlib ``ast`` over the project files the entries reach, and answers per function (absolute path
-> ``func`` / ``Class.method``) which of its names hold a tensor with which declared-dynamic dims,
or a size equal to one (``SIZE``). Rules then treat a finding on such a dim in a helper as they
do in the declared ``forward`` itself (checks/common.py ``function_dims``).

What carries a tensor's dims (precision first: anything else carries nothing):

- a name bound to an expression that does (every binding of it: the dims kept are those all
  bindings agree on, so ``x = x + blk(x)`` keeps x's, ``x = x.flatten(2)`` drops them);
- ops that keep the layout: arithmetic with a tensor (the union of the operands' dims), tensor
  methods and ``torch`` / ``F`` functions that keep the shape (``clone``, ``relu``, ``sigmoid``,
  ``contiguous``, ``to``...), submodules built from ``torch.nn`` layers that keep the dim indices
  (conv and transposed conv without the channel dim 1, norms, activations, pooling, dropout,
  ``Linear``, ``Embedding``);
- what a project function or a project module's ``forward`` returns, as computed for the dims
  it is handed (one summary per function and handed dims);
- ``torch.arange(n)`` of a size that is a declared dynamic dim: dim 0.

A size is declared dynamic when it reads such a dim (``x.shape[d]``, ``x.size(d)``, ``len(x)``
for dim 0, a name unpacked from ``x.shape``, ``int()`` / arithmetic of one), or is an item of a
tuple of sizes ``x.shape[a:]`` / ``x.size()[a:]`` (``a`` < 0 when the rank is known, kept through
layout-keeping ops and layers) handed to a function (``feat_h, feat_w = featmap_size``), or of a
list of such tuples (``[f.size()[-2:] for f in feats]`` over a list display of tensors with the
dims): handed as ``"sizes@<first>:<dims>"`` / ``"sizelist@<first>:<dims>"`` markers.

Calls followed: ``self.method(...)`` (through base classes in other files), ``self.sub(...)`` and
``item(...)`` for ``item`` iterating ``self.sub`` (the classes ``__init__`` builds there:
``built_classes``), ``self.obj.method(...)`` of a project object ``__init__`` builds there (a plain
helper class: mmdetection's ``self.anchor_generator.grid_anchors(...)``), and calls of project
functions through the file's imports. A function
reached from several calls gets the union of the dims (one export entry handing it a dynamic dim
is enough for that export to specialise it).
"""

from __future__ import annotations

import ast
import os
from typing import Any, Optional

from exportlint.semantics.index import ast_dotted

#: a Python int that equals (an expression of) a declared dynamic dim
SIZE = "size"
#: a tensor handed from a module's own ``nn.Parameter`` (its shape is fixed), and a size read of
#: one (or arithmetic of such sizes and constants): static whatever the export declares
STATIC = "static"
#: in ``function_dims``' answer per file: the functions reached from a declared entry at all
REACHED = "#reached"
#: a handed tuple of sizes (``x.shape[2:]``, ``x.size()[-2:]``): ``"sizes@<first dim>:<dynamic dims>"``,
#: its i-th item the size of dim first + i (a dynamic one when listed)
SIZES_PREFIX = "sizes@"
#: a handed list of such tuples (``[f.shape[2:] for f in feats]``): ``"sizelist@<first>:<dynamic>"``
SIZE_LIST_PREFIX = "sizelist@"

#: a tensor whose declared dims went through a strided convolution or pooling submodule (a floor
#: division of the size: ``(h - 1) // 2 + 1``), kept with its dims through what keeps them
#: (cases20: checks/crop_resampled.py, EXL148)
DOWN = "down"
#: ``torch.nn`` layers that floor-divide the spatial sizes when their stride is above 1
_STRIDED = frozenset({"Conv1d", "Conv2d", "Conv3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
                      "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d"})

#: analyses per run (a guard on very large projects)
_BUDGET = 3000

#: ``torch.nn`` layers whose output keeps the input's dim indices; conv-like ones change dim 1
_CONV_LIKE = frozenset({"Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
                        "LazyConv1d", "LazyConv2d", "LazyConv3d"})
_KEEP_LAYERS = frozenset({
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "GroupNorm", "LayerNorm", "RMSNorm", "LocalResponseNorm",
    "ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "LeakyReLU", "Hardswish", "Hardsigmoid", "Mish", "ELU",
    "SELU", "CELU", "PReLU", "Softplus", "Softmax", "LogSoftmax", "Hardtanh", "Identity",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "Linear", "Embedding",
}) | _CONV_LIKE
#: tensor methods / torch functions whose result has the shape of their tensor operands
_KEEP_CALLS = frozenset({
    "clone", "contiguous", "detach", "float", "half", "double", "bfloat16", "int", "long", "bool", "to",
    "type_as", "cpu", "cuda", "relu", "relu_", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "neg",
    "sin", "cos", "clamp", "clamp_", "clip", "pow", "mul", "add", "sub", "div", "mul_", "add_", "sub_", "div_",
    "masked_fill", "masked_fill_", "gelu", "silu", "leaky_relu", "hardswish", "mish", "elu", "softmax",
    "log_softmax", "dropout", "normalize", "layer_norm", "batch_norm", "group_norm", "instance_norm",
    "sign", "floor", "ceil", "round", "reciprocal", "erf", "logical_not", "zeros_like", "ones_like",
    "full_like", "empty_like", "rand_like", "randn_like", "where", "maximum", "minimum",
})
#: tensor methods whose result's dims ``_Body.layout`` computes from the literal dims they name
_LAYOUT = frozenset({"permute", "transpose", "swapaxes", "flatten", "unsqueeze", "view", "reshape"})
_SIZE_WRAPPERS = frozenset({"int", "round", "math.ceil", "math.floor", "math.trunc", "abs", "float"})


def function_dims(project: Any, entries: list) -> dict[str, dict[str, dict[str, set]]]:
    """Absolute path -> function qual -> name -> declared-dynamic dims (ints) and/or ``SIZE``,
    for the functions the declared entries reach; each file's map also holds ``REACHED``:
    ``{qual: set()}`` for every function reached at all. ``entries``: (FileIndex, class, forward
    parameter -> dims as ``export_facts`` gives them) of each declared model class."""
    flow = _Flow(project)
    for fi, cls, pdims in entries:
        t = project.find_method(fi, cls, "forward")
        if t is None:
            continue
        handed: dict[str, frozenset] = {}
        ranks: dict[str, int] = {}
        mult: set = set()
        for p, dims in pdims.items():
            if p.startswith("#"):
                continue
            for d in dims:
                if isinstance(d, str) and d.startswith("mult:") and d[5:].isdigit():
                    mult.add(int(d[5:]))
            ints = frozenset(d for d in dims if isinstance(d, int) and not isinstance(d, bool) and d >= 0)
            if ints:
                handed[p] = ints
            for d in dims:
                if isinstance(d, str) and d.startswith("rank:"):
                    try:
                        ranks[p] = int(d[5:])
                    except ValueError:
                        pass
        if handed:
            flow.analyse(t, handed, ranks, frozenset(mult))
    return flow.out


class _Flow:
    def __init__(self, project: Any) -> None:
        self.project = project
        self.out: dict[str, dict[str, dict[str, set]]] = {}
        self.memo: dict[tuple, Any] = {}
        self.trees: dict[str, Optional[ast.Module]] = {}
        self.budget = _BUDGET

    # ----- the functions' trees
    def node_of(self, t: Any) -> Optional[ast.AST]:
        path = os.path.abspath(t.path)
        if path not in self.trees:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    self.trees[path] = ast.parse(fh.read())
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                self.trees[path] = None
        tree = self.trees[path]
        if tree is None:
            return None
        parts = t.qual.split(".")
        body = tree.body
        node = None
        for i, part in enumerate(parts):
            node = None
            for n in body:
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part:
                    node = n  # (the last definition wins, as at run time)
            if node is None:
                return None
            body = node.body
        return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None

    # ----- one function, for the dims it is handed
    def analyse(self, t: Any, handed: dict[str, frozenset], ranks: dict[str, int], mult: frozenset = frozenset()) -> Any:
        """The dims of what ``t`` returns (a frozenset, or a tuple of them for a tuple), given
        the dims of its parameters; records them (``out``). ``mult``: the dim indices the entry
        declares multiples (``4 * Dim("b")``): not ``SIZE`` (a check by that factor holds), and
        recorded as ``"mult:d"`` beside the dims."""
        key = (t.path, t.qual, tuple(sorted(handed.items(), key=lambda kv: kv[0])),
               tuple(sorted(ranks.items())), mult)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = frozenset()  # (recursion: nothing known)
        if self.budget <= 0:
            return frozenset()
        self.budget -= 1
        fn = self.node_of(t)
        if fn is None:
            return frozenset()
        fi = self.project.index_path(t.path)
        if fi is None:
            return frozenset()
        body = _Body(self, t, fi, fn, handed, ranks, mult)
        ret = body.run()
        rec = self.out.setdefault(os.path.abspath(t.path), {})
        rec.setdefault(REACHED, {}).setdefault(t.qual, set())
        mine = rec.setdefault(t.qual, {})
        for name, dims in body.final().items():
            mine.setdefault(name, set()).update(dims)
        self.memo[key] = ret
        return ret


def _params(fn: ast.AST, is_method: bool) -> list[str]:
    a = fn.args
    ps = [p.arg for p in a.posonlyargs + a.args]
    return ps[1:] if is_method else ps


class _Body:
    def __init__(self, flow: _Flow, t: Any, fi: Any, fn: ast.AST, handed: dict, ranks: dict,
                 mult: frozenset = frozenset()) -> None:
        self.flow, self.t, self.fi, self.fn = flow, t, fi, fn
        self.mult = mult
        self.project = flow.project
        self.cls = t.qual.split(".")[0] if t.is_method else None
        a = fn.args
        allp = [p.arg for p in a.posonlyargs + a.args]
        self.self_name = allp[0] if t.is_method and allp else None
        self.handed = handed
        #: names bound to a tuple of sizes: (its first dim, the dynamic dims among them)
        self.size_tuples: dict[str, tuple[int, frozenset]] = {}
        #: names bound to a list of such tuples, and to a list of tensors: (dims all share, rank)
        self.size_lists: dict[str, tuple[int, frozenset]] = {}
        self.tensor_lists: dict[str, tuple[frozenset, Optional[int]]] = {}
        for p, d in handed.items():
            for m in d:
                for prefix, into in ((SIZES_PREFIX, self.size_tuples), (SIZE_LIST_PREFIX, self.size_lists)):
                    if isinstance(m, str) and m.startswith(prefix):
                        first, _, dyn = m[len(prefix):].partition(":")
                        into[p] = (int(first), frozenset(int(x) for x in dyn.split(",") if x))
        handed = {p: frozenset(x for x in d if not (isinstance(x, str) and x.startswith((SIZES_PREFIX, SIZE_LIST_PREFIX))))
                  for p, d in handed.items()}
        self.handed = handed
        self.dims: dict[str, frozenset] = {p: d - {SIZE} for p, d in handed.items() if d - {SIZE}}
        self.sizes: set[str] = {p for p, d in handed.items() if SIZE in d}
        #: names of ``sizes`` bound only to a declared dim itself (not arithmetic of one)
        self.exact: set[str] = set()
        #: parameters holding a module's own nn.Parameter, and names bound to sizes of them
        self.static_tensors: set[str] = {p for p, d in handed.items() if STATIC in d}
        self.static_sizes: set[str] = set()
        self.ranks = dict(ranks)
        self.bound: set[str] = set()
        self.calls: dict[int, Any] = {}
        self.loop_attrs: dict[str, str] = {}
        self.returns: list[Any] = []
        #: every binding's dims of each name (its final dims: what all agree on)
        self.seen: dict[str, Optional[frozenset]] = {p: d for p, d in self.dims.items()}

    def final(self) -> dict[str, set]:
        """Name -> dims: a parameter's as handed (as a declared ``forward``'s parameters are
        read), a local's those all its bindings agree on; ``SIZE`` for a declared dynamic size."""
        out: dict[str, set] = {}
        for n, d in self.dims.items():
            if d and n not in self.handed:
                out[n] = set(d)
        for n, d in self.handed.items():
            if d - {SIZE}:
                out[n] = set(d - {SIZE})
        for n in self.sizes:
            out.setdefault(n, set()).add(SIZE)
        for n in self.static_sizes:
            out.setdefault(n, set()).add(STATIC)
        for ds in out.values():
            ds.update(f"mult:{d}" for d in self.mult if d in ds)
        return out

    def run(self) -> Any:
        self.block(self.fn.body)
        rets = [r for r in self.returns]
        if not rets:
            return frozenset()
        first = rets[0]
        if all(isinstance(r, tuple) for r in rets) and len({len(r) for r in rets}) == 1:
            return tuple(frozenset.intersection(*[r[i] for r in rets]) for i in range(len(first)))
        if all(isinstance(r, frozenset) for r in rets):
            return frozenset.intersection(*rets)
        return frozenset()

    # ----- statements, in source order
    def block(self, body: list) -> None:
        for st in body:
            self.stmt(st)

    def stmt(self, st: ast.stmt) -> None:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return
        self.visit_calls(st)
        if isinstance(st, ast.Assign):
            for tgt in st.targets:
                self.bind(tgt, st.value)
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            self.bind(st.target, st.value)
        elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
            n = st.target.id
            d = self.dims_of(ast.BinOp(left=st.target, op=st.op, right=st.value))
            self.set_dims(n, d)
            self.exact.discard(n)
            if n in self.sizes and not self.is_size(st.value) and not _const(st.value):
                self.sizes.discard(n)
        elif isinstance(st, ast.Return) and st.value is not None:
            if isinstance(st.value, ast.Tuple):
                self.returns.append(tuple(self.dims_of(e) for e in st.value.elts))
            else:
                self.returns.append(self.dims_of(st.value))
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            self.loop_target(st.target, st.iter)
            self.block(st.body)
            self.block(st.orelse)
        elif isinstance(st, ast.While):
            self.block(st.body)
            self.block(st.orelse)
        elif isinstance(st, ast.If):
            self.block(st.body)
            self.block(st.orelse)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            self.block(st.body)
        elif isinstance(st, ast.Try):
            self.block(st.body)
            for h in st.handlers:
                self.block(h.body)
            self.block(st.orelse)
            self.block(st.finalbody)

    def visit_calls(self, st: ast.stmt) -> None:
        """Follows every call of the statement (not those of the nested blocks: visited with them)."""
        todo: list[ast.AST] = []
        for name, value in ast.iter_fields(st):
            if name in ("body", "orelse", "finalbody", "handlers"):
                continue
            if isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if isinstance(n, ast.Call):
                self.call(n)
            todo.extend(ast.iter_child_nodes(n))

    def loop_target(self, tgt: ast.AST, it: ast.AST) -> None:
        for n in ast.walk(tgt):
            if isinstance(n, ast.Name):
                self.forget(n.id)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args \
                and isinstance(tgt, ast.Tuple) and len(tgt.elts) == 2:
            it, tgt = it.args[0], tgt.elts[1]
        pairs: list[tuple[ast.AST, ast.AST]] = [(tgt, it)]
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip" \
                and isinstance(tgt, ast.Tuple) and len(tgt.elts) == len(it.args):
            pairs = list(zip(tgt.elts, it.args))
        for t, i in pairs:
            a = self.self_attr(i)
            if isinstance(t, ast.Name) and a is not None:
                self.loop_attrs[t.id] = a

    def forget(self, n: str) -> None:
        self.static_tensors.discard(n)
        self.static_sizes.discard(n)
        self.dims.pop(n, None)
        self.seen[n] = frozenset()
        self.sizes.discard(n)
        self.exact.discard(n)
        self.loop_attrs.pop(n, None)
        self.size_tuples.pop(n, None)
        self.size_lists.pop(n, None)
        self.tensor_lists.pop(n, None)

    def set_dims(self, n: str, d: frozenset) -> None:
        """A binding of ``n``: its dims are those every binding so far agrees on."""
        prev = self.seen.get(n)
        new = d if prev is None else (prev & d)
        self.seen[n] = new
        if new:
            self.dims[n] = new
        else:
            self.dims.pop(n, None)
        if prev is not None and d != prev:
            self.ranks.pop(n, None)

    def bind(self, tgt: ast.AST, value: ast.AST) -> None:
        if isinstance(tgt, ast.Name):
            self.loop_attrs.pop(tgt.id, None)
            self.static_tensors.discard(tgt.id)
            st = self.size_tuple(value)
            if st is not None and (tgt.id not in self.bound or self.size_tuples.get(tgt.id) == st):
                self.size_tuples[tgt.id] = st
            else:
                self.size_tuples.pop(tgt.id, None)
            sl = self.size_list(value)
            if sl is not None and (tgt.id not in self.bound or self.size_lists.get(tgt.id) == sl):
                self.size_lists[tgt.id] = sl
            else:
                self.size_lists.pop(tgt.id, None)
            tl = self.tensor_list(value)
            if tl is not None and tgt.id not in self.bound:
                self.tensor_lists[tgt.id] = tl
            else:
                self.tensor_lists.pop(tgt.id, None)
            if self.is_static_size(value) and (tgt.id not in self.bound or tgt.id in self.static_sizes):
                self.static_sizes.add(tgt.id)
            else:
                self.static_sizes.discard(tgt.id)
            rank = self.rank_of(value) if tgt.id not in self.bound else None
            self.set_dims(tgt.id, self.dims_of(value) if not isinstance(value, ast.Tuple) else frozenset())
            if rank is not None and tgt.id in self.dims:
                self.ranks[tgt.id] = rank  # (a layout-keeping op of a tensor of known rank)
            size = self.is_size(value)
            if self.is_exact_size(value) and (tgt.id not in self.bound or tgt.id in self.exact):
                self.exact.add(tgt.id)
            else:
                self.exact.discard(tgt.id)
            if tgt.id in self.bound or tgt.id in self.sizes and not size:
                # every binding must be a dynamic size
                if not size:
                    self.sizes.discard(tgt.id)
            elif size:
                self.sizes.add(tgt.id)
            self.bound.add(tgt.id)
            return
        if isinstance(tgt, (ast.Tuple, ast.List)):
            names = tgt.elts
            if any(isinstance(e, ast.Starred) for e in names):
                for e in names:
                    for n in ast.walk(e):
                        if isinstance(n, ast.Name):
                            self.forget(n.id)
                return
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(names):
                for e, v in zip(names, value.elts):
                    self.bind(e, v)
                return
            whole = self.shape_of(value)
            st = self.size_tuple(value)
            got = self.dims_of_call_tuple(value, len(names))
            for i, e in enumerate(names):
                if not isinstance(e, ast.Name):
                    for n in ast.walk(e):
                        if isinstance(n, ast.Name):
                            self.forget(n.id)
                    continue
                self.loop_attrs.pop(e.id, None)
                self.set_dims(e.id, got[i] if got is not None else frozenset())
                size = whole is not None and i not in self.mult and i in self.dims.get(whole, ())
                if st is not None:
                    size = st[0] + i in st[1]  # an item of a handed tuple of sizes
                if size and (e.id not in self.bound or e.id in self.sizes):
                    self.sizes.add(e.id)
                    if e.id not in self.bound or e.id in self.exact:
                        self.exact.add(e.id)
                else:
                    self.sizes.discard(e.id)
                    self.exact.discard(e.id)
                self.bound.add(e.id)
            return
        if isinstance(tgt, (ast.Subscript, ast.Attribute)):
            return  # an item or attribute written: the name keeps its value (and shape)
        for n in ast.walk(tgt):
            if isinstance(n, ast.Name):
                self.forget(n.id)

    def shape_of(self, v: ast.AST) -> Optional[str]:
        """``x`` for ``x.shape`` / ``x.size()`` / ``x.shape[:k]`` (unpacked: from dim 0)."""
        if isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Slice) and v.slice.lower is None \
                and v.slice.step is None:
            v = v.value
        if isinstance(v, ast.Attribute) and v.attr == "shape" and isinstance(_peel(v.value), ast.Name):
            return _peel(v.value).id
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "size" \
                and not v.args and isinstance(v.func.value, ast.Name):
            return v.func.value.id
        return None

    def tensor_list(self, v: ast.AST) -> Optional[tuple[frozenset, Optional[int]]]:
        """A list / tuple display of names of tensors with declared dims: the dims they all have,
        and their rank when every one's is known and the same."""
        if not isinstance(v, (ast.List, ast.Tuple)) or not v.elts \
                or not all(isinstance(e, ast.Name) and self.dims.get(e.id) for e in v.elts):
            return None
        dims = frozenset.intersection(*[self.dims[e.id] for e in v.elts])
        ranks = {self.ranks.get(e.id) for e in v.elts}
        return (dims, ranks.pop() if len(ranks) == 1 else None) if dims else None

    def size_list(self, v: ast.AST) -> Optional[tuple[int, frozenset]]:
        """``[t.shape[a:] for t in ts]`` over a list of tensors with declared dims (``tensor_list``),
        or a name bound to such a list: the size tuple of every item."""
        if isinstance(v, ast.Name):
            return self.size_lists.get(v.id)
        if not (isinstance(v, ast.ListComp) and len(v.generators) == 1):
            return None
        g = v.generators[0]
        if g.ifs or g.is_async or not isinstance(g.target, ast.Name):
            return None
        tl = self.tensor_list(g.iter) if not isinstance(g.iter, ast.Name) else self.tensor_lists.get(g.iter.id)
        if tl is None:
            return None
        n = g.target.id
        saved = (self.dims.get(n), self.ranks.get(n))
        self.dims[n] = tl[0]
        if tl[1] is not None:
            self.ranks[n] = tl[1]
        try:
            return self.size_tuple(v.elt)
        finally:
            for store, old in ((self.dims, saved[0]), (self.ranks, saved[1])):
                if old is None:
                    store.pop(n, None)
                else:
                    store[n] = old

    def size_tuple(self, v: ast.AST) -> Optional[tuple[int, frozenset]]:
        """(first dim, dynamic dims among them) of ``x.shape[a:]`` / ``x.size()[a:]`` (``a`` < 0
        when ``x``'s rank is known) of a tensor with declared dims, of a name bound to one, or of
        an item of a list of them (``sizes[i]``)."""
        if isinstance(v, ast.Name):
            return self.size_tuples.get(v.id)
        if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and v.value.id in self.size_lists \
                and not isinstance(v.slice, ast.Slice):
            return self.size_lists[v.value.id]
        if not (isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Slice) and v.slice.upper is None
                and v.slice.step is None and v.slice.lower is not None):
            return None
        b = v.value
        if isinstance(b, ast.Attribute) and b.attr == "shape" and isinstance(_peel(b.value), ast.Name):
            base = _peel(b.value)
        elif isinstance(b, ast.Call) and isinstance(b.func, ast.Attribute) and b.func.attr == "size" \
                and not b.args and not b.keywords and isinstance(b.func.value, ast.Name):
            base = b.func.value
        else:
            return None
        dims = self.dims.get(base.id)
        first = self.dim_index(base, v.slice.lower)
        if not dims or first is None:
            return None
        return first, frozenset(d for d in dims if isinstance(d, int) and d >= first and d not in self.mult)

    def dims_of_call_tuple(self, value: ast.AST, n: int) -> Optional[tuple]:
        if isinstance(value, ast.Call):
            r = self.call(value)
            if isinstance(r, tuple) and len(r) == n:
                return r
        return None

    # ----- expressions
    def dim_index(self, base: ast.AST, d: Any) -> Optional[int]:
        if isinstance(d, ast.AST):
            d = _int_lit(d)
        if not isinstance(d, int) or isinstance(d, bool):
            return None
        if d < 0:
            r = self.ranks.get(base.id) if isinstance(base, ast.Name) else None
            return r + d if r is not None and r + d >= 0 else None
        return d

    def is_size(self, e: ast.AST, depth: int = 0) -> bool:
        if depth > 8:
            return False
        if isinstance(e, ast.Name):
            return e.id in self.sizes
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id in self.size_tuples:
            k = _int_lit(e.slice)
            first, dyn = self.size_tuples[e.value.id]
            return k is not None and k >= 0 and first + k in dyn
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
                and isinstance(_peel(e.value.value), ast.Name) and _int_lit(e.slice) is not None:
            base = _peel(e.value.value)
            d = self.dim_index(base, e.slice)
            return d is not None and d not in self.mult and d in self.dims.get(base.id, ())
        if isinstance(e, ast.Call):
            f = ast_dotted(e.func)
            if isinstance(e.func, ast.Attribute) and e.func.attr == "size" and len(e.args) == 1 \
                    and isinstance(e.func.value, ast.Name) and _int_lit(e.args[0]) is not None:
                d = self.dim_index(e.func.value, e.args[0])
                return d is not None and d not in self.mult and d in self.dims.get(e.func.value.id, ())
            if f == "len" and len(e.args) == 1 and isinstance(e.args[0], ast.Name):
                return 0 not in self.mult and 0 in self.dims.get(e.args[0].id, ())
            if f in _SIZE_WRAPPERS and len(e.args) == 1:
                return self.is_size(e.args[0], depth + 1)
            return False
        if isinstance(e, ast.BinOp):
            return (self.is_size(e.left, depth + 1) and (_const(e.right) or self.is_size(e.right, depth + 1))) or (
                self.is_size(e.right, depth + 1) and _const(e.left))
        if isinstance(e, ast.UnaryOp):
            return self.is_size(e.operand, depth + 1)
        return False

    def is_static_size(self, e: ast.AST, depth: int = 0) -> bool:
        """A size of a tensor held in an nn.Parameter of the module (``pos_embed.shape[1]``), or
        arithmetic / ``int`` / ``math.*`` of such sizes and constants."""
        if depth > 8:
            return False
        if isinstance(e, ast.Name):
            return e.id in self.static_sizes
        if isinstance(e, ast.Constant):
            return isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape":
            return isinstance(e.value.value, ast.Name) and e.value.value.id in self.static_tensors
        if isinstance(e, ast.Call):
            if isinstance(e.func, ast.Attribute) and e.func.attr == "size" and isinstance(e.func.value, ast.Name):
                return e.func.value.id in self.static_tensors and len(e.args) == 1
            f = ast_dotted(e.func) or ""
            if (f in _SIZE_WRAPPERS or f.startswith("math.")) and e.args and not e.keywords:
                return all(self.is_static_size(a, depth + 1) for a in e.args)
            return False
        if isinstance(e, ast.BinOp):
            return self.is_static_size(e.left, depth + 1) and self.is_static_size(e.right, depth + 1)
        if isinstance(e, ast.UnaryOp):
            return self.is_static_size(e.operand, depth + 1)
        return False

    def dims_of(self, e: ast.AST, depth: int = 0) -> frozenset:
        if depth > 12:
            return frozenset()
        if isinstance(e, ast.Name):
            return self.dims.get(e.id, frozenset())
        if isinstance(e, ast.BinOp):
            return self.dims_of(e.left, depth + 1) | self.dims_of(e.right, depth + 1)
        if isinstance(e, ast.UnaryOp):
            return self.dims_of(e.operand, depth + 1)
        if isinstance(e, ast.Call):
            r = self.call(e)
            return r if isinstance(r, frozenset) else frozenset()
        return frozenset()

    # ----- tensor methods that move, merge or make dims (literal dim arguments only)
    def rank_of(self, e: ast.AST, depth: int = 0) -> Optional[int]:
        """The number of dims of a carried tensor expression, where it is known."""
        if depth > 8:
            return None
        if isinstance(e, ast.Name):
            return self.ranks.get(e.id)
        if isinstance(e, ast.Call) and e.args and self.self_attr(e.func) is not None:
            # a kept-layout torch.nn layer submodule of a name of known rank
            ts = self.targets(e)
            if ts and all(kind == "layer" for _, kind in ts) and isinstance(e.args[0], ast.Name):
                return self.ranks.get(e.args[0].id)
            return None
        if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute)):
            return None
        m, recv = e.func.attr, e.func.value
        if isinstance(recv, ast.Name) and (recv.id in ("torch", "F") or recv.id in self.fi.imports):
            return None
        args = _layout_args(e)
        if m == "permute" or m in ("view", "reshape") and args is not None:
            return len(args) if args is not None else None
        if m == "flatten":
            ints = [_int_lit(a) for a in e.args]
            if not e.keywords and len(ints) == 1 and ints[0] is not None and ints[0] >= 0:
                return ints[0] + 1
            return None
        r = self.rank_of(recv, depth + 1)
        if r is None:
            return None
        if m in ("transpose", "swapaxes") or m in _KEEP_CALLS:
            return r
        if m == "unsqueeze":
            return r + 1
        return None

    def layout(self, e: ast.Call) -> Optional[frozenset]:
        """The dims of ``x.permute(...)``, ``x.transpose(a, b)``, ``x.flatten(s)``,
        ``x.unsqueeze(k)``, ``x.view(...)`` / ``x.reshape(...)`` of a carried ``x``: each
        dim moves where the op puts it; a merged dim is dynamic when a merged one was; a
        view's dim is dynamic when its size reads a declared dynamic dim (``-1`` and
        anything else: not known, so not carried). None: not such an op (or the entry
        declares multiples, whose indices the op would move)."""
        f = e.func
        if not isinstance(f, ast.Attribute) or f.attr not in _LAYOUT or self.self_attr(f) is not None or self.mult:
            return None
        recv = f.value
        if isinstance(recv, ast.Name) and recv.id in ("torch", "F"):
            return None
        # (``DOWN`` does not move with the dim indices: not kept through a layout op)
        dims = self.dims_of(recv) - {DOWN}
        if not dims:
            return frozenset() if f.attr in ("view", "reshape") else None
        rank = self.rank_of(recv)

        def idx(a: ast.AST) -> Optional[int]:
            i = _int_lit(a)
            if i is None:
                return None
            if i < 0:
                return rank + i if rank is not None and rank + i >= 0 else None
            return i

        m = f.attr
        if m == "permute":
            args = _layout_args(e)
            order = [idx(a) for a in args] if args is not None else None
            if not order or any(o is None for o in order) or len(set(order)) != len(order):
                return frozenset()
            return frozenset(i for i, o in enumerate(order) if o in dims)
        if m in ("transpose", "swapaxes"):
            if len(e.args) != 2 or e.keywords:
                return frozenset()
            a, b = idx(e.args[0]), idx(e.args[1])
            if a is None or b is None:
                return frozenset()
            swap = {a: b, b: a}
            return frozenset(swap.get(d, d) for d in dims)
        if m == "flatten":
            if e.keywords or len(e.args) > 1:
                return frozenset()
            s = idx(e.args[0]) if e.args else 0
            if s is None:
                return frozenset()
            # the merged dim is a product of sizes, not a declared dim: int() of it, for one,
            # does not specialise (bench/labels/probes_lead30/probe_flatten_merged_dim.py)
            return frozenset(d for d in dims if d < s)
        if m == "unsqueeze":
            if len(e.args) != 1 or e.keywords:
                return frozenset()
            k = _int_lit(e.args[0])
            if k is None or k < 0:
                return frozenset()
            return frozenset(d + 1 if d >= k else d for d in dims)
        # view / reshape
        args = _layout_args(e)
        if args is None:
            return frozenset()
        return frozenset(i for i, a in enumerate(args) if self.is_exact_size(a))

    def is_exact_size(self, e: ast.AST) -> bool:
        """A declared dynamic dim itself (not arithmetic of one): ``x.shape[d]``, ``x.size(d)``, a
        name every binding of which is one (``B, N, C = x.shape``)."""
        if isinstance(e, ast.Name):
            return e.id in self.exact and e.id in self.sizes
        return self.is_size(e) and not isinstance(e, (ast.BinOp, ast.UnaryOp, ast.Call)) or (
            isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "size"
            and self.is_size(e))

    def self_attr(self, e: ast.AST) -> Optional[str]:
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and self.self_name \
                and e.value.id == self.self_name:
            return e.attr
        return None

    def call(self, e: ast.Call) -> Any:
        k = id(e)
        if k in self.calls:
            return self.calls[k]
        self.calls[k] = frozenset()
        r = self._call(e)
        self.calls[k] = r
        return r

    def _call(self, e: ast.Call) -> Any:
        f = e.func
        name = ast_dotted(f)
        moved = self.layout(e)
        if moved is not None:
            return moved
        # ops that keep the layout of their tensor operands
        if isinstance(f, ast.Attribute) and f.attr in _KEEP_CALLS and self.self_attr(f) is None:
            recv = f.value
            q = self.qualify(name) if name else None
            if q and (q.startswith("torch.") or q.startswith("F.")) or (
                    isinstance(recv, ast.Name) and recv.id in ("torch", "F")):
                out = frozenset()
                for a in e.args:
                    out |= self.dims_of(a)
                return out
            out = self.dims_of(recv)
            for a in e.args:
                out |= self.dims_of(a)
            return out
        if name and self.qualify(name) in ("torch.arange",):
            pos = [a for a in e.args if not isinstance(a, ast.Starred)]
            if len(pos) == 1 and self.is_size(pos[0]) or (
                    len(pos) == 2 and _const(pos[0]) and getattr(pos[0], "value", None) == 0 and self.is_size(pos[1])):
                return frozenset({0})
            return frozenset()
        # calls into the project
        targets = self.targets(e)
        if targets is None:
            return frozenset()
        results = []
        for t, kind in targets:
            if kind == "layer":
                d = self.dims_of(e.args[0]) if e.args else frozenset()
                if t in _CONV_LIKE:
                    d = d - {1}
                if t in _STRIDED and any(type(x) is int for x in d) and self.strided(e.func):
                    d = d | {DOWN}
                results.append(d)
                continue
            results.append(self.into(t, e))
        if not results:
            return frozenset()
        if all(isinstance(r, frozenset) for r in results):
            return frozenset.intersection(*results)
        if all(isinstance(r, tuple) for r in results) and len({len(r) for r in results}) == 1:
            return tuple(frozenset.intersection(*[r[i] for r in results]) for i in range(len(results[0])))
        return frozenset()

    def qualify(self, name: str) -> str:
        head, _, rest = name.partition(".")
        q = self.fi.imports.get(head)
        if q is None:
            return name
        q = self.project.absolute(self.fi, q)
        return f"{q}.{rest}" if rest else q

    def targets(self, e: ast.Call) -> Optional[list]:
        """(Target, "fn") for a project function or forward, (layer name, "layer") for a torch.nn
        layer submodule; None when the callee is not known."""
        f = e.func
        attr = self.self_attr(f)
        if attr is None and isinstance(f, ast.Name) and f.id in self.loop_attrs:
            attr = self.loop_attrs[f.id]
        if attr is not None and self.cls is not None:
            # a method of the class (or a base's), else a submodule's forward
            fi, cls = self.own_class()
            if fi is None:
                return None
            ci = fi.classes.get(cls)
            if isinstance(f, ast.Attribute) and ci is not None and self.self_attr(f) is not None:
                t = self.project.find_method(fi, cls, attr)
                if t is not None:
                    return [(t, "fn")]
            ctors = self.attr_ctors(fi, cls, attr)
            if not ctors:
                return None
            out = []
            for cfi, q in ctors:
                last = q.rsplit(".", 1)[-1].lstrip("*")
                if (q.startswith(("torch.nn.", "nn.")) or q.lstrip("*").startswith(("torch.nn.", "nn."))) \
                        and last in _KEEP_LAYERS:
                    out.append((last, "layer"))
                    continue
                ts = self.built_methods(cfi, q, "forward")
                if ts is None:
                    return None
                out += ts
            return out or None
        if isinstance(f, ast.Attribute) and self.self_attr(f.value) is not None and self.cls is not None:
            return self.attr_method(f.value.attr, f.attr)
        name = ast_dotted(f)
        if not name or (self.self_name and name.split(".")[0] == self.self_name):
            return None
        head = name.split(".")[0]
        if "." not in name and name in self.fi.functions:
            from exportlint.semantics.project import Target

            return [(Target(self.fi.path, self.fi.module, name, False), "fn")]
        if head not in self.fi.imports:
            return None
        q = self.qualify(name)
        if q.startswith(("torch.", "numpy.", "math.", "typing.", "builtins.", "functools.")):
            return None
        t = self.project.resolve_function(q)
        if t is None or t.is_method:
            return None
        return [(t, "fn")]

    def strided(self, f: ast.AST) -> bool:
        """``self.<attr>`` that the class's own ``__init__`` sets, once, to a convolution or pooling
        layer with a literal stride above 1 (a pooling's stride defaults to its kernel size)."""
        attr = self.self_attr(f)
        if attr is None or self.cls is None:
            return False
        fi, cls = self.own_class()
        t = self.project.find_method(fi, cls, "__init__") if fi is not None else None
        node = self.flow.node_of(t) if t is not None else None
        if node is None:
            return False
        ctors = [st.value for st in ast.walk(node)
                 if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Attribute)
                 and st.targets[0].attr == attr and isinstance(st.targets[0].value, ast.Name)
                 and st.targets[0].value.id == "self"]
        if len(ctors) != 1 or not isinstance(ctors[0], ast.Call):
            return False
        c = ctors[0]
        last = (ast_dotted(c.func) or "").rsplit(".", 1)[-1]
        kw = {k.arg: k.value for k in c.keywords if k.arg}
        if "Pool" in last:
            stride = kw.get("stride", c.args[1] if len(c.args) > 1 else None)
            if stride is None or (isinstance(stride, ast.Constant) and stride.value is None):
                stride = kw.get("kernel_size", c.args[0] if c.args else None)
        else:
            stride = kw.get("stride", c.args[3] if len(c.args) > 3 else None)
        if stride is None:
            return False
        vals = stride.elts if isinstance(stride, ast.Tuple) else [stride]
        lits = [_int_lit(v) for v in vals]
        return any(isinstance(v, int) and v > 1 for v in lits)

    def attr_method(self, attr: str, method: str) -> Optional[list]:
        """``self.<attr>.<method>(...)``: that method of the project classes ``__init__`` builds at
        ``attr`` (a plain helper object, ``self.anchor_generator = AnchorGenerator(...)``); None
        unless every one is known and defines it."""
        fi, cls = self.own_class()
        if fi is None:
            return None
        ctors = self.attr_ctors(fi, cls, attr)
        if not ctors:
            return None
        out = []
        for cfi, q in ctors:
            ts = self.built_methods(cfi, q, method)
            if ts is None:
                return None
            out += ts
        return out or None

    def built_methods(self, cfi: Any, q: str, method: str) -> Optional[list]:
        """(Target, "fn") of ``method`` of each project class the constructor ``q`` (in ``cfi``)
        builds; None unless every one is known and defines it."""
        from exportlint.semantics.project import built_classes

        try:
            built = built_classes(self.project, cfi, q, None)
        except Exception:
            built = None
        if not built:
            return None
        out = []
        for bfi, bcls in built:
            t = self.project.find_method(bfi, bcls, method)
            if t is None:
                return None
            out.append((t, "fn"))
        return out

    def is_parameter(self, a: ast.AST) -> bool:
        """``self.<attr>`` that ``__init__`` (or a base's) sets only to an ``nn.Parameter(...)``."""
        attr = self.self_attr(a)
        if attr is None or self.cls is None:
            return False
        fi, cls = self.own_class()
        ctors = self.attr_ctors(fi, cls, attr) if fi is not None else []
        return bool(ctors) and all(q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter") for _, q in ctors)

    def own_class(self) -> tuple:
        t = self.t
        fi = self.project.index_path(t.path)
        return (fi, self.cls) if fi is not None and self.cls in fi.classes else (None, None)

    def attr_ctors(self, fi: Any, cls: str, attr: str, depth: int = 0) -> list:
        """(file, constructor name) of ``self.<attr>`` in ``cls``'s ``__init__`` or a base's."""
        if depth > 8:
            return []
        ci = fi.classes.get(cls)
        if ci is None:
            return []
        if attr in ci.attrs:
            return [(fi, q) for q in ci.attrs[attr]]
        for b in ci.bases:
            bc = self.project.base_class(fi, b, None)
            if bc is not None:
                r = self.attr_ctors(bc[0], bc[1], attr, depth + 1)
                if r:
                    return r
        return []

    def into(self, t: Any, e: ast.Call) -> Any:
        node = self.flow.node_of(t)
        if node is None:
            return frozenset()
        ps = _params(node, t.is_method)
        kwonly = [p.arg for p in node.args.kwonlyargs]
        handed: dict[str, frozenset] = {}
        ranks: dict[str, int] = {}
        for i, a in enumerate(e.args):
            if isinstance(a, ast.Starred):
                break
            if i < len(ps):
                self.hand(ps[i], a, handed, ranks)
        for kw in e.keywords:
            if kw.arg is not None and (kw.arg in ps or kw.arg in kwonly):
                self.hand(kw.arg, kw.value, handed, ranks)
        return self.flow.analyse(t, handed, ranks, self.mult)

    def hand(self, p: str, a: ast.AST, handed: dict, ranks: dict) -> None:
        d = self.dims_of(a)
        if self.is_size(a):
            d = d | {SIZE}
        if self.is_parameter(a):
            d = d | {STATIC}
        st = self.size_tuple(a)
        if st is not None and st[1]:
            d = d | {f"{SIZES_PREFIX}{st[0]}:{','.join(map(str, sorted(st[1])))}"}
        sl = self.size_list(a) if isinstance(a, ast.Name) else None
        if sl is not None and sl[1]:
            d = d | {f"{SIZE_LIST_PREFIX}{sl[0]}:{','.join(map(str, sorted(sl[1])))}"}
        if d:
            handed[p] = frozenset(d)
        if isinstance(a, ast.Name) and a.id in self.ranks and a.id in self.dims:
            ranks[p] = self.ranks[a.id]
        elif isinstance(a, ast.Call) and d:
            # a call keeping its operand's rank (a kept-layout layer, ``x.float()``): ``rank_of``
            r = self.rank_of(a)
            if r is not None:
                ranks[p] = r


def _layout_args(e: ast.Call) -> Optional[list]:
    """The dim arguments of ``permute`` / ``view`` / ``reshape``: given one by one or as one
    tuple or list; None with keywords, a starred argument or anything else."""
    if e.keywords:
        return None
    args = list(e.args)
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = list(args[0].elts)
    if not args or any(isinstance(a, ast.Starred) for a in args):
        return None
    return args


#: methods taking no argument whose result has its receiver's shape (a copy, a view, the numpy array)
_SAME_SHAPE = frozenset({"cpu", "cuda", "detach", "numpy", "contiguous", "clone", "float", "half", "double"})


def _peel(e: ast.AST) -> ast.AST:
    """``x`` for ``x.cpu().detach().numpy()`` and the like (``_SAME_SHAPE``): its ``.shape`` is
    ``x``'s (EfficientDet's same-padding pool reads ``x.cpu().detach().numpy().shape[-2:]``)."""
    while isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _SAME_SHAPE \
            and not e.args and not e.keywords:
        e = e.func.value
    return e


def _int_lit(e: ast.AST) -> Optional[int]:
    if isinstance(e, ast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
            and isinstance(e.operand.value, int) and not isinstance(e.operand.value, bool):
        return -e.operand.value
    return None


def _const(e: ast.AST) -> bool:
    return isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool) or (
        isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self")
