"""Issue 10 (branch prec15): false-alarm classes of the sixth fresh zoo population (spandrel,
pypots, torchani, stanza, gpytorch, ...) and of the fifth's leftovers, one reproducer each, with
the controls that must keep firing. The exporters' behaviour behind each is measured in
bench/labels/probes_prec15/."""

from __future__ import annotations

from pathlib import Path

from conftest import codes_at as codes
from conftest import line_of, write_package
from conftest import lint_package as _lint


def _at(findings, code):
    return sorted((Path(f.path).name, f.line) for f in findings if f.code == code)


def _errors(findings):
    return sorted((Path(f.path).name, f.line, f.code) for f in findings if f.severity.value == "error")


# ---------------------------------------------------------------------------------------
# P-ARMSUB: a submodule's forward reached through an attribute __init__ binds on an `if`
# (statement or expression), or through an item of a ModuleList: its arguments are the call
# site's (sizes from x.shape), not export inputs (spandrel DAT / RGT / FDAT; probe p18: all
# four exporters pass and match)
# ---------------------------------------------------------------------------------------

_WINDOWS = """import torch
import torch.nn as nn


def windows2img(win, hs, ws, H, W):
    B = int(win.shape[0] / (H * W / hs / ws))  # INT
    return win.view(B, H // hs, W // ws, hs, ws, -1)


class SpatialAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, H, W):
        B, L, C = x.shape
        assert L == H * W, "flatten img_tokens has wrong size"  # ASSERT
        return windows2img(self.proj(x), 2, 2, H, W)


class ChannelAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, H, W):
        return self.proj(x)


class Adaptive(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attns = nn.ModuleList([SpatialAttention(dim) for _ in range(2)])

    def forward(self, x, H, W):
        pad_r = (4 - W % 4) % 4
        if pad_r > 0:  # PAD
            x = x + 1
        return self.attns[0](x, H, W + pad_r - pad_r)


class Block(nn.Module):
    def __init__(self, dim, b_idx, kind):
        super().__init__()
        if b_idx % 2 == 0:
            self.attn = Adaptive(dim)
        else:
            self.attn = ChannelAttention(dim)
        self.attn2 = SpatialAttention(dim) if kind == "spatial" else ChannelAttention(dim)

    def forward(self, x, x_size):
        H, W = x_size
        return self.attn(x, H, W) + self.attn2(x, H, W)


class Net(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, i, "spatial") for i in range(4)])

    def forward(self, x):
        _, _, H, W = x.shape
        x_size = [H, W]
        t = x.flatten(2).transpose(1, 2)
        for blk in self.blocks:
            t = blk(t, x_size)
        return t
"""


def test_armsub_sizes_reach_branch_bound_submodules_single_file():
    got = codes(_WINDOWS)
    errors = [(ln, c) for ln, c in got if c in ("EXL101", "EXL102", "EXL104")]
    assert errors == []
    # the size math itself is still reported as a warning (int() through a float)
    assert (line_of(_WINDOWS, "# INT"), "EXL116") in got


def test_armsub_sizes_reach_branch_bound_submodules_project(tmp_path):
    found = _lint(write_package(tmp_path, {"nets.py": _WINDOWS}, "armsub"))
    assert [e for e in _errors(found) if e[2] in ("EXL101", "EXL102", "EXL104")] == []
    assert ("nets.py", line_of(_WINDOWS, "# INT")) in _at(found, "EXL116")


def test_armsub_control_data_through_the_branch_bound_submodule_still_fires(tmp_path):
    # the block hands tensor data (a mask count) to the same branch-bound submodules: still reported
    src = _WINDOWS.replace("        H, W = x_size\n", "        H, W = int((x > 0).sum()), x_size[1]\n")
    got = codes(src)
    assert (line_of(src, "# ASSERT"), "EXL101") in got
    found = _lint(write_package(tmp_path, {"nets.py": src}, "armsubc"))
    assert ("nets.py", line_of(src, "# ASSERT"), "EXL101") in _errors(found)


def test_armsub_control_an_unreached_forward_is_still_an_entry():
    # a module no class of the file builds: its forward is an export entry, H a tensor input
    src = _WINDOWS.split("class ChannelAttention")[0]
    assert (line_of(src, "# ASSERT"), "EXL101") in codes(src)


_CHOSEN_ENCODER = """import torch
import torch.nn as nn


class Lite(nn.Module):
    def forward(self, feats: list[torch.Tensor]):
        return [f * 2 for f in feats]


class Hybrid(nn.Module):
    def forward(self, feats: list[torch.Tensor]):
        return [f + 1 for f in feats]


class Model(nn.Module):
    def __init__(self, lite=True):
        super().__init__()
        self.proj = nn.Conv2d(3, 3, 1)
        self.encoder = Lite() if lite else Hybrid()

    def forward(self, x):
        feats = [self.proj(x), self.proj(x)[:, :, ::2]]
        outs = self.encoder(feats)
        total = 0
        for level, f in enumerate(outs):  # LEVELS
            total = total + f.mean()
        return total
"""


def test_armsub_a_chosen_submodule_returns_no_guessed_tensor():
    # dispatching `self.encoder(...)` to both classes' forwards does not make what it returns a
    # tensor (transformers' deimv2 `encoder = Lite(...) if ... else Hybrid(...)` returns feature
    # lists): no "loop over a shape" on the list it returns
    assert line_of(_CHOSEN_ENCODER, "# LEVELS") not in [ln for ln, c in codes(_CHOSEN_ENCODER)]


# ---------------------------------------------------------------------------------------
# P-PACKEDDATA: `.data` of a PackedSequence (the NamedTuple's packed tensor, read with its
# `.batch_sizes`), not Tensor.data (stanza's character models)
# ---------------------------------------------------------------------------------------

_PACKED = """import torch
import torch.nn as nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence


class CharModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 4, batch_first=True)
        self.attn = nn.Linear(4, 1)

    def forward(self, x, lens):
        packed = pack_padded_sequence(x, lens, batch_first=True)
        output = self.lstm(packed)
        char_reps = output[0]
        weights = torch.sigmoid(self.attn(char_reps.data))  # PACKED
        char_reps = PackedSequence(char_reps.data * weights, char_reps.batch_sizes)  # REPACK
        out, _ = pad_packed_sequence(char_reps, batch_first=True)
        scores = self.attn(x).squeeze(-1)
        scores.data.masked_fill_(scores == 0, -1e4)  # TENSOR
        return out, scores
"""


def test_packeddata_field_of_a_packed_sequence_is_not_tensor_data():
    got = [ln for ln, c in codes(_PACKED) if c == "EXL213"]
    assert line_of(_PACKED, "# PACKED") not in got
    assert line_of(_PACKED, "# REPACK") not in got


def test_packeddata_control_tensor_data_still_fires():
    got = [ln for ln, c in codes(_PACKED) if c == "EXL213"]
    assert line_of(_PACKED, "# TENSOR") in got


# ---------------------------------------------------------------------------------------
# P-PARAMITEM: `.item()` of a value computed from the module's weights alone is a constant of
# the exported model (pypots MOMENT's debug check; probe p14: onnx-legacy matches)
# ---------------------------------------------------------------------------------------

_PARAMITEM = """import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, debug=True):
        super().__init__()
        self.encoder = nn.Linear(4, 4)
        self.head = nn.Linear(4, 2)
        self.debug = debug
        self.register_buffer("step", torch.zeros(()))
        self.register_buffer("scale", torch.ones(()))

    def _check_weights(self):
        bad_enc = torch.stack([torch.isnan(p).any() for p in self.encoder.parameters()]).any().item()  # WEIGHTS
        bad_head = torch.stack([torch.isnan(p).any() for p in self.head.parameters()]).any().item()
        return bad_enc or bad_head

    def forward(self, x):
        self.step.add_(1)
        y = self.head(self.encoder(x))
        illegal = self._check_weights() if self.debug else None
        n_nan = torch.isnan(x).sum().item()  # INPUT
        steps = torch.stack([self.step, self.step]).sum().item()  # ADVANCED
        return y, illegal, n_nan, steps
"""


def test_paramitem_item_of_weights_only_is_a_model_constant():
    got = [ln for ln, c in codes(_PARAMITEM) if c == "EXL102"]
    assert line_of(_PARAMITEM, "# WEIGHTS") not in got
    assert line_of(_PARAMITEM, "# WEIGHTS") + 1 not in got


def test_paramitem_control_input_data_and_an_advanced_buffer_still_fire():
    got = [ln for ln, c in codes(_PARAMITEM) if c == "EXL102"]
    assert line_of(_PARAMITEM, "# INPUT") in got
    assert line_of(_PARAMITEM, "# ADVANCED") in got


# ---------------------------------------------------------------------------------------
# P-CLSCTX: an autograd Function (InplaceFunction too) whose forward is a @classmethod takes
# `cls`, then ctx: `ctx.<flag>` is Python state of the call, not tensor data (stanza's
# FeatureDropoutFunction)
# ---------------------------------------------------------------------------------------

_CLSCTX = """import torch
import torch.nn as nn


class FeatureDropoutFunction(torch.autograd.function.InplaceFunction):
    @classmethod
    def forward(cls, ctx, input, p=0.5, train=False, inplace=False):
        ctx.p = p
        ctx.train = train
        ctx.inplace = inplace
        if ctx.inplace:  # FLAG
            output = input
        else:
            output = input.clone()
        if ctx.p > 0 and ctx.train:  # FLAG2
            output = output * 2
        if input.sum() > 0:  # DATA
            output = output + 1
        return output

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None, None


class FeatureDropout(nn.Module):
    def forward(self, x):
        return FeatureDropoutFunction.apply(x, 0.5, self.training, False)
"""


def test_clsctx_classmethod_forward_ctx_is_not_a_tensor():
    got = [ln for ln, c in codes(_CLSCTX) if c == "EXL101"]
    assert line_of(_CLSCTX, "# FLAG") not in got
    assert line_of(_CLSCTX, "# FLAG2") not in got


def test_clsctx_control_data_branch_on_the_input_still_fires():
    got = [ln for ln, c in codes(_CLSCTX) if c == "EXL101"]
    assert line_of(_CLSCTX, "# DATA") in got


# ---------------------------------------------------------------------------------------
# P-NONECMP: `t == None` is a Python bool (False), never tensor data (nnaudio's CQT; probe
# p2 none_compare: all four exporters pass and match)
# ---------------------------------------------------------------------------------------

_NONECMP = """import torch
import torch.nn as nn


def cqt(x, kernel, wcos=None, wsin=None):
    if wcos == None or wsin == None:  # NONE
        return x * kernel
    return x * wcos - x * wsin


class CQT(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("kernel", torch.randn(4))
        self.register_buffer("wcos", torch.randn(4))
        self.register_buffer("wsin", torch.randn(4))

    def forward(self, x):
        y = cqt(x, self.kernel, self.wcos, self.wsin)
        if x.mean() == 0:  # DATA
            y = y + 1
        return y
"""


def test_nonecmp_tensor_compared_with_none_is_a_python_bool():
    assert line_of(_NONECMP, "# NONE") not in [ln for ln, c in codes(_NONECMP) if c == "EXL101"]


def test_nonecmp_control_a_value_comparison_still_fires():
    assert line_of(_NONECMP, "# DATA") in [ln for ln, c in codes(_NONECMP) if c == "EXL101"]


def test_paramitem_control_a_random_draw_is_no_model_constant():
    # funasr's profile augmentation: `torch.rand(()).item()` reads no weight, and a draw is new
    # at every call (the legacy trace bakes one); a weight plus a draw neither
    src = _PARAMITEM.replace("        return y, illegal, n_nan, steps",
                             "        a = torch.rand(()).item()  # RAND\n"
                             "        b = (self.scale * 2 + torch.randn(())).item()  # RANDW\n"
                             "        return y, illegal, n_nan, steps, a, b")
    got = [ln for ln, c in codes(src) if c == "EXL102"]
    assert line_of(src, "# RAND") in got
    assert line_of(src, "# RANDW") in got
