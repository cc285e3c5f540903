"""Rebuilt from https://github.com/pytorch/pytorch/issues/124507
"torch.export of ResNet with dynamic height fails due to constraint violation"

torchvision's resnet34 exported with `Dim('height', min=320, max=7680)` on dim 2: "Not all values
of height ... satisfy the generated guard Ne(Mod(((L['x'].size()[2] - 1)//2), 2), 0)" ("it works
with k = 2", i.e. an even height). Here the ResNet stem and one downsampling BasicBlock.
"""
import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.downsample(x))


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer2 = BasicBlock(8, 16, 2)

    def forward(self, x):
        x = self.maxpool(torch.relu(self.bn1(self.conv1(x))))
        return self.layer2(x).mean((2, 3))


model = TinyResNet()
example_args = (torch.randn(1, 3, 64, 32),)
dynamic_shapes = {"x": {2: torch.export.Dim("height", min=32, max=768)}}
