"""Exports the classes of tests/test_zoo11_classes.py (SDPA, LEGACY) with the exporter each rule
names (torch 2.13): EXL127's classes with onnx-dynamo (dynamic batch), EXL128's with the legacy
exporter, so the tests' reproducers and controls are measured, not assumed."""
import contextlib, io, sys, warnings

import torch

warnings.filterwarnings("ignore")
sys.path.insert(0, "tests")
import test_zoo11_classes as T  # noqa: E402

ns: dict = {}
exec(T.SDPA, ns)
for name in ("Beit", "Unsq", "TwoD", "Emb", "Leaf", "ThreeD", "Detached", "Buffer", "FromInput", "NoTranspose"):
    m = ns[name]().eval()
    x = torch.randn(2, 5, 64)
    args = (x, torch.zeros(2, 5, 5)) if name == "FromInput" else (x,)
    ds = {"x": {0: torch.export.Dim("b", min=1, max=64)}}
    if name == "FromInput":
        ds["mask"] = {0: ds["x"][0]}
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            torch.onnx.export(m, args, "/tmp/zoo11_t.onnx", dynamo=True, dynamic_shapes=ds)
        print("EXL127", name, "onnx-dynamo PASS", flush=True)
    except Exception as e:
        s = str(e)
        i = s.find("Cannot view")
        print("EXL127", name, "onnx-dynamo FAIL", (s[i:i + 90] if i >= 0 else s[:150]).replace("\n", " "), flush=True)

ns = {}
exec(T.LEGACY, ns)
x = torch.randn(1, 2, 4, 8)
for name in ("Attn", "Rebound", "Attr", "NoDefault"):
    m = ns[name]().eval()
    args = (x, False) if name == "NoDefault" else (x,)
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            torch.onnx.export(m, args, "/tmp/zoo11_t.onnx", dynamo=False)
        print("EXL128", name, "onnx-legacy PASS", flush=True)
    except Exception as e:
        print("EXL128", name, "onnx-legacy FAIL", f"{type(e).__name__}: {e}"[:120].replace("\n", " "), flush=True)
