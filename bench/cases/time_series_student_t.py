"""Rebuilt from https://github.com/huggingface/transformers/pull/43631
"[`Export`] Disable argument check in torch distributions for export"

transformers' time-series models (Autoformer, Informer) turn the network output into a
distribution in `DistributionOutput.distribution()` (`self.distribution_class(*distr_args)`,
a `StudentT`), and exporting them failed with "Could not guard on data-dependent expression
Eq(u0, 1)" until the PR disabled argument validation. Here the StudentT head with the helper
method that builds the distribution.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import StudentT


class StudentTHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, 3)

    def distribution(self, params):
        df = 2.0 + F.softplus(params[..., 0])
        loc = params[..., 1]
        scale = F.softplus(params[..., 2]).clamp_min(1e-3)
        return StudentT(df, loc, scale)

    def forward(self, hidden, target):
        dist = self.distribution(self.proj(hidden))
        return dist.log_prob(target)


example_args = (torch.randn(2, 5, 8), torch.randn(2, 5))
