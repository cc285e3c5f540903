"""Instances of project classes: the kinds of their attributes, across files.

``images = ImageList(tensors, sizes)`` in one file, ``images.tensors.shape[-2:]`` in another:
the attribute's kind follows what the constructor stored. Per class, the kinds come from its
``__init__`` analysed like any cross-file callee (``Root(why="ctor")``) with the argument kinds
of every construction site on the export path, joined (``join_roots``); the kind of an
attribute is the kind ``__init__`` assigns to ``self.<attr>`` (``FunctionFacts.attr_write_kinds``),
left unknown where another method of the class re-assigns it. The result is an instance kind
(``kinds.obj_kind``: ``obj{sizes=shape,tensors=tensor}``) returned to every file that builds
the class or annotates a parameter with it (a subscription: a root with no arguments), under
the key ``new:<name as resolved in that file>`` of ``SemanticModel.call_returns``. A class only
named by annotations (no construction on the export path) is a ``ctor-ref`` root: its
``__init__`` is analysed aside for the kinds (``ref_kind``) and is not export-path code.
Dataclasses and NamedTuples have fields instead of an ``__init__`` (``record_kind``).

Unknown stays unknown: an argument of unknown kind gives the attribute the kind of the
``__init__`` parameter's annotation (the author's contract, as for any callee), else unknown;
nn.Module subclasses, autograd Functions and exception classes are not instances in this sense.
"""

from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from exportlint.lightcst import parse_expression  # (the native parser: a light libcst defers the entry points)
from exportlint.semantics.imports import dotted
from exportlint.semantics.kinds import DATA, MASK, OBJ_PREFIX, SHAPE, TENSOR, obj_attrs, obj_kind
from exportlint.semantics.nodes import iter_nodes, literal_value

#: the key prefix of an instance kind in ``SemanticModel.call_returns``
NEW = "new:"
_WRAPPERS = ("Optional", "Union")
_NOT_CLASSES = ("typing.", "torch.", "builtins.", "collections.", "numpy.", "typing_extensions.")


def annotated_class(ann: Optional[cst.Annotation], imports: Any) -> Optional[str]:
    """The one class an annotation names (``X``, ``"X"``, ``Optional[X]``, ``X | None``), as
    resolved in this file (``imports.resolve`` or the name as written); None otherwise."""
    if ann is None:
        return None
    return _class_expr(ann.annotation, imports, 0)


def _non_optional(e: cst.BaseExpression, depth: int = 0) -> Optional[cst.BaseExpression]:
    """The type an annotation names once a string is parsed and ``Optional`` / ``Union`` /
    ``| None`` with one other member are unwrapped (up to 3 levels); None when there is no
    single one (several members, an unparsable string)."""
    while True:
        if depth > 3:
            return None
        if isinstance(e, cst.SimpleString):
            v = literal_value(e)
            if not isinstance(v, str):
                return None
            try:
                e = parse_expression(v)
            except Exception:
                return None
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.BitOr):
            sides = [s for s in (e.left, e.right) if not (isinstance(s, cst.Name) and s.value == "None")]
        elif isinstance(e, cst.Subscript) and (dotted(e.value) or "").rsplit(".", 1)[-1] in _WRAPPERS:
            sides = [el.slice.value for el in e.slice if isinstance(el.slice, cst.Index)]
            sides = [x for x in sides if not (isinstance(x, cst.Name) and x.value == "None")]
        else:
            return e
        if len(sides) != 1:
            return None
        e, depth = sides[0], depth + 1


def _class_expr(e: cst.BaseExpression, imports: Any, depth: int) -> Optional[str]:
    e = _non_optional(e, depth)
    if isinstance(e, (cst.Name, cst.Attribute)):
        q = imports.resolve(e) or dotted(e)
        if not q or q.startswith(_NOT_CLASSES) or not q.rsplit(".", 1)[-1][:1].isupper():
            return None
        return q
    return None


_SEQS = ("list", "List", "tuple", "Tuple", "Sequence", "Iterable")


def tensor_sequence_annotation(ann: Optional[cst.Annotation]) -> bool:
    """``list[Tensor]``, ``tuple[Tensor, ...]``, ``Sequence[Tensor]`` (optionally Optional): a
    Python sequence whose items are all tensors."""
    if ann is None:
        return False
    return _seq_expr(ann.annotation, 0)


def _seq_expr(e: cst.BaseExpression, depth: int) -> bool:
    from exportlint.semantics.apis import ANNOT_TENSOR

    e = _non_optional(e, depth)
    if not isinstance(e, cst.Subscript):
        return False
    head = (dotted(e.value) or "").rsplit(".", 1)[-1]
    inner = [el.slice.value for el in e.slice if isinstance(el.slice, cst.Index)]
    if head not in _SEQS or not inner:
        return False
    items = [x for x in inner if not isinstance(x, cst.Ellipsis)]
    return bool(items) and all((dotted(x) or "").rsplit(".", 1)[-1] in ANNOT_TENSOR for x in items)


def informative(k: str) -> bool:
    """An instance kind with an attribute that is a tensor or derived from one."""
    attrs = obj_attrs(k) if k[:4] == OBJ_PREFIX else None
    return bool(attrs) and any(v in (TENSOR, MASK, SHAPE, DATA) for v in attrs.values())


# ---------------------------------------------------------------------------------------
# the class's side: the instance kind from its analysed __init__
# ---------------------------------------------------------------------------------------


def instance_kind(facts: Any) -> Optional[str]:
    """The instance kind ``__init__`` (analysed as a ``ctor`` root) gives its objects."""
    cls = facts.cls
    if cls is None:
        return None
    attrs = dict(facts.attr_write_kinds)
    if not attrs:
        return obj_kind({})
    # re-assigned by another method of the class (or a base of this file): not the kind
    # __init__ gave, at least not always
    for c in [cls] + list(cls.local_bases):
        for name, m in c.methods.items():
            if m is facts.node:
                continue
            self_name = _first_param(m)
            if self_name is None:
                continue
            for n in iter_nodes(m.body):
                tgt = None
                if isinstance(n, cst.AssignTarget):
                    tgt = n.target
                elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
                    tgt = n.target
                for t in _targets(tgt):
                    if (isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name)
                            and t.value.value == self_name):
                        attrs.pop(t.attr.value, None)
    return obj_kind(attrs)


def ref_kind(model: Any, root: Any) -> Optional[str]:
    """The instance kind for a class only named by annotations (a ``ctor-ref`` root: nothing
    on the export path builds it here): its ``__init__`` analysed aside with no argument kinds
    (parameters of their annotations' kinds, else unknown), never as export-path code: it
    does not run during the export, so no rule reads it."""
    from exportlint.semantics.flow import FunctionFacts

    found = model.root_function(root.qual)
    if found is None:
        return record_kind(model, root)
    fn, cls = found
    facts = FunctionFacts(model, fn, cls, "cross-file")
    facts.analyze([], {})
    return instance_kind(facts)


def record_kind(model: Any, root: Any) -> Optional[str]:
    """The instance kind of a dataclass or NamedTuple of this file (no ``__init__`` of its own):
    its fields in order, each of the kind the construction sites pass (positionally or by
    name), else of its annotation's kind (as for a parameter), else a default's."""
    from exportlint.semantics.apis import MISSING
    from exportlint.semantics.kinds import CONST, NONE, TENSORS, UNKNOWN
    from exportlint.semantics.nodes import annotation_kind, body_statements

    cname, _, meth = root.qual.partition(".")
    c = model.classes.get(cname)
    if c is None or meth != "__init__" or "__init__" in c.methods or not _is_record(c, model.imports):
        return None
    attrs: dict[str, str] = {}
    i = 0
    for st in body_statements(c.node.body):
        if not isinstance(st, cst.SimpleStatementLine):
            continue
        for small in st.body:
            if not (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)):
                continue
            ann = dotted(small.annotation.annotation.value) if isinstance(
                small.annotation.annotation, cst.Subscript) else dotted(small.annotation.annotation)
            if ann and ann.rsplit(".", 1)[-1] in ("ClassVar", "InitVar"):
                continue
            name = small.target.value
            ck = root.pos[i] if i < len(root.pos) else root.kw.get(name)
            i += 1
            if ck is not None and ck != UNKNOWN:
                attrs[name] = ck
                continue
            ak = annotation_kind(small.annotation, model.imports)
            if tensor_sequence_annotation(small.annotation):
                ak = TENSORS
            if ak in (TENSOR, TENSORS, CONST):
                attrs[name] = ak
            elif ck is None and small.value is not None:
                v = literal_value(small.value)
                attrs[name] = NONE if v is None else UNKNOWN if v is MISSING else CONST
    return obj_kind(attrs)


def _is_record(c: Any, imports: Any) -> bool:
    """A dataclass (``@dataclass``, ``@dataclasses.dataclass(...)``) or a ``NamedTuple``."""
    for d in c.node.decorators:
        e = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        q = imports.resolve(e) or dotted(e) or ""
        if q.rsplit(".", 1)[-1] == "dataclass":
            return True
    return any(b.rsplit(".", 1)[-1] == "NamedTuple" for b in c.bases)


def _targets(t: Optional[cst.BaseExpression]):
    if t is None:
        return
    if isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            yield from _targets(el.value)
    else:
        yield t


def _first_param(fn: cst.FunctionDef) -> Optional[str]:
    ps = list(fn.params.posonly_params) + list(fn.params.params)
    if not ps:
        return None
    decos = {dotted(d.decorator) for d in fn.decorators}
    if "staticmethod" in decos:
        return None
    return ps[0].name.value


# ---------------------------------------------------------------------------------------
# the users' side: construction sites and annotations -> roots into the class's file
# ---------------------------------------------------------------------------------------


def class_refs(project: Any, fi: Any, model: Any, deps: set) -> list[tuple]:
    """(FunctionFacts, node, Target, Root, key) for every construction of a project class on
    the file's export path (the argument kinds at the call) and every parameter annotated with
    one (a root with no arguments: it asks for the kinds the other sites give)."""
    from exportlint.semantics.project import Root, Target, split_arg_kinds

    out: list[tuple] = []
    seen: dict[str, Optional[tuple]] = {}
    run = getattr(project, "run_files", None)
    if run is not None and run <= {fi.path}:
        return out  # a one-file run: every other class lies outside it (and this file's are skipped)

    def target_of(q: str) -> Optional[Target]:
        if q in seen:
            return seen[q]
        t = None
        rc = None
        if "." not in q:
            if q in fi.classes:
                # a class of this file: its instance kind would come back to this file only by
                # analysing it again (a one-file run of transformers' bert: 3 analyses instead of 1,
                # for the file's ModelOutput dataclasses); same-file instances stay unknown
                rc = None
            elif fi.star:
                rc = project.base_class(fi, q, deps)
        else:
            qa = project.absolute(fi, q)
            if not qa.startswith(_NOT_CLASSES):
                rc = project.resolve_class(qa, deps)
        if rc is not None and run is not None and rc[0].path not in run:
            rc = None  # not analysed in this run: its instance kind could not come back
        if rc is not None and _is_plain_class(project, rc[0], rc[1]):
            t = Target(rc[0].path, rc[0].module, f"{rc[1]}.__init__", True)
        seen[q] = t
        return t

    for facts in model.functions:
        for site in facts.calls:
            q = site.qualname
            if not q or site.method == "apply" or site.receiver_kind is not None:
                continue
            if not q.rsplit(".", 1)[-1][:1].isupper():
                continue
            t = target_of(q)
            if t is None:
                continue
            pos, kw = split_arg_kinds(site.node, site.arg_kinds)
            out.append((facts, site.node, t, Root(t.qual, pos, kw, why="ctor"), NEW + q))
        for q, node in facts.class_refs.items():
            t = target_of(q)
            if t is not None:
                out.append((facts, node, t, Root(t.qual, [], {}, why="ctor-ref"), NEW + q))
    return out


def _is_plain_class(project: Any, fi: Any, cls: str) -> bool:
    """Not an nn.Module, an autograd Function or an exception (through project bases)."""
    ci = fi.classes.get(cls)
    if ci is None or project.is_module_class(fi, cls):
        return False
    for b in ci.bases:
        last = b.rsplit(".", 1)[-1]
        if last in ("Function", "Enum", "IntEnum", "Protocol") or last.endswith(("Error", "Exception", "Warning")):
            return False
    return True
