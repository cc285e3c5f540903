"""Classes fixed after the held-out batch 18 of multi-file real-issue cases (issue 10), on branch
cases18 (bench/data/cases_batch18.md).

Measured with torch 2.13 (bench/data/cases_truth.json; one-file probes in
bench/labels/probes_cases18/run_probes.py, output in ``probes.out``):

- EXL123 at the call: ``forward`` hands an input whose dim is declared dynamic to a function of
  another file that takes ``torch.linspace`` steps from that dim (``h_len = (h + 1) // 2`` of
  ``b, c, h, w = x.shape``): torch.export specialises the dim (a guard fails at another size, or
  "Constraints violated"), onnx-dynamo exports it static and fails at the call at another size
  (``l_helper_steps_*``; held-out ``pkg_flux_img_ids_linspace``). Silent when the dim handed is
  not declared, or with fixed shapes (``l_helper_steps_*_control``).
- EXL133: a split ``h // 2`` of a dim declared a multiple (``2 * Dim(...)``) in another file
  (the package's ``__init__``, the project's export script) is divisible: all four exporters pass
  (``v_split_multiple_dim``); a plain ``Dim`` still fails strict and non-strict
  (``v_split_plain_dim_control``).

The reproducers fail on main b23a5bd; the controls are silent (or unchanged) on both.
"""

from __future__ import annotations

from conftest import code_hits as _hits
from conftest import lint_package as _lint
from conftest import write_package

_STEPS = ("export-strict", "export-nonstrict", "onnx-dynamo")

# ---- EXL123 at a call into another file's linspace helper -------------------------------------

_IDS = """import torch


def make_ids(x, patch_size=2):
    bs, c, h, w = x.shape
    h_len = (h + patch_size // 2) // patch_size
    ids = torch.zeros((h_len, 3), dtype=x.dtype)
    ids[:, 1] = ids[:, 1] + torch.linspace(0, h_len - 1, steps=h_len, dtype=x.dtype)
    return ids
"""

_MODEL = """import torch

from .ids import make_ids


class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pe = torch.nn.Linear(3, 4)

    def forward(self, x):
        ids = make_ids(x, 2)
        return self.pe(ids).sum() + x
"""

_INIT = """import torch
from torch.export import Dim

from .model import Embed

model = Embed()
example_args = (torch.randn(1, 4, 8, 12),)
{decl}
"""


def _flux(tmp_path, decl):
    files = {"ids.py": _IDS, "model.py": _MODEL, "__init__.py": _INIT.format(decl=decl)}
    return _lint(write_package(tmp_path, files, "app18a"))


def test_linspace_steps_in_a_helper_of_a_declared_dim_is_an_error_at_the_call(tmp_path):
    f = _flux(tmp_path, '_h = Dim("_h", min=2, max=32)\ndynamic_shapes = {"x": {2: 2 * _h}}')
    # at the helper's line (it now knows the dims it is handed) and at the call (where
    # onnx-dynamo locates the failure)
    assert _hits(f, "EXL123") == [("ids.py", 8, "error", _STEPS), ("model.py", 12, "error", _STEPS)]


def test_linspace_steps_in_a_helper_of_an_undeclared_dim_is_silent(tmp_path):
    f = _flux(tmp_path, 'dynamic_shapes = {"x": {0: Dim("b", min=1, max=8)}}')
    assert _hits(f, "EXL123") == []


def test_linspace_steps_in_a_helper_with_fixed_shapes_is_silent(tmp_path):
    f = _flux(tmp_path, "")
    assert _hits(f, "EXL123") == []


def test_arange_in_the_helper_is_silent(tmp_path):
    files = {"ids.py": _IDS.replace("torch.linspace(0, h_len - 1, steps=h_len, dtype=x.dtype)",
                                    "torch.arange(h_len, dtype=x.dtype)"),
             "model.py": _MODEL,
             "__init__.py": _INIT.format(decl='dynamic_shapes = {"x": {2: Dim("h", min=2, max=32)}}')}
    assert _hits(_lint(write_package(tmp_path, files, "app18b")), "EXL123") == []


# ---- EXL133: a split of a dim declared a multiple in another file -------------------------------

_SPLIT = """import torch


class Patchify(torch.nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        return x.reshape(b, c, h // 2, 2, w // 2, 2).sum((3, 5))
"""

_SPLIT_INIT = """import torch
from torch.export import Dim

from .model import Patchify

model = Patchify()
example_args = (torch.randn(1, 2, 8, 12),)
{decl}
"""


def _split(tmp_path, decl):
    files = {"model.py": _SPLIT, "__init__.py": _SPLIT_INIT.format(decl=decl)}
    return _lint(write_package(tmp_path, files, "app18c"))


def test_split_of_a_dim_declared_a_multiple_in_another_file_is_silent(tmp_path):
    f = _split(tmp_path, '_h = Dim("_h", min=2, max=32)\n_w = Dim("_w", min=2, max=32)\n'
                         'dynamic_shapes = {"x": {2: 2 * _h, 3: 2 * _w}}')
    assert _hits(f, "EXL133") == []


def test_split_of_a_dim_declared_a_multiple_positionally_is_silent(tmp_path):
    f = _split(tmp_path, '_h = Dim("_h", min=2, max=32)\n_w = Dim("_w", min=2, max=32)\n'
                         'dynamic_shapes = ({2: 2 * _h, 3: 2 * _w},)')
    assert _hits(f, "EXL133") == []


def test_split_of_a_plain_declared_dim_stays_an_error(tmp_path):
    f = _split(tmp_path, 'dynamic_shapes = {"x": {2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}')
    assert _hits(f, "EXL133") == [("model.py", 7, "error", ("export-strict", "export-nonstrict"))]


# ---- a helper of another file handed the forward's input as it is keeps its declared dims ------
# (errors-only gap of the cases scoreboard: pkg_frames_loop_normalize, pkg_stft_window_attr_opset17,
# pkg_unfold_frames_opset11; probes h_* in bench/labels/probes_cases18)

_ALL = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")

_FRAMES_HELPER = """def normalize_frames(frames):
    frames = frames.clone()
    for i in range(frames.size(1)):
        frames[:, i] = frames[:, i] * 2 - 1
    return frames
"""

_FRAMES_MODEL = """import torch

from .preprocess import normalize_frames


class Clip(torch.nn.Module):
    def forward(self, frames):
        x = normalize_frames({arg})
        return x.sum(1)
"""

_FRAMES_INIT = """import torch
from torch.export import Dim

from .model import Clip

model = Clip()
example_args = (torch.randn(1, 4, 3, 5),)
dynamic_shapes = {{"frames": {{{dims}}}}}
"""


def _frames(tmp_path, dims, arg="frames"):
    files = {"preprocess.py": _FRAMES_HELPER, "model.py": _FRAMES_MODEL.format(arg=arg),
             "__init__.py": _FRAMES_INIT.format(dims=dims)}
    return _lint(write_package(tmp_path, files, "app18d"))


def test_loop_over_a_declared_dim_of_the_input_handed_to_a_helper_is_an_error(tmp_path):
    f = _frames(tmp_path, '1: Dim("t", min=2, max=16)')
    assert _hits(f, "EXL111") == [("preprocess.py", 3, "error", _ALL)]


def test_loop_over_an_undeclared_dim_of_the_input_handed_to_a_helper_stays_a_warning(tmp_path):
    f = _frames(tmp_path, '0: Dim("b", min=1, max=16)')
    assert [h[:3] for h in _hits(f, "EXL111")] == [("preprocess.py", 3, "warning")]


def test_loop_in_a_helper_handed_a_derived_tensor_stays_a_warning(tmp_path):
    f = _frames(tmp_path, '1: Dim("t", min=2, max=16)', arg="frames.transpose(1, 2)")
    assert [h[:3] for h in _hits(f, "EXL111")] == [("preprocess.py", 3, "warning")]


_STFT_HELPER = """def magnitude(signals, window):
    return signals.stft(16, hop_length=4, window=window, return_complex=True).abs()
"""

_STFT_MODEL = """import torch

from .features import magnitude


class Spec(torch.nn.Module):
    def forward(self, x):
        return magnitude(x, torch.hann_window(16))
"""

_STFT_INIT = """import torch
from torch.export import Dim

from .model import Spec

model = Spec()
example_args = (torch.randn(2, 128),)
dynamic_shapes = {{"x": {{{dims}}}}}
"""


def _stft(tmp_path, dims):
    files = {"features.py": _STFT_HELPER, "model.py": _STFT_MODEL, "__init__.py": _STFT_INIT.format(dims=dims)}
    return _lint(write_package(tmp_path, files, "app18e"))


def test_stft_in_a_helper_handed_an_input_of_declared_length_is_an_error(tmp_path):
    f = _stft(tmp_path, '1: Dim("samples", min=64, max=1024)')
    assert [h[:3] for h in _hits(f, "EXL121")] == [("features.py", 2, "error")]


def test_stft_in_a_helper_handed_an_input_of_declared_batch_only_is_silent(tmp_path):
    f = _stft(tmp_path, '0: Dim("b", min=1, max=8)')
    assert _hits(f, "EXL121") == []


_UNFOLD_HELPER = """def frame_signal(x, n, hop):
    return x.unfold(-1, n, hop)
"""

_UNFOLD_MODEL = """import torch

from .framing import frame_signal


class Frontend(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 8)

    def forward(self, x):
        frames = frame_signal(x, 4, 2)
        return self.proj(frames).mean(1)
"""

_UNFOLD_INIT = """import torch
from torch.export import Dim

from .model import Frontend

model = Frontend()
example_args = (torch.randn(2, 64),)
dynamic_shapes = ({{{dims}}},)
"""


def _unfold(tmp_path, dims):
    files = {"framing.py": _UNFOLD_HELPER, "model.py": _UNFOLD_MODEL, "__init__.py": _UNFOLD_INIT.format(dims=dims)}
    return _lint(write_package(tmp_path, files, "app18f"))


def test_unfold_in_a_helper_of_a_declared_last_dim_flattened_is_an_error(tmp_path):
    f = _unfold(tmp_path, '1: Dim("T", min=16, max=512)')
    assert [h[:3] for h in _hits(f, "EXL138")] == [("model.py", 13, "error")]


def test_unfold_in_a_helper_with_the_batch_declared_is_silent(tmp_path):
    f = _unfold(tmp_path, '0: Dim("b", min=1, max=8)')
    assert _hits(f, "EXL138") == []


# ---- EXL111 equality check: another model's one-Dim declaration does not link this one's dims ---

_CROP = """import torch


class CenterCrop(torch.nn.Module):
    def forward(self, x):
        assert x.shape[2] == x.shape[3]
        return x[:, :, 1:-1, 1:-1]
"""

_CROP_INIT = """import torch
from torch.export import Dim

from .crop import CenterCrop

model = CenterCrop()
example_args = (torch.randn(1, 3, 24, 24),)
dynamic_shapes = ({{2: Dim("H", min=16, max=64), 3: Dim("{w}", min=16, max=64)}},)
"""

_OTHER = """import torch
from torch.export import Dim


class Other(torch.nn.Module):
    def forward(self, y):
        return y * 2


_s = Dim("S", min=16, max=64)
example_args = (torch.randn(1, 3, 24, 24),)
dynamic_shapes = {"y": {2: _s, 3: _s}}
"""


def _crop(tmp_path, w):
    files = {"crop.py": _CROP, "__init__.py": _CROP_INIT.format(w=w), "other/__init__.py": _OTHER}
    return _lint(write_package(tmp_path, files, "app18g"))


def test_equal_size_check_on_separate_dims_is_an_error_beside_another_models_one_dim(tmp_path):
    f = _crop(tmp_path, "W")
    assert _hits(f, "EXL111") == [("crop.py", 6, "error", ("export-strict", "export-nonstrict"))]


def test_equal_size_check_on_one_dim_is_not_that_error(tmp_path):
    f = _crop(tmp_path, "H")
    assert ("crop.py", 6, "error", ("export-strict", "export-nonstrict")) not in _hits(f, "EXL111")
