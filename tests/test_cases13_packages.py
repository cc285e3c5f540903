"""Classes fixed from the held-out batch 13 of multi-file real-issue cases (issue 10), on the
case-package branch cases13 (bench/data/cases_batch13.md).

Measured with torch 2.13 (bench/data/cases_truth.json; one-file probes quoted in
rules/EXL135.md, rules/EXL136.md and checks/ops.py ``cdist_rows_decide``):

- EXL135: a Python ``random`` / ``numpy.random`` draw that runs in forward (BART's LayerDrop,
  the draw before ``if self.training and p < layerdrop``) fails strict torch.export; the same
  draw only in training, or in ``__init__``, exports everywhere.
- EXL136: a ``torch.Generator`` handed to a random op (``generator=self.g``) fails strict
  torch.export, onnx-dynamo and onnx-legacy (not for ``Tensor.normal_``); ``generator=None``
  passes; a generator parameter is unknown.
- EXL401 on ``torch.cdist`` (p=2, default compute mode): onnx-dynamo exports it when an input has
  more than 25 rows (matmul path) and fails at 25 or fewer: a warning, not an error; ``p=1`` or
  ``donot_use_mm`` stays an error; ``use_mm_for_euclid_dist`` is never reported.
"""

from __future__ import annotations

from conftest import code_hits as _hits
from conftest import lint_package as _lint
from conftest import write_package

# ---- EXL135: Python random drawn in forward ----------------------------------------------

_LAYERS = """import torch.nn as nn


class EncoderLayer(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return x + self.fc(x).relu()
"""

_ENCODER = """import random

import numpy as np
import torch.nn as nn

from .layers import EncoderLayer


class Encoder(nn.Module):
    def __init__(self, n=2, layerdrop=0.1):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer() for _ in range(n)])
        self.layerdrop = layerdrop
        self.start = random.random()

    def forward(self, x):
        for layer in self.layers:
{body}
            x = layer(x)
        return x
"""


def _encoder(tmp_path, body):
    return write_package(tmp_path, {"layers.py": _LAYERS, "encoder.py": _ENCODER.format(body=body)}, "app13")


def test_layerdrop_draw_before_the_training_gate_is_reported(tmp_path):
    body = ("            p = random.uniform(0, 1)\n"
            "            if self.training and p < self.layerdrop:\n"
            "                continue")
    assert _hits(_lint(_encoder(tmp_path, body)), "EXL135") == [
        ("encoder.py", 18, "error", ("export-strict",))]


def test_numpy_random_draw_is_reported(tmp_path):
    body = ("            p = np.random.rand()\n"
            "            if self.training and p < self.layerdrop:\n"
            "                continue")
    assert [h[:2] for h in _hits(_lint(_encoder(tmp_path, body)), "EXL135")] == [("encoder.py", 18)]


def test_draw_after_the_training_short_circuit_is_silent(tmp_path):
    body = ("            if self.training and random.uniform(0, 1) < self.layerdrop:\n"
            "                continue")
    assert _hits(_lint(_encoder(tmp_path, body)), "EXL135") == []


def test_draw_under_a_training_block_and_in_init_are_silent(tmp_path):
    body = ("            if self.training:\n"
            "                p = random.random()\n"
            "                if p < self.layerdrop:\n"
            "                    continue\n"
            "            random.seed(0)")
    assert _hits(_lint(_encoder(tmp_path, body)), "EXL135") == []


# ---- EXL136: a torch.Generator handed to a random op --------------------------------------

_AUGMENT = """import torch
import torch.nn as nn


class Dither(nn.Module):
    def __init__(self, scale=0.0, generator=None):
        super().__init__()
        self.scale = scale
        self.g = torch.Generator().manual_seed(0)
        self.none = None
        self.given = generator

    def forward(self, img):
        noise = {draw}
        return img + self.scale * noise
"""

_NET = """import torch.nn as nn

from .augment import Dither


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.dither = Dither()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, img):
        return self.conv(self.dither(img))
"""


def _dither(tmp_path, draw):
    return write_package(tmp_path, {"augment.py": _AUGMENT.format(draw=draw), "net.py": _NET}, "app13g")


def test_generator_attribute_is_reported_for_strict_dynamo_legacy(tmp_path):
    f = _lint(_dither(tmp_path, "torch.rand(img.shape, generator=self.g, device=img.device)"))
    assert _hits(f, "EXL136") == [
        ("augment.py", 14, "error", ("export-strict", "onnx-dynamo", "onnx-legacy"))]


def test_generator_to_normal_inplace_spares_legacy(tmp_path):
    f = _lint(_dither(tmp_path, "torch.empty_like(img).normal_(generator=self.g)"))
    assert _hits(f, "EXL136") == [("augment.py", 14, "error", ("export-strict", "onnx-dynamo"))]


def test_generator_none_and_unknown_generator_are_silent(tmp_path):
    assert _hits(_lint(_dither(tmp_path, "torch.rand(img.shape, generator=None, device=img.device)")),
                 "EXL136") == []
    assert _hits(_lint(_dither(tmp_path, "torch.rand(img.shape, generator=self.none, device=img.device)")),
                 "EXL136") == []
    assert _hits(_lint(_dither(tmp_path, "torch.rand(img.shape, generator=self.given, device=img.device)")),
                 "EXL136") == []


# ---- EXL401: torch.cdist's onnx-dynamo failure depends on row counts ----------------------

_KNN = """import torch


def nearest(embedding, bank, k):
    d = {call}
    return d.topk(k, largest=False, dim=1)[0]
"""

_PATCHCORE = """import torch
import torch.nn as nn

from .knn import nearest


class Patchcore(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bank", torch.randn(32, 8))

    def forward(self, x):
        return nearest(x.flatten(1), self.bank, 3)
"""


def _knn(tmp_path, call):
    return write_package(tmp_path, {"knn.py": _KNN.format(call=call), "patchcore.py": _PATCHCORE}, "app13c")


def test_cdist_p2_default_mode_is_a_dynamo_warning(tmp_path):
    f = _lint(_knn(tmp_path, "torch.cdist(embedding, bank)"))
    assert _hits(f, "EXL401") == [("knn.py", 5, "warning", ("onnx-dynamo",))]


def test_cdist_p1_and_no_mm_stay_errors(tmp_path):
    for call in ("torch.cdist(embedding, bank, p=1.0)",
                 "torch.cdist(embedding, bank, compute_mode='donot_use_mm_for_euclid_dist')"):
        hits = _hits(_lint(_knn(tmp_path, call)), "EXL401")
        assert ("knn.py", 5, "error", ("onnx-dynamo",)) in hits, (call, hits)


def test_cdist_always_mm_is_silent(tmp_path):
    f = _lint(_knn(tmp_path, "torch.cdist(embedding, bank, compute_mode='use_mm_for_euclid_dist')"))
    assert _hits(f, "EXL401") == []


# ---- EXL207: rows of a tensor of sizes as torch.linspace's step count ----------------------

_REF = """import torch


def get_reference_points(spatial_shapes, device):
    out = []
    for H_, W_ in spatial_shapes:
        ys = torch.linspace(0.5, H_ - 0.5, {steps}, dtype=torch.float32, device=device)
        out.append(ys / H_)
    return torch.cat(out, 0)
"""

_ENC = """import torch
import torch.nn as nn

from .ops import get_reference_points


class Encoder(nn.Module):
    def forward(self, feat1, feat2):
        feats = [feat1, feat2]
        spatial_shapes = {shapes}
        return get_reference_points(spatial_shapes, feat1.device)
"""


def _ref(tmp_path, shapes, steps="H_"):
    return write_package(tmp_path, {"ops/__init__.py": "from .reference_points import get_reference_points\n",
                                    "ops/reference_points.py": _REF.format(steps=steps),
                                    "encoder.py": _ENC.format(shapes=shapes)}, "app13r")


_AS_TENSOR = "torch.as_tensor([f.shape[2:] for f in feats], dtype=torch.long, device=feat1.device)"


def test_linspace_steps_from_rows_of_a_size_tensor_in_a_reexported_helper(tmp_path):
    f = _lint(_ref(tmp_path, _AS_TENSOR))
    assert _hits(f, "EXL207") == [
        ("reference_points.py", 7, "error", ("export-strict", "export-nonstrict", "onnx-dynamo"))]


def test_linspace_from_python_sizes_or_constant_steps_is_silent(tmp_path):
    assert _hits(_lint(_ref(tmp_path, "[tuple(f.shape[2:]) for f in feats]")), "EXL207") == []
    assert _hits(_lint(_ref(tmp_path, _AS_TENSOR, steps="8")), "EXL207") == []


# ---- EXL137: int() of a size along a dim declared dynamic ---------------------------------

_CTX_INIT = """import torch

from .model import ContextPath

model = ContextPath()
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = ({dims},)
"""

_CTX_MODEL = """import torch.nn as nn
import torch.nn.functional as F


class ContextPath(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)

    def forward(self, x):
        feat = self.down(x)
        {line}
        return F.interpolate(feat, size=size, mode="nearest")
"""

_HW = '2: torch.export.Dim("H", min=16, max=128), 3: torch.export.Dim("W", min=16, max=128)'


def _ctx(tmp_path, line, dims=_HW):
    return write_package(tmp_path, {"__init__.py": _CTX_INIT.format(dims="{" + dims + "}"),
                                    "model.py": _CTX_MODEL.format(line=line)}, "app13i")


def test_int_comprehension_over_sizes_of_a_declared_dynamic_input(tmp_path):
    f = _lint(_ctx(tmp_path, "size = [int(t) for t in x.size()[2:]]"))
    assert _hits(f, "EXL137") == [("model.py", 12, "error", ("export-nonstrict", "onnx-dynamo", "onnx-legacy"))]


def test_int_of_a_feature_map_size_of_a_conv_is_an_error(tmp_path):
    # engine18: `feat = self.down(x)` (an nn.Conv2d) keeps the declared dims 2 and 3 of `x`
    # (semantics/dim_flow.py); measured on bench/cases/pkg_bisenet_int_shape_list: non-strict
    # fails at `[int(t) for t in feat32.size()[2:]]`
    f = _lint(_ctx(tmp_path, "size = [int(t) for t in feat.size()[2:]]"))
    assert _hits(f, "EXL137") == [("model.py", 12, "error", ("export-nonstrict", "onnx-dynamo", "onnx-legacy"))]


def test_int_of_static_dims_or_undeclared_shapes_is_silent(tmp_path):
    assert _hits(_lint(_ctx(tmp_path, "size = (int(x.shape[1]) * 4, int(x.shape[1]) * 4)")), "EXL137") == []
    assert _hits(_lint(_ctx(tmp_path, "size = [int(t) for t in x.size()[2:]]",
                            dims='0: torch.export.Dim("B", min=1, max=8)')), "EXL137") == []
    assert _hits(_lint(_ctx(tmp_path, "size = list(x.size()[2:])")), "EXL137") == []


def test_draw_used_without_a_training_gate_is_a_warning(tmp_path):
    # measured: strict fails on it too (`x * random.random()`), but such forwards are mostly
    # training-time (augmentation, masking): a warning
    body = "            x = x * (1.0 + 0.0 * random.random())"
    assert _hits(_lint(_encoder(tmp_path, body)), "EXL135") == [
        ("encoder.py", 18, "warning", ("export-strict",))]


def test_generator_bound_only_under_a_condition_is_unknown(tmp_path):
    files = write_package(tmp_path, {"aug.py": """import torch
import torch.nn as nn


class Masker(nn.Module):
    def forward(self, x, seed=None):
        generator = None
        if seed is not None:
            generator = torch.Generator(device=x.device)
            generator.manual_seed(seed)
        return x * torch.rand(x.shape, generator=generator, device=x.device)
"""}, "app13m")
    assert _hits(_lint(files), "EXL136") == []


# ---- EXL138: unfold windows (step > 1) of a dynamic dim flattened by a Linear --------------

_FRAMING = """def frame_signal(x, frame_length, hop_length):
    return x.unfold(-1, frame_length, hop_length)
"""

_FRONTEND = """import torch.nn as nn

from .framing import frame_signal


class Frontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 8)

    def forward(self, x):
        frames = frame_signal(x, 4, {hop})
        return {use}
"""

_FRONT_INIT = """import torch

from .frontend import Frontend

model = Frontend()
example_args = (torch.randn(2, 64),)
dynamic_shapes = ({{{dims}}},)
"""


def _frontend(tmp_path, hop="2", use="self.proj(frames).mean(dim=1)", dims='1: torch.export.Dim("T", min=16, max=512)'):
    return write_package(tmp_path, {"__init__.py": _FRONT_INIT.format(dims=dims), "framing.py": _FRAMING,
                                    "frontend.py": _FRONTEND.format(hop=hop, use=use)}, "app13u")


def test_linear_on_windows_from_a_framing_helper_in_another_file(tmp_path):
    # an error since cases18: the helper unfolds dim -1 of the forward's input, whose dim 1 (of
    # rank 2) is declared dynamic (probes_cases18 h_unfold_helper_declared: strict and non-strict
    # fail "Constraints violated (T)")
    assert _hits(_lint(_frontend(tmp_path)), "EXL138") == [
        ("frontend.py", 13, "error", ("export-strict", "export-nonstrict"))]


def test_windows_reduced_or_batch_only_dynamic_are_silent(tmp_path):
    assert _hits(_lint(_frontend(tmp_path, use="frames.mean(-1)")), "EXL138") == []
    assert _hits(_lint(_frontend(tmp_path, dims='0: torch.export.Dim("B", min=1, max=8)')), "EXL138") == []


def test_step_one_windows_are_silent(tmp_path):
    files = write_package(tmp_path, {"m.py": """import torch
import torch.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 8)

    def forward(self, x):
        return self.proj(x.unfold(1, 4, 1))


def export():
    return torch.export.export(M(), (torch.randn(2, 64),), dynamic_shapes=({1: torch.export.Dim("T", min=16)},))
"""}, "app13s")
    assert _hits(_lint(files), "EXL138") == []


def test_generator_after_an_eval_exit_is_a_warning(tmp_path):
    # torchtune's LayerDropout: `if self.prob == 0 or (self.disable_on_eval and self.training is
    # False): return ...` before the draw: eval reaches it only when configured to
    files = write_package(tmp_path, {"drop.py": """import torch
import torch.nn as nn


class LayerDropout(nn.Module):
    def __init__(self, prob=0.1, disable_on_eval=True):
        super().__init__()
        self.prob = prob
        self.disable_on_eval = disable_on_eval
        self.generator = torch.Generator(device="cpu")

    def forward(self, x):
        if self.prob == 0 or (self.disable_on_eval and self.training is False):
            return x
        skip = torch.bernoulli(torch.full((x.shape[0],), self.prob), generator=self.generator)
        return x * (1 - skip)[:, None]
"""}, "app13d")
    assert _hits(_lint(files), "EXL136") == [
        ("drop.py", 15, "warning", ("export-strict", "onnx-dynamo", "onnx-legacy"))]
