"""Data-dependent checks that raise (chronos2 `if torch.isnan(c).any(): raise`, peft poly
`if task_ids.max().item() >= n: raise`), and torch.equal of two different-shaped tensors in a
test (mmseg SAN `if query is key or torch.equal(query, key)`)."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

class NanCheck(nn.Module):
    def forward(s, x):
        if torch.isnan(x).any():
            raise ValueError("nan")
        return x * 2
class ItemCheck(nn.Module):
    def forward(s, ids, x):
        if ids.max().item() >= 4:
            raise ValueError(f"task id {ids.max().item()}")
        return x[ids]
class Equal(nn.Module):
    def forward(s, q, k):
        if q is k or torch.equal(q, k):
            return q
        return q.sum(0) + k.sum(0)
run_all("nan-check-raise", NanCheck(), (torch.randn(3, 4),), (torch.randn(3, 4),))
run_all("item-check-raise", ItemCheck(), (torch.tensor([0, 2]), torch.randn(4, 3)), (torch.tensor([1, 3]), torch.randn(4, 3)))
run_all("equal-diff-shapes", Equal(), (torch.randn(5, 2, 4), torch.randn(7, 2, 4)), (torch.randn(5, 2, 4), torch.randn(7, 2, 4)))
run_all("equal-same-shapes", Equal(), (torch.randn(5, 2, 4), torch.randn(5, 2, 4)), (torch.randn(5, 2, 4), torch.randn(5, 2, 4)))
