"""zoo16 probe: a ``torch.autograd.Function`` whose ``apply`` is handed submodules (reformer's
``_ReversibleFunction.apply(hidden_states, self.layers, ...)``, modeling_reformer.py:1791, legacy
"RuntimeError: unordered_map::at"), each exporter (torch 2.13), batch and seq dynamic ("_static": none). One JSON line
per (case, exporter).
"""
import json
import sys

import torch
from torch import nn
from torch.autograd import Function
from torch.export import Dim


class RunLayers(Function):
    @staticmethod
    def forward(ctx, x, layers, scale):
        for layer in layers:
            x = layer(x) * scale
        ctx.save_for_backward(x.detach())
        ctx.layers = layers
        return x

    @staticmethod
    def backward(ctx, g):
        return g, None, None


class Pure(Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x)
        return torch.tanh(x @ w) * scale

    @staticmethod
    def backward(ctx, g):
        return g, None, None


class M(nn.Module):
    def __init__(self, case):
        super().__init__()
        self.case = case
        self.layers = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 8)])
        self.layer = nn.Linear(8, 8)

    def forward(self, x):
        c = self.case.removesuffix("_static")
        if c == "module_list_arg":
            return RunLayers.apply(x, self.layers, 2)
        if c == "module_arg":
            return RunLayers.apply(x, [self.layer], 2)
        if c == "pure_weight_arg":  # control: tensors and numbers only
            return Pure.apply(x, self.layer.weight, 2)
        raise ValueError(c)


CASES = ("module_list_arg", "module_arg", "pure_weight_arg", "module_list_arg_static")
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def run(name, exporter):
    torch.manual_seed(0)
    m = M(name).eval()
    x, x2 = torch.randn(2, 5, 8), torch.randn(3, 7, 8)
    ds = {"x": {0: Dim("batch", min=1, max=64), 1: Dim("seq", min=2, max=64)}}
    axes = {"x": {0: "b", 1: "s"}}
    if name.endswith("_static"):
        ds, axes, x2 = None, None, torch.randn(2, 5, 8)
    rec = {"case": name, "exporter": exporter, "torch": torch.__version__}
    try:
        if exporter.startswith("export"):
            ep = torch.export.export(m, (x,), dynamic_shapes=ds, strict=exporter == "export-strict")
            ok = torch.allclose(ep.module()(x2), m(x2), atol=1e-4)
        else:
            import tempfile

            import onnxruntime as ort

            path = tempfile.mktemp(suffix=".onnx")
            if exporter == "onnx-dynamo":
                torch.onnx.export(m, (x,), path, dynamo=True, dynamic_shapes=ds)
            else:
                torch.onnx.export(m, (x,), path, dynamo=False, input_names=["x"], dynamic_axes=axes)
            s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            got = s.run(None, {s.get_inputs()[0].name: x2.numpy()})[0]
            ok = torch.allclose(torch.from_numpy(got), m(x2), atol=1e-4)
        rec["outcome"] = "pass" if ok else "diverged"
    except Exception as e:  # noqa: BLE001
        rec["outcome"] = "fail"
        rec["message"] = (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:300]
    return rec


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(json.dumps(run(sys.argv[1], sys.argv[2])))
    else:
        import subprocess

        for name in CASES:
            for exporter in EXPORTERS:
                out = subprocess.run([sys.executable, __file__, name, exporter], capture_output=True, text=True,
                                     timeout=300)
                line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else json.dumps(
                    {"case": name, "exporter": exporter, "outcome": "crash", "message": out.stderr[-300:]})
                print(line, flush=True)
