"""Classes fixed from the held-out batch 20 of multi-file real-issue cases (issue 10,
bench/data/cases_batch20.md).

1. EXL119: an ``nn.MultiheadAttention`` in a wrapper block whose ``forward`` a declared model hands
   its input with the sequence dim kept (``pkg_mha_bool_mask_dynamic``, pytorch/pytorch#120075):
   an error, as in the declared forward itself.
2. EXL150 (new): indexing a tensor with a 0-d integer tensor (``argmax()``) fails strict
   torch.export (bench/labels/probes_cases20/probe_scalar_index.out).
"""

from __future__ import annotations

from conftest import code_hits, codes_at, line_of, lint, lint_package, write_package

# ---- 1. EXL119 through a wrapper block in another file -----------------------------------------

_INIT = '''import torch
from torch.export import Dim

from .set_encoder import SetEncoder

model = SetEncoder()
_n = Dim("n", min=2, max=64)
example_args = (torch.rand(12, 1, 32), torch.zeros(12, 12, dtype=torch.bool))
dynamic_shapes = {{"x": {{{dim}: _n}}, "mask": {{0: _n, 1: _n}}}}
'''

_WRAPPER = '''import torch


class MHAWrapper(torch.nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.mha1 = torch.nn.MultiheadAttention(dim, heads, batch_first={bf})

    def forward(self, x, mask):
        return self.mha1(x, x, x, attn_mask=mask, need_weights=False)[0]
'''

_ENCODER = '''import torch.nn as nn

from .wrappers import MHAWrapper


class SetEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.attn = MHAWrapper(dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, mask):
        return self.out(x + self.attn(x, mask))
'''


def _mha(tmp_path, dim: int, batch_first: bool):
    return code_hits(lint_package(write_package(tmp_path, {
        "__init__.py": _INIT.format(dim=dim), "wrappers.py": _WRAPPER.format(bf=batch_first),
        "set_encoder.py": _ENCODER}, "mha")), "EXL119")


def test_mha_in_a_wrapper_handed_a_dynamic_sequence_is_an_error(tmp_path):
    # sequence-first MHA (batch_first=False), the set encoder's x declared dynamic at dim 0 (its
    # sequence) and handed unchanged to the wrapper: legacy diverges at other lengths (truth of
    # bench/cases/pkg_mha_bool_mask_dynamic); main ed5ed86 gave a warning
    assert ("wrappers.py", 10, "error", ("onnx-legacy",)) in _mha(tmp_path, 0, False)


def test_mha_in_a_wrapper_handed_a_dynamic_batch_is_not_an_error(tmp_path):
    # control: the same wrapper with batch_first=True and dim 0 (the batch) declared: the sequence
    # (dim 1) is not declared dynamic, no error (the warning stays: the rule does not know every
    # dim the wrapper's inputs carry)
    hits = _mha(tmp_path, 0, True)
    assert ("wrappers.py", 10, "warning", ("onnx-legacy",)) in hits
    assert ("wrappers.py", 10, "error", ("onnx-legacy",)) not in hits


# ---- 2. EXL150: a 0-d integer tensor as an index ------------------------------------------------

_ARGMAX = """\
import torch
import torch.nn as nn


class Tracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(4, 8))

    def forward(self, boxes, scores, feats):
        best = scores.argmax()
        a = boxes[best]  # inline-name
        b = self.table[torch.argmin(scores)]  # torch-form
        c = feats[:, scores.argmax()]  # second-index
        return a, b, c
"""


def test_zero_dim_argmax_index_is_an_error_for_strict():
    got = codes_at(_ARGMAX, codes=["EXL150"])
    assert got == [(line_of(_ARGMAX, m), "EXL150") for m in ("inline-name", "torch-form", "second-index")]
    f = lint(_ARGMAX, codes=["EXL150"])[0]
    assert tuple(f.exporters) == ("export-strict",) and f.severity.value == "error"


_ONE_D = """\
import numpy as np
import torch
import torch.nn as nn


class Tracker(nn.Module):
    def forward(self, boxes, scores, idx):
        a = boxes[scores.argmax(dim=0, keepdim=True)]  # 1-d: exports
        b = boxes[scores.argmax().item()]  # a Python int: exports
        c = boxes.index_select(0, scores.argmax().view(1))
        d = boxes[idx]  # rank not known
        arr = np.zeros(3)
        e = arr[arr.argmax()]  # numpy's argmax: a Python int
        best = scores.argmax()
        best = best + 1
        f = boxes[best]  # rebound: not followed
        boxes[scores.argmax()] = 0.0  # an assignment: not measured
        return a, b, c, d, e, f
"""


def test_indices_not_known_zero_dim_are_not_reported():
    assert codes_at(_ONE_D, codes=["EXL150"]) == []


# ---- 3. EXL148: a strided map cropped back to the size of the unstrided input -------------------

_UNET = '''import torch
import torch.nn as nn
from torch.export import Dim


class UpMerge(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(4, 8, 3, stride={stride}, padding=1)
        self.up = nn.ConvTranspose2d(8, 4, {k}, stride={stride})

    def forward(self, x):
        y = self.up(self.down(x))
        z = y[:, :, :x.size(2), :x.size(3)]  # crop
        return z + x


example_args = (torch.randn(1, 4, 9, 11),)
dynamic_shapes = {{"x": {{2: {h}, 3: {w}}}}}
'''


def _crop_hits(tmp_path, **kw):
    # a one-file project (the declared dims are followed by the project analysis)
    params = dict(stride=2, k=2, h='Dim("h", min=5, max=64)', w='Dim("w", min=5, max=64)')
    params.update(kw)
    src = _UNET.format(**params)
    files = write_package(tmp_path, {"model.py": src}, "unet")
    return [h[1:] for h in code_hits(lint_package(files), "EXL148")], src


def test_crop_after_strided_down_and_up_is_an_error(tmp_path):
    # measured (probe_crop.out, and the held-out pkg_scripted_trim_narrow): strict and non-strict
    # fail "Constraints violated (h)"
    hits, src = _crop_hits(tmp_path)
    assert hits == [(line_of(src, "# crop"), "error", ("export-strict", "export-nonstrict"))]


def test_crop_after_unstrided_conv_is_not_reported(tmp_path):
    # control: stride 1 (and a kernel-1 transposed conv): the crop is a no-op torch.export proves
    hits, _ = _crop_hits(tmp_path, stride=1, k=1)
    assert hits == []


def test_crop_with_dims_declared_multiples_is_not_reported(tmp_path):
    # control: H and W declared multiples of the stride export (probe_crop.out: `2*_h` passes)
    hits, _ = _crop_hits(tmp_path, h='2 * Dim("_h", min=3, max=32)', w='2 * Dim("_w", min=3, max=32)')
    assert hits == []


def test_crop_with_static_shapes_is_not_reported(tmp_path):
    # control: nothing declared dynamic, no dim carried
    src = _UNET.format(stride=2, k=2, h="0", w="0").split("dynamic_shapes")[0]
    hits = code_hits(lint_package(write_package(tmp_path, {"model.py": src}, "unet")), "EXL148")
    assert hits == []


_TRIM = '''import torch


def trim_2d(t, sized):
    return t.narrow(2, 0, sized.size(2)).narrow(3, 0, sized.size(3))
'''

_DECODER = '''import torch
import torch.nn as nn

from .trim import trim_2d


class UpMerge(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.same = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        y = self.up(self.down(x))
        z = self.same(x)
        return trim_2d(y, x) + trim_2d(z, x)
'''

_PKG_INIT = '''import torch
from torch.export import Dim

from .decoder import UpMerge

model = UpMerge()
example_args = (torch.randn(1, 4, 9, 11),)
dynamic_shapes = {"x": {2: Dim("h", min=5, max=64), 3: Dim("w", min=5, max=64)}}
'''


def test_crop_in_a_helper_of_another_file(tmp_path):
    # the held-out shape (pkg_scripted_trim_narrow): the strided map is handed to a trim helper in
    # another file; the stride-1 call of the same helper (`z`) alone would not mark `t`, the union
    # of the two calls does (one call that cuts is enough for the export to specialise)
    hits = code_hits(lint_package(write_package(tmp_path, {
        "__init__.py": _PKG_INIT, "trim.py": _TRIM, "decoder.py": _DECODER}, "crop")), "EXL148")
    assert hits == [("trim.py", 5, "error", ("export-strict", "export-nonstrict"))]


def test_helper_handed_only_unstrided_maps_is_not_reported(tmp_path):
    # control: only the stride-1 map reaches the helper
    dec = _DECODER.replace("trim_2d(y, x) + trim_2d(z, x)", "trim_2d(z, x) + y.mean()")
    hits = code_hits(lint_package(write_package(tmp_path, {
        "__init__.py": _PKG_INIT, "trim.py": _TRIM, "decoder.py": dec}, "crop")), "EXL148")
    assert hits == []


def test_crop_in_one_source_alone_follows_the_declared_forward():
    # lint_source (the LSP) has no project analysis: the declared forward's own names are followed
    src = _UNET.format(stride=2, k=2, h='Dim("h", min=5, max=64)', w='Dim("w", min=5, max=64)') + (
        "\n\ndef export():\n    return torch.export.export(UpMerge(), example_args, dynamic_shapes=dynamic_shapes)\n")
    assert codes_at(src, codes=["EXL148"]) == [(line_of(src, "# crop"), "EXL148")]
    mult = src.replace('Dim("h", min=5, max=64)', '2 * Dim("_h", min=3, max=32)').replace(
        'Dim("w", min=5, max=64)', '2 * Dim("_w", min=3, max=32)')
    assert codes_at(mult, codes=["EXL148"]) == []
    unstrided = src.replace("stride=2", "stride=1")
    assert codes_at(unstrided, codes=["EXL148"]) == []


# ---- 2b. EXL150: a forward input whose example is a 0-d integer tensor ---------------------------

_SCHEDULE = """\
import torch
import torch.nn as nn


class NoiseStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("alphas", torch.linspace(0.99, 0.01, 50))

    def forward(self, sample, timestep):
        alpha = self.alphas[timestep]  # lookup
        return sample * alpha


example_args = (torch.randn(1, 3, 8, 8), {example})
"""


def test_forward_input_with_a_zero_dim_int_example_is_an_error_for_strict():
    # the earlier held-in bench/cases/scalar_tensor_index.py (pytorch/pytorch#182345): strict fails
    # at the lookup; non-strict and the ONNX exporters pass (its truth)
    src = _SCHEDULE.format(example="torch.tensor(10)")
    assert codes_at(src, codes=["EXL150"]) == [(line_of(src, "# lookup"), "EXL150")]


def test_forward_input_with_a_one_d_or_float_example_is_not_reported():
    # controls: a 1-d example (`torch.tensor([10])`) exports; a float 0-d tensor is no index; an
    # example that is not a literal says nothing about the rank
    for example in ("torch.tensor([10])", "torch.tensor(0.5)", "torch.randint(0, 50, (1,))", "t0"):
        assert codes_at(_SCHEDULE.format(example=example), codes=["EXL150"]) == [], example


def test_forward_input_in_a_project_run_reads_the_whole_file(tmp_path):
    # a project run lints a reduced text without the module's `example_args`: the rule reads the file
    files = write_package(tmp_path, {"model.py": _SCHEDULE.format(example="torch.tensor(10)")}, "sched")
    assert [h[:3] for h in code_hits(lint_package(files), "EXL150")] == [("model.py", 11, "error")]
