"""--confirm declares the dynamic dims the PROJECT's export calls declare for a model class
(a model file with no export call, exported from a script elsewhere), read statically by
``exportlint/confirm/project_dims.py`` and applied in the worker as ``Dim.DYNAMIC``."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.confirm.api import run_confirm
from exportlint.confirm.project_dims import dims_for, project_dims

HAVE_EXPORT_STACK = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "onnxruntime", "onnxscript"))
needs_torch = pytest.mark.skipif(not HAVE_EXPORT_STACK, reason="torch / onnx / onnxruntime not installed")

MODEL = '''\
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x, mask):
        h = self.lin(x) * mask
        if h.shape[0] == 4:
            h = h * 2
        return h


class Other(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] == 4:
            return x * 2
        return x


def build():
    return Net(), (torch.randn(4, 8), torch.ones(4, 8))


def build_other():
    return Other(), (torch.randn(4, 8),)


def build_one():
    return Net(), (torch.randn(1, 8), torch.ones(1, 8))
'''

SCRIPT = '''\
import torch
from torch.export import Dim

from models.net import Net

batch = Dim("batch")
m = Net().eval()
x = torch.randn(4, 8)
ep = torch.export.export(m, (x, torch.ones(4, 8)), dynamic_shapes={"x": {0: batch}, "mask": {0: batch}})
torch.onnx.export(Net(), (x, x), "net.onnx", input_names=["inp", "msk"],
                  dynamic_axes={"inp": {0: "b"}, "msk": [0]}, dynamo=False)
'''


def _project(tmp_path: Path, script: bool = True) -> Config:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "net.py").write_text(MODEL)
    if script:
        (tmp_path / "scripts").mkdir()
        (tmp_path / "scripts" / "export.py").write_text(SCRIPT)
    cfg = Config(root=tmp_path)
    cfg.targets = {"net": "models.net:build", "other": "models.net:build_other", "one": "models.net:build_one"}
    return cfg


def test_project_dims_read_from_an_export_script_in_another_file(tmp_path):
    cfg = _project(tmp_path)
    entries = project_dims(cfg, [tmp_path])
    net = dims_for(entries, str(tmp_path / "models" / "net.py"), "Net")
    assert net is not None
    # dynamic_shapes keys are forward parameters; dynamic_axes keys map through input_names
    assert net["dims"] == {"x": [0], "mask": [0]}
    assert any(w.startswith(os.path.join("scripts", "export.py") + ":") for w in net["where"])
    assert dims_for(entries, str(tmp_path / "models" / "net.py"), "Other") is None  # never exported
    cfg.dynamic_shapes = False  # the config says the project exports fixed shapes
    assert project_dims(cfg, [tmp_path]) == []


@pytest.mark.slow
@needs_torch
def test_confirm_exports_with_the_project_dims(tmp_path):
    cfg = _project(tmp_path)
    cfg.confirm_timeout = 240.0
    line = MODEL.splitlines().index("        if h.shape[0] == 4:") + 1
    said: list[str] = []
    res = run_confirm(cfg, [], targets=["net", "other"], paths=[tmp_path],
                      exporters=("export-nonstrict", "onnx-dynamo", "onnx-legacy"), fork_server=False,
                      progress=said.append)
    assert not res.errors, res.errors
    assert any("exporting with the dynamic dims x[0], mask[0] declared at scripts/export.py:" in s for s in said), said
    by = {t.name: t for t in res.targets}
    net = by["net"]
    assert net.dynamic_shapes_from and net.dynamic_shapes_from["dims"] == {"x": [0], "mask": [0]}
    o = net.outcomes["export-nonstrict"]
    # the declared batch dim is specialised by the shape branch: a failure at that line
    assert o.status == "fail" and o.line == line, o
    assert "Constraints violated" in o.message or "specialized" in o.message
    # the ONNX dynamo exporter retries with Dim.AUTO and then reports the dim it inferred static
    # ("... but tracing inferred a static shape of 4"): the same guard, the same line
    dy = net.outcomes["onnx-dynamo"]
    assert dy.status == "fail" and dy.line == line, dy
    lg = net.outcomes["onnx-legacy"]
    # legacy exports with dynamic_axes on the batch and bakes the branch: wrong at other batch sizes
    assert lg.status == "diverged", lg
    assert any(d["variant"].startswith("declared dynamic dims") for d in lg.divergences), lg.divergences
    # the class no export call declares dims for is exported static, as before: it passes
    assert all(x.status == "pass" for x in by["other"].outcomes.values()), by["other"].outcomes


@pytest.mark.slow
@needs_torch
def test_confirm_without_project_dims_keeps_static_shapes(tmp_path):
    cfg = _project(tmp_path, script=False)
    cfg.confirm_timeout = 240.0
    res = run_confirm(cfg, [], targets=["net"], paths=[tmp_path], exporters=("export-nonstrict",),
                      fork_server=False)
    t = res.targets[0]
    assert t.dynamic_shapes_from is None
    assert t.outcomes["export-nonstrict"].status == "pass", t.outcomes


@pytest.mark.slow
@needs_torch
def test_a_declared_dim_of_example_size_one_is_not_declared(tmp_path):
    # torch specialises sizes 0 and 1 whatever the code does; the project's export script may
    # use another example: confirm does not turn that into a failure of the model
    cfg = _project(tmp_path)
    cfg.confirm_timeout = 240.0
    said: list[str] = []
    res = run_confirm(cfg, [], targets=["one"], paths=[tmp_path], exporters=("export-nonstrict",),
                      fork_server=False, progress=said.append)
    t = res.targets[0]
    assert t.dynamic_shapes_from["dims"] == {} and "x[0] (example size 1)" in t.dynamic_shapes_from["skipped"]
    assert t.outcomes["export-nonstrict"].status == "pass", t.outcomes
    assert any("not declaring x[0] (example size 1)" in s for s in said), said


def test_project_dims_through_a_named_dict(tmp_path):
    # the usual script: the dims are built first, then passed by name
    cfg = _project(tmp_path, script=False)
    (tmp_path / "export_named.py").write_text(
        "import torch\nfrom torch.export import Dim\n\nfrom models.net import Net\n\n\n"
        "def main():\n    batch = Dim('batch')\n    ds = {'x': {0: batch}, 'mask': (batch, None)}\n"
        "    m = Net()\n    torch.export.export(m, (torch.randn(4, 8), torch.ones(4, 8)), dynamic_shapes=ds)\n")
    net = dims_for(project_dims(cfg, [tmp_path]), str(tmp_path / "models" / "net.py"), "Net")
    assert net is not None and net["dims"] == {"x": [0], "mask": [0]}
