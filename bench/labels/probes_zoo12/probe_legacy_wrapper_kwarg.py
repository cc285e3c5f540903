"""Legacy ONNX exporter, "forward() got multiple values for argument 'use_cache'" (torch 2.13, zoo12):
transformers' BertModel/GPT2Model/LlamaModel.forward is decorated @merge_with_config_defaults
(outer) @capture_outputs (inner). The legacy exporter reads the forward's signature through
`__wrapped__` and fills every defaulted parameter positionally (_decide_input_format); the outer
wrapper looks `use_cache` up in `func.__code__.co_varnames` of the function it wraps: the inner
wrapper `(self, *args, **kwargs)` has no such name, so it adds `kwargs["use_cache"]`; the inner
wrapper's `func(self, *args, **kwargs)` then gets it twice. Variants (argv): both (outer+inner),
outer (the outer decorator alone), inner (the inner alone), both:dynamo (onnx-dynamo)."""
import contextlib, io, sys, time, warnings
from functools import wraps

import torch

warnings.filterwarnings("ignore")


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
        out = func(self, *args, **kwargs)
        return out
    return wrapper


def force(func):
    @wraps(func)
    def wrapper(self, *args, **kwargs):
        kwargs["use_cache"] = True
        return func(self, *args, **kwargs)
    return wrapper


class Force(torch.nn.Module):
    @force
    def forward(self, x, mask=None, use_cache=None):
        return x * 2


class Both(torch.nn.Module):
    use_cache = False

    @merge_defaults
    @capture
    def forward(self, x, mask=None, use_cache=None):
        return x * 2


class Outer(torch.nn.Module):
    use_cache = False

    @merge_defaults
    def forward(self, x, mask=None, use_cache=None):
        return x * 2


class Inner(torch.nn.Module):
    use_cache = False

    @capture
    def forward(self, x, mask=None, use_cache=None):
        return x * 2


class CallsBoth(torch.nn.Module):
    """The fix: export a module whose forward calls the decorated one with keywords."""

    def __init__(self):
        super().__init__()
        self.inner = Both()

    def forward(self, x):
        return self.inner(x=x, use_cache=False)


for v in sys.argv[1:]:
    name, _, how = v.partition(":")
    m = {"both": Both, "outer": Outer, "inner": Inner, "force": Force, "calls": CallsBoth}[name]().eval()
    t0 = time.time()
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            torch.onnx.export(m, (torch.randn(2, 3),), "/tmp/zoo12_probe2.onnx", dynamo=how == "dynamo")
        print(v, "PASS", f"{time.time() - t0:.1f}s", flush=True)
    except Exception as e:
        print(v, "FAIL", f"{type(e).__name__}: {str(e)[:150]}".replace("\n", " | "), f"{time.time() - t0:.1f}s", flush=True)
