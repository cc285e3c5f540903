"""The fixed classes of prec16 (tests/test_false_alarms_prec16.py), measured. torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Chunked(nn.Module):
    """Q-EXCEPTWRITE (tabpfn v3 OOM retry, Q 37, 39): the attribute is written only in the except handler."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.chunk = 2

    def forward(self, x):
        size = self.chunk
        while True:
            try:
                parts = [self.lin(p) for p in x.split(size)]
                break
            except RuntimeError as e:
                if "out of memory" not in str(e) or size <= 1:
                    raise
                size //= 2
                self.chunk = size
        return torch.cat(parts)


class GridEmbedding(nn.Module):
    """Q-KEYSIBLING (neuraloperator GridEmbedding2D): `if self._grid is None or self._res != dims:`."""
    def __init__(self):
        super().__init__()
        self._grid = None
        self._res = None

    def grid(self, dims, device, dtype):
        if self._grid is None or self._res != dims:
            gx = torch.linspace(0, 1, dims[0]).to(device).to(dtype)
            gy = torch.linspace(0, 1, dims[1]).to(device).to(dtype)
            self._grid = gx[:, None].expand(dims[0], dims[1]), gy[None].expand(dims[0], dims[1])
            self._res = dims
        return self._grid

    def forward(self, data):
        gx, gy = self.grid(data.shape[-2:], data.device, data.dtype)
        b = data.shape[0]
        return torch.cat((data, gx.expand(b, 1, -1, -1), gy.expand(b, 1, -1, -1)), dim=1)


class DomainPadding(nn.Module):
    """Q-SELFNORM (neuraloperator DomainPadding): a number option widened once into a list of itself."""
    def __init__(self, domain_padding=0.25):
        super().__init__()
        self.domain_padding = domain_padding

    def forward(self, x):
        resolution = x.shape[2:]
        if isinstance(self.domain_padding, (float, int)):
            self.domain_padding = [float(self.domain_padding)] * len(resolution)
        pad = [int(p * r) for p, r in zip(self.domain_padding, resolution)]
        return F.pad(x, [q for p in pad[::-1] for q in (0, p)])


class Pooler(nn.Module):
    """Q-KEYSIBLING as torchvision's MultiScaleRoIAlign has it (ops/poolers.py:310, removed from the
    identity corpus; torchvision's C ops do not load in this venv, so its pattern is copied):
    `if self.scales is None or self.map_levels is None: self.scales, self.map_levels = setup(...)`,
    scales from the feature sizes over the image size."""
    def __init__(self):
        super().__init__()
        self.scales = None
        self.map_levels = None

    def forward(self, a, b, boxes):
        feats = [a, b]
        if self.scales is None or self.map_levels is None:
            self.scales = [f.shape[-1] / 64.0 for f in feats]
            self.map_levels = len(feats)
        return torch.stack([(boxes * s).sum(-1) for s in self.scales[: self.map_levels]])


def pooler_args(seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(1, 4, 16, 16, generator=g), torch.randn(1, 4, 8, 8, generator=g), torch.rand(5, 4, generator=g) * 60)


def warm(m, x):
    m(*x) if isinstance(x, tuple) else m(x)
    return m


CASES = {
    "q37": lambda: run_all("q37 attribute written in an except handler (OOM retry)", Chunked(), (torch.randn(4, 4),), (torch.randn(4, 4),)),
    "q67": lambda: run_all("q67 grid cache and its key, fresh model", GridEmbedding(), (torch.randn(2, 3, 5, 6),), (torch.randn(2, 3, 5, 6),)),
    "q67w": lambda: run_all("q67w grid cache and its key, warmed at the same size", warm(GridEmbedding(), torch.randn(2, 3, 5, 6)), (torch.randn(2, 3, 5, 6),), (torch.randn(2, 3, 5, 6),)),
    "q58": lambda: run_all("q58 number option widened once into a list, fresh model", DomainPadding(), (torch.randn(1, 2, 8, 12),), (torch.randn(1, 2, 8, 12),)),
    "q58w": lambda: run_all("q58w the same, warmed", warm(DomainPadding(), torch.randn(1, 2, 8, 12)), (torch.randn(1, 2, 8, 12),), (torch.randn(1, 2, 8, 12),)),
    "qtv": lambda: run_all("qtv MultiScaleRoIAlign pattern (copy), fresh", Pooler(), pooler_args(0), pooler_args(1)),
    "qtvw": lambda: run_all("qtvw MultiScaleRoIAlign pattern (copy), warmed", warm(Pooler(), *[pooler_args(2)]), pooler_args(0), pooler_args(1)),
}

if __name__ == "__main__":
    if len(sys.argv) > 2:
        import harness
        orig = harness.run_all
        globals()["run_all"] = lambda *a, **k: orig(*a, exporters=(sys.argv[2],), **k)
        CASES[sys.argv[1]]()
    else:
        import subprocess
        for case in (sys.argv[1:] or CASES):
            for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
                r = subprocess.run([sys.executable, __file__, case, ex], capture_output=True, text=True, timeout=300)
                out = r.stdout.strip()
                print(out if out else f"{case} | {ex}: FAIL process exit {r.returncode} (no result printed)", flush=True)
