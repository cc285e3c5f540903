"""Legacy exporter (torch.onnx.export(..., dynamo=False), torch 2.13): a forward's defaulted
Python-scalar parameter, not given at the export call. _decide_input_format appends the default
positionally; the tracer flattens the arguments. Which uses of the parameter break? Variant (argv)
names the use; ':given' passes the value at the call (args=(x, value)); ':kw' passes it in the
trailing kwargs dict."""
import contextlib, io, sys, time, warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")


class M(torch.nn.Module):
    def __init__(self, use):
        super().__init__()
        self.use = use

    def forward(self, x, flag: bool = False, n: int = 2, s: float = 0.5, opt=None):
        u = self.use
        if u == "sdpa_causal":
            return F.scaled_dot_product_attention(x, x, x, is_causal=flag)
        if u == "if_flag":
            return x + 1 if flag else x - 1
        if u == "flag_type":
            return x * 0 + float(type(flag) is bool)
        if u == "n_sum":
            return x.sum(n)
        if u == "n_range":
            return torch.stack([x[..., i] for i in range(n)], -1)
        if u == "n_mul":
            return x * n
        if u == "s_mul":
            return x * s
        if u == "s_dropout":
            return F.dropout(x, p=s, training=False)
        if u == "n_view":
            return x.reshape(x.shape[0], n, -1)
        if u == "sdpa_gqa":
            return F.scaled_dot_product_attention(x, x, x, enable_gqa=flag)
        if u == "keepdim":
            return x.sum(1, keepdim=flag)
        if u == "align":
            return F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=flag)
        if u == "training":
            return F.dropout(x, p=0.5, training=flag)
        if u == "n_cat":
            return torch.cat([x, x], dim=n)
        if u == "n_transpose":
            return x.transpose(n, 3)
        if u == "n_softmax":
            return x.softmax(n)
        if u == "opt_none":
            return x if opt is None else x + 1


def msg(e):
    return f"{type(e).__name__}: {e}"[:160].replace("\n", " | ")


for v in sys.argv[1:]:
    use = v.split(":")[0]
    m = M(use).eval()
    x = torch.randn(1, 2, 4, 8)
    args = (x,)
    if v.endswith(":given"):
        args = (x, {"sdpa_causal": False, "if_flag": False, "flag_type": False}.get(use, 2))
    buf = io.StringIO()
    t0 = time.time()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            torch.onnx.export(m, args, "/tmp/zoo11_legacy.onnx", dynamo=False)
        import onnxruntime as ort
        import numpy as np
        sess = ort.InferenceSession("/tmp/zoo11_legacy.onnx")
        feeds = {i.name: x.numpy() for i in sess.get_inputs()[:1]}
        got = sess.run(None, feeds)[0]
        ok = np.allclose(got, m(*args).detach().numpy(), atol=1e-5)
        print(v, "PASS" if ok else "DIVERGED", "inputs:", [i.name for i in sess.get_inputs()], f"{time.time() - t0:.1f}s", flush=True)
    except Exception as e:
        print(v, "FAIL", msg(e), f"{time.time() - t0:.1f}s", flush=True)
