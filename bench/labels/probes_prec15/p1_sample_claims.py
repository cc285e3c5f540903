"""Claims of sample P (prec15, seed 1510, main@741cbe9) that are not obvious from the code. torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


def windows2img(img_splits_hw, H_sp, W_sp, H, W):
    B = int(img_splits_hw.shape[0] / (H * W / H_sp / W_sp))
    img = img_splits_hw.view(B, H // H_sp, W // W_sp, H_sp, W_sp, -1)
    return img.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


class Attn(nn.Module):
    """spandrel DAT: the submodule's forward takes H, W that the parent read from x.shape (P 18-21, 23)."""
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, H, W):
        B, L, C = x.shape
        assert L == H * W, "flatten img_tokens has wrong size"
        pad_r = (2 - W % 2) % 2
        if pad_r > 0:
            x = x + 1
        win = x.view(B, H // 2, 2, W // 2, 2, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, 4, C)
        win = self.proj(win)
        return windows2img(win, 2, 2, H, W)


class DAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()

    def forward(self, x):
        _, _, H, W = x.shape
        x_size = [H, W]
        t = x.flatten(2).transpose(1, 2)
        H, W = x_size
        return self.attn(t, H, W)


class Conv3XC(nn.Module):
    """spandrel SPAN: eval forward re-fuses the weights from `.data` of the train convs and assigns
    `self.eval_conv.weight.data = ...` (P 24)."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 6, 1), nn.Conv2d(6, 6, 3, padding=1), nn.Conv2d(6, 3, 1))
        self.eval_conv = nn.Conv2d(3, 3, 3, padding=1)

    def update_params(self):
        w1 = self.conv[1].weight.data.clone().detach()
        b1 = self.conv[1].bias.data.clone().detach()
        w3 = self.conv[2].weight.data.clone().detach()
        w = torch.einsum("oc,cikl->oikl", w3[:, :, 0, 0], w1)
        self.eval_conv.weight.data = w.sum(2, keepdim=True).repeat(1, 1, 1, 1)[:, :3].contiguous().expand(3, 3, 3, 3).contiguous()
        self.eval_conv.bias.data = (w3[:, :, 0, 0] @ b1).contiguous()

    def forward(self, x):
        if self.training:
            return self.conv(x)
        self.update_params()
        return self.eval_conv(x)


class EqualBranch(nn.Module):
    """gpytorch GridInterpolationKernel: `if torch.equal(x1, x2):` (P 2)."""
    def forward(self, x1, x2):
        if torch.equal(x1, x2):
            return x1 * 2
        return x1 + x2


class FastLen(nn.Module):
    """pypots ETSformer conv1d_fft: `scipy.fftpack.next_fast_len(N + M - 1)` of sizes (P 5)."""
    def forward(self, f, g):
        from scipy.fftpack import next_fast_len
        n = next_fast_len(f.size(-1) + g.size(-1) - 1)
        return torch.fft.irfft(torch.fft.rfft(f, n) * torch.fft.rfft(g, n), n)[..., : f.size(-1)]


class Uniq(nn.Module):
    """pykeen Representation.forward: `indices.unique(return_inverse=True)` then `x[inverse]` (P 4)."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 2)

    def forward(self, idx):
        u, inv = idx.unique(return_inverse=True)
        return self.emb(u)[inv]


class ParamItem(nn.Module):
    """pypots MOMENT debug check: `.item()` of a reduction over parameters only (P 14)."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        bad = torch.stack([torch.isnan(p).any() for p in self.lin.parameters()]).any().item()
        y = self.lin(x)
        return y if not bad else y * 0


CASES = {
    "p18": lambda: run_all("p18 DAT-like H, W from x.shape handed to a submodule (int(), assert, pad branch)", DAT(), (torch.randn(2, 4, 4, 6),), (torch.randn(2, 4, 4, 6),)),
    "p24": lambda: run_all("p24 SPAN-like eval forward re-fusing .data of params", Conv3XC(), (torch.randn(1, 3, 5, 5),), (torch.randn(1, 3, 5, 5),)),
    "p2": lambda: run_all("p2 if torch.equal(x1, x2)", EqualBranch(), (torch.randn(3), torch.randn(3)), (torch.ones(3), torch.ones(3))),
    "p5": lambda: run_all("p5 scipy next_fast_len of sizes", FastLen(), (torch.randn(2, 7), torch.randn(2, 5)), (torch.randn(2, 7), torch.randn(2, 5))),
    "p4": lambda: run_all("p4 unique(return_inverse) 2-D indices", Uniq(), (torch.tensor([[1, 2], [2, 3], [1, 5]]),), (torch.tensor([[4, 4], [2, 3], [1, 5]]),)),
    "p4b": lambda: run_all("p4b unique(return_inverse) 1-D indices", Uniq(), (torch.tensor([1, 2, 2, 5]),), (torch.tensor([4, 4, 3, 1]),)),
    "p14": lambda: run_all("p14 .item() of an isnan check over parameters", ParamItem(), (torch.randn(2, 4),), (torch.randn(2, 4),)),
}

if __name__ == "__main__":
    if len(sys.argv) > 2:  # one exporter of one case, in its own process (onnx-dynamo segfaults on p24)
        CASES[sys.argv[1]].__defaults__  # noqa
        import harness
        orig = harness.run_all
        globals()["run_all"] = lambda *a, **k: orig(*a, exporters=(sys.argv[2],), **k)
        CASES[sys.argv[1]]()
    else:
        import subprocess
        for case in CASES:
            for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
                r = subprocess.run([sys.executable, __file__, case, ex], capture_output=True, text=True, timeout=300)
                out = r.stdout.strip()
                print(out if out else f"{case} | {ex}: FAIL process exit {r.returncode} (no result printed)", flush=True)
