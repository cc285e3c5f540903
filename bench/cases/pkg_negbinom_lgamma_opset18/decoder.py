import torch
import torch.nn as nn
import torch.nn.functional as F

from .likelihoods import log_nb_positive


class CountDecoder(nn.Module):
    def __init__(self, n_latent, n_genes):
        super().__init__()
        self.scale = nn.Linear(n_latent, n_genes)
        self.log_theta = nn.Parameter(torch.zeros(n_genes))

    def forward(self, z, counts):
        mu = F.softplus(self.scale(z))
        theta = torch.exp(self.log_theta)
        return log_nb_positive(counts, mu, theta).sum(-1)
