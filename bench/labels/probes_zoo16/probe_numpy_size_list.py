"""zoo16 probe: ``np.array`` of a Python list holding a size (bigbird's ``np.array(plan_from_length) //
block_size`` where the list holds the sequence length, modeling_big_bird.py:901), each exporter (torch
2.13), seq declared ``Dim("seq", min=2, max=64)`` ("_static": nothing dynamic). One JSON line per
(case, exporter).
"""
import json
import sys

import numpy as np
import torch
from torch import nn
from torch.export import Dim


class M(nn.Module):
    def __init__(self, case):
        super().__init__()
        self.case = case

    def forward(self, x):
        c = self.case.removesuffix("_static")
        s = x.shape[1]
        if c == "np_list":  # numpy over a list holding the size, the result used as a Python number
            plan = [8, s]
            blocks = np.array(plan) // 2
            return x * int(blocks[-1])
        if c == "np_list_index":  # ... used to pick a Python list item (bigbird: plan indices)
            plan = [8, s]
            blocks = np.array(plan) // 2
            return x[:, : int(blocks[0])]
        raise ValueError(c)


CASES = ("np_list", "np_list_static", "np_list_index")
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def run(name, exporter):
    torch.manual_seed(0)
    m = M(name).eval()
    x = torch.randn(2, 16)
    x2 = x if name.endswith("_static") else torch.randn(3, 24)
    ds = None if name.endswith("_static") else {"x": {0: Dim("batch", min=1, max=64), 1: Dim("seq", min=2, max=64)}}
    axes = None if name.endswith("_static") else {"x": {0: "b", 1: "s"}}
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
