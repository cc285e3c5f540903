"""EXL403 probe (torch 2.13): a custom op defined with the call form of torch.library.custom_op plus
register_fake, called from a helper a function table dispatches to. Output: probe_customop.out."""
import torch, traceback, sys, io, contextlib, warnings
warnings.filterwarnings("ignore")

def _fallback(input: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return input @ weight

def _fake(input, weight):
    return input.new_empty(input.shape[0], weight.shape[-1])

torch.library.custom_op("mylib::fb", _fallback, mutates_args=())
torch.library.register_fake("mylib::fb", _fake)

def _mm(input, weight):
    return torch.ops.mylib.fb(input, weight)

REG = {"mm": lambda self, x: _mm(x, self.w)}

class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4))
    def forward(self, x):
        return REG["mm"](self, x) + 1

m = Model().eval()
x = torch.randn(3, 4)
def tail(e):
    s = f"{type(e).__name__}: {e}"
    i = s.find("Exception summary")
    return (s[i:i+700] if i>=0 else s[:600]).replace("\n", " | ")
for name, fn in [
    ("export-strict", lambda: torch.export.export(m, (x,), strict=True)),
    ("export-nonstrict", lambda: torch.export.export(m, (x,), strict=False)),
    ("onnx-dynamo", lambda: torch.onnx.export(m, (x,), "/tmp/a.onnx", dynamo=True)),
    ("onnx-legacy", lambda: torch.onnx.export(m, (x,), "/tmp/b.onnx", dynamo=False)),
]:
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            fn()
        print(name, "PASS")
    except Exception as e:
        print(name, "FAIL", tail(e))
        tb = traceback.extract_tb(e.__traceback__)
        print("   last frames:", [(f.filename.split('/')[-1], f.lineno) for f in tb][-3:])
