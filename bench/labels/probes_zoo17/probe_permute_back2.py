"""zoo17: the elementwise op of a tensor permuted back from NHWC (`.permute(0, 3, 1, 2)`, channels-last
strides) with a contiguous NCHW tensor, dynamic H/W: which forms fail torch.export? (probe_permute_back.py:
`x + shortcut` fails, `shortcut + x` and `.contiguous()` pass)."""
import sys
import torch
from torch.export import Dim


class M(torch.nn.Module):
    def __init__(self, v, c=16):
        super().__init__()
        self.v = v
        self.stem = torch.nn.Conv2d(3, c, 4, stride=4)
        self.fc1 = torch.nn.Linear(c, c)
        self.fc2 = torch.nn.Linear(c, c)

    def forward(self, x):
        s = self.stem(x)
        v = self.v
        if v == "one_linear":
            y = self.fc1(s.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            return y + s
        if v == "two_linear":
            y = self.fc2(self.fc1(s.permute(0, 2, 3, 1))).permute(0, 3, 1, 2)
            return y + s
        if v == "no_op":          # permute there and back: a view of s (contiguous again)
            y = s.permute(0, 2, 3, 1).permute(0, 3, 1, 2)
            return y + s
        if v == "gelu_only":
            y = torch.nn.functional.gelu(s.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            return y + s
        if v == "mul":
            y = self.fc1(s.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            return y * s
        if v == "torch_add":
            y = self.fc1(s.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            return torch.add(y, s)
        if v == "iadd":
            y = self.fc1(s.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            y += s
            return y
        if v == "swap":
            y = self.fc1(s.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            return s + y
        if v == "plus_input":    # the stride-1 input itself (no stem), H/W dynamic
            y = self.fc1(x.permute(0, 2, 3, 1).repeat(1, 1, 1, 6)[..., :16]).permute(0, 3, 1, 2)
            return y[:, :3] + x
        if v == "bias_param":
            y = self.fc1(s.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            return y + self.fc1.bias.reshape(1, -1, 1, 1)
        if v == "conv_after":
            y = self.fc1(s.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            return torch.nn.functional.conv2d(y, torch.ones(16, 16, 1, 1)) + s


def run(v, strict, dims="hw"):
    m = M(v).eval()
    x = torch.randn(2, 3, 64, 64)
    d = {0: Dim("batch")}
    if dims == "hw":
        d.update({2: Dim("height", min=64, max=1024), 3: Dim("width", min=64, max=1024)})
    try:
        ep = torch.export.export(m, (x,), dynamic_shapes=(d,), strict=strict)
        x2 = torch.randn(3, 3, 96, 128) if dims == "hw" else torch.randn(3, 3, 64, 64)
        torch.testing.assert_close(ep.module()(x2), m(x2))
        return "pass"
    except Exception as e:  # noqa: BLE001
        return "FAIL " + type(e).__name__ + ": " + str(e).replace("\n", " ")[:200]


for v in sys.argv[1:] or ("one_linear", "two_linear", "no_op", "gelu_only", "mul", "torch_add", "iadd", "swap",
                          "plus_input", "bias_param", "conv_after"):
    for strict in (False, True):
        print(v, "strict" if strict else "non-strict", run(v, strict), flush=True)
print("two_linear batch-only non-strict", run("two_linear", False, "b"))
