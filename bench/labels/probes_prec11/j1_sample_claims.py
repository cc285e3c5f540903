"""Claims of sample J (prec11, seed 1110) that are not obvious from the code. torch 2.13.0+cpu."""
import sys, numpy, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class FinfoOfConstant(nn.Module):
    """funasr branchformer encoder 235/250, fastformer 129, sond attention 85:
    `float(numpy.finfo(torch.tensor(0, dtype=s.dtype).numpy().dtype).min)`: a dtype read."""
    def forward(self, s, mask):
        min_value = float(numpy.finfo(torch.tensor(0, dtype=s.dtype).numpy().dtype).min)
        return s.masked_fill(mask, min_value)


class Erfinv(nn.Module):
    def forward(self, x):
        return torch.erfinv(x.clamp(-0.9, 0.9))


class Exp2(nn.Module):
    def forward(self, x):
        return torch.exp2(x)


s = torch.randn(2, 5)
m = s > 1
run_all("j1a finfo of a constant tensor's numpy dtype", FinfoOfConstant(), (s, m), (s + 1, s > 0))
run_all("j1b erfinv", Erfinv(), (s,), (s + 0.1,))
run_all("j1c exp2", Exp2(), (s,), (s + 0.1,))
