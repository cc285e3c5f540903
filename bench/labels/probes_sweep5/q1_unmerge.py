"""peft-style one-shot unmerge in forward (`if self.disable_adapters: if self.merged: self.unmerge()`),
unmerge pops `self.merged_adapters` and rewrites the base weight's .data (EXL203 on peft tuners).
A fresh merged module per exporter; match-other compares with eager after the export."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

class LoraLike(nn.Module):
    def __init__(s, op=None):
        super().__init__()
        torch.manual_seed(0)
        s.base = nn.Linear(4, 4); s.A = nn.Parameter(torch.randn(2, 4)); s.B = nn.Parameter(torch.randn(4, 2))
        s.merged_adapters = []; s.disable_adapters = True; s.op = op
        s.base.weight.data += s.delta(); s.merged_adapters.append("default")   # merged
    @property
    def merged(s):
        return bool(s.merged_adapters)
    def delta(s):
        d = s.B @ s.A
        if s.op == "inv": d = torch.linalg.inv(d + 4 * torch.eye(4)) - torch.linalg.inv(4 * torch.eye(4))
        if s.op == "block_diag": d = torch.block_diag(*torch.unbind(d.view(2, 2, 4)[:, :, :2])) * 0 + d
        return d
    def unmerge(s):
        while len(s.merged_adapters) > 0:
            s.merged_adapters.pop()
            s.base.weight.data = s.base.weight.data - s.delta()
    def forward(s, x):
        if s.disable_adapters:
            if s.merged:
                s.unmerge()
            return s.base(x)
        return s.base(x) + x @ s.A.T @ s.B.T

for op in (None, "inv", "block_diag"):
    for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
        run_all(f"unmerge op={op}", LoraLike(op), (torch.randn(3, 4),), (torch.randn(3, 4),), exporters=(ex,))
