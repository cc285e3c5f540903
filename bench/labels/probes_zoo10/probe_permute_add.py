"""torch.export spec-failure probe (torch 2.13): patch embedding conv -> flatten(2).transpose(1, 2)
with dynamic H/W (Dim min 64 max 1024), strict and non-strict. Variant names: see forward."""
import torch, sys, io, contextlib, warnings, time
warnings.filterwarnings("ignore")

class PE(torch.nn.Module):
    def __init__(self, v, C=64, P=4):
        super().__init__()
        self.v = v
        self.proj = torch.nn.Conv2d(3, C, P, P)
        self.norm = torch.nn.LayerNorm(C)
        self.dw = torch.nn.Conv2d(C, C, 7, padding=3, groups=C)
        self.fc = torch.nn.Linear(C, C)
    def forward(self, x):
        v = self.v
        if v == "flat":       # twins PatchEmbed: conv -> flatten(2).transpose(1, 2) -> norm
            x = self.proj(x).flatten(2).transpose(1, 2)
            return self.norm(x)
        if v == "flat_reshape":  # + back to NCHW as twins' blocks do
            B, _, H, W = x.shape
            x = self.proj(x).flatten(2).transpose(1, 2)
            x = self.norm(x)
            return x.transpose(1, 2).reshape(B, -1, H // 4, W // 4)
        if v == "flat_linear":
            x = self.proj(x).flatten(2).transpose(1, 2)
            return self.fc(self.norm(x))
        if v == "convnext":  # convnext block: dw conv -> permute -> norm -> linear -> permute
            x = self.proj(x)
            s = x
            x = self.dw(x).permute(0, 2, 3, 1)
            x = self.fc(self.norm(x)).permute(0, 3, 1, 2)
            return x + s
        if v == "perm_lin":  # no dw conv: permute -> linear -> permute back
            x = self.proj(x).permute(0, 2, 3, 1)
            return self.fc(x).permute(0, 3, 1, 2)
        if v == "perm_norm":  # permute -> layernorm -> permute back
            x = self.proj(x).permute(0, 2, 3, 1)
            return self.norm(x).permute(0, 3, 1, 2)
        if v == "perm_lin_only":  # permute -> linear (no permute back)
            return self.fc(self.proj(x).permute(0, 2, 3, 1))
        if v == "perm_lin_add":
            x = self.proj(x)
            return self.fc(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2) + x
        if v == "perm_mul_back":  # elementwise in NHWC then back
            x = self.proj(x).permute(0, 2, 3, 1)
            return (x * 2).permute(0, 3, 1, 2)
        if v == "dw_perm":
            return self.dw(self.proj(x)).permute(0, 2, 3, 1)
        if v == "dw_perm_lin":
            return self.fc(self.dw(self.proj(x)).permute(0, 2, 3, 1))
        if v == "dw_perm_norm":
            return self.norm(self.dw(self.proj(x)).permute(0, 2, 3, 1))
        if v == "dw_perm_lin_back":
            return self.fc(self.dw(self.proj(x)).permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        if v == "conv_perm_lin":  # a dense conv (groups=1) instead of depthwise
            return self.fc(self.proj(x).permute(0, 2, 3, 1))
        if v == "dw_perm_mul":
            return self.dw(self.proj(x)).permute(0, 2, 3, 1) * 2
        if v == "dw_perm_norm_lin":
            return self.fc(self.norm(self.dw(self.proj(x)).permute(0, 2, 3, 1)))
        if v == "dw_perm_norm_lin_back":
            return self.fc(self.norm(self.dw(self.proj(x)).permute(0, 2, 3, 1))).permute(0, 3, 1, 2)
        if v == "perm_norm_lin":  # no dw conv
            return self.fc(self.norm(self.proj(x).permute(0, 2, 3, 1)))
        if v == "dw_perm_norm_mul":
            return self.norm(self.dw(self.proj(x)).permute(0, 2, 3, 1)) * 2
        if v == "dw_lin_back_add":  # convnext without the norm
            s = self.proj(x)
            return self.fc(self.dw(s).permute(0, 2, 3, 1)).permute(0, 3, 1, 2) + s
        if v == "dw_norm_back_add":  # without the linear
            s = self.proj(x)
            return self.norm(self.dw(s).permute(0, 2, 3, 1)).permute(0, 3, 1, 2) + s
        if v == "dw_back_add":
            s = self.proj(x)
            return self.dw(s).permute(0, 2, 3, 1).permute(0, 3, 1, 2) + s
        if v == "conv_norm_lin_back_add":  # a dense conv
            s = self.proj(x)
            return self.fc(self.norm(s.permute(0, 2, 3, 1))).permute(0, 3, 1, 2) + s
        if v == "convnext_contig":
            s = self.proj(x)
            x = self.dw(s).permute(0, 2, 3, 1)
            x = self.fc(self.norm(x)).permute(0, 3, 1, 2).contiguous()
            return x + s
        if v == "norm_lin_back":  # no add
            s = self.proj(x)
            return self.fc(self.norm(s.permute(0, 2, 3, 1))).permute(0, 3, 1, 2)
        if v == "norm_lin_back_mul":  # no add, a per-channel scale (convnext's gamma)
            s = self.proj(x)
            return self.fc(self.norm(s.permute(0, 2, 3, 1))).permute(0, 3, 1, 2) * self.fc.bias.reshape(1, -1, 1, 1)
        if v == "dw":
            return self.dw(self.proj(x))

def msg(e):
    s = f"{type(e).__name__}: {e}"
    return s[:400].replace("\n", " | ")

for v in sys.argv[1:]:
    name, mode = v.split(":")
    m = PE(name).eval()
    x = torch.randn(2, 3, 64, 64)
    H = torch.export.Dim("height", min=64, max=1024)
    W = torch.export.Dim("width", min=64, max=1024)
    ds = {"x": {0: torch.export.Dim("batch", min=1, max=64), 2: H, 3: W}}
    t0 = time.time()
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            torch.export.export(m, (x,), dynamic_shapes=ds, strict=(mode == "strict"))
        print(v, "PASS", f"{time.time()-t0:.1f}s", flush=True)
    except Exception as e:
        print(v, "FAIL", msg(e), f"{time.time()-t0:.1f}s", flush=True)
