import torch.nn as nn


class RecurrentEncoder(nn.Module):
    def __init__(self, n_in=6, hidden=8):
        super().__init__()
        self.gru = nn.GRU(n_in, hidden, num_layers=2, batch_first=True)

    def forward(self, x):
        _, h = self.gru(x)
        return h[-1]
