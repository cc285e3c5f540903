"""Is a divergence only a different choice among tied values?

``topk``, ``sort``, ``argmax``/``argmin`` and ``max``/``min`` along a dim may return any of
several equal elements; eager torch and onnxruntime break ties differently. Measured on
torchvision's SSDlite with random weights (the zoo's ``tv_ssdlite``): its classification head
gives every anchor the same score (1/91), so each of the 90 per-class ``score.topk(300)`` picks
300 of 3234 equal scores; the legacy ONNX model picks others, and 1164 of 1200 box values
"differ" although both runs are right.

The test mirrors ``worker._ill_conditioned``: run eager again with the other valid tie order
(each selecting op computed on its input reversed along the dim, indices mapped back, so among
equal elements the last wins instead of the first). If eager's own outputs then move beyond
the tolerances, the outputs depend on how ties are broken and a mismatch is no evidence of a
divergence. When no tie changes a selection, or the outputs do not move, the divergence stands.

torch is imported inside the functions only.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from exportlint.confirm.locate import UserFiles


def _flipped(func: Any, args: tuple, kwargs: dict) -> Optional[Any]:
    """``func`` with the other tie order, or None if ``func`` is not an order-selecting op."""
    import torch

    aten = torch.ops.aten
    kw = dict(kwargs or {})
    if func is aten.topk.default:
        x, k = args[0], args[1]
        dim = args[2] if len(args) > 2 else kw.pop("dim", -1)
        rest = args[3:]
        n = x.shape[dim] if x.dim() else 1
        v, i = func(x.flip(dim) if x.dim() else x, k, dim, *rest, **kw)
        return v, (n - 1 - i) if x.dim() else i
    if func in (aten.sort.default, aten.sort.stable):
        x = args[0]
        if func is aten.sort.default:
            dim = args[1] if len(args) > 1 else kw.get("dim", -1)
            desc = args[2] if len(args) > 2 else kw.get("descending", False)
        else:
            dim = kw.get("dim", -1) if kw.get("dim") is not None else -1
            desc = kw.get("descending", False)
        if not x.dim():
            return None
        n = x.shape[dim]
        v, i = aten.sort.stable(x.flip(dim), stable=True, dim=dim, descending=desc)
        return v, n - 1 - i
    if func in (aten.argmax.default, aten.argmin.default):
        x = args[0]
        dim = args[1] if len(args) > 1 else kw.get("dim")
        keep = args[2] if len(args) > 2 else kw.get("keepdim", False)
        if dim is None or not x.dim():
            return None
        return x.shape[dim] - 1 - func(x.flip(dim), dim, keep)
    if func in (aten.max.dim, aten.min.dim):
        x, dim = args[0], args[1]
        keep = args[2] if len(args) > 2 else kw.get("keepdim", False)
        if not x.dim():
            return None
        v, i = func(x.flip(dim), dim, keep)
        return v, x.shape[dim] - 1 - i
    return None


def _same(a: Any, b: Any) -> bool:
    import torch
    from torch.utils import _pytree

    la = [t for t in _pytree.tree_leaves(a) if isinstance(t, torch.Tensor)]
    lb = [t for t in _pytree.tree_leaves(b) if isinstance(t, torch.Tensor)]
    return len(la) == len(lb) and all(x.shape == y.shape and bool(torch.equal(x, y)) for x, y in zip(la, lb))


def tie_dependent(run: Callable[[], list], expect: list, users: UserFiles,
                  close: Callable[[list, list], bool]) -> Optional[tuple[str, int, str]]:
    """(path, line, op) of the first order-selecting op whose choice among equal elements
    changes eager's outputs (``run()`` returns them; ``expect`` are the reference outputs of
    the same input; ``close(expect, got)`` is the parity test), or None."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    from exportlint.confirm.diverge_locate import user_line

    first: list = []

    class _OtherTieOrder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            out = func(*args, **(kwargs or {}))
            try:
                alt = _flipped(func, args, kwargs or {})
            except Exception:  # noqa: BLE001 - keep eager's own choice
                alt = None
            if alt is None or _same(out, alt):
                return out
            if not first:
                where = user_line(users)
                first.append((where[0], where[1]) if where else ("", 0))
                first[0] = (*first[0], str(getattr(func, "__name__", func)))
            return alt

    with torch.no_grad(), _OtherTieOrder():
        again = run()
    if not first:
        return None
    if len(again) == len(expect) and all(getattr(a, "shape", None) == getattr(e, "shape", None)
                                         for a, e in zip(again, expect)) and close(expect, again):
        return None
    return first[0]
