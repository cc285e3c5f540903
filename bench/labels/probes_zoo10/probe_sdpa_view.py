"""onnx-dynamo 'Cannot view' probe (torch 2.13): sdpa(q, k, v, attn_mask=<mask>) then
out.transpose(1, 2).reshape(...), dynamic batch. Variant = mask:N:H:D:mult:tail
mask: none | b1 (1,H,N,N) | h (H,N,N) | bb (B,1,N,N) | bh (B,H,N,N); mult: batch into sdpa = mult*B;
tail: reshape (B,N,C) | reshapem1 (B,N,-1) | view | contig (.contiguous().view) | flatten."""
import torch, sys, io, contextlib, warnings, time
import torch.nn.functional as F
warnings.filterwarnings("ignore")
torch.manual_seed(0)

class Attn(torch.nn.Module):
    def __init__(self, mask, N, H, D, mult, tail):
        super().__init__()
        C = H * D
        self.qkv = torch.nn.Linear(C, 3 * C)
        self.H, self.mask, self.mult, self.tail = H, mask, mult, tail
        self.bias = torch.nn.Parameter(torch.randn(H, N, N))
        self.register_buffer("bbuf", torch.randn(1, H, N, N))
        self.register_buffer("coords", torch.randn(N * N, 2))
        self.mlp = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, H))
    def forward(self, x):
        B0, N, C = x.shape
        x = x.repeat(self.mult, 1, 1) if self.mult > 1 else x
        B = x.shape[0]
        qkv = self.qkv(x).reshape(B, N, 3, self.H, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        m = {"none": None, "b1": self.bias.unsqueeze(0), "h": self.bias,
             "bb": torch.zeros(B, 1, N, N), "bh": self.bias.unsqueeze(0).expand(B, -1, -1, -1),
             "b1bool": (self.bias > 0).unsqueeze(0), "11": self.bias[:1].unsqueeze(0),
             "b1sq": self.bias.unsqueeze(0).squeeze(0), "buf": self.bbuf,
             "b1det": self.bias.unsqueeze(0).detach(),
             "mlp": self.mlp(self.coords).permute(1, 0).reshape(1, self.H, N, N)}[self.mask]
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
        if self.tail == "reshape":
            return o.transpose(1, 2).reshape(B, N, C)
        if self.tail == "reshapem1":
            return o.transpose(1, 2).reshape(B, N, -1)
        if self.tail == "view":
            return o.transpose(1, 2).view(B, N, C)
        if self.tail == "contig":
            return o.transpose(1, 2).contiguous().view(B, N, C)
        if self.tail == "flatten":
            return o.transpose(1, 2).flatten(2)
        if self.tail == "plain":
            return o
        if self.tail == "permute":
            return o.permute(0, 2, 1, 3).reshape(B, N, C)

def msg(e):
    s = f"{type(e).__name__}: {e}"
    i = s.find("Cannot view")
    return (s[i:i+160] if i >= 0 else s[:200]).replace("\n", " | ")

for v in sys.argv[1:]:
    mask, N, H, D, mult, tail = v.split(":")[:6]
    N, H, D, mult = int(N), int(H), int(D), int(mult)
    m = Attn(mask, N, H, D, mult, tail).eval()
    x = torch.randn(2, N, H * D)
    ds = {"x": {0: torch.export.Dim("b", min=1, max=64)}} if ":fixed" not in v else None
    t0 = time.time()
    buf = io.StringIO()
    try:
        ng = torch.no_grad() if v.endswith(":nograd") else contextlib.nullcontext()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf), ng:
            torch.onnx.export(m, (x,), "/tmp/v2.onnx", dynamo=True, dynamic_shapes=ds)
        print(v, "PASS", f"{time.time()-t0:.1f}s", flush=True)
    except Exception as e:
        print(v, "FAIL", msg(e), f"{time.time()-t0:.1f}s", flush=True)
