"""Classes fixed from the held-out batch 19 of multi-file real-issue cases (issue 10).

Batch 19's packages are linted with every other case of bench/cases as one project, which exposed
that two modules declaring an exported class of the same name shared one entry (the first one's)
for the dims carried into the helpers their models reach (``Project.declared_classes``).
"""

from __future__ import annotations

from conftest import code_hits, lint_package, write_package

_INIT = '''import torch
from torch.export import Dim

from .model import Head

model = Head()
example_args = (torch.randn(1, 3, 64, 64),)
dynamic_shapes = {{"{param}": {{2: Dim("h", min=32, max=128), 3: Dim("w", min=32, max=128)}}}}
'''

_PLAIN = '''import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, img):
        return self.conv(img)
'''

_WITH_HELPER = '''import torch.nn as nn

from .anchors import centres


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.box = nn.Conv2d(3, 2, 16, stride=16)

    def forward(self, image):
        return self.box(image).flatten(2).transpose(1, 2) + centres(image, 16)
'''

_ANCHORS = '''import numpy as np
import torch


def centres(image, stride):
    shape = np.array(image.shape[2:])
    grid = (shape + stride - 1) // stride
    ys, xs = np.meshgrid(np.arange(grid[0]), np.arange(grid[1]), indexing="ij")
    return torch.from_numpy(np.stack([xs * stride, ys * stride], axis=-1).reshape(-1, 2).astype(np.float32))
'''


def _two_heads(tmp_path, second_declares=True):
    second_init = _INIT.format(param="image") if second_declares else _INIT.split("dynamic_shapes")[0]
    return write_package(tmp_path, {
        "a/__init__.py": _INIT.format(param="img"), "a/model.py": _PLAIN,
        "b/__init__.py": second_init, "b/model.py": _WITH_HELPER, "b/anchors.py": _ANCHORS,
    }, "app")


def test_same_class_name_declared_in_two_modules_keeps_each_ones_dims(tmp_path):
    # b.Head hands its declared-dynamic H/W to numpy in a helper: an error, as when b is linted
    # alone; on main 0ccf026 a.Head (another class of the same name, first in path order) took
    # b's place and the helper's findings fell back to warnings
    hits = code_hits(lint_package(_two_heads(tmp_path)), "EXL201")
    assert ("anchors.py", 6, "error") in [h[:3] for h in hits]


def test_same_class_name_without_a_declaration_in_the_second_module_is_not_an_error(tmp_path):
    # control: b declares nothing dynamic; a's dims (another class) are not carried into b's helper,
    # whose `np.array(image.shape[2:])` stays a warning
    hits = code_hits(lint_package(_two_heads(tmp_path, second_declares=False)), "EXL201")
    assert ("anchors.py", 6, "warning") in [h[:3] for h in hits]
    assert ("anchors.py", 6, "error") not in [h[:3] for h in hits]


# ---- EXL402: repeat_interleave's legacy opset was measured on a 0-d sample -------------------

import textwrap  # noqa: E402

import pytest  # noqa: E402

from exportlint.engine import lint_source  # noqa: E402

_REPEAT = """\
import torch
import torch.nn as nn


class Decoder(nn.Module):
    def forward(self, image_embeddings, tokens):
        src = torch.repeat_interleave(image_embeddings, tokens.shape[0], dim=0)
        return {tail}


def export(m, args):
    torch.onnx.export(m, args, "m.onnx", dynamo=False, opset_version=11)
"""


def _exl402(src):
    return [(f.line, tuple(f.exporters)) for f in lint_source(textwrap.dedent(src), "m.py", codes=["EXL402"])]


def test_exl402_repeat_interleave_at_opset_11_is_not_claimed():
    # probes_cases19: the legacy exporter takes repeat_interleave of inputs of rank >= 1 from
    # opset 9 (int, size and tensor repeats); batch 19's pkg_sam_repeat_interleave_opset11 passes
    # every exporter at opset 11, where main 0ccf026 gave two false EXL402 errors
    assert _exl402(_REPEAT.format(tail="src")) == []


def test_exl402_still_reports_an_api_that_needs_a_higher_opset():
    # control: torch.tril needs opset 14 with the legacy exporter (rules/op_support.json)
    got = _exl402(_REPEAT.format(tail="torch.tril(src)"))
    assert [g for g in got if g[0] == 8 and "onnx-legacy" in g[1]], got


def test_generator_measures_the_opset_on_a_sample_of_rank_1_or_more():
    torch = pytest.importorskip("torch")
    from exportlint.ops import generate as g

    def fn(x):
        return torch.repeat_interleave(x, 2)

    samples = [(fn, (torch.randn(()),), {}, None), (fn, (torch.randn(2, 3),), {}, None)]
    m, tensors = g._ranked_sample(samples, None)
    assert [t.ndim for t in tensors] == [2]
    assert g._ranked_sample(samples[:1], None) is None  # no such sample: the first one is kept
