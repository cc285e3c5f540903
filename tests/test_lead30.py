"""lead30: declared dynamic dims carried through the tensor methods that move them (issue #9).

``semantics.dim_flow`` used to drop a tensor's declared dims at any ``permute`` / ``transpose`` /
``view`` / ``reshape``, so a helper that reorders a feature map before branching on a size saw
nothing declared. Now each dim moves where the op puts it (literal dims; a negative dim when the
tensor's rank is known), ``unsqueeze`` shifts them, ``flatten(s)`` keeps the dims before ``s``,
and a ``view`` / ``reshape`` dim is carried when its size is a declared dim itself
(``B, C, H, W = x.shape``; ``x.view(B, H, W, C)``). Not carried: the dim ``flatten`` merges and a
view size computed from declared dims (a product of sizes is not a declared dim: ``int()`` of it
does not specialise, bench/labels/probes_lead30/probe_flatten_merged_dim.py), ``-1``, and every
dim when the entry declares multiples (the op would move their indices).
"""

from __future__ import annotations

import os

from conftest import write_package

_HW = '{2: torch.export.Dim("h", min=8, max=128), 3: torch.export.Dim("w", min=8, max=128)}'
_MULT = '{2: 4 * torch.export.Dim("h", min=2, max=32), 3: torch.export.Dim("w", min=8, max=128)}'

_INIT = ("import torch\n\nfrom .net import Net\n\nmodel = Net()\n"
         "example_args = (torch.randn(2, 4, 16, 16),)\ndynamic_shapes = ({dims},)\n")

_NET = """import torch.nn as nn

from .ops import moved


class Net(nn.Module):
    def forward(self, x):
        return moved(x)
"""

_OPS = """def moved(x):
    B, C, H, W = x.shape
    t = x.permute(0, 2, 3, 1)
    u = t.reshape(B, H, W, C)
    m = x.view(B, C, H * W)
    v = x.flatten(2)
    k = x.flatten(1)
    w = x.transpose(1, 3)
    y = x.unsqueeze(0)
    z = t.transpose(-1, -2)
    n = x.reshape(B, C, -1)
    s = x.permute((0, 1, 3, 2))
    return u
"""


def _dims(tmp_path, dims: str, prefix: str) -> dict:
    from exportlint.engine import _project_facts

    files = write_package(tmp_path, {"__init__.py": _INIT.format(dims=dims), "net.py": _NET, "ops.py": _OPS},
                          prefix)
    texts = {p: open(p, "rb").read() for p in files}
    out: dict = {}
    _project_facts(files, texts, None, None, out)
    ops = out[os.path.abspath([p for p in files if p.endswith("ops.py")][0])]
    return ops["moved"]


def test_dims_move_with_permute_transpose_unsqueeze_and_exact_view_sizes(tmp_path):
    d = _dims(tmp_path, _HW, "l30a")
    assert d["x"] == {2, 3}
    assert d["t"] == {1, 2}        # permute(0, 2, 3, 1): H, W now at 1, 2
    assert d["u"] == {1, 2}        # reshape(B, H, W, C): the declared H and W themselves
    assert d["w"] == {1, 2}        # transpose(1, 3): W to 1, H stays at 2
    assert d["y"] == {3, 4}        # unsqueeze(0) shifts them
    assert d["z"] == {1, 3}        # t has rank 4 (permute of four): -1, -2 are 3, 2
    assert d["s"] == {2, 3}        # permute given as one tuple


def test_merged_or_computed_dims_are_not_carried(tmp_path):
    d = _dims(tmp_path, _HW, "l30b")
    assert "v" not in d            # flatten(2) merges H and W into H*W
    assert "k" not in d            # flatten(1): likewise
    assert "n" not in d            # reshape(B, C, -1): -1 is not known
    assert d.get("m", set()) == set()  # view(B, C, H * W): a product of sizes


def test_nothing_moves_when_the_entry_declares_multiples(tmp_path):
    d = _dims(tmp_path, _MULT, "l30c")
    assert {k for k, v in d.items() if {2, 3} & {x for x in v if isinstance(x, int)}} == {"x"}


# ---- a torch name imported in a `try:` keeps its binding over the `except ImportError:` fallback ----

_RMS = """import torch
import torch.nn as nn

try:
    {try_import}
except ImportError:
    {fallback}


class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(8))

    def forward(self, x):
        return rms_norm(x, (8,), self.weight, 1e-6)
"""

_FALLBACK = """import torch


def rms_norm(x, shape, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
"""


def _rms_hits(tmp_path, try_import: str, fallback: str, prefix: str) -> list:
    from conftest import code_hits, lint_package

    files = write_package(tmp_path, {"norm.py": _RMS.format(try_import=try_import, fallback=fallback),
                                     "fast_norm.py": _FALLBACK}, prefix)
    return [(h[0], h[1], h[2], h[3]) for h in code_hits(lint_package(files), "EXL401")]


def test_torch_import_in_try_wins_over_the_project_fallback(tmp_path):
    # measured: timm's RmsNormFp32 (timm/layers/norm.py:290) calls the rms_norm bound so, and the
    # legacy exporter fails there on aten::rms_norm at opset 20 (bench/data/zoo_truth.json,
    # timm/deepseek_vit_412m)
    hits = _rms_hits(tmp_path, "from torch.nn.functional import rms_norm", "from .fast_norm import rms_norm", "l30d")
    assert hits == [("norm.py", 16, "error", ("onnx-legacy",))]


def test_a_try_else_rebinding_wins_over_the_try_body(tmp_path):
    # `else:` runs after the try body succeeded: its binding is the one the model calls
    hits = _rms_hits(tmp_path, "from torch.nn.functional import rms_norm",
                     "from .fast_norm import rms_norm\nelse:\n    from .fast_norm import rms_norm", "l30m")
    assert hits == []


def test_third_party_import_in_try_keeps_the_fallback(tmp_path):
    # apex may be missing where the model is exported: the handler's binding stays (the project's
    # own function, which exports)
    hits = _rms_hits(tmp_path, "from apex.normalization import fused_rms_norm as rms_norm",
                     "from .fast_norm import rms_norm", "l30e")
    assert hits == []


# ---- EXL152: topk with k = min(c, a size) ---------------------------------------------------

_TOPK = """import torch
import torch.nn as nn
from torch.export import Dim


class Indexer(nn.Module):
    def __init__(self):
        super().__init__()
        self.index_topk = 4

    def forward(self, scores):
        {body}

example_args = (torch.randn(2, 3, 8),)
dynamic_shapes = {{"scores": {dims}}}


def export():
    return torch.export.export(Indexer().eval(), example_args, dynamic_shapes=dynamic_shapes)
"""
_SEQ = '{2: Dim("seq", min=2, max=64)}'
_BATCH = '{0: Dim("batch", min=1, max=64)}'


def _topk(tmp_path, body: str, dims: str, prefix: str) -> list:
    from conftest import code_hits, lint_package

    files = write_package(tmp_path, {"idx.py": _TOPK.format(body=body, dims=dims)}, prefix)
    return [(h[1], h[2]) for h in code_hits(lint_package(files), "EXL152")]


def test_topk_of_min_of_a_declared_dynamic_size_is_an_error(tmp_path):
    # measured (bench/labels/probes_lead30/probe_chunk_topk.py, A): strict and non-strict fail
    body = "topk = min(self.index_topk, scores.shape[2])\n        return scores.topk(topk, dim=-1).indices"
    assert _topk(tmp_path, body, _SEQ, "l30f") == [(12, "error")]


def test_topk_of_min_inline_through_torch_topk(tmp_path):
    body = "return torch.topk(scores, min(4, scores.size(2)), dim=2).indices"
    assert _topk(tmp_path, body, _SEQ, "l30g") == [(12, "error")]


def test_topk_of_min_of_a_static_dim_is_silent(tmp_path):
    # the batch alone declared: dim 2 is static, min() of it a constant
    body = "topk = min(self.index_topk, scores.shape[2])\n        return scores.topk(topk, dim=-1).indices"
    assert _topk(tmp_path, body, _BATCH, "l30h") == []


def test_topk_of_a_constant_or_of_min_of_numbers_is_silent(tmp_path):
    # A2 of the probe: a constant k passes; min() of numbers that are not sizes is no size guard
    assert _topk(tmp_path, "return scores.topk(4, dim=-1).indices", _SEQ, "l30i") == []
    body = "k = min(self.index_topk, 8)\n        return scores.topk(k, dim=-1).indices"
    assert _topk(tmp_path, body, _SEQ, "l30j") == []


def test_topk_of_min_of_a_size_with_unknown_dims_is_a_warning(tmp_path):
    from conftest import code_hits, lint_package

    src = ("import torch.nn as nn\n\n\nclass Indexer(nn.Module):\n    def forward(self, scores):\n"
           "        k = min(4, scores.shape[-1])\n        return scores.topk(k, dim=-1).indices\n")
    files = write_package(tmp_path, {"idx.py": src}, "l30k")
    assert [(h[1], h[2]) for h in code_hits(lint_package(files), "EXL152")] == [(6, "warning")]


# ---- EXL153: a dim padded to a multiple of a chunk and split into (-1, chunk) -------------------

_CHUNKS = """import torch
import torch.nn as nn
import torch.nn.functional as F


def pad_by(t, pad):
    return F.pad(t, (0, 0, 0, pad))


def into_chunks(t, pad, chunk):
    t = pad_by(t, pad)
    return t.reshape(t.shape[0], -1, chunk, t.shape[2])


class Scan(nn.Module):
    def __init__(self):
        super().__init__()
        self.chunk = 16

    def forward(self, x):
        seq = x.shape[1]
        pad = {pad}
        y = into_chunks(x, pad, self.chunk).cumsum(2)
        y = y.reshape(y.shape[0], -1, y.shape[-1])
        return y[:, :seq]
"""


def _chunk_hits(tmp_path, pad: str, prefix: str) -> list:
    from conftest import code_hits, lint_package

    files = write_package(tmp_path, {"scan.py": _CHUNKS.format(pad=pad)}, prefix)
    return [(h[1], h[2]) for h in code_hits(lint_package(files), "EXL153")]


def test_padded_chunk_split_in_a_helper_and_the_slice_back(tmp_path):
    # measured (probe_chunk_topk.py B and C): strict and non-strict fail with the sequence dynamic;
    # the helper gets the pad amount and the chunk from the call (transformers' bamba)
    hits = _chunk_hits(tmp_path, "(self.chunk - seq % self.chunk) % self.chunk", "l30n")
    assert hits == [(12, "warning"), (25, "warning")]


def test_padding_that_is_not_to_a_multiple_is_not_reported(tmp_path):
    # a fixed pad: the padded size is seq + 2, no divisibility torch must prove
    assert _chunk_hits(tmp_path, "2", "l30o") == []


def test_a_minus_one_before_another_size_is_not_a_chunk_split(tmp_path):
    from conftest import code_hits, lint_package

    src = _CHUNKS.format(pad="(self.chunk - seq % self.chunk) % self.chunk").replace(
        "t.reshape(t.shape[0], -1, chunk, t.shape[2])", "t.reshape(t.shape[0], -1, 4, t.shape[2] // 4)")
    files = write_package(tmp_path, {"scan.py": src}, "l30p")
    assert [(h[1], h[2]) for h in code_hits(lint_package(files), "EXL153")] == [(25, "warning")]


def test_padded_chunk_split_with_the_size_unpacked_from_a_shape_of_unknown_kind(tmp_path):
    # transformers' bailing_hybrid: the chunk function rebinds its tensors through a list
    # comprehension, so their kind is not known; the sequence length is unpacked from `key.shape`
    from conftest import code_hits, lint_package

    src = """import torch.nn as nn
import torch.nn.functional as F

from kernels_hub import use_kernel


@use_kernel("chunk")
def chunked(key, value, chunk_size=16):
    key, value = [x.transpose(1, 2).contiguous() for x in (key, value)]
    batch, heads, seq, dim = key.shape
    pad_size = (chunk_size - seq % chunk_size) % chunk_size
    key = F.pad(key, (0, 0, 0, pad_size))
    out = key.reshape(batch, heads, -1, chunk_size, dim).cumsum(3)
    out = out.reshape(batch, heads, -1, dim)
    return out[:, :, :seq]


class Mixer(nn.Module):
    def forward(self, key, value):
        return chunked(key, value)
"""
    files = write_package(tmp_path, {"mixer.py": src}, "l30q")
    assert [(h[1], h[2]) for h in code_hits(lint_package(files), "EXL153")] == [(13, "warning"), (15, "warning")]
