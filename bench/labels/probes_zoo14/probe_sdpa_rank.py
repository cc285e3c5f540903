"""zoo14 probe: scaled_dot_product_attention on q/k/v of rank 3, 4, 5 (timm nest, nest.py:93:
q, k, v of shape (B, heads, T, N, C') from a 6-d reshape/permute/unbind), each exporter (torch 2.13),
batch declared dynamic, example batch 2, checked at batch 3; one JSON line per (case, exporter).
"""
import json
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim


class Attn(nn.Module):
    def __init__(self, rank, mask=False, causal=False, static=False):
        super().__init__()
        self.rank, self.mask, self.causal, self.static = rank, mask, causal, static
        self.qkv = nn.Linear(16, 48)

    def forward(self, x):  # x: (B, T, N, C) = (B, 4, 8, 16)
        B, T, N, C = x.shape
        if self.rank == 6:
            qkv = self.qkv(x).reshape(B, T, 1, N, 3, 2, C // 2).permute(4, 0, 5, 1, 2, 3, 6)
        elif self.rank == 5:
            qkv = self.qkv(x).reshape(B, T, N, 3, 2, C // 2).permute(3, 0, 4, 1, 2, 5)
        elif self.rank == 4:
            qkv = self.qkv(x).reshape(B * T, N, 3, 2, C // 2).permute(2, 0, 3, 1, 4)
        else:
            qkv = self.qkv(x).reshape(B * T, N, 3, C).permute(2, 0, 1, 3)
        q, k, v = qkv.unbind(0)
        m = torch.ones(N, N, dtype=torch.bool).tril() if self.mask else None
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=self.causal)
        return o.sum(-1)


CASES = {"rank5": (5, False, False), "rank5_mask": (5, True, False), "rank5_causal": (5, False, True),
         "rank4": (4, False, False), "rank3": (3, False, False),
         # added after the first run: static shapes (no dynamic dim), and a 6-d query
         "rank5_static": (5, False, False, True), "rank3_static": (3, False, False, True), "rank6": (6, False, False)}
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def run(name, exporter):
    torch.manual_seed(0)
    m = Attn(*CASES[name]).eval()
    dyn = not m.static
    x = torch.randn(2, 4, 8, 16)
    x2 = torch.randn(3, 4, 8, 16)
    rec = {"case": name, "exporter": exporter, "torch": torch.__version__}
    try:
        if exporter.startswith("export"):
            ep = torch.export.export(m, (x,), dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}} if dyn else None,
                                     strict=exporter == "export-strict")
            ok = torch.allclose(ep.module()(x2 if dyn else x), m(x2 if dyn else x), atol=1e-5)
        else:
            import tempfile

            import onnxruntime as ort

            path = tempfile.mktemp(suffix=".onnx")
            if exporter == "onnx-dynamo":
                torch.onnx.export(m, (x,), path, dynamo=True,
                                  dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}} if dyn else None)
            else:
                torch.onnx.export(m, (x,), path, dynamo=False, input_names=["x"],
                                  dynamic_axes={"x": {0: "batch"}} if dyn else None)
            if not dyn:
                x2 = x
            s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            got = s.run(None, {s.get_inputs()[0].name: x2.numpy()})[0]
            ok = torch.allclose(torch.from_numpy(got), m(x2), atol=1e-4)
        rec["outcome"] = "pass" if ok else "diverged"
    except Exception as e:  # noqa: BLE001
        rec["outcome"] = "fail"
        msg = (type(e).__name__ + ": " + str(e)).replace("\n", " ")
        i = msg.find("Error when translating")
        rec["message"] = msg[:200] + (" ... " + msg[i:i + 200] if i > 200 else "")
    return rec


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(json.dumps(run(sys.argv[1], sys.argv[2])))
    else:
        import subprocess

        only = sys.argv[1:]  # `--only CASE...`: these cases (the others' lines are kept from the last run)
        for name in (only[1:] if only[:1] == ["--only"] else CASES):
            for exporter in EXPORTERS:
                out = subprocess.run([sys.executable, __file__, name, exporter], capture_output=True, text=True)
                line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else json.dumps(
                    {"case": name, "exporter": exporter, "outcome": "crash", "message": out.stderr[-300:]})
                print(line, flush=True)
