"""Rebuilt from https://github.com/pytorch/pytorch/issues/64806
"onnx export failed when output size are not factor of input size for adaptive_avg_pool2d"

The report contrasts the user's pyramid pooling with ResNet's head, `nn.AdaptiveAvgPool2d((1, 1))`,
which "can export to onnx successfully"; here the head alone, with dynamic height and width.
"""
import torch


class ResNetHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.avgpool = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = self.avgpool(torch.relu(self.conv(x)))
        return self.fc(torch.flatten(x, 1))


example_args = (torch.randn(2, 3, 20, 20),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=4, max=512), 3: torch.export.Dim("w", min=4, max=512)}}
