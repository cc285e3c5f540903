"""zoo13 probe: a constant slice of a declared-dynamic sequence dim (bart's shift_tokens_right).

Runs each case with export-strict, export-nonstrict, onnx-dynamo and onnx-legacy (torch 2.13), seq declared
Dim("seq", min=2, max=64) as bench/zoo_scoreboard.py does (and min=3 as the control), and prints one JSON line
per (case, exporter, min): pass / diverged / fail with the first line of the message.
"""
import json
import os
import sys
import tempfile
import traceback

import torch
from torch.export import Dim


def shift(x):  # transformers' shift_tokens_right, reduced
    y = x.new_zeros(x.shape)
    y[:, 1:] = x[:, :-1].clone()
    y[:, 0] = 7
    return y


class Shift(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 8)

    def forward(self, input_ids):
        return self.emb(shift(input_ids))


class SliceMul(torch.nn.Module):
    def forward(self, input_ids):
        return input_ids[:, 1:] * 2


class SliceDiff(torch.nn.Module):  # finite difference along the sequence
    def forward(self, x):
        return x[:, 1:] - x[:, :-1]


class SliceReturn(torch.nn.Module):
    def forward(self, x):
        return x[:, :-1]


class SliceEmb(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 8)

    def forward(self, input_ids):
        return self.emb(input_ids[:, 1:]).sum(1)


class SliceHidden(torch.nn.Module):  # slice of a tensor derived from the input (embedding output)
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 8)

    def forward(self, input_ids):
        h = self.emb(input_ids)
        return h[:, 1:] * 2


CASES = {"shift": Shift, "slice_mul": SliceMul, "slice_diff": SliceDiff, "slice_return": SliceReturn,
         "slice_emb": SliceEmb, "slice_hidden": SliceHidden}


def run(case, exporter, mn):
    m = CASES[case]().eval()
    x = torch.randint(1, 100, (2, 8))
    alt = torch.randint(1, 100, (3, 5))
    seq = Dim("seq", min=mn, max=64)
    ds = ({0: Dim("batch"), 1: seq},)
    try:
        if exporter.startswith("export"):
            ep = torch.export.export(m, (x,), dynamic_shapes=ds, strict=exporter == "export-strict")
            ok = torch.allclose(ep.module()(alt).float(), m(alt).float())
        else:
            import onnxruntime as ort
            f = os.path.join(tempfile.mkdtemp(), "m.onnx")
            if exporter == "onnx-dynamo":
                torch.onnx.export(m, (x,), f, dynamo=True, dynamic_shapes=ds)
            else:
                torch.onnx.export(m, (x,), f, dynamo=False, input_names=["x"],
                                  dynamic_axes={"x": {0: "batch", 1: "seq"}})
            s = ort.InferenceSession(f)
            got = s.run(None, {s.get_inputs()[0].name: alt.numpy()})[0]
            ok = torch.allclose(torch.as_tensor(got).float(), m(alt).float())
        return "pass" if ok else "diverged", ""
    except Exception as e:  # noqa: BLE001
        return "fail", (type(e).__name__ + ": " + " ".join(str(e).split()))[:400]


if __name__ == "__main__":
    cases = sys.argv[1:] or list(CASES)
    for c in cases:
        for mn in (2, 3):
            for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
                if mn == 3 and ex.startswith("onnx"):
                    continue
                out, msg = run(c, ex, mn)
                print(json.dumps({"case": c, "exporter": ex, "seq_min": mn, "outcome": out, "message": msg}), flush=True)
