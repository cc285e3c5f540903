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


# ---- EXL137 in helpers: sizes handed as names, tuples of sizes, lists of them -----------------

_ANCHOR_INIT = """\
import torch
from torch.export import Dim

from .head import Head

model = Head()
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = {{"img": {{{dims}}}}}
"""

_ANCHOR_GEN = """\
import torch


def grid(h, stride):
    n = int(h)
    return torch.arange(0, n) * stride


class Generator:
    def __init__(self, strides):
        self.strides = strides

    def level(self, featmap_size, stride):
        feat_h, feat_w = featmap_size
        feat_h = int(feat_h)
        return torch.arange(0, feat_h) * stride

    def all_levels(self, featmap_sizes):
        return [self.level(featmap_sizes[i], self.strides[i]) for i in range(len(featmap_sizes))]
"""

_ANCHOR_HEAD = """\
import torch.nn as nn

from .gen import Generator, grid


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.gen = Generator([2, 4])

    def forward(self, img):
        f1 = self.conv1(img)
        f2 = self.conv2(f1)
        feats = [f1, f2]
        sizes = [f.size()[-2:] for f in feats]
        a = self.gen.all_levels(sizes)
        return a[0].sum() + a[1].sum() + grid(f1.shape[2], 2).sum()
"""


def _anchor_pkg(tmp_path, dims):
    return write_package(tmp_path, {"__init__.py": _ANCHOR_INIT.format(dims=dims), "gen.py": _ANCHOR_GEN,
                                    "head.py": _ANCHOR_HEAD}, "app")


def test_exl137_int_of_sizes_handed_to_helpers_of_another_file(tmp_path):
    # batch 19's pkg_anchor_grid_int_featsize (mmdetection's anchor generator): `int(feat_h)` of an
    # item of `f.size()[-2:]` handed through a list of size tuples to a plain helper object's method
    # fails non-strict torch.export there, onnx-dynamo and legacy diverge (probes_cases19); so does
    # `int(h)` of a size handed by name. main 0ccf026 reported neither
    hits = [h for h in code_hits(lint_package(_anchor_pkg(tmp_path, '2: Dim("h"), 3: Dim("w")')), "EXL137")
            if h[0] == "gen.py"]
    want = ("export-nonstrict", "onnx-dynamo", "onnx-legacy")
    assert ("gen.py", 5, "error", want) in hits, hits  # n = int(h)
    assert ("gen.py", 15, "error", want) in hits, hits  # feat_h = int(feat_h)


def test_exl137_int_of_sizes_in_helpers_not_declared_dynamic_is_silent(tmp_path):
    # control: only the batch is dynamic: H and W are static, int() of them exports everywhere
    hits = [h for h in code_hits(lint_package(_anchor_pkg(tmp_path, '0: Dim("b")')), "EXL137") if h[0] == "gen.py"]
    assert not hits, hits


def test_a_list_display_of_a_parameter_is_not_a_list_of_tensors(tmp_path):
    # facenet-pytorch's detect_face: `imgs = [imgs]` then `np.stack([np.uint8(img) for img in imgs])`
    # on PIL images; the parameter's tensor kind is a guess, its items are not taken for tensors
    # (the sweep's facenet gave 5 false errors before this control)
    files = write_package(tmp_path, {
        "__init__.py": _ANCHOR_INIT.format(dims='2: Dim("h"), 3: Dim("w")'),
        "gen.py": _ANCHOR_GEN,
        "head.py": _ANCHOR_HEAD.replace(
            "    def forward(self, img):\n",
            "    def forward(self, img):\n        imgs = [img]\n"
            "        pics = np.stack([np.uint8(p) for p in imgs])\n").replace(
            "import torch.nn as nn\n", "import numpy as np\nimport torch.nn as nn\n"),
    }, "app")
    hits = [h for h in code_hits(lint_package(files), "EXL201") if h[0] == "head.py" and h[2] == "error"]
    assert not hits, hits
