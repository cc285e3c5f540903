"""Q-SCALAR0D (spikingjelly ScaleLayer, sample Q 30): an unregistered 0-d tensor attribute read only in
arithmetic, on a model moved to another device, eager and exported. No GPU here: `meta` stands in
for the other device (the same rule of TensorIterator: a 0-d CPU tensor may sit beside a tensor on
any device). torch 2.13.0+cpu."""
import torch, torch.nn as nn


class M(nn.Module):
    def __init__(self, v):
        super().__init__()
        self.scale = v

    def forward(self, x):
        return x * self.scale + 1


for v in (torch.tensor(0.5), torch.tensor([0.5, 0.5])):
    tag = f"{v.dim()}-d attribute"
    x = torch.randn(2)
    m = M(v)
    try:
        m.to("meta")
        print(tag, "| eager, model moved to meta:", "PASS", m(x.to("meta")).device)
    except Exception as e:
        print(tag, "| eager, model moved to meta: FAIL", str(e)[:80])
    for strict in (False, True):
        ep = torch.export.export(M(v), (x,), strict=strict)
        try:
            print(tag, f"| export-{'strict' if strict else 'nonstrict'}, program moved to meta: PASS",
                  ep.module().to("meta")(x.to("meta")).device)
        except Exception as e:
            print(tag, f"| export-{'strict' if strict else 'nonstrict'}, program moved to meta: FAIL", str(e)[:80])
