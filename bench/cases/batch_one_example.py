"""Rebuilt from https://github.com/pytorch/pytorch/issues/133653
"Exporting ResNet-50 with dynamic batch dimension results in violated constraints"

The example input had batch size 1 and the batch was declared dynamic: "Not all values of batch
= L['x'].size()[0] in the specified range batch <= 10 are valid because batch was inferred to be
a constant (1)".
"""
import torch


class TinyResNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        return self.fc(x.mean(dim=(2, 3)))


example_args = (torch.randn(1, 3, 16, 16),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch", max=10)}}
