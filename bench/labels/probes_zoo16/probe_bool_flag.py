"""zoo16 probe: a shape comparison whose truth is taken by ``and`` / ``or`` in an assignment, the flag
branched on later (reformer's ``must_pad_to_match_chunk_length = (input_shape[-1] % lcm != 0 and
input_shape[-1] > min_len and past is None)`` then ``if must_pad_to_match_chunk_length:``,
modeling_reformer.py:2023/2028), each exporter (torch 2.13), seq declared ``Dim("seq", min=2, max=64)``,
example seq 8, checked at seq 6 (which takes the other branch). For torch.export non-strict the guard's
user line is read from ``TORCH_LOGS=+dynamic`` ("guard added ... (probe_bool_flag.py:N in forward)"):
``guard_line``. One JSON line per (case, exporter).
"""
import json
import os
import re
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim


class M(nn.Module):
    def __init__(self, case):
        super().__init__()
        self.case = case

    def forward(self, x, past=None):
        c = self.case
        s = x.shape[1]
        if c == "and_flag":
            must_pad = (
                s % 4 != 0  # LINE-and_flag
                and s > 2
                and past is None
            )
            if must_pad:  # IF-and_flag
                x = F.pad(x, (0, 0, 0, 4 - s % 4))
            return x.sum(1)
        if c == "plain_flag":  # the comparison alone: its truth is taken at the if
            must_pad = s % 4 != 0  # LINE-plain_flag
            if must_pad:  # IF-plain_flag
                x = F.pad(x, (0, 0, 0, 4 - s % 4))
            return x.sum(1)
        if c == "last_operand":  # the shape comparison is the last operand: its truth is taken at the if
            must_pad = past is None and s % 4 != 0  # LINE-last_operand
            if must_pad:  # IF-last_operand
                x = F.pad(x, (0, 0, 0, 4 - s % 4))
            return x.sum(1)
        raise ValueError(c)


CASES = ("and_flag", "plain_flag", "last_operand")
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def run(name, exporter):
    torch.manual_seed(0)
    m = M(name).eval()
    x, x2 = torch.randn(2, 8, 4), torch.randn(3, 6, 4)
    ds = {"x": {0: Dim("batch", min=1, max=64), 1: Dim("seq", min=2, max=64)}}
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
                torch.onnx.export(m, (x,), path, dynamo=False, input_names=["x"], dynamic_axes={"x": {0: "b", 1: "s"}})
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
        src = open(__file__).read().splitlines()
        marks = {m.group(1) + ":" + m.group(2): i + 1 for i, line in enumerate(src)
                 for m in [re.search(r"# (LINE|IF)-(\w+)", line)] if m}
        for name in CASES:
            for exporter in EXPORTERS:
                env = dict(os.environ, TORCH_LOGS="+dynamic")
                out = subprocess.run([sys.executable, __file__, name, exporter], capture_output=True, text=True,
                                     timeout=300, env=env)
                rec = json.loads(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else {
                    "case": name, "exporter": exporter, "outcome": "crash", "message": out.stderr[-300:]}
                lines = sorted({int(g) for g in re.findall(r"\[guard added\][^\n]*?probe_bool_flag\.py:(\d+)", out.stderr)})
                rec["guard_lines"] = lines
                rec["assignment_line"], rec["if_line"] = marks.get("LINE:" + name), marks.get("IF:" + name)
                print(json.dumps(rec), flush=True)
