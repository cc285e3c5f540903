"""--confirm places problems of a successfully exported ONNX model at the user's line:
onnxruntime raising in a node (the node's source: dynamo metadata, legacy verbose doc
string), the first ONNX value that differs (dynamo), and TracerWarnings of a tensor turned
into a NumPy array (legacy, data baked into the trace). Real exports, small models."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.confirm.api import run_confirm
from exportlint.confirm.locate import UserFiles
from exportlint.confirm.onnx_locate import failing_node, locate_onnx_node

HAVE_EXPORT_STACK = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "onnxruntime", "onnxscript"))
needs_torch = pytest.mark.skipif(not HAVE_EXPORT_STACK, reason="torch / onnx / onnxruntime not installed")


def _line(text: str, needle: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if needle in t)


def _confirm(tmp_path: Path, name: str, src: str, exporters: tuple[str, ...]):
    f = tmp_path / f"{name}.py"
    f.write_text(textwrap.dedent(src))
    cfg = Config(root=tmp_path)
    cfg.confirm_timeout = 240.0
    res = run_confirm(cfg, [], paths=[f], exporters=exporters, fork_server=False)
    assert not res.errors, res.errors
    return res, f.read_text()


def test_failing_node_names_from_onnxruntime_messages():
    assert failing_node("[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Reshape "
                        "node. Name:'/Reshape' Status Message: ...") == "/Reshape"
    assert failing_node("[ONNXRuntimeError] : 10 : INVALID_GRAPH : This is an invalid model. Node (node_add_3) "
                        "Op (Add) [ShapeInferenceError]") == "node_add_3"
    assert failing_node("values differ") is None


@needs_torch
def test_dynamo_node_metadata_gives_the_source_line(tmp_path):
    import torch

    f = tmp_path / "m.py"
    f.write_text("import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                 "        y = x * 2\n        return torch.relu(y)\n")
    spec = importlib.util.spec_from_file_location("m_onnx_locate", f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    proto = torch.onnx.export(mod.M(), (torch.randn(2, 3),), dynamo=True, verbose=False).model_proto
    relu = next(n for n in proto.graph.node if n.op_type == "Relu")
    msg = f"Non-zero status code returned while running Relu node. Name:'{relu.name}' Status Message: boom"
    loc = locate_onnx_node(proto, msg, UserFiles([str(tmp_path)]))
    assert loc is not None and loc.path == str(f.resolve()) and loc.line == 7 and loc.how == "onnx-node-source"


@needs_torch
def test_first_onnx_value_that_differs_from_the_program_gives_the_line(tmp_path):
    # a mistranslated node (simulated: the Relu of a real dynamo export turned into a Neg):
    # the values before it agree with the program's, its own differ -> its source line
    import torch

    from exportlint.confirm.onnx_locate import locate_first_diverging_value
    from exportlint.confirm.worker import compare

    f = tmp_path / "m2.py"
    f.write_text("import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                 "        y = x * 2\n        z = torch.relu(y)\n        return z + 1\n")
    spec = importlib.util.spec_from_file_location("m2_onnx_locate", f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    model = mod.M().eval()
    x = torch.randn(3, 4)
    proto = torch.onnx.export(model, (x,), dynamo=True, verbose=False).model_proto
    relu = next(n for n in proto.graph.node if n.op_type == "Relu")
    relu.op_type = "Neg"
    loc = locate_first_diverging_value(proto, model, (x,), {}, None, ((x,), {}), UserFiles([str(tmp_path)]),
                                       lambda e, g: compare(e, g, 1e-4, 1e-5)["ok"])
    assert loc is not None and loc.line == 7 and loc.how == "first-diverging-onnx-value", loc


MASK_ASSIGN = """\
    import torch


    class MaskAssign(torch.nn.Module):
        def forward(self, r_in):
            b = r_in.shape[0]
            r = torch.zeros((b, 2), dtype=r_in.dtype)
            mask = r_in > 0
            r[mask, 0] = r_in[mask]
            return r


    example_args = (torch.ones((2,)),)
    opset_version = 11
"""


@pytest.mark.slow
@needs_torch
def test_legacy_model_that_onnxruntime_cannot_run_fails_at_the_node_line(tmp_path):
    # the legacy export passes at opset 11 but onnxruntime's Reshape rejects the model
    # (pytorch/pytorch#159295): a failure at the masked assignment, found from the node
    res, text = _confirm(tmp_path, "mask_assign", MASK_ASSIGN, ("onnx-legacy",))
    o = res.targets[0].outcomes["onnx-legacy"]
    assert o.status == "fail", o
    assert o.line == _line(text, "r[mask, 0] = r_in[mask]") and o.how == "onnx-node-source", o
    assert "ONNXRuntimeError" in o.message
    e901 = [f for f in res.findings if f.code == "EXL901" and f.line == o.line]
    assert e901 and "To fix: the export succeeded but the exported model fails when run" in e901[0].message


POOL = """\
    import torch


    class Pool(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pool = torch.nn.AdaptiveAvgPool2d(3)

        def forward(self, x):
            y = x * 2
            p = self.pool(y)
            return p + 1


    example_args = (torch.randn(1, 2, 12, 12),)
    dynamic_shapes = {"x": {2: torch.export.Dim("h", min=6, max=64), 3: torch.export.Dim("w", min=6, max=64)}}
"""


@pytest.mark.slow
@needs_torch
def test_dynamo_divergence_at_the_decomposition_that_specialised_the_dim(tmp_path):
    # adaptive pooling on a dynamic H/W: the ONNX program pools with the example's kernel, so
    # other sizes give other numbers; the guard the decomposition added (and ONNX dropped) says where
    res, text = _confirm(tmp_path, "pool", POOL, ("onnx-dynamo",))
    o = res.targets[0].outcomes["onnx-dynamo"]
    assert o.status == "diverged", o
    assert o.line == _line(text, "p = self.pool(y)"), o
    assert o.how == "decomposition-guard", o


NUMPY_LABELS = """\
    import torch


    class PerClass(torch.nn.Module):
        def forward(self, boxes, labels):
            labels = labels.detach().cpu().numpy()
            per = [boxes[torch.from_numpy(labels == i)].sum(0) for i in range(3)]
            return torch.stack(per)


    example_args = (torch.randn(5, 5), torch.tensor([0, 2, 2, 1, 0]))
"""


@pytest.mark.slow
@needs_torch
def test_legacy_numpy_tracer_warning_places_a_value_divergence(tmp_path):
    # mmdeploy#996: labels turned into a NumPy array are baked into the trace; other label
    # values give other sums: the divergence belongs at the .numpy() line, not at the class
    res, text = _confirm(tmp_path, "numpy_labels", NUMPY_LABELS, ("onnx-legacy",))
    o = res.targets[0].outcomes["onnx-legacy"]
    assert o.status == "diverged", o
    assert o.line == _line(text, "labels = labels.detach().cpu().numpy()"), o
    assert any(f.code == "EXL902" and f.line == o.line for f in res.findings)


ACCUMULATE = """\
    import torch


    class Acc(torch.nn.Module):
        def forward(self, x, idx):
            y = x * 2
            out = torch.zeros(4).index_put_((idx,), y, accumulate=True)
            return out + 1


    example_args = (torch.randn(5), torch.tensor([0, 1, 1, 3, 1]))
"""


@pytest.mark.slow
@needs_torch
def test_legacy_wrong_numbers_on_the_example_input_at_the_first_onnx_line_that_differs(tmp_path):
    # index_put_(accumulate=True) with duplicate indices: the legacy export gives other numbers
    # on the very input it traced (EXPORT_FACTS.md); no TracerWarning: the first line whose
    # ONNX value (node source from a verbose export) differs from eager's
    from exportlint.findings import Finding, Severity

    f = tmp_path / "acc.py"
    f.write_text(textwrap.dedent(ACCUMULATE))
    text = f.read_text()
    line = _line(text, "index_put_")
    device = Finding(code="EXL302", severity=Severity.WARNING, path=str(f), line=line, column=15, end_line=line,
                     end_column=30, message="factory without device")
    cfg = Config(root=tmp_path)
    cfg.confirm_timeout = 240.0
    res = run_confirm(cfg, [device], paths=[f], exporters=("onnx-legacy",), fork_server=False)
    o = res.targets[0].outcomes["onnx-legacy"]
    assert o.status == "diverged" and o.line == line and o.how == "first-diverging-onnx-line", o
    # a device-placement finding on that line is not what the divergence proves
    assert device.verdict != "confirmed"
    assert any(x.code == "EXL902" and x.line == line for x in res.findings)
