"""Probes for cases16's classes (torch 2.13, each probe in its own subprocess).

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
# --- random in-place fills (pkg_uniform_dither_opset10, pytorch#70497) ---
"u_empty_like_uniform": """
class M(nn.Module):
    def forward(self, x):
        return x + torch.empty_like(x).uniform_(-1e-6, 1e-6)
ARGS = (torch.randn(2, 16),)
""",
"u_clone_uniform": """
class M(nn.Module):
    def forward(self, x):
        return x.clone().uniform_() * 0 + x
ARGS = (torch.randn(2, 16),)
""",
"u_normal_": """
class M(nn.Module):
    def forward(self, x):
        return x + torch.empty_like(x).normal_() * 1e-6
ARGS = (torch.randn(2, 16),)
""",
"u_bernoulli_": """
class M(nn.Module):
    def forward(self, x):
        return x * torch.empty_like(x).bernoulli_(0.5)
ARGS = (torch.randn(2, 16),)
""",
"u_exponential_": """
class M(nn.Module):
    def forward(self, x):
        return x + torch.empty_like(x).exponential_() * 1e-6
ARGS = (torch.randn(2, 16),)
""",
"u_init_uniform": """
class M(nn.Module):
    def forward(self, x):
        w = torch.empty(16, 4)
        nn.init.uniform_(w, -0.1, 0.1)
        return x @ w
ARGS = (torch.randn(2, 16),)
""",
"u_rand_like_control": """
class M(nn.Module):
    def forward(self, x):
        return x + torch.rand_like(x) * 1e-6
ARGS = (torch.randn(2, 16),)
""",
"u_randn_like_control": """
class M(nn.Module):
    def forward(self, x):
        return x + torch.randn_like(x) * 1e-6
ARGS = (torch.randn(2, 16),)
""",
"u_init_uniform_ctor_control": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.empty(16, 4))
        nn.init.uniform_(self.w, -0.1, 0.1)
    def forward(self, x):
        return x @ self.w
ARGS = (torch.randn(2, 16),)
""",
# --- math.* of an .item() value (pkg_item_ceil_tensor, pytorch#113778) ---
"mi_ceil_tensor": """
class M(nn.Module):
    def forward(self, x, s):
        return x * torch.tensor([math.ceil(s.item())], dtype=torch.float32)
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6]))
""",
"mi_ceil_mul": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.ceil(s.item())
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6]))
""",
"mi_sqrt_mul": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.sqrt(s.item())
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6]))
""",
"mi_log_mul": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.log(s.item())
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6]))
""",
"mi_floor_mul": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.floor(s.item())
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6]))
""",
"mi_trunc_mul": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.trunc(s.item())
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6]))
""",
"mi_ceil_div_mul": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.ceil(s.item() / 4)
ARGS = (torch.randn(2, 8), torch.tensor([9.0]))
ARGS2 = (torch.randn(2, 8), torch.tensor([17.0]))
""",
"mi_floor_tensor": """
class M(nn.Module):
    def forward(self, x, s):
        return x + torch.tensor(math.floor(s.item()))
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6]))
""",
"mi_ceil_size": """
class M(nn.Module):
    def forward(self, x, s):
        return x.new_zeros(math.ceil(s.item())).sum() + x
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6]))
""",
"mi_ceil_branch": """
class M(nn.Module):
    def forward(self, x, s):
        if math.ceil(s.item()) > 2:
            return x * 2
        return x
ARGS = (torch.randn(2, 8), torch.tensor([2.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([1.6]))
""",
"mi_ceil_int_item": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.ceil(s.item())
ARGS = (torch.randn(2, 8), torch.tensor([3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5]))
""",
"mi_exp_mul": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.exp(s.item())
ARGS = (torch.randn(2, 8), torch.tensor([0.3]))
ARGS2 = (torch.randn(2, 8), torch.tensor([1.6]))
""",
"mi_ceil_of_sum_item": """
class M(nn.Module):
    def forward(self, x, s):
        return x * math.ceil(s.sum().item() / 2)
ARGS = (torch.randn(2, 8), torch.tensor([2.3, 1.0]))
ARGS2 = (torch.randn(2, 8), torch.tensor([5.6, 3.0]))
""",
# --- numpy on sizes, strict (pkg_np_anchor_grid, efficientdet#46) ---
"np_arange_from_size": """
class M(nn.Module):
    def forward(self, x):
        g = (np.array(x.shape[2:]) + 15) // 16
        ys = np.arange(g[0])
        return x.sum() + torch.from_numpy(ys.astype(np.float32)).sum()
ARGS = (torch.randn(1, 3, 64, 64),)
DS = {"x": {2: Dim("h2", min=2, max=16) * 16}}
ARGS2 = (torch.randn(1, 3, 96, 64),)
""",
"np_arange_size_direct": """
class M(nn.Module):
    def forward(self, x):
        ys = np.arange(x.shape[2])
        return x.sum() + torch.from_numpy(ys.astype(np.float32)).sum()
ARGS = (torch.randn(1, 3, 64, 64),)
DS = {"x": {2: Dim("h", min=8, max=256)}}
ARGS2 = (torch.randn(1, 3, 96, 64),)
""",
"np_array_arith_control": """
class M(nn.Module):
    def forward(self, x):
        s = np.array(x.shape[2:]) * 2
        return x.sum() + torch.from_numpy(s.astype(np.float32)).sum()
ARGS = (torch.randn(1, 3, 64, 64),)
DS = {"x": {2: Dim("h", min=8, max=256)}}
ARGS2 = (torch.randn(1, 3, 96, 64),)
""",
"np_arange_static_control": """
class M(nn.Module):
    def forward(self, x):
        g = (np.array(x.shape[2:]) + 15) // 16
        ys = np.arange(g[0])
        return x.sum() + torch.from_numpy(ys.astype(np.float32)).sum()
ARGS = (torch.randn(1, 3, 64, 64),)
""",
"np_meshgrid_from_size": """
class M(nn.Module):
    def forward(self, x):
        g = np.array(x.shape[2:]) // 16
        ys, xs = np.meshgrid(np.arange(g[0]), np.arange(g[1]), indexing="ij")
        return x.sum() + torch.from_numpy(xs.astype(np.float32)).sum()
ARGS = (torch.randn(1, 3, 64, 64),)
DS = {"x": {2: Dim("h2", min=2, max=16) * 16, 3: Dim("w2", min=2, max=16) * 16}}
ARGS2 = (torch.randn(1, 3, 96, 64),)
""",
"np_zeros_from_size": """
class M(nn.Module):
    def forward(self, x):
        z = np.zeros((x.shape[2], 2), dtype=np.float32)
        return x.sum() + torch.from_numpy(z).sum()
ARGS = (torch.randn(1, 3, 64, 64),)
DS = {"x": {2: Dim("h", min=8, max=256)}}
ARGS2 = (torch.randn(1, 3, 96, 64),)
""",
# --- legacy tensor constructors from sizes (pkg_onehot_legacy_ctor, pix2pixHD#210) ---
"lc_floattensor_size": """
class M(nn.Module):
    def forward(self, x):
        s = x.size()
        t = torch.FloatTensor(torch.Size((s[0], 4, s[2], s[3]))).zero_()
        return t.scatter_(1, x.long(), 1.0)
ARGS = (torch.randint(0, 4, (1, 1, 8, 8)),)
DS = {"x": {2: Dim("h", min=2, max=64), 3: Dim("w", min=2, max=64)}}
ARGS2 = (torch.randint(0, 4, (1, 1, 12, 10)),)
""",
"lc_floattensor_args": """
class M(nn.Module):
    def forward(self, x):
        t = torch.FloatTensor(x.size(0), 4).zero_()
        return t + x.sum(1, keepdim=True)
ARGS = (torch.randn(3, 5),)
DS = {"x": {0: Dim("b", min=2, max=64)}}
ARGS2 = (torch.randn(7, 5),)
""",
"lc_tensor_size": """
class M(nn.Module):
    def forward(self, x):
        t = torch.Tensor(x.size(0), 4).fill_(1.0)
        return t + x.sum(1, keepdim=True)
ARGS = (torch.randn(3, 5),)
DS = {"x": {0: Dim("b", min=2, max=64)}}
ARGS2 = (torch.randn(7, 5),)
""",
"lc_x_new_size": """
class M(nn.Module):
    def forward(self, x):
        t = x.new(x.size(0), 4).fill_(1.0)
        return t + x.sum(1, keepdim=True)
ARGS = (torch.randn(3, 5),)
DS = {"x": {0: Dim("b", min=2, max=64)}}
ARGS2 = (torch.randn(7, 5),)
""",
"lc_zeros_control": """
class M(nn.Module):
    def forward(self, x):
        t = torch.zeros(x.size(0), 4)
        return t + x.sum(1, keepdim=True)
ARGS = (torch.randn(3, 5),)
DS = {"x": {0: Dim("b", min=2, max=64)}}
ARGS2 = (torch.randn(7, 5),)
""",
"lc_floattensor_static_control": """
class M(nn.Module):
    def forward(self, x):
        t = torch.FloatTensor(x.size(0), 4).zero_()
        return t + x.sum(1, keepdim=True)
ARGS = (torch.randn(3, 5),)
""",
"lc_floattensor_const_control": """
class M(nn.Module):
    def forward(self, x):
        t = torch.FloatTensor(1, 4).zero_()
        return t + x.sum(1, keepdim=True)
ARGS = (torch.randn(3, 5),)
DS = {"x": {0: Dim("b", min=2, max=64)}}
ARGS2 = (torch.randn(7, 5),)
""",
# --- the cases scoreboard's false legacy pairs: inputs the truth harness's variants do not try ---
"fp_tolist_split_lengths": """
class M(nn.Module):
    def forward(self, x, lengths):
        sizes = lengths.tolist()
        return torch.stack([p.mean(0) for p in torch.split(x, sizes)])
ARGS = (torch.randn(7, 4), torch.tensor([3, 4]))
ARGS2 = (torch.randn(7, 4), torch.tensor([2, 5]))
""",
"fp_isinf_any_clamp": """
class M(nn.Module):
    def forward(self, t):
        if t.isinf().any() or t.isnan().any():
            c = torch.finfo(t.dtype).max - 1000.0
            t = torch.clamp(t, min=-c, max=c)
        return t * 1
ARGS = (torch.randn(2, 5, 16),)
ARGS2 = (torch.full((2, 5, 16), float("inf")),)
""",
# --- separate Dims tied after a layer / indexing (pkg_separate_dims_mask_add, pytorch#126127) ---
"dims_embed_mask_add": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.ffn = nn.Linear(8, 8)
    def forward(self, ids, mask):
        h = self.embed(ids)
        bias = (1.0 - mask[:, :, None].to(h.dtype)) * torch.finfo(h.dtype).min
        return (self.ffn(h) + bias).softmax(-1)
ARGS = (torch.randint(0, 50, (2, 6)), torch.ones(2, 6, dtype=torch.long))
DS = {"ids": {0: Dim("b1", min=2, max=16), 1: Dim("s1", min=2, max=64)}, "mask": {0: Dim("b2", min=2, max=16), 1: Dim("s2", min=2, max=64)}}
""",
"dims_embed_mask_add_one_dim_control": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.ffn = nn.Linear(8, 8)
    def forward(self, ids, mask):
        h = self.embed(ids)
        bias = (1.0 - mask[:, :, None].to(h.dtype)) * torch.finfo(h.dtype).min
        return (self.ffn(h) + bias).softmax(-1)
B = Dim("b", min=2, max=16); S = Dim("s", min=2, max=64)
ARGS = (torch.randint(0, 50, (2, 6)), torch.ones(2, 6, dtype=torch.long))
DS = {"ids": {0: B, 1: S}, "mask": {0: B, 1: S}}
""",
"dims_linear_out_add": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)
    def forward(self, x, y):
        return self.proj(x) + y
ARGS = (torch.randn(2, 8), torch.randn(2, 4))
DS = {"x": {0: Dim("bx", max=64)}, "y": {0: Dim("by", max=64)}}
""",
# --- namedtuple input fields under the legacy tracer (pkg_namedtuple_point_input, pytorch#160547) ---
"nt_field": """
from collections import namedtuple
P = namedtuple("P", "x y")
class M(nn.Module):
    def forward(self, p):
        return p.x + p.y
ARGS = (P(torch.ones(3), torch.ones(3)),)
""",
"nt_typing_field": """
from typing import NamedTuple
class P(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor
class M(nn.Module):
    def forward(self, p):
        return p.x * p.y
ARGS = (P(torch.ones(3), torch.ones(3)),)
""",
"nt_unpack_control": """
from collections import namedtuple
P = namedtuple("P", "x y")
class M(nn.Module):
    def forward(self, p):
        a, b = p
        return a + b
ARGS = (P(torch.ones(3), torch.ones(3)),)
""",
"nt_index_control": """
from collections import namedtuple
P = namedtuple("P", "x y")
class M(nn.Module):
    def forward(self, p):
        return p[0] + p[1]
ARGS = (P(torch.ones(3), torch.ones(3)),)
""",
"nt_second_arg_field": """
from collections import namedtuple
P = namedtuple("P", "x y")
class M(nn.Module):
    def forward(self, z, p):
        return z + p.y
ARGS = (torch.ones(3), P(torch.ones(3), torch.ones(3)))
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
