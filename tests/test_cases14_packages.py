"""Classes fixed from the held-out batch 14 of multi-file real-issue cases (issue 10), on the
case-package branch cases14 (bench/data/cases_batch14.md).

Measured with torch 2.13 (bench/data/cases_truth.json; one-file probes quoted in the rule pages):

- EXL144: a ``torch.cond`` branch that mutates a buffer or its operand in place, or returns its
  operand or a view of it, fails strict and non-strict torch.export and onnx-dynamo at the cond;
  a branch that clones first, or only reads a buffer, exports.
- EXL143: a call of a ``torch.compile``'d function (decorator, ``fn = torch.compile(f)``, a
  compiled submodule) fails the legacy ONNX exporter; torch.export and onnx-dynamo pass.
- EXL139: ``nn.Parameter(...)`` built in forward fails strict torch.export.
- EXL408: ``nn.LSTM(proj_size > 0)`` fails onnx-legacy and onnx-dynamo writes a model
  onnxruntime rejects; ``proj_size=0`` passes.
- EXL409: ``nn.EmbeddingBag`` / ``F.embedding_bag`` with ``padding_idx`` fails onnx-legacy.

The 13 reproducers fail on main 6f7706b (no such rule there); the 5 controls are silent on both.
"""

from __future__ import annotations

from conftest import code_hits as _hits
from conftest import lint_package as _lint
from conftest import write_package

# ---- EXL144: torch.cond branches that mutate or alias ------------------------------------

_GATE = """import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.register_buffer("hits", torch.zeros(dim))

    def _on(self, x):
{on}

    def _off(self, x):
        return x.sin()

    def forward(self, x):
        return torch.cond(x.sum() > 0, self._on, self._off, (x,))
"""

_NET = """import torch.nn as nn

from .gate import Gate


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.gate = Gate()

    def forward(self, x):
        return self.gate(self.proj(x))
"""


def _gate(tmp_path, on):
    return write_package(tmp_path, {"gate.py": _GATE.format(on=on), "net.py": _NET}, "app14")


_EXPS = ("export-strict", "export-nonstrict", "onnx-dynamo")


def test_cond_branch_updating_a_buffer_in_place_is_reported(tmp_path):
    on = "        self.hits.add_(1.0)\n        return x.cos() + self.hits"
    assert _hits(_lint(_gate(tmp_path, on)), "EXL144") == [("gate.py", 18, "error", _EXPS)]


def test_cond_branch_returning_a_slice_of_its_operand_is_reported(tmp_path):
    assert [h[:2] for h in _hits(_lint(_gate(tmp_path, "        return x[:, :3]")), "EXL144")] == [("gate.py", 17)]


def test_cond_branch_returning_a_transposed_operand_is_reported(tmp_path):
    on = "        return x.transpose(0, 1)"
    assert [h[:2] for h in _hits(_lint(_gate(tmp_path, on)), "EXL144")] == [("gate.py", 17)]


def test_cond_branches_that_clone_or_only_read_are_silent(tmp_path):
    for i, on in enumerate(("        return x[:, :3].clone()",
                            "        y = x.clone()\n        y.add_(1.0)\n        return y",
                            "        return x + self.hits")):
        sub = tmp_path / f"c{i}"
        sub.mkdir()
        assert _hits(_lint(_gate(sub, on)), "EXL144") == [], on


def test_cond_helper_in_another_file_with_a_nested_view_branch_is_reported(tmp_path):
    select = ("import torch\n\n\n"
              "def keep_head(x):\n    return x[:, :3]\n\n\n"
              "def zero_head(x):\n    return torch.zeros_like(x[:, :3])\n\n\n"
              "def select_path(active, x):\n    return torch.cond(active, keep_head, zero_head, (x,))\n")
    cell = ("import torch.nn as nn\n\nfrom .select import select_path\n\n\n"
            "class Cell(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.op = nn.Linear(6, 6)\n\n"
            "    def forward(self, x, active):\n        return select_path(active, self.op(x))\n")
    files = write_package(tmp_path, {"select.py": select, "cell.py": cell}, "app14")
    assert [h[:2] for h in _hits(_lint(files), "EXL144")] == [("select.py", 13)]


# ---- EXL143: torch.compile'd functions under the legacy exporter -------------------------

_OPS = """import torch


{deco}
def bias_gelu(y, bias):
    x = y + bias
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x))
"""

_MLP = """import torch
import torch.nn as nn

from .ops import bias_gelu


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8, bias=False)
        self.bias = nn.Parameter(torch.zeros(8))

    def forward(self, x):
        return bias_gelu(self.fc(x), self.bias)
"""


def test_compiled_helper_of_another_file_is_reported_for_legacy(tmp_path):
    files = write_package(tmp_path, {"ops.py": _OPS.format(deco="@torch.compile"), "mlp.py": _MLP}, "app14")
    assert _hits(_lint(files), "EXL143") == [("mlp.py", 14, "error", ("onnx-legacy",))]


def test_compiled_helper_with_arguments_is_reported(tmp_path):
    files = write_package(tmp_path, {"ops.py": _OPS.format(deco="@torch.compile(dynamic=True, fullgraph=True)"),
                                     "mlp.py": _MLP}, "app14")
    assert [h[:2] for h in _hits(_lint(files), "EXL143")] == [("mlp.py", 14)]


def test_plain_or_otherwise_decorated_helper_is_silent(tmp_path):
    files = write_package(tmp_path, {"ops.py": _OPS.format(deco="@torch.no_grad()"), "mlp.py": _MLP}, "app14")
    assert _hits(_lint(files), "EXL143") == []


def test_compiled_module_level_binding_and_submodule_are_reported(tmp_path):
    src = ("import torch\nimport torch.nn as nn\n\n\n"
           "def _gelu(x):\n    return x * torch.sigmoid(1.702 * x)\n\n\n"
           "fast_gelu = torch.compile(_gelu)\n\n\n"
           "class Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.l = nn.Linear(8, 8)\n\n    def forward(self, x):\n        return self.l(x)\n\n\n"
           "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.block = torch.compile(Block())\n\n"
           "    def forward(self, x):\n        return fast_gelu(self.block(x))\n")
    files = write_package(tmp_path, {"net.py": src}, "app14")
    # the module-level binding an error, the submodule compiled in __init__ a warning (projects
    # compile attributes under a flag whose other arm binds the plain module: kornia, e3nn)
    assert [h[:3] for h in _hits(_lint(files), "EXL143")] == [("net.py", 27, "error"), ("net.py", 27, "warning")]


# ---- EXL139: nn.Parameter built in forward -----------------------------------------------

_SCALED = """import torch
import torch.nn as nn


class Scaled(nn.Module):
    def __init__(self, n=8):
        super().__init__()
        self.proj = nn.Linear(n, n)
        self.n = n
        self.lazy = None
        self.kept = nn.Parameter(torch.ones(n))

    def forward(self, x):
{body}
"""


def _scaled(tmp_path, body):
    return write_package(tmp_path, {"net.py": _SCALED.format(body=body)}, "app14")


def test_parameter_built_in_forward_is_an_error(tmp_path):
    body = ("        scale = nn.Parameter(torch.full((self.n,), 0.5, device=x.device))\n"
            "        return self.proj(x) * scale")
    assert _hits(_lint(_scaled(tmp_path, body)), "EXL139") == [("net.py", 14, "error", ("export-strict",))]


def test_parameter_of_a_tensor_helper_in_another_file_is_reported(tmp_path):
    helper = ("import torch.nn as nn\n\n\ndef as_param(t):\n    return nn.Parameter(t.detach().clone())\n")
    net = ("import torch.nn as nn\n\nfrom .helpers import as_param\n\n\n"
           "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.proj = nn.Linear(8, 8)\n\n"
           "    def forward(self, x):\n        return self.proj(x) * as_param(x.mean(0))\n")
    files = write_package(tmp_path, {"helpers.py": helper, "net.py": net}, "app14")
    assert [h[:2] for h in _hits(_lint(files), "EXL139")] == [("helpers.py", 5)]


def test_lazy_parameter_is_a_warning_and_init_parameter_is_silent(tmp_path):
    body = ("        if self.lazy is None:\n"
            "            self.lazy = nn.Parameter(torch.ones(x.shape[-1], device=x.device))\n"
            "        return self.proj(x) * self.kept * self.lazy")
    assert [h[:3] for h in _hits(_lint(_scaled(tmp_path, body)), "EXL139")] == [("net.py", 15, "warning")]


def test_parameter_only_in_init_is_silent(tmp_path):
    assert _hits(_lint(_scaled(tmp_path, "        return self.proj(x) * self.kept")), "EXL139") == []


# ---- EXL408 / EXL409: module arguments the ONNX exporters cannot translate ---------------

_RNN = """import torch
import torch.nn as nn
import torch.nn.functional as F


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True{proj})
        self.bag = nn.EmbeddingBag(20, 8, mode="sum"{pad})
        self.w = nn.Parameter(torch.randn(20, 8))

    def forward(self, x, ids, offsets):
        y, _ = self.lstm(x)
        b = self.bag(ids, offsets)
        c = F.embedding_bag(ids, self.w, offsets, mode="mean"{pad})
        return y, b, c
"""


def test_projected_lstm_and_padded_embedding_bags_are_reported(tmp_path):
    files = write_package(tmp_path, {"enc.py": _RNN.format(proj=", proj_size=4", pad=", padding_idx=0")}, "app14")
    f = _lint(files)
    assert _hits(f, "EXL408") == [("enc.py", 14, "error", ("onnx-dynamo", "onnx-legacy"))]
    assert _hits(f, "EXL409") == [("enc.py", 15, "error", ("onnx-legacy",)), ("enc.py", 16, "error", ("onnx-legacy",))]


def test_plain_lstm_and_embedding_bags_are_silent(tmp_path):
    files = write_package(tmp_path, {"enc.py": _RNN.format(proj=", proj_size=0", pad=", padding_idx=None")}, "app14")
    f = _lint(files)
    assert _hits(f, "EXL408") == [] and _hits(f, "EXL409") == []


# ---- EXL142: vmap over module state ------------------------------------------------------

_MEMBER = """import torch
import torch.nn as nn


class Member(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.linear(x))
"""

_ENSEMBLE = """import torch
import torch.nn as nn
from torch.func import vmap

from .member import Member


def pair_dist(a, b):
    return (a - b).pow(2).sum(-1)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Member()
        self.act = nn.ReLU()
        self.w = nn.Parameter(torch.randn(4, 4))

    def forward(self, x, y):
{body}
"""


def _ensemble(tmp_path, body):
    return write_package(tmp_path, {"member.py": _MEMBER, "ensemble.py": _ENSEMBLE.format(body=body)}, "app14")


def test_vmap_over_a_submodule_is_reported_at_the_call(tmp_path):
    f = _lint(_ensemble(tmp_path, "        return vmap(self.model)(x)"))
    assert _hits(f, "EXL142") == [("ensemble.py", 20, "error", ("export-strict",))]


def test_vmap_over_a_closure_reading_a_parameter_is_reported_at_the_read(tmp_path):
    body = ("        def project(row):\n"
            "            return row @ self.w\n"
            "        return torch.vmap(project)(self.model(x))")
    assert [h[:2] for h in _hits(_lint(_ensemble(tmp_path, body)), "EXL142")] == [("ensemble.py", 21)]


def test_vmap_over_pure_functions_and_stateless_modules_is_silent(tmp_path):
    body = ("        d = vmap(pair_dist)(x, y)\n"
            "        return vmap(self.act)(d)")
    assert _hits(_lint(_ensemble(tmp_path, body)), "EXL142") == []


def test_parameter_built_by_a_method_called_under_a_size_test_is_a_warning(tmp_path):
    # FSMT's SinusoidalPositionalEmbedding: the table grows (a new Parameter) only for inputs
    # longer than it; the export's example does not take that path
    body = ("        if x.shape[0] > self.kept.shape[0]:\n"
            "            self.grow(x.shape[0])\n"
            "        return self.proj(x) * self.kept[: x.shape[-1]]\n\n"
            "    def grow(self, n):\n"
            "        self.kept = nn.Parameter(torch.ones(n))")
    assert [h[:3] for h in _hits(_lint(_scaled(tmp_path, body)), "EXL139")] == [("net.py", 19, "warning")]
