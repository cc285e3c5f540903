"""q1 without the weight rewrite: unmerge only pops `self.merged_adapters` (is the list mutation itself a hazard?)."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all
class PopOnly(nn.Module):
    def __init__(s):
        super().__init__(); s.base = nn.Linear(4, 4); s.merged_adapters = ["default"]; s.disable_adapters = True
    @property
    def merged(s): return bool(s.merged_adapters)
    def unmerge(s):
        while len(s.merged_adapters) > 0:
            s.merged_adapters.pop()
    def forward(s, x):
        if s.disable_adapters:
            if s.merged:
                s.unmerge()
            return s.base(x)
        return s.base(x) * 2
for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
    run_all("pop-only", PopOnly(), (torch.randn(3, 4),), (torch.randn(3, 4),), exporters=(ex,))
