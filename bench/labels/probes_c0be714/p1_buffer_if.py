import torch, torch.nn as nn
from harness import run_all
class M(nn.Module):
    def __init__(s):
        super().__init__(); s.probs = nn.Buffer(torch.ones(3)); s.lin = nn.Linear(4, 4)
    def forward(s, x):
        for idx in range(3):
            if s.probs[idx] > 0:
                x = s.lin(x)
        return x
run_all("buffer-if", M(), (torch.randn(2, 4),), (torch.randn(5, 4),))
