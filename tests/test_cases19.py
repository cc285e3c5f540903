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
