"""Issue 10 (branch prec6): false-alarm classes seen on held-out zoo code, one reproducer each,
and the `.data` rule. Exporter behaviour behind each expectation was measured with torch 2.13.0
(bench/labels/probes_prec6/, outputs in the `.out` files)."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import line_of, lint

# ---------------------------------------------------------------------------------------
# P-TENSORRET: `if isinstance(x, torch.Tensor): return ...` then pre-processing of files/PIL/numpy
# ---------------------------------------------------------------------------------------

AUTOSHAPE = """
import contextlib
import cv2
import numpy as np
import torch
from PIL import Image

class AutoShape(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ims, size=640):
        with contextlib.nullcontext():
            if isinstance(size, int):
                size = (size, size)
            if isinstance(ims, torch.Tensor):
                with torch.autocast("cpu", enabled=False):
                    return self.model(ims)
            files = []
            for i, im in enumerate(ims if isinstance(ims, list) else [ims]):
                if isinstance(im, str):
                    im = np.asarray(Image.open(im))
                im = im[..., :3] if im.ndim == 3 else cv2.cvtColor(im, cv2.COLOR_GRAY2BGR)
                files.append(im)
        x = torch.from_numpy(np.stack(files))
        y = self.model(x)
        return y, x.cpu().numpy()
"""


def test_code_after_a_tensor_input_returns_is_not_on_the_export_path():
    # an export passes a tensor: it returns at `return self.model(ims)`; the PIL/cv2/numpy code
    # after it (inside and after the `with`) serves str/PIL/numpy inputs only
    assert codes(AUTOSHAPE) == []


def test_code_after_a_tensor_test_that_does_not_return_is_still_reported():
    src = AUTOSHAPE.replace("                    return self.model(ims)", "                    ims = self.model(ims)")
    assert {c for _, c in codes(src)} >= {"EXL204", "EXL201"}


def test_tensor_exit_on_a_name_of_unknown_kind_keeps_the_rest():
    # `ims` is rebound to the result of an unknown call: it may be anything, the rest is analysed
    src = AUTOSHAPE.replace("        with contextlib.nullcontext():",
                            "        ims = self.loader(ims)\n        with contextlib.nullcontext():")
    assert "EXL201" in {c for _, c in codes(src)}


# ---------------------------------------------------------------------------------------
# EXL213: `.data` of a tensor on the export path (probes_prec6 p2, p3, p4)
# ---------------------------------------------------------------------------------------

DATA = """
import torch

class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.base = torch.nn.Linear(4, 4)
        self.lora_A = torch.nn.Parameter(torch.zeros(2, 4))
        self.lora_B = torch.nn.Parameter(torch.zeros(4, 2))
        self.merged_adapters = ["default"]
        self.disable_adapters = True

    @property
    def merged(self):
        return bool(self.merged_adapters)

    def get_delta_weight(self):
        return self.lora_B @ self.lora_A

    def unmerge(self):
        while len(self.merged_adapters) > 0:
            self.merged_adapters.pop()
            base_layer = self.base
            base_layer.weight.data = base_layer.weight.data - self.get_delta_weight()  # REWRITE
            self.base.bias.data.copy_(torch.zeros(4))  # COPY

    def forward(self, x, packed):
        if self.disable_adapters:
            if self.merged:
                self.unmerge()
            return self.base(x)
        y = self.base(x)
        z = packed.data
        y.data.masked_fill_(x < 0, 0.0)  # INPLACE
        return y.data * 2  # READ
"""


def test_exl210_data_rewritten_or_read_on_the_export_path():
    got = [(ln, c) for ln, c in codes(DATA) if c == "EXL213"]
    assert got == sorted([(line_of(DATA, "# REWRITE"), "EXL213"), (line_of(DATA, "# COPY"), "EXL213"),
                          (line_of(DATA, "# READ"), "EXL213"), (line_of(DATA, "# INPLACE"), "EXL213")])
    ex = {f.line: f.exporters for f in lint(DATA) if f.code == "EXL213"}
    # a weight's rewrite: the legacy tracer does it once at export time (p2: exports, matches)
    assert "onnx-legacy" not in ex[line_of(DATA, "# REWRITE")]
    # an intermediate's `.data`: the legacy tracer records a constant (p4: diverges)
    assert "onnx-legacy" in ex[line_of(DATA, "# READ")]
    # an in-place write through an intermediate's `.data`: the legacy tracer diverges too (p4)
    assert "onnx-legacy" in ex[line_of(DATA, "# INPLACE")]


def test_exl210_not_on_a_bare_parameter_or_an_unknown_object():
    src = """
import torch

class M(torch.nn.Module):
    def forward(self, packed, graph):
        node = self.lookup(graph)
        node.data = self.table[graph]
        return packed.data, node
"""
    assert [c for _, c in codes(src) if c == "EXL213"] == []
