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
UNKNOWN = "unknown"

TENSORISH = frozenset((TENSOR, MASK))


def join(a: str, b: str) -> str:
    """Least upper bound for merging control-flow paths (x = a if c else b)."""
    if a == b:
        return a
    if a in TENSORISH and b in TENSORISH:
        return TENSOR
    # Optional[Tensor]: None on one path, a tensor on the other -> still a tensor when used
    if a == NONE and b in TENSORISH:
        return b
    if b == NONE and a in TENSORISH:
        return a
    if {a, b} <= {CONST, NONE}:
        return CONST
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
