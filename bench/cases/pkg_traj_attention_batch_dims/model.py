import torch.nn as nn

from .utils import attention


class TrajectoryTransformer(nn.Module):
    def __init__(self, d_model=16):
        super().__init__()
        self.enc = nn.Linear(2, d_model)
        self.dec = nn.Linear(3, d_model)
        self.out = nn.Linear(d_model, 3)

    def forward(self, enc_input, dec_input):
        memory = self.enc(enc_input)
        memory = attention(memory, memory, memory)
        q = self.dec(dec_input)
        x = attention(q, memory, memory)
        return self.out(x)
