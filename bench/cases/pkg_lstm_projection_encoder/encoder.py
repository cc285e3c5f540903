import torch
import torch.nn as nn

from .layers import make_projected_lstm


class LstmEncoder(nn.Module):
    def __init__(self, d_model=16, hidden=32, proj=16):
        super().__init__()
        self.frontend = nn.Linear(d_model, d_model)
        self.rnn = make_projected_lstm(d_model, hidden, proj)
        self.out = nn.Linear(proj, 8)

    def forward(self, x):
        x = torch.relu(self.frontend(x))
        y, _ = self.rnn(x)
        return self.out(y)
