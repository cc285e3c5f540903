import torch.nn as nn

from .gaussian import diagonal_covariance


class GaussianHead(nn.Module):
    def __init__(self, dim=16, k=4):
        super().__init__()
        self.mu = nn.Linear(dim, k)
        self.log_var = nn.Linear(dim, k)

    def forward(self, x):
        cov = diagonal_covariance(self.log_var(x))
        return self.mu(x), cov
