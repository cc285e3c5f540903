"""Ops the trial-export table names on the sampled findings, re-measured: onnx-legacy at opset 20, onnx-dynamo."""
import io, torch, torch.nn as nn
class F(nn.Module):
    def __init__(s, fn): super().__init__(); s.fn = fn
    def forward(s, x): return s.fn(x)
cases = {
    "asinh": lambda x: torch.arcsinh(x),
    "nanmean": lambda x: torch.nanmean(x, dim=-1, keepdim=True),
    "diag(1-d)": lambda x: torch.diag(x[0, 0]),
    "block_diag": lambda x: torch.block_diag(*torch.unbind(x[0])),
    "AdaptiveMaxPool3d((None,1,1))": nn.AdaptiveMaxPool3d((None, 1, 1)),
    "AdaptiveMaxPool3d((1,None,None))": nn.AdaptiveMaxPool3d((1, None, None)),
    "AdaptiveAvgPool3d((1,None,None))": nn.AdaptiveAvgPool3d((1, None, None)),
    "AdaptiveAvgPool3d((None,1,1))": nn.AdaptiveAvgPool3d((None, 1, 1)),
    "AdaptiveMaxPool2d((None,1))": nn.AdaptiveMaxPool2d((None, 1)),
    "cdist": lambda x: torch.cdist(x[0], x[0]),
}
for name, fn in cases.items():
    x = torch.randn(2, 3, 4, 5, 6) if "3d" in name else torch.randn(2, 3, 5, 7) if "2d" in name else torch.randn(2, 3, 4)
    m = F(fn).eval()
    for ex in ("onnx-legacy", "onnx-dynamo"):
        try:
            if ex == "onnx-legacy": torch.onnx.export(m, (x,), io.BytesIO(), dynamo=False, opset_version=20)
            else: torch.onnx.export(m, (x,), dynamo=True, verbose=False)
            print(f"{name} | {ex}: PASS")
        except Exception as e:
            first = next((l for l in str(e).strip().splitlines() if l.strip()), "")
            print(f"{name} | {ex}: FAIL {type(e).__name__}: {first[:200]}")
