"""Issue 10 (branch zoo11): failing-line classes of the zoo scoreboard's misses, one reproducer each
with its controls, self-contained (no timm / transformers needed). Exporter behaviour measured with
torch 2.13.0: bench/labels/probes_zoo10/probe_sdpa_view.py, bench/labels/probes_zoo11/ (outputs
next to the probes)."""

from __future__ import annotations

import textwrap

from conftest import line_of, lint

# ---- EXL127: SDPA with a parameter-derived 2-D/4-D mask, output transposed and reshaped ----------
# probe_sdpa_view2.py: onnx-dynamo fails ('Cannot view a tensor with shape ... and strides ...')
# for p3u / p3uc / p3add / p3mul / p2u / emb / embsum / xlin / p2mul / p4mul; passes for p2 / p4 /
# p4c (a parameter itself), p3mul3 and b1sq (3-D), p3det (detached), a buffer, frozen parameters.
SDPA = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Base(nn.Module):
    def __init__(self, dim=64, heads=2, n=5):
        super().__init__()
        self.heads, self.n = heads, n
        self.qkv = nn.Linear(dim, dim * 3)
        self.table = nn.Parameter(torch.zeros((2 * n - 1) ** 2, heads))
        self.register_buffer("index", torch.zeros(n * n, dtype=torch.long))
        self.bias3 = nn.Parameter(torch.zeros(heads, n, n))
        self.bias2 = nn.Parameter(torch.zeros(n, n))
        self.register_buffer("bbuf", torch.zeros(1, heads, n, n))
        self.emb = nn.Embedding(9, heads)
        self.fused_attn = True

    def _rel_bias(self):
        # beit's _get_rel_pos_bias: gather, view (N, N, H), permute, unsqueeze -> (1, H, N, N)
        b = self.table[self.index.view(-1)].view(self.n, self.n, -1)
        b = b.permute(2, 0, 1).contiguous()
        return b.unsqueeze(0)

    def qkv_of(self, x):
        B, N, C = x.shape
        return self.qkv(x).reshape(B, N, 3, self.heads, -1).permute(2, 0, 3, 1, 4).unbind(0)


class Beit(Base):
    def forward(self, x, shared=None):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        if self.fused_attn:
            bias = self._rel_bias()
            if shared is not None:
                bias = bias + shared
            x = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        else:
            attn = (q @ k.transpose(-2, -1)).softmax(-1)
            x = attn @ v
        x = x.transpose(1, 2).reshape(B, N, C)  # BEIT
        return x


class Unsq(Base):
    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias3.unsqueeze(0))
        return o.transpose(1, 2).contiguous().view(B, N, C)  # UNSQ


class TwoD(Base):
    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias2[None, None] * 2.0)
        return o.permute(0, 2, 1, 3).flatten(2)  # TWOD


class Emb(Base):
    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        idx = torch.arange(N)[:, None] - torch.arange(N)[None, :] + 4
        bias = self.emb(idx).permute(2, 0, 1).unsqueeze(0)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        return o.transpose(1, 2).reshape(B, N, -1)  # EMB


class Leaf(Base):
    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias3)
        return o.transpose(1, 2).reshape(B, N, C)  # LEAF


class ThreeD(Base):
    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias3 * 2.0)
        return o.transpose(1, 2).reshape(B, N, C)  # THREED


class Detached(Base):
    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=self._rel_bias().detach())
        return o.transpose(1, 2).reshape(B, N, C)  # DETACHED


class Buffer(Base):
    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bbuf + 0.0)
        return o.transpose(1, 2).reshape(B, N, C)  # BUFFER


class FromInput(Base):
    def forward(self, x, mask):
        B, N, C = x.shape
        q, k, v = self.qkv_of(x)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None])
        return o.transpose(1, 2).reshape(B, N, C)  # INPUT


class NoTranspose(Base):
    def forward(self, x):
        q, k, v = self.qkv_of(x)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias3.unsqueeze(0))
        return o.reshape(-1)  # NOTRANSPOSE
"""


def _at(src, marker, code):
    ln = line_of(src, marker)
    return [f for f in lint(src) if f.line == ln and f.code == code]


def test_sdpa_param_mask_reshape_is_reported_for_onnx_dynamo():
    for marker in ("# BEIT", "# UNSQ", "# TWOD", "# EMB"):
        (f,) = _at(SDPA, marker, "EXL127")
        assert f.severity.value == "warning" and f.exporters == ("onnx-dynamo",), marker
        assert "Cannot view a tensor" in f.message


def test_sdpa_masks_that_export_stay_silent():
    for marker in ("# LEAF", "# THREED", "# DETACHED", "# BUFFER", "# INPUT", "# NOTRANSPOSE"):
        assert _at(SDPA, marker, "EXL127") == [], marker


def test_sdpa_rank_from_the_parameter_factory_needs_the_sizes_written():
    # the factory's sizes are a variable: the rank is unknown, nothing is claimed
    src = SDPA.replace("self.bias3 = nn.Parameter(torch.zeros(heads, n, n))",
                       "self.bias3 = nn.Parameter(torch.zeros(shape3))").replace(
        "def __init__(self, dim=64, heads=2, n=5):", "def __init__(self, dim=64, heads=2, n=5, shape3=(2, 5, 5)):")
    assert _at(src, "# UNSQ", "EXL127") == []
    assert len(_at(src, "# BEIT", "EXL127")) == 1


# ---- EXL128: a forward's defaulted bool/int parameter where a Python value is required ----------
# probe_legacy_default_scalar.py (legacy exporter): is_causal / enable_gqa / keepdim / align_corners /
# training given the parameter fail with TypeError (must be bool, not Tensor); torch.cat dim,
# softmax dim, transpose dims fail with SymbolicValueError (expected onnx::Constant); `if flag:`,
# x.sum(n), F.dropout(p=s) pass. timm's EVA (eva.py:279) fails like the first.
LEGACY = """
import torch
import torch.nn.functional as F


class Attn(torch.nn.Module):
    def forward(self, x, attn_mask=None, is_causal: bool = False, dim: int = 1, keep=False, p=0.5):
        a = F.scaled_dot_product_attention(x, x, x, attn_mask=attn_mask, is_causal=is_causal)  # CAUSAL
        b = torch.cat([a, a], dim=dim)  # CAT
        c = b.softmax(dim)  # SOFTMAX
        d = x.sum(1, keepdim=keep)  # KEEPDIM
        if is_causal:  # IF
            a = a + 1
        e = x.sum(dim)  # SUM
        g = F.dropout(x, p=p, training=False)  # DROPOUT
        return a, b, c, d, e, g


class Rebound(torch.nn.Module):
    def forward(self, x, is_causal: bool = False):
        is_causal = bool(is_causal)
        return F.scaled_dot_product_attention(x, x, x, is_causal=is_causal)  # REBOUND


class Attr(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.is_causal = True

    def forward(self, x):
        return F.scaled_dot_product_attention(x, x, x, is_causal=self.is_causal)  # ATTR


class NoDefault(torch.nn.Module):
    def forward(self, x, is_causal):
        return F.scaled_dot_product_attention(x, x, x, is_causal=is_causal)  # NODEFAULT


def helper(x, is_causal: bool = False):
    return F.scaled_dot_product_attention(x, x, x, is_causal=is_causal)  # HELPER
"""


def test_forward_scalar_param_into_python_only_argument_is_a_legacy_warning():
    for marker in ("# CAUSAL", "# CAT", "# SOFTMAX", "# KEEPDIM"):
        (f,) = _at(LEGACY, marker, "EXL128")
        assert f.severity.value == "warning" and f.exporters == ("onnx-legacy",), marker


def test_uses_that_export_and_non_parameters_stay_silent():
    for marker in ("# IF", "# SUM", "# DROPOUT", "# REBOUND", "# ATTR", "# NODEFAULT", "# HELPER"):
        assert _at(LEGACY, marker, "EXL128") == [], marker


def test_code_skipped_by_the_legacy_exporter_stays_silent():
    src = textwrap.dedent("""
    import torch
    import torch.nn.functional as F


    class M(torch.nn.Module):
        def forward(self, x, is_causal: bool = False):
            if torch.jit.is_tracing():
                return x
            return F.scaled_dot_product_attention(x, x, x, is_causal=is_causal)  # UNTRACED
    """)
    assert _at(src, "# UNTRACED", "EXL128") == []


def test_sdpa_under_grad_off_stays_silent():
    # monai's SwinUNETR WindowAttention: the SDPA path only when `not torch.is_grad_enabled()`;
    # measured (probe_sdpa_view2.py gather:nograd, emb:nograd, p3mul:nograd): computed masks export
    # under no_grad (a plain view of a parameter, p3u:nograd, still fails: not claimed either)
    src = SDPA.replace("        if self.fused_attn:\n            bias = self._rel_bias()",
                       "        if self.fused_attn and not torch.is_grad_enabled():\n            bias = self._rel_bias()")
    assert src != SDPA
    assert _at(src, "# BEIT", "EXL127") == []
    src = SDPA.replace("        o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)\n",
                       "        with torch.no_grad():\n            o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)\n")
    assert src != SDPA
    assert _at(src, "# EMB", "EXL127") == []
    assert len(_at(src, "# UNSQ", "EXL127")) == 1
