"""zoo18 probe: EXL127's mask from a submodule whose class is handed to the constructor (timm maxxvit's
`self.rel_pos = rel_pos_cls(num_heads=...)`, `attn_bias = self.rel_pos.get_bias()`; maxxvit.py:334).

onnx-dynamo (torch 2.13), dynamic batch, two heads, SDPA output `.transpose(1, 2).reshape(B, N, C)`.
Cases: the handed class returns its table gathered, permuted, unsqueezed to 4-D (RelPosBias's form);
control: the handed class returns a 3-D mask (no unsqueeze). One JSON line per case.
"""
import json
import sys
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim


class Bias4(nn.Module):
    def __init__(self, window, num_heads):
        super().__init__()
        n = window * window
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, num_heads))
        self.register_buffer("index", torch.randint(0, (2 * window - 1) ** 2, (n * n,)))
        self.shape = (n, n, num_heads)

    def get_bias(self):
        b = self.table[self.index].view(self.shape).permute(2, 0, 1)
        return b.unsqueeze(0).contiguous()


class Bias3(Bias4):
    def get_bias(self):
        return self.table[self.index].view(self.shape).permute(2, 0, 1).contiguous()


class Attn(nn.Module):
    def __init__(self, dim, rel_pos_cls=None):
        super().__init__()
        self.heads = 2
        self.qkv = nn.Linear(dim, dim * 3)
        self.rel_pos = rel_pos_cls(num_heads=self.heads) if rel_pos_cls else None

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        attn_bias = self.rel_pos.get_bias()
        x = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_bias)
        return x.transpose(1, 2).reshape(B, N, C)


def run(case):
    torch.manual_seed(0)
    cls = {"handed_bias4": Bias4, "handed_bias3": Bias3}[case]
    m = Attn(16, rel_pos_cls=partial(cls, window=2)).eval()
    x = torch.randn(2, 4, 16)
    try:
        onx = torch.onnx.export(m, (x,), dynamo=True, dynamic_shapes=({0: Dim("batch")},))
        import onnxruntime as ort
        import numpy as np
        sess = ort.InferenceSession(onx.model_proto.SerializeToString())
        x3 = torch.randn(3, 4, 16)
        got = sess.run(None, {sess.get_inputs()[0].name: x3.numpy()})[0]
        ok = np.allclose(got, m(x3).detach().numpy(), atol=1e-4)
        return ("pass" if ok else "diverged"), ""
    except Exception as e:  # noqa: BLE001
        cause = e
        while cause.__cause__ is not None:
            cause = cause.__cause__
        return "fail", (type(e).__name__ + " <- " + type(cause).__name__ + ": " + " ".join(str(cause).split()))[:500]


if __name__ == "__main__":
    for c in sys.argv[1:] or ["handed_bias4", "handed_bias3"]:
        out, msg = run(c)
        print(json.dumps({"case": c, "exporter": "onnx-dynamo", "outcome": out, "message": msg}), flush=True)
