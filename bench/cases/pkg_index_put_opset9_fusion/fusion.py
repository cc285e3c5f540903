import torch.nn as nn

from .scatter import scatter_to_canvas


class FusionLayer(nn.Module):
    def __init__(self, channels=4, size=6):
        super().__init__()
        self.size = size
        self.fuse = nn.Conv2d(channels, 1, 1)

    def forward(self, x, tensor_index):
        canvas = scatter_to_canvas(x, tensor_index, self.size)
        return self.fuse(canvas)
