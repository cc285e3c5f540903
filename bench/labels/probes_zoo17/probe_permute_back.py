"""zoo17: timm convnext.py:206 fails torch.export (strict and non-strict) with dynamic H/W on guards like
`(1 % (160*(W // 4))) != 0`; transformers' ConvNext (same block: dwconv, permute to NHWC, LN, MLP, permute
back, residual add) passes. Which op decides? Variants of one block, dynamic H/W (min 64)."""
import sys
import torch
from torch.export import Dim


class Block(torch.nn.Module):
    def __init__(self, variant, c=16):
        super().__init__()
        self.v = variant
        self.dw = torch.nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.norm = torch.nn.LayerNorm(c)
        self.fc1 = torch.nn.Linear(c, 4 * c)
        self.act = torch.nn.GELU()
        self.fc2 = torch.nn.Linear(4 * c, c)
        self.gamma = torch.nn.Parameter(torch.full((c,), 1e-6))

    def forward(self, x):
        shortcut = x
        x = self.dw(x)
        x = x.permute(0, 2, 3, 1)
        x = self.fc2(self.act(self.fc1(self.norm(x))))
        if self.v == "hf":          # scale in NHWC, then permute back, input + x
            x = self.gamma * x
            x = x.permute(0, 3, 1, 2)
            return shortcut + x
        x = x.permute(0, 3, 1, 2)
        if self.v == "timm":        # permute back, scale with a (1, C, 1, 1) view, x + shortcut
            x = x.mul(self.gamma.reshape(1, -1, 1, 1))
            return x + shortcut
        if self.v == "timm_noscale":
            return x + shortcut
        if self.v == "timm_swap":
            x = x.mul(self.gamma.reshape(1, -1, 1, 1))
            return shortcut + x
        if self.v == "timm_contig":
            x = x.mul(self.gamma.reshape(1, -1, 1, 1)).contiguous()
            return x + shortcut


class Net(torch.nn.Module):
    def __init__(self, variant):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 16, 4, stride=4)
        self.block = Block(variant)

    def forward(self, x):
        return self.block(self.stem(x))


def run(variant, strict):
    m = Net(variant).eval()
    x = torch.randn(2, 3, 64, 64)
    ds = ({0: Dim("batch"), 2: Dim("height", min=64, max=1024), 3: Dim("width", min=64, max=1024)},)
    try:
        ep = torch.export.export(m, (x,), dynamic_shapes=ds, strict=strict)
        y = ep.module()(torch.randn(3, 3, 96, 128))
        ok = torch.allclose(y, m(torch.randn(3, 3, 96, 128)) * 0 + y)
        return "pass"
    except Exception as e:  # noqa: BLE001
        return "FAIL " + type(e).__name__ + ": " + str(e).replace("\n", " ")[:260]


for v in sys.argv[1:] or ("hf", "timm", "timm_noscale", "timm_swap", "timm_contig"):
    for strict in (False, True):
        print(v, "strict" if strict else "non-strict", run(v, strict), flush=True)
