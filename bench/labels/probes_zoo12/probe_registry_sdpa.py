"""onnx-dynamo 'Cannot view' through an attention registry (torch 2.13, zoo12). The transformers
shape of EXL127's class: the model's attention picks its function from a mapping by a config
string (`REGISTRY.get_interface(impl, eager_fn)`); the SDPA function gets the model's bias as the
mask (directly, or merged with a padding mask by a helper), transposes its output (1, 2) and
returns it; the caller reshapes `out.reshape(*input_shape, -1)`. 2 heads, N=5, dynamic batch.
Variants (argv) `<impl>:<bias>`: impl sdpa | eager; bias emb (Embedding lookup permuted +
unsqueezed: T5), gather (table[idx].view.permute.unsqueeze via a submodule: Swin), det (the
same, detached), zeros (torch.zeros built in forward), h1 (emb with one head)."""
import contextlib, io, sys, time, warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
torch.manual_seed(0)
N, D = 5, 16


def merge_mask(bias, attention_mask):
    return bias if attention_mask is None else bias + attention_mask


def sdpa_fn(module, q, k, v, attention_mask, scaling=None, position_bias=None):
    if position_bias is not None:
        attention_mask = merge_mask(position_bias, attention_mask)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, scale=scaling)
    o = o.transpose(1, 2).contiguous()
    return o, None


def eager_fn(module, q, k, v, attention_mask, scaling=None, position_bias=None):
    if position_bias is not None:
        attention_mask = merge_mask(position_bias, attention_mask)
    w = q @ k.transpose(-1, -2)
    if attention_mask is not None:
        w = w + attention_mask
    o = w.softmax(-1) @ v
    return o.transpose(1, 2).contiguous(), w


class Registry:
    _global_mapping = {"sdpa": sdpa_fn}

    def get_interface(self, impl, default):
        return self._global_mapping.get(impl, default)


REG = Registry()


class Bias(torch.nn.Module):
    def __init__(self, H):
        super().__init__()
        self.tbl = torch.nn.Parameter(torch.randn(9, H))
        self.register_buffer("idx", (torch.arange(N)[:, None] - torch.arange(N)[None, :] + 4).reshape(-1))

    def forward(self):
        return self.tbl[self.idx].view(N, N, -1).permute(2, 0, 1).contiguous().unsqueeze(0)


class Attn(torch.nn.Module):
    def __init__(self, impl, bias, H):
        super().__init__()
        self.impl, self.bias, self.H = impl, bias, H
        self.q = torch.nn.Linear(H * D, H * D)
        self.emb = torch.nn.Embedding(9, H)
        self.rel = Bias(H)
        self.o = torch.nn.Linear(H * D, H * D)

    def forward(self, x):
        input_shape = x.shape[:-1]
        hs = (*input_shape, -1, D)
        q = self.q(x).view(hs).transpose(1, 2)
        idx = torch.arange(N)[:, None] - torch.arange(N)[None, :] + 4
        if self.bias in ("emb", "h1"):
            pb = self.emb(idx).permute([2, 0, 1]).unsqueeze(0)
        elif self.bias == "gather":
            pb = self.rel()
        elif self.bias == "det":
            pb = self.rel().detach()
        else:
            pb = torch.zeros(1, self.H, N, N)
        fn = REG.get_interface(self.impl, eager_fn)
        out, _ = fn(self, q, q, q, None, scaling=0.25, position_bias=pb)
        out = out.reshape(*input_shape, -1).contiguous()
        return self.o(out)


def msg(e):
    s = f"{type(e).__name__}: {e}"
    i = s.find("Cannot view")
    return (s[i:i + 120] if i >= 0 else s[:200]).replace("\n", " | ")


for v in sys.argv[1:]:
    impl, bias = v.split(":")
    H = 1 if bias == "h1" else 2
    m = Attn(impl, bias, H).eval()
    x = torch.randn(2, N, H * D)
    ds = {"x": {0: torch.export.Dim("b", min=1, max=64)}}
    t0 = time.time()
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            torch.onnx.export(m, (x,), "/tmp/zoo12_probe.onnx", dynamo=True, dynamic_shapes=ds)
        print(v, "PASS", f"{time.time() - t0:.1f}s", flush=True)
    except Exception as e:
        print(v, "FAIL", msg(e), f"{time.time() - t0:.1f}s", flush=True)
