import torch.nn as nn


class EncoderLayer(nn.Module):
    def __init__(self, d_model=16):
        super().__init__()
        self.fc1 = nn.Linear(d_model, 2 * d_model)
        self.fc2 = nn.Linear(2 * d_model, d_model)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x):
        return self.norm(x + self.fc2(self.fc1(x).relu()))
