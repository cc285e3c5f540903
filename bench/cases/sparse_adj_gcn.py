"""Rebuilt from https://github.com/pytorch/pytorch/issues/97652
"torch.onnx.export support sparse tensor format"

The user's layer multiplies by a sparse COO weight in `forward` (`x = torch.sparse.mm(self.weight,
x)`). Here the usual graph-convolution form: a sparse adjacency buffer times the node features.
"""
import torch
import torch.nn as nn


class GCNLayer(nn.Module):
    def __init__(self, n=5, c=4):
        super().__init__()
        idx = torch.tensor([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 2]])
        self.register_buffer("adj", torch.sparse_coo_tensor(idx, torch.ones(6), (n, n)))
        self.fc = nn.Linear(c, c)

    def forward(self, x):
        return torch.relu(torch.sparse.mm(self.adj, self.fc(x)))


example_args = (torch.randn(5, 4),)
