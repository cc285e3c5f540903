import torch.nn as nn

from .merge import merge_padded


class MergeModel(nn.Module):
    def forward(self, x, y):
        return merge_padded(x, y)
