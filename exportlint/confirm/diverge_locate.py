"""The first source line whose value differs between eager and an exported FX program.

A silent divergence with no guard, no TracerWarning and no flipped branch still has a first
line where the program computes something else than the model (measured: torch 2.13 exports
``round(x.shape[0] * 5, -1)`` as ``x.shape[0] * 5``, with no guard and no warning). Run the
model eagerly on the input that diverged recording, per user line, the last tensor an ATen op
made there (a ``TorchDispatchMode``; the line is the innermost user frame on the Python stack);
run the program node by node recording the last tensor per line of each node's
``stack_trace``; the first line (in eager order) present on both sides whose tensors differ
(shape or values) is the answer.

torch is imported inside the functions only.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional

from exportlint.confirm.locate import Location, UserFiles, dedupe_innermost_first, frames_from_text

#: stop recording after this many tensor elements (a failure path: bounded memory)
_MAX_ELEMENTS = 50_000_000


def user_line(users: UserFiles) -> Optional[tuple[str, int]]:
    f = sys._getframe(2)
    while f is not None:
        p = users.resolve(f.f_code.co_filename)
        if p:
            return p, f.f_lineno
        f = f.f_back
    return None


def eager_lines(model: Any, args: tuple, kwargs: dict, users: UserFiles) -> tuple[list, dict]:
    """(lines in first-run order, line -> last tensor made there) of an eager run."""
    import torch
    from torch.utils import _pytree
    from torch.utils._python_dispatch import TorchDispatchMode

    order: list[tuple[str, int]] = []
    last: dict[tuple[str, int], Any] = {}
    budget = [_MAX_ELEMENTS]

    class _Rec(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            out = func(*args, **(kwargs or {}))
            if budget[0] > 0:
                where = user_line(users)
                if where is not None:
                    ts = [t for t in _pytree.tree_leaves(out) if isinstance(t, torch.Tensor)]
                    if ts:
                        t = ts[-1]
                        budget[0] -= t.numel()
                        if where not in last:
                            order.append(where)
                        last[where] = t.detach().clone()
            return out

    with torch.no_grad(), _Rec():
        model(*args, **kwargs)
    return order, last


def program_lines(gm: Any, flat: list, users: UserFiles) -> dict:
    """line -> last tensor a node of that line made, running ``gm`` (an unlifted program)."""
    import torch

    last: dict[tuple[str, int], Any] = {}

    class _Run(torch.fx.Interpreter):
        def call_module(self, target, args, kwargs):  # type: ignore[no-untyped-def]
            if target == "_guards_fn":
                return None
            return super().call_module(target, args, kwargs)

        def run_node(self, n):  # type: ignore[no-untyped-def]
            out = super().run_node(n)
            if n.op == "call_function" and isinstance(out, torch.Tensor):
                frames = dedupe_innermost_first(frames_from_text(n.meta.get("stack_trace") or "", users))
                if frames:
                    last[frames[0]] = out.detach().clone()
            return out

    with torch.no_grad():
        _Run(gm).run(*flat)
    return last


def locate_first_diverging_line(model: Any, ep: Any, example: tuple, users: UserFiles,
                                same: Callable[[list, list], bool]) -> Optional[Location]:
    """The first user line whose tensor differs between eager ``model`` and program ``ep`` on
    ``example`` (args, kwargs)."""
    import copy

    from torch.utils import _pytree

    a, k = example
    order, eager = eager_lines(model, copy.deepcopy(a), copy.deepcopy(k), users)
    flat = list(_pytree.tree_leaves((copy.deepcopy(a), copy.deepcopy(k))))
    prog = program_lines(ep.module(), flat, users)
    for where in order:
        if where not in prog:
            continue
        e, p = eager[where], prog[where]
        if tuple(e.shape) != tuple(p.shape) or not same([e], [p]):
            return Location(where[0], where[1], "first-diverging-line", [where])
    return None
