"""EXL101 probe (torch 2.13): a data-dependent test gated by a dtype comparison (transformers' fp16
clamp idiom: `if h.dtype == torch.float16 and not torch.isfinite(h).all(): clamp`), exported in
float32 (the default) with each exporter, and in float16 with torch.export."""
import torch, io, contextlib, warnings
warnings.filterwarnings("ignore")

class M(torch.nn.Module):
    def forward(self, h):
        h = h * 2
        if h.dtype == torch.float16 and not torch.isfinite(h).all():
            v = torch.finfo(h.dtype).max - 1000
            h = torch.clamp(h, min=-v, max=v)
        return h

def run(name, fn):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            fn()
        print(name, "PASS")
    except Exception as e:
        s = f"{type(e).__name__}: {e}"
        i = s.find("Exception summary")
        print(name, "FAIL", (s[i:i + 300] if i >= 0 else s[:300]).replace("\n", " | "))

m = M().eval()
for dt in (torch.float32, torch.float16):
    x = torch.randn(2, 3, dtype=dt)
    d = str(dt).split(".")[-1]
    run(f"{d} export-strict", lambda: torch.export.export(m, (x,), strict=True))
    run(f"{d} export-nonstrict", lambda: torch.export.export(m, (x,), strict=False))
    run(f"{d} onnx-dynamo", lambda: torch.onnx.export(m, (x,), "/tmp/dg.onnx", dynamo=True))
    run(f"{d} onnx-legacy", lambda: torch.onnx.export(m, (x,), "/tmp/dg2.onnx", dynamo=False))
