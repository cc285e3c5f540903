"""Probes for cases17's classes (torch 2.13, each probe in its own subprocess).

Per probe: torch.export strict / non-strict, onnx-dynamo, onnx-legacy (honouring DS -> dynamic_axes
for legacy, and OPSET); then, where ARGS2 is given (other sizes / values), the exported program or
the ONNX model (onnxruntime) is run on it and compared with eager ("diverged" when it differs or
raises). Prints the status and the first line of the error. Usage: python run_probes.py [name ...]
"""
import subprocess
import sys
import textwrap

HEAD = """
import torch, torch.nn as nn, torch.nn.functional as F, warnings, io, contextlib, tempfile, os, math
import numpy as np
from torch.export import Dim
warnings.simplefilter("ignore")
OPSET = None
ARGS2 = None
"""
TAIL = """
import copy
import torch.utils._pytree as pytree
def leaves(o):
    return [t for t in pytree.tree_leaves(o) if isinstance(t, torch.Tensor)]
def cl(a):
    return pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, a)
def same(a, b):
    a, b = leaves(a), leaves(b)
    if len(a) != len(b):
        return False
    return all(x.shape == y.shape and torch.allclose(x.double(), y.double(), atol=1e-4, rtol=1e-4) for x, y in zip(a, b))
def ort_run(path, a):
    import onnxruntime as ort
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feed = {i.name: t.numpy() for i, t in zip(s.get_inputs(), leaves(a))}
    return [torch.from_numpy(o) for o in s.run(None, feed)]
def run(name, f):
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            runner = f()
        st = "pass"
        if ARGS2 is not None and runner is not None:
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    ok = same(M().eval()(*cl(ARGS2)) if False else REF2, runner(cl(ARGS2)))
                st = "pass (matches on ARGS2)" if ok else "DIVERGED on ARGS2"
            except Exception as e:
                st = f"DIVERGED on ARGS2: raised {type(e).__name__}: {str(e).strip().splitlines()[0][:100] if str(e).strip() else ''}"
        print(f"  {name:10s} {st}")
    except Exception as e:
        msg = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        print(f"  {name:10s} FAIL {type(e).__name__}: {msg}")
torch.manual_seed(0)
m = M().eval()
ds = globals().get("DS")
REF2 = None
if ARGS2 is not None:
    torch.manual_seed(0)
    REF2 = copy.deepcopy(m)(*cl(ARGS2))
def ep_runner(strict):
    ep = torch.export.export(copy.deepcopy(m), cl(ARGS), dynamic_shapes=ds, strict=strict)
    return lambda a: ep.module()(*a)
def dyn_runner():
    p = os.path.join(tempfile.mkdtemp(), "d.onnx")
    prog = torch.onnx.export(copy.deepcopy(m), cl(ARGS), dynamo=True, dynamic_shapes=ds, opset_version=OPSET)
    prog.save(p)
    return lambda a: ort_run(p, a)
def legacy_runner():
    p = os.path.join(tempfile.mkdtemp(), "m.onnx")
    names = [f"in{i}" for i in range(len(leaves(ARGS)))]
    axes = None
    if ds:
        axes = {}
        vals = list(ds.values()) if isinstance(ds, dict) else list(ds)
        for i, spec in enumerate(vals):
            if isinstance(spec, dict) and i < len(names):
                axes[names[i]] = {k: f"d{i}_{k}" for k in spec}
    torch.onnx.export(copy.deepcopy(m), cl(ARGS), p, dynamo=False, opset_version=OPSET or 17, input_names=names, dynamic_axes=axes)
    return lambda a: ort_run(p, a)
run("strict", lambda: ep_runner(True))
run("nonstrict", lambda: ep_runner(False))
run("dynamo", dyn_runner)
run("legacy", legacy_runner)
"""
PROBES = {
# --- EXL137: int() of a size, dynamic dim (pkg_int_size_subpixel_opset10, onnxruntime#2779) ---
"i_int_size_reshape": """
class M(nn.Module):
    def forward(self, x):
        h, w = int(x.size(2)), int(x.size(3))
        return x.reshape(x.shape[0], -1, h * w).sum(-1)
ARGS = (torch.randn(1, 2, 8, 6),)
DS = {"x": {2: Dim("h", min=4, max=32), 3: Dim("w", min=4, max=32)}}
ARGS2 = (torch.randn(1, 2, 12, 10),)
""",
"i_int_size_reshape_static": """
class M(nn.Module):
    def forward(self, x):
        h, w = int(x.size(2)), int(x.size(3))
        return x.reshape(x.shape[0], -1, h * w).sum(-1)
ARGS = (torch.randn(1, 2, 8, 6),)
""",
"i_plain_size_control": """
class M(nn.Module):
    def forward(self, x):
        h, w = x.size(2), x.size(3)
        return x.reshape(x.shape[0], -1, h * w).sum(-1)
ARGS = (torch.randn(1, 2, 8, 6),)
DS = {"x": {2: Dim("h", min=4, max=32), 3: Dim("w", min=4, max=32)}}
ARGS2 = (torch.randn(1, 2, 12, 10),)
""",
# --- EXL129: interpolate scale_factor from sizes, legacy, static shapes (pkg_dinov2_pos_bicubic_opset17) ---
"s_scale_from_size_static": """
class M(nn.Module):
    def forward(self, x):
        h = x.shape[-2] // 2 + 0.1
        return F.interpolate(x, scale_factor=(h / 4, h / 4), mode="bicubic", align_corners=False)
ARGS = (torch.randn(1, 2, 8, 8),)
OPSET = 17
""",
"s_scale_from_size_bilinear_static": """
class M(nn.Module):
    def forward(self, x):
        h = x.shape[-2]
        return F.interpolate(x, scale_factor=h / 4, mode="bilinear", align_corners=False)
ARGS = (torch.randn(1, 2, 8, 8),)
OPSET = 17
""",
"s_scale_from_size_nearest_static": """
class M(nn.Module):
    def forward(self, x):
        h = x.shape[-2]
        return F.interpolate(x, scale_factor=h / 4)
ARGS = (torch.randn(1, 2, 8, 8),)
OPSET = 17
""",
"s_scale_math_sqrt_static": """
class M(nn.Module):
    def forward(self, x):
        n = x.shape[-2] * x.shape[-1]
        return F.interpolate(x, scale_factor=math.sqrt(n / 16), mode="bicubic", align_corners=False)
ARGS = (torch.randn(1, 2, 8, 8),)
OPSET = 17
""",
"s_scale_float_static": """
class M(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=float(x.shape[-2]) / 4, mode="bilinear", align_corners=False)
ARGS = (torch.randn(1, 2, 8, 8),)
OPSET = 17
""",
"s_scale_const_control": """
class M(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=False)
ARGS = (torch.randn(1, 2, 8, 8),)
OPSET = 17
""",
# --- stft on a dynamic length (pkg_stft_window_attr_opset17, pytorch#113067) ---
"f_stft_dynamic": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(320))
    def forward(self, x):
        return x.stft(n_fft=512, hop_length=160, win_length=320, window=self.win, return_complex=True).abs()
ARGS = (torch.randn(2, 4000),)
DS = {"x": {1: Dim("t", min=1000, max=16000)}}
OPSET = 17
ARGS2 = (torch.randn(2, 6000),)
""",
"f_stft_dynamic_nfft_eq_win": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(512))
    def forward(self, x):
        return x.stft(n_fft=512, hop_length=128, window=self.win, center=False, return_complex=True).abs()
ARGS = (torch.randn(2, 4000),)
DS = {"x": {1: Dim("t", min=1000, max=16000)}}
OPSET = 17
ARGS2 = (torch.randn(2, 6000),)
""",
"f_stft_static": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(320))
    def forward(self, x):
        return x.stft(n_fft=512, hop_length=160, win_length=320, window=self.win, return_complex=True).abs()
ARGS = (torch.randn(2, 4000),)
OPSET = 17
""",
"f_stft_dynamic_batch_only": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(320))
    def forward(self, x):
        return x.stft(n_fft=512, hop_length=160, win_length=320, window=self.win, return_complex=True).abs()
ARGS = (torch.randn(2, 4000),)
DS = {"x": {0: Dim("b", min=1, max=8)}}
OPSET = 17
ARGS2 = (torch.randn(3, 4000),)
""",
"f_torch_stft_dynamic_real": """
class M(nn.Module):
    def forward(self, x):
        s = torch.stft(x, n_fft=256, hop_length=64, window=torch.hann_window(256), return_complex=True)
        return torch.view_as_real(s).pow(2).sum(-1)
ARGS = (torch.randn(2, 4000),)
DS = {"x": {1: Dim("t", min=1000, max=16000)}}
OPSET = 17
ARGS2 = (torch.randn(2, 6000),)
""",
# --- per-sample convolution (pkg_deconv_groups_batch, pytorch#36454) ---
"c_deconv_groups_batch": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = nn.Linear(16, 4 * 3 * 9)
    def forward(self, x, s):
        n, c, h, w = x.shape
        wt = self.k(s).view(n * 4, 3, 3, 3)
        return F.conv_transpose2d(x.reshape(1, n * c, h, w), wt, padding=1, groups=n).view(n, 3, h, w)
ARGS = (torch.randn(2, 4, 8, 8), torch.randn(2, 16))
DS = {"x": {0: Dim("b", min=2, max=16)}, "s": {0: Dim("b", min=2, max=16)}}
ARGS2 = (torch.randn(3, 4, 8, 8), torch.randn(3, 16))
""",
"c_conv_groups_batch": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = nn.Linear(16, 4 * 3 * 9)
    def forward(self, x, s):
        n, c, h, w = x.shape
        wt = self.k(s).view(n * 3, 4, 3, 3)
        return F.conv2d(x.reshape(1, n * c, h, w), wt, padding=1, groups=n).view(n, 3, h, w)
ARGS = (torch.randn(2, 4, 8, 8), torch.randn(2, 16))
DS = {"x": {0: Dim("b", min=2, max=16)}, "s": {0: Dim("b", min=2, max=16)}}
ARGS2 = (torch.randn(3, 4, 8, 8), torch.randn(3, 16))
""",
"c_conv_groups_batch_static": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = nn.Linear(16, 4 * 3 * 9)
    def forward(self, x, s):
        n, c, h, w = x.shape
        wt = self.k(s).view(n * 3, 4, 3, 3)
        return F.conv2d(x.reshape(1, n * c, h, w), wt, padding=1, groups=n).view(n, 3, h, w)
ARGS = (torch.randn(2, 4, 8, 8), torch.randn(2, 16))
""",
"c_conv_dyn_weight_static_shape": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = nn.Linear(16, 4 * 3 * 9)
    def forward(self, x, s):
        wt = self.k(s).view(3, 4, 3, 3)
        return F.conv2d(x, wt, padding=1)
ARGS = (torch.randn(2, 4, 8, 8), torch.randn(1, 16))
DS = {"x": {0: Dim("b", min=2, max=16)}, "s": None}
ARGS2 = (torch.randn(3, 4, 8, 8), torch.randn(1, 16))
""",
"c_depthwise_groups_channels": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("k", torch.ones(1, 1, 3, 3) / 9)
    def forward(self, x):
        n, c, h, w = x.shape
        return F.conv2d(x, self.k.expand(c, 1, 3, 3), padding=1, groups=c)
ARGS = (torch.randn(2, 4, 8, 8),)
DS = {"x": {0: Dim("b", min=1, max=16)}}
ARGS2 = (torch.randn(3, 4, 8, 8),)
""",
# --- EXL111 through unpacked sizes and loops over declared dims ---
"b_unpacked_pad_branch": """
class M(nn.Module):
    def forward(self, x):
        _, _, h, w = x.size()
        if w % 4 != 0:
            x = F.pad(x, (0, 4 - w % 4))
        return x * 1.0
ARGS = (torch.randn(1, 2, 16, 16),)
DS = {"x": {2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}
ARGS2 = (torch.randn(1, 2, 16, 18),)
""",
"b_loop_range_len": """
class M(nn.Module):
    def forward(self, x):
        outs = []
        for i in range(len(x)):
            outs.append(x[i:i + 1] * 2)
        return torch.cat(outs)
ARGS = (torch.randn(2, 3),)
DS = {"x": {0: Dim("b", min=1, max=16)}}
ARGS2 = (torch.randn(5, 3),)
""",
"b_loop_range_unpacked": """
class M(nn.Module):
    def forward(self, x):
        b, t = x.shape[:2]
        outs = []
        for i in range(t):
            outs.append(x[:, i] * 2)
        return torch.stack(outs, 1)
ARGS = (torch.randn(2, 4, 3),)
DS = {"x": {1: Dim("t", min=2, max=16)}}
ARGS2 = (torch.randn(2, 7, 3),)
""",
"b_loop_undeclared_dim_control": """
class M(nn.Module):
    def forward(self, x):
        b, t = x.shape[:2]
        outs = []
        for i in range(t):
            outs.append(x[:, i] * 2)
        return torch.stack(outs, 1)
ARGS = (torch.randn(2, 4, 3),)
DS = {"x": {0: Dim("b", min=1, max=16)}}
ARGS2 = (torch.randn(5, 4, 3),)
""",
# --- namedtuple input field, legacy (pkg_namedtuple_point_input, known miss) ---
"nt_class_field": """
from typing import NamedTuple
class P(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor
class M(nn.Module):
    def forward(self, p: P):
        return p.x * 2 + p.y
ARGS = (P(torch.ones(3), torch.ones(3)),)
""",
"nt_annotated_but_tuple_passed_control": """
class M(nn.Module):
    def forward(self, p):
        x, y = p
        return x * 2 + y
ARGS = ((torch.ones(3), torch.ones(3)),)
""",
}


def main(argv):
    names = argv or list(PROBES)
    for n in names:
        code = HEAD + textwrap.dedent(PROBES[n]) + TAIL
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        print(n)
        print(r.stdout.rstrip() or r.stderr.strip().splitlines()[-1][:300])
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
