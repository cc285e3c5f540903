"""Issue 10 (branch prec14): false-alarm classes of the fifth fresh zoo population (coqui-tts,
recbole, pytorchcv, deepctr-torch, openunmix, f5-tts, mmflow, lpips, ...), one reproducer each,
with the controls that must keep firing. The exporters' behaviour behind each is measured in
bench/labels/probes_prec14/."""

from __future__ import annotations

from pathlib import Path

from conftest import codes_at as codes
from conftest import line_of, write_package
from conftest import lint_package as _lint


def _at(findings, code):
    return sorted((Path(f.path).name, f.line) for f in findings if f.code == code)


# ---------------------------------------------------------------------------------------
# P-DECLREACH: the dims one model's export declares, applied to a class it does not build
# ---------------------------------------------------------------------------------------

_NETS = """import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        b, c, t = x.size()
        return x.view(b, self.k, c // self.k, t).sum(1)  # BUILT


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(2)

    def forward(self, x):
        return self.block(x)


class Other(nn.Module):
    # another model of the project, which the exported one does not build (coqui-tts's bark
    # attention next to an export of VITS)
    def __init__(self, n_head):
        super().__init__()
        self.n_head = n_head

    def forward(self, x):
        B, T, C = x.size()
        return x.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # OTHER
"""

_EXPORT = """import torch
from .nets import {model}


def export(path):
    model = {make}
    torch.onnx.export(model, (torch.randn(1, 4, 8),), path, input_names=["input"],
                      dynamic_axes={{"input": {{0: "batch", 1: "c", 2: "time"}}}})
"""


def _project(tmp_path, model="Model", make="Model()"):
    return write_package(tmp_path, {"nets.py": _NETS, "export.py": _EXPORT.format(model=model, make=make)},
                         "app14d")


def test_declared_dims_are_not_applied_to_a_class_the_model_does_not_build(tmp_path):
    # coqui-tts bark/model.py:33-35, model_fine.py:38-40, glow_tts/glow.py:112-131, tacotron.py:348,
    # tacotron2.py:239: VITS's legacy export declares dims 0-2; bark, Glow and Tacotron are
    # other models of the project
    found = _at(_lint(_project(tmp_path)), "EXL111")
    assert ("nets.py", line_of(_NETS, "# OTHER")) not in found


def test_declared_dims_of_a_model_of_unknown_class_reach_no_class(tmp_path):
    # coqui-tts exports `deepcopy(self)`: which classes that object builds is not known
    found = _at(_lint(_project(tmp_path, model="Model", make="copy_of(Model())")), "EXL111")
    assert ("nets.py", line_of(_NETS, "# OTHER")) not in found
    assert ("nets.py", line_of(_NETS, "# BUILT")) not in found


def test_declared_dims_still_reach_a_submodule_the_model_builds(tmp_path):
    # control: the exported model builds Block, whose view splits a declared dim
    found = _at(_lint(_project(tmp_path)), "EXL111")
    assert ("nets.py", line_of(_NETS, "# BUILT")) in found


# ---------------------------------------------------------------------------------------
# P-AFSIZEMATH: an autograd.Function whose only non-torch call is `math.*` of sizes
# ---------------------------------------------------------------------------------------

BINARIZE = """
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

class Binarize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return math.sqrt(2.0 / (x.shape[1] * x.shape[2] * x.shape[3])) * x.sign()

    @staticmethod
    def backward(ctx, dy):
        return dy

class ScaleByMean(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return math.sqrt(float(x.abs().mean())) * x.sign()

    @staticmethod
    def backward(ctx, dy):
        return dy

class Conv1bit(nn.Conv2d):
    def forward(self, x):
        w = Binarize.apply(self.weight)  # SIZES
        v = ScaleByMean.apply(self.weight)  # DATA
        return F.conv2d(x, w + v, None, 1, 1)
"""


def test_math_of_sizes_in_an_autograd_function_stays_in_torch():
    # pytorchcv wrn1bit_cifar.py:78-79 (c17: all four pass and match)
    assert (line_of(BINARIZE, "# SIZES"), "EXL202") not in codes(BINARIZE)


def test_math_of_tensor_data_in_an_autograd_function_stays_reported():
    # control: math.sqrt of a value read out of the tensor
    assert (line_of(BINARIZE, "# DATA"), "EXL202") in codes(BINARIZE)


# ---------------------------------------------------------------------------------------
# P-OPTOFF: an option every construction in the project leaves at its False default
# ---------------------------------------------------------------------------------------

_QUANT = """import torch
import torch.nn as nn


class Quantize(nn.Module):
    def __init__(self, dim, n_embed, balancing_heuristic=False):
        super().__init__()
        self.balancing_heuristic = balancing_heuristic
        self.codes = None
        self.register_buffer("embed", torch.randn(dim, n_embed))

    def forward(self, x):
        if self.balancing_heuristic and self.codes is not None:
            h = torch.histc(self.codes.float(), bins=8)  # HISTC
            if torch.any(h > 0.9):  # ANY
                self.embed.mul_(0.5)
        ind = (x @ self.embed).argmax(-1)
        if self.balancing_heuristic:
            self.codes = ind.flatten()  # CODES
        return ind
"""

_VAE = """import torch.nn as nn
from .quant import Quantize


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.codebook = Quantize(4, 8{extra})

    def forward(self, x):
        return self.codebook(x)
"""


def _quant_project(tmp_path, extra=""):
    files = write_package(tmp_path, {"quant.py": _QUANT, "vae.py": _VAE.format(extra=extra)}, "app14q")
    return [(code, line) for name, line, code in
            ((Path(f.path).name, f.line, f.code) for f in _lint(files)) if name == "quant.py"]


def test_arm_of_an_option_no_construction_turns_on_does_not_run(tmp_path):
    # coqui-tts xtts/dvae.py:73, 81, 98 (Quantize's `balancing_heuristic`, built once without it)
    found = _quant_project(tmp_path)
    for tag, code in (("# HISTC", "EXL401"), ("# ANY", "EXL101"), ("# CODES", "EXL203")):
        assert (code, line_of(_QUANT, tag)) not in found, tag


def test_arm_of_an_option_a_construction_turns_on_stays_reported(tmp_path):
    # control: the project builds it with the option on
    found = _quant_project(tmp_path, extra=", balancing_heuristic=True")
    for tag, code in (("# HISTC", "EXL401"), ("# ANY", "EXL101"), ("# CODES", "EXL203")):
        assert (code, line_of(_QUANT, tag)) in found, tag
