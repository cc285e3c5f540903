"""peft frod-style forward: a sparse COO tensor built from a buffer of indices and a parameter of
values, coalesced, `if S._nnz() == 0: return zeros`, then `torch.sparse.mm` (frod/layer.py:263)."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

class SparseAdapter(nn.Module):
    def __init__(s, nnz=3):
        super().__init__()
        torch.manual_seed(0)
        s.register_buffer("idx", torch.tensor([[0, 1, 2][:nnz], [1, 2, 3][:nnz]]))
        s.vals = nn.Parameter(torch.randn(nnz))
    def mm(s, z, S):
        if S._nnz() == 0:
            return torch.zeros_like(z)
        return torch.sparse.mm(S, z.t()).t()
    def forward(s, x):
        S = torch.sparse_coo_tensor(s.idx, s.vals, (4, 4)).coalesce()
        return x + s.mm(x, S)

class DenseOnly(nn.Module):
    """the same without the `_nnz()` test: is the sparse path itself what fails?"""
    def __init__(s):
        super().__init__(); torch.manual_seed(0)
        s.register_buffer("idx", torch.tensor([[0, 1, 2], [1, 2, 3]])); s.vals = nn.Parameter(torch.randn(3))
    def forward(s, x):
        S = torch.sparse_coo_tensor(s.idx, s.vals, (4, 4)).coalesce()
        return x + torch.sparse.mm(S, x.t()).t()

run_all("nnz-test", SparseAdapter(), (torch.randn(2, 4),), (torch.randn(2, 4),))
run_all("sparse-no-test", DenseOnly(), (torch.randn(2, 4),), (torch.randn(2, 4),))
