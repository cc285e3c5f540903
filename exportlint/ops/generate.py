"""``exportlint ops generate``: build ``rules/op_support.json`` from the installed exporters.

Needs the ``export`` extra (torch, onnx, onnxscript). Nothing here is imported by the static
linter: ``exportlint.ops.table`` reads the data file without torch.

What it measures, for the installed torch / onnxscript / onnx:

1. The registries, read programmatically:
   - onnx-dynamo: the aten overloads with an ONNX translation in the torchlib registry
     (``ONNXRegistry.from_torchlib``) and the overloads the exporter decomposes first
     (``_decomp.create_onnx_friendly_decomposition_table`` over that registry);
   - onnx-legacy: every symbolic function name with the lowest opset it is registered for
     (``registration.registry`` after ``utils._trigger_symbolic_function_registration()``).
2. Public APIs (``torch.*``, ``torch.nn.functional.*``, ``torch.fft.*``, ``torch.linalg.*``,
   ``torch.special.*``, Tensor methods, ``nn.*`` modules, torchvision.ops when importable):
   sample inputs come from torch's own OpInfo database (``op_db``) and ModuleInfo database
   (``module_db``), plus curated keyword variants (``KEYWORD_PROBES``). Each API is run once
   eagerly under a ``TorchDispatchMode`` that records the aten overloads it dispatches to,
   then wrapped in a tiny ``nn.Module`` and exported with each of the four exporters.
   An exporter "fails" an API only when it fails for every sample tried (up to three);
   when only some samples fail it is "mixed" (argument-dependent, never reported by the
   linter). For the ONNX exporters the lowest opset that works is measured too
   (legacy: re-export at lower opsets; dynamo: the exporter's own version conversion of the
   opset-18 model, which on failure silently keeps opset 18).

The output is deterministic: sorted keys, normalised error texts (no addresses or paths),
seeded inputs, and a generation date that is kept from the previous file when nothing else
changed (or taken from ``--date`` / ``SOURCE_DATE_EPOCH``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import io
import json
import os
import re
import signal
import sys
import time
import types
import unittest
import warnings
from pathlib import Path
from typing import Any, Callable

TABLE_FORMAT = 1
#: a keyword condition meaning "not passed at all" (when presence alone changes the op)
ABSENT = "$absent"
#: a keyword condition meaning "passed and not None"
GIVEN = "$given"
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
ONNX_EXPORTERS = ("onnx-dynamo", "onnx-legacy")
#: lowest opset we bisect down to; an API that exports at this opset gets no opset record
OPSET_FLOOR = 9
MAX_SAMPLES = 3
DEFAULT_OUTPUT = Path(__file__).resolve().parents[2] / "rules" / "op_support.json"

#: Prefixes of OpInfo names that map to public torch namespaces.
_NAMESPACES = ("nn.functional", "linalg", "special", "fft", "signal.windows")

QUICK_APIS = (
    "torch.add",
    "torch.linalg.inv",
    "torch.fft.rfft",
    "torch.cdist",
    "torch.nn.functional.relu",
)
QUICK_KEYWORD_APIS = ("torch.nn.functional.interpolate", "torch.nn.functional.grid_sample")
QUICK_MODULES = ("Linear",)
#: the most basic APIs: the highest dynamo min-opset among them is the "baseline" below which
#: every model degrades (recorded as registries["onnx-dynamo"]["baseline_opset"])
BASELINE_APIS = ("torch.add", "torch.mul", "torch.matmul", "torch.nn.Linear", "torch.nn.functional.relu",
                 "torch.cat", "torch.reshape")
#: in --quick mode, keyword probes keep only the variants whose "when" matches one of these
QUICK_WHEN = (
    {"mode": "bilinear", "antialias": False, "align_corners": None},
    {"mode": "bilinear", "antialias": False, "align_corners": True},
    {"mode": "bilinear", "antialias": True},
    {"mode": "bicubic", "padding_mode": "zeros"},
)


# --------------------------------------------------------------------------------------
# environment
# --------------------------------------------------------------------------------------


def _prepare_process() -> None:
    """Quiet, single-threaded, and able to import torch's OpInfo database."""
    try:
        import expecttest  # noqa: F401
    except ImportError:  # torch.testing._internal needs only its TestCase base class
        stub = types.ModuleType("expecttest")
        stub.TestCase = unittest.TestCase  # type: ignore[attr-defined]
        stub.ACCEPT = False  # type: ignore[attr-defined]
        sys.modules["expecttest"] = stub
    warnings.simplefilter("ignore")
    import logging

    logging.disable(logging.CRITICAL)
    import torch

    torch.set_num_threads(1)


@contextlib.contextmanager
def _quiet_fds():
    """Silence C-level prints (the legacy exporter dumps its graph on failure)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(devnull)
        os.close(saved[0])
        os.close(saved[1])


def versions() -> dict[str, str]:
    import onnx
    import onnxscript
    import torch

    v = {
        "torch": torch.__version__,
        "onnx": onnx.__version__,
        "onnxscript": onnxscript.__version__,
        "python": "%d.%d" % sys.version_info[:2],
    }
    try:
        import torchvision

        v["torchvision"] = torchvision.__version__
    except Exception:
        pass
    return v


# --------------------------------------------------------------------------------------
# registries
# --------------------------------------------------------------------------------------


def read_registries() -> dict[str, Any]:
    import torch.onnx._constants as onnx_constants
    from torch.onnx._internal.exporter import _constants, _decomp, _registration
    from torch.onnx._internal.torchscript_exporter import registration, utils

    reg = _registration.ONNXRegistry.from_torchlib(onnx_constants.ONNX_DEFAULT_OPSET)
    names = sorted(k for k in reg.functions if isinstance(k, str))
    registered = set()
    for metas in reg.functions.values():
        registered.add(metas[0].fx_target)
    decomp = _decomp.create_onnx_friendly_decomposition_table(registered)
    # (distributed collectives, ``c10d_functional::*``, enter the table only once something in
    # the process imported torch.distributed's functional collectives: a probe pool that did
    # and one that did not would write different tables; no model export reaches them)
    decomposed = sorted(n for n in {op.name() for op in decomp if hasattr(op, "name")} - set(names)
                        if not n.split("::", 1)[0].lstrip("_").startswith("c10d"))
    try:  # ops torchlib translates but that need another package (torchvision::nms ...)
        from torch.onnx._internal._lazy_import import onnxscript_apis

        named = {m.qualified_name for m in onnxscript_apis.get_torchlib_ops()}
        external = sorted(n for n in named if not n.startswith(("aten::", "prims::")))
    except Exception:
        external = []

    utils._trigger_symbolic_function_registration()
    legacy = {}
    for name in sorted(registration.registry.all_functions()):
        group = registration.registry.get_function_group(name)
        if group is None:
            continue
        try:
            legacy[name] = int(group.get_min_supported())
        except Exception:
            continue
    return {
        "onnx-dynamo": {
            "default_opset": int(onnx_constants.ONNX_DEFAULT_OPSET),
            "registry_opset": int(_constants.TORCHLIB_OPSET),
            "max_opset": int(onnx_constants.ONNX_MAX_OPSET),
            "translated": names,
            "decomposed": decomposed,
            "external": external,
        },
        "onnx-legacy": {
            "default_opset": int(onnx_constants.ONNX_DEFAULT_OPSET),
            "max_opset": int(onnx_constants.ONNX_TORCHSCRIPT_EXPORTER_MAX_OPSET),
            "symbolics": legacy,
        },
    }


# --------------------------------------------------------------------------------------
# curated keyword variants
# --------------------------------------------------------------------------------------
# Each entry: public API -> (params, variants). params maps keyword name to
# (position in the function call counting the input, default). Each variant is
# (when, build) where build() returns (callable, tuple_of_tensor_inputs, kwargs).
# The callable is the public API itself (or a module built from it) so the trial export
# measures exactly that call.


def _r(*shape):
    import torch

    return torch.randn(*shape)


def _kw_interpolate(name="interpolate"):
    import torch.nn.functional as F

    fn = getattr(F, name)  # F.upsample: the deprecated spelling, same arguments

    def v(mode, antialias=False, nd=4, **extra):
        shape = {3: (1, 2, 6), 4: (1, 2, 6, 6), 5: (1, 2, 4, 4, 4)}[nd]
        kw = dict(mode=mode, **extra)
        if antialias:
            kw["antialias"] = True
        when = {"mode": mode, "antialias": antialias}
        return when, lambda: (fn, (_r(*shape),), dict(kw, scale_factor=kw.pop("scale_factor", 2)))

    def va(mode, align, nd=4):
        # align_corners changes the legacy exporter's minimum opset (True needs Resize, opset 11);
        # absent (None) and False are the same computation
        when, build = v(mode, nd=nd, align_corners=align)
        return dict(when, align_corners=align), build

    variants = [
        v("nearest"),
        v("nearest-exact"),
        v("bilinear", antialias=True, align_corners=False),
        v("bicubic", antialias=True, align_corners=False),
    ] + [va(mode, align, nd) for mode, nd in (("linear", 3), ("bilinear", 4), ("bicubic", 4), ("trilinear", 5))
         for align in (None, False, True)]
    # "area" is adaptive average pooling: the legacy exporter needs a constant output size,
    # which it gets from size= but not from scale_factor=
    for given in (False, True):
        def area(given=given):
            kw = dict(mode="area", size=(3, 3)) if given else dict(mode="area", scale_factor=0.5)
            return fn, (_r(1, 2, 6, 6),), kw

        variants.append(({"mode": "area", "antialias": False, "size": GIVEN if given else None}, area))
    params = {"mode": [3, "nearest"], "antialias": [6, False], "size": [1, None], "align_corners": [4, None]}
    return params, variants


def _kw_grid_sample():
    import torch
    import torch.nn.functional as F

    def v(mode, padding_mode="zeros"):
        def build():
            grid = torch.rand(1, 3, 3, 2) * 2 - 1
            return F.grid_sample, (_r(1, 2, 5, 5), grid), dict(mode=mode, padding_mode=padding_mode, align_corners=False)

        return {"mode": mode, "padding_mode": padding_mode}, build

    variants = [v(m, p) for m in ("bilinear", "nearest", "bicubic") for p in ("zeros", "border", "reflection")]
    return {"mode": [2, "bilinear"], "padding_mode": [3, "zeros"]}, variants


def _kw_unique():
    import torch

    def v(**kw):
        when = {"sorted": kw.get("sorted", True), "return_inverse": kw.get("return_inverse", False),
                "return_counts": kw.get("return_counts", False), "dim": kw.get("dim", None)}
        return when, lambda: (torch.unique, (torch.tensor([[3.0, 1.0], [3.0, 1.0], [2.0, 5.0]]),), kw)

    variants = [
        v(),
        v(sorted=False),
        v(return_inverse=True),
        v(return_counts=True),
        v(return_inverse=True, return_counts=True),
        v(dim=0),
        v(dim=0, return_inverse=True, return_counts=True),
    ]
    params = {"sorted": [1, True], "return_inverse": [2, False], "return_counts": [3, False], "dim": [4, None]}
    return params, variants


def _kw_unique_consecutive():
    import torch

    def v(**kw):
        when = {"return_inverse": kw.get("return_inverse", False), "return_counts": kw.get("return_counts", False),
                "dim": kw.get("dim", None)}
        # integer ids: the typical input (dynamo's translation handles int32/int64 only)
        return when, lambda: (torch.unique_consecutive, (torch.tensor([1, 1, 2, 2, 3, 1]),), kw)

    variants = [v(), v(return_inverse=True), v(return_counts=True), v(dim=0)]
    return {"return_inverse": [None, False], "return_counts": [None, False], "dim": [None, None]}, variants


def _kw_pad():
    import torch.nn.functional as F

    def v(mode):
        return {"mode": mode}, lambda: (F.pad, (_r(1, 2, 5, 5),), dict(pad=(1, 2, 1, 2), mode=mode))

    return {"mode": [2, "constant"]}, [v(m) for m in ("constant", "reflect", "replicate", "circular")]


def _kw_conv(dim):
    import torch.nn.functional as F

    fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[dim]

    def v(padding):
        shape = (1, 2) + (6,) * dim
        wshape = (3, 2) + (3,) * dim
        return {"padding": padding}, lambda: (fn, (_r(*shape), _r(*wshape)), dict(padding=padding))

    return {"padding": [4, 0]}, [v(p) for p in ("same", "valid", 1)]


def _kw_matrix_norm():
    import torch

    def v(ord):
        return {"ord": ord}, lambda: (torch.linalg.matrix_norm, (_r(3, 4),), dict(ord=ord))

    return {"ord": [1, "fro"]}, [v(o) for o in ("fro", "nuc", 1, -1, 2, -2)]


def _kw_torch_norm():
    import torch

    def v(p):
        return {"p": p}, lambda: (torch.norm, (_r(3, 4),), dict(p=p))

    return {"p": [1, "fro"]}, [v(p) for p in ("fro", "nuc", 1, 2)]


def _kw_multinomial():
    import torch

    def v(replacement):
        return {"replacement": replacement}, lambda: (torch.multinomial, (torch.rand(2, 5) + 0.1,), dict(num_samples=3, replacement=replacement))

    return {"replacement": [2, False]}, [v(False), v(True)]


def _kw_gelu():
    import torch.nn.functional as F

    def v(a):
        return {"approximate": a}, lambda: (F.gelu, (_r(2, 3),), dict(approximate=a))

    return {"approximate": [None, "none"]}, [v("none"), v("tanh")]


def _kw_div():
    import torch

    def v(m):
        return {"rounding_mode": m}, lambda: (torch.div, (_r(2, 3), _r(2, 3).abs() + 0.5), dict(rounding_mode=m))

    return {"rounding_mode": [None, None]}, [v(None), v("trunc"), v("floor")]


def _kw_scatter_reduce():
    import torch

    def v(reduce, include_self=True):
        def build():
            idx = torch.tensor([[0, 1, 0], [1, 0, 1]])
            return torch.scatter_reduce, (_r(2, 3), 0, idx, _r(2, 3)), dict(reduce=reduce, include_self=include_self)

        return {"reduce": reduce, "include_self": include_self}, build

    variants = [v(r) for r in ("sum", "prod", "mean", "amax", "amin")] + [v(r, False) for r in ("sum", "amax")]
    return {"reduce": [4, None], "include_self": [None, True]}, variants


def _kw_median(name):
    import torch

    fn = getattr(torch, name)

    def v(dim):
        def build():
            return fn, (_r(3, 5),), ({} if dim is None else {"dim": dim})

        return {"dim": GIVEN if dim is not None else None}, build

    return {"dim": [1, None]}, [v(None), v(1)]


def _kw_bincount():
    import torch

    # measured (torch 2.13): `labels.bincount(weights)` fails onnx-dynamo ('Error when calling
    # function TracedOnnxFunction(aten_bincount)'); without weights (and with minlength) it
    # exports. A probe per case: the opinfo samples mix both.
    def v(weights):
        def build():
            x = torch.tensor([0, 1, 1, 3, 2])
            return torch.bincount, ((x, torch.rand(5)) if weights else (x,)), {"minlength": 4}

        return {"weights": GIVEN if weights else None}, build

    return {"weights": [1, None]}, [v(False), v(True)]


def _kw_sort(name):
    import torch

    fn = getattr(torch, name)

    # Passing stable= at all (even False) selects the aten::sort.stable overload, which
    # neither ONNX exporter translates; leaving it out selects aten::sort.
    def v(stable):
        def build():
            return fn, (_r(3, 5),), (dict(dim=-1) if stable == ABSENT else dict(dim=-1, stable=stable))

        return {"stable": stable}, build

    return {"stable": [None, ABSENT]}, [v(ABSENT), v(False), v(True)]


def _kw_avg_pool2d():
    import torch.nn.functional as F

    def v(**kw):
        when = {"ceil_mode": kw.get("ceil_mode", False), "count_include_pad": kw.get("count_include_pad", True),
                "divisor_override": kw.get("divisor_override", None)}
        return when, lambda: (F.avg_pool2d, (_r(1, 2, 7, 7),), dict(kernel_size=3, stride=2, padding=1, **kw))

    variants = [v(), v(ceil_mode=True), v(count_include_pad=False), v(divisor_override=2)]
    return {"ceil_mode": [4, False], "count_include_pad": [5, True], "divisor_override": [6, None]}, variants


def _kw_max_pool2d():
    import torch.nn.functional as F

    def v(**kw):
        when = {"ceil_mode": kw.get("ceil_mode", False), "return_indices": kw.get("return_indices", False)}
        return when, lambda: (F.max_pool2d, (_r(1, 2, 7, 7),), dict(kernel_size=3, stride=2, **kw))

    variants = [v(), v(ceil_mode=True), v(return_indices=True)]
    return {"ceil_mode": [5, False], "return_indices": [6, False]}, variants


def _kw_embedding_bag():
    import torch
    import torch.nn.functional as F

    def v(mode):
        def build():
            return F.embedding_bag, (torch.tensor([0, 2, 1, 3]), _r(5, 3), torch.tensor([0, 2])), dict(mode=mode)

        return {"mode": mode}, build

    return {"mode": [6, "mean"]}, [v(m) for m in ("sum", "mean", "max")]


def _kw_sdpa():
    import torch.nn.functional as F

    def v(is_causal=False, enable_gqa=False):
        def build():
            hq = 4
            hk = 2 if enable_gqa else 4
            return F.scaled_dot_product_attention, (_r(1, hq, 5, 8), _r(1, hk, 5, 8), _r(1, hk, 5, 8)), dict(
                is_causal=is_causal, enable_gqa=enable_gqa)

        return {"is_causal": is_causal, "enable_gqa": enable_gqa}, build

    return {"is_causal": [5, False], "enable_gqa": [None, False]}, [v(), v(is_causal=True), v(enable_gqa=True)]


def _kw_stft():
    import torch

    def v(center, return_complex=True):
        def build():
            return torch.stft, (_r(64),), dict(n_fft=16, window=torch.hann_window(16), center=center, return_complex=return_complex)

        return {"center": center, "return_complex": return_complex}, build

    # `return_complex=False` (real output, the older API: asteroid, open-unmix) is what the legacy
    # exporter's STFT symbolic supports; it refuses complex output only
    return {"center": [5, True], "return_complex": [9, None]}, [v(True), v(False), v(True, False), v(False, False)]


def _kw_affine_grid():
    import torch.nn.functional as F

    def build():
        # a spatial transformer's grid: theta from the model, the size of its input
        return F.affine_grid, (_r(2, 2, 3),), dict(size=[2, 3, 5, 5], align_corners=False)

    return {}, [({}, build)]


def _kw_unfold():
    import torch.nn.functional as F

    def build():
        # image to patches (im2col), as patch-embedding and local-attention models do
        return F.unfold, (_r(1, 2, 6, 6),), dict(kernel_size=(2, 3), stride=1)

    return {}, [({}, build)]


def _kw_fold():
    import torch.nn.functional as F

    def build():
        # patches back to an image (col2im): the output size is the module's constant
        return F.fold, (_r(1, 12, 12),), dict(output_size=(4, 5), kernel_size=(2, 2))

    return {}, [({}, build)]


def _kw_fftfreq(name):
    def build():
        import torch

        f = getattr(torch.fft, name)

        def call(x):  # the sample count read from a signal's size, as models do
            return f(x.shape[-1])

        return call, (_r(2, 16),), {}

    return {}, [({}, build)]


def _kw_check_tensor_all(name):
    def build():
        import torch

        f = getattr(torch, name)

        def call(x):  # a check on a tensor condition computed from an input, as models do
            cond = x.abs().sum() >= 0
            if name == "_check_tensor_all_with":
                f(ValueError, cond, lambda: "bad input")
            else:
                f(cond, lambda: "bad input")
            return x * 2

        return call, (_r(2, 3),), {}

    return {}, [({}, build)]


def _kw_jit_wrapped(name):
    def build():
        import torch

        # a submodule compiled in __init__ (`self.block = torch.jit.script(Block())`), called in
        # forward: the harness registers it as its submodule, as the user's model does
        sub = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
        mod = torch.jit.script(sub) if name == "script" else torch.jit.trace(sub, (_r(2, 4),))
        return mod, (_r(2, 4),), {}

    return {}, [({}, build)]


def _kw_pack_padded():
    def build():
        import torch
        from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

        def call(x, lengths):  # a padded batch and its lengths, both model inputs
            # packed and unpacked again, as models do (the legacy exporter only exports the pair:
            # "Cannot export individual pack_padded_sequence or pad_packed_sequence")
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            return pad_packed_sequence(packed, batch_first=True, total_length=x.shape[1])[0]

        return call, (_r(3, 5, 4), torch.tensor([5, 3, 2])), {}

    return {}, [({}, build)]


def _kw_pad_sequence():
    def build():
        from torch.nn.utils.rnn import pad_sequence

        def call(a, b):  # sequences of different lengths, batched in forward
            return pad_sequence([a, b], batch_first=True, padding_value=0.0)

        return call, (_r(6, 4), _r(4, 4)), {}

    return {}, [({}, build)]


def _cond_branches():
    def true_fn(a, b):
        return a + b

    def false_fn(a, b):
        return a - b

    return true_fn, false_fn


def _kw_cond(qualname):
    def build():
        cond = _resolve_any(qualname)
        t, f = _cond_branches()

        def call(x, y):
            return cond(x.sum() > 0, t, f, (x, y))

        return call, (_r(3), _r(3)), {}

    return {}, [({}, build)]


def _kw_map():
    def build():
        from functorch.experimental import control_flow

        def body(row, w):
            return row * w

        def call(xs, w):
            return control_flow.map(body, xs, w)

        return call, (_r(3, 2), _r(2)), {}

    return {}, [({}, build)]


def _resolve_any(qualname: str):
    import importlib

    mod, _, attr = qualname.rpartition(".")
    return getattr(importlib.import_module(mod), attr)


def _kw_random_fill(qualname):
    """An in-place random fill of a fresh tensor (``torch.empty_like(x).uniform_(-a, a)``, a
    dithering or noise helper's idiom; ``nn.init.*`` on a tensor made in forward): OpInfo has no
    sample for the in-place methods (pytorch#70497)."""
    def build():
        import torch

        f = torch
        for part in qualname.split(".")[1:]:
            f = getattr(f, part)
        extra = (0.5,) if qualname.endswith(".geometric_") else ()

        def call(x):
            return x + f(torch.empty_like(x), *extra) * 1e-6

        return call, (_r(2, 16),), {}

    return {}, [({}, build)]


#: public API -> builder of (params, variants)
KEYWORD_PROBES: dict[str, Callable[[], tuple[dict, list]]] = {
    "torch.nn.functional.interpolate": _kw_interpolate,
    "torch.nn.functional.grid_sample": _kw_grid_sample,
    "torch.unique": _kw_unique,
    "torch.unique_consecutive": _kw_unique_consecutive,
    "torch.nn.functional.pad": _kw_pad,
    "torch.nn.functional.conv1d": lambda: _kw_conv(1),
    "torch.nn.functional.conv2d": lambda: _kw_conv(2),
    "torch.nn.functional.conv3d": lambda: _kw_conv(3),
    "torch.linalg.matrix_norm": _kw_matrix_norm,
    "torch.norm": _kw_torch_norm,
    "torch.multinomial": _kw_multinomial,
    "torch.nn.functional.gelu": _kw_gelu,
    "torch.div": _kw_div,
    "torch.scatter_reduce": _kw_scatter_reduce,
    "torch.median": lambda: _kw_median("median"),
    "torch.nanmedian": lambda: _kw_median("nanmedian"),
    "torch.bincount": _kw_bincount,
    "torch.sort": lambda: _kw_sort("sort"),
    "torch.argsort": lambda: _kw_sort("argsort"),
    "torch.nn.functional.avg_pool2d": _kw_avg_pool2d,
    "torch.nn.functional.max_pool2d": _kw_max_pool2d,
    "torch.nn.functional.embedding_bag": _kw_embedding_bag,
    "torch.nn.functional.scaled_dot_product_attention": _kw_sdpa,
    "torch.stft": _kw_stft,
    # public APIs with no OpInfo sample (one variant, no keywords)
    "torch.nn.functional.affine_grid": _kw_affine_grid,
    "torch.nn.functional.fold": _kw_fold,
    "torch.nn.functional.unfold": _kw_unfold,
    "torch.nn.functional.upsample": lambda: _kw_interpolate("upsample"),
    "torch.fft.fftfreq": lambda: _kw_fftfreq("fftfreq"),
    "torch.fft.rfftfreq": lambda: _kw_fftfreq("rfftfreq"),
    # checks on tensor conditions (`torch_compilable_check` helpers): lowered to aten._is_all_true
    "torch._check_tensor_all": lambda: _kw_check_tensor_all("_check_tensor_all"),
    "torch._check_tensor_all_with": lambda: _kw_check_tensor_all("_check_tensor_all_with"),
    "torch.nn.utils.rnn.pack_padded_sequence": _kw_pack_padded,
    "torch.nn.utils.rnn.pad_sequence": _kw_pad_sequence,
    # a TorchScript module kept as a submodule (the record says what calling it in forward does)
    "torch.jit.script": lambda: _kw_jit_wrapped("script"),
    "torch.jit.trace": lambda: _kw_jit_wrapped("trace"),
    # higher-order ops: one variant, no keywords
    "torch.cond": lambda: _kw_cond("torch.cond"),
    "functorch.experimental.control_flow.cond": lambda: _kw_cond("functorch.experimental.control_flow.cond"),
    "functorch.experimental.control_flow.map": _kw_map,
    # in-place random fills of a tensor made in forward (one variant, no keywords)
    **{q: (lambda q=q: _kw_random_fill(q)) for q in (
        "torch.Tensor.uniform_", "torch.Tensor.normal_", "torch.Tensor.bernoulli_", "torch.Tensor.exponential_",
        "torch.Tensor.cauchy_", "torch.Tensor.log_normal_", "torch.Tensor.geometric_", "torch.Tensor.random_",
        "torch.nn.init.uniform_", "torch.nn.init.normal_", "torch.nn.init.trunc_normal_")},
}

#: APIs that return a module: their records describe calling that module in forward (matched
#: where a submodule is built with them in __init__, `self.m = torch.jit.script(M())`)
MODULE_WRAPPERS = ("torch.jit.script", "torch.jit.trace")

#: Tensor methods that mirror a function with keyword probes (method form drops the input)
KEYWORD_METHODS = {
    "torch.Tensor.unique": "torch.unique",
    "torch.Tensor.unique_consecutive": "torch.unique_consecutive",
    "torch.Tensor.norm": "torch.norm",
    "torch.Tensor.multinomial": "torch.multinomial",
    "torch.Tensor.div": "torch.div",
    "torch.Tensor.scatter_reduce": "torch.scatter_reduce",
    "torch.Tensor.median": "torch.median",
    "torch.Tensor.nanmedian": "torch.nanmedian",
    "torch.Tensor.sort": "torch.sort",
    "torch.Tensor.argsort": "torch.argsort",
    "torch.Tensor.stft": "torch.stft",
}

#: nn modules with constructor keyword variants: name -> (params, variants of ctor kwargs, input shape)
MODULE_KEYWORD_PROBES: dict[str, tuple[dict, list[tuple[dict, tuple, dict]], tuple]] = {
    "Conv2d": (
        {"padding": [4, 0], "padding_mode": [8, "zeros"]},
        [({"padding": p, "padding_mode": "zeros"}, (2, 3, 3), {"padding": p}) for p in ("same", "valid", 1)]
        + [({"padding": 1, "padding_mode": m}, (2, 3, 3), {"padding": 1, "padding_mode": m})
           for m in ("reflect", "replicate", "circular")],
        (1, 2, 6, 6),
    ),
    "Conv1d": (
        {"padding": [4, 0], "padding_mode": [8, "zeros"]},
        [({"padding": p, "padding_mode": "zeros"}, (2, 3, 3), {"padding": p}) for p in ("same", "valid", 1)]
        + [({"padding": 1, "padding_mode": m}, (2, 3, 3), {"padding": 1, "padding_mode": m})
           for m in ("reflect", "replicate", "circular")],
        (1, 2, 6),
    ),
    # bilinear with align_corners=True / nearest, fixed by the class (no keywords of their own)
    "UpsamplingBilinear2d": ({}, [({}, (), {"scale_factor": 2})], (1, 2, 4, 4)),
    "UpsamplingNearest2d": ({}, [({}, (), {"scale_factor": 2})], (1, 2, 4, 4)),
    "Upsample": (
        {"mode": [2, "nearest"], "align_corners": [3, None]},
        [({"mode": "nearest"}, (), {"scale_factor": 2, "mode": "nearest"})]
        + [({"mode": m, "align_corners": a}, (), {"scale_factor": 2, "mode": m, "align_corners": a})
           for m in ("bilinear", "bicubic") for a in (None, False, True)],
        (1, 2, 4, 4),
    ),
}


# --------------------------------------------------------------------------------------
# probe list
# --------------------------------------------------------------------------------------


def _resolve(qualname: str):
    import torch

    obj: Any = torch
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _opinfo_names(o) -> tuple[str | None, str | None]:
    """(public function qualname or None, public method qualname or None) for an OpInfo."""
    name = o.name
    fn = None
    if not name.startswith("_") and ".." not in name:
        parts = name.split(".")
        if len(parts) == 1 or name.startswith(_NAMESPACES):
            q = "torch." + name
            obj = _resolve(q)
            if callable(obj) and not isinstance(obj, type):
                fn = q
    meth = None
    mv = getattr(o, "method_variant", None)
    mname = getattr(mv, "__name__", None)
    if mv is not None and mname and not mname.startswith("_"):
        import torch

        if getattr(torch.Tensor, mname, None) is not None:
            meth = "torch.Tensor." + mname
    return fn, meth


def _torchvision_ops() -> list[str]:
    try:
        import torchvision.ops  # noqa: F401
    except Exception:
        return []
    return ["torchvision.ops.nms", "torchvision.ops.roi_align", "torchvision.ops.box_iou"]


def probe_list(quick: bool = False) -> list[tuple[str, str]]:
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_modules import module_db

    apis: set[str] = set()
    for o in op_db:
        fn, meth = _opinfo_names(o)
        if fn or meth:
            apis.add(fn or meth)  # type: ignore[arg-type]
    # *_copy variants exist for compilers, *_loss functions for training: not model code
    apis = {a for a in apis if not a.endswith("_copy") and not a.endswith("_loss")}
    probes = [("op", a) for a in sorted(apis)]
    probes += [("kw", a) for a in sorted(KEYWORD_PROBES)]
    # Lazy* modules mirror their eager classes; losses are training-only
    mods = sorted({m.module_cls.__name__ for m in module_db
                   if not m.module_cls.__name__.startswith("Lazy") and not m.module_cls.__name__.endswith("Loss")})
    probes += [("mod", m) for m in mods]
    probes += [("mkw", m) for m in sorted(MODULE_KEYWORD_PROBES)]
    probes += [("tv", a) for a in _torchvision_ops()]
    if quick:
        probes = [p for p in probes if (p[0] == "op" and p[1] in QUICK_APIS) or (p[0] == "kw" and p[1] in QUICK_KEYWORD_APIS)
                  or (p[0] == "mod" and p[1] in QUICK_MODULES)]
    return probes


# --------------------------------------------------------------------------------------
# the worker: run, record aten ops, trial-export
# --------------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _worker_init() -> None:
    _prepare_process()
    import torch  # noqa: F401
    from torch.onnx._internal.exporter import _registration

    # The exporter rebuilds the (identical) torchlib registry on every call (~0.6 s); build it
    # once per opset. Nothing else about the export changes.
    orig = _registration.ONNXRegistry.from_torchlib.__func__  # type: ignore[attr-defined]
    cache: dict[int, Any] = {}

    def cached(cls, opset_version=18):
        if opset_version not in cache:
            cache[opset_version] = orig(cls, opset_version)
        return cache[opset_version]

    _registration.ONNXRegistry.from_torchlib = classmethod(cached)  # type: ignore[method-assign]

    # Every export recomputes the set of preservable CompositeImplicitAutograd ops by walking
    # all op namespaces (~0.5 s). No op is registered during generation, so compute it once.
    import torch._export.utils as export_utils
    import torch.export.decomp_utils as decomp_utils
    import torch.export.exported_program as exported_program

    cia_orig = export_utils._collect_all_valid_cia_ops
    cia_cache: list[set] = []

    def cia_cached():
        if not cia_cache:
            cia_cache.append(set(cia_orig()))
        return set(cia_cache[0])

    for mod in (export_utils, decomp_utils, exported_program):
        if hasattr(mod, "_collect_all_valid_cia_ops"):
            mod._collect_all_valid_cia_ops = cia_cached  # type: ignore[attr-defined]

    from torch.onnx._internal._lazy_import import onnxscript_apis

    # Capture the model handed to the version converter (see _dynamo_min_opset).
    orig_convert = onnxscript_apis.convert_version

    def capturing_convert(model, target_version, *a, **k):
        if _WORKER.get("capture"):
            import onnx_ir as ir

            _WORKER["captured"] = ir.to_proto(model).SerializeToString()
        return orig_convert(model, target_version, *a, **k)

    _WORKER["orig_convert"] = orig_convert
    onnxscript_apis.convert_version = capturing_convert
    _WORKER["ready"] = True


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):  # pragma: no cover - timing dependent
    raise _Timeout()


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_OVERLOAD = re.compile(r"<OpOverload\(op='([\w.]+)', overload='(\w+)'\)>")


def normalize_error(e: BaseException) -> str:
    """One short, stable line for an export failure."""
    text = _ANSI.sub("", str(e))
    kind = type(e).__name__
    line = ""
    if "## Exception summary" in text:
        for ln in text.split("## Exception summary", 1)[1].splitlines():
            m = re.match(r"<class '([\w.]+)'>: (.*)", ln.strip())
            if m:
                kind = m.group(1).rsplit(".", 1)[-1]
                line = m.group(2)
                break
    if not line:
        for ln in text.splitlines():
            if ln.strip():
                line = ln.strip()
                break
    line = _OVERLOAD.sub(lambda m: f"{m.group(1)}.{m.group(2)}", line)
    # the dispatcher's boilerplate tail adds nothing to "No ONNX function found for <op>"
    line = line.replace(". Failure message: No decompositions registered for the real-valued input", "")
    line = line.replace(". Failure message: No decompositions registered for the complex-valued input", "")
    line = re.sub(r"0x[0-9a-fA-F]+", "0x?", line)
    line = re.sub(r"(/[^\s:'\"]+)+/([\w.]+\.py)", r"\2", line)
    line = re.sub(r"\.py:\d+", ".py", line)
    line = re.sub(r"\s+", " ", line).strip()
    if len(line) > 220:
        line = line[:217] + "..."
    return f"{kind}: {line}" if line else kind


def _make_harness(fn: Callable, args: tuple, kwargs: dict, module: Any = None):
    """A tiny nn.Module whose forward calls ``fn`` (or ``module``) with tensors as inputs."""
    import torch
    import torch.utils._pytree as pytree

    leaves, spec = pytree.tree_flatten((args, kwargs))
    tensors = []
    consts: list[Any] = []
    tpos: list[int] = []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, torch.Tensor):
            tpos.append(i)
            tensors.append(leaf.detach().contiguous())
            consts.append(None)
        else:
            consts.append(leaf)

    class Harness(torch.nn.Module):
        def __init__(self):
            super().__init__()
            if module is not None:
                self.mod = module

        raw = False  # True: return the API's own output (aten recording, no post-processing)

        def forward(self, *inputs):
            flat = list(consts)
            for j, i in enumerate(tpos):
                flat[i] = inputs[j]
            a, k = pytree.tree_unflatten(flat, spec)
            out = self.mod(*a, **k) if module is not None else fn(*a, **k)
            if self.raw:
                return out
            res = []
            for t in pytree.tree_leaves(out):
                if isinstance(t, torch.Tensor):
                    if t.is_complex():
                        t = torch.view_as_real(t.resolve_conj())
                    res.append(t)
            return tuple(res)

    return Harness().eval(), tuple(tensors)


def _record_aten(call: Callable[[], Any]) -> tuple[Any, list[str]]:
    from torch.utils._python_dispatch import TorchDispatchMode

    seen: set[str] = set()

    class Rec(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.add(func.name())
            return func(*args, **(kwargs or {}))

    with Rec():
        out = call()
    return out, sorted(seen)


def _export(exporter: str, m, args: tuple, opset: int | None = None, optimize: bool = True):
    import torch

    if exporter == "export-strict":
        torch._dynamo.reset()
        return torch.export.export(m, args, strict=True)
    if exporter == "export-nonstrict":
        return torch.export.export(m, args, strict=False)
    if exporter == "onnx-dynamo":
        return torch.onnx.export(m, args, dynamo=True, opset_version=opset, optimize=optimize, verbose=False)
    buf = io.BytesIO()
    torch.onnx.export(m, args, buf, dynamo=False, opset_version=opset)
    return buf


def _try(exporter, m, args, opset=None, optimize=True) -> str | None:
    try:
        with _quiet_fds():
            _WORKER["exported"] = _export(exporter, m, args, opset, optimize)
        return None
    except _Timeout:
        raise
    except BaseException as e:  # noqa: BLE001 - any failure is the measurement
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return normalize_error(e)


#: aten ops that draw random numbers: their ONNX outputs cannot match eager's
_RANDOM_ATEN = ("rand", "bernoulli", "multinomial", "normal", "uniform", "dropout", "rrelu", "exponential",
                "poisson", "geometric", "cauchy", "log_normal", "empty")


def _onnx_divergence(exported: Any, tensors: tuple, out: tuple) -> str | None:
    """Run an ONNX export (ONNXProgram or BytesIO) in onnxruntime on the sample and compare with
    eager; a message when the numbers differ, None when they match or cannot be compared."""
    import numpy as np
    import onnxruntime as ort

    try:
        blob = exported.getvalue() if isinstance(exported, io.BytesIO) else exported.model_proto.SerializeToString()
        sess = ort.InferenceSession(blob, providers=["CPUExecutionProvider"])
        names = [i.name for i in sess.get_inputs()]
        if len(names) != len(tensors) or len(sess.get_outputs()) != len(out):
            return None
        got = sess.run(None, {n: t.detach().numpy() for n, t in zip(names, tensors)})
    except Exception:  # noqa: BLE001 - not comparable (onnxruntime lacks a kernel, ...): no claim
        return None
    worst = 0.0
    for g, e in zip(got, out):
        e = e.detach().numpy()
        if g.shape != e.shape:
            return f"Diverged: onnxruntime output shape {list(g.shape)} differs from eager {list(e.shape)}"
        g64, e64 = g.astype(np.float64), e.astype(np.float64)
        if np.allclose(np.sort(g64, axis=None), np.sort(e64, axis=None), rtol=1e-3, atol=1e-4, equal_nan=True) \
                and not np.allclose(g64, e64, rtol=1e-3, atol=1e-4, equal_nan=True):
            continue  # the same values in another order (`unique(sorted=False)`): no claim
        if e.dtype.kind in "biu":
            if not np.array_equal(g, e):
                return "Diverged: onnxruntime output differs from eager (integer values)"
            continue
        if not np.allclose(g64, e64, rtol=1e-3, atol=1e-4, equal_nan=True):
            finite = np.isfinite(g64) & np.isfinite(e64)
            worst = max(worst, float(np.abs(g64 - e64)[finite].max()) if finite.any() else float("inf"))
    if worst:
        return f"Diverged: the export succeeds but onnxruntime differs from eager (max abs diff {worst:.3g})"
    return None


def _legacy_min_opset(m, args, default_opset: int) -> int | None:
    """Lowest opset (> OPSET_FLOOR) the legacy exporter accepts, by bisection; None if the floor works."""
    if _try("onnx-legacy", m, args, OPSET_FLOOR) is None:
        return None
    lo, hi = OPSET_FLOOR, default_opset  # lo fails, hi passes
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _try("onnx-legacy", m, args, mid) is None:
            hi = mid
        else:
            lo = mid
    return hi


def _dynamo_min_opset(m, args, registry_opset: int, captured: bytes | None = None) -> int | None:
    """Lowest opset the dynamo exporter really produces when asked for it.

    Below the torchlib opset (18) the exporter builds the model at 18 and runs the onnxscript
    version converter; when that conversion fails it keeps opset 18 without raising. We replay
    exactly that conversion for every lower opset on the model the exporter hands to the
    converter. ``captured`` is that model from the default-opset export: when it uses no ONNX
    op newer than 18, the opset-18 build is the same graph and we reuse it (relabelled);
    otherwise (gelu, group_norm, rms_norm, sdpa have newer translations) we export at 18.
    """
    import onnx
    import onnx_ir as ir

    blob = captured
    if blob is not None:
        proto = onnx.ModelProto.FromString(blob)
        newer = False
        for node in proto.graph.node:
            if node.domain in ("", "ai.onnx"):
                try:
                    if onnx.defs.get_schema(node.op_type, max_inclusive_version=30).since_version > registry_opset:
                        newer = True
                        break
                except Exception:
                    newer = True
                    break
        if newer or any(f for f in proto.functions):
            blob = None
        else:
            for imp in proto.opset_import:
                if imp.domain in ("", "ai.onnx"):
                    imp.version = registry_opset
            blob = proto.SerializeToString()
    if blob is None:
        _WORKER["capture"] = True
        _WORKER.pop("captured", None)
        try:
            err = _try("onnx-dynamo", m, args, registry_opset, optimize=False)
        finally:
            _WORKER["capture"] = False
        blob = _WORKER.pop("captured", None)
        if err is not None or blob is None:
            return None

    convert = _WORKER["orig_convert"]

    def reaches(target: int) -> bool:
        model = ir.from_proto(onnx.ModelProto.FromString(blob))
        try:
            with _quiet_fds():
                convert(model, target)
            return model.opset_imports.get("", None) == target
        except Exception:
            return False

    # The converter steps down one opset at a time, so failing to reach t means failing
    # below t as well: bisect between the floor and the torchlib opset.
    if reaches(OPSET_FLOOR):
        return None
    lo, hi = OPSET_FLOOR, registry_opset  # lo fails, hi works (it is the build opset)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reaches(mid):
            hi = mid
        else:
            lo = mid
    first_ok = hi
    return None if first_ok <= OPSET_FLOOR else first_ok


#: failures that mean "the exporter has no translation for an op this API dispatches to";
#: they do not depend on argument values. Anything else (an assertion in a translation,
#: "alpha != 1", a data-dependent guard) may be specific to the sample's arguments.
_OP_MISSING = re.compile(
    r"^(DispatchError: No ONNX function found for"
    r"|UnsupportedOperatorError: Exporting the operator '[\w:.]+' to ONNX opset version \d+ is not supported"
    r"|UnsupportedOperatorError: ONNX export failed on an operator with unrecognized namespace)"
)
#: ops the harness adds itself (complex outputs are returned through view_as_real)
_HARNESS_OPS = ("aten::view_as_real", "aten.view_as_real")


def is_op_missing(err: str, api: str = "") -> bool:
    if not _OP_MISSING.match(err):
        return False
    if any(f"'{h}'" in err or f" {h}." in err for h in _HARNESS_OPS) and not api.endswith("view_as_real"):
        return False
    return True


def _measure(samples: list[tuple[Callable, tuple, dict, Any]], registries: dict, api: str = "",
             trusted: bool = False) -> dict | None:
    """Run and export samples; combine into one record.

    The first sample that runs eagerly is exported with every exporter. An exporter that
    fails it is retried on up to MAX_SAMPLES - 1 further samples: it "fails" the API only when
    it fails them all, else the API is "mixed" for it (argument-dependent).
    """
    import torch

    aten: set[str] = set()
    first = None
    errors: dict[str, list[str | None]] = {ex: [] for ex in EXPORTERS}
    tried = 0
    captured = None
    for fn, args, kwargs, module in samples:
        pending = EXPORTERS if first is None else tuple(
            ex for ex in EXPORTERS if errors[ex] and all(e is not None for e in errors[ex]))
        if first is not None and (not pending or tried >= MAX_SAMPLES):
            break
        torch.manual_seed(0)
        try:
            m, tensors = _make_harness(fn, args, kwargs, module)
            m.raw = True
            try:
                with _quiet_fds():
                    _, ops = _record_aten(lambda: m(*tensors))
            except _Timeout:
                raise
            except Exception:  # higher-order ops (torch.cond) refuse a dispatch mode
                ops = []
                torch._dynamo.reset()  # cond compiles its branches; drop what the failure cached
            m.raw = False
            out = m(*tensors)
        except _Timeout:
            raise
        except Exception:
            continue  # the sample itself does not run eagerly: not a measurement
        if not out:
            continue
        tried += 1
        aten.update(ops)
        if first is None:
            first = (m, tensors)
        for ex in pending:
            torch.manual_seed(0)
            capture = ex == "onnx-dynamo" and first[0] is m
            _WORKER["capture"] = capture
            _WORKER.pop("captured", None)
            _WORKER.pop("exported", None)
            try:
                errors[ex].append(_try(ex, m, tensors))
            finally:
                _WORKER["capture"] = False
            exported = _WORKER.pop("exported", None)
            if (trusted and errors[ex][-1] is None and ex in ONNX_EXPORTERS and exported is not None
                    and not any(r in op for op in ops for r in _RANDOM_ATEN)):
                # a silent divergence fails the API as surely as an error (curated probes only:
                # OpInfo samples include extreme values and are not checked)
                errors[ex][-1] = _onnx_divergence(exported, tensors, out)
            if capture:
                captured = _WORKER.pop("captured", None)
    if first is None:
        return None
    rec: dict[str, Any] = {"aten": sorted(aten), "n": tried}
    fail: dict[str, str] = {}
    other: dict[str, str] = {}
    mixed: list[str] = []
    for ex in EXPORTERS:
        errs = errors[ex]
        if all(e is not None for e in errs):
            if trusted or all(is_op_missing(e, api) for e in errs):  # type: ignore[arg-type]
                fail[ex] = errs[0]  # type: ignore[assignment]
            else:
                other[ex] = errs[0]  # type: ignore[assignment]
        elif any(e is not None for e in errs):
            mixed.append(ex)
    if fail:
        rec["fail"] = fail
    if other:
        rec["error"] = other
    if mixed:
        rec["mixed"] = mixed
    opset: dict[str, int] = {}
    m, tensors = first
    ranked = _ranked_sample(samples, first) if any(t.ndim == 0 for t in _tensors_of(tensors)) else None
    for ex in ONNX_EXPORTERS:
        if errors[ex][0] is not None:
            continue
        om, ot, cap = m, tensors, captured
        if ranked is not None and _try(ex, ranked[0], ranked[1]) is None:
            # the lowest opset of a 0-d first sample is not what model code needs: OpInfo's
            # repeat_interleave starts with a 0-d input, which the legacy exporter takes only
            # from opset 13 ('list index out of range' below), while inputs of rank >= 1 export
            # from opset 9 (bench/labels/probes_cases19/probes.out)
            om, ot, cap = ranked[0], ranked[1], None
        if ex == "onnx-legacy":
            n = _legacy_min_opset(om, ot, registries["onnx-legacy"]["default_opset"])
        else:
            n = _dynamo_min_opset(om, ot, registries["onnx-dynamo"]["registry_opset"], cap)
        if n is not None:
            opset[ex] = n
    if opset:
        rec["opset"] = opset
    return rec


def _tensors_of(tree) -> list:
    import torch

    return [t for t in _leaves(tree) if isinstance(t, torch.Tensor)]


def _ranked_sample(samples: list, first: tuple) -> tuple | None:
    """(harness, tensors) of the first sample after ``first`` that runs eagerly and whose tensors
    all have rank >= 1 (what model code passes), for measuring the lowest opset; None if none."""
    import torch

    seen_first = False
    for fn, args, kwargs, module in samples:
        if not seen_first:
            seen_first = True
            continue
        if any(t.ndim == 0 for t in _tensors_of((args, kwargs))):
            continue
        torch.manual_seed(0)
        try:
            m, tensors = _make_harness(fn, args, kwargs, module)
            if not m(*tensors):
                continue
        except _Timeout:
            raise
        except Exception:
            continue
        return m, tensors
    return None


def _opinfo_samples(qualname: str, limit: int = 60):
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    infos = []
    for o in op_db:
        fn, meth = _opinfo_names(o)
        if (fn or meth) == qualname:
            infos.append(o)
    out = []
    target = _resolve(qualname) if not qualname.startswith("torch.Tensor.") else None
    mname = qualname.rsplit(".", 1)[1]
    for o in infos:
        dtype = torch.float32
        try:
            supported = o.supported_dtypes("cpu")
            if torch.float32 not in supported:
                cands = [d for d in (torch.int64, torch.bool, torch.float64, torch.complex64) if d in supported]
                if not cands:
                    continue
                dtype = cands[0]
        except Exception:
            pass
        torch.manual_seed(0)
        try:
            gen = o.sample_inputs("cpu", dtype, requires_grad=False)
            n = 0
            for s in gen:
                n += 1
                if n > limit:
                    break
                tensors = [t for t in _leaves((s.input, s.args, s.kwargs)) if isinstance(t, torch.Tensor)]
                if not tensors or any(t.numel() == 0 for t in tensors):
                    continue
                if target is not None:
                    # OpInfo's own callable when it wraps the API (einsum, where, svd ...): it
                    # adapts the sample's calling convention and calls the public function
                    # the public function itself; OpInfo's own callable only when the sample
                    # follows its wrapper's calling convention (einsum, where, svd ...).
                    # (OpInfo wrappers of random ops reseed inside: not what users call.)
                    fn = target
                    args = (s.input, *s.args)
                    if o.op is not target and callable(o.op):
                        try:
                            with _quiet_fds():
                                target(*args, **s.kwargs)
                        except Exception:
                            fn = o.op
                else:
                    fn = _method_caller(mname)
                    args = (s.input, *s.args)
                out.append((fn, args, dict(s.kwargs), None))
                if len(out) >= 2 * MAX_SAMPLES:
                    break
        except Exception:
            continue
    return out


def _method_caller(name: str):
    def call(self, *args, **kwargs):
        return getattr(self, name)(*args, **kwargs)

    return call


def _leaves(tree):
    import torch.utils._pytree as pytree

    return pytree.tree_leaves(tree)


def _module_samples(name: str):
    import torch
    from torch.testing._internal.common_modules import module_db

    out = []
    for info in module_db:
        if info.module_cls.__name__ != name:
            continue
        torch.manual_seed(0)
        try:
            inputs = info.module_inputs_func(info, device="cpu", dtype=torch.float32, requires_grad=False, training=False)
        except Exception:
            continue
        for mi in inputs:
            if mi.forward_input is None:
                continue
            try:
                torch.manual_seed(0)
                mod = info.module_cls(*mi.constructor_input.args, **mi.constructor_input.kwargs).eval()
            except Exception:
                continue
            fa, fk = mi.forward_input.args, mi.forward_input.kwargs
            tensors = [t for t in _leaves((fa, fk)) if isinstance(t, torch.Tensor)]
            if not tensors or any(t.numel() == 0 for t in tensors):
                continue
            out.append((None, tuple(fa), dict(fk), mod))
            if len(out) >= 2 * MAX_SAMPLES:
                break
    return out


def run_probe(probe: tuple[str, str], registries: dict, timeout: int, quick: bool = False) -> tuple[tuple[str, str], Any]:
    if not _WORKER.get("ready"):
        _worker_init()
    import torch

    kind, key = probe
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(timeout)
    try:
        if kind == "op":
            return probe, _measure(_opinfo_samples(key), registries, key)
        if kind == "mod":
            return probe, _measure(_module_samples(key), registries, "torch.nn." + key)
        if kind == "tv":
            return probe, None  # torchvision probes: placeholder until a working torchvision exists
        if kind == "kw":
            params, variants = KEYWORD_PROBES[key]()
            if quick:
                variants = [(w, b) for w, b in variants if w in QUICK_WHEN]
            out = []
            for when, build in variants:
                torch.manual_seed(0)
                fn, args, kwargs = build()
                if isinstance(fn, torch.nn.Module):  # a module the API returned: register it
                    rec = _measure([(None, args, kwargs, fn)], registries, key, trusted=True)
                else:
                    rec = _measure([(fn, args, kwargs, None)], registries, key, trusted=True)
                if rec is not None:
                    out.append(dict(rec, when=when))
            return probe, {"params": params, "variants": out}
        if kind == "mkw":
            params, variants, shape = MODULE_KEYWORD_PROBES[key]
            cls = getattr(torch.nn, key)
            out = []
            for when, ctor_args, ctor_kwargs in variants:
                torch.manual_seed(0)
                try:
                    mod = cls(*ctor_args, **ctor_kwargs).eval()
                except Exception:
                    continue
                rec = _measure([(None, (torch.randn(*shape),), {}, mod)], registries, "torch.nn." + key, trusted=True)
                if rec is not None:
                    out.append(dict(rec, when=when))
            return probe, {"params": params, "variants": out}
        raise ValueError(kind)
    except _Timeout:
        return probe, "timeout"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _serve(conn, registries, timeout: int, quick: bool) -> None:  # pragma: no cover - runs in a child
    """Worker loop: receive a probe, send back its result, until None."""
    _worker_init()
    while True:
        probe = conn.recv()
        if probe is None:
            return
        conn.send(run_probe(probe, registries, timeout, quick))


def _pool_run(probes, registries, workers: int, timeout: int, progress: bool, quick: bool = False):
    """Run probes in ``workers`` child processes (spawned: torch is not fork-safe).

    Each probe has a soft limit (SIGALRM, ``timeout``) and a hard one: a worker stuck in C++
    code (the legacy exporter loops forever on some inputs) is killed after ``timeout + 60`` s
    and replaced; the probe is recorded as skipped ("timeout").
    """
    results: dict[tuple[str, str], Any] = {}
    t0 = time.time()
    if workers <= 0:  # in-process (debugging)
        _worker_init()
        for i, p in enumerate(probes):
            k, v = run_probe(p, registries, timeout, quick)
            results[k] = v
            if progress:
                print(f"[{i + 1}/{len(probes)}] {p[0]} {p[1]} ({time.time() - t0:.0f}s)", file=sys.stderr)
        return results
    import multiprocessing as mp
    from multiprocessing.connection import wait

    ctx = mp.get_context("spawn")
    hard = timeout + 60

    def spawn():
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_serve, args=(child, registries, timeout, quick), daemon=True)
        proc.start()
        child.close()
        return {"proc": proc, "conn": parent, "probe": None, "since": 0.0}

    todo = list(probes)
    pool = [spawn() for _ in range(min(workers, max(1, len(todo))))]
    done = 0

    def give(w):
        if todo:
            w["probe"] = todo.pop(0)
            w["since"] = time.time()
            w["conn"].send(w["probe"])
        else:
            w["probe"] = None

    for w in pool:
        give(w)
    try:
        while any(w["probe"] is not None for w in pool):
            busy = [w for w in pool if w["probe"] is not None]
            ready = wait([w["conn"] for w in busy], timeout=5)
            now = time.time()
            for i, w in enumerate(pool):
                if w["probe"] is None:
                    continue
                outcome = None
                kill = False
                if w["conn"] in ready:
                    try:
                        k, v = w["conn"].recv()
                        outcome = (k, v)
                    except (EOFError, OSError):
                        outcome = (w["probe"], "crash")
                        kill = True
                elif now - w["since"] > hard or not w["proc"].is_alive():
                    outcome = (w["probe"], "timeout" if w["proc"].is_alive() else "crash")
                    kill = True
                if outcome is None:
                    continue
                results[outcome[0]] = outcome[1]
                done += 1
                if progress:
                    print(f"[{done}/{len(probes)}] {w['probe'][0]} {w['probe'][1]} ({now - t0:.0f}s)", file=sys.stderr)
                if kill:
                    w["proc"].kill()
                    w["proc"].join()
                    pool[i] = w = spawn()
                give(w)
    finally:
        for w in pool:
            try:
                w["conn"].send(None)
            except Exception:
                pass
        for w in pool:
            w["proc"].join(timeout=10)
            if w["proc"].is_alive():
                w["proc"].kill()
    return results


# --------------------------------------------------------------------------------------
# assembly
# --------------------------------------------------------------------------------------


def _method_map() -> dict[str, str]:
    """Tensor method qualname -> function qualname, for OpInfos that have both."""
    from torch.testing._internal.common_methods_invocations import op_db

    out: dict[str, str] = {}
    for o in op_db:
        fn, meth = _opinfo_names(o)
        if fn and meth and meth not in out:
            out[meth] = fn
        for alias in getattr(o, "aliases", ()) or ():
            aname = getattr(alias, "name", "")
            if fn and aname and not aname.startswith("_"):
                q = "torch." + aname
                if callable(_resolve(q)) and q != fn:
                    out.setdefault(q, fn)
                amv = getattr(alias, "method_variant", None)
                mname = getattr(amv, "__name__", None)
                if amv is not None and mname and not mname.startswith("_"):
                    out.setdefault("torch.Tensor." + mname, fn)
    return out


def assemble(registries: dict, results: dict, meta: dict) -> dict:
    apis: dict[str, Any] = {}
    skipped: list[str] = []
    for (kind, key), rec in sorted(results.items()):
        if kind in ("mod", "mkw"):
            qual = "torch.nn." + key
        else:
            qual = key
        if not isinstance(rec, dict):
            if rec is not None:
                skipped.append(f"{qual} ({rec})")
            continue
        entry = apis.setdefault(qual, {})
        if kind in ("kw", "mkw"):
            entry["params"] = rec["params"]
            entry["variants"] = rec["variants"]
            # the union of aten ops over variants, when the plain probe found none
            if "aten" not in entry:
                ops: set[str] = set()
                for v in rec["variants"]:
                    ops.update(v.get("aten", ()))
                entry["aten"] = sorted(ops)
        else:
            entry.update({k: v for k, v in rec.items()})
        entry["src"] = {"op": "opinfo", "kw": "curated", "mod": "module_db", "mkw": "curated", "tv": "torchvision"}[kind] \
            if "src" not in entry else entry["src"] + "+" + {"kw": "curated", "mkw": "curated"}.get(kind, kind)
        if kind in ("mod", "mkw"):
            entry["module"] = True
        if qual in MODULE_WRAPPERS:
            entry["wraps_module"] = True
    return finish(registries, apis, meta, skipped)


def module_functional_map(apis: dict) -> dict[str, str]:
    """``torch.nn.X`` -> ``torch.nn.functional.x`` for the module classes with no record of their
    own whose ``forward`` is a thin wrapper of one functional that has a record (read from the
    installed torch's source: ``nn.MaxUnpool2d.forward`` returns ``F.max_unpool2d(...)``).

    The rules use the functional's record for ``self.m(...)`` calls of such a module, only when
    the record does not depend on keyword arguments (the module's arguments differ)."""
    import inspect

    import torch.nn as nn

    out: dict[str, str] = {}
    for name in sorted(dir(nn)):
        cls = getattr(nn, name, None)
        if not (isinstance(cls, type) and issubclass(cls, nn.Module)) or name.startswith("Lazy"):
            continue
        qual = "torch.nn." + name
        fwd = cls.__dict__.get("forward")
        if qual in apis or fwd is None:
            continue
        try:
            src = inspect.getsource(fwd)
        except (OSError, TypeError):
            continue
        called = set(re.findall(r"\bF\.([A-Za-z_][A-Za-z_0-9]*)\(", src))
        if len(called) != 1:
            continue
        target = "torch.nn.functional." + called.pop()
        if target in apis:
            out[qual] = target
    return out


def finish(registries: dict, apis: dict, meta: dict, skipped: list[str]) -> dict:
    """Aliases and derived facts over the API records; the whole table."""
    aliases: dict[str, dict] = {}
    for alias, target in sorted(_method_map().items()):
        if target in apis and alias not in apis:
            aliases[alias] = {"to": target, "method": alias.startswith("torch.Tensor.")}
    for alias, target in sorted(KEYWORD_METHODS.items()):
        if target in apis:
            aliases[alias] = {"to": target, "method": True}
            apis.pop(alias, None) if alias in apis and "variants" not in apis[alias] else None
    # Below this opset the dynamo exporter keeps every model at the torchlib opset, whatever
    # it calls (measured on the most basic APIs): a configuration problem, not an API's.
    base = [apis[a]["opset"].get("onnx-dynamo", 0) for a in BASELINE_APIS if a in apis and "opset" in apis[a]]
    registries = dict(registries)
    registries["onnx-dynamo"] = dict(registries["onnx-dynamo"], baseline_opset=max(base) if base else 0,
                                     baseline_apis=[a for a in BASELINE_APIS if a in apis])
    return {
        "format": TABLE_FORMAT,
        "meta": meta,
        "registries": registries,
        "apis": apis,
        "aliases": aliases,
        "module_forward": module_functional_map(apis),
        "skipped": sorted(skipped),
    }


def _dump(table: dict) -> str:
    return json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"


def _today(explicit: str | None) -> str:
    if explicit:
        return explicit
    sde = os.environ.get("SOURCE_DATE_EPOCH")
    if sde:
        return _dt.datetime.fromtimestamp(int(sde), tz=_dt.timezone.utc).date().isoformat()
    return _dt.datetime.now(tz=_dt.timezone.utc).date().isoformat()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="exportlint ops generate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", "-o", default=str(DEFAULT_OUTPUT), help="data file to write (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="probe a handful of APIs only (for tests)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per probe (default 60)")
    parser.add_argument("--date", default=None, help="generation date to record (YYYY-MM-DD); default: "
                        "SOURCE_DATE_EPOCH, else the previous file's date when nothing changed, else today")
    parser.add_argument("--only", action="append", default=[], help="probe only these API names (debugging)")
    parser.add_argument("--progress", action="store_true", help="print one line per probe to stderr")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    try:
        _prepare_process()
        import torch  # noqa: F401
    except ImportError as e:
        print(f"exportlint ops generate needs the export extra (torch, onnx, onnxscript): {e}", file=sys.stderr)
        return 2
    t0 = time.time()
    with _quiet_fds():
        registries = read_registries()
    probes = probe_list(args.quick)
    if args.only:
        probes = [p for p in probes if p[1] in args.only or ("torch.nn." + p[1]) in args.only]
    results = _pool_run(probes, registries, max(1, args.workers), args.timeout, args.progress, args.quick)
    command = "exportlint ops generate"
    if args.quick:
        command += " --quick"
    if args.timeout != 60:
        command += f" --timeout {args.timeout}"
    for name in args.only:
        command += f" --only {name}"
    meta = {"versions": versions(), "command": command.strip(), "quick": bool(args.quick or args.only),
            "generated": ""}
    table = assemble(registries, results, meta)
    out = Path(args.output)
    if args.only and out.exists():
        # re-probe only these APIs and merge them into the existing table (same versions)
        old = json.loads(out.read_text())
        if old.get("meta", {}).get("versions") == meta["versions"] and old.get("format") == TABLE_FORMAT:
            apis = dict(old["apis"])
            redone = {("torch.nn." + k if kind in ("mod", "mkw") else k) for kind, k in probes}
            for name in redone:
                apis.pop(name, None)
            apis.update(table["apis"])
            skipped = [x for x in old.get("skipped", []) if x.split(" ", 1)[0] not in redone] + table["skipped"]
            table = finish(registries, apis, dict(old["meta"], generated=""), skipped)
    date = args.date
    if date is None and not os.environ.get("SOURCE_DATE_EPOCH") and out.exists():
        try:
            old = json.loads(out.read_text())
            old_date = old.get("meta", {}).get("generated", "")
            old["meta"]["generated"] = ""
            if _dump(old) == _dump(table):
                date = old_date
        except Exception:
            pass
    table["meta"]["generated"] = _today(date)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_dump(table))
    n_fail = sum(1 for e in table["apis"].values() if e.get("fail"))
    print(f"wrote {out}: {len(table['apis'])} APIs ({n_fail} failing with some exporter), "
          f"{len(table['aliases'])} aliases, {len(table['skipped'])} skipped, in {time.time() - t0:.0f}s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
