"""zoo15 probe: ``F.fold(x, output_size=(H, W), ...)`` with the output size read from a tensor's
shape (timm VOLO's OutlookAttention, volo.py:114: the held-out volo_d1's legacy failure "TypeError:
'NoneType' object is not subscriptable (Occurred when translating col2im)"), each exporter
(torch 2.13), batch declared dynamic (H/W static) unless the case says otherwise; example batch 2,
checked at batch 3; one JSON line per (case, exporter).
"""
import json
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim


class M(nn.Module):
    def __init__(self, case):
        super().__init__()
        self.case = case
        self.unfold = nn.Unfold(kernel_size=3, padding=1, stride=2)
        self.fold = nn.Fold(output_size=(8, 8), kernel_size=3, padding=1, stride=2)

    def forward(self, x):  # x: (B, C, H, W) = (B, 4, 8, 8)
        B, C, H, W = x.shape
        u = self.unfold(x) * 0.5  # (B, C*9, L)
        c = self.case
        if c in ("shape", "shape_static", "shape_hw"):
            return F.fold(u, output_size=(H, W), kernel_size=3, padding=1, stride=2)
        if c == "literal":
            return F.fold(u, output_size=(8, 8), kernel_size=3, padding=1, stride=2)
        if c == "module":  # nn.Fold built with a constant size
            return self.fold(u)
        if c == "mixed":  # a constant and a size (an ISTFT by fold: neucodec, xcodec2)
            f = x.reshape(B, C * H, 1, W)
            u1 = F.unfold(f, kernel_size=(1, 3), stride=(1, 2), padding=(0, 1))
            n = (u1.shape[-1] - 1) * 2 + 1
            return F.fold(u1, output_size=(1, n), kernel_size=(1, 3), stride=(1, 2), padding=(0, 1))
        if c == "shape_index":
            return F.fold(u, output_size=x.shape[-2:], kernel_size=3, padding=1, stride=2)
        raise ValueError(c)


CASES = ("shape", "shape_static", "literal", "module", "shape_index", "shape_hw", "mixed")
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def shapes(case):
    if case == "shape_static":
        return None, None
    if case == "shape_hw":
        return ({"x": {0: Dim("batch", min=1, max=64), 2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}},
                {"x": {0: "b", 2: "h", 3: "w"}})
    return {"x": {0: Dim("batch", min=1, max=64)}}, {"x": {0: "b"}}


def run(name, exporter):
    torch.manual_seed(0)
    m = M(name).eval()
    x = torch.randn(2, 4, 8, 8)
    ds, axes = shapes(name)
    x2 = x if ds is None else (torch.randn(3, 4, 12, 12) if name == "shape_hw" else torch.randn(3, 4, 8, 8))
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
                try:
                    out = subprocess.run([sys.executable, __file__, name, exporter], capture_output=True, text=True,
                                         timeout=300)
                except subprocess.TimeoutExpired:
                    print(json.dumps({"case": name, "exporter": exporter, "outcome": "timeout"}), flush=True)
                    continue
                line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else json.dumps(
                    {"case": name, "exporter": exporter, "outcome": "crash", "message": out.stderr[-300:]})
                print(line, flush=True)
