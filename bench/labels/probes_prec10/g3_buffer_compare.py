"""neuralforecast dilated_rnn ResLSTMCell: `register_buffer("input_size", torch.Tensor([n]))`,
`register_buffer("hidden_size", ...)`, then `if self.input_size == self.hidden_size:` in forward.
torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Cell(nn.Module):
    def __init__(self, i=4, h=4):
        super().__init__()
        self.register_buffer("input_size", torch.Tensor([i]))
        self.register_buffer("hidden_size", torch.Tensor([h]))
        self.w = nn.Linear(i, h)

    def forward(self, x):
        y = torch.tanh(self.w(x))
        if self.input_size == self.hidden_size:
            return y + x
        return y


run_all("g3 buffer == buffer", Cell(), (torch.randn(2, 4),), (torch.randn(2, 4),))
