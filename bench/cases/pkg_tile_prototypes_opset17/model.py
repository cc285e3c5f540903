import torch.nn as nn

from .prototypes import PrototypeBank


class PrototypeClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.bank = PrototypeBank(5, 16)

    def forward(self, x):
        protos = self.bank(x.shape[0])
        return -(protos - x.unsqueeze(1)).pow(2).sum(-1)
