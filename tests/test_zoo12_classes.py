"""Issue 10 (branch zoo12): failing-line classes of the zoo scoreboard's misses, one reproducer each
with its controls, self-contained (no timm / transformers needed). Exporter behaviour measured with
torch 2.13.0: bench/labels/probes_zoo12/ (outputs next to the probes).

EXL127 through an attention mapping (transformers' ``ALL_ATTENTION_FUNCTIONS``; hf T5 and Swin in
the zoo truth): probe_registry_sdpa.py. The module picks its attention function from a mapping
object by a config string, hands it a bias computed from parameters (an Embedding lookup permuted
and unsqueezed; a submodule's table gather), and reshapes what it returns; the SDPA function of the
mapping gives that argument to SDPA as ``attn_mask`` and returns the output transposed (1, 2).
onnx-dynamo fails at the caller's reshape ("Cannot view a tensor"): sdpa:emb, sdpa:gather. It passes
with the bias detached (sdpa:det), zeros built in forward (sdpa:zeros), one head (sdpa:h1, not
decidable statically: a warning) and with the eager function (eager:emb, eager:gather).
"""

from __future__ import annotations

from pathlib import Path

from conftest import line_of, lint, write_package
from conftest import lint_package as _lint


def _codes(findings, code):
    return sorted((Path(f.path).name, f.line) for f in findings if f.code == code)


_FNS = """import torch
import torch.nn.functional as F


def merge_mask(bias, attention_mask, query):
    n = query.shape[2]
    if attention_mask is None:
        return bias[:, :, :n]
    return bias + attention_mask


def sdpa_fn(module, q, k, v, attention_mask, scaling=None, position_bias=None):
    if position_bias is not None:
        attention_mask = merge_mask(position_bias, attention_mask, q)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, scale=scaling)
    o = o.transpose(1, 2).contiguous()
    return o, None


def sdpa_untransposed(module, q, k, v, attention_mask, scaling=None, position_bias=None):
    if position_bias is not None:
        attention_mask = merge_mask(position_bias, attention_mask, q)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, scale=scaling)
    return o, None


def eager_fn(module, q, k, v, attention_mask, scaling=None, position_bias=None):
    if position_bias is not None:
        attention_mask = merge_mask(position_bias, attention_mask, q)
    w = q @ k.transpose(-1, -2)
    if attention_mask is not None:
        w = w + attention_mask
    o = w.softmax(-1) @ v
    return o.transpose(1, 2).contiguous(), w
"""

_REGISTRY = """from .attn_fns import {fns}


class Registry:
    _global_mapping = {{{mapping}}}

    def get_interface(self, impl, default):
        return self._global_mapping.get(impl, default)


REG = Registry()
"""

_MODEL = """import torch
import torch.nn as nn

from .attn_fns import eager_fn
from .registry import REG

N, D = 5, 16


class Bias(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.tbl = nn.Parameter(torch.randn(9, heads))
        self.register_buffer("idx", torch.zeros(N * N, dtype=torch.long))

    def forward(self):
        b = self.tbl[self.idx]
        b = b.view(N, N, -1)
        return b.permute(2, 0, 1).contiguous().unsqueeze(0)


class Attn(nn.Module):
    def __init__(self, impl="sdpa", heads=2):
        super().__init__()
        self.impl, self.heads = impl, heads
        self.q = nn.Linear(heads * D, heads * D)
        self.emb = nn.Embedding(9, heads)
        self.rel = Bias(heads)
        self.o = nn.Linear(heads * D, heads * D)

    def forward(self, x):
        input_shape = x.shape[:-1]
        q = self.q(x).view(*input_shape, -1, D).transpose(1, 2)
        idx = torch.arange(N)[:, None] - torch.arange(N)[None, :] + 4
        {bias}
        fn = REG.get_interface(self.impl, eager_fn)
        {call}
        out = out.reshape(*input_shape, -1).contiguous()
        return self.o(out)
"""

_EMB = "pb = self.emb(idx).permute([2, 0, 1]).unsqueeze(0)"
_GATHER = "pb = self.rel()"
_KW = "out, _ = fn(self, q, q, q, None, scaling=0.25, position_bias=pb)"
_POS = "out, _ = fn(self, q, q, q, pb, scaling=0.25)"


def _pkg(tmp_path, bias=_EMB, call=_KW, fns="sdpa_fn", mapping='"sdpa": sdpa_fn'):
    return write_package(tmp_path, {
        "attn_fns.py": _FNS,
        "registry.py": _REGISTRY.format(fns=fns, mapping=mapping),
        "model.py": _MODEL.format(bias=bias, call=call),
    }, "zoo12reg")


#: `out = out.reshape(*input_shape, -1).contiguous()` in model.py
RESHAPE_LINE = _MODEL.splitlines().index("        out = out.reshape(*input_shape, -1).contiguous()") + 1


def test_embedding_bias_through_the_mapping_warns_at_the_reshape(tmp_path):
    # probe sdpa:emb (T5): FAIL 'Cannot view a tensor'
    f = _lint(_pkg(tmp_path))
    assert _codes(f, "EXL127") == [("model.py", RESHAPE_LINE)]
    hit = next(x for x in f if x.code == "EXL127")
    assert hit.exporters == ("onnx-dynamo",) and hit.severity.value == "warning"
    assert "sdpa_fn" in hit.message


def test_submodule_gather_bias_as_the_mask_argument_warns(tmp_path):
    # probe sdpa:gather (Swin: a relative-position module's table gather, passed positionally)
    f = _lint(_pkg(tmp_path, bias=_GATHER, call=_POS))
    assert _codes(f, "EXL127") == [("model.py", RESHAPE_LINE)]


def test_detached_bias_is_silent(tmp_path):
    # probe sdpa:det: PASS
    f = _lint(_pkg(tmp_path, bias="pb = self.rel().detach()", call=_POS))
    assert _codes(f, "EXL127") == []


def test_zeros_bias_is_silent(tmp_path):
    # probe sdpa:zeros: PASS
    f = _lint(_pkg(tmp_path, bias="pb = torch.zeros(1, self.heads, N, N)"))
    assert _codes(f, "EXL127") == []


def test_mapping_of_the_eager_function_only_is_silent(tmp_path):
    # probe eager:emb / eager:gather: PASS (no SDPA)
    f = _lint(_pkg(tmp_path, fns="eager_fn", mapping='"eager": eager_fn'))
    assert _codes(f, "EXL127") == []


def test_sdpa_function_returning_the_output_untransposed_is_silent(tmp_path):
    # EXL127's class needs the transposed SDPA output reshaped (probe_sdpa_view2: without the
    # transpose it passes)
    f = _lint(_pkg(tmp_path, fns="sdpa_untransposed", mapping='"sdpa": sdpa_untransposed'))
    assert _codes(f, "EXL127") == []


def test_bias_in_an_argument_that_does_not_reach_the_mask_is_silent(tmp_path):
    # merge_mask reads its `query` only for a size: the bias handed as the query is not the mask
    call = "out, _ = fn(self, pb, q, q, None, scaling=0.25)"
    f = _lint(_pkg(tmp_path, call=call))
    assert _codes(f, "EXL127") == []


# ---- EXL116: each size conversion of a size tuple, named once with every exporter its uses break --
# hf mobilevit's `unfolding` (and timm's): `new_h = int(math.ceil(h / p) * p)` and `new_w = ...` on
# two lines, then `F.interpolate(size=(new_h, new_w))` and a reshape by `new_h // p`, `new_w // p`.
# The rule looked at one conversion per size site (the width's was never reported) and named the
# exporters from the first site a conversion was met at (an interpolate size: non-strict and
# legacy only), though the same value also sizes a reshape, where strict fails too (measured,
# tests/test_false_alarms.py::test_exl116_free_output_size_names_nonstrict_and_legacy_only).
UNFOLD = """
from torch.export import Dim
import math
import torch
import torch.nn.functional as F


class Unfold(torch.nn.Module):
    def forward(self, x):
        B, C, H, W = x.shape
        new_h = int(math.ceil(H / 2) * 2)  # <- h
        new_w = int(math.ceil(W / 2) * 2)  # <- w
        x = F.interpolate(x, size=(new_h, new_w), mode="bilinear")
        return x.reshape(B * C * (new_h // 2), 2, new_w // 2, 2)
"""


def test_exl116_both_names_of_a_size_tuple_and_the_reshape_exporters():
    found = sorted((f.line, f.exporters) for f in lint(UNFOLD) if f.code == "EXL116")
    assert [ln for ln, _ in found] == [line_of(UNFOLD, "# <- h"), line_of(UNFOLD, "# <- w")]
    assert all("export-strict" in exps for _, exps in found)


def test_exl116_interpolate_only_stays_nonstrict_and_legacy():
    src = UNFOLD.replace("return x.reshape(B * C * (new_h // 2), 2, new_w // 2, 2)", "return x")
    found = sorted((f.line, f.exporters) for f in lint(src) if f.code == "EXL116")
    assert found == [(line_of(src, "# <- h"), ("export-nonstrict", "onnx-legacy")),
                     (line_of(src, "# <- w"), ("export-nonstrict", "onnx-legacy"))]


# ---- EXL130: a wrapper adds a forward parameter to **kwargs inside another *args/**kwargs wrapper ----
# probe_legacy_wrapper_kwarg.py (legacy exporter, torch 2.13): both (@merge @capture) FAIL "forward()
# got multiple values for argument 'use_cache'"; force (one wrapper that always sets it) FAIL; outer
# alone, inner alone PASS; onnx-dynamo passes both. Zoo truth: BertModel, GPT2Model, LlamaModel,
# MixtralModel, Qwen2Model, Qwen2MoeModel fail the legacy export so (transformers'
# @merge_with_config_defaults @capture_outputs); BartModel, T5EncoderModel, WhisperEncoder pass.
_DECOS = '''from functools import wraps


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


def document(obj):
    obj.__doc__ = "documented"
    return obj
'''

_WRAPPED = '''import torch

from .decos import capture, document, force, merge_defaults


class M(torch.nn.Module):
    use_cache = False

    {decos}
    def forward(self, x, mask=None, use_cache=None):
        return x * 2
'''


def _wrapped(tmp_path, decos):
    return write_package(tmp_path, {"decos.py": _DECOS, "model.py": _WRAPPED.format(decos=decos)}, "zoo12wrap")


def test_exl130_outer_kwarg_writer_around_an_args_wrapper(tmp_path):
    # probe: both FAIL
    f = _lint(_wrapped(tmp_path, "@merge_defaults\n    @capture\n    @document"))
    # (and, since zoo17, at capture's call of the forward, where the exporter raises: tests/test_zoo17.py)
    call = _DECOS.splitlines().index("        out = func(self, *args, **kwargs)") + 1
    assert _codes(f, "EXL130") == [("decos.py", call), ("model.py", 9)]
    hit = next(x for x in f if x.code == "EXL130" and x.path.endswith("model.py"))
    assert hit.exporters == ("onnx-legacy",) and "use_cache" in hit.message


def test_exl130_wrapper_that_always_sets_the_argument(tmp_path):
    # probe: force FAIL
    f = _lint(_wrapped(tmp_path, "@force"))
    # (and, since zoo17, at force's own call of the forward, where the exporter raises)
    lines = _DECOS.splitlines()
    call = lines.index("def force(func):") + 5
    assert lines[call - 1].strip() == "return func(self, *args, **kwargs)"
    assert _codes(f, "EXL130") == [("decos.py", call), ("model.py", 9)]


def test_exl130_outer_alone_finds_the_parameter_and_is_silent(tmp_path):
    # probe: outer PASS (it sees `use_cache` among the forward's own parameters)
    assert _codes(_lint(_wrapped(tmp_path, "@merge_defaults")), "EXL130") == []


def test_exl130_inner_alone_is_silent(tmp_path):
    # probe: inner PASS
    assert _codes(_lint(_wrapped(tmp_path, "@capture")), "EXL130") == []


def test_exl130_forward_without_that_parameter_is_silent(tmp_path):
    files = write_package(tmp_path, {"decos.py": _DECOS, "model.py": _WRAPPED.format(
        decos="@merge_defaults\n    @capture").replace("use_cache=None", "flag=None")}, "zoo12wrap")
    assert _codes(_lint(files), "EXL130") == []
