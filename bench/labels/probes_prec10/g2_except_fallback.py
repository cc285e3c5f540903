"""asteroid dsp/beamforming.py `_stable_solve`: `try: return torch.linalg.solve(a, b)` /
`except RuntimeError: a = condition(a); return torch.linalg.solve(a, b)`. Which line does each
exporter fail at? The fallback's copy is marked by using `torch.linalg.inv(a) @ b` there, so a
failure that names `inv` would mean the handler ran. torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Solve(nn.Module):
    def forward(self, a, b):
        try:
            return torch.linalg.solve(a, b)
        except RuntimeError:
            a = a + 1e-6 * torch.eye(a.shape[-1])
            return torch.linalg.inv(a) @ b


class FallbackOnly(nn.Module):
    """control: the fallback's op alone (it is reported at this line)."""
    def forward(self, a, b):
        return torch.linalg.inv(a) @ b


a = torch.randn(3, 3) + 3 * torch.eye(3)
b = torch.randn(3, 2)
run_all("g2 try solve / except inv", Solve(), (a, b), (a + 1, b))
run_all("g2 control inv alone", FallbackOnly(), (a, b), (a + 1, b))
