import torch.nn as nn

from .calibration import temperature_scale


class CalibratedClassifier(nn.Module):
    def __init__(self, dim=16, classes=4):
        super().__init__()
        self.fc = nn.Linear(dim, classes)

    def forward(self, x, temperature):
        return temperature_scale(self.fc(x), temperature).softmax(-1)
