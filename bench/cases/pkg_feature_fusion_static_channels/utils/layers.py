import torch.nn as nn


class WeightedFeatureFusion(nn.Module):
    def forward(self, x, a):
        nx = x.shape[1]
        na = a.shape[1]
        if nx == na:
            x = x + a
        elif nx > na:
            x[:, :na] = x[:, :na] + a
        else:
            x = x + a[:, :nx]
        return x
