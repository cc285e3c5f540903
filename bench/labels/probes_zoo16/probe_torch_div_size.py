"""zoo16 probe: a size computed with a torch op on Python sizes (``torch.div(x.size(1), k,
rounding_mode="trunc")``, longformer's ``_chunk`` at modeling_longformer.py:707) and used as a size
(view / new_zeros / arange), each exporter (torch 2.13). The sequence is declared ``4 * Dim("q")`` so
that the control ``x.size(1) // 4`` exports (a plain ``Dim`` fails on the split itself: EXL133);
"static" declares nothing dynamic. One JSON line per (case, exporter).
"""
import json
import sys

import torch
from torch import nn
from torch.export import Dim


class M(nn.Module):
    def __init__(self, case):
        super().__init__()
        self.case = case

    def forward(self, x):
        c = self.case.removesuffix("_static")
        if c.endswith("_nc"):  # a non-contiguous input, as longformer's transpose(...).reshape(...) of a view
            x = x.transpose(0, 1).contiguous().transpose(0, 1)  # (b, s, d), strides (d, b*d, 1)
            c = c.removesuffix("_nc")
        b, s, d = x.size()
        if c == "div_chunk":  # longformer's _chunk: view by torch.div, then overlapping chunks by as_strided
            x = x.view(b, torch.div(s, 4, rounding_mode="trunc"), 4, d)
            size, stride = list(x.size()), list(x.stride())
            size[1], stride[1] = size[1] * 2 - 1, stride[1] // 2
            return x.as_strided(size=size, stride=stride).sum((2, 3))
        if c == "floordiv_chunk":  # control: Python //
            x = x.view(b, s // 4, 4, d)
            size, stride = list(x.size()), list(x.stride())
            size[1], stride[1] = size[1] * 2 - 1, stride[1] // 2
            return x.as_strided(size=size, stride=stride).sum((2, 3))
        if c == "div_view":
            return x.view(b, torch.div(s, 4, rounding_mode="trunc"), 4, d).sum(2)
        if c == "div_floor_view":
            return x.view(b, torch.div(x.size(1), 4, rounding_mode="floor"), 4, d).sum(2)
        if c == "floordiv_view":  # control: Python //
            return x.view(b, s // 4, 4, d).sum(2)
        if c == "div_count_zeros":  # a count minus one, used as a factory size
            n = torch.div(s, 4, rounding_mode="trunc") - 1
            return x.new_zeros((b, n, d)) + x[:, :1]
        if c == "div_arange":
            return torch.arange(torch.div(s, 2, rounding_mode="floor")).float().sum() + x
        if c == "div_in_math":  # control: the 0-d tensor only in tensor arithmetic
            return x * torch.div(s, 4, rounding_mode="trunc")
        if c == "floor_divide_view":
            return x.view(b, torch.floor_divide(s, 4), 4, d).sum(2)
        raise ValueError(c)


CASES = ("div_view_nc", "floordiv_view_nc", "div_view_nc_static", "div_in_math")
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def shapes(case):
    if case.endswith("_static"):
        return None, None
    return {"x": {0: Dim("batch", min=1, max=64), 1: 4 * Dim("q", min=1, max=16)}}, {"x": {0: "b", 1: "s"}}


def run(name, exporter):
    torch.manual_seed(0)
    m = M(name).eval()
    x = torch.randn(2, 8, 16)
    x2 = x if name.endswith("_static") else torch.randn(3, 12, 16)
    ds, axes = shapes(name)
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
        msg = (type(e).__name__ + ": " + str(e)).replace("\n", " ")
        rec["message"] = msg[:300]
    return rec


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(json.dumps(run(sys.argv[1], sys.argv[2])))
    else:
        import subprocess

        only = sys.argv[1:]
        for name in (only[1:] if only[:1] == ["--only"] else CASES):
            for exporter in EXPORTERS:
                out = subprocess.run([sys.executable, __file__, name, exporter], capture_output=True, text=True,
                                     timeout=300)
                line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else json.dumps(
                    {"case": name, "exporter": exporter, "outcome": "crash", "message": out.stderr[-300:]})
                print(line, flush=True)
