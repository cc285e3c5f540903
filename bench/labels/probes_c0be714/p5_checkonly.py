import torch, torch.nn as nn
from harness import run_all
def my_check(cond, msg):
    if not cond: raise ValueError(msg)
class M(nn.Module):
    def __init__(s): super().__init__(); s.lin = nn.Linear(4, 4)
    def forward(s, ids, feats):
        n_tokens = (ids == 3).sum().item()
        n_feats = feats.shape[0]
        my_check(n_tokens <= 100, f"tokens {n_tokens} features {n_feats}")
        return s.lin(feats) * (ids == 3).sum()
ids1 = torch.tensor([3, 3, 1, 2]); ids2 = torch.tensor([3, 1, 1, 2])
run_all("item-only-in-check", M(), (ids1, torch.randn(2, 4)), (ids2, torch.randn(2, 4)), exporters=("onnx-legacy", "export-nonstrict", "export-strict"))
