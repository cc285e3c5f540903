"""Values that only end in a weight's `.data` rewrite (P-DATASINK, used by EXL401).

peft's one-shot merge/unmerge path (`if self.disable_adapters: if self.merged: self.unmerge()`)
computes a matrix with an op the exporters lack (`torch.linalg.inv(oft_mat)`, `torch.block_diag`,
`torch.diag_embed`) and writes the result into a weight's `.data` (`weight.data = w`,
`weight.data -= delta`, `self.set_base_weight(w)` whose body does `... .weight.data = w`). The
value reaches no output of the traced forward: the legacy tracer drops the op (measured, torch 2.13:
it exports and matches eager, bench/labels/probes_sweep5/q1, probes_prec8/d1), and the torch.export
family fails at the `.data` rewrite itself, which EXL213 reports where it happens. A finding at the
op names a failure that is not the one the export hits; the rewrite's finding is the one to fix.

``only_feeds_data_rewrites(ctx, fn, node)``: every use of the value of ``node`` (followed through
local names, arithmetic, torch calls and tensor methods, tuple displays, the function's `return` to
every export-path call site in the file, and the parameter of a `self.<method>(...)` call statement,
in the file or, with a project, in another file) ends in

- a `.data` rewrite (at least one that EXL213 reports is required: the finding moves there),
- a read of metadata (`.dtype`, `.device`, `.shape`, `.size()`),
- an assignment to an attribute of an object other than `self` (`layer.weight = Params(w)`), or
- an argument of a call statement on an object the analysis cannot see (`self.backend.set(w)`),
  only when a `.data` rewrite is also reached.

Anything else (a branch or loop test, a return from forward or from a function called from another
file, an in-place tensor method, an index, a call whose callee is unknown and whose result is used
further on in a way not listed) keeps the finding: unknown stays unknown.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Optional

import libcst as cst

from exportlint.checks.tensor_data import data_rewrite, reported_rewrite
from exportlint.semantics.nodes import child_nodes

#: attributes and methods that read a tensor's metadata, not its values (under tracing a size
#: is a Python int, or a symbolic size that does not take the op into the graph's outputs)
_META = frozenset({"dtype", "device", "is_cuda", "requires_grad", "shape", "ndim"})
_META_METHODS = frozenset({"size", "dim", "numel"})
_MAX_DEPTH = 6


class _Walk:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.model = ctx.model
        self.data_hits = 0
        self.seen_names: set[tuple[int, str]] = set()
        self.seen_returns: set[int] = set()
        self._parents: dict[int, dict[int, cst.CSTNode]] = {}
        self._sites: Optional[dict[int, list]] = None
        #: (id of the op's function, its `False`-default flags the op runs under: `if reverse:`)
        self.gate: Optional[tuple[int, dict[str, int]]] = None

    # ----- structure -----
    def parents(self, fn) -> dict[int, cst.CSTNode]:
        got = self._parents.get(id(fn.node))
        if got is None:
            got = {}
            stack = [fn.node]
            while stack:
                n = stack.pop()
                for c in child_nodes(n):
                    got[id(c)] = n
                    stack.append(c)
            self._parents[id(fn.node)] = got
        return got

    def call_sites(self, fn) -> list:
        """(caller facts, call node) of every export-path call of ``fn`` in this file."""
        if self._sites is None:
            self._sites = {}
            for f in self.model.functions:
                for callee, call in getattr(f, "callee_sites", ()):
                    self._sites.setdefault(id(callee), []).append((f, call))
        return self._sites.get(id(fn.node), [])

    def _hit(self, fn, node: cst.CSTNode) -> None:
        """A `.data` rewrite reached (its target, or its `.copy_()` call); counted when EXL213
        reports it (the kinds there say a tensor is rewritten)."""
        stmt = node
        if not isinstance(stmt, cst.Call):
            par = self.parents(fn)
            while stmt is not None and not isinstance(stmt, (cst.Assign, cst.AugAssign)):
                stmt = par.get(id(stmt))
        if stmt is not None and reported_rewrite(fn, stmt) is not None:
            self.data_hits += 1

    # ----- the walk -----
    def value(self, fn, node: cst.CSTNode, depth: int) -> bool:
        """Every use of the value of ``node`` (in function ``fn``) ends in a sink."""
        if depth > _MAX_DEPTH:
            return False
        par = self.parents(fn)
        cur = node
        while True:
            p = par.get(id(cur))
            if p is None:
                return False
            t = type(p)
            if t is cst.Arg:
                call = par.get(id(p))
                if not isinstance(call, cst.Call) or p.value is not cur:
                    return False
                return self.argument(fn, call, p, depth)
            if t is cst.Attribute:
                if p.value is not cur:
                    return False
                name = p.attr.value
                if name in _META:
                    return True
                if name == "data":
                    # `v.data` read as a value: follow it; `v.data = x` is a rewrite of v, not of the value
                    cur = p
                    continue
                call = par.get(id(p))
                if isinstance(call, cst.Call) and call.func is p and name in _META_METHODS:
                    return True
                if isinstance(call, cst.Call) and call.func is p and not name.endswith("_"):
                    cur = call  # `v.to(dtype)`, `v.t()`, `v.contiguous()`, `v.view(...)`
                    continue
                return False
            if t in (cst.BinaryOperation, cst.UnaryOperation):
                cur = p
                continue
            if t is cst.IfExp:
                if p.test is cur:
                    return False
                cur = p
                continue
            if t is cst.Subscript:
                if p.value is not cur:
                    return False
                gp = par.get(id(p))
                if (type(gp) is cst.AugAssign and gp.target is p) or (
                        type(gp) is cst.AssignTarget and gp.target is p):
                    # `v[:, 0] *= -1`, `v[idx] = x`: a write into the value, which goes on
                    # through its name (the other reads); nothing of it leaves here
                    return True
                cur = p
                continue
            if t in (cst.Element, cst.StarredElement):
                box = par.get(id(p))
                if not isinstance(box, (cst.Tuple, cst.List)):
                    return False
                cur = box
                continue
            if t is cst.Assign:
                if p.value is not cur:
                    return False
                return all(self.target(fn, at.target, depth, p) for at in p.targets)
            if t is cst.AugAssign:
                if p.value is not cur:
                    return False
                return self.target(fn, p.target, depth)
            if t is cst.Return:
                return self.returned(fn, depth)
            if t is cst.Expr:
                return True  # a call statement whose result is dropped (its arguments were checked)
            return False

    def target(self, fn, tgt: cst.BaseExpression, depth: int, origin: Optional[cst.CSTNode] = None) -> bool:
        if isinstance(tgt, cst.Subscript):
            tgt = tgt.value
        if isinstance(tgt, cst.Attribute):
            if tgt.attr.value == "data":
                self._hit(fn, tgt)
                return True
            # a weight or attribute of another object (`layer.weight = Params(w)`); `self.x = v` is
            # Python state a later read in forward may carry: not a sink
            return not (isinstance(tgt.value, cst.Name) and tgt.value.value == fn.self_name)
        if isinstance(tgt, cst.Name):
            return self.name(fn, tgt.value, depth, origin)
        if isinstance(tgt, (cst.Tuple, cst.List)):
            return all(self.target(fn, el.value, depth, origin) for el in tgt.elements)
        return False

    def name(self, fn, name: str, depth: int, origin: Optional[cst.CSTNode] = None) -> bool:
        key = (id(fn.node), name)
        if key in self.seen_names:
            return True
        self.seen_names.add(key)
        par = self.parents(fn)
        arms = _arms(origin, par) if origin is not None else {}
        for n in _name_reads(fn.node, name, par):
            if id(n) not in fn.kinds:
                continue  # not analysed: a branch the export path does not run (`if safe_merge:`)
            if origin is not None and (_inside(n, origin, par) or (arms and _other_arm(n, par, arms))):
                # read by the binding statement itself (`w = f(w)` reads the earlier `w`), or in
                # another arm of an `if` the binding sits in: another binding's value
                continue
            if not self.value(fn, n, depth):
                return False
        return True

    def returned(self, fn, depth: int) -> bool:
        if id(fn.node) in self.seen_returns:
            return True
        self.seen_returns.add(id(fn.node))
        if fn.why != "called" or fn.name == "forward" or id(fn.node) in self.model.external_chains:
            return False  # an entry, or called from another file: its result leaves what is seen here
        sites = self.call_sites(fn)
        if self.gate is not None and self.gate[0] == id(fn.node):
            # the op runs only under `if reverse:` of a `False`-default flag: only the calls that
            # pass the flag run it (miss's `get_delta_weight(..., reverse=True)` from `unmerge()`;
            # forward's own call passes no `reverse`)
            sites = [(c, call) for c, call in sites if _passes_flag(call, self.gate[1])]
        if not sites:
            return False
        return all(self.value(caller, call, depth + 1) for caller, call in sites)

    def argument(self, fn, call: cst.Call, arg: cst.Arg, depth: int) -> bool:
        f = call.func
        # `w.data.copy_(v)`, `w.data.sub_(v)`
        tgt, _ = data_rewrite(call)
        if tgt is not None:
            self._hit(fn, call)
            return True
        q = self.model.imports.resolve(f) or ""
        if q.startswith("torch.") and not q.rsplit(".", 1)[-1].endswith("_"):
            return self.value(fn, call, depth)  # a torch function: its result carries the value
        if isinstance(f, cst.Attribute) and f.attr.value.endswith("_"):
            return False  # an in-place method (`buf.copy_(v)`): the value goes into that tensor
        if isinstance(f, cst.Attribute):
            recv = f.value
            if isinstance(recv, cst.Name) and recv.value == fn.self_name and fn.self_name:
                return self.self_method(fn, call, arg, depth)
            # a method of an object the analysis does not see, or a tensor method: the value
            # goes into its result; a dropped result of a call on `self.<x>` is an opaque store
            if _on_self(recv, fn.self_name) and isinstance(self.parents(fn).get(id(call)), cst.Expr):
                return True
            return self.value(fn, call, depth)
        if isinstance(f, cst.Name) and (f.value in self.model.module_functions or f.value in self.model.classes):
            return False  # a function of this file: its body is not followed here
        if isinstance(f, (cst.Name, cst.Attribute)) and not q.startswith("torch."):
            # a constructor or function outside the file (`bnb.nn.Int8Params(w, ...)`): its result
            return self.value(fn, call, depth)
        return False

    def self_method(self, fn, call: cst.Call, arg: cst.Arg, depth: int) -> bool:
        """`self.m(v)`: v reaches only `.data` rewrites in m (this file, or another project file)."""
        meth = call.func.attr.value
        if arg.star or fn.cls is None:
            return False
        if not isinstance(self.parents(fn).get(id(call)), cst.Expr):
            return False  # its result is used: not followed
        pos = [a for a in call.args if a.keyword is None and not a.star]
        r = fn.cls.find_method(meth)
        if r is not None:
            callee = self.model.facts_for(r[1])
            if callee is None:
                return False
            pname = _param_name(r[1], arg, pos)
            if pname is None:
                return False
            return self.name(callee, pname, depth + 1)
        return self.remote(fn, meth, arg, pos)

    def remote(self, fn, meth: str, arg: cst.Arg, pos: list) -> bool:
        project = getattr(self.ctx, "project", None)
        if project is None:
            return False
        try:
            mod, _ = project.add_file(self.ctx.path)
            fi = project.index(mod)
            if fi is None:
                return False
            t = project.find_method(fi, fn.cls.name, meth, set())
        except Exception:
            return False
        if t is None or t.path == os.path.abspath(self.ctx.path):
            return False
        found = _remote_param_sink(project, t.path, t.qual, arg, pos)
        if found:
            self.data_hits += 1
        return found


_ATTR = (cst.Attribute, ast.Attribute)


def _on_self(e, self_name: Optional[str]) -> bool:
    """`self.x`, `self.x.y` (not `self` itself), of a libcst or a stdlib-ast expression."""
    if not self_name or not isinstance(e, _ATTR):
        return False
    while isinstance(e, _ATTR):
        e = e.value
    if isinstance(e, cst.Name):
        return e.value == self_name
    return isinstance(e, ast.Name) and e.id == self_name


def _param_name(fdef, arg: cst.Arg, pos: list) -> Optional[str]:
    params = list(fdef.params.posonly_params) + list(fdef.params.params)
    if arg.keyword is not None:
        names = {p.name.value for p in params + list(fdef.params.kwonly_params)}
        return arg.keyword.value if arg.keyword.value in names else None
    i = next((k for k, a in enumerate(pos) if a is arg), None)
    if i is None or i + 1 >= len(params):
        return None
    return params[i + 1].name.value  # (params[0] is self)


def _name_reads(fnode: cst.FunctionDef, name: str, par: dict) -> list[cst.Name]:
    """Loads of `name` in the function (not its bindings, attribute names or keywords)."""
    out = []
    stack = [fnode.body]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.Name:
            if n.value == name:
                p = par.get(id(n))
                if isinstance(p, cst.Attribute) and p.attr is n:
                    continue
                if isinstance(p, cst.Arg) and p.keyword is n:
                    continue
                if isinstance(p, cst.AssignTarget) or (isinstance(p, cst.AugAssign) and p.target is n) or _in_binding(n, par):
                    continue  # (the value of `t += n` is a read of n)
                out.append(n)
            continue
        stack.extend(child_nodes(n))
    return out


def _in_binding(n: cst.CSTNode, par: dict) -> bool:
    """A name inside an assignment target's tuple (`a, b = ...`), a `for` target, a parameter."""
    cur = n
    while True:
        p = par.get(id(cur))
        if p is None:
            return False
        if isinstance(p, cst.AssignTarget):
            return True
        if isinstance(p, (cst.For, cst.CompFor)) and p.target is cur:
            return True
        if isinstance(p, (cst.Param, cst.AsName)):
            return True
        if not isinstance(p, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            return False
        cur = p


# ----- a method in another file (stdlib ast: one parse per file and process) -----

_AST: dict[str, Any] = {}


def _remote_param_sink(project, path: str, qual: str, arg: cst.Arg, pos: list) -> bool:
    """In method ``qual`` of file ``path``, the parameter ``arg`` binds is read only as the value
    of a `.data` rewrite (`x.weight.data = p`, `x.data.copy_(p)`) or an argument of a call
    statement on `self.<attr>`; at least one `.data` rewrite."""
    texts = getattr(project, "_texts", {})
    digest = project.digests.get(path, "")
    key = f"{path}:{digest}"
    tree = _AST.get(key)
    if tree is None:
        text = texts.get(path)
        if text is None:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                return False
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            return False
        if len(_AST) > 64:
            _AST.clear()
        _AST[key] = tree
    cname, _, mname = qual.partition(".")
    fdef = None
    for st in tree.body:
        if isinstance(st, ast.ClassDef) and st.name == cname:
            for item in st.body:
                if isinstance(item, ast.FunctionDef) and item.name == mname:
                    fdef = item
    if fdef is None:
        return False
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    if arg.keyword is not None:
        pname = arg.keyword.value
        if pname not in params + [a.arg for a in fdef.args.kwonlyargs]:
            return False
    else:
        i = next((k for k, a in enumerate(pos) if a is arg), None)
        if i is None or i + 1 >= len(params):
            return False
        pname = params[i + 1]
    self_name = params[0] if params else None
    parents: dict[int, ast.AST] = {}
    for n in ast.walk(fdef):
        for c in ast.iter_child_nodes(n):
            parents[id(c)] = n
    hits = 0
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and n.id == pname:
            if not isinstance(n.ctx, ast.Load):
                return False  # re-bound
            p = parents.get(id(n))
            if isinstance(p, ast.Assign) and p.value is n and all(_ast_data_target(t) for t in p.targets):
                hits += 1
                continue
            if isinstance(p, ast.AugAssign) and p.value is n and _ast_data_target(p.target):
                hits += 1
                continue
            if isinstance(p, ast.Call) and n in p.args and isinstance(p.func, ast.Attribute) \
                    and isinstance(parents.get(id(p)), ast.Expr):
                f = p.func
                if isinstance(f.value, ast.Attribute) and f.value.attr == "data" and f.attr.endswith("_"):
                    hits += 1  # `w.data.copy_(p)`
                    continue
                if not f.attr.endswith("_") and _on_self(f.value, self_name):
                    continue  # `self.backend.set_base_weight(self, p)`: an opaque store
            return False
    return hits > 0


def _ast_data_target(t: ast.AST) -> bool:
    if isinstance(t, ast.Subscript):
        t = t.value
    return isinstance(t, ast.Attribute) and t.attr == "data"


def _arms(n: cst.CSTNode, par: dict) -> dict[int, int]:
    """id(If) -> 0 (body) or 1 (orelse) for the `if`s node ``n`` sits in."""
    out: dict[int, int] = {}
    cur = n
    while True:
        p = par.get(id(cur))
        if p is None:
            return out
        if isinstance(p, cst.If):
            if cur is p.body:
                out[id(p)] = 0
            elif cur is p.orelse:
                out[id(p)] = 1
        elif isinstance(p, cst.Else):
            pass
        cur = p


def _inside(n: cst.CSTNode, outer: cst.CSTNode, par: dict) -> bool:
    cur = n
    while cur is not None:
        if cur is outer:
            return True
        cur = par.get(id(cur))
    return False


def _other_arm(n: cst.CSTNode, par: dict, arms: dict[int, int]) -> bool:
    """Whether ``n`` sits in the other arm of one of the `if`s in ``arms``."""
    got = _arms(n, par)
    return any(i in got and got[i] != a for i, a in arms.items())


def _flag_gates(w: _Walk, fn, node: cst.CSTNode) -> dict[str, int]:
    """The `False`-default parameters of ``fn`` that ``node`` runs under (`if reverse:` body, the
    test a bare name), each with its position among the positional parameters after `self`."""
    params = list(fn.node.params.posonly_params) + list(fn.node.params.params)
    if fn.self_name is not None and params:
        params = params[1:]
    flags = {p.name.value: i for i, p in enumerate(params)
             if p.default is not None and isinstance(p.default, cst.Name) and p.default.value == "False"}
    for p in fn.node.params.kwonly_params:
        if p.default is not None and isinstance(p.default, cst.Name) and p.default.value == "False":
            flags[p.name.value] = -1
    if not flags:
        return {}
    par = w.parents(fn)
    out: dict[str, int] = {}
    cur = node
    while True:
        p = par.get(id(cur))
        if p is None or p is fn.node:
            break
        if (isinstance(p, cst.If) and cur is p.body and isinstance(p.test, cst.Name)
                and p.test.value in flags):
            out[p.test.value] = flags[p.test.value]
        cur = p
    return out


def _passes_flag(call: cst.Call, gates: dict[str, int]) -> bool:
    """Whether the call passes every gating flag, with a value that is not a literal False."""
    pos = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return True  # `*args` / `**kw`: may pass it
    for name, i in gates.items():
        a = next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)
        if a is None and 0 <= i < len(pos):
            a = pos[i]
        if a is None:
            return False
        if isinstance(a.value, cst.Name) and a.value.value in ("False", "None"):
            return False
    return True


def only_feeds_data_rewrites(ctx, fn, node: cst.CSTNode) -> bool:
    """Every use of the value of ``node`` (in export-path function ``fn``) ends in a `.data`
    rewrite or another weight store, and at least one `.data` rewrite is reached. A node under
    `if flag:` of a `False`-default flag is followed only to the calls that pass the flag."""
    w = _Walk(ctx)
    gates = _flag_gates(w, fn, node)
    if gates:
        w.gate = (id(fn.node), gates)
    try:
        ok = w.value(fn, node, 0)
    except RecursionError:
        return False
    return ok and w.data_hits > 0
