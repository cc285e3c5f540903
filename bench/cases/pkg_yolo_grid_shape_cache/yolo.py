import torch
import torch.nn as nn

from .general import make_grid


class Detect(nn.Module):
    def __init__(self, nc=2, ch=(8, 16), stride=(2.0, 4.0)):
        super().__init__()
        self.no = nc + 5
        self.na = 1
        self.nl = len(ch)
        self.grid = [torch.zeros(1)] * self.nl
        self.stride = stride
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)

    def forward(self, x):
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if self.grid[i].shape[2:4] != x[i].shape[2:4]:
                self.grid[i] = make_grid(nx, ny)
            y = x[i].sigmoid()
            xy = (y[..., 0:2] * 2.0 - 0.5 + self.grid[i]) * self.stride[i]
            z.append(torch.cat((xy, y[..., 2:]), -1).view(bs, -1, self.no))
        return torch.cat(z, 1)


class TinyYolo(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.detect = Detect()

    def forward(self, img):
        f1 = self.conv1(img)
        f2 = self.conv2(f1)
        return self.detect([f1, f2])
