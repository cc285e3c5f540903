"""fairseq/esm `self._future_mask = torch.empty(0)` rebuilt in forward when stale and moved with
`.to(tensor)` (EXL303 on esm inverse_folding). Fresh module per exporter, and one warmed by an eager call."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

class Dec(nn.Module):
    def __init__(s):
        super().__init__(); s._future_mask = torch.empty(0); s.lin = nn.Linear(8, 8)
    def buffered_future_mask(s, tensor):
        dim = tensor.size(0)
        if s._future_mask.size(0) == 0 or (not s._future_mask.device == tensor.device) or s._future_mask.size(0) < dim:
            s._future_mask = torch.triu(torch.zeros([dim, dim]).float().fill_(float("-inf")), 1)
        s._future_mask = s._future_mask.to(tensor)
        return s._future_mask[:dim, :dim]
    def forward(s, x):                      # x: T x C
        m = s.buffered_future_mask(x)
        return torch.softmax(s.lin(x) @ s.lin(x).T + m, -1)

for warm in (False, True):
    for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
        d = Dec().eval()
        if warm: d(torch.randn(5, 8))
        run_all(f"future_mask warm={warm}", d, (torch.randn(5, 8),), (torch.randn(5, 8),), exporters=(ex,))
