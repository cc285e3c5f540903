"""Rebuilt from https://github.com/pytorch/pytorch/issues/151726
"Exported Module cannot call train() or eval()"

A model whose forward branches on `self.training` (noise and dropout only while training):
torch.export captures the mode the model is in; the user exported the eval-mode model.
"""
import torch


class NoisyHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 3)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        if self.training:
            x = x + 0.1 * torch.randn_like(x)
            x = self.drop(x)
        return self.fc(x)


example_args = (torch.randn(4, 6),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch", min=1, max=64)}}
