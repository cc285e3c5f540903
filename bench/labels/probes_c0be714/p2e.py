import math, numpy as np, torch, torch.nn as nn
from harness import run_all
class Pc(torch.nn.Module):  # perceiver _build_network_inputs
    def forward(self, inputs):
        batch_size = inputs.shape[0]
        index_dims = inputs.shape[1:-1]
        indices = np.prod(index_dims)
        return torch.reshape(inputs, [batch_size, indices, -1])
class Pi(torch.nn.Module):
    def forward(self, x):
        n = int(np.prod(x.shape[1:]))
        return x.reshape(x.shape[0], n)
class Pp(torch.nn.Module):  # perceiver fourier features
    def forward(self, pos):
        f = pos[0, :, :][:, :, None] * torch.ones(3, 4)[None, :, :]
        return torch.reshape(f, [-1, np.prod(f.shape[1:])])
ex = ("export-strict",)
run_all("perceiver-build", Pc(), (torch.randn(2, 3, 4, 5),), (torch.randn(2, 3, 4, 5),), exporters=ex)
run_all("int-np.prod-explicit", Pi(), (torch.randn(2, 3, 4),), (torch.randn(2, 3, 4),), exporters=ex)
run_all("perceiver-fourier", Pp(), (torch.randn(1, 6, 3),), (torch.randn(1, 6, 3),), exporters=ex)
