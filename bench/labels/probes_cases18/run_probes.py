"""Probes for cases18's classes (torch 2.13, each probe in its own subprocess).

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
# --- EXL123 at the call: linspace steps from a size in a helper (pkg_flux_img_ids_linspace, ComfyUI#5490) ---
"l_helper_steps_derived_dim": """
def make_ids(x, p=2):
    b, c, h, w = x.shape
    h_len = (h + p // 2) // p
    return torch.linspace(0, h_len - 1, steps=h_len, dtype=x.dtype)
class M(nn.Module):
    def forward(self, x):
        return x.mean(1).flatten(1)[:, :4] + make_ids(x).sum()
ARGS = (torch.randn(1, 2, 8, 6),)
_h = Dim("_h", min=2, max=16)
DS = {"x": {2: 2 * _h}}
ARGS2 = (torch.randn(1, 2, 12, 6),)
""",
"l_helper_steps_plain_dim": """
def coords(x):
    h = x.shape[2]
    return torch.linspace(-1, 1, h, dtype=x.dtype)
class M(nn.Module):
    def forward(self, x):
        return x * coords(x)[:, None]
ARGS = (torch.randn(1, 2, 8, 6),)
DS = {"x": {2: Dim("h", min=2, max=32)}}
ARGS2 = (torch.randn(1, 2, 12, 6),)
""",
"l_helper_steps_static_control": """
def coords(x):
    h = x.shape[2]
    return torch.linspace(-1, 1, h, dtype=x.dtype)
class M(nn.Module):
    def forward(self, x):
        return x * coords(x)[:, None]
ARGS = (torch.randn(1, 2, 8, 6),)
""",
"l_helper_steps_other_dim_control": """
def coords(x):
    h = x.shape[2]
    return torch.linspace(-1, 1, h, dtype=x.dtype)
class M(nn.Module):
    def forward(self, x):
        return x * coords(x)[:, None]
ARGS = (torch.randn(2, 2, 8, 6),)
DS = {"x": {0: Dim("b", min=1, max=16)}}
ARGS2 = (torch.randn(5, 2, 8, 6),)
""",
"l_helper_arange_control": """
def coords(x):
    h = x.shape[2]
    return -1 + torch.arange(h, dtype=x.dtype) * (2 / (h - 1))
class M(nn.Module):
    def forward(self, x):
        return x * coords(x)[:, None]
ARGS = (torch.randn(1, 2, 8, 6),)
DS = {"x": {2: Dim("h", min=2, max=32)}}
ARGS2 = (torch.randn(1, 2, 12, 6),)
""",
# --- EXL133: a split of a dim declared a multiple (k * Dim) in another file ---
"v_split_multiple_dim": """
class M(nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        return x.reshape(b, c, h // 2, 2, w // 2, 2).sum((3, 5))
ARGS = (torch.randn(1, 2, 8, 12),)
_h = Dim("_h", min=2, max=32)
_w = Dim("_w", min=2, max=32)
DS = {"x": {2: 2 * _h, 3: 2 * _w}}
ARGS2 = (torch.randn(1, 2, 10, 6),)
""",
"v_split_plain_dim_control": """
class M(nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        return x.reshape(b, c, h // 2, 2, w // 2, 2).sum((3, 5))
ARGS = (torch.randn(1, 2, 8, 12),)
DS = {"x": {2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}
ARGS2 = (torch.randn(1, 2, 10, 6),)
""",
# --- helpers handed the forward's input as it is keep its declared dims (root_declared) ---
"h_loop_helper_declared": """
def normalize_frames(frames):
    frames = frames.clone()
    for i in range(frames.size(1)):
        frames[:, i] = frames[:, i] * 2 - 1
    return frames
class M(nn.Module):
    def forward(self, frames):
        return normalize_frames(frames).sum(1)
ARGS = (torch.randn(1, 4, 3, 5),)
DS = {"frames": {1: Dim("t", min=2, max=16)}}
ARGS2 = (torch.randn(1, 7, 3, 5),)
""",
"h_loop_helper_batch_control": """
def normalize_frames(frames):
    frames = frames.clone()
    for i in range(frames.size(1)):
        frames[:, i] = frames[:, i] * 2 - 1
    return frames
class M(nn.Module):
    def forward(self, frames):
        return normalize_frames(frames).sum(1)
ARGS = (torch.randn(2, 4, 3, 5),)
DS = {"frames": {0: Dim("b", min=1, max=16)}}
ARGS2 = (torch.randn(5, 4, 3, 5),)
""",
"h_unfold_helper_declared": """
def frame_signal(x, n, hop):
    return x.unfold(-1, n, hop)
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 8)
    def forward(self, x):
        return self.proj(frame_signal(x, 4, 2)).mean(1)
ARGS = (torch.randn(2, 64),)
DS = ({1: Dim("T", min=16, max=512)},)
ARGS2 = (torch.randn(2, 90),)
""",
"h_stft_helper_declared": """
def magnitude(signals, window):
    return signals.stft(16, hop_length=4, window=window, return_complex=True).abs()
class M(nn.Module):
    def forward(self, x):
        return magnitude(x, torch.hann_window(16))
ARGS = (torch.randn(2, 128),)
DS = {"x": {1: Dim("samples", min=64, max=1024)}}
OPSET = 17
ARGS2 = (torch.randn(2, 200),)
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
