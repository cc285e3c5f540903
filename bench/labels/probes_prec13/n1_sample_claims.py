"""Claims of sample N (prec13, seed 1310, main@7f3b36f) that are not obvious from the code. torch 2.13.0+cpu."""
import io, sys, torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class YoloAnchors(nn.Module):
    """lightning-bolts yolo/layers.py 110-121: `anchors_per_cell = int(torch.div(num_features,
    num_attrs, rounding_mode="floor"))` of the channel count, then a view."""
    def forward(self, x):
        b, c, h, w = x.shape
        a = int(torch.div(c, 5, rounding_mode="floor"))
        return x.permute(0, 2, 3, 1).reshape(b, h, w, a, 5).sigmoid()


class GridOffsets(nn.Module):
    """lightning-bolts yolo/utils.py 25-75: grid = torch.tensor([w, h]); arange(grid[1].item())."""
    def forward(self, xy):
        h, w = xy.shape[1], xy.shape[2]
        grid = torch.tensor([w, h], device=xy.device)
        xr = torch.arange(grid[0].item()); yr = torch.arange(grid[1].item())
        gy, gx = torch.meshgrid(yr, xr, indexing="ij")
        return xy + torch.stack((gx, gy), -1).to(xy.dtype)


class ConstMaskLoop(nn.Module):
    """pytorch-tabnet EmbeddingGenerator: `self.continuous_idx = torch.ones(n, dtype=torch.bool)`,
    `[cat_idxs] = 0` in __init__ (a plain attribute, never written after), forward
    `for i, c in enumerate(self.continuous_idx): if c: ... else: embedding`."""
    def __init__(self):
        super().__init__()
        self.continuous_idx = torch.ones(4, dtype=torch.bool)
        self.continuous_idx[[1, 3]] = 0
        self.emb = nn.ModuleList([nn.Embedding(5, 2), nn.Embedding(5, 2)])

    def forward(self, x):
        cols, k = [], 0
        for i, c in enumerate(self.continuous_idx):
            if c:
                cols.append(x[:, i].float().view(-1, 1))
            else:
                cols.append(self.emb[k](x[:, i].long())); k += 1
        return torch.cat(cols, dim=1)


class ConstMaskLoopBuffer(ConstMaskLoop):
    def __init__(self):
        super().__init__()
        m = self.continuous_idx
        del self.continuous_idx
        self.register_buffer("continuous_idx", m)


class RotaryCache(nn.Module):
    """rotary-embedding-torch RotaryEmbedding.forward: a hit returns a slice of the cache buffer
    when `seq_len <= self.cached_freqs_seq_len`; a miss computes, fills the buffer in place and
    sets the Python int `self.cached_freqs_seq_len = seq_len`."""
    def __init__(self):
        super().__init__()
        self.register_buffer("freqs", torch.randn(4))
        self.register_buffer("cached_freqs", torch.zeros(64, 8), persistent=False)
        self.cached_freqs_seq_len = 0

    def forward(self, t, seq_len=None):
        if seq_len is not None and seq_len <= self.cached_freqs_seq_len:
            return self.cached_freqs[:seq_len].detach()
        f = torch.einsum("..., f -> ... f", t, self.freqs).repeat_interleave(2, dim=-1)
        if seq_len is not None:
            self.cached_freqs[:seq_len] = f.detach()
            self.cached_freqs_seq_len = seq_len
        return f


class RotaryUser(nn.Module):
    def __init__(self):
        super().__init__()
        self.rot = RotaryCache()

    def forward(self, x):
        n = x.shape[1]
        f = self.rot(torch.arange(n, dtype=x.dtype), seq_len=n)
        return x * f


class DeviceGuardedCuda(nn.Module):
    """lightning-bolts swav_resnet.py 326: `if "cuda" in str(self.conv1.weight.device):
    _out = self.forward_backbone(_out.cuda(non_blocking=True))`."""
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        if "cuda" in str(self.conv1.weight.device):
            return self.conv1(x.cuda(non_blocking=True))
        return self.conv1(x)


class NormalSample(nn.Module):
    """lightning-bolts basic VAE: Normal(zeros_like(mu), ones_like(std)), Normal(mu, std).rsample()."""
    def __init__(self):
        super().__init__()
        self.mu, self.lv = nn.Linear(4, 2), nn.Linear(4, 2)

    def forward(self, x):
        mu, lv = self.mu(x), self.lv(x)
        std = torch.exp(lv / 2)
        p = torch.distributions.Normal(torch.zeros_like(mu), torch.ones_like(std))
        q = torch.distributions.Normal(mu, std)
        return q.rsample() + p.loc


class NoisyLinear(nn.Linear):
    """lightning-bolts NoisyLinear: `self.epsilon_weight.normal_()`, then
    `self.sigma_weight * self.epsilon_weight.data + self.weight`."""
    def __init__(self):
        super().__init__(4, 3)
        self.sigma_weight = nn.Parameter(torch.full((3, 4), 0.017))
        self.register_buffer("epsilon_weight", torch.zeros(3, 4))

    def forward(self, x):
        self.epsilon_weight.normal_()
        w = self.sigma_weight * self.epsilon_weight.data + self.weight
        return F.linear(x, w, self.bias)


class Erfc(nn.Module):
    def forward(self, x):
        return 0.5 * torch.erfc(-(2 ** -0.5) * x)


class FlagBranch(nn.Module):
    """facexlib MODNet LRBranch.forward(img, inference): `if not inference:` on a Python bool."""
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 3, 1), nn.Conv2d(3, 1, 1)

    def forward(self, img, inference):
        y = self.a(img)
        pred = None
        if not inference:
            pred = torch.sigmoid(self.b(y))
        return y, pred


x4 = torch.randn(2, 10, 3, 3)
run_all("n13 int(torch.div(channels, 5)) then a view (bolts YOLO)", YoloAnchors(), (x4,), (torch.randn(2, 10, 3, 3),),
        exporters=("export-nonstrict", "onnx-legacy"))
xy = torch.randn(1, 3, 4, 2)
run_all("n14 arange(torch.tensor([w, h])[i].item()) (bolts grid_offsets)", GridOffsets(), (xy,), (torch.randn(1, 3, 4, 2),))
xi = torch.randint(0, 5, (3, 4))
run_all("n27 bool of a plain tensor attribute's elements in a loop (tabnet)", ConstMaskLoop(), (xi,), (torch.randint(0, 5, (3, 4)),))
run_all("n27b same, the mask a registered buffer", ConstMaskLoopBuffer(), (xi,), (torch.randint(0, 5, (3, 4)),))
xr = torch.randn(2, 6, 8)
run_all("n32 rotary cache, fresh module", RotaryUser(), (xr,), (torch.randn(2, 6, 8),))
warm = RotaryUser(); warm(torch.randn(2, 6, 8))
run_all("n32b rotary cache, warm module (cache hit at export)", warm, (xr,), (torch.randn(2, 6, 8),))
run_all("n17 .cuda() behind a weight-device test, CPU machine (bolts SwAV)", DeviceGuardedCuda(), (torch.randn(1, 3, 4, 4),), (torch.randn(1, 3, 4, 4),))
run_all("n11 torch.distributions.Normal in forward (bolts VAE)", NormalSample(), (torch.randn(2, 4),))
run_all("n16 .data of a buffer refilled by normal_() (bolts NoisyLinear)", NoisyLinear(), (torch.randn(2, 4),))
for opset in (11, 17, 20):
    try:
        torch.onnx.export(Erfc().eval(), (torch.randn(3),), io.BytesIO(), dynamo=False, opset_version=opset)
        print(f"n1 erfc | onnx-legacy opset {opset}: PASS")
    except Exception as e:
        print(f"n1 erfc | onnx-legacy opset {opset}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:200]}")
run_all("n10 `if not inference:` on a Python bool argument (facexlib MODNet), inference=True", FlagBranch(), (torch.randn(1, 3, 4, 4), True),
        (torch.randn(1, 3, 4, 4), True))
