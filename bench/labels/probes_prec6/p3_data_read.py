"""Reading a parameter's `.data` in forward (no write): used in the output, or computed and dropped
(p2's `read` control failed export-nonstrict)."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

class M(nn.Module):
    def __init__(s, mode):
        super().__init__(); torch.manual_seed(0); s.base = nn.Linear(4, 4); s.mode = mode
    def forward(s, x):
        if s.mode == "used":
            return x @ s.base.weight.data.T
        if s.mode == "dropped":
            _ = s.base.weight.data - 1.0
            return s.base(x)
        if s.mode == "dropped_full":
            _ = s.base.weight.data - torch.full((4, 4), 0.1)
            return s.base(x)
        if s.mode == "detach":
            return x @ s.base.weight.detach().T
# one mode and exporter per process (`python p3_data_read.py MODE EXPORTER`): onnx-dynamo segfaulted
# on `dropped` in a shared process; the .out is the concatenation of every run (see the loop in .out)
mode, ex = sys.argv[1], sys.argv[2]
run_all(mode, M(mode), (torch.randn(3, 4),), (torch.randn(3, 4),), exporters=(ex,))
