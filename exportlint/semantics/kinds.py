"""The value-kind lattice.

Kinds are plain strings (cheap to compare and to cache):

- ``TENSOR``: a tensor (forward inputs unless annotated or defaulted otherwise, results of
  torch ops, parameters and buffers).
- ``MASK``: a boolean tensor (comparisons of tensors, ``isnan``, ``any``); a TENSOR for every
  purpose except indexing, where it means boolean-mask indexing.
- ``SHAPE``: a Python int/size derived from a tensor's shape (``.shape``, ``.size()``,
  ``len(t)``, ``numel()``): static for a static export, symbolic under dynamic shapes.
- ``DATA``: a Python value derived from tensor *data* (``.item()``, ``int(t)``, ``.tolist()``,
  ``bool(t)``): it leaves the graph.
- ``CONST``: a Python value fixed at export time (literals, config attributes,
  ``self.training``, ``x.ndim``, ``x.dtype``).
- ``NONE``: the None constant.
- ``MODULE``: an nn.Module.
- ``TENSORS``: a Python list or tuple of tensors (a ``list[Tensor]`` parameter, ``[t for t in
  ...]``): its items are tensors, its length is a Python constant (iterating it unrolls nothing
  the input does not fix).
- ``UNKNOWN``: anything else. Rules never report on UNKNOWN: precision first.
"""

from __future__ import annotations

TENSOR = "tensor"
MASK = "mask"
SHAPE = "shape"
DATA = "data"
CONST = "const"
NONE = "none"
MODULE = "module"
TENSORS = "tensors"
UNKNOWN = "unknown"

TENSORISH = frozenset((TENSOR, MASK))

#: only in the argument kinds of a call into another file (``semantics.project.Root``): a tensor
#: whose first dimension depends on tensor data at every such call (boolean-mask indexing,
#: ``nonzero``...; checks/size_semantics.py). The callee analyses it as a TENSOR
#: (``SemanticModel`` converts it) and EXL124 reads which parameters it was.
DATA_SIZED = "tensor:data-sized"
#: the key suffix, in ``SemanticModel.call_returns`` (and a file's result kinds), of the positions
#: (``"0,2"``; ``"-"`` for a plain result) of a call's result that are data-sized tensors
DATA_SIZED_RESULT = "#data-sized"
#: suffix of ``SemanticModel.call_returns`` keys: "1" when the callee (another file) hands a size of
#: what it gets to an op argument the exporters need constant (checks/static_size.py, EXL129)
STATIC_SIZE_RESULT = "#static-size"
#: suffix of ``SemanticModel.call_returns`` keys: "1" when the callee (another file) convolves with
#: ``groups`` set to the batch size of what it gets (checks/conv_groups.py, EXL149 at the call)
CONV_GROUPS_RESULT = "#conv-groups"
#: suffix of ``SemanticModel.call_returns`` keys: the torch API whose trial export fails
#: onnx-dynamo that the callee (another file) calls (checks/ops.py, EXL401 at the call)
DYNAMO_FAIL_RESULT = "#dynamo-fails"
#: suffix of ``SemanticModel.call_returns`` keys: "i:d,..." when the callee (another file, a plain
#: function) takes ``torch.linspace`` / ``logspace`` steps or a ``hann_window`` length from dim d of
#: its i-th parameter (checks/size_semantics.py, EXL123 at the call)
SIZE_FACTORY_RESULT = "#size-factory"


def join(a: str, b: str) -> str:
    """Least upper bound for merging control-flow paths (x = a if c else b)."""
    if a == b:
        return a
    if a == DATA_SIZED:
        a = TENSOR
    if b == DATA_SIZED:
        b = TENSOR
    if a in TENSORISH and b in TENSORISH:
        return TENSOR
    # Optional[Tensor]: None on one path, a tensor on the other -> still a tensor when used
    if a == NONE and b in TENSORISH:
        return b
    if b == NONE and a in TENSORISH:
        return a
    if {a, b} <= {CONST, NONE}:
        return CONST
    if a[:4] == OBJ_PREFIX and b[:4] == OBJ_PREFIX:
        return join_obj(a, b)
    return UNKNOWN


def combine(kinds) -> str:
    """Kind of an arithmetic expression over operands of these kinds."""
    has_shape = has_data = False
    all_const = True
    for k in kinds:
        if k in TENSORISH:
            return TENSOR
        if k == DATA:
            has_data = True
        elif k == SHAPE:
            has_shape = True
        if k not in (CONST, NONE):
            all_const = False
    if has_data:
        return DATA
    if has_shape:
        return SHAPE
    if all_const:
        return CONST
    return UNKNOWN


def truth_kind(k: str) -> str:
    """What evaluating a value of kind k in a boolean context depends on."""
    if k in TENSORISH or k == DATA:
        return DATA
    if k == SHAPE:
        return SHAPE
    if k in (CONST, NONE, MODULE):
        return CONST
    return UNKNOWN


def worst(a: str, b: str) -> str:
    """For tests: DATA beats SHAPE beats UNKNOWN beats CONST."""
    order = {DATA: 3, SHAPE: 2, UNKNOWN: 1, CONST: 0}
    return a if order.get(a, 1) >= order.get(b, 1) else b


# ---- instances of project classes ----------------------------------------------------------
#: an instance of a project class whose attributes have known kinds: ``obj{a=tensor,b=shape}``
#: (sorted, attributes of unknown kind left out). A plain string like every kind, so it flows
#: through environments, call-site argument kinds and cross-file results unchanged; every
#: question the other kinds answer (tensor? size? constant?) it answers "unknown".
OBJ_PREFIX = "obj{"


def obj_kind(attrs: dict) -> str:
    """The kind of an instance whose attributes have these kinds (UNKNOWN ones dropped)."""
    items = sorted((a, k) for a, k in attrs.items() if k != UNKNOWN and not k.startswith(OBJ_PREFIX))
    return OBJ_PREFIX + ",".join(f"{a}={k}" for a, k in items) + "}"


def obj_attrs(k: str) -> "dict[str, str] | None":
    """The attribute kinds of an instance kind, None for other kinds."""
    if not k.startswith(OBJ_PREFIX) or not k.endswith("}"):
        return None
    body = k[len(OBJ_PREFIX):-1]
    out: dict[str, str] = {}
    for part in body.split(",") if body else ():
        a, _, v = part.partition("=")
        out[a] = v
    return out


def join_obj(a: str, b: str) -> str:
    """Two instance kinds joined attribute by attribute (an attribute known on one side only
    becomes unknown)."""
    x, y = obj_attrs(a), obj_attrs(b)
    if x is None or y is None:
        return UNKNOWN
    return obj_kind({n: join(x[n], y[n]) for n in x.keys() & y.keys()})
