"""P-ENTRYFLAG (lightly MemoryBankModule): `forward(self, output, labels=None, update: bool = False)`
runs a data-dependent enqueue (`ptr = int(self.bank_ptr)`, `if ptr + b >= n:`, `bank[ptr:] = ...`)
only `if update:`. Exported directly with the example inputs, the default holds; a parent forward
passing `update=True` runs it. torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Bank(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bank", torch.randn(8, 4))
        self.register_buffer("bank_ptr", torch.zeros(1, dtype=torch.long))

    def forward(self, output, labels=None, update: bool = False):
        bank = self.bank.clone().detach()
        if update:
            self._enqueue(output)
        return output @ bank.t()

    @torch.no_grad()
    def _enqueue(self, batch):
        b = batch.shape[0]
        ptr = int(self.bank_ptr)
        if ptr + b >= self.bank.shape[0]:
            self.bank[ptr:] = batch[: self.bank.shape[0] - ptr]
            self.bank_ptr.zero_()
        else:
            self.bank[ptr: ptr + b] = batch
            self.bank_ptr[0] = ptr + b


class Parent(nn.Module):
    def __init__(self):
        super().__init__()
        self.mb = Bank()

    def forward(self, x):
        return self.mb(x, update=True)


run_all("e1 default (exported directly)", Bank(), (torch.randn(2, 4),), (torch.randn(2, 4),))
run_all("e1 parent passes update=True", Parent(), (torch.randn(2, 4),), (torch.randn(2, 4),))
