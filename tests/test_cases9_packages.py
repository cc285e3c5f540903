"""The class fixed from the held-out batch 9 of multi-file real-issue cases (issues 9 and 10):
data-sized tensors (first dimension from tensor data: boolean-mask indexing, ``nonzero``...)
across calls, for EXL124 (a branch on their length).

Measured with torch 2.13 (bench/data/cases_truth.json): ``pkg_bbox_empty_branch`` (a helper
branches on the length of boxes its caller, in another file, kept with a mask: strict,
non-strict and onnx-dynamo fail at that branch) and ``pkg_score_filter_topk_subpkg`` (the head
branches on the length of the first element a helper re-exported through ``utils/__init__.py``
returns after mask indexing: the same three fail at the head's branch).
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from conftest import lint_package, write_package

from exportlint.semantics.data_sized import data_sized_result, names_at
from exportlint.semantics.kinds import DATA_SIZED, TENSOR, join
from exportlint.semantics.model import SemanticModel


def _pkg(tmp_path: Path, files: dict[str, str]) -> list[str]:
    return write_package(tmp_path, files, "app9")


def _lint(files):
    return {(Path(f.path).name, f.line, f.code) for f in lint_package(files)}


_HEAD = """import torch.nn as nn

from .utils import keep_above


class Head(nn.Module):
    def forward(self, scores):
        kept, labels = keep_above(scores, 0.3)
        if kept.shape[0] == 0:
            return kept.new_zeros((0,))
        return kept * 2
"""


def test_branch_on_length_of_a_data_sized_result_from_another_file(tmp_path):
    files = _pkg(tmp_path, {
        "head.py": _HEAD,
        "utils/__init__.py": "from .misc import keep_above\n",
        "utils/misc.py": (
            "import torch\n\n\n"
            "def keep_above(scores, thr):\n"
            "    valid = scores > thr\n"
            "    scores = scores[valid]\n"
            "    scores, idx = scores.sort(descending=True)\n"
            "    return scores, torch.nonzero(valid)[:, 1]\n"),
    })
    assert ("head.py", 9, "EXL124") in _lint(files)


def test_no_data_size_branch_when_the_helper_returns_a_full_size_tensor(tmp_path):
    files = _pkg(tmp_path, {
        "head.py": _HEAD,
        "utils/__init__.py": "from .misc import keep_above\n",
        "utils/misc.py": (
            "def keep_above(scores, thr):\n"
            "    kept = scores * (scores > thr)\n"
            "    return kept, kept.argmax(-1)\n"),
    })
    got = _lint(files)
    assert not any(code == "EXL124" for _, _, code in got)


_NMS = """from .transforms import bbox2roi


def multiclass_nms(boxes, scores, thr):
    if boxes.shape[1] > 4:
        boxes = boxes.view(scores.size(0), -1, 4)
    else:
        boxes = boxes[:, None].expand(scores.size(0), scores.size(1), 4)
    boxes = boxes[scores > thr]
    return bbox2roi(boxes)
"""

_TRANSFORMS = """import torch


def bbox2roi(bboxes):
    if bboxes.shape[0] == 0:
        return bboxes.new_zeros((0, 5))
    return torch.cat([bboxes.new_zeros((bboxes.shape[0], 1)), bboxes], dim=-1)
"""

_HEAD_NMS = """import torch.nn as nn

from .bbox_nms import multiclass_nms


class BBoxHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.reg = nn.Linear(8, 4)
        self.cls = nn.Linear(8, 2)

    def forward(self, feats):
        return multiclass_nms(self.reg(feats), self.cls(feats).sigmoid(), 0.5)
"""


def test_branch_on_length_of_a_data_sized_argument_from_another_file(tmp_path):
    # the name is rebound: a view first, under an `if`; then mask-selected by a statement of the body
    files = _pkg(tmp_path, {"head.py": _HEAD_NMS, "bbox_nms.py": _NMS, "transforms.py": _TRANSFORMS})
    got = _lint(files)
    assert ("transforms.py", 5, "EXL124") in got
    assert ("transforms.py", 5, "EXL111") not in got  # reported once, as the data-size branch


def test_no_data_size_branch_when_a_caller_passes_a_full_size_tensor(tmp_path):
    # one call site passes the full boxes: the helper's parameter is not data-sized
    nms = _NMS.replace("    return bbox2roi(boxes)\n", "    return bbox2roi(boxes), bbox2roi(scores)\n")
    files = _pkg(tmp_path, {"head.py": _HEAD_NMS, "bbox_nms.py": nms, "transforms.py": _TRANSFORMS})
    got = _lint(files)
    assert not any(code == "EXL124" for _, _, code in got)


def test_no_data_size_when_the_mask_selection_comes_after_the_call(tmp_path):
    nms = _NMS.replace("    boxes = boxes[scores > thr]\n    return bbox2roi(boxes)\n",
                       "    out = bbox2roi(boxes)\n    boxes = boxes[scores > thr]\n    return out, boxes\n")
    files = _pkg(tmp_path, {"head.py": _HEAD_NMS, "bbox_nms.py": nms, "transforms.py": _TRANSFORMS})
    got = _lint(files)
    assert not any(code == "EXL124" for _, _, code in got)


_IN_FILE = """import torch
import torch.nn as nn


def helper(b):
    if b.shape[0] == 0:
        return b.new_zeros((0, 5))
    return b * 2


def select(s, thr):
    s = s[s > thr]
    return s, s.argmax()


class M(nn.Module):
    def forward(self, x):
        z = helper(x[x > 0])
        s, _ = select(x, 0.3)
        if s.shape[0] == 0:
            return z
        return z + helper(x).sum()
"""


def test_in_file_data_sized_results_and_parameters(tmp_path):
    p = tmp_path / "m.py"
    p.write_text(_IN_FILE, encoding="utf-8")
    got = _lint([str(p)])
    assert ("m.py", 20, "EXL124") in got  # `s`, the mask-selected first result of select()
    # helper() is also called with the full input: its parameter is not data-sized
    assert ("m.py", 6, "EXL124") not in got
    one = tmp_path / "one.py"
    one.write_text(_IN_FILE.replace("        return z + helper(x).sum()\n", "        return z\n"),
                   encoding="utf-8")
    assert ("one.py", 6, "EXL124") in _lint([str(one)])


def test_semantics_of_data_sized_results_and_kinds():
    m = SemanticModel(cst.parse_module(_IN_FILE))
    sel = next(f for f in m.functions if f.node.name.value == "select")
    assert data_sized_result(m, sel) == "0"
    fwd = next(f for f in m.functions if f.node.name.value == "forward")
    body = fwd.node.body.body
    assert "s" in names_at(m, fwd, body[2])  # the `if s.shape[0] == 0:` statement
    # the argument kind of a call into another file joins as a tensor
    assert join(DATA_SIZED, DATA_SIZED) == DATA_SIZED
    assert join(DATA_SIZED, TENSOR) == TENSOR


_ROI = """import torch.nn as nn


class RoIHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def simple_test(self, feats, rois=None):
        if rois.shape[0] == 0:
            return feats.new_zeros((0, 4))
        return self.fc(rois)

    def forward(self, x):
        return self.fc(x)
"""

_DET = """import torch.nn as nn

from .roi import RoIHead


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.roi_head = RoIHead()

    def forward(self, feats, scores):
        keep = scores > 0.5
        props = feats[keep]
        return self.roi_head.simple_test(feats, rois=props)
"""


def test_data_sized_keyword_argument_of_a_submodule_method_in_another_file(tmp_path):
    got = _lint(_pkg(tmp_path, {"roi.py": _ROI, "det.py": _DET}))
    assert ("roi.py", 10, "EXL124") in got


def test_no_data_size_when_the_method_is_also_called_with_a_full_tensor_in_its_file(tmp_path):
    roi = _ROI.replace("        return self.fc(x)\n", "        return self.simple_test(x, rois=x)\n")
    got = _lint(_pkg(tmp_path, {"roi.py": roi, "det.py": _DET}))
    assert not any(code == "EXL124" for _, _, code in got)


def test_a_boolean_mask_stays_a_mask_through_shape_methods(tmp_path):
    # transformers' image-token merge (pytorch/pytorch#147096): the mask is unsqueezed and expanded
    # before the selection whose numel() the helper checks; strict, non-strict and onnx-dynamo
    # fail there (bench/cases/pkg_image_token_count_check, measured)
    merging = ("def merge(embeds, feats, mask):\n"
               "    selected = embeds[mask]\n"
               "    if selected.numel() != feats.numel():\n"
               "        raise ValueError('mismatch')\n"
               "    return embeds.masked_scatter(mask, feats)\n")
    model = ("import torch.nn as nn\n\nfrom .merging import merge\n\n\n"
             "class M(nn.Module):\n"
             "    def __init__(self):\n"
             "        super().__init__()\n"
             "        self.embed = nn.Embedding(10, 8)\n\n"
             "    def forward(self, ids, feats):\n"
             "        e = self.embed(ids)\n"
             "        mask = (ids == 1).unsqueeze(-1).expand_as(e)\n"
             "        return merge(e, feats, mask)\n")
    assert ("merging.py", 3, "EXL124") in _lint(_pkg(tmp_path, {"merging.py": merging, "model.py": model}))
    # a float view of the mask is not a mask: indexing with it is not a selection
    floaty = model.replace(".expand_as(e)", ".expand_as(e).float()")
    assert not any(c == "EXL124" for _, _, c in _lint(_pkg(tmp_path / "f", {"merging.py": merging, "model.py": floaty})))


def test_a_parameter_rebound_to_a_mask_selection_is_data_sized_only_after_it(tmp_path):
    src = ("import torch.nn as nn\n\n\n"
           "class M(nn.Module):\n"
           "    def forward(self, x):\n"
           "        if x.shape[0] == 0:\n"
           "            return x\n"
           "        x = x[x > 0]\n"
           "        if x.shape[0] == 0:\n"
           "            return x.sum()\n"
           "        return x.mean()\n")
    p = tmp_path / "m.py"
    p.write_text(src, encoding="utf-8")
    got = _lint([str(p)])
    assert ("m.py", 9, "EXL124") in got
    assert ("m.py", 6, "EXL124") not in got  # the input, before the selection
