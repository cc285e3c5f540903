"""Rebuilt from https://github.com/pytorch/pytorch/issues/125984
"`torch.export` code that includes `torch.autograd.grad`"

An interatomic potential returns forces as the negative gradient of its energy with respect to
the positions, computed with `torch.autograd.grad` inside `forward` (the report: "element 0 of
tensors does not require grad" non-strict, "skip function grad" strict).
"""
import torch
import torch.nn as nn


class EnergyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, pos):
        with torch.enable_grad():
            pos = pos.requires_grad_(True)
            energy = self.mlp(pos).sum()
            forces = -torch.autograd.grad(energy, pos)[0]
        return energy.detach(), forces


example_args = (torch.randn(5, 3),)
