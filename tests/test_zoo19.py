"""zoo19: classes of the held-out zoo19 models' misses (bench/zoo_scoreboard.md, zoo19).

EXL127 with the mask built in the PARENT module (hf BEiT, ``modeling_beit.py:338``): the layer calls
its relative-position-bias submodule (``self.relative_position_bias = Bias(config) if cond else None``),
merges the padding mask (``bias + mask if mask is not None else bias``) and hands the result to its
attention submodule's ``forward`` as ``attention_mask``; the attention passes it through a mapping's
SDPA function and reshapes the output. The bias table is a ``torch.cat`` of a parameter's slices.
Measured (bench/labels/probes_zoo19/probe_parent_bias_sdpa.py, torch 2.13): onnx-dynamo fails
"Cannot view a tensor with shape torch.Size([s77, 5, 2, 16]) ..."; the bias detached in the parent,
kept 3-D, the parameter itself, or the eager function pass.
"""

from __future__ import annotations

from pathlib import Path

from conftest import write_package
from conftest import lint_package as _lint

from test_zoo12_classes import _FNS, _REGISTRY


def _codes(findings, code):
    return sorted((Path(f.path).name, f.line) for f in findings if f.code == code)


_MODEL = """import torch
import torch.nn as nn
import torch.nn.functional as F

from .attn_fns import eager_fn
from .registry import REG

N, D, H = 5, 16, 2


class RelBias(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.table = nn.Parameter(torch.randn(12, heads))
        self.register_buffer("idx", torch.zeros(N * N, dtype=torch.long))

    def forward(self, size):
        sub = self.table[:9].reshape(1, 3, 3, -1).permute(0, 3, 1, 2)
        sub = F.interpolate(sub, size=(3, 3), mode="bilinear").permute(0, 2, 3, 1).reshape(9, -1)
        tbl = torch.cat([sub, self.table[9:]])
        b = tbl[self.idx].view(N, N, -1).permute(2, 0, 1).contiguous()
        return {ret}


class Attention(nn.Module):
    def __init__(self, impl="sdpa"):
        super().__init__()
        self.impl = impl
        self.q = nn.Linear(H * D, H * D)

    def forward(self, x, attention_mask=None, **kwargs):
        input_shape = x.shape[:-1]
        q = self.q(x).view(*input_shape, -1, D).transpose(1, 2)
        fn = REG.get_interface(self.impl, eager_fn)
        out, _ = fn(self, q, q, q, attention_mask, scaling=0.25)
        out = out.reshape(*input_shape, -1).contiguous()
        return out


class Layer(nn.Module):
    def __init__(self, use_bias=True):
        super().__init__()
        self.attention = Attention()
        self.rel = RelBias(H) if use_bias else None

    def forward(self, x, attention_mask=None, **kwargs):
        if self.rel is not None:
            bias = {bias}
            attention_mask = bias + attention_mask if attention_mask is not None else bias
        return self.attention(x, attention_mask=attention_mask, **kwargs)
"""

RESHAPE_LINE = _MODEL.splitlines().index("        out = out.reshape(*input_shape, -1).contiguous()") + 1


def _pkg(tmp_path, ret="b.unsqueeze(0)", bias="self.rel(x.shape[1])"):
    return write_package(tmp_path, {
        "attn_fns.py": _FNS,
        "registry.py": _REGISTRY.format(fns="sdpa_fn", mapping='"sdpa": sdpa_fn'),
        "model.py": _MODEL.format(ret=ret, bias=bias),
    }, "zoo19parent")


def test_bias_built_in_the_parent_and_handed_to_the_attention_warns_at_the_reshape(tmp_path):
    f = _lint(_pkg(tmp_path))
    assert _codes(f, "EXL127") == [("model.py", RESHAPE_LINE)]


def test_bias_detached_in_the_parent_is_not_reported(tmp_path):
    f = _lint(_pkg(tmp_path, bias="self.rel(x.shape[1]).detach()"))
    assert _codes(f, "EXL127") == []


def test_bias_kept_3d_is_not_reported(tmp_path):
    f = _lint(_pkg(tmp_path, ret="b"))
    assert _codes(f, "EXL127") == []


def test_mask_from_the_input_only_is_not_reported(tmp_path):
    # the parent hands down only what it was given (no bias computed from parameters)
    f = _lint(_pkg(tmp_path, bias="attention_mask"))
    assert _codes(f, "EXL127") == []


_DIRECT = """import torch
import torch.nn as nn
import torch.nn.functional as F


class Bias(nn.Module):
    def __init__(self):
        super().__init__()
        self.tbl = nn.Parameter(torch.randn(9, 2))

    def forward(self):
        return self.tbl.view(3, 3, 2).permute(2, 0, 1).unsqueeze(0)


class Attn(nn.Module):
    def forward(self, q, mask=None):
        o = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        return o.transpose(1, 2).reshape(q.shape[0], 3, -1)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()
        self.bias = Bias()

    def forward(self, q):
        return self.attn(q, {arg})
"""


def test_direct_sdpa_with_the_parent_bias_warns(tmp_path):
    files = write_package(tmp_path, {"m.py": _DIRECT.format(arg="self.bias()")}, "zoo19direct")
    line = _DIRECT.splitlines().index("        return o.transpose(1, 2).reshape(q.shape[0], 3, -1)") + 1
    assert _codes(_lint(files), "EXL127") == [("m.py", line)]


def test_direct_sdpa_with_the_parent_bias_detached_is_not_reported(tmp_path):
    files = write_package(tmp_path, {"m.py": _DIRECT.format(arg="self.bias().detach()")}, "zoo19direct")
    assert _codes(_lint(files), "EXL127") == []


# EXL203 on a one-way latch (hf BigBirdPegasus's encoder, modeling_bigbird_pegasus.py:1617, a false error on
# the held-out truth: the line ran in its passing, matching onnx-dynamo export). Measured
# (bench/labels/probes_zoo19/probe_latch_state.py): all four exporters pass and match eager whether the latch
# fires during export or not; a toggling write makes the legacy exporter's model differ from eager's next call.
_LATCH = """import torch
import torch.nn as nn


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.attention_type = "block_sparse"

    def set_attention_type(self, value):
        if value == self.attention_type:
            return
        self.attention_type = value

    def forward(self, x):
        if {test}:
            self.set_attention_type({value})
        if self.attention_type == "block_sparse":
            return self.lin(x) * 2
        return self.lin(x) + 1
"""


def _exl203(test, value):
    from conftest import lint

    return [f.line for f in lint(_LATCH.format(test=test, value=value)) if f.code == "EXL203"]


def test_latch_to_another_constant_under_a_test_of_the_old_value_is_not_reported():
    assert _exl203('self.attention_type == "block_sparse" and x.shape[1] <= 4', '"original_full"') == []


def test_toggling_write_stays_reported():
    assert _exl203("x.shape[1] <= 4",
                   '"original_full" if self.attention_type == "block_sparse" else "block_sparse"') != []


def test_write_without_a_test_of_the_old_value_stays_reported():
    assert _exl203("x.shape[1] <= 4", '"original_full"') != []


def test_latch_writing_the_tested_value_stays_reported():
    assert _exl203('self.attention_type == "block_sparse" and x.shape[1] <= 4', '"block_sparse"') != []
