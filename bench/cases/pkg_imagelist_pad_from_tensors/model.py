import torch.nn as nn

from .structures import ImageList


class Batcher(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, images):
        batch = ImageList.from_tensors(images)
        return self.conv(batch.tensor)
