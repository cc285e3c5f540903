"""onnx-dynamo 'Cannot view' with the bias built in the PARENT module and handed to the attention
submodule's forward as `attention_mask` (hf BEiT's shape, zoo19; torch 2.13). BeitLayer.forward calls its
relative-position-bias submodule (a parameter table: a slice `torch.cat` with an interpolated part,
gathered, viewed, permuted, unsqueezed to 4-D), adds the padding mask when there is one, and passes the
result to `self.attention(x, attention_mask=...)`; the attention picks SDPA from a registry, SDPA's output
comes back transposed (1, 2) and the attention reshapes it. 2 heads, N=5, dynamic batch.
Variants (argv): grad (the table as is), det (the bias `.detach()`ed in the parent), d3 (the bias kept
3-D, no unsqueeze), leaf (the parameter itself, 4-D, handed down), eager (the eager attention function)."""
import contextlib, io, sys, warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
torch.manual_seed(0)
N, D, H = 5, 16, 2


def sdpa_fn(module, q, k, v, attention_mask, scaling=None):
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, scale=scaling)
    return o.transpose(1, 2).contiguous(), None


def eager_fn(module, q, k, v, attention_mask, scaling=None):
    w = (q @ k.transpose(-1, -2)) * (scaling or 1.0)
    if attention_mask is not None:
        w = w + attention_mask
    return (w.softmax(-1) @ v).transpose(1, 2).contiguous(), w


class Registry:
    _global_mapping = {"sdpa": sdpa_fn}

    def get_interface(self, impl, default):
        return self._global_mapping.get(impl, default)


REG = Registry()


class RelBias(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(9 + 3, H))
        self.register_buffer("idx", (torch.arange(N)[:, None] - torch.arange(N)[None, :] + 4).reshape(-1))

    def forward(self, mode):
        sub = self.table[:9].reshape(1, 3, 3, -1).permute(0, 3, 1, 2)
        sub = F.interpolate(sub, size=(3, 3), mode="bilinear").permute(0, 2, 3, 1).reshape(9, -1)
        tbl = torch.cat([sub, self.table[9:]])
        b = tbl[self.idx].view(N, N, -1).permute(2, 0, 1).contiguous()
        return b if mode == "d3" else b.unsqueeze(0)


class Attention(torch.nn.Module):
    def __init__(self, impl):
        super().__init__()
        self.impl = impl
        self.q = torch.nn.Linear(H * D, H * D)
        self.o = torch.nn.Linear(H * D, H * D)

    def forward(self, x, attention_mask=None):
        input_shape = x.shape[:-1]
        q = self.q(x).view(*input_shape, -1, D).transpose(1, 2)
        fn = REG.get_interface(self.impl, eager_fn)
        out, _ = fn(self, q, q, q, attention_mask, scaling=D ** -0.5)
        out = out.reshape(*input_shape, -1).contiguous()
        return self.o(out)


class Layer(torch.nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.attention = Attention("eager" if mode == "eager" else "sdpa")
        self.rel = RelBias()
        self.leaf = torch.nn.Parameter(torch.randn(1, H, N, N))

    def forward(self, x, attention_mask=None):
        bias = self.leaf if self.mode == "leaf" else self.rel(self.mode)
        if self.mode == "det":
            bias = bias.detach()
        attention_mask = bias + attention_mask if attention_mask is not None else bias
        return self.attention(x, attention_mask=attention_mask)


def run(mode):
    m = Layer(mode).eval()
    x = torch.randn(2, N, H * D)
    batch = torch.export.Dim("batch", min=1, max=64)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            torch.onnx.export(m, (x,), dynamo=True, dynamic_shapes=({0: batch},), verbose=False)
        return "pass"
    except Exception as e:  # noqa: BLE001
        msg = str(e).strip().splitlines()
        return "FAIL " + next((ln for ln in msg if "Cannot view" in ln), msg[0] if msg else type(e).__name__)[:200]


if __name__ == "__main__":
    print("torch", torch.__version__)
    for mode in sys.argv[1:] or ["grad", "det", "d3", "leaf", "eager"]:
        print(f"onnx-dynamo {mode:6s}: {run(mode)}", flush=True)
