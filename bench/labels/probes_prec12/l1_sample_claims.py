"""Claims of sample L (prec12, seed 1210) that are not obvious from the code. torch 2.13.0+cpu."""
import sys, io, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class RevIN(nn.Module):
    """tsai layers.py 869-891: `forward(self, x, mode: Tensor)`, `if mode:` normalises and stores
    self.sub/self.std, else denormalises with them; PatchTST passes `torch.tensor(True/False)`."""
    def __init__(self):
        super().__init__()
        self.sub, self.std = torch.zeros(1), torch.ones(1)

    def forward(self, x, mode):
        if mode:
            self.sub = torch.mean(x, dim=-1, keepdim=True).detach()
            self.std = torch.std(x, dim=-1, keepdim=True, unbiased=False).detach() + 1e-5
            return (x - self.sub) / self.std
        return x * self.std + self.sub


class PatchTSTLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.revin_layer = RevIN()
        self.lin = nn.Linear(8, 8)

    def forward(self, z):
        z = self.revin_layer(z, torch.tensor(True, dtype=torch.bool))
        z = self.lin(z)
        return self.revin_layer(z, torch.tensor(False, dtype=torch.bool))


class Sinh(nn.Module):
    def forward(self, x):
        return torch.sinh(x)


class LazyBlock(nn.Module):
    """darts timesfm3 _ResidualBlock: `if not self._input_dim_set: self.set_input_dims(x.shape[-1])`
    rebuilds the Linear; the owner calls set_input_dims in its __init__."""
    def __init__(self):
        super().__init__()
        self.hidden_layer = nn.Linear(1, 4)
        self._input_dim_set = False

    def set_input_dims(self, d):
        if self._input_dim_set:
            return
        self.hidden_layer = nn.Linear(d, 4)
        self._input_dim_set = True

    def forward(self, x):
        if not self._input_dim_set:
            self.set_input_dims(x.shape[-1])
        return self.hidden_layer(x)


class LazyOwner(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = LazyBlock()
        self.block.set_input_dims(8)

    def forward(self, x):
        return self.block(x)


class BufferLength(nn.Module):
    """espnet S4 SSKernelNPLR: `if self.L.item() == 0: ...` on a registered buffer set before."""
    def __init__(self):
        super().__init__()
        self.register_buffer("L", torch.tensor(8))

    def forward(self, x):
        if self.L.item() == 0:
            return x
        return x * self.L.item()


class PrefitQuantile(nn.Module):
    """tsai MultiRocketPlus: quantile biases computed on the first (fit) call only, behind a buffer
    flag `prefit`; a fitted model reads the stored biases."""
    fitting = False

    def __init__(self):
        super().__init__()
        self.register_buffer("biases", torch.zeros(1, 3))
        self.register_buffer("prefit", torch.BoolTensor([False]))

    def forward(self, x):
        if not self.prefit or self.fitting:
            b = torch.quantile(x, torch.tensor([0.25, 0.5, 0.75]), dim=1).T
            self.biases = b
            self.prefit = torch.BoolTensor([True])
        else:
            b = self.biases
        return x.unsqueeze(-1) - b.mean(0)


x = torch.randn(2, 3, 8)
run_all("l1a RevIN with a tensor mode (tsai PatchTST)", PatchTSTLike(), (x,), (x + 1,))
s = torch.randn(2, 5)
for opset in (17, 20):
    try:
        torch.onnx.export(Sinh().eval(), (s,), io.BytesIO(), dynamo=False, opset_version=opset)
        print(f"l1b sinh | onnx-legacy opset {opset}: PASS")
    except Exception as e:
        print(f"l1b sinh | onnx-legacy opset {opset}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:200]}")
run_all("l1c lazy block whose dims the owner sets in __init__ (darts timesfm3)", LazyOwner(), (s.new_ones(2, 8),), (s.new_zeros(2, 8) + 2,))
run_all("l1d .item() of a registered buffer in an if (espnet S4)", BufferLength(), (s,), (s + 1,))
fitted = PrefitQuantile()
fitted(torch.randn(4, 6))
run_all("l1e quantile behind a prefit buffer flag, fitted model (tsai MultiRocketPlus)", fitted, (torch.randn(4, 6),), (torch.randn(4, 6),))
# espnet S4 _setup_linear: try torch.linalg.solve(R real, Q_D complex) except numpy fallback
R = torch.eye(2).expand(3, 2, 2).contiguous(); QD = torch.randn(3, 2, 4, dtype=torch.cfloat)
try:
    torch.linalg.solve(R, QD); print("l1f linalg.solve(real A, complex B): no error (the numpy fallback never runs)")
except Exception as e:
    print(f"l1f linalg.solve(real A, complex B): {type(e).__name__}: {str(e).splitlines()[0][:200]}")
