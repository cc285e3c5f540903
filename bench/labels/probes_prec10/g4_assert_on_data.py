"""demucs hdemucs pad1d `assert (out[..., l:l + n] == x0).all()` and asteroid beamforming
`assert torch.all(torch.isfinite(snr_post)), snr_post`: an `assert` on tensor data in forward.
torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Pad(nn.Module):
    def forward(self, x):
        out = F.pad(x, (2, 2), "reflect")
        assert (out[..., 2:2 + x.shape[-1]] == x).all()
        return out


class Finite(nn.Module):
    def forward(self, a, b):
        snr = a / b.clamp(min=1e-6)
        assert torch.all(torch.isfinite(snr)), snr
        return torch.argmax(snr, dim=-1)


run_all("g4 assert (out[...] == x).all()", Pad(), (torch.randn(1, 2, 8),), (torch.randn(1, 2, 8),))
run_all("g4 assert torch.all(isfinite(..)), msg", Finite(), (torch.rand(2, 5), torch.rand(2, 5)), (torch.rand(2, 5), torch.rand(2, 5)))
