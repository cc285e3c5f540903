"""Claims of sample M (prec12, seed 1211) not obvious from the code. torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class AlphaGate(nn.Module):
    """mmyolo RepVGGBlock 249: `if self.alpha:` where `self.alpha = nn.Parameter(torch.ones(1))`
    (or None when not used)."""
    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1))
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        if self.alpha:
            return self.a(x) + self.alpha * self.b(x)
        return self.a(x) + self.b(x)


x = torch.randn(2, 4)
run_all("l3a if <1-element nn.Parameter>: (mmyolo RepVGGBlock)", AlphaGate(), (x,), (x + 1,))
