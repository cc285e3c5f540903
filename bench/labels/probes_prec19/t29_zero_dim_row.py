"""Sample T 29 (ptlflow flownet MultiScale): an unregistered 1-D tensor attribute read only as
0-d elements `self.w[i]` in arithmetic. Does the model (and its torch.export program) run when
its inputs are on another device (meta stands in: no GPU is lent to this task)? Control t29c: the
whole attribute `self.w` (1-D) in arithmetic."""
import sys
import torch


class Elem(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.FloatTensor([0.5 / 2 ** s for s in range(3)])

    def forward(self, x):
        out = 0
        for i in range(3):
            out = out + self.w[i] * x[i]
        return out


class Whole(Elem):
    def forward(self, x):
        return (self.w[:, None] * x).sum(0)


def run(cls):
    m = cls()
    x = torch.randn(3, 4)
    for label, fn in (("eager", lambda: m.to("meta")(x.to("meta"))),):
        try:
            fn(); print(cls.__name__, label, "PASS")
        except Exception as e:
            print(cls.__name__, label, "FAIL", type(e).__name__, str(e).splitlines()[0][:150])
    for strict in (True, False):
        m = cls()
        try:
            ep = torch.export.export(m, (x,), strict=strict)
            ep.module()(x.to("meta"))
            print(cls.__name__, "export strict" if strict else "export non-strict", "moved-input PASS")
        except Exception as e:
            print(cls.__name__, "export strict" if strict else "export non-strict", "FAIL", type(e).__name__, str(e).splitlines()[0][:150])


run({"t29": Elem, "t29c": Whole}[sys.argv[1]])
