"""Probes for cases15's rules (EXL145 data_ptr, EXL146 separate Dims tied by broadcasting).

Each probe runs in its own subprocess: torch.export strict / non-strict, onnx-dynamo, onnx-legacy;
prints the status and the first line of the error. Usage: python run_probes.py [name ...]
"""
import subprocess
import sys
import textwrap

HEAD = """
import torch, torch.nn as nn, warnings, io, contextlib, tempfile, os
from torch.export import Dim
warnings.simplefilter("ignore")
"""
TAIL = """
def run(name, f):
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            f()
        print(f"  {name:10s} pass")
    except Exception as e:
        msg = str(e).strip().splitlines()[0][:150] if str(e).strip() else type(e).__name__
        print(f"  {name:10s} FAIL {type(e).__name__}: {msg}")
m = M().eval()
ds = globals().get("DS")
run("strict", lambda: torch.export.export(m, ARGS, dynamic_shapes=ds, strict=True))
run("nonstrict", lambda: torch.export.export(m, ARGS, dynamic_shapes=ds, strict=False))
run("dynamo", lambda: torch.onnx.export(m, ARGS, dynamo=True, dynamic_shapes=ds))
run("legacy", lambda: torch.onnx.export(m, ARGS, os.path.join(tempfile.mkdtemp(), "m.onnx"), dynamo=False))
"""
PROBES = {
"ptr_input_branch": """
class M(nn.Module):
    def forward(self, x):
        if x.data_ptr() % 16 != 0:
            x = x.clone()
        return x * 2
ARGS = (torch.randn(2, 8),)
""",
"ptr_param_key": """
class M(nn.Module):
    def __init__(self):
        super().__init__(); self.lin = nn.Linear(8, 8); self.cache = {}
    def forward(self, x):
        key = self.lin.weight.data_ptr()
        self.cache[key] = 1
        return self.lin(x)
ARGS = (torch.randn(2, 8),)
""",
"ptr_storage": """
class M(nn.Module):
    def forward(self, x):
        p = x.untyped_storage().data_ptr()
        return x + (p % 2)
ARGS = (torch.randn(2, 8),)
""",
"ptr_unused_int": """
class M(nn.Module):
    def forward(self, x):
        n = x.data_ptr()
        return x * 2
ARGS = (torch.randn(2, 8),)
""",
"ptr_guarded_is_compiling": """
class M(nn.Module):
    def forward(self, x):
        if not torch.compiler.is_compiling() and x.data_ptr() % 16 != 0:
            x = x.clone()
        return x * 2
ARGS = (torch.randn(2, 8),)
""",
"dims_add_batch": """
class M(nn.Module):
    def forward(self, x, y):
        return x + y
ARGS = (torch.randn(2, 3), torch.randn(2, 3))
DS = {"x": {0: Dim("bx")}, "y": {0: Dim("by")}}
""",
"dims_cat_dim1": """
class M(nn.Module):
    def forward(self, x, y):
        return torch.cat((x, y), dim=1)
ARGS = (torch.randn(2, 3), torch.randn(2, 5))
DS = {"x": {0: Dim("bx"), 1: Dim("wx")}, "y": {0: Dim("by"), 1: Dim("wy")}}
""",
"dims_cat_dim0_ok": """
class M(nn.Module):
    def forward(self, x, y):
        return torch.cat((x, y), dim=0)
ARGS = (torch.randn(2, 3), torch.randn(4, 3))
DS = {"x": {0: Dim("nx")}, "y": {0: Dim("ny")}}
""",
"dims_dynamic_ok": """
class M(nn.Module):
    def forward(self, x, y):
        return x + y
ARGS = (torch.randn(2, 3), torch.randn(2, 3))
DS = {"x": {0: Dim.DYNAMIC}, "y": {0: Dim.DYNAMIC}}
""",
"dims_same_obj_ok": """
B = Dim("b")
class M(nn.Module):
    def forward(self, x, y):
        return x + y
ARGS = (torch.randn(2, 3), torch.randn(2, 3))
DS = {"x": {0: B}, "y": {0: B}}
""",
"dims_broadcast_right": """
class M(nn.Module):
    def forward(self, x, y):
        return x * y
ARGS = (torch.randn(2, 4, 3), torch.randn(4, 3))
DS = {"x": {1: Dim("sx")}, "y": {0: Dim("sy")}}
""",
"dims_helper_mul": """
def gate(a, b):
    return a * b.sigmoid()
class M(nn.Module):
    def forward(self, x, y):
        return gate(x, y)
ARGS = (torch.randn(2, 3), torch.randn(2, 3))
DS = {"x": {0: Dim("bx")}, "y": {0: Dim("by")}}
""",
"dims_matmul": """
class M(nn.Module):
    def forward(self, x, y):
        return x @ y
ARGS = (torch.randn(2, 3), torch.randn(3, 4))
DS = {"x": {1: Dim("kx")}, "y": {0: Dim("ky")}}
""",
"dims_unary_then_add": """
class M(nn.Module):
    def forward(self, x, y):
        a = x.float().relu()
        return a + y
ARGS = (torch.randn(2, 3), torch.randn(2, 3))
DS = {"x": {0: Dim("bx")}, "y": {0: Dim("by")}}
""",
"dims_tuple_spec": """
class M(nn.Module):
    def forward(self, x, y):
        return x - y
ARGS = (torch.randn(2, 3), torch.randn(2, 3))
DS = ({0: Dim("bx")}, {0: Dim("by")})
""",
}
names = sys.argv[1:] or list(PROBES)
for n in names:
    print(n)
    r = subprocess.run([sys.executable, "-c", HEAD + textwrap.dedent(PROBES[n]) + TAIL], capture_output=True, text=True, timeout=600, check=False)
    print(r.stdout.rstrip() or r.stderr[-800:])
