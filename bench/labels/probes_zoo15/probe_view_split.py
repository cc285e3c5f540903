"""zoo15 probe: a view/reshape that splits a dimension read from the tensor's own shape into
``(d // k, k)`` (timm tresnet's SpaceToDepth, space_to_depth.py:23; window partitions), each exporter
(torch 2.13), H and W declared ``Dim(min=64, max=1024)`` (batch too), example 64x64, checked at 96x96
(divisible by 4); one JSON line per (case, exporter).
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
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)

    def forward(self, x):
        c = self.case
        if c in ("s2d", "s2d_batch_only", "s2d_mult_decl"):
            N, C, H, W = x.size()
            x = x.view(N, C, H // 4, 4, W // 4, 4)
            x = x.permute(0, 3, 5, 1, 2, 4).contiguous()
            return x.view(N, C * 16, H // 4, W // 4)
        if c == "s2d_reshape":
            N, C, H, W = x.shape
            return x.reshape(N, C, H // 4, 4, W // 4, 4).sum((3, 5))
        if c == "window":  # channels-last window partition
            x = x.permute(0, 2, 3, 1)
            B, H, W, C = x.shape
            x = x.view(B, H // 4, 4, W // 4, 4, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, 16, C)
            return x.mean(1)
        if c == "padded":  # padded to a multiple of 4 first
            _, _, H, W = x.shape
            pad_h, pad_w = (4 - H % 4) % 4, (4 - W % 4) % 4
            x = F.pad(x, (0, pad_w, 0, pad_h))
            N, C, Hp, Wp = x.shape
            return x.view(N, C, Hp // 4, 4, Wp // 4, 4).sum((3, 5))
        if c == "after_conv":  # the size read after a strided conv
            x = self.conv(x)
            N, C, H, W = x.shape
            return x.view(N, C, H // 4, 4, W // 4, 4).sum((3, 5))
        if c == "other_tensor":  # split the size of one tensor, view another of a fixed size
            N, C, H, W = x.shape
            y = torch.zeros(N, 16, 4, device=x.device)
            return y.view(N, H // H * 4, 4, 4).sum() + x.sum()
        if c == "pixel_unshuffle":
            return F.pixel_unshuffle(x, 4)
        if c == "neg1":
            N, C, H, W = x.shape
            return x.view(N, C, -1, 4, W // 4, 4).sum((3, 5))
        raise ValueError(c)


CASES = ("s2d", "s2d_reshape", "window", "padded", "after_conv", "other_tensor", "pixel_unshuffle", "neg1",
         "s2d_batch_only", "s2d_mult_decl")
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def shapes(case):
    if case == "s2d_batch_only":
        return {"x": {0: Dim("batch", min=1, max=64)}}, {"x": {0: "batch"}}
    if case == "s2d_mult_decl":
        h, w = Dim("h", min=16, max=256), Dim("w", min=16, max=256)
        return {"x": {0: Dim("batch", min=1, max=64), 2: 4 * h, 3: 4 * w}}, {"x": {0: "b", 2: "h", 3: "w"}}
    return ({"x": {0: Dim("batch", min=1, max=64), 2: Dim("height", min=64, max=1024),
                   3: Dim("width", min=64, max=1024)}}, {"x": {0: "b", 2: "h", 3: "w"}})


def run(name, exporter):
    torch.manual_seed(0)
    m = M(name).eval()
    x = torch.randn(2, 3, 64, 64)
    x2 = torch.randn(3, 3, 64, 64) if name == "s2d_batch_only" else torch.randn(3, 3, 96, 96)
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
