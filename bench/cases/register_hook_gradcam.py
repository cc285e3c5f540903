"""Rebuilt from https://github.com/pytorch/pytorch/issues/88740
"Export ONNX graph with backward pass inside the forward function"

A Grad-CAM model registers a gradient hook on its feature map inside `forward`
(`if x.requires_grad: h = x.register_hook(self.activations_hook)`); the hook stores the gradient
on the module.
"""
import torch
import torch.nn as nn


class CamModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(8, 2)
        self.gradients = None

    def activations_hook(self, grad):
        self.gradients = grad

    def forward(self, x):
        x = self.features(x)
        if x.requires_grad:
            x.register_hook(self.activations_hook)
        return self.head(x.mean((2, 3)))


example_args = (torch.randn(1, 3, 8, 8),)
