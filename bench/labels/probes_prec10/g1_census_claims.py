"""Claims of census / fresh-population findings that are not obvious (torch 2.13.0+cpu).
g1a asteroid x_umx 346: torch.stft(return_complex=False, center=True, reflect) in forward.
g1b demucs wiener 319: `t = torch.arange(pos, min(n, pos + b)); pos = int(t[-1]) + 1` loop on a size.
g1c asteroid norms 28: `torch.arange(2, len(x.shape)).tolist()` as reduction dims (rank only).
g1d neuralforecast RevIN: forward(x, 'norm') writes self.batch_mean/std, forward(y, 'denorm') reads
    them, both inside one parent forward.
g1e neuralforecast informer 161: `np.ceil(np.log(L)).astype('int').item()` on a static size.
g1f peft frod 256: `size = tuple(int(d) for d in self.size_buf.tolist())` (a registered 1-d buffer).
"""
import sys, numpy as np, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Stft(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(16))

    def forward(self, x):
        s = torch.stft(x, n_fft=16, hop_length=4, window=self.window, center=True, normalized=False,
                       onesided=True, pad_mode="reflect", return_complex=False)
        return s.reshape(s.shape[0], -1)


class ArangeLoop(nn.Module):
    def forward(self, x):
        n = x.shape[0]
        out = torch.zeros_like(x)
        pos = 0
        while pos < n:
            t = torch.arange(pos, min(n, pos + 3))
            pos = int(t[-1]) + 1
            out[t] = x[t] * 2
        return out


class RankDims(nn.Module):
    def forward(self, x):
        dims = torch.arange(2, len(x.shape)).tolist()
        return x - x.mean(dim=dims, keepdim=True)


class RevIN(nn.Module):
    def forward(self, x, mode: str):
        if mode == "norm":
            self.batch_mean = torch.mean(x, dim=1, keepdim=True).detach()
            self.batch_std = torch.sqrt(torch.var(x, dim=1, keepdim=True, unbiased=False) + 1e-5).detach()
            return (x - self.batch_mean) / self.batch_std
        return x * self.batch_std + self.batch_mean


class WithRevIN(nn.Module):
    def __init__(self):
        super().__init__()
        self.revin = RevIN()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.revin(self.lin(self.revin(x, "norm")), "denorm")


class Informer(nn.Module):
    def forward(self, q):
        L = q.shape[1]
        u = 2 * np.ceil(np.log(L)).astype("int").item()
        u = u if u < L else L
        return q[:, :u] * 2


class Frod(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("size_buf", torch.tensor([4, 4]))
        self.register_buffer("idx", torch.tensor([[0, 1, 2], [1, 2, 3]]))
        self.vals = nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))

    def forward(self, x):
        size = tuple(int(d) for d in self.size_buf.tolist())
        s = torch.sparse_coo_tensor(self.idx, self.vals, size).to_dense()
        return x @ s


class FrodDense(nn.Module):
    """The same size read, without the sparse op: what the `.tolist()` loop itself does."""
    def __init__(self):
        super().__init__()
        self.register_buffer("size_buf", torch.tensor([4, 4]))

    def forward(self, x):
        size = tuple(int(d) for d in self.size_buf.tolist())
        return x @ x.new_ones(size)


torch.manual_seed(0)
run_all("g1a stft return_complex=False", Stft(), (torch.randn(2, 64),), (torch.randn(2, 64),))
run_all("g1b arange loop int(t[-1])", ArangeLoop(), (torch.randn(7, 3),), (torch.randn(7, 3),))
run_all("g1c arange(2, ndim).tolist()", RankDims(), (torch.randn(2, 3, 4, 5),), (torch.randn(2, 3, 6, 7),))
run_all("g1d RevIN norm/denorm in one forward", WithRevIN(), (torch.randn(2, 5, 4),), (torch.randn(2, 5, 4),))
run_all("g1e informer np.ceil(np.log(L))", Informer(), (torch.randn(2, 9, 4),), (torch.randn(2, 9, 4),))
run_all("g1f frod sparse size from buffer.tolist()", Frod(), (torch.randn(3, 4),), (torch.randn(3, 4),))
run_all("g1f' size from buffer.tolist(), dense", FrodDense(), (torch.randn(3, 4),), (torch.randn(3, 4),))
