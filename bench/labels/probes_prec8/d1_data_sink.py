"""P-DATASINK and P-ISALIAS, measured (torch 2.13.0+cpu).

d1: peft-style one-shot unmerge (`if self.merged: self.unmerge()`) where an op the exporters lack
(`torch.linalg.inv`) computes a matrix that only ends in a weight's `.data` rewrite: directly,
through a helper's return, and through a base-class `set_base_weight(w)` that does
`...weight.data = w`. Control: the same op whose value reaches forward's output.
d2: `key is value or torch.equal(key, value)` where forward passes `k = v = norm(mem)` (the same
object), and a control that passes two different tensors."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Base(nn.Module):
    def set_base_weight(self, w):
        self.base.weight.data = w


class Unmerge(Base):
    def __init__(self, how):
        super().__init__()
        torch.manual_seed(0)
        self.base = nn.Linear(4, 4)
        self.r = nn.Parameter(torch.eye(4) + 0.1 * torch.randn(4, 4))
        self.how = how
        self.merged = True

    def delta(self):
        return torch.linalg.inv(self.r)

    def unmerge(self):
        if self.how == "direct":
            inv = torch.linalg.inv(self.r)
            self.base.weight.data = inv @ self.base.weight.data
        elif self.how == "return":
            self.base.weight.data -= self.delta()
        else:  # "method"
            w = torch.mm(torch.linalg.inv(self.r), self.base.weight.data)
            self.set_base_weight(w.contiguous())
        self.merged = False

    def forward(self, x):
        if self.how == "control":
            return self.base(x) @ torch.linalg.inv(self.r)
        if self.merged:
            self.unmerge()
        return self.base(x)


for how in ("direct", "return", "method", "control"):
    run_all(f"d1 {how}", Unmerge(how), (torch.randn(3, 4),), (torch.randn(3, 4),))


def attend(query, key, value):
    if key is value or torch.equal(key, value):
        return torch.softmax(query @ key.t(), -1) @ value
    return query @ key.t() @ value


class Alias(nn.Module):
    def __init__(self, same):
        super().__init__()
        self.norm = nn.LayerNorm(4)
        self.same = same

    def forward(self, x, mem):
        q = self.norm(x)
        if self.same:
            k = v = self.norm(mem)
        else:
            k = self.norm(mem)
            v = self.norm(mem * 2)
        return attend(q, k, v)


for same in (True, False):
    run_all(f"d2 same={same}", Alias(same), (torch.randn(3, 4), torch.randn(5, 4)),
            (torch.randn(3, 4), torch.randn(5, 4)))
