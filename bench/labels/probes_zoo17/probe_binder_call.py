"""zoo17: where the legacy exporter's "got multiple values" TypeError is raised for a forward decorated
`@merge_defaults @capture` (transformers' @merge_with_config_defaults @capture_outputs shape): the
innermost frame of this file in the traceback. Expected: capture's `func(self, *args, **kwargs)`."""
import io
import sys
import traceback
from functools import wraps

import torch


def merge_defaults(func):
    @wraps(func)
    def wrapper(self, *args, **kwargs):
        for name in ["use_cache"]:
            idx = func.__code__.co_varnames.index(name) - 1 if name in func.__code__.co_varnames else None
            if idx is not None and len(args) > idx:
                args = list(args)
                args[idx] = args[idx] if args[idx] is not None else self.use_cache
                args = tuple(args)
            else:
                kwargs[name] = kwargs.get(name, self.use_cache)
        return func(self, *args, **kwargs)
    return wrapper


def capture(func):
    @wraps(func)
    def wrapper(self, *args, **kwargs):
        kwargs.pop("return_dict", None)
        out = func(self, *args, **kwargs)  # <- binder call
        return out
    return wrapper


class M(torch.nn.Module):
    use_cache = False

    @merge_defaults
    @capture
    def forward(self, x, mask=None, use_cache=None):
        return x * 2


for name, deco_stack in (("merge+capture", M),):
    try:
        torch.onnx.export(M(), (torch.randn(2, 3),), io.BytesIO(), dynamo=False)
        print(name, "legacy: pass")
    except Exception as e:  # noqa: BLE001
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        last = frames[-1]
        print(name, "legacy: FAIL", type(e).__name__, str(e)[:120])
        print("  innermost frame of this file: line", last.lineno, repr(last.line))
