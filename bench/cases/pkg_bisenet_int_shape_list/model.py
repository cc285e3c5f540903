import torch.nn as nn
import torch.nn.functional as F

from .modules import AttentionRefinementModule, ConvBNReLU


class ContextPath(nn.Module):
    def __init__(self, chan=8):
        super().__init__()
        self.stem = ConvBNReLU(3, chan, stride=4)
        self.down = ConvBNReLU(chan, chan, stride=2)
        self.arm = AttentionRefinementModule(chan, chan)
        self.conv_avg = ConvBNReLU(chan, chan, ks=1, padding=0)
        self.conv_head = ConvBNReLU(chan, chan)

    def forward(self, x):
        feat16 = self.stem(x)
        feat32 = self.down(feat16)
        feat32_shape = [int(t) for t in feat32.size()[2:]]
        feat16_shape = [int(t) for t in feat16.size()[2:]]
        avg = F.avg_pool2d(feat32, feat32.size()[2:])
        avg = self.conv_avg(avg)
        avg_up = F.interpolate(avg, size=feat32_shape, mode="nearest")
        feat32_sum = self.arm(feat32) + avg_up
        feat32_up = F.interpolate(feat32_sum, size=feat16_shape, mode="nearest")
        return self.conv_head(feat32_up)
