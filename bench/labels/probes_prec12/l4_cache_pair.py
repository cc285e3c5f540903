"""prec12 P-CACHEPAIR: a cache hit that returns the cached attributes themselves as a tuple (espnet
S4 `_omega`: `if cache and hasattr(self, "omega") and self.omega.size(-1) == L // 2 + 1: return
self.omega, self.z`, refilled together below). torch 2.13.0+cpu."""
import sys, numpy as np, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class FFTNodes(nn.Module):
    def _omega(self, L, cache=True):
        if cache and hasattr(self, "omega") and self.omega.size(-1) == L // 2 + 1:
            return self.omega, self.z
        omega = torch.tensor(np.exp(-2j * np.pi / L), dtype=torch.cfloat)
        omega = omega ** torch.arange(0, L // 2 + 1)
        z = 2 * (1 - omega) / (1 + omega)
        if cache:
            self.omega = omega
            self.z = z
        return omega, z

    def forward(self, x):
        omega, z = self._omega(x.size(-1))
        return x * omega.real.sum() + z.imag.sum()


x = torch.randn(2, 8)
run_all("l4a tuple cache hit, fresh module", FFTNodes(), (x,), (x * 2,))
warm = FFTNodes()
warm(x)
run_all("l4b tuple cache hit, after an eager call", warm, (x,), (x * 2,))
