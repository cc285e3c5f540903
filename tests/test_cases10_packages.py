"""Classes fixed from the held-out batch 10 of multi-file real-issue cases (issue 10).

Measured with torch 2.13 (bench/data/cases_truth.json):

- ``pkg_library_impl_no_meta``: an operator defined with a ``torch.library.Library`` fragment
  (``define`` + a CPU ``impl``, no fake / Meta kernel) in another file and called as
  ``torch.ops.<ns>.<op>``: strict and non-strict torch.export fail at the call ("no fake impl
  or Meta kernel registered"), as both ONNX exporters do. EXL403 named only the ONNX exporters:
  a ``torch.ops`` call was never resolved to the project file that defines the op.
"""

from __future__ import annotations

from pathlib import Path

from conftest import lint_package as _lint
from conftest import write_package

from exportlint.config import Config


def _pkg(tmp_path: Path, files: dict[str, str]) -> list[str]:
    return write_package(tmp_path, files, "app10")


_LAYER = """import torch
import torch.nn as nn


class Layer(nn.Module):
    def forward(self, x):
        return torch.ops.{ns}.gated_act(x)
"""


def _ops(ns: str, extra: str = "") -> str:
    return (
        "import torch\n\n"
        f'_lib = torch.library.Library("{ns}", "DEF")\n'
        '_lib.define("gated_act(Tensor x) -> Tensor")\n\n\n'
        "def _cpu(x):\n"
        "    return x.sigmoid() * x\n\n\n"
        '_lib.impl("gated_act", _cpu, "CPU")\n' + extra)


def _exl403(findings):
    return [(Path(f.path).name, f.line, tuple(f.exporters)) for f in findings if f.code == "EXL403"]


def test_torch_ops_call_of_a_library_op_without_fake_kernel_breaks_torch_export(tmp_path):
    files = _pkg(tmp_path, {"csrc/__init__.py": "from . import ops\n", "csrc/ops.py": _ops("t10a"),
                            "layer.py": _LAYER.format(ns="t10a")})
    got = _exl403(_lint(files))
    assert got == [("layer.py", 7, ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"))]


def test_torch_ops_call_of_a_library_op_with_a_meta_kernel_keeps_torch_export(tmp_path):
    meta = "\n\ndef _meta(x):\n    return torch.empty_like(x)\n\n\n_lib.impl(\"gated_act\", _meta, \"Meta\")\n"
    files = _pkg(tmp_path, {"csrc/__init__.py": "from . import ops\n", "csrc/ops.py": _ops("t10b", meta),
                            "layer.py": _LAYER.format(ns="t10b")})
    assert _exl403(_lint(files)) == [("layer.py", 7, ("onnx-dynamo", "onnx-legacy"))]


def test_torch_ops_call_of_a_custom_op_with_register_fake_elsewhere_keeps_torch_export(tmp_path):
    files = _pkg(tmp_path, {
        "kernels.py": ('import torch\n\n\n@torch.library.custom_op("t10c::scale", mutates_args=())\n'
                       "def scale(x: torch.Tensor) -> torch.Tensor:\n    return x * 2\n"),
        "fake.py": ('import torch\n\n\n@torch.library.register_fake("t10c::scale")\n'
                    "def _(x):\n    return torch.empty_like(x)\n"),
        "layer.py": _LAYER.replace("gated_act", "scale").format(ns="t10c"),
    })
    assert _exl403(_lint(files)) == [("layer.py", 7, ("onnx-dynamo", "onnx-legacy"))]


def test_torch_ops_call_of_an_op_no_project_file_defines_stays_unknown_for_torch_export(tmp_path):
    files = _pkg(tmp_path, {"layer.py": _LAYER.format(ns="t10d")})
    assert _exl403(_lint(files)) == [("layer.py", 7, ("onnx-dynamo", "onnx-legacy"))]


# --- EXL209 under a flag every construction in the project sets (pkg_densenet_ckpt_ctor_flag,
# and batch 9b's pkg_checkpoint_swin_layer: strict torch.export fails at the checkpoint call)

_LAYERS = """import torch.nn as nn
import torch.utils.checkpoint as cp


class Layer(nn.Module):
    def __init__(self, dim, memory_efficient=False):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.memory_efficient = memory_efficient

    def forward(self, x):
        if self.memory_efficient:
            return cp.checkpoint(self.fc, x, use_reentrant=False)
        return self.fc(x)


class Block(nn.Module):
    def __init__(self, dim, memory_efficient=False):
        super().__init__()
        self.layers = nn.ModuleList([Layer(dim, memory_efficient=memory_efficient) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
"""

_NET = """import torch.nn as nn

from .layers import Block


class Net(nn.Module):
    def __init__(self, memory_efficient=False):
        super().__init__()
        self.block = Block(4, memory_efficient=memory_efficient)

    def forward(self, x):
        return self.block(x)
"""


def _exl209(findings):
    return [(Path(f.path).name, f.line) for f in findings if f.code == "EXL209"]


def test_checkpoint_under_a_flag_set_true_through_two_constructors_is_reported(tmp_path):
    files = _pkg(tmp_path, {"layers.py": _LAYERS, "net.py": _NET,
                            "build.py": "from .net import Net\n\nmodel = Net(memory_efficient=True)\n"})
    assert _exl209(_lint(files)) == [("layers.py", 13)]


def test_checkpoint_under_a_flag_the_builder_sets_false_is_not_reported(tmp_path):
    files = _pkg(tmp_path, {"layers.py": _LAYERS, "net.py": _NET,
                            "build.py": "from .net import Net\n\nmodel = Net(memory_efficient=False)\n"})
    assert _exl209(_lint(files)) == []


def test_checkpoint_under_a_flag_set_differently_by_two_builders_stays_unknown(tmp_path):
    files = _pkg(tmp_path, {"layers.py": _LAYERS, "net.py": _NET,
                            "build.py": ("from .net import Net\n\nmodel = Net(memory_efficient=True)\n"
                                         "other = Net(memory_efficient=False)\n")})
    assert _exl209(_lint(files)) == []


def test_checkpoint_under_a_flag_nobody_in_the_project_sets_stays_unknown(tmp_path):
    # the class is built only outside the linted files (by a user, from a config): unknown
    files = _pkg(tmp_path, {"layers.py": _LAYERS.replace("memory_efficient=False):\n        super().__init__()\n"
                                                         "        self.fc", "memory_efficient=True):\n"
                                                         "        super().__init__()\n        self.fc", 1)})
    assert _exl209(_lint(files)) == []


# --- op records whose support depends on a keyword written `self.<flag>` (pkg_resize_antialias_ctor:
# `F.interpolate(..., antialias=self.antialias)`, built with antialias=True in another file; the
# legacy exporter fails: "Exporting the operator 'aten::_upsample_bicubic2d_aa' ... not supported")

_PROJ = """import torch.nn as nn
import torch.nn.functional as F


class Resize(nn.Module):
    def __init__(self, antialias=False):
        super().__init__()
        self.antialias = antialias

    def forward(self, x):
        return F.interpolate(x, size=(8, 8), mode="bicubic", antialias=self.antialias)
"""


def _legacy_401(findings):
    return [(Path(f.path).name, f.line) for f in findings if f.code == "EXL401" and "onnx-legacy" in f.exporters]


def test_interpolate_antialias_flag_set_true_by_the_builder_is_reported(tmp_path):
    files = _pkg(tmp_path, {"proj.py": _PROJ, "det.py": (
        "import torch.nn as nn\n\nfrom .proj import Resize\n\n\nclass Det(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.r = Resize(antialias=True)\n\n"
        "    def forward(self, x):\n        return self.r(x)\n")})
    assert _legacy_401(_lint(files)) == [("proj.py", 11)]


def test_interpolate_antialias_flag_left_false_by_the_builder_is_not_reported(tmp_path):
    files = _pkg(tmp_path, {"proj.py": _PROJ, "det.py": (
        "import torch.nn as nn\n\nfrom .proj import Resize\n\n\nclass Det(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.r = Resize()\n\n"
        "    def forward(self, x):\n        return self.r(x)\n")})
    assert _legacy_401(_lint(files)) == []


# --- data-sized names rebound later (pkg_rpn_where_keep_numel: `keep = remove_small_boxes(...)`
# (torch.where(mask)[0] in a re-exported helper), `boxes = boxes[keep]`, then `keep` rebound to
# `batched_nms(...)`; the helper branches on `boxes.numel() == 0`: strict, non-strict and
# onnx-dynamo fail there)

from exportlint.engine import lint_source  # noqa: E402


def _codes(src):
    return [(f.line, f.code) for f in lint_source(src, "snippet.py", Config())]


_REBOUND = """import torch
import torch.nn as nn


class F(nn.Module):
    def forward(self, boxes, scores):
        keep = torch.where(scores > 0.5)[0]
        boxes = boxes[keep]
        keep = scores.argsort()
        if boxes.shape[0] == 0:
            return boxes
        return boxes[:1] * keep[:1, None]
"""


def test_name_indexed_with_a_data_sized_index_before_the_index_is_rebound():
    assert (10, "EXL124") in _codes(_REBOUND)


def test_name_rebound_to_a_full_tensor_is_not_data_sized_after_the_rebinding():
    src = _REBOUND.replace("        keep = scores.argsort()\n", "        keep = scores.argsort()\n        boxes = scores[:, None].expand(-1, 4)\n")
    assert not [c for c in _codes(src) if c[1] == "EXL124"]


# --- data-sized tensors kept in containers (pkg_keep_boxes_list_len: a helper returns a list of
# `nonzero` results, the caller branches on `len(...)` of each: strict, non-strict and onnx-dynamo
# fail there; pkg_postprocess_dict_len: a helper returns one dict per image holding mask-selected
# boxes, the caller branches on `results[0]["boxes"]`'s length: the same three fail)

_SELECT = """import torch


def keep_per_image(conf, thr):
    kept = []
    for c in conf:
        kept.append(torch.nonzero(c >= thr).flatten())
    return kept


def per_image(scores, boxes, thr):
    out = []
    for s, b in zip(scores, boxes):
        keep = s > thr
        out.append({"scores": s[keep], "boxes": b[keep], "all": b})
    return out
"""

_USE = """import torch
import torch.nn as nn

from .select import keep_per_image, per_image


class Ext(nn.Module):
    def forward(self, conf, feats):
        kept = keep_per_image(conf, 0.5)
        out = []
        for i, keep in enumerate(kept):
            if len(keep) < 4:
                keep = torch.argsort(conf[i])[:4]
            out.append(feats[i][keep].mean(0))
        return torch.stack(out)


class Post(nn.Module):
    def forward(self, scores, boxes):
        res = per_image(scores, boxes, 0.5)
        b = res[0]["boxes"]
        a = res[0]["all"]
        if a.shape[0] == 0:
            return a
        if b.shape[0] == 0:
            return b
        return b * 2
"""


def _exl124(findings):
    return sorted((Path(f.path).name, f.line) for f in findings if f.code == "EXL124")


def test_data_sized_tensors_through_a_returned_list_and_a_list_of_dicts(tmp_path):
    files = _pkg(tmp_path, {"select.py": _SELECT, "use.py": _USE})
    # line 12: len(keep) over the list's elements; line 25: the "boxes" field. Not line 23: the
    # "all" field holds the full boxes
    assert _exl124(_lint(files)) == [("use.py", 12), ("use.py", 25)]


def test_a_list_that_also_holds_a_full_tensor_is_not_data_sized(tmp_path):
    sel = _SELECT.replace("    return kept\n", "    kept.append(conf[0])\n    return kept\n", 1)
    files = _pkg(tmp_path, {"select.py": sel, "use.py": _USE})
    assert _exl124(_lint(files)) == [("use.py", 25)]


# --- a divisibility check on a dim the project's export declares dynamic (pkg_vit_patch_assert_base:
# `assert H % patch_H == 0` in a base-class method in another file; strict and non-strict
# torch.export fail there with "Constraints violated ... Eq(Mod(h, 14), 0)"; the ONNX exporters pass)

_PATCH = """import torch.nn as nn


class PatchBase(nn.Module):
    def __init__(self, p=14):
        super().__init__()
        self.p = p
        self.proj = nn.Conv2d(3, 8, p, p)

    def embed(self, x):
        _, _, H, W = x.shape
        assert H % self.p == 0, "height is not a multiple of the patch"
        if W % self.p != 0:
            raise ValueError("width is not a multiple of the patch")
        assert x.shape[1] == 3
        assert H > 0
        return self.proj(x).flatten(2)
"""

_BACKBONE = """from .patch import PatchBase


class Backbone(PatchBase):
    def forward(self, x):
        return self.embed(x)
"""

_EXPORT = """import torch

from .backbone import Backbone

h = torch.export.Dim("h", min=14, max=140)
torch.export.export(Backbone(), (torch.randn(1, 3, 28, 28),), dynamic_shapes=({{{dims}}},))
"""


def _divisible(findings):
    return sorted((Path(f.path).name, f.line, tuple(f.exporters)) for f in findings
                  if f.code == "EXL111" and "multiple" in f.message)


def test_divisibility_check_on_a_dim_the_export_declares_dynamic(tmp_path):
    files = _pkg(tmp_path, {"patch.py": _PATCH, "backbone.py": _BACKBONE,
                            "export.py": _EXPORT.format(dims="2: h, 3: h")})
    exps = ("export-strict", "export-nonstrict")
    assert _divisible(_lint(files)) == [("patch.py", 12, exps), ("patch.py", 13, exps)]


def test_divisibility_check_on_dims_the_export_keeps_static_is_not_reported(tmp_path):
    files = _pkg(tmp_path, {"patch.py": _PATCH, "backbone.py": _BACKBONE,
                            "export.py": _EXPORT.format(dims="0: torch.export.Dim('b')")})
    assert _divisible(_lint(files)) == []


def test_tuple_form_dynamic_shapes_map_to_forward_parameters(tmp_path):
    from exportlint.semantics.project import Project

    files = _pkg(tmp_path, {
        "m.py": ("import torch.nn as nn\n\n\nclass M(nn.Module):\n"
                 "    def forward(self, x, y):\n        return x + y\n"),
        "export.py": ("import torch\n\nfrom .m import M\n\nb = torch.export.Dim('b')\n"
                      "torch.export.export(M(), (torch.randn(2, 3), torch.randn(2, 3)),\n"
                      "                    dynamic_shapes=({0: b}, None))\n"),
    })
    _, dynamic, declares = Project(files).export_facts(files)
    from exportlint.semantics.project import REACH_KEY

    # (REACH_KEY: the classes the declared model is shown to build, itself included; "name:0=b":
    # dim 0 is the Dim named "b", read by EXL146)
    assert dynamic == {"M": {"x": {0, "name:0=b"}, REACH_KEY: {"M"}}} and declares is True


# --- (after batch 10b's once-score) a tensor cache grown on demand, keyed by a length attribute
# (pkg_rotary_cache_base: `if seq_len > self.max_seq_len_cached: self._set_cos_sin_cache(seq_len)`,
# the helper re-registers the cos/sin buffers and sets the length: all four exporters pass)

_ROTARY = """import torch
import torch.nn as nn


class Rotary(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.register_buffer("inv_freq", torch.ones(dim // 2), persistent=False)
        self._set_cache(16)

    def _set_cache(self, seq_len):
        self.max_seq_len_cached = seq_len
        t = torch.arange(seq_len, dtype=self.inv_freq.dtype)
        self.register_buffer("cos_cached", torch.outer(t, self.inv_freq).cos(), persistent=False)

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.max_seq_len_cached:
            self._set_cache(seq_len)
        return x[..., : self.cos_cached.shape[-1]] * self.cos_cached[:seq_len]
"""


def test_length_of_a_tensor_cache_grown_on_demand_is_not_carried_state(tmp_path):
    assert [c for c in _codes(_ROTARY) if c[1] == "EXL203"] == []


def test_a_running_maximum_without_a_tensor_cache_stays_reported(tmp_path):
    src = """import torch.nn as nn


class Peak(nn.Module):
    def __init__(self):
        super().__init__()
        self.longest = 0

    def _note(self, n):
        self.longest = n

    def forward(self, x):
        n = x.shape[1]
        if n > self.longest:
            self._note(n)
        return x * self.longest
"""
    assert (10, "EXL203") in _codes(src)


# --- (after batch 10b's once-score) the flag read through a config object built at the
# construction site (pkg_bert_grad_ckpt_config: `Encoder(Config(gradient_checkpointing=True))`,
# `if getattr(self.config, "gradient_checkpointing", False):` before checkpointing each layer:
# strict torch.export fails there); a setter that may change the flag keeps it unknown

_ENC = """import torch.nn as nn
import torch.utils.checkpoint


class Config:
    def __init__(self, hidden=4, gradient_checkpointing=False):
        self.hidden = hidden
        self.gradient_checkpointing = gradient_checkpointing


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList([nn.Linear(config.hidden, config.hidden) for _ in range(2)])

    def forward(self, h):
        for layer in self.layers:
            if getattr(self.config, "gradient_checkpointing", False):
                h = torch.utils.checkpoint.checkpoint(layer, h, use_reentrant=False)
            else:
                h = layer(h)
        return h
"""


def test_checkpoint_under_a_flag_of_a_config_object_built_at_the_construction_site(tmp_path):
    files = _pkg(tmp_path, {"enc.py": _ENC, "build.py": (
        "from .enc import Config, Encoder\n\nmodel = Encoder(Config(gradient_checkpointing=True))\n")})
    assert _exl209(_lint(files)) == [("enc.py", 20)]


def test_checkpoint_flag_also_set_by_a_setter_stays_unknown(tmp_path):
    enc = _ENC + "\n    def enable(self, on=True):\n        self.config.gradient_checkpointing = on\n"
    files = _pkg(tmp_path, {"enc.py": enc, "build.py": (
        "from .enc import Config, Encoder\n\nmodel = Encoder(Config(gradient_checkpointing=True))\n")})
    assert _exl209(_lint(files)) == []
