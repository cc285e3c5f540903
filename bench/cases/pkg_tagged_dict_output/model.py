import torch.nn as nn

from .heads import TaggedHead


class TaggedModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = TaggedHead("regression")

    def forward(self, x, y):
        return self.head(x + y)
