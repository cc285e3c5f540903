import torch
import torch.nn as nn

from .fft_utils import p2o, upsample


class DataNet(nn.Module):
    def __init__(self, sf=2):
        super().__init__()
        self.sf = sf

    def forward(self, x, k):
        w, h = x.shape[-2:]
        FB = p2o(k, (w * self.sf, h * self.sf))
        FBC = torch.conj(FB)
        F2B = torch.pow(torch.abs(FB), 2)
        STy = upsample(x, sf=self.sf)
        FBFy = FBC * torch.fft.fftn(STy, dim=(-2, -1))
        out = torch.real(torch.fft.ifftn(FBFy / (F2B + 1.0), dim=(-2, -1)))
        return out
