"""EXL150 zero-dim-tensor-index: indexing a tensor with a 0-d integer tensor (strict export).

Measured with torch 2.13 (bench/labels/probes_cases20/probe_scalar_index.py, ``.out``): indexing
any tensor (a parameter, a buffer, an input, a computed one) with a 0-d integer tensor that holds
data, ``boxes[scores.argmax()]``, ``table[torch.argmax(s)]``, ``table[i, :]``, ``table[:, i]``,
makes export-strict fail ("Could not extract specialized integer from data-dependent expression u0
... Dynamo failed to run FX node with fake tensors: call_function <built-in function getitem>");
export-nonstrict passes (fixed by pytorch/pytorch#184625), and so do a 1-d index
(``argmax(dim=0, keepdim=True)``), ``.item()``, ``index_select`` and ``F.embedding``. Held-out:
bench/cases/pkg_scalar_tensor_row_index (pytorch/pytorch#182345), there with the index a 0-d
forward input (not followed here: the example inputs' ranks are not read, see below).

Reported (an error naming export-strict) where the index is known 0-d and integer: ``t.argmax()`` /
``t.argmin()`` with no argument on a tensor, ``torch.argmax(t)`` / ``torch.argmin(t)`` with no
``dim``, inline or through a local name the function binds once, or a forward parameter whose
example in the file's ``example_args`` is ``torch.tensor(<int>)`` (the held-in
bench/cases/scalar_tensor_index.py, same report); only where it is read (``t[i]``), not assigned
to (``t[i] = v``, not measured). Not reported: indices whose rank is not known (a helper's
parameter, a forward input without such an example: a 1-d index exports).
"""

from __future__ import annotations

import ast
import re
from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import forward_params, snippet
from exportlint.checks.size_ops import bound_once
from exportlint.findings import Severity
from exportlint.semantics.index import ast_dotted
from exportlint.semantics.kinds import TENSORISH
from exportlint.semantics.model import iter_nodes
from exportlint.semantics.nodes import assigned_names

_ARG = frozenset({"argmax", "argmin"})
_TORCH_ARG = frozenset({"torch.argmax", "torch.argmin"})


def _zero_dim_int(fn, e: cst.BaseExpression, depth: int = 0) -> Optional[cst.Call]:
    """The ``argmax``/``argmin`` call (0-d, int64) that ``e`` is, or that the one binding of the
    name ``e`` is; None otherwise."""
    if isinstance(e, cst.Name) and depth == 0:
        v = bound_once(fn, e.value)
        return _zero_dim_int(fn, v, 1) if v is not None else None
    if not isinstance(e, cst.Call) or not isinstance(e.func, cst.Attribute) or e.func.attr.value not in _ARG:
        return None
    q = next((c.qualname for c in fn.calls if c.node is e), None)
    if q in _TORCH_ARG:
        # torch.argmax(t): one positional argument, no dim
        if len(e.args) == 1 and e.args[0].keyword is None and not e.args[0].star:
            return e
        return None
    if q is not None and q.startswith("torch.") and not q.startswith("torch.Tensor."):
        return None
    # t.argmax() with no argument on a tensor (a numpy array's argmax gives a Python int)
    if not e.args and fn.kind(e.func.value) in TENSORISH:
        return e
    return None


_INT_DTYPES = frozenset({"int64", "long", "int32", "int", "int16", "int8", "uint8"})


def _zero_dim_example(e: ast.AST) -> bool:
    """``torch.tensor(<int literal>)`` / ``torch.as_tensor(...)`` (no dtype, or an integer one):
    a 0-d int64 example input."""
    if not isinstance(e, ast.Call) or ast_dotted(e.func) not in ("torch.tensor", "torch.as_tensor"):
        return False
    if len(e.args) != 1 or not isinstance(e.args[0], ast.Constant) or type(e.args[0].value) is not int:
        return False
    for k in e.keywords:
        if k.arg == "dtype":
            d = ast_dotted(k.value) or ""
            if not (d.startswith("torch.") and d[6:] in _INT_DTYPES):
                return False
    return True


def _zero_dim_inputs(ctx) -> dict[str, set]:
    """Class -> its forward's parameters whose example input, in this file's ExportDB-style
    ``example_args = (...)`` (the file's one class with a ``forward``), is a 0-d integer tensor.
    Read from the whole file (a project run lints a reduced text without module statements)."""
    text = ctx.text
    # a forward parameter used as an index (`t[p]`, `t[p, ...]`) at all: else nothing to find
    params = {p for c in ctx.model.classes.values() if c.is_module and "forward" in c.methods
              for p in forward_params(c)}
    if not params or not re.search(r"\[\s*(?:%s)\s*[\],]" % "|".join(map(re.escape, sorted(params))), text):
        return {}
    whole = False
    if "example_args" not in text and getattr(ctx, "project", None) is not None \
            and getattr(ctx.project, "run_files", None) is not None:
        from exportlint.semantics.project import file_text

        text = file_text(ctx.project, ctx.path) or ""
        whole = True
    if "example_args" not in text or "tensor(" not in text:
        return {}
    if whole:
        # the run's stdlib tree of the whole file (the one its syntax check parsed), not a second parse
        from exportlint.semantics.project import file_tree

        tree = file_tree(ctx.project, ctx.path, keep=False)
    else:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            tree = None
    if tree is None:
        return {}
    args = None
    fwds = []
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and st.targets[0].id == "example_args" and isinstance(st.value, (ast.Tuple, ast.List)):
            args = st.value.elts
        elif isinstance(st, ast.ClassDef):
            fwds += [(st.name, f) for f in st.body if isinstance(f, ast.FunctionDef) and f.name == "forward"]
    if args is None or len(fwds) != 1:
        return {}
    cls, fwd = fwds[0]
    params = [a.arg for a in (*fwd.args.posonlyargs, *fwd.args.args)][1:]
    out = set()
    for i, el in enumerate(args):
        if isinstance(el, ast.Starred) or i >= len(params):
            break
        if _zero_dim_example(el):
            out.add(params[i])
    return {cls: out} if out else {}


def _stored(fn) -> set:
    """ids of the subscripts the function assigns to (``t[i] = v``, ``t[i] += v``, ``del t[i]``)."""
    out: set = set()
    for st in iter_nodes(fn.node.body):
        if isinstance(st, cst.Assign):
            for t in st.targets:
                out.add(id(t.target))
        elif isinstance(st, (cst.AugAssign, cst.AnnAssign)):
            out.add(id(st.target))
        elif isinstance(st, cst.Del):
            out.add(id(st.target))
    return out


@register
class ZeroDimTensorIndex(Rule):
    code = "EXL150"
    name = "zero-dim-tensor-index"
    severity = Severity.ERROR
    exporters = ("export-strict",)
    summary = "Indexing a tensor with a 0-d integer tensor (argmax()): strict torch.export fails."

    def check(self, ctx):
        inputs = _zero_dim_inputs(ctx)
        if "argm" not in ctx.text and not inputs:
            return ()
        for fn in ctx.model.functions:
            zero_inputs = inputs.get(fn.cls.name, set()) if fn.is_forward and fn.cls is not None else set()
            stored = None
            for node in iter_nodes(fn.node.body):
                if not isinstance(node, cst.Subscript):
                    continue
                for el in node.slice:
                    if not isinstance(el.slice, cst.Index):
                        continue
                    v = el.slice.value
                    src = _zero_dim_int(fn, v)
                    if src is None and isinstance(v, cst.Name) and v.value in zero_inputs \
                            and bound_once(fn, v.value) is None and v.value not in assigned_names(fn.node.body):
                        src = v  # a forward input whose example is `torch.tensor(<int>)`
                    if src is None:
                        continue
                    if stored is None:
                        stored = _stored(fn)
                    if id(node) in stored or fn.kind(node.value) not in TENSORISH:
                        break
                    ctx.report(
                        node,
                        f"`{snippet(ctx, node)}` indexes a tensor with `{snippet(ctx, src)}`, a 0-d integer "
                        "tensor: strict torch.export fails ('Could not extract specialized integer from "
                        "data-dependent expression u0', at the indexing); non-strict export and the ONNX "
                        "exporters pass. Index with a 1-d tensor (`argmax(dim=0, keepdim=True)`, then "
                        "`squeeze(0)`), `index_select(0, i.view(1))`, or export with `strict=False`.",
                    )
                    break
        return ()
