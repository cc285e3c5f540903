import torch.nn as nn


class GRUEncoder(nn.Module):
    def __init__(self, in_features, hidden):
        super().__init__()
        self.gru = nn.GRU(in_features, hidden, num_layers=2, batch_first=True)

    def forward(self, x):
        out, h = self.gru(x)
        return out, h[-1]
