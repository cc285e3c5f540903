"""P-INITFLAG (mmaction2 vindlu BertSelfAttention): `self.save_attention = False` in __init__, never
set elsewhere in the package; forward runs `if is_cross_attention and self.save_attention:
attention_probs.register_hook(self.save_attn_gradients)`. As constructed (off) and switched on by
a user (`m.save_attention = True`). torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.q = nn.Linear(4, 4)
        self.save_attention = False

    def save_attn_gradients(self, g):
        self.attn_gradients = g

    def forward(self, x):
        probs = torch.softmax(self.q(x) @ x.t(), dim=-1)
        if self.save_attention:
            self.attention_map = probs
            probs.register_hook(self.save_attn_gradients)
        return probs @ x


run_all("e3 as constructed (off)", Attn(), (torch.randn(3, 4),), (torch.randn(3, 4),))
m = Attn()
m.save_attention = True
run_all("e3 switched on", m, (torch.randn(3, 4),), (torch.randn(3, 4),))
