"""lead30 probe: a dim merged by ``flatten`` from declared-dynamic H and W is dynamic.

``int()`` of the merged size (H*W) specialises it like ``int()`` of H itself, so an export that
declares H/W dynamic fails (torch.export) where the size is converted; with only the batch
declared it passes. Run: python probe_flatten_merged_dim.py (torch 2.13, CPU).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tokens(nn.Module):
    def forward(self, x):
        return x.flatten(2)


class Context(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Tokens()

    def forward(self, x):
        feat = self.stem(x)
        size = [int(t) for t in feat.size()[2:]]
        return F.interpolate(feat, size=size)


def main():
    x = torch.randn(2, 3, 32, 32)
    hw = {2: torch.export.Dim("h", min=8, max=128), 3: torch.export.Dim("w", min=8, max=128)}
    b = {0: torch.export.Dim("b", min=1, max=64)}
    for label, dims in (("H/W dynamic", hw), ("batch dynamic", b)):
        for strict in (True, False):
            try:
                torch.export.export(Context().eval(), (x,), dynamic_shapes=(dims,), strict=strict)
                print(label, "strict" if strict else "non-strict", "PASS")
            except Exception as e:  # noqa: BLE001
                print(label, "strict" if strict else "non-strict", "FAIL", type(e).__name__,
                      str(e).strip().splitlines()[0][:160])


if __name__ == "__main__":
    main()
