"""onnx-dynamo 'Cannot view' after SDPA, second probe (torch 2.13, zoo11): which property of the
attn_mask decides it. One attention layer, 2 heads, N=5, D=32, dynamic batch, output
o.transpose(1, 2).reshape(B, N, C). Variants (argv): see MASKS; suffix ':nograd' exports under torch.no_grad(); ':frozen' sets
requires_grad_(False) on every parameter before exporting."""
import contextlib, io, sys, time, warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
torch.manual_seed(0)
N, H, D = 5, 2, 32
C = H * D


class Attn(torch.nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.qkv = torch.nn.Linear(C, 3 * C)
        self.mask = mask
        self.b3 = torch.nn.Parameter(torch.randn(H, N, N))
        self.b2 = torch.nn.Parameter(torch.randn(N, N))
        self.b4 = torch.nn.Parameter(torch.randn(1, H, N, N))
        self.emb = torch.nn.Embedding(9, H)
        self.lin = torch.nn.Linear(C, N)
        self.tbl = torch.nn.Parameter(torch.randn(9, H))
        self.register_buffer("idx", (torch.arange(N)[:, None] - torch.arange(N)[None, :] + 4))

    def forward(self, x):
        B = x.shape[0]
        qkv = self.qkv(x).reshape(B, N, 3, H, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        idx = torch.arange(N)[:, None] - torch.arange(N)[None, :] + 4
        m = {
            "p2": lambda: self.b2,                                   # 2-D parameter
            "p4": lambda: self.b4,                                   # 4-D parameter itself
            "p4c": lambda: self.b4.contiguous(),
            "p3u": lambda: self.b3.unsqueeze(0),                     # (1,H,N,N) view of a parameter
            "p3uc": lambda: self.b3.unsqueeze(0).contiguous(),
            "p3add": lambda: self.b3.unsqueeze(0) + torch.zeros(B, 1, N, N),   # (B,H,N,N) sum
            "p3mul": lambda: (self.b3 * 2.0).unsqueeze(0),
            "p2u": lambda: self.b2[None, None],                      # (1,1,N,N)
            "emb": lambda: self.emb(idx).permute(2, 0, 1).unsqueeze(0),   # T5 shape: embedding -> (1,H,N,N)
            "embsum": lambda: self.emb(idx).permute(2, 0, 1).unsqueeze(0) + torch.zeros(B, 1, 1, N),  # T5 + pad mask
            "xlin": lambda: self.lin(x).unsqueeze(1),                 # (B,1,N,N) from the input via a Linear
            "p2mul": lambda: self.b2 * 2.0,                          # 2-D non-leaf
            "p3mul3": lambda: self.b3 * 2.0,                         # 3-D non-leaf
            "p4mul": lambda: self.b4 * 2.0,                          # 4-D non-leaf of a 4-D parameter  # from the input via a Linear
            "xraw": lambda: x[:, None, :, :N].expand(B, H, N, N),  # from the input, no parameter
            "p3det": lambda: self.b3.detach().unsqueeze(0),
            # swin / beit / monai relative-position table: gather, reshape (N, N, H), permute, unsqueeze
            "gather": lambda: self.tbl[self.idx.reshape(-1)].reshape(N, N, -1).permute(2, 0, 1).contiguous().unsqueeze(0),
        }[self.mask]()
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
        return o.transpose(1, 2).reshape(B, N, C)


def msg(e):
    s = f"{type(e).__name__}: {e}"
    i = s.find("Cannot view")
    return (s[i:i + 120] if i >= 0 else s[:200]).replace("\n", " | ")


for v in sys.argv[1:]:
    mask = v.split(":")[0]
    m = Attn(mask).eval()
    if v.endswith(":frozen"):
        for p in m.parameters():
            p.requires_grad_(False)
    x = torch.randn(2, N, C)
    ds = {"x": {0: torch.export.Dim("b", min=1, max=64)}}
    t0 = time.time()
    buf = io.StringIO()
    try:
        ng = torch.no_grad() if ":nograd" in v else contextlib.nullcontext()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf), ng:
            torch.onnx.export(m, (x,), "/tmp/zoo11_probe.onnx", dynamo=True, dynamic_shapes=ds)
        print(v, "PASS", f"{time.time() - t0:.1f}s", flush=True)
    except Exception as e:
        print(v, "FAIL", msg(e), f"{time.time() - t0:.1f}s", flush=True)
