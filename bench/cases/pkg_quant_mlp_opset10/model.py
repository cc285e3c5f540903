import torch.nn as nn
from torch.ao.quantization import DeQuantStub, QuantStub


class SignClassifier(nn.Module):
    def __init__(self, in_features=16, num_classes=4):
        super().__init__()
        self.quant = QuantStub()
        self.fc1 = nn.Linear(in_features, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, num_classes)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu(self.fc1(x))
        x = self.fc2(x)
        return self.dequant(x)
